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

use crate::exec::Step;
use sim_isa::db::{self, MemKind};
use sim_isa::{Instruction, Space};
use sim_module::{Body, StatementKind};

/// Longest stretch reordered as one (bounds the quadratic search).
pub(crate) const WINDOW: usize = 96;

/// What reordering needs to know about a statement.
#[derive(Clone, Debug, Default)]
pub(crate) struct Deps {
    /// The table ([`deps`]) it belongs to: a scheduler's memo of orders
    /// holds for one table only (see [`Memo`]).
    table: u64,
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

impl Deps {
    /// Also writes `regs` (a merged vector load's other destinations:
    /// `vectorise`).
    pub(crate) fn also_writes(&mut self, regs: impl IntoIterator<Item = u32>) {
        self.writes.extend(regs);
    }
}

/// Dependence facts of every statement of `body`, as a table of its own
/// (a number no other table made in this process has).
pub(crate) fn deps(body: &Body) -> Vec<Deps> {
    let table = new_table();
    body.statements
        .iter()
        .map(|s| match &s.kind {
            StatementKind::Instruction(i) => Deps {
                table,
                ..inst_deps(i)
            },
            StatementKind::Control(_) | StatementKind::Unimplemented(_) => Deps {
                table,
                fence: true,
                ..Deps::default()
            },
        })
        .collect()
}

/// A table number not given before (0 is no table's).
fn new_table() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

fn inst_deps(i: &Instruction) -> Deps {
    let u = i.reg_uses();
    let mut d = Deps {
        reads: u.reads().map(|r| r.reg.0).collect(),
        writes: u.writes().map(|r| r.reg.0).collect(),
        ..Deps::default()
    };
    if let Some(m) = db::memory(i) {
        d.mem = match m.kind {
            MemKind::Load => 1,
            MemKind::Store | MemKind::Atomic => 2,
        };
        d.spaces = match m.space {
            Space::Global => 1,
            Space::Shared => 2,
            Space::Local => 4,
            Space::Param | Space::Const => 8,
            Space::Generic => 7,
        };
    }
    d.fence = db::is_fence(i);
    d
}

#[cfg(test)]
fn conflict(a: &Deps, b: &Deps) -> bool {
    let hits = |x: &[u32], y: &[u32]| x.iter().any(|r| y.contains(r));
    hits(&a.writes, &b.reads)
        || hits(&a.writes, &b.writes)
        || hits(&b.writes, &a.reads)
        || (a.spaces & b.spaces != 0 && (a.mem == 2 || b.mem == 2))
}

impl Deps {
    /// Nothing moves across it.
    pub(crate) fn is_fence(&self) -> bool {
        self.fence
    }
}

/// Scratch for [`Scheduler::schedule_into`], kept between stretches so that
/// scheduling allocates nothing once warmed up; and the orders it found.
#[derive(Default)]
pub(crate) struct Scheduler {
    /// Per register: the stamp of the stretch that last touched it, its
    /// last writer there (bit index) and its readers since that write.
    regs: Vec<(u32, u8, u128)>,
    stamp: u32,
    memo: Memo,
}

const NO_WRITER: u8 = u8::MAX;

/// Orders of stretches scheduled before. A stretch's order depends on
/// nothing but its statements in their order (their [`Deps`] are static),
/// so a stretch of the same statements as an earlier one goes out in that
/// one's order. Entries are found by the first statement and checked
/// against the whole sequence; they hold for one table of [`Deps`]
/// (`table`; none for table 0, which no [`deps`] table is).
#[derive(Default)]
struct Memo {
    table: u64,
    /// Per first statement: its latest stretches, at most [`PER_FIRST`].
    by_first: Vec<Vec<Order>>,
}

/// Stretches kept per first statement (a stretch's length varies with its
/// lanes; a loop body's usually does not).
const PER_FIRST: usize = 4;

/// One stretch's statements and the order they issue in.
struct Order {
    stmts: Box<[u32]>,
    /// Positions in the stretch, in issue order.
    order: Box<[u8]>,
}

impl Memo {
    /// The order of a stretch of `run`'s statements, if known.
    fn find(&self, run: &[Step]) -> Option<&[u8]> {
        let list = self.by_first.get(run.first()?.stmt as usize)?;
        list.iter()
            .find(|o| {
                o.stmts.len() == run.len() && o.stmts.iter().zip(run).all(|(&a, s)| a == s.stmt)
            })
            .map(|o| &*o.order)
    }

    /// Keeps `order` for stretches of `run`'s statements (not empty).
    fn insert(&mut self, run: &[Step], order: &[u8]) {
        let first = run[0].stmt as usize;
        if self.by_first.len() <= first {
            self.by_first.resize_with(first + 1, Vec::new);
        }
        let list = &mut self.by_first[first];
        if list.len() >= PER_FIRST {
            list.remove(0);
        }
        list.push(Order {
            stmts: run.iter().map(|s| s.stmt).collect(),
            order: order.into(),
        });
    }
}

impl Scheduler {
    /// List-schedules one stretch (at most [`WINDOW`] steps) onto `out`:
    /// in the order [`Scheduler::order`] finds, or found for the same
    /// statements before (see [`Memo`]).
    pub(crate) fn schedule_into(
        &mut self,
        deps: &[Deps],
        run: &[Step],
        out: &mut std::collections::VecDeque<Step>,
    ) {
        let run = &run[..run.len().min(WINDOW)];
        let table = deps.first().map_or(0, |d| d.table);
        if table != self.memo.table {
            self.memo.by_first.clear();
            self.memo.table = table;
        }
        if table != 0 {
            if let Some(order) = self.memo.find(run) {
                out.extend(order.iter().map(|&k| run[k as usize]));
                return;
            }
        }
        let mut order = [0u8; WINDOW];
        let n = self.order(deps, run, &mut order);
        out.extend(order[..n].iter().map(|&k| run[k as usize]));
        if table != 0 && !run.is_empty() {
            self.memo.insert(run, &order[..n]);
        }
    }

    /// The issue order of one stretch (at most [`WINDOW`] steps): positions
    /// in `run`, into `order`; returns how many (all of them).
    ///
    /// A step must follow every earlier step it conflicts with ([`conflict`]).
    /// It is enough to know the nearest ones: the register's last writer
    /// and (for a write) its readers since, the last store to a space and
    /// (for a store) the loads since; the rest are ordered before those
    /// already, so readiness and the set of steps that loads wait for are
    /// those of the full relation.
    fn order(&mut self, deps: &[Deps], run: &[Step], order: &mut [u8; WINDOW]) -> usize {
        let n = run.len().min(WINDOW);
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.regs.iter_mut().for_each(|r| r.0 = 0);
            self.stamp = 1;
        }
        let stamp = self.stamp;
        let mut preds = [0u128; WINDOW];
        // Per space class: last store, loads since.
        let mut store = [NO_WRITER; 4];
        let mut loads = [0u128; 4];
        for k in 0..n {
            let d = &deps[run[k].stmt as usize];
            let mut p = 0u128;
            for &r in &d.reads {
                let e = self.entry(r, stamp);
                if e.1 != NO_WRITER {
                    p |= 1 << e.1;
                }
            }
            for &r in &d.writes {
                let e = self.entry(r, stamp);
                if e.1 != NO_WRITER {
                    p |= 1 << e.1;
                }
                p |= e.2;
            }
            for c in 0..4 {
                if d.spaces >> c & 1 == 0 || d.mem == 0 {
                    continue;
                }
                if store[c] != NO_WRITER {
                    p |= 1 << store[c];
                }
                if d.mem == 2 {
                    p |= loads[c];
                }
            }
            p &= !(1u128 << k);
            preds[k] = p;
            // Reads first: an instruction reading and writing a register
            // is its own writer, not a reader since.
            for &r in &d.reads {
                let e = self.entry(r, stamp);
                e.2 |= 1 << k;
            }
            for &r in &d.writes {
                let e = self.entry(r, stamp);
                e.1 = k as u8;
                e.2 = 0;
            }
            for (c, (s, l)) in store.iter_mut().zip(&mut loads).enumerate() {
                if d.spaces >> c & 1 == 0 || d.mem == 0 {
                    continue;
                }
                if d.mem == 2 {
                    *s = k as u8;
                    *l = 0;
                } else {
                    *l |= 1 << k;
                }
            }
        }
        // Loads, and what computes their addresses, go first.
        let mut urgent = 0u128;
        for k in (0..n).rev() {
            if deps[run[k].stmt as usize].mem == 1 {
                urgent |= 1 << k;
            }
            if urgent >> k & 1 == 1 {
                urgent |= preds[k];
            }
        }
        let all = if n == 128 {
            u128::MAX
        } else {
            (1u128 << n) - 1
        };
        let mut placed = 0u128;
        let mut len = 0;
        while placed != all {
            let ready = |k: usize| preds[k] & !placed == 0;
            let first = |mut m: u128| -> Option<usize> {
                while m != 0 {
                    let k = m.trailing_zeros() as usize;
                    if ready(k) {
                        return Some(k);
                    }
                    m &= m - 1;
                }
                None
            };
            let left = all & !placed;
            let Some(k) = first(left & urgent).or_else(|| first(left)) else {
                break;
            };
            placed |= 1 << k;
            order[len] = k as u8;
            len += 1;
        }
        len
    }

    /// Register `r`'s entry for this stretch (reset if from an older one).
    fn entry(&mut self, r: u32, stamp: u32) -> &mut (u32, u8, u128) {
        let i = r as usize;
        if i >= self.regs.len() {
            self.regs.resize(i + 1, (0, NO_WRITER, 0));
        }
        let e = &mut self.regs[i];
        if e.0 != stamp {
            *e = (stamp, NO_WRITER, 0);
        }
        e
    }
}

/// The full conflict relation, for the tests that check the scheduler's
/// nearest-conflict shortcut against it.
#[cfg(test)]
pub(crate) fn conflicts(a: &Deps, b: &Deps) -> bool {
    conflict(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The list scheduler over the full conflict relation (the definition).
    fn reference(deps: &[Deps], run: &[Step]) -> Vec<Step> {
        let n = run.len();
        let d = |k: usize| &deps[run[k].stmt as usize];
        let preds: Vec<Vec<usize>> = (0..n)
            .map(|k| (0..k).filter(|&e| conflicts(d(e), d(k))).collect())
            .collect();
        let mut urgent: Vec<bool> = (0..n).map(|k| d(k).mem == 1).collect();
        for k in (0..n).rev() {
            if urgent[k] {
                for &p in &preds[k] {
                    urgent[p] = true;
                }
            }
        }
        let mut placed = vec![false; n];
        let mut out = Vec::new();
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
        out
    }

    fn dep(table: u64, reads: &[u32], writes: &[u32], mem: u8, spaces: u8) -> Deps {
        Deps {
            table,
            reads: reads.to_vec(),
            writes: writes.to_vec(),
            mem,
            spaces,
            fence: false,
        }
    }

    /// Random stretches over a small register file and every memory kind:
    /// the nearest-conflict scheduler orders them as the full relation
    /// does, whether it schedules them afresh or from its memo (each table
    /// of statements is given several stretches, some again).
    #[test]
    fn nearest_conflicts_schedule_as_the_full_relation() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut rnd = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let spaces = [1u8, 2, 4, 8, 7];
        let mut sched = Scheduler::default();
        let mut memo_hits = 0;
        for round in 0..400 {
            let kinds = 24;
            // Round 0: table 0, which the memo leaves alone.
            let table = if round == 0 { 0 } else { new_table() };
            let deps: Vec<Deps> = (0..kinds)
                .map(|_| {
                    let r: Vec<u32> = (0..rnd(3)).map(|_| rnd(6) as u32).collect();
                    let w: Vec<u32> = (0..rnd(3)).map(|_| rnd(6) as u32).collect();
                    let mem = rnd(3) as u8;
                    let sp = if mem == 0 { 0 } else { spaces[rnd(5) as usize] };
                    dep(table, &r, &w, mem, sp)
                })
                .collect();
            let mut runs: Vec<Vec<Step>> = Vec::new();
            for _ in 0..4 {
                let again = !runs.is_empty() && rnd(2) == 0;
                let run = if again {
                    runs[rnd(runs.len() as u64) as usize].clone()
                } else {
                    let n = 1 + rnd(WINDOW as u64) as usize;
                    (0..n)
                        .map(|_| Step {
                            stmt: rnd(kinds as u64) as u32,
                            lanes: u32::MAX,
                            access: Some(rnd(1000) as u32),
                        })
                        .collect()
                };
                // The same statements with other slots: the order moves
                // the steps themselves.
                let run: Vec<Step> = run
                    .iter()
                    .map(|s| Step {
                        access: s.access.map(|a| a + 1),
                        ..*s
                    })
                    .collect();
                memo_hits += usize::from(table != 0 && sched.memo.find(&run).is_some());
                let mut got = std::collections::VecDeque::new();
                sched.schedule_into(&deps, &run, &mut got);
                let got: Vec<Step> = got.into();
                assert_eq!(got, reference(&deps, &run), "round {round}");
                runs.push(run);
            }
        }
        assert!(memo_hits > 100, "{memo_hits}");
    }
}
