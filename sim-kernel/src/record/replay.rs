//! Replaying a recording: the engine runs the recorded warps as a launch
//! runs, each following its recorded steps with its loads answered from the
//! record, so cycles and outputs are the direct run's. Warps are read from
//! the file as their blocks become resident and dropped when they retire.

use super::{compare_outputs, RecordError, RecordReader, Recording};
use crate::engine::Warps;
use crate::prepare::Prepared;
use crate::run::{run_engine, LaunchRun, RunOptions};
use crate::KernelError;
use sim_isa::Target;
use std::io::Read;
use std::sync::Arc;

/// A replayed recording.
pub struct Replayed {
    /// The run; its `mismatches` compare the re-executed outputs with the
    /// recorded final bytes.
    pub run: LaunchRun,
    /// Cycles of the recorded run (the trailer's).
    pub recorded_cycles: u64,
}

/// Replays the recording `rec` reads with `opts`, reading each warp as its
/// block becomes resident, then the trailer.
pub fn replay_stream<R: Read>(
    mut rec: RecordReader<R>,
    opts: &RunOptions,
) -> Result<Replayed, RecordError> {
    let name = rec.name().to_string();
    let h = rec.header();
    Target::parse(&h.target).map_err(|e| RecordError::Invalid {
        name: name.clone(),
        msg: format!("target: {e}"),
    })?;
    let launch = h.launch();
    // The module and launch come from the recording's header: what they
    // refuse makes the recording invalid, and the error names its file.
    let invalid = |part: &str, e: &dyn std::fmt::Display| RecordError::Invalid {
        name: name.clone(),
        msg: format!("the recorded {part}: {e}"),
    };
    let module = crate::prepare::load_module(&h.module, &h.module_name, &launch.entry)
        .map_err(|e| invalid("module", &e))?;
    let module_name = h.module_name.clone();
    let data = rec.take_initial();
    let mut prep = Prepared::new(&module, &launch, data).map_err(|e| invalid("launch", &e))?;
    let global = std::mem::take(&mut prep.global);
    rec.check_flow(super::flow::Flow::new(&prep));
    let mut failed = None;
    let mut next = || {
        rec.next_warp().map_err(|e| {
            let msg = e.to_string();
            failed = Some(e);
            KernelError::Limit(msg)
        })
    };
    let grid = run_engine(
        &prep,
        global,
        &launch,
        opts,
        Warps::Follow(&mut next, Arc::from(name.as_str())),
    );
    let grid = match (grid, failed) {
        (_, Some(e)) => return Err(e),
        (g, None) => g?,
    };
    let (header, trailer) = rec.finish()?;
    let buffers = grid.global.into_buffer_bytes(&prep.buffers);
    let mismatches = compare_outputs(&header, &trailer, &buffers);
    Ok(Replayed {
        run: LaunchRun {
            launch,
            buffers,
            warps: grid.warps,
            instructions: grid.instructions,
            timed: grid.timed,
            mismatches,
            module_name,
            recorded: Vec::new(),
            // A replay does not run `printf` (its loads come from the recording).
            printf: grid.printf,
            printf_dropped: grid.printf_dropped,
        },
        recorded_cycles: trailer.cycles,
    })
}

/// Replays `rec` (read from the file `name`) with `opts`.
pub fn replay(name: &str, rec: &Recording, opts: &RunOptions) -> Result<Replayed, RecordError> {
    let bytes = rec.to_bytes()?;
    replay_stream(RecordReader::open(name, &bytes[..])?, opts)
}
