//! Warp states as Nsight Compute names its stall reasons: every cycle of
//! every resident warp is given one reason, so they sum to the resident
//! warp-cycles (`docs/stalls.md` says which model event is which reason).
//! Also the per-instruction profile behind `simcli annotate` and the
//! issue activity over time.

use serde::{Deserialize, Serialize};

/// The reasons, in the order of [`WarpStalls::counts`] (snake_case, as the
/// JSON report names them).
pub const REASONS: [&str; NREASONS] = [
    "selected",
    "not_selected",
    "math_pipe_throttle",
    "lg_throttle",
    "mio_throttle",
    "wait",
    "short_scoreboard",
    "long_scoreboard",
    "barrier",
    "membar",
    "branch_resolving",
    "no_instruction",
    "sleeping",
];

/// Number of reasons.
pub const NREASONS: usize = 13;

/// Index of each reason in [`REASONS`].
// One constant a reason, alike in shape: names the model matches on, kept
// as a list (issue 27).
pub mod reason {
    /// The warp issued this cycle.
    pub const SELECTED: u8 = 0;
    /// Eligible, but another warp issued (or the scheduler was busy with
    /// another warp's micro-ops).
    pub const NOT_SELECTED: u8 = 1;
    /// Ready, but the arithmetic pipe it needs was busy.
    pub const MATH_PIPE_THROTTLE: u8 = 2;
    /// Ready, but the pipe of its global/local memory instruction was busy.
    pub const LG_THROTTLE: u8 = 3;
    /// Ready, but the pipe of its shared-memory or MUFU instruction was busy.
    pub const MIO_THROTTLE: u8 = 4;
    /// Waiting on a fixed-latency result.
    pub const WAIT: u8 = 5;
    /// Waiting on a shared-memory or MUFU (XU) result.
    pub const SHORT_SCOREBOARD: u8 = 6;
    /// Waiting on a global, local or generic memory result.
    pub const LONG_SCOREBOARD: u8 = 7;
    /// Held at a block barrier.
    pub const BARRIER: u8 = 8;
    /// Held after a memory fence.
    pub const MEMBAR: u8 = 9;
    /// Waiting for a taken branch's target to be fetched.
    pub const BRANCH_RESOLVING: u8 = 10;
    /// No instruction: an instruction-cache miss, or nothing fetched yet.
    pub const NO_INSTRUCTION: u8 = 11;
    /// Held after `nanosleep`.
    pub const SLEEPING: u8 = 12;
}

/// Warp-cycles by reason (indexed as [`REASONS`]) and the resident
/// warp-cycles they add up to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarpStalls {
    /// Warp-cycles per reason.
    pub counts: [u64; NREASONS],
    /// Cycles warps were resident, summed over warps (counted apart from
    /// the reasons, from each warp's admission and retirement).
    pub resident_warp_cycles: u64,
}

impl WarpStalls {
    /// The sum over reasons.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Warp-cycles of the reason named `name` (0 for an unknown name).
    pub fn get(&self, name: &str) -> u64 {
        REASONS
            .iter()
            .position(|&r| r == name)
            .map_or(0, |i| self.counts[i])
    }

    /// Adds `o`'s counts to these.
    pub fn add(&mut self, o: &WarpStalls) {
        for (a, b) in self.counts.iter_mut().zip(&o.counts) {
            *a += b;
        }
        self.resident_warp_cycles += o.resident_warp_cycles;
    }

    /// `(name, warp-cycles)` for each reason, in [`REASONS`] order.
    pub fn named(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        REASONS.iter().copied().zip(self.counts.iter().copied())
    }
}

/// One program instruction's profile (summed over SMs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstProfile {
    /// Warp instructions issued.
    pub warp_instructions: u64,
    /// Threads that ran it (active lanes whose guard held).
    pub thread_instructions: u64,
    /// Warp-cycles of warps whose next instruction this was, by reason
    /// (a barrier's wait and the cycles after a warp's last instruction
    /// go to the instruction that issued last).
    pub stalls: [u64; NREASONS],
    /// Global and local 32-byte sectors its accesses touched (as the
    /// memory model's `l1.sectors` counts them), where a host with a
    /// memory model adds them (`Stats::per_inst`); else 0.
    pub sectors: u64,
}

impl InstProfile {
    fn add(&mut self, o: &InstProfile) {
        self.warp_instructions += o.warp_instructions;
        self.thread_instructions += o.thread_instructions;
        self.sectors += o.sectors;
        for (a, b) in self.stalls.iter_mut().zip(&o.stalls) {
            *a += b;
        }
    }
}

/// Adds `from`'s profiles into `into`, instruction by instruction.
pub fn merge_profiles(into: &mut Vec<InstProfile>, from: &[InstProfile]) {
    if into.len() < from.len() {
        into.resize(from.len(), InstProfile::default());
    }
    for (a, b) in into.iter_mut().zip(from) {
        a.add(b);
    }
}

/// Most buckets an activity series keeps (pairs merge beyond it).
pub const MAX_BUCKETS: usize = 256;

/// Most SMs whose activity a merged record keeps (the first ones).
pub const MAX_ACTIVITY_SMS: usize = 16;

/// Warp instructions issued per SM per stretch of `bucket_cycles` clocks.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Activity {
    /// Clocks per bucket (a power of two).
    pub bucket_cycles: u64,
    /// Per SM (at most [`MAX_ACTIVITY_SMS`]), issues per bucket (at most
    /// [`MAX_BUCKETS`]).
    pub per_sm: Vec<Vec<u64>>,
}

impl Activity {
    /// Appends `o`'s SMs (up to [`MAX_ACTIVITY_SMS`] in all), at the
    /// coarser of the two bucket widths.
    pub fn append(&mut self, o: &Activity) {
        if o.per_sm.is_empty() {
            return;
        }
        let width = self.bucket_cycles.max(o.bucket_cycles).max(1);
        for s in &mut self.per_sm {
            *s = rebin(s, self.bucket_cycles.max(1), width);
        }
        self.bucket_cycles = width;
        for s in &o.per_sm {
            if self.per_sm.len() >= MAX_ACTIVITY_SMS {
                break;
            }
            self.per_sm.push(rebin(s, o.bucket_cycles.max(1), width));
        }
    }
}

/// `s` in buckets of `from` clocks as buckets of `to` (a multiple of it).
fn rebin(s: &[u64], from: u64, to: u64) -> Vec<u64> {
    let k = (to / from).max(1) as usize;
    s.chunks(k).map(|c| c.iter().sum()).collect()
}
