//! Replays a [`Trace`] through sim-core.

use crate::trace::Trace;
use sim_core::{
    preset, IssueEvent, Limits, Program, ProgramTables, Report, SchedPolicy, SimError, Simulation,
    SmConfig, WarpLaunch,
};
use sim_isa::{Target, WarpRegs};
use std::sync::Arc;

/// Default `max_cycles`: sim-core's, far beyond real kernels (see `docs/robustness.md`).
pub const DEFAULT_MAX_CYCLES: u64 = Limits::DEFAULT.max_cycles;
/// Default `max_instructions` (warp instructions per SM): sim-core's.
pub const DEFAULT_MAX_INSTRUCTIONS: u64 = Limits::DEFAULT.max_instructions;

/// How to run.
#[derive(Clone, Copy, Debug)]
pub struct RunOptions {
    /// Target (preset and semantics).
    pub target: Target,
    /// SMs.
    pub sms: usize,
    /// Worker threads.
    pub threads: usize,
    /// Scheduler policy.
    pub policy: SchedPolicy,
    /// The clock an SM may reach with work left.
    pub max_cycles: u64,
    /// Warp instructions an SM may issue with work left.
    pub max_instructions: u64,
}

impl RunOptions {
    /// One SM, one thread, loose round-robin, the default limits.
    pub fn new(target: Target) -> Self {
        RunOptions {
            target,
            sms: 1,
            threads: 1,
            policy: SchedPolicy::Lrr,
            max_cycles: DEFAULT_MAX_CYCLES,
            max_instructions: DEFAULT_MAX_INSTRUCTIONS,
        }
    }
}

/// Why a replay did not complete.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ReplayError {
    /// The SM model refused the program or the launch.
    #[error(transparent)]
    Sim(#[from] SimError),
    /// A run limit stopped the simulation; `partial` holds the statistics so far.
    #[error("{message}")]
    Limit {
        /// Which limit, in words.
        message: String,
        /// The statistics of the stopped run.
        partial: Box<Report>,
    },
}

/// Simulates `trace` on `opts.target`'s preset with `opts`' limits; returns
/// the report and every warp's final registers. Callers check the target
/// first ([`Trace::check_target`]).
pub fn simulate(trace: &Trace, opts: &RunOptions) -> Result<(Report, Vec<WarpRegs>), ReplayError> {
    let mut config = preset(opts.target);
    config.limits = Limits {
        max_cycles: opts.max_cycles,
        max_instructions: opts.max_instructions,
    };
    let r = replay(trace, config, opts, 0)?;
    Ok((r.report, r.regs))
}

/// A finished replay.
pub struct Replay {
    /// The statistics.
    pub report: Report,
    /// Every warp's final registers, in warp order.
    pub regs: Vec<WarpRegs>,
    /// Per SM, its first instruction starts (as many as asked for).
    pub issues: Vec<Vec<IssueEvent>>,
    /// The program's tables (per-instruction timing for the issue log).
    pub tables: Arc<ProgramTables>,
}

/// Simulates `trace` on `config` (its target gives the semantics, its limits
/// bound the run; `opts.target` and `opts`' limits are not used), recording
/// up to `issue_log` instruction starts per SM.
pub fn replay(
    trace: &Trace,
    config: SmConfig,
    opts: &RunOptions,
    issue_log: usize,
) -> Result<Replay, ReplayError> {
    replay_with_code(trace, config, opts, issue_log, Vec::new())
}

/// As [`replay`], with machine code given per static instruction (`None`:
/// the table's), as [`crate::compiler::lower`] reads it from the compiler
/// ([`ProgramTables::with_machine_code`]).
pub fn replay_with_code(
    trace: &Trace,
    config: SmConfig,
    opts: &RunOptions,
    issue_log: usize,
    code: Vec<Option<sim_core::sass_table::Row>>,
) -> Result<Replay, ReplayError> {
    let program = Arc::new(Program {
        target: config.target,
        insts: trace.insts.clone(),
        nregs: trace.nregs(),
    });
    let tables = ProgramTables::with_machine_code(config, program, code)?;
    let mut sim = Simulation::from_tables(tables, opts.policy, opts.sms)?;
    if issue_log > 0 {
        for sm in sim.sms_mut() {
            sm.record_issues(issue_log);
        }
    }
    for (w, rec) in trace.warps.iter().enumerate() {
        sim.add_warp(WarpLaunch {
            warp_id: w as u32,
            active: rec.mask,
            stream: Box::new(trace.cursor(w)),
        })?;
    }
    let report = match sim.run(opts.threads) {
        Ok(r) => r,
        Err(e) => {
            let message = e.to_string();
            return Err(match e {
                SimError::LimitExceeded { partial, .. } => ReplayError::Limit { message, partial },
                e => ReplayError::Sim(e),
            });
        }
    };
    let regs = (0..trace.warps.len() as u32)
        .map(|w| sim.warp_regs(w).cloned().unwrap_or_default())
        .collect();
    let issues = sim
        .sms_mut()
        .iter()
        .map(|sm| sm.issue_log().to_vec())
        .collect();
    Ok(Replay {
        report,
        regs,
        issues,
        tables: sim.tables().clone(),
    })
}
