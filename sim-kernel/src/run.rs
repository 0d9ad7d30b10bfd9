//! A whole launch: read the launch file and its module, execute, time,
//! and compare the outputs with the expected bytes.

use crate::error::KernelError;
use crate::exec::{execute, ExecOptions, Executed};
use crate::memtime::{CacheModel, MemConfig};
use crate::prepare::Prepared;
use crate::timing::{time, Timed};
use crate::{compare, Mismatch};
use sim_core::{SchedPolicy, SmConfig};
use sim_module::{parse_module, Launch, LaunchError, ModuleError};
use std::path::Path;

/// Why a launch could not run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The launch file.
    #[error("{path}: {source}")]
    Launch {
        /// The launch file.
        path: String,
        /// What is wrong.
        source: LaunchError,
    },
    /// The module could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The module file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The module does not parse.
    #[error(transparent)]
    Module(#[from] ModuleError),
    /// Execution or timing stopped.
    #[error(transparent)]
    Kernel(#[from] KernelError),
}

/// How to run a launch.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// The SM configuration (its target is the execution target).
    pub config: SmConfig,
    /// Warp scheduling policy.
    pub policy: SchedPolicy,
    /// SMs the blocks are dealt to.
    pub sms: u32,
    /// Most warp-instructions the launch may execute.
    pub max_instructions: u64,
    /// The memory hierarchy's figures.
    pub memory: MemConfig,
    /// Keep the values loads return (a recording needs them; each is 8
    /// bytes per lane beyond the bound's figure below).
    pub log_loads: bool,
}

/// Default bound on a launch's warp-instructions: each is recorded for the
/// timing pass (12 bytes, plus about 270 per memory instruction).
pub const DEFAULT_MAX_INSTRUCTIONS: u64 = 50_000_000;

impl RunOptions {
    /// `config` with the memory preset of its target; at most
    /// [`DEFAULT_MAX_INSTRUCTIONS`] warp-instructions, or the
    /// configuration's limit if lower.
    pub fn new(config: SmConfig, policy: SchedPolicy, sms: u32) -> RunOptions {
        RunOptions {
            max_instructions: config.limits.max_instructions.min(DEFAULT_MAX_INSTRUCTIONS),
            memory: MemConfig::preset(config.target),
            config,
            policy,
            sms,
            log_loads: false,
        }
    }
}

/// A finished launch.
pub struct LaunchRun {
    /// The launch file.
    pub launch: Launch,
    /// The kernel's final buffers, in launch-file order.
    pub buffers: Vec<Vec<u8>>,
    /// The executed warps' record.
    pub executed: Executed,
    /// Cycles.
    pub timed: Timed,
    /// Output buffers that differ from their expected bytes.
    pub mismatches: Vec<Mismatch>,
    /// The module file name as errors name it.
    pub module_name: String,
}

/// Runs the launch file at `path`.
pub fn run_launch(path: &Path, opts: &RunOptions) -> Result<LaunchRun, RunError> {
    let lerr = |source| RunError::Launch {
        path: path.display().to_string(),
        source,
    };
    let launch = Launch::read(path).map_err(lerr)?;
    let module_name = launch.ptx.display().to_string();
    let src = std::fs::read(&launch.ptx).map_err(|source| RunError::Io {
        path: module_name.clone(),
        source,
    })?;
    let src = String::from_utf8_lossy(&src);
    let module = parse_module(&src, &module_name)?;
    let data = launch.load_buffers().map_err(lerr)?;
    let prep = Prepared::new(&module, &launch, data)?;
    let eo = ExecOptions {
        target: opts.config.target,
        max_instructions: opts.max_instructions,
        sms: opts.sms,
        log_loads: opts.log_loads,
    };
    let first = execute(&prep, &launch, &eo, &[])?;
    // Launch buffers start in DRAM, not L2: see `CacheModel::new`.
    let mut mem = CacheModel::new(opts.memory.clone(), opts.sms, &[]);
    let timed = time(&prep, &first, &opts.config, opts.policy, opts.sms, &mut mem)?;
    // Clock reads now have their cycles: run again so the kernel stores them.
    let executed = if timed.clocks.iter().any(|c| !c.is_empty()) {
        execute(&prep, &launch, &eo, &timed.clocks)?
    } else {
        first
    };
    let buffers = executed.buffer_bytes(&prep.buffers);
    let expected = launch.load_expected().map_err(lerr)?;
    let mismatches = expected
        .iter()
        .filter_map(|(b, want)| compare(&launch.buffers[*b].name, &buffers[*b], want))
        .collect();
    Ok(LaunchRun {
        launch,
        buffers,
        executed,
        timed,
        mismatches,
        module_name,
    })
}
