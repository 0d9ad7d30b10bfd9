//! Replays a [`Trace`] through sim-core.

use crate::trace::Trace;
use sim_core::{preset, Program, Report, SchedPolicy, SimError, Simulation, WarpLaunch};
use sim_isa::{Target, WarpRegs};
use std::sync::Arc;

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
}

/// Simulates `trace`; returns the report and every warp's final registers.
/// Callers check the target first ([`Trace::check_target`]).
pub fn simulate(trace: &Trace, opts: &RunOptions) -> Result<(Report, Vec<WarpRegs>), SimError> {
    let program = Arc::new(Program {
        target: opts.target,
        insts: trace.insts.clone(),
        nregs: trace.nregs(),
    });
    let mut sim = Simulation::new(preset(opts.target), program, opts.policy, opts.sms)?;
    for (w, rec) in trace.warps.iter().enumerate() {
        sim.add_warp(WarpLaunch {
            warp_id: w as u32,
            active: rec.mask,
            stream: Box::new(trace.cursor(w)),
        })?;
    }
    let report = sim.run(opts.threads)?;
    let regs = (0..trace.warps.len() as u32)
        .map(|w| sim.warp_regs(w).cloned().unwrap_or_default())
        .collect();
    Ok((report, regs))
}
