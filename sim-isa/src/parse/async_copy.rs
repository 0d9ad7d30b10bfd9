//! `cp.async` and its group statements (see [`crate::async_inst`]), read
//! with the memory family's scanner. ptxas 13.0.88's verdicts are
//! `tests/data/async-ptxas.txt`: `.ca` takes 4, 8 or 16 bytes, `.cg` only
//! 16; `src-size` is a 32-bit register or an immediate up to `cp-size`;
//! `ignore-src` a predicate in its place; `wait_group` an immediate.
//! `cp.async.bulk` is read by `bulk.rs`, `mbarrier` and
//! `cp.async.mbarrier.arrive` by `mbarrier.rs`; the other `cp.*` words
//! (`cp.reduce.async.bulk`, `cp.async.bulk.tensor`) are valid PTX simcli
//! does not run.

use super::cx::{imm, Cx, Stmt};
use super::lex::invalid;
use super::mbarrier::op_text;
use crate::async_inst::{AsyncInst, AsyncOp, ASYNC_TOKEN};
use crate::error::{InvalidReason as R, IsaError};
use crate::inst::{Operand, Type};
use crate::mem_inst::{AddrBase, Address};

/// Parses a `cp.*` or `mbarrier.*` statement.
pub(super) fn async_copy(cx: &mut Cx<'_, '_>, st: Stmt<'_>) -> Result<AsyncInst, IsaError> {
    let Stmt {
        words, ops, col, ..
    } = st;
    let mbar = words[0] == "mbarrier";
    if !mbar && (words.get(1) != Some(&"async") || words.get(3) == Some(&"tensor")) {
        return Err(st.unimplemented());
    }
    let none = Address {
        base: AddrBase::Abs,
        offset: 0,
    };
    let mut a = AsyncInst {
        op: AsyncOp::Commit,
        size: 0,
        cta: false,
        l2: 0,
        cluster: false,
        dst: none,
        src: none,
        bar: none,
        src_size: None,
        ignore_src: None,
        n: 0,
        token: cx.syms.intern(ASYNC_TOKEN),
        generic: false,
        order: 0,
        d: None,
        a: None,
        hint: None,
    };
    if mbar {
        super::mbarrier::mbarrier(cx, st, &words[1..], false, &mut a)?;
        return Ok(a);
    }
    if words.get(2) == Some(&"bulk") {
        super::bulk::bulk(cx, st, &words[3..], &mut a)?;
        return Ok(a);
    }
    if words.get(2) == Some(&"mbarrier") {
        super::mbarrier::mbarrier(cx, st, &words[3..], true, &mut a)?;
        return Ok(a);
    }
    let group = |name: &'static str, op: AsyncOp, a: &mut AsyncInst, cx: &mut Cx<'_, '_>| {
        cx.inst = name;
        if words.len() > 3 {
            return Err(invalid(
                col,
                &op_text(words[3]),
                R::UnexpectedTypes { inst: name },
            ));
        }
        a.op = op;
        Ok(())
    };
    match words.get(2).copied() {
        Some("commit_group") => {
            group("cp.async.commit_group", AsyncOp::Commit, &mut a, cx)?;
            st.count(cx, 0)?;
        }
        Some("wait_all") => {
            group("cp.async.wait_all", AsyncOp::WaitAll, &mut a, cx)?;
            st.count(cx, 0)?;
        }
        Some("wait_group") => {
            group("cp.async.wait_group", AsyncOp::WaitGroup, &mut a, cx)?;
            st.count(cx, 1)?;
            a.n = imm(ops[0].1).ok_or_else(|| cx.args(ops[0].0, ops[0].1))?;
        }
        _ => {
            cx.inst = "cp.async";
            modifiers(&words[2..], col, &mut a)?;
            copy_operands(cx, st, &mut a)?;
        }
    }
    Ok(a)
}

/// `.ca|.cg`, `.shared{::cta}`, `.global`, `{.L2::64B|128B|256B}`.
fn modifiers(words: &[&str], col: usize, a: &mut AsyncInst) -> Result<(), IsaError> {
    let inst = "cp.async";
    let (mut cache, mut dst, mut src) = (None, false, false);
    for &w in words {
        let bad = |reason| Err(invalid(col, &op_text(w), reason));
        match w {
            "ca" | "cg" if cache.is_none() => cache = Some(w == "cg"),
            "shared" | "shared::cta" if !dst && !src => {
                dst = true;
                a.cta = w == "shared::cta";
            }
            "global" if dst && !src => src = true,
            "L2::64B" | "L2::128B" | "L2::256B" if a.l2 == 0 => {
                a.l2 = match w {
                    "L2::64B" => 64,
                    "L2::128B" => 128,
                    _ => 256,
                };
            }
            "shared::cluster" | "cs" | "lu" | "cv" | "L2::evict_last" | "L2::evict_first"
            | "L2::evict_normal" | "L2::cache_hint" => {
                return bad(R::IllegalModifier {
                    modifier: op_text(w),
                    inst,
                })
            }
            "shared" | "global" | "local" | "const" | "param" => {
                return bad(R::StateSpaceIncorrect { inst })
            }
            w if w.starts_with('v') || crate::mem_inst::MemType::WORDS.iter().any(|t| t.0 == w) => {
                return bad(R::UnexpectedTypes { inst })
            }
            _ => return bad(R::UnknownModifier(op_text(w))),
        }
    }
    let Some(cg) = cache else {
        return Err(invalid(
            col,
            inst,
            R::ModifierRequired {
                what: ".ca or .cg",
                inst,
            },
        ));
    };
    if !(dst && src) {
        return Err(invalid(col, inst, R::StateSpaceCount { inst }));
    }
    a.op = AsyncOp::Copy { cg };
    Ok(())
}

/// `[dst], [src], cp-size{, src-size | ignore-src}`.
fn copy_operands(cx: &mut Cx<'_, '_>, st: Stmt<'_>, a: &mut AsyncInst) -> Result<(), IsaError> {
    st.counts(cx, 3, 4)?;
    let ops = st.ops;
    for p in &ops[..2] {
        if !p.1.starts_with('[') {
            return Err(cx.args(p.0, p.1));
        }
    }
    a.dst = cx.address(ops[0], false)?;
    a.src = cx.address(ops[1], false)?;
    let cg = matches!(a.op, AsyncOp::Copy { cg: true });
    let size = match imm(ops[2].1) {
        Some(v @ 16) => v,
        Some(v @ (4 | 8)) if !cg => v,
        Some(_) => {
            let want = if cg { "16" } else { "4 or 8 or 16" };
            return Err(cx.unexpected_value(ops[2], "cp.async", 2, want));
        }
        None => return Err(cx.args(ops[2].0, ops[2].1)),
    };
    a.size = size as u8;
    let Some(&last) = ops.get(3) else {
        return Ok(());
    };
    // A predicate is `ignore-src`; a register's kind is its declared
    // type, or for text without declarations (`simcli eval`) its name.
    let name = last.1.trim_start_matches('!').trim();
    let declared = cx.syms.get(name).and_then(|r| cx.syms.declared_type(r));
    let (pred, wide) = match declared {
        Some(t) => (t == Type::Pred, t.bits() == 64),
        None => (name.starts_with("%p"), name.starts_with("%rd")),
    };
    if pred || last.1.starts_with('!') {
        a.ignore_src = Some(cx.pred(last)?);
        return Ok(());
    }
    if wide {
        return Err(cx.args(last.0, last.1));
    }
    match cx.value(last)? {
        Operand::Imm(v) if v > size => Err(invalid(
            cx.col(last.0),
            last.1,
            R::OutOfRange {
                inst: "cp.async",
                arg: 3,
                value: last.1.to_string(),
                max: size,
            },
        )),
        Operand::Special(_) => Err(cx.args(last.0, last.1)),
        o @ (Operand::Imm(_) | Operand::Reg(_)) => {
            a.src_size = Some(o);
            Ok(())
        }
    }
}
