//! Warp schedulers: picking a warp by policy, issuing its instruction, and
//! accounting every issue slot's outcome.

use super::hunger::PENDING;
use super::masks::{first_from, Later, Masks};
use super::table::NONE;
use super::units::{Pipes, NCLASS};
use super::warp::{Next, Warp, WarpState};
use super::{IssueEvent, Sm};
use crate::config::SchedPolicy;
use crate::error::SimError;
use crate::external::External;
use crate::stats::Stalls;
use sim_isa::RegId;

/// One scheduler (partition) and the warps assigned to it.
#[derive(Default)]
pub(super) struct Sched {
    /// Warp indices, oldest first.
    pub warps: Vec<usize>,
    /// Per position: earliest clock the warp could issue (`u64::MAX`: nothing
    /// to issue). Contiguous so the scan skips stalled warps with one load.
    pub ready: Vec<u64>,
    /// Per position: the pipes its next instruction needs, one bit per class
    /// (see `InstInfo::need`).
    /// (A mask in a u64, the width of `ready`, so the scans vectorise.)
    pub need: Vec<u64>,
    /// LRR: position to start the next scan at.
    /// (Positions are u32, as `Warp::pos`: an idle SM's schedulers stay small.)
    pub rr_next: u32,
    /// GTO: position of the greedy warp.
    pub greedy: Option<u32>,
    /// Micro-ops issued.
    pub issues: u64,
    /// Issue slots per outcome, indexed by `Outcome as usize` (an array, so
    /// that accounting a slot is an add, not a branch per outcome).
    pub slots: [u64; 4],
    /// Outcome of the last slot (for idle-cycle skipping).
    pub last: Outcome,
    /// Clock until which the scheduler issues the rest of an expansion.
    pub busy_until: u64,
    /// While `now < wake`, a slot repeats `last` (`Dep`, `Empty` or `Unit`)
    /// without a scan: nothing can become ready before the earliest pending
    /// operand, no busy pipe frees before its clock, and any change to the
    /// scheduler's warps resets it to 0.
    pub wake: u64,
    /// The outcome of the slots before `wake` (`Dep`, `Empty` or `Unit`).
    pub sleep: Outcome,
    /// `ready` and `need` as bitmasks, kept in step with them.
    pub masks: Masks,
    /// The partition's units.
    pub pipes: Pipes,
}

/// What an issue slot did; ordered so that the best of several is the max.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Default)]
/// (The order also indexes `Sched::slots`.)
pub(super) enum Outcome {
    /// No warp had an instruction.
    #[default]
    Empty,
    /// Warps waited on the scoreboard or their own chain.
    Dep,
    /// A warp was ready but its unit busy.
    Unit,
    /// Micro-ops issued.
    Issued,
}

impl Sched {
    /// Counts `slots` issue slots with outcome `o`: the one place slots are
    /// accounted, whether stepped one by one or skipped in a stretch.
    #[inline]
    pub fn account(&mut self, o: Outcome, slots: u64) {
        self.slots[o as usize % 4] += slots;
        self.last = o;
    }

    /// The slots accounted so far, by outcome.
    pub fn stalls(&self) -> Stalls {
        let [no_eligible, dependency, unit_busy, issued] = self.slots;
        Stalls {
            no_eligible,
            dependency,
            unit_busy,
            issued,
        }
    }

    /// Sets the scan entry at position `p`: ready clock `r` (`u64::MAX`:
    /// nothing to issue) and pipes `need`; the warps changed, so the next
    /// slot looks.
    #[inline(always)]
    pub fn set_entry(&mut self, p: usize, r: u64, need: u8) {
        // Both lists at their common length (they are kept in step): one
        // bounds check for the two.
        let n = self.ready.len().min(self.need.len());
        let (ready, needs) = (&mut self.ready[..n], &mut self.need[..n]);
        let old = needs[p] as u8;
        ready[p] = r;
        needs[p] = u64::from(need);
        self.masks.set(p, r, old, need);
        self.changed();
    }

    /// The scheduler's warps changed: what was known of its next slots
    /// (`wake`) no longer holds.
    #[inline(always)]
    pub fn changed(&mut self) {
        self.wake = 0;
    }

    /// The clock until which the slots from `now` on have outcomes known
    /// without a scan (see `known`): past the end of an expansion when the
    /// slots after it know theirs too (`wake`, set by `Sched::predict`), so
    /// that one skip (`Sm::skip_to`) covers both stretches. A wake that
    /// waits for the host is not looked past (as before: the run then
    /// steps at the expansion's end).
    #[inline]
    pub fn known_span(&self, now: u64) -> Option<u64> {
        if now < self.busy_until {
            let w = self.wake;
            Some(if w > self.busy_until && w < PENDING {
                w
            } else {
                self.busy_until
            })
        } else if now < self.wake {
            Some(self.wake)
        } else {
            None
        }
    }

    /// The outcome a slot at `now` has without a scan, if known: issuing an
    /// expansion until `busy_until`, repeating `last` until `wake`. Also
    /// returns the clock until which it holds.
    #[inline]
    pub fn known(&self, now: u64) -> Option<(Outcome, u64)> {
        if now < self.busy_until {
            Some((Outcome::Issued, self.busy_until))
        } else if now < self.wake {
            // `wake` is set by a slot that issued nothing, or predicted by one
            // that issued (`Sched::predict`); any change to the warps clears it.
            Some((self.sleep, self.wake))
        } else {
            None
        }
    }
}

/// Counts warp `w`'s cycles up to its issue of its instruction `cur`
/// (`ii`) at `now` (`states`: the span since it was counted, and this
/// cycle as `selected`; the activity series counts the clock's issues
/// once, `Sm::slot`). `units`: its scheduler's unit-busy slots so far;
/// `iv`: clocks per slot. A second issue in the same clock (an
/// `issue_width` above 1) adds no cycle. A call of its own: inlined, it
/// crowds the issue path's registers (spills there cost more than the
/// call); six arguments, so that all pass in registers.
///
/// `MAKE`: make the instruction's page of counters first. The issue path
/// calls the copy without (`account_issue::<false>`), which reaches the
/// copy with by a tail call at an instruction's first issue, so that it
/// calls nothing itself and saves no registers: with the call to
/// `make_page` in it, the issue path cost 10 host instructions more an
/// issue on both paths (docs/speed.md). One body, so that the parameters
/// are written once.
#[inline(never)]
fn account_issue<const MAKE: bool>(
    w: &mut Warp,
    ii: &super::table::InstInfo,
    states: &mut super::stall_acc::Acc,
    units: u64,
    iv: u32,
    now: u64,
) {
    let idx = w.cur;
    if MAKE {
        states.make_page(idx);
    }
    w.last = idx;
    if w.acct > now {
        return;
    }
    let Some((why, row)) = states.why_and_row(idx) else {
        // An instruction's first issue (after `make_page` its page
        // exists: the copy with `MAKE` never comes here).
        return account_issue::<true>(w, ii, states, units, iv, now);
    };
    super::states::split_before_issue(w, ii, why, row, units, u64::from(iv), now);
    row[0] += 1;
    w.acct = now + 1;
    w.unit_snap = units;
}

/// Executes `inst` for the warp: a call of its own, so that the lane code
/// of every operation (inlined there) does not crowd the slot's registers
/// and stack frame.
#[inline(never)]
fn execute(
    inst: &sim_isa::exec::Prepared,
    ctx: &sim_isa::ExecCtx,
    regs: &mut sim_isa::WarpRegs,
    active: u32,
) {
    sim_isa::exec::execute_prepared(inst, ctx, regs, active);
}

/// [`Sm::issue`]'s execution for an instruction with a guard (read before
/// the instruction can overwrite it) or of a warp the host executed (on the
/// lanes it pushed with it: nothing to do here). Returns the thread count.
/// One out-of-line call for both: testing `executed` in line as well cost
/// the x86-64-v3 trace replay 35 host instructions a warp-instruction
/// (833 to 868; docs/speed.md).
#[cold]
#[inline(never)]
fn guarded_or_executed(w: &mut Warp, guard: u32, neg: bool, inst: &sim_isa::exec::Prepared) -> u64 {
    if w.executed {
        return u64::from(w.cur_lanes.count_ones());
    }
    let threads = guard_lanes(w, guard, neg).count_ones() as u64;
    execute(inst, &w.ctx, &mut w.regs, w.active);
    threads
}

/// Lanes of `w` that run an instruction guarded by register `guard`
/// (`neg`: on false).
#[inline(always)]
pub(super) fn guard_lanes(w: &Warp, guard: u32, neg: bool) -> u32 {
    let g = w.regs.get(RegId(guard));
    let mut m = 0u32;
    for (l, v) in g.iter().enumerate() {
        m |= ((*v != 0) as u32) << l;
    }
    w.active & if neg { !m } else { m }
}

/// First position in `from..to` whose warp can issue now: operands ready and
/// every pipe it needs free (`free` has a bit per pipe free this clock). On
/// the way, `seen` gathers what a slot that issues nothing needs: the pipes
/// that ready warps wait for, and the earliest pending operand.
#[inline]
fn first_ok(
    ready: &[u64],
    need: &[u64],
    from: usize,
    to: usize,
    now: u64,
    free: u8,
    seen: &mut Seen,
) -> Option<usize> {
    let free = u64::from(free);
    for (k, (&r, &m)) in ready[from..to].iter().zip(&need[from..to]).enumerate() {
        if r <= now {
            if m & !free == 0 {
                return Some(from + k);
            }
            seen.blocked |= m as u8;
        } else {
            seen.first = seen.first.min(r);
        }
    }
    None
}

/// Without the masks: the position `policy` picks among the warps of `sc`
/// that can issue at `now`, scanning in its order (GTO tries its greedy warp
/// first, then oldest-first; LRR starts after the warp that issued last;
/// oldest from the front), or what a slot that issues nothing sees. A call
/// of its own, out of line: its vector code would otherwise set up
/// registers in every step of the usual (masked) path.
#[cold]
#[inline(never)]
fn pick_scan(sc: &Sched, policy: SchedPolicy, now: u64) -> Result<usize, Seen> {
    let free = free_at(&sc.pipes.accept, now);
    let n = sc.warps.len();
    let mut seen = Seen {
        blocked: 0,
        first: u64::MAX,
        pipes: None,
    };
    let mut first_ok =
        |from: usize, to: usize| first_ok(&sc.ready, &sc.need, from, to, now, free, &mut seen);
    let pick = match policy {
        SchedPolicy::Gto => match sc.greedy.map(|g| g as usize) {
            Some(g) if g < n && first_ok(g, g + 1).is_some() => Some(g),
            _ => first_ok(0, n),
        },
        SchedPolicy::Oldest => first_ok(0, n),
        SchedPolicy::Lrr => {
            // rr_next <= n always; avoid a division in the common case.
            let rr = sc.rr_next as usize;
            let start = if rr < n { rr } else { rr % n };
            first_ok(start, n).or_else(|| first_ok(0, start))
        }
    };
    pick.ok_or(seen)
}

/// Without the masks: `None` if some warp can issue at `t0` (operands ready,
/// every pipe it needs accepting then, by `accept`), else what a slot then sees. One
/// branch-free pass (it vectorises); out of line, as `pick_scan`.
#[cold]
#[inline(never)]
fn scan_at(ready: &[u64], need: &[u64], t0: u64, accept: &[u64; NCLASS]) -> Option<Seen> {
    let (mut ok, mut blocked, mut first) = (0u64, 0u64, u64::MAX);
    let free = u64::from(free_at(accept, t0));
    let n = ready.len().min(need.len());
    for (&r, &m) in ready[..n].iter().zip(&need[..n]) {
        let rdy = r <= t0;
        let m = if rdy { m } else { 0 };
        // A ready warp whose pipes are all free (every entry needs one).
        ok |= u64::from(m != 0) & u64::from(m & !free == 0);
        blocked |= m;
        first = first.min(if rdy { u64::MAX } else { r });
    }
    (ok == 0).then_some(Seen {
        blocked: blocked as u8,
        first,
        pipes: None,
    })
}

/// The pipes that accept during clock `t`, a bit per class (for the scans).
#[inline]
fn free_at(accept: &[u64; NCLASS], t: u64) -> u8 {
    let mut free = 0u8;
    for (c, &a) in accept.iter().enumerate() {
        free |= u8::from(a <= t) << c;
    }
    free
}

/// What a scan that found no warp to issue saw.
#[derive(Clone, Copy)]
struct Seen {
    /// Pipes that ready warps wait for, one bit per class.
    blocked: u8,
    /// The earliest pending operand (`u64::MAX`: none; a warp with nothing
    /// to issue reads as `u64::MAX` too).
    first: u64,
    /// The first clock after the slot's at which one of the `blocked` pipes
    /// accepts, if known (`Masks::eligible` finds it on the way); `None`
    /// after a scan, which leaves it to `outcome`.
    pipes: Option<u64>,
}

impl Seen {
    /// The slot's outcome and the clock until which it holds at least: the
    /// earliest pending operand or, with warps ready but their pipes busy,
    /// the earliest one of those pipes frees (a pipe accepts during clock `t`
    /// once `free < (t + 1) * scale`; for a warp needing two, possibly before
    /// it can issue: the slot then just looks again). `u64::MAX` if nothing
    /// is pending.
    #[inline]
    fn outcome(self, now: u64, pipes: &Pipes) -> (Outcome, u64) {
        if self.blocked == 0 {
            let o = if self.first == u64::MAX {
                Outcome::Empty
            } else {
                Outcome::Dep
            };
            return (o, self.first);
        }
        if let Some(p) = self.pipes {
            return (Outcome::Unit, self.first.min(p));
        }
        let (mut m, mut until) = (self.blocked, self.first);
        while m != 0 {
            let c = m.trailing_zeros() as usize % NCLASS;
            // `free / scale`, as `accept` holds it (`blocked` names only
            // pipes some instruction needs, which the tables checked the
            // configuration has: no scale of 0).
            until = until.min(pipes.accept[c].max(now + 1));
            m &= m - 1;
        }
        (Outcome::Unit, until)
    }
}

/// With the masks: the position `policy` picks among the warps of `sc` that
/// can issue at `now`, or what a slot that issues nothing sees. The same
/// choice and the same `Seen` as the scans of `first_ok` (every instruction
/// needs a pipe, so a ready warp issues exactly when no pipe it needs is
/// busy).
#[inline(always)]
fn pick_masked(sc: &mut Sched, policy: SchedPolicy, now: u64) -> Result<usize, Seen> {
    let n = sc.warps.len();
    let ready = sc.masks.advance(now, &sc.ready, &sc.need);
    let cand = sc.masks.candidates(ready, &sc.pipes.accept, now);
    if cand == 0 {
        // Rare (a slot follows a prediction that it can issue, or a wake
        // when something may): the rest of `eligible` only now.
        let (_, blocked, pipes) = sc.masks.eligible(ready, &sc.pipes.accept, now);
        return Err(Seen {
            blocked,
            first: sc.masks.first_pending(),
            pipes: Some(pipes),
        });
    }
    let pick = match policy {
        SchedPolicy::Gto => match sc.greedy.map(|g| g as usize) {
            Some(g) if g < n && cand & (1 << (g % 64)) != 0 => Some(g),
            _ => first_from(cand, 0),
        },
        SchedPolicy::Oldest => first_from(cand, 0),
        // `rr_next <= n`: at `n` no candidate lies at or after it, so
        // `first_from` wraps to the lowest, as a start of 0 would.
        SchedPolicy::Lrr => {
            debug_assert!(sc.rr_next as usize <= n);
            first_from(cand, sc.rr_next as usize)
        }
    };
    // `cand` is not empty, so every policy finds a warp.
    pick.ok_or(Seen {
        blocked: 0,
        first: u64::MAX,
        pipes: None,
    })
}

impl Sm {
    /// Tries to start warp `wi`'s next instruction on scheduler `sched`.
    ///
    /// An instruction of `uops` machine instructions takes `uops` consecutive
    /// issue slots of its scheduler (the scheduler is busy meanwhile), occupies
    /// each pipe its machine instructions use for their ticks together, and
    /// its result is ready `delay` clocks after the first: the schedule of
    /// its machine code for one warp alone (`pipes::sequence_delay`).
    /// Handling the sequence as one decision keeps the cost per PTX instruction
    /// constant. One body for both kinds of instruction: `HOST`, one the
    /// host owns (`HostSide::issue` asks it for the clock and the values,
    /// and no machine code is fetched here), else one executed here. The
    /// slot calls it without `HOST`; an instruction the host owns goes on
    /// to `issue_marked`, out of line. (A constant, so that each copy holds
    /// only its own step.)
    /// The caller's scan has checked that the warp has an instruction whose
    /// operands are ready and whose units are free. Returns whether the
    /// warp is still at its position (it is unless it ended and was removed).
    #[inline]
    fn issue<const HOST: bool>(
        &mut self,
        wi: usize,
        sched: usize,
        now: u64,
        ext: &mut dyn External,
    ) -> Result<bool, SimError> {
        let idx = self.warps[wi].cur;
        if !HOST && self.host.owns(idx) {
            debug_assert!(now == self.cycle && self.warps[wi].sched as usize == sched);
            return self.issue_marked(wi, ext);
        }
        // The SM's parts borrowed apart, so that the warp, its scheduler and
        // the instruction's entry are each looked up once, not again after
        // every write through another part.
        let Sm {
            warps,
            info,
            rows,
            scheds,
            units,
            prepared,
            prog,
            log,
            log_cap,
            inst_acc,
            drain,
            issued,
            hungry,
            cfg,
            icache,
            states,
            host,
            ..
        } = self;
        let w = &mut warps[wi];
        let sc = &mut scheds[sched];
        let ii = &info[idx as usize];
        if let Some(st) = states.as_deref_mut() {
            let u = sc.slots[2];
            account_issue::<false>(w, ii, st, u, cfg.issue_interval, now);
        }
        debug_assert!(idx != NONE && w.cur_ready <= now);
        debug_assert!((0..NCLASS).all(|c| ii.need & (1 << c) == 0 || sc.pipes.is_free(c, now)));
        units.occupy(&mut sc.pipes, &ii.pipe, &ii.ticks, now);
        let threads = if HOST {
            host.issue(w, wi, ii, prog, now, ext, drain)?
        } else {
            let inst = &prepared[idx as usize];
            let mut threads = w.threads;
            // One test for the two rarer cases: a guard to read, or a warp the
            // host executed (one branch, out of line).
            if (ii.guard != NONE) | w.executed {
                threads = guarded_or_executed(w, ii.guard, ii.guard_neg, inst);
            } else {
                // The tables checked every register against `nregs`, the size of `regs`.
                execute(inst, &w.ctx, &mut w.regs, w.active);
            }
            // Machine code fetched from beyond the instruction cache stalls the
            // warp mid-sequence: its result and its next instruction wait.
            let stall = icache.fetch_at(w.cur_at, &mut w.line) * u64::from(cfg.miss_cycles);
            let ready = now + ii.delay + stall;
            // At most two destinations: unrolled (a slice and a loop cost more);
            // each ready at `now + stall + delay_to[side]` for a consumer on `side`.
            if ii.nwrites > 0 {
                w.board.set(ii.writes[0], now + stall, ii.delay_row);
                if ii.nwrites > 1 {
                    w.board.set(ii.writes[1], now + stall, ii.delay_row);
                }
            }
            *drain = (*drain).max(ready);
            if stall != 0 {
                w.fetch_stall = now + ii.busy + stall;
                w.fetch_why = crate::warp_states::reason::NO_INSTRUCTION;
            }
            threads
        };
        tracing::trace!(
            cycle = now,
            sched,
            warp = w.id,
            inst = idx,
            uops = ii.uops,
            "issue"
        );
        if log.len() < *log_cap {
            log.push(IssueEvent {
                cycle: now,
                sched: sched as u32,
                warp_id: w.id,
                inst: idx,
            });
        }
        let acc = &mut inst_acc[idx as usize];
        acc.0 += 1;
        acc.1 += threads;
        *issued += 1;
        sc.issues += u64::from(ii.uops);
        // The rest of an expansion occupies the following issue slots (`busy`
        // is 0 for one micro-op: a no-op, written without a branch).
        sc.busy_until = sc.busy_until.max(now + ii.busy);
        // The warp is resident on `sc` (the host's answer cannot move it):
        // its next instruction goes straight into its entry there.
        match w.next(info, rows, hungry, cfg.issue_width, Some(now), wi) {
            Next::Loaded(need) => {
                debug_assert!(w.state == WarpState::Resident && w.sched as usize == sched);
                sc.set_entry(w.pos as usize, w.cur_ready, need);
                Ok(true)
            }
            other => {
                let pos = w.pos as usize;
                self.fetched(wi, other)?;
                Ok(self.still_at(wi, sched, pos))
            }
        }
    }

    /// [`Sm::issue`] for an instruction the host owns: out of line, so
    /// that the host's step (a call through `ext`) takes no registers from
    /// the usual path, which is inlined into the slot; not cold: a host-fed
    /// warp's memory accesses and barriers all come here. The clock and
    /// the scheduler are the SM's own (`Sm::slot` schedules at `cycle`; an
    /// issuing warp is resident on its `sched`): two arguments fewer to
    /// pass, and a parameter list that does not repeat `issue`'s.
    #[inline(never)]
    fn issue_marked(&mut self, wi: usize, ext: &mut dyn External) -> Result<bool, SimError> {
        let (now, sched) = (self.cycle, self.warps[wi].sched as usize);
        self.issue::<true>(wi, sched, now, ext)
    }

    /// Whether warp `wi` is still at position `pos` of scheduler `sched`
    /// after its fetch (a warp that ended was removed).
    fn still_at(&self, wi: usize, sched: usize, pos: usize) -> bool {
        self.scheds[sched].warps.get(pos) == Some(&wi)
    }

    /// One issue slot of scheduler `s`: up to `issue_width` micro-ops.
    #[inline(always)]
    pub(super) fn schedule(
        &mut self,
        s: usize,
        now: u64,
        ext: &mut dyn External,
    ) -> Result<Outcome, SimError> {
        let st = &mut self.scheds[s];
        if let Some((o, until)) = st.known(now) {
            st.account(o, 1);
            if o == Outcome::Dep {
                self.min_event = self.min_event.min(until);
            }
            return Ok(o);
        }
        let mut best = Outcome::Empty;
        let mut wake = 0;
        // Not busy at `now` (`known` said so); issue up to `issue_width`
        // (at least 1, the tables checked) micro-ops while that holds.
        let mut left = self.cfg.issue_width;
        loop {
            let sc = &mut self.scheds[s];
            if sc.warps.is_empty() {
                if best == Outcome::Empty {
                    wake = u64::MAX;
                }
                break;
            }
            let pick = if sc.masks.on {
                pick_masked(sc, self.policy, now)
            } else {
                pick_scan(sc, self.policy, now)
            };
            let pos = match pick {
                Ok(pos) => pos,
                Err(seen) => {
                    let (o, until) = seen.outcome(now, &sc.pipes);
                    if o != Outcome::Unit {
                        self.min_event = self.min_event.min(until);
                    }
                    if best == Outcome::Empty {
                        // Nothing issued: the outcome holds until the first
                        // pending operand is ready (never, when empty) or, with
                        // warps ready but their pipes busy, until one of those
                        // frees (only this scheduler's issues occupy its pipes).
                        wake = until;
                    }
                    best = best.max(o);
                    break;
                }
            };
            let wi = sc.warps[pos];
            // Whether the warp is still at `pos` (it may have retired, and
            // been removed, while issuing).
            let still = self.issue::<false>(wi, s, now, ext)?;
            best = Outcome::Issued;
            let sc = &mut self.scheds[s];
            match self.policy {
                SchedPolicy::Lrr => sc.rr_next = (if still { pos + 1 } else { pos }) as u32,
                SchedPolicy::Gto => sc.greedy = still.then_some(pos as u32),
                SchedPolicy::Oldest => {}
            }
            // `left` starts at 1 or more and the loop ends at 0: no wrap.
            left -= 1;
            if left == 0 || now < sc.busy_until {
                break;
            }
        }
        let st = &mut self.scheds[s];
        st.account(best, 1);
        st.wake = wake;
        st.sleep = best;
        if best == Outcome::Issued {
            st.predict(now, u64::from(self.cfg.issue_interval));
        }
        Ok(best)
    }
}

impl Sched {
    /// After this scheduler issued at `now`: what its next slot will find,
    /// so that it need not look then. Nothing changes its warps or its
    /// pipes before that slot unless a warp is fetched, admitted or retired
    /// (which clears `wake`), so the scan can be done now; if no warp can
    /// issue at that slot, the outcome and the clock until which it holds
    /// are set (`wake`, `sleep`) exactly as that slot would set them. `iv`
    /// is the issue interval. (A method of the scheduler, so that the slot
    /// that issued hands over the scheduler it already holds.)
    #[inline(always)]
    fn predict(&mut self, now: u64, iv: u64) {
        let sc = self;
        let t0 = sc.busy_until.max(now + iv);
        let accept = &sc.pipes.accept;
        let seen = if sc.masks.on {
            // The usual cases after an issue: a warp ready already needs
            // no pipe busy at `t0` (that slot issues: nothing to set), or
            // the pipes every warp needs are busy then (until the first
            // frees the slots are `Unit`, some warp ready, or, with none
            // ready, `Dep` until the first is, `Empty` if none ever will
            // be: nothing can issue before).
            match sc.masks.foresee(t0, accept) {
                Later::Issues => return,
                Later::Blocked(any_ready, until) => {
                    // A busy pipe's clock, or the first pending one: after `t0`.
                    debug_assert!(until > t0);
                    sc.wake = until;
                    sc.sleep = match (any_ready, until) {
                        (true, _) => Outcome::Unit,
                        (false, u64::MAX) => Outcome::Empty,
                        (false, _) => Outcome::Dep,
                    };
                    return;
                }
                Later::Unknown => {}
            }
            // Whether some warp ready at `t0` needs no busy pipe.
            let ready = sc.masks.advance(t0, &sc.ready, &sc.need);
            let (cand, blocked, pipes) = sc.masks.eligible(ready, accept, t0);
            if cand != 0 {
                return;
            }
            Seen {
                blocked,
                first: sc.masks.first_pending(),
                pipes: Some(pipes),
            }
        } else {
            match scan_at(&sc.ready, &sc.need, t0, accept) {
                Some(seen) => seen,
                None => return,
            }
        };
        let (o, until) = seen.outcome(t0, &sc.pipes);
        if until > t0 {
            sc.wake = until;
            sc.sleep = o;
        }
    }
}
