//! The order machine code issues in: ptxas schedules each straight-line
//! stretch so that loads start as early as their operands allow (the H100
//! SASS of the public kernels issues a loop iteration's loads back to
//! back before the arithmetic that uses them). The timing model replays
//! a warp's executed statements in that order, so independent loads
//! overlap as they do on the hardware; values were computed in program
//! order and are unaffected.
//!
//! Within a stretch (consecutive steps with one lane mask, no control
//! statement, barrier or clock read), a step may move above another only
//! if neither writes a register the other reads or writes, and not both
//! may touch the same memory unless both are loads (global, shared and
//! local memory are apart; a generic address may be any of them). Among the steps whose predecessors
//! are placed, the first load goes first, else the first step.

use crate::exec::{reads_clock, Step};
use sim_isa::{Instruction, MemOp, Op, Space, WarpOp};
use sim_module::{Body, StatementKind};

/// Longest stretch reordered as one (bounds the quadratic search).
const WINDOW: usize = 96;

/// What reordering needs to know about a statement.
#[derive(Clone, Debug, Default)]
pub(crate) struct Deps {
    reads: Vec<u32>,
    writes: Vec<u32>,
    /// 0: no memory; 1: load; 2: store or atomic.
    mem: u8,
    /// The memory it may touch: one bit per space class (global, shared,
    /// local, read-only); a generic address may be any writable one.
    spaces: u8,
    /// Control, barrier, clock read: nothing moves across it.
    fence: bool,
}

/// Dependence facts of every statement of `body`.
pub(crate) fn deps(body: &Body) -> Vec<Deps> {
    body.statements
        .iter()
        .map(|s| match &s.kind {
            StatementKind::Instruction(i) => inst_deps(i),
            StatementKind::Control(_) | StatementKind::Unimplemented(_) => Deps {
                fence: true,
                ..Deps::default()
            },
        })
        .collect()
}

fn inst_deps(i: &Instruction) -> Deps {
    let u = i.reg_uses();
    let mut d = Deps {
        reads: u.reads().map(|r| r.reg.0).collect(),
        writes: u.writes().map(|r| r.reg.0).collect(),
        ..Deps::default()
    };
    match &i.op {
        Op::Mem(m) if m.accesses_memory() => {
            d.mem = if matches!(m.op, MemOp::Ld | MemOp::Ldu) {
                1
            } else {
                2
            };
            d.spaces = match m.space {
                Space::Global => 1,
                Space::Shared => 2,
                Space::Local => 4,
                Space::Param | Space::Const => 8,
                Space::Generic => 7,
            };
        }
        Op::Warp(w) => d.fence = !matches!(w.op, WarpOp::Activemask),
        _ => d.fence = reads_clock(i),
    }
    d
}

fn conflict(a: &Deps, b: &Deps) -> bool {
    let hits = |x: &[u32], y: &[u32]| x.iter().any(|r| y.contains(r));
    hits(&a.writes, &b.reads)
        || hits(&a.writes, &b.writes)
        || hits(&b.writes, &a.reads)
        || (a.spaces & b.spaces != 0 && (a.mem == 2 || b.mem == 2))
}

/// `steps` in issue order (see the module docs).
pub(crate) fn reorder(deps: &[Deps], steps: &[Step]) -> Vec<Step> {
    let mut out = Vec::with_capacity(steps.len());
    let mut i = 0;
    while i < steps.len() {
        let d = &deps[steps[i].stmt as usize];
        if d.fence {
            out.push(steps[i]);
            i += 1;
            continue;
        }
        let mut j = i;
        while j < steps.len()
            && j - i < WINDOW
            && !deps[steps[j].stmt as usize].fence
            && steps[j].lanes == steps[i].lanes
        {
            j += 1;
        }
        schedule(deps, &steps[i..j], &mut out);
        i = j;
    }
    out
}

/// List-schedules one stretch into `out`.
fn schedule(deps: &[Deps], run: &[Step], out: &mut Vec<Step>) {
    let n = run.len();
    let d = |k: usize| &deps[run[k].stmt as usize];
    // preds[k]: earlier steps k must follow.
    let preds: Vec<Vec<usize>> = (0..n)
        .map(|k| (0..k).filter(|&e| conflict(d(e), d(k))).collect())
        .collect();
    // Loads, and what computes their addresses, go first.
    let mut urgent: Vec<bool> = (0..n).map(|k| d(k).mem == 1).collect();
    for k in (0..n).rev() {
        if urgent[k] {
            for &p in &preds[k] {
                urgent[p] = true;
            }
        }
    }
    let mut placed = vec![false; n];
    for _ in 0..n {
        let ready = |k: &usize| !placed[*k] && preds[*k].iter().all(|&p| placed[p]);
        let pick = (0..n)
            .filter(ready)
            .find(|&k| urgent[k])
            .or_else(|| (0..n).find(ready));
        let Some(k) = pick else { break };
        placed[k] = true;
        out.push(run[k]);
    }
}
