//! The WMMA statements (`wmma_inst.rs`): `wmma.load.{a,b,c}`,
//! `wmma.store.d` (the memory family's [`MemOp::Wmma`]) and `wmma.mma`
//! (an [`Mma`] of a WMMA shape). The rules are ptxas 13.0.88's
//! (`tests/data/wmma-ptxas.txt`): modifiers in any order; `.sync`,
//! `.aligned`, one shape and the layout (one for a load or store, `a`'s
//! then `b`'s for `wmma.mma`) required; a load's or store's one type
//! (`.f16`, `.bf16`, `.s8`, `.u8` for `a`/`b`; `.f16`, `.f32`, `.s32` for
//! `c`/`d`) and optional space (`.global`, `.shared{::cta}`); `wmma.mma`'s
//! `d`'s then `c`'s with `.f16` `a`/`b`, else `d`'s, `a`'s, `b`'s, `c`'s
//! ([`Mma::types_ok`]); brace lists of the fragment's size; a stride of
//! any immediate or a register. `.satfinite` (repeatable) only on the
//! integer `wmma.mma`: on the floating-point ones ptxas refuses it from
//! PTX 6.5 on, which every target here needs for `.aligned`.

use super::cx::{Cx, Stmt};
use super::lex::invalid;
use super::matrix::reg_list;
use crate::error::{InvalidReason as R, IsaError};
use crate::inst::{
    AddrBase, B1Op, Mem, MemOp, MemType, Mma, MmaShape, MmaType, Op, Operand, RegId, Rnd, Space,
    WmmaFrag, WmmaMem, WmmaStride, WMMA_SHAPES,
};

/// Whether a load or store of `frag` with elements of `ty` fits `shape`
/// (ptxas 13.0.88, `tests/data/wmma-ptxas.txt`): `.f64` is m8n8k4's only
/// type and m8n8k4 takes no other; `.s4`/`.u4` are m8n8k32's `a`/`b`,
/// `.b1` m8n8k128's, `.tf32` m16n16k8's, and those shapes' `c`/`d` are
/// `.s32` or `.f32` (m8n8k32, m8n8k128: ptxas takes `.f32` for the same
/// words) and `.f32` (m16n16k8).
fn ldst_type_ok(shape: MmaShape, frag: WmmaFrag, ty: MmaType) -> bool {
    use MmaType::*;
    let ab = matches!(frag, WmmaFrag::A | WmmaFrag::B);
    let own = match shape {
        MmaShape::Wm8n8k4 => return ty == F64,
        MmaShape::Wm8n8k32 => Some((matches!(ty, S4 | U4), matches!(ty, S32 | F32))),
        MmaShape::Wm8n8k128 => Some((ty == B1, matches!(ty, S32 | F32))),
        MmaShape::Wm16n16k8 => Some((ty == Tf32, ty == F32)),
        MmaShape::M16n16k16
        | MmaShape::M32n8k16
        | MmaShape::M8n32k16
        | MmaShape::M16n8k16
        | MmaShape::M16n8k8
        | MmaShape::M16n8k32
        | MmaShape::M8n8k4 => None,
    };
    match own {
        Some((a_b, c_d)) => {
            if ab {
                a_b
            } else {
                c_d
            }
        }
        None => !matches!(ty, F64 | S4 | U4 | B1 | Tf32),
    }
}

/// The modifier words after the opcode, sorted.
#[derive(Default)]
struct Words<'a> {
    sync: bool,
    aligned: bool,
    satfinite: bool,
    /// The rounding word (f64 only).
    rnd: Option<Rnd>,
    /// `.xor`/`.and` (`.b1`'s `wmma.mma`, before `.popc`).
    bop: Option<B1Op>,
    /// `.popc`, after the operation.
    popc: bool,
    shape: Option<MmaShape>,
    layouts: Vec<bool>,
    types: Vec<MmaType>,
    space: Option<Space>,
    bad: Option<&'a str>,
}

fn sort_words<'a>(words: &[&'a str]) -> Words<'a> {
    let mut w = Words::default();
    let run_type = |x: &str| {
        MmaType::WORDS
            .iter()
            .chain(&MmaType::WMMA_WORDS)
            .find(|t| t.0 == x)
            .map(|t| t.1)
    };
    for &x in words {
        let dup = match x {
            "sync" => std::mem::replace(&mut w.sync, true),
            "aligned" => std::mem::replace(&mut w.aligned, true),
            // ptxas takes it twice.
            "satfinite" => {
                w.satfinite = true;
                false
            }
            "rn" | "rz" | "rm" | "rp" => {
                let r = Rnd::ALL.into_iter().find(|r| r.name() == x);
                std::mem::replace(&mut w.rnd, r).is_some()
            }
            // ptxas: the operation, then `.popc` ("Boolean operation is
            // required" when `.popc` comes first).
            "xor" | "and" => {
                let op = if x == "xor" { B1Op::Xor } else { B1Op::And };
                w.bop.replace(op).is_some() || w.popc
            }
            "popc" => std::mem::replace(&mut w.popc, true) || w.bop.is_none(),
            "row" | "col" => {
                w.layouts.push(x == "col");
                false
            }
            "global" => w.space.replace(Space::Global).is_some(),
            "shared" | "shared::cta" => w.space.replace(Space::Shared).is_some(),
            _ if WMMA_SHAPES.iter().any(|s| s.0 == x) => {
                let s = WMMA_SHAPES.iter().find(|s| s.0 == x).map(|s| s.1);
                std::mem::replace(&mut w.shape, s).is_some()
            }
            _ if run_type(x).is_some() => {
                w.types.extend(run_type(x));
                false
            }
            _ => true,
        };
        if dup && w.bad.is_none() {
            w.bad = Some(x);
        }
    }
    w
}

/// `wmma.load...`, `wmma.store...` or `wmma.mma...`.
pub(super) fn wmma(cx: &mut Cx<'_, '_>, st: Stmt<'_>) -> Result<Op, IsaError> {
    let words = st.words;
    let (frag, rest) = match (words.get(1), words.get(2)) {
        (Some(&"mma"), _) => (None, &words[2..]),
        (Some(&"load"), Some(&"a")) => (Some(WmmaFrag::A), &words[3..]),
        (Some(&"load"), Some(&"b")) => (Some(WmmaFrag::B), &words[3..]),
        (Some(&"load"), Some(&"c")) => (Some(WmmaFrag::C), &words[3..]),
        (Some(&"store"), Some(&"d")) => (Some(WmmaFrag::D), &words[3..]),
        (w, _) => return Err(st.unknown(w.copied().unwrap_or("wmma"))),
    };
    cx.inst = "wmma";
    let w = sort_words(rest);
    if let Some(x) = w.bad {
        return Err(st.unknown(x));
    }
    let missing = [
        (w.sync, "sync"),
        (w.aligned, "aligned"),
        (w.shape.is_some(), "m16n16k16"),
        (w.popc || w.bop.is_none(), "popc"),
    ];
    if let Some((_, x)) = missing.iter().find(|m| !m.0) {
        return Err(st.unknown(x));
    }
    let layouts = if frag.is_some() { 1 } else { 2 };
    if w.layouts.len() != layouts {
        return Err(st.unknown("row"));
    }
    let Some(shape) = w.shape else {
        return Err(st.unknown("m16n16k16"));
    };
    if frag.is_some() && w.bop.is_some() {
        return Err(st.unknown("popc"));
    }
    match frag {
        Some(f) => Ok(Op::Mem(ldst(cx, st, f, shape, &w)?)),
        None => Ok(Op::Mma(mma(cx, st, shape, &w)?)),
    }
}

/// `wmma.load`/`wmma.store`.
fn ldst(
    cx: &mut Cx<'_, '_>,
    st: Stmt<'_>,
    frag: WmmaFrag,
    shape: MmaShape,
    w: &Words<'_>,
) -> Result<Mem, IsaError> {
    use MmaType::*;
    let Stmt { op, ops, .. } = st;
    let types_err = || st.types("wmma");
    let ty = match (frag, w.types.as_slice()) {
        (WmmaFrag::A | WmmaFrag::B, &[t @ (F16 | Bf16 | S8 | U8 | F64 | S4 | U4 | Tf32 | B1)]) => t,
        (WmmaFrag::C | WmmaFrag::D, &[t @ (F16 | F32 | S32 | F64)]) => t,
        _ => return Err(types_err()),
    };
    if !ldst_type_ok(shape, frag, ty) {
        return Err(types_err());
    }
    // ptxas: "Illegal alayout": m8n8k32's and m8n8k128's `a` is `.row`,
    // their `b` `.col`.
    let sub = matches!(shape, MmaShape::Wm8n8k32 | MmaShape::Wm8n8k128);
    if sub && w.layouts[0] != (frag == WmmaFrag::B) && matches!(frag, WmmaFrag::A | WmmaFrag::B) {
        return Err(st.unknown(if w.layouts[0] { "col" } else { "row" }));
    }
    if w.rnd.is_some() {
        return Err(st.unknown("rn"));
    }
    if w.satfinite {
        return Err(st.unknown("satfinite"));
    }
    let mut wm = WmmaMem {
        frag,
        col: w.layouts[0],
        shape,
        ty,
        stride: WmmaStride::Default,
        hi: [RegId(0); 4],
    };
    st.counts(cx, 2, 3)?;
    let store = wm.is_store();
    let (list, at) = if store {
        (ops[1], ops[0])
    } else {
        (ops[0], ops[1])
    };
    let n = wm.regs();
    let addr = cx.address(at, false)?;
    // ptxas: "Immediate addresses allowed only for .local state space".
    if addr.base == AddrBase::Abs {
        return Err(cx.args(at.0, at.1));
    }
    let regs = reg_list(cx, list, n, !store, op)?;
    let (lo, hi) = regs.split_at(n.min(4));
    wm.hi[..hi.len()].copy_from_slice(hi);
    if let Some(&s) = ops.get(2) {
        wm.stride = match cx.value(s)? {
            Operand::Reg(r) => WmmaStride::Reg(r),
            // Any immediate, negative ones too (ptxas), as its low 32 bits.
            Operand::Imm(v) => WmmaStride::Imm(v as u32),
            Operand::Special(_) => return Err(cx.args(s.0, s.1)),
        };
    }
    let mty = match ty {
        F16 => MemType::F16,
        F32 => MemType::F32,
        S32 => MemType::S(32),
        S8 => MemType::S(8),
        U8 => MemType::U(8),
        Bf16 => MemType::B(16),
        S4 | U4 | B1 | Tf32 => MemType::B(32),
        F64 => MemType::F64,
    };
    let space = w.space.unwrap_or(Space::Generic);
    let mut m = Mem {
        addr,
        ..Mem::new(MemOp::Wmma(wm), space, mty, lo.len() as u8)
    };
    for (k, &r) in lo.iter().enumerate() {
        if store {
            m.vals[k] = Operand::Reg(r);
        } else {
            m.d[k] = r;
        }
    }
    Ok(m)
}

/// `wmma.mma.sync.aligned.alayout.blayout.shape.dtype.ctype d, a, b, c`
/// (`.f16` `a`, `b`) or `....shape.dtype.atype.btype.ctype{.satfinite}`.
fn mma(cx: &mut Cx<'_, '_>, st: Stmt<'_>, shape: MmaShape, w: &Words<'_>) -> Result<Mma, IsaError> {
    let Stmt { op, ops, col, .. } = st;
    let types_err = || st.types("wmma");
    let types = match *w.types.as_slice() {
        [d, c] => [d, MmaType::F16, MmaType::F16, c],
        [d, a, b, c] if a != MmaType::F16 => [d, a, b, c],
        _ => return Err(types_err()),
    };
    if !Mma::types_ok(shape, types) {
        return Err(types_err());
    }
    let int = matches!(
        types[1],
        MmaType::S8 | MmaType::U8 | MmaType::S4 | MmaType::U4
    );
    if w.satfinite && !int {
        return Err(types_err());
    }
    let sub = matches!(shape, MmaShape::Wm8n8k32 | MmaShape::Wm8n8k128);
    if sub && w.layouts != [false, true] {
        return Err(st.unknown("col"));
    }
    // `.xor.popc`/`.and.popc` exactly on `.b1`.
    if w.bop.is_some() != (types[1] == MmaType::B1) {
        return Err(st.unknown("popc"));
    }
    let f64 = types[1] == MmaType::F64;
    if w.rnd.is_some() && !f64 {
        return Err(st.unknown("rn"));
    }
    if let Some(s) = w.space {
        return Err(invalid(
            col,
            op.1,
            R::UnknownModifier(format!(".{}", s.name())),
        ));
    }
    let mut m = Mma {
        shape,
        types,
        satfinite: w.satfinite,
        rnd: w.rnd,
        bop: w.bop,
        wmma_col: [w.layouts[0], w.layouts[1]],
        d: [RegId(0); 8],
        a: [RegId(0); 8],
        b: [RegId(0); 8],
        c: [RegId(0); 8],
    };
    st.count(cx, 4)?;
    let [nd, na, nb, nc] = m.counts();
    m.d[..nd].copy_from_slice(&reg_list(cx, ops[0], nd, true, op)?);
    m.a[..na].copy_from_slice(&reg_list(cx, ops[1], na, false, op)?);
    m.b[..nb].copy_from_slice(&reg_list(cx, ops[2], nb, false, op)?);
    m.c[..nc].copy_from_slice(&reg_list(cx, ops[3], nc, false, op)?);
    Ok(m)
}
