//! The clock loop: stepping one clock, skipping stretches whose issue-slot
//! outcomes are already known, and the run limits.

use super::host::Progress;
use super::hunger::PENDING;
use super::sched::{Outcome, Sched};
use super::Sm;
use crate::error::{Limit, SimError};
use crate::external::{Deferred, External};

impl Sm {
    /// Advances one clock. A host stepping by hand owns the run's bounds:
    /// [`crate::Limits`] are checked by [`Sm::run_to_completion`]. External
    /// instructions issued here wait for [`Sm::complete_external`].
    pub fn step(&mut self) -> Result<(), SimError> {
        self.step_with(&mut Deferred)
    }

    /// Advances one clock, handing external instructions to `ext`.
    pub fn step_with(&mut self, ext: &mut dyn External) -> Result<(), SimError> {
        self.slot(ext).map(|_| ())
    }

    /// [`Sm::step_with`], returning the best outcome of the clock's slots
    /// (`None`: no slot this clock, or no scheduler). Out of line, with the
    /// schedulers' slots inlined into it.
    #[inline(never)]
    fn slot(&mut self, ext: &mut dyn External) -> Result<Option<Outcome>, SimError> {
        let now = self.cycle;
        let iv = self.cfg.issue_interval as u64;
        let mut best = None;
        if iv == 1 || now.is_multiple_of(iv) {
            let before = self.issued;
            for s in 0..self.scheds.len() {
                best = best.max(Some(self.schedule(s, now, ext)?));
            }
            // The clock's issues in the activity series at once (each
            // issue went through `account_issue`, which needs `states`; a
            // slot that fails ends the run without statistics).
            let n = self.issued - before;
            if n > 0 {
                if let Some(st) = self.states.as_deref_mut() {
                    st.act.issue(now, n);
                }
            }
        }
        self.cycle += 1;
        Ok(best)
    }

    /// The clock until which every scheduler's slot outcome is known from
    /// the current one (busy with an expansion, waiting with its wake clock
    /// in the future, or both in turn: `Sched::known_span`), if every one's
    /// is and some scheduler's ends.
    fn known_until(&self) -> Option<u64> {
        let mut target = u64::MAX;
        for sc in &self.scheds {
            target = target.min(sc.known_span(self.cycle)?);
        }
        // `u64::MAX`, `PENDING`: everything waits for the host; `step`
        // records the slot.
        (target < PENDING).then_some(target)
    }

    /// Jumps from the current clock to `target` (at most the cycle limit),
    /// counting the skipped slots as stepping would: each scheduler with its
    /// known outcome (busy: issuing, then, where the stretch goes on past
    /// the expansion, its predicted outcome; sleeping: that outcome).
    #[inline(always)]
    fn skip_to(&mut self, target: u64) {
        let (now, target) = (self.cycle, target.min(self.cfg.limits.max_cycles));
        if target <= now {
            return;
        }
        let iv = self.cfg.issue_interval as u64;
        if iv == 1 {
            // Every clock a slot (all presets but GT200): counts are spans.
            for sc in &mut self.scheds {
                skip_sched(sc, now, target, |a, b| b - a);
            }
        } else {
            for sc in &mut self.scheds {
                skip_sched(sc, now, target, |a, b| slots_between(iv, a, b));
            }
        }
        self.cycle = target;
    }

    /// The limit the run has reached with work left, if any.
    pub(crate) fn limit_reached(&self) -> Option<Limit> {
        let l = self.cfg.limits;
        if self.cycle >= l.max_cycles {
            Some(Limit::Cycles(l.max_cycles))
        } else if self.issued >= l.max_instructions {
            Some(Limit::Instructions(l.max_instructions))
        } else {
            None
        }
    }

    /// Runs until every warp has finished and its results are written, or until
    /// every live warp waits for the host (input to [`Sm::push_instruction`],
    /// or an external instruction to [`Sm::complete_external`]).
    ///
    /// Clocks in which no scheduler can issue and only dependencies are pending
    /// are skipped in one go; their issue slots are still counted. A run that
    /// reaches one of the configuration's [`crate::Limits`] with work left
    /// stops with [`SimError::LimitExceeded`], carrying this SM's statistics.
    pub fn run_to_completion(&mut self) -> Result<(), SimError> {
        self.run_loop::<false>(&mut Deferred, u64::MAX).map(|_| ())
    }

    /// Like [`Sm::run_to_completion`] with external instructions handed to
    /// `ext`, but also returns [`Progress::Waiting`] before the next clock as
    /// soon as a host warp's queue runs dry, so the host can feed it before it
    /// would idle: a host that then pushes the warp's next instruction (or
    /// closes it) gets the cycles of replaying the same stream. A host with
    /// nothing to give yet calls it again: the warp then idles until fed.
    /// It returns [`Progress::Waiting`] before the next clock, too, when an
    /// executed warp ([`Sm::add_executed_warp`]) has finished and others
    /// are still live ([`Sm::take_retired_into`] names it), so the host can
    /// give the SM new work at that clock. When the last warp finishes, the
    /// clock moves on to the last result's (the drain) and the run returns
    /// [`Progress::Done`] (or `Waiting` while external instructions are
    /// outstanding).
    pub fn run_until_idle(&mut self, ext: &mut dyn External) -> Result<Progress, SimError> {
        self.run_until_idle_before(ext, u64::MAX)
    }

    /// [`Sm::run_until_idle`] that also stops, with [`Progress::Reached`],
    /// once the clock reaches `until`: it simulates no clock at or after
    /// `until` (skipped stretches end there), so a run split into bounded
    /// pieces gives exactly the cycles and statistics of one unbounded run.
    /// A host warp's hunger or an executed warp's end is reported
    /// ([`Progress::Waiting`]) before the bound. The one step past `until`:
    /// when the last live warp finishes, the clock moves to the drain (the
    /// clock its last result is written, [`Sm::cycle`] then), as in
    /// `run_until_idle`; that is the SM's end, the figure a host wants as
    /// the time its last block ended.
    pub fn run_until_idle_before(
        &mut self,
        ext: &mut dyn External,
        until: u64,
    ) -> Result<Progress, SimError> {
        let r = self.run_loop::<true>(ext, until);
        // Whatever the run returned for, the host has heard of the warps
        // that finished (`Sm::take_retired_into`).
        self.hungry.retire = false;
        r
    }

    /// Moves an SM with no live warp on to clock `t` (if later than its
    /// own), counting the skipped issue slots as `no_eligible`, as stepping
    /// it would: a block the host gives an idle SM later starts at the
    /// host's time. Does nothing while a warp is live (resident or pending).
    pub fn idle_until(&mut self, t: u64) {
        let now = self.cycle;
        if self.live > 0 || t <= now {
            return;
        }
        let iv = self.cfg.issue_interval as u64;
        for sc in &mut self.scheds {
            // An expansion issued by a warp since finished still holds its
            // scheduler's slots (stepping counts them as issued).
            let mid = sc.busy_until.clamp(now, t);
            if mid > now {
                sc.account(Outcome::Issued, slots_between(iv, now, mid));
            }
            sc.account(Outcome::Empty, slots_between(iv, mid, t));
            sc.changed();
        }
        self.cycle = t;
    }

    /// The clock loop. `HOST`: return to the host when it is needed
    /// ([`Sm::run_until_idle`]) and stop at `until`; otherwise `until` is
    /// not read.
    fn run_loop<const HOST: bool>(
        &mut self,
        ext: &mut dyn External,
        until: u64,
    ) -> Result<Progress, SimError> {
        let iv = self.cfg.issue_interval as u64;
        let until = if HOST { until } else { u64::MAX };
        // Whether the last slot's skip ended where a scheduler must look, so
        // that `known_until` need not be asked again at this clock.
        let mut looked = false;
        while self.live > 0 {
            if HOST && self.take_hungry() {
                return Ok(Progress::Waiting);
            }
            if HOST && self.cycle >= until {
                return Ok(Progress::Reached);
            }
            if let Some(limit) = self.limit_reached() {
                return Err(SimError::LimitExceeded {
                    limit,
                    partial: Box::new(self.report()),
                });
            }
            let now = self.cycle;
            if iv != 1 && !now.is_multiple_of(iv) {
                self.cycle = now
                    .next_multiple_of(iv)
                    .min(self.cfg.limits.max_cycles)
                    .min(until);
                looked = false;
                continue;
            }
            if !std::mem::take(&mut looked) {
                if let Some(target) = self.known_until() {
                    self.skip_to(target.min(until));
                    continue;
                }
            }
            self.min_event = u64::MAX;
            match self.slot(ext)? {
                Some(Outcome::Issued | Outcome::Unit) => {
                    // What the next pass would do first: skip to where some
                    // scheduler must look (not past a host's turn, nor past
                    // the instruction limit, which the next pass reports at
                    // this clock).
                    if !HOST && self.live > 0 && self.issued < self.cfg.limits.max_instructions {
                        if let Some(target) = self.known_until() {
                            self.skip_to(target);
                        }
                        looked = true;
                    }
                }
                Some(Outcome::Empty) | None if self.live > 0 => {
                    // Everything live waits for the host.
                    return Ok(Progress::Waiting);
                }
                Some(Outcome::Empty | Outcome::Dep) | None => {
                    if self.min_event >= PENDING && self.live > 0 {
                        // Only external instructions are pending.
                        return Ok(Progress::Waiting);
                    }
                    // Nothing can issue before the earliest pending operand.
                    if self.min_event != u64::MAX && self.min_event > self.cycle {
                        self.skip_to(self.min_event.min(until));
                    }
                }
            }
        }
        self.cycle = self.cycle.max(self.drain);
        Ok(if self.host.outstanding.is_empty() {
            Progress::Done
        } else {
            Progress::Waiting
        })
    }
}

/// Counts scheduler `sc`'s slots in clocks `[now, target)` (`now < target`)
/// with their known outcomes (`slots(a, b)`: the slots in `[a, b)`, where
/// `a <= b`). Skipping happens only while every scheduler's outcome is known
/// (`known_until`): past `busy_until` the slots sleep until `wake`.
#[inline(always)]
fn skip_sched(sc: &mut Sched, now: u64, target: u64, slots: impl Fn(u64, u64) -> u64) {
    if now < sc.busy_until {
        let mid = sc.busy_until.min(target);
        sc.account(Outcome::Issued, slots(now, mid));
        if target > mid {
            sc.account(sc.sleep, slots(mid, target));
        }
    } else {
        let o = if now < sc.wake { sc.sleep } else { sc.last };
        sc.account(o, slots(now, target));
    }
}

/// Number of issue slots in clocks `[from, to)`, one every `iv` clocks.
#[inline]
fn slots_between(iv: u64, from: u64, to: u64) -> u64 {
    if to <= from {
        return 0;
    }
    if iv == 1 {
        // Every clock a slot (all presets but GT200): no division.
        return to - from;
    }
    (to - 1) / iv + 1 - from.div_ceil(iv)
}
