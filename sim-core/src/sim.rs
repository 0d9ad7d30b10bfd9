//! Several SMs, simulated independently on worker threads.

use crate::config::{SchedPolicy, SmConfig};
use crate::error::SimError;
use crate::external::External;
use crate::program::{Program, WarpLaunch};
use crate::sm::{ProgramTables, Progress, Sm};
use crate::stats::{Report, Stats};
use sim_isa::WarpRegs;
use std::sync::Arc;

/// Many SMs running one program. Warp `w` runs on SM `w % sms`; SMs share nothing
/// but the program's immutable tables, so the result does not depend on how
/// they are spread over threads.
pub struct Simulation {
    sms: Vec<Sm>,
    policy: SchedPolicy,
    tables: Arc<ProgramTables>,
    stack_size: Option<usize>,
}

/// An SM and where its run's outcome goes.
type Job<'a> = (&'a mut Sm, &'a mut Result<(), SimError>);

impl Simulation {
    /// `sms` SMs (at least 1) of `config`. The program's tables are built once
    /// and shared: memory grows with the program once, and per SM only with
    /// the SM's own warps.
    pub fn new(
        config: SmConfig,
        program: Arc<Program>,
        policy: SchedPolicy,
        sms: usize,
    ) -> Result<Self, SimError> {
        Simulation::from_tables(ProgramTables::new(config, program)?, policy, sms)
    }

    /// `sms` SMs (at least 1) sharing tables built already (for example by
    /// [`ProgramTables::with_machine_code`], machine code from the compiler).
    pub fn from_tables(
        tables: Arc<ProgramTables>,
        policy: SchedPolicy,
        sms: usize,
    ) -> Result<Self, SimError> {
        // Bounded before allocating: each SM holds its own state.
        crate::config_file::check_sms(sms as u64).map_err(SimError::BadConfig)?;
        let sms = (0..sms)
            .map(|i| {
                let mut sm = Sm::from_tables(&tables, policy);
                // SM counts fit u32: each SM is hundreds of bytes at least.
                sm.set_sm_id(i as u32);
                sm
            })
            .collect();
        Ok(Simulation {
            sms,
            policy,
            tables,
            stack_size: None,
        })
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

    /// The shared tables every SM runs from.
    pub fn tables(&self) -> &Arc<ProgramTables> {
        &self.tables
    }

    /// Approximate bytes the simulation holds: the shared tables once, and
    /// every SM's own state ([`Sm::state_bytes`]).
    pub fn state_bytes(&self) -> usize {
        self.tables.heap_bytes() + self.sms.iter().map(Sm::state_bytes).sum::<usize>()
    }

    /// Stack size of the worker threads [`Simulation::run`] starts (`None`:
    /// the platform's default).
    pub fn set_worker_stack_size(&mut self, bytes: Option<usize>) {
        self.stack_size = bytes;
    }

    /// Runs every SM to completion on up to `threads` worker threads (0 or 1:
    /// on the calling thread). SM `i` goes to worker `i % threads`; errors are
    /// reported for the lowest-numbered failing SM. When SMs stop at a run
    /// limit ([`crate::Limits`]), every other SM still runs to its own end,
    /// and the error carries the report of all of them.
    pub fn run(&mut self, threads: usize) -> Result<Report, SimError> {
        let threads = threads.clamp(1, self.sms.len());
        let mut results: Vec<Result<(), SimError>> = vec![Ok(()); self.sms.len()];
        if threads == 1 {
            for (sm, r) in self.sms.iter_mut().zip(&mut results) {
                *r = sm.run_to_completion();
            }
        } else {
            // Deal SMs round-robin to workers; each worker owns disjoint SMs.
            let mut buckets: Vec<Vec<Job<'_>>> = (0..threads).map(|_| Vec::new()).collect();
            for (i, job) in self.sms.iter_mut().zip(results.iter_mut()).enumerate() {
                buckets[i % threads].push(job);
            }
            run_workers(buckets, self.stack_size)?;
        }
        match results.into_iter().find_map(Result::err) {
            None => Ok(self.report()),
            Some(SimError::LimitExceeded { limit, .. }) => Err(SimError::LimitExceeded {
                limit,
                partial: Box::new(self.report()),
            }),
            Some(e) => Err(e),
        }
    }

    /// Every SM's statistics so far, merged.
    pub fn report(&self) -> Report {
        let per_sm: Vec<Stats> = self.sms.iter().map(|s| s.stats()).collect();
        let stats = Stats::merge(&per_sm);
        Report {
            config: self.tables.config().name(),
            policy: self.policy,
            sms: self.sms.len(),
            stats,
            per_sm,
        }
    }

    /// Final registers of warp `warp_id`.
    pub fn warp_regs(&self, warp_id: u32) -> Option<&WarpRegs> {
        self.sms[warp_id as usize % self.sms.len()].warp_regs(warp_id)
    }

    /// The SM that runs warp `warp_id`, for its host hooks ([`Sm::add_host_warp`],
    /// [`Sm::push_instruction`], [`Sm::set_reg`], ...).
    pub fn sm_of(&mut self, warp_id: u32) -> &mut Sm {
        let n = self.sms.len();
        &mut self.sms[warp_id as usize % n]
    }

    /// Marks program instruction `index` as external on every SM ([`Sm::mark_external`]).
    pub fn mark_external(&mut self, index: u32) -> Result<(), SimError> {
        self.sms
            .iter_mut()
            .try_for_each(|sm| sm.mark_external(index))
    }

    /// The clock: the furthest any SM has run.
    pub fn cycle(&self) -> u64 {
        self.sms.iter().map(Sm::cycle).max().unwrap_or(0)
    }

    /// Whether every SM is done ([`Sm::is_done`]).
    pub fn is_done(&self) -> bool {
        self.sms.iter().all(Sm::is_done)
    }

    /// Advances every unfinished SM by one clock, in lockstep on the calling
    /// thread, handing external instructions to `ext` (one host for all SMs,
    /// e.g. a shared memory system; [`crate::ExternalRequest::sm`] names the SM).
    pub fn step(&mut self, ext: &mut dyn External) -> Result<(), SimError> {
        for sm in &mut self.sms {
            if !sm.is_done() {
                sm.step_with(ext)?;
            }
        }
        Ok(())
    }

    /// Steps ([`Simulation::step`]) until every SM is done
    /// ([`Progress::Done`]), or the clock reaches `max_cycle`, or `max_instructions`
    /// warp instructions have issued in all ([`Progress::Reached`]), or a host warp's queue runs dry
    /// or nothing can happen without the host ([`Progress::Waiting`]; see
    /// [`Sm::run_until_idle`]). The configuration's
    /// [`crate::Limits`] still apply, as in [`Simulation::run`].
    pub fn run_until(
        &mut self,
        max_cycle: u64,
        max_instructions: u64,
        ext: &mut dyn External,
    ) -> Result<Progress, SimError> {
        loop {
            if self.is_done() {
                return Ok(Progress::Done);
            }
            if self.sms.iter_mut().any(Sm::take_hungry) {
                return Ok(Progress::Waiting);
            }
            let issued: u64 = self.sms.iter().map(Sm::instructions_issued).sum();
            if self.cycle() >= max_cycle || issued >= max_instructions {
                return Ok(Progress::Reached);
            }
            if let Some(limit) = self.sms.iter().find_map(Sm::limit_reached) {
                return Err(SimError::LimitExceeded {
                    limit,
                    partial: Box::new(self.report()),
                });
            }
            self.step(ext)?;
            if self
                .sms
                .iter()
                .all(|sm| sm.is_done() || sm.waits_for_host())
                && !self.is_done()
            {
                return Ok(Progress::Waiting);
            }
        }
    }
}

/// Runs each bucket of SMs on a worker thread of its own. A worker the OS
/// refuses to start is an error (the workers already started still finish
/// first), as is one that panicked.
fn run_workers(buckets: Vec<Vec<Job<'_>>>, stack_size: Option<usize>) -> Result<(), SimError> {
    let threads = buckets.len();
    std::thread::scope(|scope| {
        let mut handles = Vec::with_capacity(threads);
        let mut refused = None;
        for (index, bucket) in buckets.into_iter().enumerate() {
            let mut builder = std::thread::Builder::new().name(format!("sim-worker-{index}"));
            if let Some(bytes) = stack_size {
                builder = builder.stack_size(bytes);
            }
            let work = move || {
                for (sm, r) in bucket {
                    *r = sm.run_to_completion();
                }
            };
            match builder.spawn_scoped(scope, work) {
                Ok(h) => handles.push(h),
                Err(e) => {
                    refused = Some(SimError::ThreadSpawn {
                        index,
                        threads,
                        reason: e.to_string(),
                    });
                    break;
                }
            }
        }
        // Joined here, so a panic is reported rather than re-raised by the scope.
        let mut panicked = false;
        for h in handles {
            panicked |= h.join().is_err();
        }
        match refused {
            Some(e) => Err(e),
            None if panicked => Err(SimError::WorkerPanicked),
            None => Ok(()),
        }
    })
}
