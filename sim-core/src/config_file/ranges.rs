//! The range of every numeric configuration key, in one table ([`range`]),
//! and the checks that apply it: [`ConfigLayer::parse`](super::ConfigLayer)
//! refuses a value outside its key's range where it is written (a file's
//! line, a `--set`, a sweep's `[params]` value), and [`check`] holds a whole
//! [`SmConfig`] to the same table when the model is built, so a
//! configuration edited in code (the C API, Python) cannot pass around it.
//!
//! Why these bounds: each is the largest value of any NVIDIA SM so far with
//! room for experiments (several times over), and small enough that the
//! model's state and time stay bounded: the model holds one scheduler state
//! per `schedulers`, a warp state per resident warp, and its per-clock work
//! grows with both (quadratically in warps per SM). docs/config.md lists
//! them with the hardware figures.

use super::{params, ParamValue};
use crate::config::{SchedPolicy, SmConfig, UnitClass};

/// An inclusive range of a key's values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyRange {
    /// The least value.
    pub lo: u64,
    /// The greatest value.
    pub hi: u64,
}

impl KeyRange {
    pub(super) const fn new(lo: u64, hi: u64) -> Self {
        KeyRange { lo, hi }
    }

    /// Whether `v` is in the range.
    pub const fn contains(self, v: u64) -> bool {
        self.lo <= v && v <= self.hi
    }
}

impl std::fmt::Display for KeyRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} to {}", self.lo, self.hi)
    }
}

/// The most SMs one simulation holds (simcli `--sms`, a sweep's `sms`, the
/// C API's `sms`, Python's `sms`): the largest GPU so far has 144 SMs; each
/// SM costs its scheduler and unit state up front.
pub const MAX_SMS: usize = 4096;

/// The most worker threads (simcli `--threads`, Python's `threads`); a run
/// uses at most one per SM.
pub const MAX_THREADS: usize = 1024;

/// Pipe lanes per SM: the widest so far is 256 (sm_53's and sm_90's half
/// precision, 128 lanes here); 0 is an absent pipe.
const LANES: KeyRange = KeyRange::new(0, 4096);
/// Clocks: the longest pipe latency of any preset is 48 (GT200's f64).
const CLOCKS: KeyRange = KeyRange::new(0, 4096);

/// The range of numeric key `key` (dotted, as in docs/config.md); `None`
/// for a key that is not numeric or not a key.
pub fn range(key: &str) -> Option<KeyRange> {
    if let Some((class, leaf)) = key.strip_prefix("units.").and_then(|r| r.split_once('.')) {
        if !UnitClass::ALL.iter().any(|c| c.name() == class) {
            return None;
        }
        return match leaf {
            "lanes_per_sm" => Some(LANES),
            "latency" => Some(CLOCKS),
            _ => None,
        };
    }
    Some(match key {
        // Hardware: 32 (GT200, Turing) to 64 resident warps per SM.
        "resident_warps" => KeyRange::new(1, 256),
        // Hardware: 1 (Tesla) to 4 schedulers per SM.
        "schedulers" => KeyRange::new(1, 32),
        // Hardware: 1 or 2 (Kepler's dual issue).
        "issue_width" => KeyRange::new(1, 8),
        // Hardware: 1, or 4 (GT200).
        "issue_interval" => KeyRange::new(1, 64),
        "taken_branch_cycles" | "icache.miss_cycles" => CLOCKS,
        // Hardware: tens of KiB; 0 is not modelled.
        "icache.bytes" => KeyRange::new(0, 1 << 24),
        // 16 and more when the cache is modelled ([`check`]).
        "icache.line_bytes" => KeyRange::new(1, 65536),
        // Machine instructions are 8 or 16 bytes.
        "icache.inst_bytes" => KeyRange::new(1, 64),
        // Run bounds, not hardware: any (u64::MAX is no bound).
        "limits.max_cycles" | "limits.max_instructions" => KeyRange::new(0, u64::MAX),
        _ => return None,
    })
}

/// The message of a value outside its key's range.
pub(super) fn out_of_range(value: u64, r: KeyRange) -> String {
    format!("{value} is out of range: {r}")
}

/// Whether `config` is one the model runs: every key within its [`range`],
/// and a modelled instruction cache's sizes consistent. The message names
/// the key. [`crate::ProgramTables`] (so every [`crate::Sm`] and
/// [`crate::Simulation`]) calls it before allocating anything.
pub fn check(config: &SmConfig) -> Result<(), String> {
    for (key, value) in params(config, SchedPolicy::Lrr) {
        if let (ParamValue::Int(v), Some(r)) = (value, range(&key)) {
            if !r.contains(v) {
                return Err(format!("{key}: {}", out_of_range(v, r)));
            }
        }
    }
    let ic = config.icache;
    // Machine instructions are 8 or 16 bytes and lines tens to hundreds:
    // bounds well beyond those keep the per-fetch line walk short.
    let sizes_ok = (1..=64).contains(&ic.inst_bytes)
        && (16..=65536).contains(&ic.line_bytes)
        && ic.bytes >= ic.line_bytes;
    if ic.modelled() && !sizes_ok {
        return Err(format!(
            "icache: inst_bytes must be 1..=64 (got {}), line_bytes 16..=65536 (got {}), and bytes at least one line (got {}; 0: not modelled)",
            ic.inst_bytes, ic.line_bytes, ic.bytes
        ));
    }
    Ok(())
}

/// `sms` within 1 to [`MAX_SMS`].
pub fn check_sms(sms: u64) -> Result<(), String> {
    if sms == 0 || sms > MAX_SMS as u64 {
        return Err(format!("{sms} SMs: the SM count must be 1 to {MAX_SMS}"));
    }
    Ok(())
}

/// `sms` within 1 to [`MAX_SMS`] and `threads` within 1 to [`MAX_THREADS`].
pub fn check_counts(sms: u64, threads: u64) -> Result<(), String> {
    check_sms(sms)?;
    if threads == 0 || threads > MAX_THREADS as u64 {
        return Err(format!(
            "{threads} threads: the thread count must be 1 to {MAX_THREADS}"
        ));
    }
    Ok(())
}
