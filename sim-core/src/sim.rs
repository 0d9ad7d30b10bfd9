//! Several SMs, simulated independently on worker threads.

use crate::config::{SchedPolicy, SmConfig};
use crate::sm::Sm;
use crate::stats::Stats;
use crate::{Program, SimError, WarpLaunch};
use serde::Serialize;
use sim_isa::WarpRegs;
use std::sync::Arc;

/// The result of a [`Simulation::run`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// The configuration's name (`"sm_53 (GM20B)"`).
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

/// Many SMs running one program. Warp `w` runs on SM `w % sms`; SMs share nothing,
/// so the result does not depend on how they are spread over threads.
pub struct Simulation {
    sms: Vec<Sm>,
    policy: SchedPolicy,
    name: String,
}

impl Simulation {
    /// `sms` SMs (at least 1) of `config`.
    pub fn new(
        config: SmConfig,
        program: Arc<Program>,
        policy: SchedPolicy,
        sms: usize,
    ) -> Result<Self, SimError> {
        if sms == 0 {
            return Err(SimError::BadConfig("at least one SM is needed".into()));
        }
        let name = config.name.clone();
        let sms = (0..sms)
            .map(|_| Sm::new(config.clone(), program.clone(), policy))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Simulation { sms, policy, name })
    }

    /// Adds a warp to SM `warp_id % sms`.
    pub fn add_warp(&mut self, launch: WarpLaunch) -> Result<(), SimError> {
        let n = self.sms.len();
        self.sms[launch.warp_id as usize % n].add_warp(launch)
    }

    /// The SMs, in order (for embedding hosts that want per-SM control).
    pub fn sms_mut(&mut self) -> &mut [Sm] {
        &mut self.sms
    }

    /// Runs every SM to completion on up to `threads` worker threads (0 or 1:
    /// on the calling thread). SM `i` goes to worker `i % threads`; errors are
    /// reported for the lowest-numbered failing SM.
    pub fn run(&mut self, threads: usize) -> Result<Report, SimError> {
        let threads = threads.clamp(1, self.sms.len());
        let mut results: Vec<Result<(), SimError>> = vec![Ok(()); self.sms.len()];
        if threads == 1 {
            for (sm, r) in self.sms.iter_mut().zip(&mut results) {
                *r = sm.run_to_completion();
            }
        } else {
            // Deal SMs round-robin to workers; each worker owns disjoint SMs.
            let mut buckets: Vec<Vec<(&mut Sm, &mut Result<(), SimError>)>> =
                (0..threads).map(|_| Vec::new()).collect();
            for (i, pair) in self.sms.iter_mut().zip(results.iter_mut()).enumerate() {
                buckets[i % threads].push(pair);
            }
            crossbeam::scope(|scope| {
                for bucket in buckets {
                    scope.spawn(move |_| {
                        for (sm, r) in bucket {
                            *r = sm.run_to_completion();
                        }
                    });
                }
            })
            .map_err(|_| SimError::WorkerPanicked)?;
        }
        for r in results {
            r?;
        }
        let per_sm: Vec<Stats> = self.sms.iter().map(|s| s.stats()).collect();
        let stats = Stats::merge(&per_sm);
        Ok(Report {
            config: self.name.clone(),
            policy: self.policy,
            sms: self.sms.len(),
            stats,
            per_sm,
        })
    }

    /// Final registers of warp `warp_id`.
    pub fn warp_regs(&self, warp_id: u32) -> Option<&WarpRegs> {
        self.sms[warp_id as usize % self.sms.len()].warp_regs(warp_id)
    }
}
