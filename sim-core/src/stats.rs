//! Statistics of one SM, their merge over SMs, and the report of a run.

use crate::config::SchedPolicy;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What each scheduler did in each of its issue slots (GT200: one slot per 4 clocks).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stalls {
    /// No warp had an instruction to issue (none resident, finished, or waiting for its stream).
    pub no_eligible: u64,
    /// Warps had instructions but each waited on a register or predicate (or its own micro-op chain).
    pub dependency: u64,
    /// A warp was ready but a pipe it needs was busy.
    pub unit_busy: u64,
    /// At least one micro-op issued.
    pub issued: u64,
}

impl Stalls {
    /// Sum of all four counters: the number of issue slots.
    pub fn total(&self) -> u64 {
        self.no_eligible + self.dependency + self.unit_busy + self.issued
    }
    /// Adds `o`'s counters to these.
    pub(crate) fn add(&mut self, o: &Stalls) {
        self.no_eligible += o.no_eligible;
        self.dependency += o.dependency;
        self.unit_busy += o.unit_busy;
        self.issued += o.issued;
    }
}

/// One pipe (functional-unit class).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UnitStats {
    /// Warp machine instructions executed on this pipe.
    pub ops: u64,
    /// Capacity: 32-bit lanes per clock per SM.
    pub lanes_per_sm: u32,
    /// `ops * 32 / (lanes_per_sm * cycles * sms)`: fraction of the class's lane-cycles used.
    pub utilisation: f64,
}

/// Per-opcode counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpStats {
    /// Warp instructions issued.
    pub count: u64,
    /// Active lanes whose guard held.
    pub thread_instructions: u64,
    /// Machine instructions issued for them.
    pub micro_ops: u64,
    /// Sum over instructions of cycles from first issue to result ready.
    pub latency_sum: u64,
    /// Smallest such latency.
    pub latency_min: u64,
    /// Largest such latency.
    pub latency_max: u64,
}

impl OpStats {
    /// Mean latency (0 when no instruction).
    pub fn latency_mean(&self) -> f64 {
        ratio(self.latency_sum, self.count)
    }
    /// Adds `n` issues of one instruction (`threads` summed over them).
    pub(crate) fn record(&mut self, n: u64, threads: u64, uops: u64, latency: u64) {
        if n == 0 {
            return;
        }
        if self.count == 0 || latency < self.latency_min {
            self.latency_min = latency;
        }
        self.latency_max = self.latency_max.max(latency);
        self.count += n;
        self.thread_instructions += threads;
        self.micro_ops += n * uops;
        self.latency_sum += n * latency;
    }
    /// Adds `n` issues of one instruction whose latencies were measured
    /// one by one (`m`: a memory instruction the host timed).
    pub(crate) fn record_measured(&mut self, n: u64, threads: u64, uops: u64, m: &Measured) {
        if n == 0 {
            return;
        }
        self.merge(&OpStats {
            count: n,
            thread_instructions: threads,
            micro_ops: n * uops,
            latency_sum: m.sum,
            latency_min: if m.count == 0 { 0 } else { m.min },
            latency_max: m.max,
        });
    }
    fn merge(&mut self, o: &OpStats) {
        if o.count == 0 {
            return;
        }
        if self.count == 0 || o.latency_min < self.latency_min {
            self.latency_min = o.latency_min;
        }
        self.latency_max = self.latency_max.max(o.latency_max);
        self.count += o.count;
        self.thread_instructions += o.thread_instructions;
        self.micro_ops += o.micro_ops;
        self.latency_sum += o.latency_sum;
    }
}

/// Latencies measured one instruction at a time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Measured {
    pub count: u64,
    pub sum: u64,
    pub min: u64,
    pub max: u64,
}

impl Measured {
    /// Adds one latency.
    #[inline]
    pub fn add(&mut self, d: u64) {
        self.min = if self.count == 0 { d } else { self.min.min(d) };
        self.max = self.max.max(d);
        self.sum += d;
        self.count += 1;
    }
}

/// Statistics of one SM or, merged, of several. Every map is a `BTreeMap`
/// so serialised output is ordered and deterministic.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// SMs merged into this record (1 for one SM).
    pub sms: u64,
    /// Clocks until the last warp finished (the slowest SM's, when merged).
    pub cycles: u64,
    /// PTX warp instructions issued.
    pub warp_instructions: u64,
    /// Active lanes whose guard held, summed over warp instructions.
    pub thread_instructions: u64,
    /// Machine instructions issued (equals `warp_instructions` where all are native).
    pub micro_ops: u64,
    /// Warp instructions per cycle, over all SMs merged.
    pub ipc: f64,
    /// Micro-ops issued by scheduler `i` (summed over SMs for scheduler index `i`).
    pub scheduler_issues: Vec<u64>,
    /// Issue-slot outcome counts, summed over schedulers (and SMs).
    pub stalls: Stalls,
    /// Per functional-unit class, by name.
    pub units: BTreeMap<String, UnitStats>,
    /// Per PTX opcode, by mnemonic.
    pub per_opcode: BTreeMap<String, OpStats>,
    /// Warp machine instructions per machine opcode (`IMAD.IADD`, `PRMT`: the
    /// opcode with the modifiers that change its pipe or latency). Empty where
    /// there is no machine-code table (sm_1x).
    pub per_machine_opcode: BTreeMap<String, u64>,
    /// Instruction-cache lines fetched that were not resident
    /// ([`crate::ICache`]); 0, and left out of JSON, where the program fits
    /// the cache or none is modelled.
    #[serde(skip_serializing_if = "is_zero", default)]
    pub icache_misses: u64,
    /// Warp-cycles by stall reason (Nsight Compute's names), summing to the
    /// resident warp-cycles ([`crate::warp_states`]).
    #[serde(default)]
    pub warp_stalls: crate::WarpStalls,
    /// Per program instruction: issues, threads and stall cycles.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_inst: Vec<crate::InstProfile>,
    /// Issues per SM over time (the first SMs).
    #[serde(default)]
    pub activity: crate::Activity,
}

/// `num / den`, 0 when `den` is 0 (nothing counted yet).
fn ratio(num: u64, den: u64) -> f64 {
    if den == 0 {
        0.0
    } else {
        num as f64 / den as f64
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Stats {
    /// Warp instructions per cycle (all SMs together).
    pub fn ipc(&self) -> f64 {
        ratio(self.warp_instructions, self.cycles)
    }

    /// Recomputes derived fields (`ipc`, utilisation) from the counters.
    pub fn finish(&mut self) {
        self.ipc = self.ipc();
        let denom = self.cycles as f64 * self.sms.max(1) as f64;
        for u in self.units.values_mut() {
            u.utilisation = if u.lanes_per_sm == 0 || denom == 0.0 {
                0.0
            } else {
                u.ops as f64 * 32.0 / (u.lanes_per_sm as f64 * denom)
            };
        }
    }

    /// Merges SM records in order: counters add, cycles take the maximum.
    pub fn merge<'a>(parts: impl IntoIterator<Item = &'a Stats>) -> Stats {
        let mut m = Stats::default();
        for s in parts {
            m.sms += s.sms;
            m.cycles = m.cycles.max(s.cycles);
            m.warp_instructions += s.warp_instructions;
            m.thread_instructions += s.thread_instructions;
            m.micro_ops += s.micro_ops;
            if m.scheduler_issues.len() < s.scheduler_issues.len() {
                m.scheduler_issues.resize(s.scheduler_issues.len(), 0);
            }
            for (a, b) in m.scheduler_issues.iter_mut().zip(&s.scheduler_issues) {
                *a += b;
            }
            m.stalls.add(&s.stalls);
            m.icache_misses += s.icache_misses;
            m.warp_stalls.add(&s.warp_stalls);
            crate::warp_states::merge_profiles(&mut m.per_inst, &s.per_inst);
            m.activity.append(&s.activity);
            for (k, u) in &s.units {
                let e = m.units.entry(k.clone()).or_insert(UnitStats {
                    lanes_per_sm: u.lanes_per_sm,
                    ..Default::default()
                });
                e.ops += u.ops;
            }
            for (k, o) in &s.per_opcode {
                m.per_opcode.entry(k.clone()).or_default().merge(o);
            }
            for (k, n) in &s.per_machine_opcode {
                *m.per_machine_opcode.entry(k.clone()).or_default() += n;
            }
        }
        m.finish();
        m
    }
}

/// The result of a [`crate::Simulation::run`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// The configuration's name ([`crate::SmConfig::name`], `"sm_53 (GM20B)"`), for display.
    pub config: String,
    /// The scheduling policy.
    pub policy: SchedPolicy,
    /// Number of SMs.
    pub sms: usize,
    /// Merged statistics (cycles: the slowest SM).
    pub stats: Stats,
    /// Each SM's statistics, in SM order.
    pub per_sm: Vec<Stats>,
}
