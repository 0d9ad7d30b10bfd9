//! Warp-state accounting (Nsight Compute's stall reasons), done lazily: a
//! warp keeps the clock up to which its cycles are counted (`Warp::acct`),
//! and the span since is split into reasons only when it issues, is fed
//! after starving (a barrier, say), or retires. Nothing is done per warp
//! per clock. `docs/stalls.md` gives the mapping.
//!
//! The span before an issue at `now` (from `acct`, after its previous
//! issue) is: waiting on its operands until `cur_ready` (the reason is the
//! row tag of the latest one's producer, or the fetch stall's), then ready
//! until `now`; of those ready cycles, as many as its scheduler had slots
//! in which no warp issued and a ready warp's pipe was busy (counted since
//! the warp's previous issue) are the pipe's throttle, the rest
//! `not_selected` (another warp issued). That split is exact when no
//! such slot fell in the operand wait, an upper bound on the throttle
//! otherwise.

use super::stall_acc::FLAT_WHY;
use super::table::{InstInfo, NONE};
use super::warp::Warp;
use super::Sm;
use crate::warp_states::{reason as r, Activity, InstProfile, WarpStalls, NREASONS};

/// Adds `n` warp-cycles of reason `why` to `to`.
#[inline(always)]
fn add(to: &mut [u64; NREASONS], why: u8, n: u64) {
    if let Some(c) = to.get_mut(usize::from(why)) {
        *c += n;
    }
}

/// The reason of warp `w`'s wait on its operands, which ends at
/// `cur_ready`: the fetch stall's, or the tag of the row of the register
/// that set that clock (`Warp::cur_arg`, found with it).
#[inline(always)]
fn operand_reason(w: &Warp, why: &[u8]) -> u8 {
    if w.cur_arg == NONE {
        return w.fetch_why;
    }
    why.get(usize::from(w.board.row(w.cur_arg)))
        .copied()
        .unwrap_or(FLAT_WHY)
}

/// Splits warp `w`'s span `[w.acct, now)` before it issues `ii` into
/// reasons, into `to` (`units`: its scheduler's unit-busy slots so far;
/// `iv`: clocks per slot). `w.acct <= now`, and `w.cur_ready <= now` (it
/// issues). Adding zeros is cheaper than testing for them.
#[inline(always)]
pub(super) fn split_before_issue(
    w: &Warp,
    ii: &InstInfo,
    why: &[u8],
    to: &mut [u64; NREASONS],
    units: u64,
    iv: u64,
    now: u64,
) {
    let from = w.acct;
    let ready = w.cur_ready.clamp(from, now);
    if ready > from {
        add(to, operand_reason(w, why), ready - from);
    }
    let eligible = now - ready;
    let busy = units.saturating_sub(w.unit_snap).saturating_mul(iv);
    let throttle = busy.min(eligible);
    add(to, ii.throttle, throttle);
    add(to, r::NOT_SELECTED, eligible - throttle);
}

impl Sm {
    /// Warp `wi` was starved (nothing queued, `cur` is `NONE`) and is fed
    /// at the current clock: its cycles since `acct` were held after its
    /// last instruction (a barrier's, usually).
    #[cold]
    #[inline(never)]
    pub(super) fn starved_until_now(&mut self, wi: usize) {
        let now = self.cycle;
        let w = &mut self.warps[wi];
        if now <= w.acct {
            return;
        }
        let span = now - w.acct;
        w.acct = now;
        // The unit-busy slots while it starved were not its throttle.
        w.unit_snap = self.scheds[w.sched as usize].slots[2];
        let last = w.last;
        let after = self
            .info
            .get(last as usize)
            .map_or(r::NO_INSTRUCTION, |ii| ii.after);
        let Some(st) = self.states.as_deref_mut() else {
            return;
        };
        if last == NONE {
            add(&mut st.loose, after, span);
        } else {
            add(st.row(last), after, span);
        }
    }

    /// Warp `wi` retires at the current clock: its resident span is done.
    pub(super) fn retire_states(&mut self, wi: usize) {
        if self.warps[wi].cur == NONE && self.warps[wi].acct < self.cycle {
            self.starved_until_now(wi);
        }
        let w = &self.warps[wi];
        if let Some(st) = self.states.as_deref_mut() {
            st.resident += w.acct.max(self.cycle) - w.admitted;
        }
    }

    /// The warp states so far, with the open spans of resident warps
    /// counted up to the current clock, and the per-instruction profile.
    pub(super) fn states_now(&self) -> (WarpStalls, Vec<InstProfile>) {
        let Some(acc) = self.states.as_deref() else {
            return Default::default();
        };
        let mut per: Vec<InstProfile> = self
            .inst_acc
            .iter()
            .enumerate()
            .map(|(i, &(n, threads))| InstProfile {
                warp_instructions: n,
                thread_instructions: threads,
                stalls: acc.counts(i),
                sectors: 0,
            })
            .collect();
        let mut st = WarpStalls {
            counts: acc.loose,
            resident_warp_cycles: acc.resident,
        };
        let now = self.cycle;
        for w in &self.warps {
            if w.state != super::warp::WarpState::Resident {
                continue;
            }
            st.resident_warp_cycles += w.acct.max(now) - w.admitted;
            if now <= w.acct {
                continue;
            }
            // An open span: its reason as it stands now.
            let (at, why) = if w.cur == NONE {
                let after = self
                    .info
                    .get(w.last as usize)
                    .map_or(r::NO_INSTRUCTION, |i| i.after);
                (w.last, after)
            } else if w.cur_ready > w.acct {
                (w.cur, r::WAIT)
            } else {
                (w.cur, r::NOT_SELECTED)
            };
            match per.get_mut(at as usize) {
                Some(p) => add(&mut p.stalls, why, now - w.acct),
                None => add(&mut st.counts, why, now - w.acct),
            }
        }
        for p in &per {
            for (a, b) in st.counts.iter_mut().zip(&p.stalls) {
                *a += b;
            }
        }
        (st, per)
    }

    /// The issue activity so far.
    pub(super) fn activity_now(&self) -> Activity {
        self.states
            .as_deref()
            .map_or_else(Activity::default, |a| a.act.series())
    }
}
