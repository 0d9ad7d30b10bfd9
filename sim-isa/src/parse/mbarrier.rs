//! `mbarrier.*` and `cp.async.mbarrier.arrive` (see
//! [`crate::async_inst::MbarOp`]), with ptxas 13.0.88's rules
//! (`tests/data/async-ptxas.txt`): `.b64` always; a state space of
//! `.shared`, `.shared::cta` or none (a generic address; none at all for
//! `pending_count`); `.noComplete` with a count only; a memory order
//! (`.release`/`.relaxed` on arrivals, `.acquire`/`.relaxed` on waits) only
//! with a scope (`.cta`, `.cluster`) and the reverse. The transaction
//! count (sm_90, PTX 8.0): `expect_tx` and `complete_tx` (`[a], txCount`,
//! `.relaxed` only), and `arrive{_drop}.expect_tx` (`state, [a], txCount`);
//! `.shared::cluster` (this block's own shared memory) on those and on
//! arrivals into the sink `_` and waits.

use super::cx::{imm, Cx, Piece, Stmt};
use super::lex::invalid;
use crate::async_inst::{AsyncInst, AsyncOp, MbarOp, MBAR_ORDERS};
use crate::error::{InvalidReason as R, IsaError};
use crate::inst::{Operand, RegId};

/// Reads the words after `mbarrier` (or `cp.async.mbarrier`, `cp`) and the
/// operands into `a`.
pub(super) fn mbarrier(
    cx: &mut Cx<'_, '_>,
    st: Stmt<'_>,
    words: &[&str],
    cp: bool,
    a: &mut AsyncInst,
) -> Result<(), IsaError> {
    let col = st.col;
    let bad = |w: &str, reason: R| invalid(col, &op_text(w), reason);
    let first = words.first().copied().unwrap_or("");
    let Some((mut m, inst)) = operation(cp, first) else {
        return Err(bad(first, R::UnknownModifier(op_text(first))));
    };
    cx.inst = inst;
    let (mut space, mut ty, mut order, mut scope) = (None, None, None, None);
    for &w in &words[1..] {
        match (w, &mut m) {
            // ptxas: "Unknown modifier '.expect_tx'" after `.noComplete`.
            (
                "expect_tx",
                MbarOp::Arrive {
                    tx, no_complete, ..
                },
            ) if !*tx && !*no_complete => *tx = true,
            ("noinc", MbarOp::CpArrive { noinc }) if !*noinc => *noinc = true,
            ("noComplete", MbarOp::Arrive { no_complete, .. }) if !*no_complete => {
                *no_complete = true
            }
            ("parity", MbarOp::Wait { parity, .. }) if !*parity => *parity = true,
            ("release" | "relaxed" | "acquire", _) if order.is_none() => {
                let ok = match m {
                    MbarOp::Arrive { .. } => w != "acquire",
                    MbarOp::Wait { .. } => w != "release",
                    MbarOp::ExpectTx | MbarOp::CompleteTx => w == "relaxed",
                    MbarOp::Init
                    | MbarOp::PendingCount
                    | MbarOp::Inval
                    | MbarOp::CpArrive { .. } => false,
                };
                if !ok {
                    return Err(bad(
                        w,
                        R::IllegalModifier {
                            modifier: op_text(w),
                            inst,
                        },
                    ));
                }
                order = Some(w);
            }
            ("cta" | "cluster", _) if scope.is_none() && space.is_none() => scope = Some(w),
            ("shared" | "shared::cta" | "shared::cluster", _) if space.is_none() => space = Some(w),
            ("shared::cluster", _) => {
                return Err(bad(
                    w,
                    R::IllegalModifier {
                        modifier: op_text(w),
                        inst,
                    },
                ))
            }
            ("global" | "local" | "const" | "param", _) => {
                return Err(bad(w, R::StateSpaceIncorrect { inst }))
            }
            ("b64", _) if ty.is_none() => ty = Some(w),
            (w, _) if w.starts_with('b') || w.starts_with('u') || w.starts_with('s') => {
                return Err(bad(w, R::UnexpectedTypes { inst }))
            }
            (w, _) => return Err(bad(w, R::UnknownModifier(op_text(w)))),
        }
    }
    if ty.is_none() {
        return Err(invalid(col, inst, R::UnexpectedTypes { inst }));
    }
    // An order needs a scope and a scope an order ("Modifier '.release'
    // requires scope", "Modifier '.cta' requires order").
    match (order, scope) {
        (Some(o), Some(s)) => {
            let text = format!("{o}.{s}");
            a.order = MBAR_ORDERS.iter().position(|x| *x == text).unwrap_or(0) as u8;
        }
        (None, None) => {}
        (Some(w), None) | (None, Some(w)) => {
            return Err(bad(
                w,
                R::IllegalModifier {
                    modifier: op_text(w),
                    inst,
                },
            ))
        }
    }
    // ptxas: `.shared::cluster` only where the object may be another
    // block's: the transaction statements and arrivals (into `_`).
    let remote = matches!(
        m,
        MbarOp::ExpectTx | MbarOp::CompleteTx | MbarOp::Arrive { .. }
    );
    if space == Some("shared::cluster") && !remote {
        return Err(bad(
            "shared::cluster",
            R::IllegalModifier {
                modifier: op_text("shared::cluster"),
                inst,
            },
        ));
    }
    if m == MbarOp::PendingCount && space.is_some() {
        return Err(invalid(col, inst, R::StateSpaceIncorrect { inst }));
    }
    a.generic = space.is_none();
    a.cta = space == Some("shared::cta");
    a.cluster = space == Some("shared::cluster");
    a.op = AsyncOp::Mbar(m);
    operands(cx, st, m, a)
}

/// The operation `first` names (after `cp.async.mbarrier` when `cp`), and
/// the instruction's name for messages.
fn operation(cp: bool, first: &str) -> Option<(MbarOp, &'static str)> {
    Some(match (cp, first) {
        (true, "arrive") => (
            MbarOp::CpArrive { noinc: false },
            "cp.async.mbarrier.arrive",
        ),
        (false, "init") => (MbarOp::Init, "mbarrier.init"),
        (false, "arrive") => (
            MbarOp::Arrive {
                drop: false,
                no_complete: false,
                tx: false,
            },
            "mbarrier.arrive",
        ),
        (false, "arrive_drop") => (
            MbarOp::Arrive {
                drop: true,
                no_complete: false,
                tx: false,
            },
            "mbarrier.arrive_drop",
        ),
        (false, "expect_tx") => (MbarOp::ExpectTx, "mbarrier.expect_tx"),
        (false, "complete_tx") => (MbarOp::CompleteTx, "mbarrier.complete_tx"),
        (false, "test_wait") => (
            MbarOp::Wait {
                try_: false,
                parity: false,
            },
            "mbarrier.test_wait",
        ),
        (false, "try_wait") => (
            MbarOp::Wait {
                try_: true,
                parity: false,
            },
            "mbarrier.try_wait",
        ),
        (false, "pending_count") => (MbarOp::PendingCount, "mbarrier.pending_count"),
        (false, "inval") => (MbarOp::Inval, "mbarrier.inval"),
        _ => return None,
    })
}

/// The operands of operation `m`.
fn operands(
    cx: &mut Cx<'_, '_>,
    st: Stmt<'_>,
    m: MbarOp,
    a: &mut AsyncInst,
) -> Result<(), IsaError> {
    let ops = st.ops;
    let (lo, hi) = match m {
        MbarOp::Init | MbarOp::ExpectTx | MbarOp::CompleteTx => (2, 2),
        MbarOp::Arrive { tx: true, .. } => (3, 3),
        MbarOp::Arrive { .. } => (2, 3),
        MbarOp::Wait { try_: false, .. } => (3, 3),
        MbarOp::Wait { try_: true, .. } => (3, 4),
        MbarOp::PendingCount => (2, 2),
        MbarOp::Inval | MbarOp::CpArrive { .. } => (1, 1),
    };
    st.counts(cx, lo, hi)?;
    let object = |cx: &mut Cx<'_, '_>, p: Piece<'_>| {
        if p.1.starts_with('[') {
            cx.address(p, false)
        } else {
            Err(cx.args(p.0, p.1))
        }
    };
    match m {
        MbarOp::Init | MbarOp::ExpectTx | MbarOp::CompleteTx => {
            a.dst = object(cx, ops[0])?;
            a.a = Some(value(cx, ops[1], 32)?);
        }
        MbarOp::Arrive { no_complete, .. } => {
            a.d = if ops[0].1 == "_" {
                None
            } else {
                Some(reg(cx, ops[0], 64)?)
            };
            a.dst = object(cx, ops[1])?;
            // "Sink '_' is expected as a destination operand for
            // instruction 'mbarrier.arrive' with '.shared::cluster'".
            if a.cluster && a.d.is_some() {
                return Err(cx.args(ops[0].0, ops[0].1));
            }
            a.a = ops.get(2).map(|p| value(cx, *p, 32)).transpose()?;
            // "Illegal modifier '.noComplete' for instruction
            // 'mbarrier.arrive without count argument'".
            if no_complete && a.a.is_none() && !matches!(m, MbarOp::Arrive { drop: true, .. }) {
                return Err(cx.args(ops[1].0, ops[1].1));
            }
        }
        MbarOp::Wait { parity, .. } => {
            a.d = Some(reg(cx, ops[0], 1)?);
            a.dst = object(cx, ops[1])?;
            a.a = Some(if parity {
                value(cx, ops[2], 32)?
            } else {
                Operand::Reg(reg(cx, ops[2], 64)?)
            });
            a.hint = ops.get(3).map(|p| value(cx, *p, 32)).transpose()?;
        }
        MbarOp::PendingCount => {
            a.d = Some(reg(cx, ops[0], 32)?);
            a.a = Some(Operand::Reg(reg(cx, ops[1], 64)?));
        }
        MbarOp::Inval | MbarOp::CpArrive { .. } => a.dst = object(cx, ops[0])?,
    }
    Ok(())
}

/// A register's width: its declared type's, or for text without
/// declarations (`simcli eval`) its name's (`%rd` 64, `%p` a predicate,
/// `%r` 32); `None` when neither tells.
pub(super) fn width(cx: &Cx<'_, '_>, name: &str) -> Option<u32> {
    if let Some(t) = cx.syms.get(name).and_then(|r| cx.syms.declared_type(r)) {
        return Some(t.bits());
    }
    let digits = |p: &str| {
        name.strip_prefix(p)
            .is_some_and(|r| !r.is_empty() && r.chars().all(|c| c.is_ascii_digit()))
    };
    if digits("%rd") {
        Some(64)
    } else if digits("%p") {
        Some(1)
    } else if digits("%r") {
        Some(32)
    } else {
        None
    }
}

/// A register of `bits` (a predicate for 1).
fn reg(cx: &mut Cx<'_, '_>, p: Piece<'_>, bits: u32) -> Result<RegId, IsaError> {
    if width(cx, p.1).is_some_and(|w| w != bits) {
        return Err(cx.args(p.0, p.1));
    }
    cx.reg(p)
}

/// A register of `bits` or an immediate.
fn value(cx: &mut Cx<'_, '_>, p: Piece<'_>, bits: u32) -> Result<Operand, IsaError> {
    if imm(p.1).is_some() {
        return cx.value(p);
    }
    Ok(Operand::Reg(reg(cx, p, bits)?))
}

/// A modifier word as ptxas names it (`.noComplete`).
pub(super) fn op_text(w: &str) -> String {
    format!(".{w}")
}
