//! Replaying a recording: the engine runs the recorded warps as a launch
//! runs, each following its recorded steps with its loads answered from the
//! record, so cycles and outputs are the direct run's.

use super::{compare_outputs, RecWarp, RecordError, Recording};
use crate::prepare::Prepared;
use crate::run::{run_engine, LaunchRun, RunOptions};
use crate::KernelError;
use sim_isa::Target;
use sim_module::parse_module;
use std::sync::Arc;

/// Replays `rec` (read from the file `name`) with `opts`. The result's
/// `mismatches` compare the re-executed outputs with the recorded final
/// bytes.
pub fn replay(name: &str, rec: &Recording, opts: &RunOptions) -> Result<LaunchRun, RecordError> {
    let invalid = |msg: String| RecordError::Invalid {
        name: name.to_string(),
        msg,
    };
    let module = parse_module(&rec.module, &rec.module_name)?;
    let launch = rec.launch();
    let data = rec
        .buffers
        .iter()
        .map(|b| match &b.output {
            Some((initial, _)) => initial.clone(),
            None => vec![0u8; b.bytes as usize],
        })
        .collect();
    let prep = Prepared::new(&module, &launch, data)?;
    let n = prep.body.statements.len();
    let mut instructions = 0u64;
    for (i, w) in rec.warps.iter().enumerate() {
        check_steps(w, n).map_err(|m| invalid(format!("warps[{i}].{m}")))?;
        instructions += w.steps.len() as u64;
    }
    if instructions > opts.max_instructions {
        return Err(KernelError::InstructionLimit {
            limit: opts.max_instructions,
            waiting: Vec::new(),
        }
        .into());
    }
    Target::parse(&rec.target).map_err(|e| invalid(format!("target: {e}")))?;
    let warps: Arc<[RecWarp]> = rec.warps.clone().into();
    let grid = run_engine(&prep, &launch, opts, Some((warps, Arc::from(name))))?;
    let buffers = grid.global.buffer_bytes(&prep.buffers);
    let mismatches = compare_outputs(rec, &buffers);
    Ok(LaunchRun {
        launch,
        buffers,
        warps: grid.warps,
        instructions: grid.instructions,
        timed: grid.timed,
        mismatches,
        module_name: rec.module_name.clone(),
        recorded: Vec::new(),
    })
}

/// Statement indices checked against the kernel's `n` statements.
fn check_steps(w: &RecWarp, n: usize) -> Result<(), String> {
    for (k, &(stmt, _)) in w.steps.iter().enumerate() {
        if stmt as usize >= n {
            return Err(format!(
                "steps[{k}]: statement {stmt} is past the kernel's {n} statements"
            ));
        }
    }
    Ok(())
}
