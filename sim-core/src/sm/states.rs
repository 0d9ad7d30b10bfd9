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

use super::board::ROW;
use super::table::{InstInfo, NONE};
use super::warp::Warp;
use super::Sm;
use crate::config::UnitClass;
use crate::warp_states::{reason as r, Activity, InstProfile, WarpStalls, MAX_BUCKETS, NREASONS};
use sim_isa::{db, Instruction, Space};

/// The reason of a wait on the all-zero row `board::FLAT`.
pub(super) const FLAT_WHY: u8 = r::WAIT;

/// An instruction's stall classes.
pub(super) struct Class {
    /// A wait on its result.
    pub result: u8,
    /// Its pipe busy when the warp is ready to issue it.
    pub throttle: u8,
    /// A warp held after it (starved: waiting for the host to feed it).
    pub after: u8,
}

/// The stall classes of `inst`, timed as `ii`.
pub(super) fn classify(inst: &Instruction, ii: &InstInfo) -> Class {
    let xu = ii
        .pipe
        .iter()
        .zip(&ii.ticks)
        .any(|(&p, &t)| t > 0 && usize::from(p) == UnitClass::Xu.index());
    let (result, throttle) = match db::memory(inst).map(|m| m.space) {
        Some(Space::Global | Space::Local | Space::Generic) => (r::LONG_SCOREBOARD, r::LG_THROTTLE),
        Some(Space::Shared) => (r::SHORT_SCOREBOARD, r::MIO_THROTTLE),
        // Constant and parameter loads: the constant cache's fixed latency.
        Some(Space::Const | Space::Param) => (r::WAIT, r::MIO_THROTTLE),
        None if xu => (r::SHORT_SCOREBOARD, r::MIO_THROTTLE),
        None => (r::WAIT, r::MATH_PIPE_THROTTLE),
    };
    let name = db::mnemonic(inst);
    let after = if db::barrier(inst).is_some() {
        r::BARRIER
    } else if name.starts_with("membar") || name.starts_with("fence") {
        r::MEMBAR
    } else if name.starts_with("nanosleep") {
        r::SLEEPING
    } else {
        r::NO_INSTRUCTION
    };
    Class {
        result,
        throttle,
        after,
    }
}

/// Instructions per page of per-instruction counters.
const PAGE: usize = 16;

/// The counters of `PAGE` consecutive program instructions.
type Page = [[u64; NREASONS]; PAGE];

/// The SM's accumulators.
pub(super) struct Acc {
    /// Per program instruction, in pages made when an instruction of theirs
    /// first issues: memory follows the code that runs, not the program's
    /// size (a big module with a small hot kernel).
    pub per_inst: Vec<Option<Box<Page>>>,
    /// Spans no instruction can take (a warp starved before its first issue).
    pub loose: [u64; NREASONS],
    /// Resident warp-cycles of retired warps.
    pub resident: u64,
    /// Issue activity.
    pub act: ActivityRec,
}

impl Acc {
    /// Accumulators for a program of `n` instructions.
    pub fn new(n: usize) -> Box<Acc> {
        Box::new(Acc {
            per_inst: vec![None; n.div_ceil(PAGE)],
            loose: [0; NREASONS],
            resident: 0,
            act: ActivityRec::default(),
        })
    }

    /// Bytes held (the box and its vectors).
    pub fn heap_bytes(&self) -> usize {
        std::mem::size_of::<Acc>()
            + self.per_inst.capacity() * std::mem::size_of::<Option<Box<Page>>>()
            + self.per_inst.iter().flatten().count() * std::mem::size_of::<Page>()
            + self.act.counts.capacity() * std::mem::size_of::<u64>()
    }

    /// Instruction `idx`'s counters (`loose` for an index past the program).
    #[inline(always)]
    pub fn row(&mut self, idx: u32) -> &mut [u64; NREASONS] {
        let (p, k) = (idx as usize / PAGE, idx as usize % PAGE);
        match self.per_inst.get_mut(p) {
            Some(page) => &mut page.get_or_insert_with(new_page)[k],
            None => &mut self.loose,
        }
    }

    /// Instruction `idx`'s counters so far (zeros where none issued).
    fn counts(&self, idx: usize) -> [u64; NREASONS] {
        self.per_inst
            .get(idx / PAGE)
            .and_then(Option::as_deref)
            .map_or([0; NREASONS], |p| p[idx % PAGE])
    }
}

#[cold]
#[inline(never)]
fn new_page() -> Box<Page> {
    Box::new([[0; NREASONS]; PAGE])
}

/// Issues per bucket of `1 << shift` clocks, counted at each issue (one
/// add: exact, and the same however a run is split).
pub(super) struct ActivityRec {
    pub shift: u32,
    /// Up to the last bucket an issue fell in (at most `MAX_BUCKETS`).
    pub counts: Vec<u64>,
}

/// Clocks of the first bucket width (`1 << FIRST_SHIFT`).
const FIRST_SHIFT: u32 = 6;

impl Default for ActivityRec {
    fn default() -> Self {
        ActivityRec {
            shift: FIRST_SHIFT,
            counts: Vec::new(),
        }
    }
}

impl ActivityRec {
    /// Counts an issue at clock `now`.
    #[inline(always)]
    pub fn issue(&mut self, now: u64) {
        match self.counts.get_mut((now >> self.shift) as usize) {
            Some(c) => *c += 1,
            None => self.grow(now),
        }
    }

    /// Clock `now` is past the last bucket: adds buckets up to it (the
    /// vector grows as the run does, a few times in all) or, past
    /// `MAX_BUCKETS`, merges pairs until it falls in one; and counts it.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, now: u64) {
        while (now >> self.shift) as usize >= MAX_BUCKETS {
            self.counts = self.counts.chunks(2).map(|c| c.iter().sum()).collect();
            self.shift += 1;
        }
        let b = (now >> self.shift) as usize;
        if self.counts.len() <= b {
            self.counts.resize(b + 1, 0);
        }
        self.counts[b] += 1;
    }

    /// The series, up to its last bucket with an issue (an SM idling
    /// after its last warp, as stepping in lockstep makes it, adds none).
    fn series(&self) -> Activity {
        let used = self
            .counts
            .iter()
            .rposition(|&n| n > 0)
            .map_or(0, |k| k + 1);
        Activity {
            bucket_cycles: 1 << self.shift,
            per_sm: vec![self.counts[..used].to_vec()],
        }
    }
}

/// Adds `n` warp-cycles of reason `why` to `to`.
#[inline(always)]
fn add(to: &mut [u64; NREASONS], why: u8, n: u64) {
    if let Some(c) = to.get_mut(usize::from(why)) {
        *c += n;
    }
}

/// The reason of warp `w`'s wait on its operands, which ends at `ready`:
/// the fetch stall's, or the tag of the row of the latest register.
#[inline(never)]
fn operand_reason(w: &Warp, ii: &InstInfo, rows: &[[u64; ROW]], why: &[u8], ready: u64) -> u8 {
    if w.fetch_stall >= ready {
        return w.fetch_why;
    }
    let side = usize::from(ii.side);
    let n = usize::from(ii.nuses).min(ii.uses.len());
    for &u in &ii.uses[..n] {
        if w.board.ready(rows, u, side) >= ready {
            return why
                .get(usize::from(w.board.row(u)))
                .copied()
                .unwrap_or(FLAT_WHY);
        }
    }
    FLAT_WHY
}

/// Splits warp `w`'s span `[w.acct, now)` before it issues `ii` into
/// reasons, into `to` (`units`: its scheduler's unit-busy slots so far;
/// `iv`: clocks per slot).
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(super) fn split_before_issue(
    w: &Warp,
    ii: &InstInfo,
    rows: &[[u64; ROW]],
    why: &[u8],
    to: &mut [u64; NREASONS],
    units: u64,
    iv: u64,
    now: u64,
) {
    let from = w.acct;
    let ready = w.cur_ready.clamp(from, now);
    if ready > from {
        add(to, operand_reason(w, ii, rows, why, ready), ready - from);
    }
    let eligible = now - ready;
    if eligible > 0 {
        let busy = units.saturating_sub(w.unit_snap).saturating_mul(iv);
        let throttle = busy.min(eligible);
        add(to, ii.throttle, throttle);
        add(to, r::NOT_SELECTED, eligible - throttle);
    }
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
