//! `cp.async.bulk` (Hopper's bulk copies, TMA 1D; see
//! [`crate::async_inst::AsyncOp::Bulk`]) and its group statements, with
//! ptxas 13.0.88's rules (`tests/data/async-ptxas.txt`): the copy to
//! shared memory is `.shared::cluster` from `.global` or `.shared::cta`
//! and completes by an `mbarrier`'s transaction count
//! (`.mbarrier::complete_tx::bytes`, required; a `.shared::cta`
//! destination, PTX 9.0, is not run); the store to global memory
//! is `.global.shared::cta.bulk_group`; the size a 32-bit register or an
//! immediate multiple of 16; `wait_group{.read}` an immediate.
//! `.L2::cache_hint`, `.multicast::cluster` and `cp.async.bulk.prefetch`
//! are valid PTX simcli does not run.

use super::cx::{imm, Cx, Stmt};
use super::lex::invalid;
use super::mbarrier::op_text;
use crate::async_inst::{AsyncInst, AsyncOp};
use crate::error::{InvalidReason as R, IsaError};
use crate::inst::Operand;

/// Reads `words` (those after `cp.async.bulk`) and the operands into `a`.
pub(super) fn bulk(
    cx: &mut Cx<'_, '_>,
    st: Stmt<'_>,
    words: &[&str],
    a: &mut AsyncInst,
) -> Result<(), IsaError> {
    let Stmt { ops, col, .. } = st;
    let bad = |w: &str, reason: R| invalid(col, &op_text(w), reason);
    match words {
        ["commit_group", rest @ ..] => {
            cx.inst = "cp.async.bulk.commit_group";
            if let Some(w) = rest.first() {
                return Err(bad(w, R::UnknownModifier(op_text(w))));
            }
            a.op = AsyncOp::BulkCommit;
            return st.count(cx, 0);
        }
        ["wait_group", rest @ ..] => {
            cx.inst = "cp.async.bulk.wait_group";
            let read = match rest {
                [] => false,
                ["read"] => true,
                [w, ..] => return Err(bad(w, R::UnknownModifier(op_text(w)))),
            };
            a.op = AsyncOp::BulkWait { read };
            st.count(cx, 1)?;
            a.n = imm(ops[0].1).ok_or_else(|| cx.args(ops[0].0, ops[0].1))?;
            return Ok(());
        }
        ["prefetch", ..] => return Err(st.unimplemented()),
        _ => {}
    }
    let inst = "cp.async.bulk";
    cx.inst = inst;
    // The two spaces (destination, source), then the completion mechanism.
    let (mut spaces, mut mbar, mut group) = (Vec::with_capacity(2), false, false);
    for &w in words {
        match w {
            "shared::cluster" | "shared::cta" | "global" | "shared" if spaces.len() < 2 => {
                spaces.push(w)
            }
            "mbarrier::complete_tx::bytes" if !mbar => mbar = true,
            "bulk_group" if !group => group = true,
            "L2::cache_hint" | "multicast::cluster" => return Err(st.unimplemented()),
            "local" | "const" | "param" => return Err(bad(w, R::StateSpaceIncorrect { inst })),
            _ => return Err(bad(w, R::UnknownModifier(op_text(w)))),
        }
    }
    a.op = match (spaces.as_slice(), mbar, group) {
        (["shared::cluster", "global"], true, false) => AsyncOp::Bulk { from_shared: false },
        (["shared::cluster", "shared::cta"], true, false) => AsyncOp::Bulk { from_shared: true },
        (["global", "shared::cta"], false, true) => AsyncOp::BulkStore,
        // A `.shared::cta` destination (ptxas 13.0 takes it at PTX 9.0; the
        // version it arrived in is not in the grid): not run.
        (["shared::cta", "global" | "shared::cta"], true, false) => return Err(st.unimplemented()),
        ([_, _], false, false) => {
            return Err(invalid(
                col,
                inst,
                R::ModifierRequired {
                    what: ".completion_mechanism",
                    inst,
                },
            ))
        }
        ([_, _], _, _) => return Err(invalid(col, inst, R::StateSpaceIncorrect { inst })),
        _ => return Err(invalid(col, inst, R::StateSpaceCount { inst })),
    };
    operands(cx, st, mbar, a)
}

/// `[dst], [src], size{, [mbar]}`.
fn operands(
    cx: &mut Cx<'_, '_>,
    st: Stmt<'_>,
    mbar: bool,
    a: &mut AsyncInst,
) -> Result<(), IsaError> {
    st.count(cx, if mbar { 4 } else { 3 })?;
    let ops = st.ops;
    let addrs = if mbar { [0, 1, 3] } else { [0, 1, 1] };
    for k in addrs {
        if !ops[k].1.starts_with('[') {
            return Err(cx.args(ops[k].0, ops[k].1));
        }
    }
    a.dst = cx.address(ops[0], false)?;
    a.src = cx.address(ops[1], false)?;
    if mbar {
        a.bar = cx.address(ops[3], false)?;
    }
    let size = ops[2];
    a.a = Some(match imm(size.1) {
        // ptxas: the size is a multiple of 16 ("Argument 2 ... unexpected value").
        Some(v) if v % 16 != 0 || v == 0 => {
            return Err(cx.unexpected_value(size, "cp.async.bulk", 2, "multiple of 16"))
        }
        Some(_) => cx.value(size)?,
        None => {
            if super::mbarrier::width(cx, size.1).is_some_and(|w| w != 32) {
                return Err(cx.args(size.0, size.1));
            }
            Operand::Reg(cx.reg(size)?)
        }
    });
    Ok(())
}
