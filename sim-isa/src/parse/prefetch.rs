//! `prefetch{.space}.level [a]` and `prefetchu.L1 [a]` (PTX ISA 9.7.9.15),
//! as ptxas 13.0.88 takes them (`tests/data/prefetch-ptxas.txt`, from
//! `tools/ptxas_grid/prefetch_grid.py`): `.global`, `.local` or no space;
//! `.L1`, `.L2`, and `.L2::evict_last`/`.L2::evict_normal` on a global or
//! generic address; `prefetchu` only as `.L1`; `.tensormap` (sm_90) on a
//! const, param or generic address.

use super::cx::{Cx, Stmt};
use super::lex::invalid;
use crate::error::{InvalidReason as R, IsaError};
use crate::mem_inst::{AddrBase, Mem, MemOp, MemType, PrefetchLevel, Space};

/// Reads a `prefetch`/`prefetchu` statement.
pub(super) fn prefetch(cx: &mut Cx<'_, '_>, st: Stmt<'_>) -> Result<Mem, IsaError> {
    let Stmt { op, words, col, .. } = st;
    let uniform = words[0] == "prefetchu";
    cx.inst = if uniform { "prefetchu" } else { "prefetch" };
    let inst = cx.inst;
    let illegal = |w: &str| {
        invalid(
            col,
            op.1,
            R::IllegalModifier {
                modifier: format!(".{w}"),
                inst,
            },
        )
    };
    // `prefetch{.const,.param}.tensormap` (sm_90, PTX 8.0): a tensor map's
    // line for `cp.async.bulk.tensor`; a hint, run as the others.
    if let [_, spaces @ .., "tensormap"] = words {
        if !uniform && spaces.len() < 2 && spaces.iter().all(|w| matches!(*w, "const" | "param")) {
            let space = match spaces.first() {
                Some(&"const") => Space::Const,
                Some(_) => Space::Param,
                None => Space::Generic,
            };
            return finish(cx, st, PrefetchLevel::Tensormap, space);
        }
    }
    let (mut space, mut level) = (None, None);
    for &w in &words[1..] {
        if let Some(s) = Space::WORDS.iter().find(|s| s.1 == w) {
            // ptxas: a prefetch of shared, const or param memory is no
            // `prefetch` (`.tensormap` aside), and one space at most.
            let ok = !uniform && matches!(s.0, Space::Global | Space::Local);
            if !ok || level.is_some() || space.replace(s.0).is_some() {
                return Err(illegal(w));
            }
        } else if let Some(l) = PrefetchLevel::WORDS.iter().find(|l| l.0 == w) {
            if level.replace(l.1).is_some() {
                return Err(illegal(w));
            }
        } else {
            return Err(st.unknown(w));
        }
    }
    let Some(mut level) = level else {
        return Err(invalid(
            col,
            op.1,
            R::UnexpectedEnd {
                expected: "a cache level (.L1 or .L2)",
            },
        ));
    };
    let evict = matches!(
        level,
        PrefetchLevel::L2EvictLast | PrefetchLevel::L2EvictNormal
    );
    if uniform {
        // `prefetchu.L1` is the only form.
        if level != PrefetchLevel::L1 {
            return Err(illegal(level.name()));
        }
        level = PrefetchLevel::Uniform;
    } else if evict && space == Some(Space::Local) {
        return Err(illegal(level.name()));
    }
    finish(cx, st, level, space.unwrap_or(Space::Generic))
}

/// The address operand, and the statement.
fn finish(
    cx: &mut Cx<'_, '_>,
    st: Stmt<'_>,
    level: PrefetchLevel,
    space: Space,
) -> Result<Mem, IsaError> {
    st.count(cx, 1)?;
    let ops = st.ops;
    let addr = cx.address(ops[0], false)?;
    // ptxas 13.0: "Immediate addresses allowed only for .local state space".
    if addr.base == AddrBase::Abs && space != Space::Local {
        return Err(cx.args(ops[0].0, ops[0].1));
    }
    // One byte: the access names the line holding `a`.
    Ok(Mem {
        addr,
        ..Mem::new(MemOp::Prefetch(level), space, MemType::B(8), 1)
    })
}
