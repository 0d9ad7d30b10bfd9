//! The tensor-core family's statements: `mma.sync.aligned` ([`Mma`]) and
//! `ldmatrix`/`stmatrix` (the memory family's [`MemOp::Ldmatrix`] and
//! [`MemOp::Stmatrix`]); `movmatrix` is read with the warp family. The
//! rules are ptxas 13.0.88's (`tests/data/mma-ptxas.txt`): modifiers in any
//! order, `.sync` and `.aligned` required, `mma`'s layouts `.row.col` in
//! that order, its four types in the order `d, a, b, c`, every operand a
//! brace list of the fragment's size.

use super::cx::{operands, Cx, Piece, Stmt};
use crate::error::IsaError;
use crate::inst::{
    AddrBase, Mem, MemOp, MemType, Mma, MmaType, Operand, RegId, Space, MMA_OTHER_SHAPES,
    MMA_SHAPES,
};

/// The registers of brace list `p`, which must hold `n` of them (`what`:
/// the error for anything else). An immediate element is valid PTX for a
/// source (`mma`'s `c` may be `{0f00000000, ...}`) that this simulator does
/// not run: `Unimplemented`.
pub(super) fn reg_list(
    cx: &mut Cx<'_, '_>,
    p: Piece<'_>,
    n: usize,
    dest: bool,
    op: Piece<'_>,
) -> Result<Vec<RegId>, IsaError> {
    let inner =
        p.1.strip_prefix('{')
            .and_then(|s| s.strip_suffix('}'))
            .ok_or_else(|| cx.args(p.0, p.1))?;
    let items = operands(inner);
    if items.len() != n {
        return Err(cx.args(p.0, p.1));
    }
    let mut out = Vec::with_capacity(n);
    for (o, s) in items {
        let piece = (p.0 + 1 + o, s);
        match cx.value(piece) {
            Ok(Operand::Reg(r)) => out.push(r),
            Ok(Operand::Imm(_)) if !dest => {
                return Err(IsaError::Unimplemented {
                    col: cx.col(op.0),
                    what: format!("{} with an immediate fragment element", op.1),
                })
            }
            Ok(Operand::Imm(_) | Operand::Special(_)) | Err(_) => {
                return Err(cx.args(piece.0, piece.1))
            }
        }
    }
    Ok(out)
}

/// `mma.sync.aligned...`.
pub(super) fn mma(cx: &mut Cx<'_, '_>, st: Stmt<'_>) -> Result<Mma, IsaError> {
    let Stmt { op, words, ops, .. } = st;
    cx.inst = "mma";
    let (mut sync, mut aligned, mut sat, mut rn) = (false, false, false, false);
    let (mut shape, mut other_shape, mut other_type) = (None, false, false);
    let mut layouts: Vec<&str> = Vec::new();
    let mut types: Vec<MmaType> = Vec::new();
    for &w in &words[1..] {
        let flag = match w {
            "sync" => &mut sync,
            "aligned" => &mut aligned,
            "satfinite" => &mut sat,
            "rn" => &mut rn,
            "row" | "col" => {
                layouts.push(w);
                continue;
            }
            _ => {
                if let Some(s) = MMA_SHAPES.iter().find(|s| s.0 == w) {
                    if shape.replace(s.1).is_some() {
                        return Err(st.unknown(w));
                    }
                } else if MMA_OTHER_SHAPES.contains(&w) {
                    other_shape = true;
                } else if let Some(t) = MmaType::WORDS.iter().find(|t| t.0 == w) {
                    types.push(t.1);
                } else if MmaType::OTHER_WORDS.contains(&w) {
                    other_type = true;
                } else {
                    return Err(st.unknown(w));
                }
                continue;
            }
        };
        if std::mem::replace(flag, true) {
            return Err(st.unknown(w));
        }
    }
    if !sync || !aligned {
        return Err(st.unknown(if sync { "aligned" } else { "sync" }));
    }
    if layouts != ["row", "col"] {
        let w = layouts.iter().find(|l| **l != "row").copied();
        return Err(st.unknown(w.unwrap_or("row")));
    }
    if other_shape || other_type {
        return Err(st.unimplemented());
    }
    let Some(shape) = shape else {
        return Err(st.types("mma"));
    };
    let [d, a, b, c] = match types.as_slice() {
        &[d, a, b, c] => [d, a, b, c],
        _ => return Err(st.types("mma")),
    };
    let t = [d, a, b, c];
    if !Mma::types_ok(shape, t) {
        // Volta's `m8n8k4` with f16 (and f32 accumulators) is valid PTX.
        let volta = shape == crate::inst::MmaShape::M8n8k4
            && t.iter().all(|x| matches!(x, MmaType::F16 | MmaType::F32))
            && a == MmaType::F16
            && b == MmaType::F16;
        return Err(if volta {
            st.unimplemented()
        } else {
            st.types("mma")
        });
    }
    let mut m = Mma {
        shape,
        types: t,
        satfinite: sat,
        rnd: rn.then_some(crate::inst::Rnd::Rn),
        bop: None,
        wmma_col: [false; 2],
        d: [RegId(0); 8],
        a: [RegId(0); 8],
        b: [RegId(0); 8],
        c: [RegId(0); 8],
    };
    if (sat && !m.is_int()) || (rn && d != MmaType::F64) {
        return Err(st.types("mma"));
    }
    st.count(cx, 4)?;
    let [nd, na, nb, nc] = m.counts();
    let dr = reg_list(cx, ops[0], nd, true, op)?;
    let ar = reg_list(cx, ops[1], na, false, op)?;
    let br = reg_list(cx, ops[2], nb, false, op)?;
    let cr = reg_list(cx, ops[3], nc, false, op)?;
    m.d[..nd].copy_from_slice(&dr);
    m.a[..na].copy_from_slice(&ar);
    m.b[..nb].copy_from_slice(&br);
    m.c[..nc].copy_from_slice(&cr);
    Ok(m)
}

/// `ldmatrix`/`stmatrix.sync.aligned.m8n8.xN{.trans}{.shared{::cta}}.b16`.
pub(super) fn ldst(cx: &mut Cx<'_, '_>, st: Stmt<'_>) -> Result<Mem, IsaError> {
    let Stmt { op, words, ops, .. } = st;
    let store = words[0] == "stmatrix";
    cx.inst = if store { "stmatrix" } else { "ldmatrix" };
    let (mut sync, mut aligned, mut trans, mut shape) = (false, false, false, false);
    let (mut num, mut space, mut b16) = (None, None, false);
    for &w in &words[1..] {
        let flag = match w {
            "sync" => &mut sync,
            "aligned" => &mut aligned,
            "trans" => &mut trans,
            "m8n8" => &mut shape,
            "b16" => &mut b16,
            "x1" | "x2" | "x4" => {
                if num.replace(w[1..].parse::<u8>().unwrap_or(1)).is_some() {
                    return Err(st.unknown(w));
                }
                continue;
            }
            "shared" | "shared::cta" => {
                if space.replace(Space::Shared).is_some() {
                    return Err(st.unknown(w));
                }
                continue;
            }
            _ => return Err(st.unknown(w)),
        };
        if std::mem::replace(flag, true) {
            return Err(st.unknown(w));
        }
    }
    let missing = [
        (sync, "sync"),
        (aligned, "aligned"),
        (shape, "m8n8"),
        (num.is_some(), "x1"),
    ];
    if let Some((_, w)) = missing.iter().find(|m| !m.0) {
        return Err(st.unknown(w));
    }
    if !b16 {
        return Err(st.types(cx.inst));
    }
    let vec = num.unwrap_or(1);
    let mop = if store {
        MemOp::Stmatrix { trans }
    } else {
        MemOp::Ldmatrix { trans }
    };
    let mut m = Mem::new(mop, space.unwrap_or(Space::Generic), MemType::B(16), vec);
    st.count(cx, 2)?;
    let (list, addr) = if store {
        (ops[1], ops[0])
    } else {
        (ops[0], ops[1])
    };
    m.addr = cx.address(addr, false)?;
    // ptxas: "Immediate addresses allowed only for .local state space".
    if m.addr.base == AddrBase::Abs {
        return Err(cx.args(addr.0, addr.1));
    }
    // Every element a register ("Arguments mismatch" for `{5}`).
    let regs = reg_list(cx, list, usize::from(vec), true, op)?;
    for (k, r) in regs.into_iter().enumerate() {
        if store {
            m.vals[k] = Operand::Reg(r);
        } else {
            m.d[k] = r;
        }
    }
    Ok(m)
}
