//! The warp family's statements (`bar`, `barrier`, `membar`, `fence`,
//! `shfl.sync`, `vote.sync`, `activemask`, `bar.warp.sync`, `redux.sync`,
//! `match.sync`, `bar.red`, `nanosleep`, `elect.sync`): words from
//! [`WARP_WORDS`], operands through [`Cx`].

use super::cx::{Cx, Piece, Stmt};
use super::lex::invalid;
use crate::error::{InvalidReason as R, IsaError};
use crate::inst::{Operand, PredSrc};
use crate::mem_inst::{WarpInst, WarpOp, WARP_WORDS};

/// The warp-family opcode `op` in [`WARP_WORDS`]' spelling: ptxas 13.0
/// takes `fence`'s order and scope words in either order (`fence.gpu.acq_rel`)
/// and `barrier`'s `.aligned` before or after the mode (`barrier.aligned.sync`);
/// `tests/data/mem-ptxas.txt`. It also takes `vote`'s mode before `.sync`
/// (`vote.ballot.sync.b32`, which CUB's radix sort writes in inline
/// assembly; ptxas 13.0.88 accepts all four modes so on sm_90 at PTX 8.0).
/// Other words must be as in the table.
fn canonical_warp_word(op: &str) -> String {
    let words: Vec<&str> = op.split('.').collect();
    let is = |set: &[&str], w: &&str| set.contains(w);
    const SEMS: [&str; 4] = ["sc", "acq_rel", "acquire", "release"];
    const SCOPES: [&str; 4] = ["cta", "gpu", "sys", "cluster"];
    match words.as_slice() {
        ["fence", a, b] if is(&SCOPES, a) && is(&SEMS, b) => format!("fence.{b}.{a}"),
        ["vote", mode, "sync", ty] if is(&["all", "any", "uni", "ballot"], mode) => {
            format!("vote.sync.{mode}.{ty}")
        }
        ["barrier", rest @ ..] => {
            let (cta, rest) = match rest {
                ["cta", r @ ..] => (".cta", r),
                r => ("", r),
            };
            match rest {
                ["aligned", mode] => format!("barrier{cta}.{mode}.aligned"),
                ["red", "aligned", op, ty] => format!("barrier{cta}.red.{op}.aligned.{ty}"),
                _ => op.to_string(),
            }
        }
        _ => op.to_string(),
    }
}

/// `d|p` into `d` and `p` (at the operand's offset), or `d` alone.
fn split_pred_dest(o: Piece<'_>) -> (Piece<'_>, Option<Piece<'_>>) {
    match o.1.split_once('|') {
        Some((d, p)) => ((o.0, d.trim()), Some((o.0, p.trim()))),
        None => (o, None),
    }
}

/// A `.b32` operand's immediate at 32 bits, so `-1` and `0xffffffff` are one
/// value (and print back as one).
fn b32(o: Operand) -> Operand {
    match o {
        Operand::Imm(v) => Operand::Imm(v & 0xffff_ffff),
        other => other,
    }
}

pub(super) fn warp(cx: &mut Cx<'_, '_>, st: Stmt<'_>) -> Result<WarpInst, IsaError> {
    let Stmt { op, ops, .. } = st;
    let canon = canonical_warp_word(op.1);
    let Some(word) = WARP_WORDS.iter().position(|w| w.0 == canon) else {
        // Valid PTX for sm_100a that this simulator does not run.
        // (`.min`/`.max` only: "Incorrect type '.f32' for operation '.add'").
        if (canon.starts_with("redux.sync.min.") || canon.starts_with("redux.sync.max."))
            && canon.ends_with(".f32")
        {
            return Err(st.unimplemented());
        }
        return Err(invalid(cx.col(op.0), op.1, R::UnknownModifier(op.1.into())));
    };
    let kind = WARP_WORDS[word].1;
    cx.inst = WARP_WORDS[word].0;
    let none = Operand::Imm(0);
    let mut w = WarpInst {
        op: kind,
        word: word as u8,
        d: None,
        p: None,
        srcs: [none; 3],
        pred: PredSrc::Imm(true),
        mask: Operand::Imm(u64::from(u32::MAX)),
        nsrc: ops.len() as u8,
    };
    match kind {
        WarpOp::BarSync | WarpOp::BarArrive | WarpOp::BarRed(_) => {
            let red = matches!(kind, WarpOp::BarRed(_));
            let (lo, hi) = match kind {
                WarpOp::BarArrive => (2, 2),
                WarpOp::BarRed(_) => (3, 4),
                _ => (1, 2),
            };
            st.counts(cx, lo, hi)?;
            let mut ids = ops;
            if red {
                // `d, a{, b}, {!}c`: the destination first, the predicate last.
                w.d = Some(cx.reg(ops[0])?);
                w.pred = cx.pred(ops[ops.len() - 1])?;
                ids = &ops[1..ops.len() - 1];
                w.nsrc = ids.len() as u8;
            }
            for (k, p) in ids.iter().enumerate() {
                w.srcs[k] = b32(cx.value(*p)?);
                // ptxas 13.0 checks immediate operands: barrier 0..15, a
                // thread count that is a multiple of the warp size, and
                // non-zero for `arrive` (`tests/data/mem-ptxas.txt`).
                let bad = match (k, w.srcs[k]) {
                    (0, Operand::Imm(v)) => v > 15,
                    (1, Operand::Imm(v)) => v % 32 != 0 || (kind == WarpOp::BarArrive && v == 0),
                    _ => false,
                };
                if bad {
                    return Err(cx.args(p.0, p.1));
                }
            }
        }
        WarpOp::Fence => st.count(cx, 0)?,
        // The timing stand-in for `bra`/`ret`/`exit` has no text of its own.
        WarpOp::Control => {
            return Err(invalid(cx.col(op.0), op.1, R::UnknownModifier(op.1.into())))
        }
        WarpOp::Activemask => {
            st.count(cx, 1)?;
            w.d = Some(cx.reg(ops[0])?);
        }
        WarpOp::Shfl(_) => {
            st.count(cx, 5)?;
            let (d, p) = split_pred_dest(ops[0]);
            w.d = Some(cx.reg(d)?);
            w.p = p.map(|p| cx.reg(p)).transpose()?;
            for k in 0..3 {
                w.srcs[k] = b32(cx.value(ops[k + 1])?);
            }
            w.mask = b32(cx.value(ops[4])?);
        }
        WarpOp::Vote(_) => {
            st.count(cx, 3)?;
            w.d = Some(cx.reg(ops[0])?);
            w.pred = cx.pred(ops[1])?;
            w.mask = b32(cx.value(ops[2])?);
        }
        WarpOp::WarpSync => {
            st.count(cx, 1)?;
            w.mask = b32(cx.value(ops[0])?);
        }
        WarpOp::Nanosleep => {
            st.count(cx, 1)?;
            w.srcs[0] = b32(cx.value(ops[0])?);
        }
        WarpOp::Redux(_) | WarpOp::Match { .. } => {
            st.count(cx, 3)?;
            let (d, p) = split_pred_dest(ops[0]);
            w.d = Some(cx.reg(d)?);
            // ptxas: "Predicate output not allowed for instruction 'match.any'".
            if let Some(p) = p {
                if !matches!(kind, WarpOp::Match { all: true, .. }) {
                    return Err(cx.args(p.0, p.1));
                }
                w.p = Some(cx.reg(p)?);
            }
            let a = cx.value(ops[1])?;
            w.srcs[0] = if w.src_bits() == 32 { b32(a) } else { a };
            w.mask = b32(cx.value(ops[2])?);
        }
        WarpOp::Movmatrix => {
            // `d, a`: registers only ("Arguments mismatch" for an
            // immediate, "Vector operand is not allowed" for braces).
            st.count(cx, 2)?;
            w.d = Some(cx.reg(ops[0])?);
            w.srcs[0] = Operand::Reg(cx.reg(ops[1])?);
        }
        WarpOp::Elect => {
            st.count(cx, 2)?;
            // ptxas: "Predicate output expected for instruction 'elect'".
            let (d, p) = split_pred_dest(ops[0]);
            let Some(p) = p else {
                return Err(cx.args(ops[0].0, ops[0].1));
            };
            w.d = if d.1 == "_" { None } else { Some(cx.reg(d)?) };
            w.p = Some(cx.reg(p)?);
            w.mask = b32(cx.value(ops[1])?);
        }
    }
    Ok(w)
}
