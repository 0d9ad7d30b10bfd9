//! A whole launch: read the launch file and its module, run the grid on
//! the engine, and compare the outputs with the expected bytes.

use crate::engine::{self, Finished, Warps};
use crate::error::KernelError;
use crate::memtime::{Gpu, MemConfig};
use crate::prepare::Prepared;
use crate::rec::RecWarp;
use crate::timing::Timed;
use crate::{compare, Mismatch};
use sim_core::{SchedPolicy, SmConfig};
use sim_module::{Launch, LaunchError, ModuleError};
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
    /// The module could not be read, or is longer than
    /// [`sim_module::MAX_MODULE_BYTES`] (counted while reading).
    #[error(transparent)]
    Read(#[from] sim_isa::bounded::ReadError),
    /// The module does not parse.
    #[error(transparent)]
    Module(#[from] ModuleError),
    /// Execution or timing stopped.
    #[error(transparent)]
    Kernel(#[from] KernelError),
}

// `engine::Options` names several of these fields again: the engine's
// borrowed view of a launch's options (`engine_options`), without the
// memory model's and the recorder's (issue 27).
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
    /// Keep what every warp executed and the values its loads returned in
    /// `recorded` (memory then grows with the launch;
    /// [`crate::record::record_launch`] streams them to a file instead).
    pub log_loads: bool,
    /// Host threads the SMs run on: results are the same for any number.
    pub threads: usize,
    /// Time a few SMs and run the rest functionally (values exact,
    /// cycles estimated: [`crate::engine::Sampled`]), for launches of more
    /// than [`crate::engine::SAMPLE_MIN_BLOCKS`] blocks.
    pub sample: bool,
    /// How many SMs `sample` times, spread over the GPU (at least one;
    /// none sampled unless fewer than `sms`); `None`:
    /// [`crate::engine::SAMPLE_SMS`].
    pub sample_sms: Option<u32>,
    /// Record at most this many timeline events per SM (`--timeline`;
    /// 0: none): `Timed::timeline`.
    pub timeline: usize,
    /// Keep the final registers of this block (linear index in the grid)
    /// in `Timed::regs` (`--dump-regs`).
    pub dump_block: Option<u32>,
    /// Registers a thread, in place of the launch file's `registers`
    /// (simcli's `--regs`); where neither says, registers do not limit
    /// residency.
    pub registers: Option<u32>,
    /// The launch's buffers start in L2, as far as it holds them
    /// (simcli's `--warm`), as when a kernel wrote them or a warm-up
    /// launch read them just before (the whole-grid H200 measurements:
    /// `tools/gpu/bench/grid.cu` generates the inputs on the GPU and runs
    /// the kernel once untimed). Otherwise they start in DRAM, as just
    /// copied from the host (`memtime`).
    pub warm: bool,
    /// Machine code for each kernel launched in place of the table's rows
    /// (simcli's `--lowering compiler`); `None`: the table's.
    pub machine_code: Option<crate::lowering::MachineCode>,
}

impl RunOptions {
    /// The engine's options for a launch under these.
    pub(crate) fn engine_options(&self) -> engine::Options<'_> {
        engine::Options {
            target: self.config.target,
            config: &self.config,
            policy: self.policy,
            sms: self.sms,
            threads: self.threads,
            max_instructions: self.max_instructions,
            sample: self.sample,
            sample_sms: self.sample_sms,
            timeline: self.timeline,
            dump_block: self.dump_block,
            registers: self.registers,
            envreg: [0; 32],
            machine_code: self.machine_code.as_ref(),
        }
    }

    /// `config` with the memory preset of its target, at most the
    /// configuration's `limits.max_instructions` warp-instructions.
    pub fn new(config: SmConfig, policy: SchedPolicy, sms: u32) -> RunOptions {
        RunOptions {
            max_instructions: config.limits.max_instructions,
            memory: MemConfig::preset(config.target),
            config,
            policy,
            sms,
            log_loads: false,
            threads: 1,
            sample: false,
            sample_sms: None,
            timeline: 0,
            dump_block: None,
            registers: None,
            warm: false,
            machine_code: None,
        }
    }
}

/// A grid that ran.
pub struct GridRun {
    /// The final global memory.
    pub global: crate::memory::Global,
    /// Warps in the grid.
    pub warps: u64,
    /// Warp-instructions executed (dead ones included).
    pub instructions: u64,
    /// Cycles.
    pub timed: Timed,
    /// What each warp executed, in grid order (with `log_loads`).
    pub recorded: Vec<RecWarp>,
    /// What device `printf` printed ([`crate::printf`]).
    pub printf: Vec<u8>,
    /// `printf` calls dropped past [`crate::printf::FIFO_BYTES`].
    pub printf_dropped: u64,
}

/// A finished launch.
pub struct LaunchRun {
    /// The launch file.
    pub launch: Launch,
    /// The kernel's final buffers, in launch-file order.
    pub buffers: Vec<Vec<u8>>,
    /// Warps in the grid.
    pub warps: u64,
    /// Warp-instructions executed.
    pub instructions: u64,
    /// Cycles.
    pub timed: Timed,
    /// Output buffers that differ from their expected bytes.
    pub mismatches: Vec<Mismatch>,
    /// The module file name as errors name it.
    pub module_name: String,
    /// What each warp executed (with `log_loads`), for a recording.
    pub recorded: Vec<RecWarp>,
    /// What device `printf` printed ([`crate::printf`]).
    pub printf: Vec<u8>,
    /// `printf` calls dropped past [`crate::printf::FIFO_BYTES`].
    pub printf_dropped: u64,
}

/// Runs `launch` on `prep`: every block on the engine ([`crate::engine`]).
/// With `log_loads`, `recorded` holds every warp (grid order).
pub fn run_grid(
    prep: &Prepared<'_>,
    launch: &Launch,
    opts: &RunOptions,
) -> Result<GridRun, KernelError> {
    // `prep` stays as it was (a caller may run it again): the run starts
    // from a copy of its global space.
    run_grid_from(prep, prep.global.clone(), launch, opts)
}

/// [`run_grid`] from the global space `global`.
fn run_grid_from(
    prep: &Prepared<'_>,
    global: crate::memory::Global,
    launch: &Launch,
    opts: &RunOptions,
) -> Result<GridRun, KernelError> {
    if !opts.log_loads {
        return run_engine(prep, global, launch, opts, Warps::None);
    }
    let mut all = Vec::new();
    let mut keep = |w: RecWarp| {
        all.push(w);
        Ok(())
    };
    let mut grid = run_engine(prep, global, launch, opts, Warps::Log(&mut keep))?;
    all.sort_by_key(|w| (w.cta, w.warp));
    grid.recorded = all;
    Ok(grid)
}

/// Runs the grid on the engine from the global space `global` (the
/// launch's, `Prepared::global`, taken rather than copied where the
/// prepared launch runs once: the buffers are then held once); recorded
/// warps go to or come from `warps`.
pub(crate) fn run_engine(
    prep: &Prepared<'_>,
    global: crate::memory::Global,
    launch: &Launch,
    opts: &RunOptions,
    mut warps: Warps<'_>,
) -> Result<GridRun, KernelError> {
    crate::gate::check(prep, opts.config.target)?;
    let mut global = global;
    if crate::heap::calls_heap(prep.body) {
        // Device `malloc`'s heap, after the launch's buffers and variables.
        let place = |g: &mut crate::memory::Global, n: u64| {
            Ok::<_, KernelError>(g.alloc(crate::heap::HEAP_NAME, vec![0; n as usize]))
        };
        global.ensure_heap(crate::heap::DEFAULT_HEAP_BYTES, place)?;
    }
    // Launch buffers start in DRAM, not L2 (see `memtime`), unless the
    // launch runs warm.
    let mut gpu = Gpu::new(opts.memory.clone(), &resident(&global, opts.warm));
    let eo = opts.engine_options();
    let mut f: Finished = engine::run(prep, global, launch, &eo, &mut gpu, &mut warps)?;
    Ok(GridRun {
        warps: f.warps,
        instructions: f.instructions,
        timed: take_timed(&mut f, crate::timing::sources(prep)),
        recorded: Vec::new(),
        global: f.global,
        printf: f.printf,
        printf_dropped: f.printf_dropped,
    })
}

/// The (base, length) of each allocation of `global` when the launch runs
/// `warm` (its buffers in L2), else none.
pub(crate) fn resident(global: &crate::memory::Global, warm: bool) -> Vec<(u64, u64)> {
    if !warm {
        return Vec::new();
    }
    let regions = global.regions.iter();
    regions.map(|r| (r.base, r.bytes.len() as u64)).collect()
}

/// The timing `f` carries, its statements' `sources` beside it; what
/// stays in `f` is the launch's memory, output and counts.
pub(crate) fn take_timed(f: &mut Finished, sources: Vec<(u32, String)>) -> Timed {
    Timed {
        cycles: f.stats.cycles,
        clock_span: f.clock_span,
        stats: std::mem::take(&mut f.stats),
        sms_used: f.sms_used,
        sampled: f.sampled.take(),
        timeline: f.timeline.take(),
        regs: f.regs.take(),
        sources,
        per_sm: std::mem::take(&mut f.per_sm),
        memory: f.memory,
        occupancy: f.occupancy,
    }
}

/// A launch file read with its module's text.
pub(crate) struct Loaded {
    pub launch: Launch,
    /// The module file as errors name it.
    pub module_name: String,
    pub src: String,
}

/// Reads the launch file at `path` and its module.
pub(crate) fn load(path: &Path) -> Result<Loaded, RunError> {
    let launch = Launch::read(path).map_err(|source| RunError::Launch {
        path: path.display().to_string(),
        source,
    })?;
    let module_name = launch.ptx.display().to_string();
    let src = sim_isa::bounded::read_file(&launch.ptx, sim_module::MAX_MODULE_BYTES as u64)?;
    let src = String::from_utf8_lossy(&src).into_owned();
    Ok(Loaded {
        launch,
        module_name,
        src,
    })
}

/// The finished launch of `l` (read from `path`): final buffers, compared
/// with the expected ones.
pub(crate) fn finish_launch(
    path: &Path,
    l: Loaded,
    prep: &Prepared<'_>,
    grid: GridRun,
) -> Result<LaunchRun, RunError> {
    let buffers = grid.global.into_buffer_bytes(&prep.buffers);
    let expected = l
        .launch
        .load_expected()
        .map_err(|source| RunError::Launch {
            path: path.display().to_string(),
            source,
        })?;
    let mismatches = expected
        .iter()
        .filter_map(|(b, want)| compare(&l.launch.buffers[*b].name, &buffers[*b], want))
        .collect();
    Ok(LaunchRun {
        launch: l.launch,
        buffers,
        warps: grid.warps,
        instructions: grid.instructions,
        timed: grid.timed,
        mismatches,
        module_name: l.module_name,
        recorded: grid.recorded,
        printf: grid.printf,
        printf_dropped: grid.printf_dropped,
    })
}

/// Runs the launch file at `path`.
pub fn run_launch(path: &Path, opts: &RunOptions) -> Result<LaunchRun, RunError> {
    let l = load(path)?;
    let module = crate::prepare::load_module(&l.src, &l.module_name, &l.launch.entry)?;
    let data = l.launch.load_buffers().map_err(|source| RunError::Launch {
        path: path.display().to_string(),
        source,
    })?;
    let mut prep = Prepared::new(&module, &l.launch, data)?;
    let global = std::mem::take(&mut prep.global);
    let grid = run_grid_from(&prep, global, &l.launch, opts)?;
    finish_launch(path, l, &prep, grid)
}
