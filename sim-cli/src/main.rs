//! `simcli`: replay kernel traces through the SM model, assemble and print
//! traces, generate synthetic ones, run conformance vectors, evaluate one
//! instruction. Exit codes: 0 ok, 1 check or conformance failure, 2 bad input
//! or usage.

use anyhow::Result;
use clap::CommandFactory;
use clap::{Parser, Subcommand, ValueEnum};
use commands::common::{parse_target, Format, RunArgs, Sched, Setup};
use commands::sweep::SweepArgs;
use sim_cli::output::Inputs;
use sim_trace::gen;
use std::path::PathBuf;
use std::process::ExitCode;

mod commands;

/// Buffers on huge pages where the system allows (`sim_cli::alloc`).
#[global_allocator]
static ALLOC: sim_cli::alloc::BigPages = sim_cli::alloc::BigPages;

/// `--version`: the crate version and the git commit of the build.
const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("SIMCLI_COMMIT"), ")");

/// Cycle-approximate simulator of NVIDIA SM warps executing PTX SIMD video,
/// compare/select and half-precision set instructions, bit-exact per lane.
#[derive(Parser, Debug)]
#[command(name = "simcli", version = VERSION, about, long_about = None)]
#[command(
    after_help = "Exit codes: 0 ok, 1 --check or conformance failure, 2 bad input or usage.\n\
Example: simcli run traces/sad16x16.ptx --arch sm_53"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

// The commands that simulate share `arch`, `config`, `sms` and `threads`
// ([`SimArgs`], [`ThreadedSimArgs`]); each words their help its own way
// ([`reword`]).
#[derive(Subcommand, Debug)]
enum Cmd {
    /// Simulate a kernel (binary trace, kernel text, launch file or kernel recording) and print a timing report.
    ///
    /// The target defaults to the file's `.target` (sm_90 for a launch file).
    /// A trace containing an instruction the target cannot run is refused
    /// before simulating, naming the first such instruction. A launch file
    /// (docs/launch-format.md) runs a PTX kernel from nvcc; a recording
    /// (`simcli record`, docs/kernel-trace.md) replays one without its memory.
    #[command(mut_args(reword(&[
        ("arch", "Target to simulate (preset and semantics), e.g. sm_30, sm_53, sm_90"),
        (
            "sms",
            "Number of SMs. Traces and kernel text: default 1, warp w runs on SM w % N. \
             Launch files and recordings: default the target's whole GPU (sm_90: the \
             H100 SXM's 132), blocks resident as SMs have room",
        ),
        (
            "threads",
            "Host threads simulating SMs; results do not depend on it. Launch files \
             and recordings: default the available cores. Traces and kernel text: default 1",
        ),
    ])))]
    Run(RunCmd),
    /// Print a kernel's source with a profile per line: warp instructions, threads, warp-cycles and top stall reasons.
    ///
    /// Runs the file as `simcli run` does (launch file, kernel text or
    /// binary trace) and lists the lines from the first that issued to the
    /// last, the hottest marked `>>`, as `perf annotate` does. Stall
    /// reasons are Nsight Compute's (docs/stalls.md).
    #[command(mut_args(reword(&[
        ("arch", "Target to simulate (default: the file's `.target`; sm_90 for a launch file)"),
        ("sms", "Number of SMs (as for `run`)"),
        ("threads", "Host threads simulating SMs (as for `run`)"),
    ])))]
    Annotate {
        /// Launch file, kernel text or binary trace (`-` reads standard input).
        file: PathBuf,
        #[command(flatten)]
        sim: ThreadedSimArgs,
        /// How many of the hottest lines to mark.
        #[arg(long, default_value_t = 5, value_name = "N")]
        hot: usize,
    },
    /// Run a CUDA program with the simulator's CUDA runtime in place of NVIDIA's, and report each launch.
    ///
    /// The program must be built with `nvcc -cudart shared` (its kernels as
    /// PTX for the target, as `-arch=sm_90` gives). Its standard output,
    /// standard error and exit code pass through; a summary of its launches
    /// goes to standard error, and `--report` writes one row per launch
    /// (docs/exec.md).
    Exec(ExecCmd),
    /// Run a launch file and write what it executed as a kernel recording (docs/kernel-trace.md).
    ///
    /// The recording holds the module, each warp's steps, every memory
    /// instruction's addresses, the values loads returned, the clock values
    /// read and the output buffers' bytes: `simcli run FILE` replays it
    /// without the launch's memory, with identical cycles and outputs.
    /// Both stream: each warp is written once it and the warps before it
    /// have finished, and read when its block becomes resident.
    #[command(mut_args(reword(&[(
        "sms",
        "Number of SMs the blocks run on (default: the target's whole GPU)",
    )])))]
    Record {
        /// The launch file (docs/launch-format.md).
        file: PathBuf,
        /// The recording to write.
        #[arg(short, long, value_name = "FILE")]
        output: PathBuf,
        #[command(flatten)]
        sim: SimArgs,
    },
    /// Print an SM configuration as TOML: every parameter with its source.
    ///
    /// Edit it and run with `simcli run --config FILE.toml` (docs/config.md).
    Config {
        /// Target whose preset to print.
        #[arg(long, default_value = "sm_90", value_name = "sm_XY")]
        arch: String,
        #[command(flatten)]
        config: ConfigArgs,
        /// Write here instead of standard output.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Replay measured microbenchmarks and compare the simulated cycles with the hardware's.
    ///
    /// FILE is a calibration set as in sim-core/data/calibration/h100/microbench.json
    /// (each kernel with a `kernel_text` is replayed; paths relative to FILE). Prints
    /// measured vs simulated cycles per kernel and the geometric-mean error factor;
    /// exits 1 when a kernel is off by more than --tolerance.
    Calibrate {
        /// The calibration file (JSON).
        file: PathBuf,
        /// Target to simulate.
        #[arg(long, default_value = "sm_90", value_name = "sm_XY")]
        arch: String,
        #[command(flatten)]
        config: ConfigArgs,
        /// Largest accepted relative error per kernel.
        #[arg(long, default_value_t = 0.10, value_name = "F")]
        tolerance: f64,
    },
    /// Run the cross product of traces x archs x parameters of a sweep file into one CSV.
    ///
    /// See docs/sweeps.md. Rows are numbered; shards of a sweep merge back
    /// into the unsharded CSV with `simcli merge`.
    Sweep {
        /// The sweep file (TOML: traces or launch files, programs, archs, [params]).
        file: PathBuf,
        /// Write the CSV here instead of standard output.
        #[arg(short, long, value_name = "FILE.csv")]
        output: Option<PathBuf>,
        /// Also write per-opcode rows (long format) here.
        #[arg(long, value_name = "FILE.csv")]
        opcode_csv: Option<PathBuf>,
        /// Run only shard I of N (runs whose number is I mod N). Defaults to
        /// SLURM_ARRAY_TASK_ID (less SLURM_ARRAY_TASK_MIN) / SLURM_ARRAY_TASK_COUNT when set.
        #[arg(long, value_name = "I/N")]
        shard: Option<String>,
        /// Runs simulated at once, on this many threads.
        #[arg(long, default_value_t = 1, value_name = "N")]
        jobs: usize,
    },
    /// Join CSV files of runs (sweep shards) into one, ordered by run number.
    Merge {
        /// CSV files written by `simcli sweep` or `simcli run --format csv`.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Write here instead of standard output.
        #[arg(short, long, value_name = "FILE.csv")]
        output: Option<PathBuf>,
    },
    /// Draw a run's JSON report or a sweep CSV as one self-contained HTML page (docs/html-report.md).
    ///
    /// The run page has the stall breakdown, memory hierarchy, occupancy,
    /// issue activity per SM and the hottest lines (a section whose key the
    /// report lacks says so); the sweep page plots each swept parameter
    /// against cycles. The input is told apart by content.
    Report {
        /// A report from `simcli run --format json`, or a CSV from `simcli sweep`.
        file: PathBuf,
        /// The page to write (atomically: complete or not at all).
        #[arg(long, value_name = "OUT.html")]
        html: PathBuf,
    },
    /// Print a shell completion script (e.g. `simcli completions bash > /etc/bash_completion.d/simcli`).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff; `simcli man | man -l -`).
    Man {
        /// Write here instead of standard output.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Assemble kernel text into a binary trace.
    Asm {
        /// Kernel text (`-` reads standard input).
        file: PathBuf,
        /// Output (default: the input with extension .bin; required when that is the input itself).
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Execute the kernel functionally and record every register's final
        /// value as `.expect` records (replacing those in the text).
        #[arg(long)]
        record_expect: bool,
    },
    /// Print a binary trace as kernel text that re-assembles to the identical binary.
    Dump {
        /// Binary trace (`-` reads standard input).
        file: PathBuf,
        /// Write here instead of standard output.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Generate a deterministic synthetic trace for scaling studies.
    ///
    /// Each warp runs a 5-instruction prologue seeding source registers, then
    /// N instructions drawn from the mix; instruction i reads and writes
    /// register %r(i mod D), so each depends on the one D earlier.
    Gen {
        /// Warps launched.
        #[arg(long, default_value_t = 1, value_name = "W")]
        warps: u32,
        /// Instructions per warp after the prologue.
        #[arg(long, value_name = "N")]
        instructions: u64,
        /// Instruction mix.
        #[arg(long, value_enum, default_value_t = MixArg::Mixed)]
        mix: MixArg,
        /// Dependency distance D (1 = every instruction depends on the previous).
        #[arg(long, default_value_t = 1, value_name = "D")]
        dep_distance: u32,
        /// PRNG seed: the same seed gives the same trace.
        #[arg(long, default_value_t = 1, value_name = "S")]
        seed: u64,
        /// Target recorded in the trace.
        #[arg(long, default_value = "sm_53", value_name = "sm_XY")]
        arch: String,
        /// Output: binary trace, or kernel text when the name ends in .ptx.
        #[arg(short, long, value_name = "FILE")]
        output: PathBuf,
    },
    /// Run conformance vectors (JSON Lines, docs/conformance-format.md).
    ///
    /// Prints each failing or unusable (skipped) vector with its file and line,
    /// a summary per file when there are several, then `N passed, M failed`.
    /// Exits 1 if any vector failed, else 2 if a line was unusable, no vector
    /// ran, or a file could not be read (`-` reads standard input).
    Conform {
        /// Vector files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Execute one instruction on one lane and print the registers it writes.
    ///
    /// Unset registers are 0. Text that does not parse, or that the target
    /// cannot run, prints the error classification conform uses and exits 2.
    Eval {
        /// Target.
        #[arg(long, default_value = "sm_90", value_name = "sm_XY")]
        arch: String,
        /// The instruction, e.g. 'vadd4.u32.u32.u32.sat %r1, %r2, %r3, %r4;'.
        inst: String,
        /// Inputs: REG=VALUE with VALUE hex (0x..), decimal, or true/false for predicates.
        #[arg(value_name = "REG=VALUE")]
        inputs: Vec<String>,
    },
}

/// Where the SM's parameters come from, over the target's preset.
#[derive(clap::Args, Debug)]
struct ConfigArgs {
    /// Configuration file (TOML, as `simcli config` prints; keys it omits keep the preset's).
    #[arg(long, value_name = "FILE.toml")]
    config: Option<PathBuf>,
    /// Override one parameter, a dotted key of the configuration file (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
    /// Warp scheduling policy (default: the configuration's, else lrr).
    #[arg(long, value_enum)]
    scheduler: Option<Sched>,
    /// Stop (exit 2, printing the statistics so far) when an SM's clock reaches N with work left
    /// [default: the configuration's; presets 1000000000000].
    #[arg(long, value_name = "N")]
    max_cycles: Option<u64>,
    /// Stop (exit 2, printing the statistics so far) when an SM has issued N warp instructions
    /// with work left [default: the configuration's; presets 10000000000]. A launch file or
    /// recording stops with an error past N warp-instructions in all [default: 50000000, or the
    /// configuration's if lower].
    #[arg(long, value_name = "N")]
    max_instructions: Option<u64>,
}

impl ConfigArgs {
    /// The configuration layers, reading the file (recorded in `inputs`).
    fn setup(&self, arch: Option<String>, inputs: &mut Inputs) -> Result<Setup> {
        let mut s = Setup {
            arch,
            scheduler: self.scheduler,
            max_cycles: self.max_cycles,
            max_instructions: self.max_instructions,
            ..Setup::default()
        };
        s.load(self.config.as_deref(), &self.sets, inputs)?;
        Ok(s)
    }

    /// [`ConfigArgs::setup`], with the inputs it read from nothing before.
    fn setup_new(&self, arch: Option<String>) -> Result<(Setup, Inputs)> {
        let mut inputs = Inputs::new();
        let setup = self.setup(arch, &mut inputs)?;
        Ok((setup, inputs))
    }
}

/// What every simulating command takes: the target, the SM configuration
/// and the number of SMs. The help texts are `exec`'s; the other commands
/// word theirs with [`reword`].
#[derive(clap::Args, Debug)]
struct SimArgs {
    /// Target to simulate (default sm_90).
    #[arg(long, value_name = "sm_XY")]
    arch: Option<String>,
    #[command(flatten)]
    config: ConfigArgs,
    /// Number of SMs (default: the target's whole GPU).
    #[arg(long, value_name = "N")]
    sms: Option<usize>,
}

impl SimArgs {
    /// [`ConfigArgs::setup_new`] for this target.
    fn setup_new(&self) -> Result<(Setup, Inputs)> {
        self.config.setup_new(self.arch.clone())
    }
}

/// Gives the arguments `texts` names (by id) their help text there, for
/// `#[command(mut_args(..))]`: in place, so that they keep their order in
/// the help and the shell completions (`mut_arg` would move them last).
fn reword(texts: &'static [(&'static str, &'static str)]) -> impl FnMut(clap::Arg) -> clap::Arg {
    move |a| match texts.iter().find(|(id, _)| a.get_id() == *id) {
        Some((_, help)) => a.help(*help),
        None => a,
    }
}

/// [`SimArgs`] and the host threads that simulate the SMs.
#[derive(clap::Args, Debug)]
struct ThreadedSimArgs {
    #[command(flatten)]
    sim: SimArgs,
    /// Host threads simulating SMs (default: the available cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
}

// `simcli run`'s arguments (its help is `Cmd::Run`'s doc comment: a doc
// comment here would replace it).
#[derive(clap::Args, Debug)]
struct RunCmd {
    /// Binary trace, kernel text, launch file (a JSON object) or kernel
    /// recording, told apart by content (`-` reads standard input).
    file: PathBuf,
    #[command(flatten)]
    sim: ThreadedSimArgs,
    /// Launch files of more than 256 blocks: time a few SMs spread over the GPU
    /// and run the others functionally (values exact, cycles estimated; docs/sampling.md).
    #[arg(long)]
    sample: bool,
    /// With --sample: how many SMs it times (default 4; at least 1, fewer than --sms).
    #[arg(long, value_name = "N", requires = "sample",
          value_parser = clap::value_parser!(u32).range(1..))]
    sample_sms: Option<u32>,
    /// Launch files: registers a thread (1 to 255), in place of the launch file's
    /// `registers`; they limit the blocks an SM holds. Where neither says, registers
    /// do not limit residency (docs/report-schema.md, `occupancy`).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=255))]
    regs: Option<u32>,
    /// Launch files: the buffers start in L2 as far as it holds them, as
    /// when a kernel wrote them or a warm-up launch read them just before (default: in
    /// DRAM, as just copied from the host; docs/launch-format.md, "Running one").
    #[arg(long)]
    warm: bool,
    /// Report format (schema: docs/report-schema.md).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Also write every warp's final registers as JSON to FILE (before the report is printed).
    /// Launch files: the warps of one block (--dump-block, default block 0).
    #[arg(long, value_name = "FILE.json")]
    dump_regs: Option<PathBuf>,
    /// Launch files: the block (linear index in the grid) whose registers --dump-regs writes.
    #[arg(long, value_name = "N", requires = "dump_regs")]
    dump_block: Option<u32>,
    /// Compare final registers with the trace's `.expect` records (a launch file's
    /// outputs with its `expected` files; a recording's with its recorded bytes); exit 1 on a mismatch.
    #[arg(long)]
    check: bool,
    /// Launch files and recordings: write each buffer's final bytes as DIR/<buffer>.bin
    /// (a recording's output buffers only).
    #[arg(long, value_name = "DIR")]
    dump_buffers: Option<PathBuf>,
    /// Write a Chrome/Perfetto timeline (Trace Event Format JSON) of issues, completions and stalls
    /// (launch files: each block's, warp's and memory access's span).
    #[arg(long, value_name = "FILE.json")]
    timeline: Option<PathBuf>,
    /// Instruction starts (launch files: events) drawn per SM in the timeline (the rest are left
    /// out and counted).
    #[arg(long, default_value_t = 50_000, value_name = "N")]
    timeline_limit: usize,
    /// Write the per-opcode statistics as long-format CSV (one row per opcode).
    #[arg(long, value_name = "FILE.csv")]
    opcode_csv: Option<PathBuf>,
    /// Machine code each PTX instruction runs: `table`, the committed per-instruction
    /// sequences (no tool needed), or `compiler`, each straight-line region assembled by
    /// ptxas ($PTXAS or on PATH, with $NVDISASM, nvdisasm or cuobjdump) and the machine
    /// instructions it emitted timed (docs/lowering.md). Kernel text, traces and launch files
    /// (the kernel's straight-line stretches as sim-kernel runs them); not kernel recordings.
    #[arg(long, value_enum, default_value_t = Lowering::Table)]
    lowering: Lowering,
}

// `simcli exec`'s arguments (its help is `Cmd::Exec`'s doc comment).
#[derive(clap::Args, Debug)]
struct ExecCmd {
    #[command(flatten)]
    sim: ThreadedSimArgs,
    /// Sample launches of more than 256 blocks (docs/sampling.md).
    #[arg(long)]
    sample: bool,
    /// Write one row per launch: FILE.json or FILE.csv.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// The simulator's CUDA runtime library (default: libsim_cudart.so beside simcli);
    /// CUDA 12 programs get libsim_cudart12.so from its folder.
    #[arg(long, value_name = "FILE")]
    runtime: Option<PathBuf>,
    /// Write each launch as a launch file with its buffers into DIR (new or empty),
    /// for `simcli run DIR/launch-N.json --check`.
    #[arg(long, value_name = "DIR")]
    save_launches: Option<PathBuf>,
    /// The program and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "PROGRAM")]
    program: Vec<String>,
}

/// `run --lowering`: where the machine code comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Lowering {
    /// The committed per-instruction table (sim-core/data/lowering-sass.tsv).
    Table,
    /// ptxas on each straight-line region of the program.
    Compiler,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum MixArg {
    /// SIMD video instructions.
    Video,
    /// set/selp/slct on integers.
    Compare,
    /// Half-precision set (f16x2).
    Half,
    /// All of them plus ALU instructions.
    Mixed,
}

impl From<MixArg> for gen::Mix {
    fn from(m: MixArg) -> Self {
        match m {
            MixArg::Video => gen::Mix::Video,
            MixArg::Compare => gen::Mix::Compare,
            MixArg::Half => gen::Mix::Half,
            MixArg::Mixed => gen::Mix::Mixed,
        }
    }
}

fn main() -> ExitCode {
    commands::progress::init_logging();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match dispatch(cli.cmd) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", chain_text(&e));
            ExitCode::from(2)
        }
    }
}

/// The error and its causes, joined by ": ", leaving out a cause whose
/// text its parent's message already ends with (a library error that
/// prints its source, as `KernelError::Timing` does, would otherwise
/// repeat it).
fn chain_text(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if out.ends_with(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}

fn dispatch(cmd: Cmd) -> Result<ExitCode> {
    match cmd {
        Cmd::Run(r) => {
            let (setup, inputs) = r.sim.sim.setup_new()?;
            let args = RunArgs {
                setup,
                sms: r.sim.sim.sms,
                threads: r.sim.threads,
                sample: r.sample,
                sample_sms: r.sample_sms,
                regs: r.regs,
                warm: r.warm,
                format: r.format,
                dump_regs: r.dump_regs,
                dump_block: r.dump_block,
                check: r.check,
                timeline: r.timeline,
                timeline_limit: r.timeline_limit,
                opcode_csv: r.opcode_csv,
                dump_buffers: r.dump_buffers,
                compiler: r.lowering == Lowering::Compiler,
            };
            commands::run::run(&r.file, &args, inputs)
        }
        Cmd::Annotate { file, sim, hot } => {
            let (setup, inputs) = sim.sim.setup_new()?;
            let args = commands::annotate::AnnotateArgs {
                setup,
                sms: sim.sim.sms,
                threads: sim.threads,
                hot,
            };
            commands::annotate::annotate(&file, &args, inputs)
        }
        Cmd::Exec(e) => {
            let (setup, inputs) = e.sim.sim.setup_new()?;
            commands::exec::exec(&commands::exec::ExecArgs {
                setup,
                config: e.sim.sim.config.config.clone(),
                sets: e.sim.sim.config.sets.clone(),
                sms: e.sim.sim.sms,
                threads: e.sim.threads,
                sample: e.sample,
                report: e.report,
                runtime: e.runtime,
                save_launches: e.save_launches,
                program: e.program,
                inputs,
            })
        }
        Cmd::Record { file, output, sim } => {
            let (setup, inputs) = sim.setup_new()?;
            commands::kernel::record(&file, &output, &setup, sim.sms, inputs)
        }
        Cmd::Config {
            arch,
            config,
            output,
        } => {
            let (setup, inputs) = config.setup_new(Some(arch))?;
            commands::run::config(&setup, output, &inputs)
        }
        Cmd::Calibrate {
            file,
            arch,
            config,
            tolerance,
        } => {
            let (setup, _) = config.setup_new(Some(arch))?;
            commands::calibrate::calibrate(&file, &setup, tolerance)
        }
        other => dispatch_tools(other),
    }
}

/// The commands that take no simulation setup of their own.
fn dispatch_tools(cmd: Cmd) -> Result<ExitCode> {
    match cmd {
        Cmd::Run(_)
        | Cmd::Annotate { .. }
        | Cmd::Exec(_)
        | Cmd::Record { .. }
        | Cmd::Config { .. }
        | Cmd::Calibrate { .. } => dispatch(cmd),
        Cmd::Sweep {
            file,
            output,
            opcode_csv,
            shard,
            jobs,
        } => commands::sweep::sweep(&SweepArgs {
            file,
            output,
            opcode_csv,
            shard,
            jobs,
        }),
        Cmd::Merge { files, output } => commands::sweep::merge(&files, output.as_deref()),
        Cmd::Report { file, html } => commands::report::report(&file, &html),
        Cmd::Completions { shell } => commands::manual::completions(shell, Cli::command()),
        Cmd::Man { output } => commands::manual::man(output, Cli::command()),
        Cmd::Asm {
            file,
            output,
            record_expect,
        } => commands::trace::asm(&file, output, record_expect),
        Cmd::Dump { file, output } => commands::trace::dump(&file, output),
        Cmd::Gen {
            warps,
            instructions,
            mix,
            dep_distance,
            seed,
            arch,
            output,
        } => {
            let params = gen::GenParams {
                target: parse_target(&arch)?,
                warps,
                instructions,
                mix: mix.into(),
                dep_distance,
                seed,
            };
            commands::trace::gen(&params, &output)
        }
        Cmd::Conform { files } => commands::isa::conform(&files),
        Cmd::Eval { arch, inst, inputs } => commands::isa::eval(&arch, &inst, &inputs),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The help text of argument `arg` of subcommand `cmd`.
    fn help(cmd: &str, arg: &str) -> String {
        let cli = Cli::command();
        let sub = cli.find_subcommand(cmd).expect("a subcommand");
        let a = sub.get_arguments().find(|a| a.get_id() == arg);
        a.and_then(|a| a.get_help()).expect("help").to_string()
    }

    /// The shared simulation arguments take each command's own help text,
    /// and stay where they were declared (after `file`, before `--sample`).
    #[test]
    fn simulating_commands_word_their_own_help() {
        assert_eq!(
            help("run", "arch"),
            "Target to simulate (preset and semantics), e.g. sm_30, sm_53, sm_90"
        );
        assert_eq!(
            help("annotate", "threads"),
            "Host threads simulating SMs (as for `run`)"
        );
        assert_eq!(
            help("exec", "sms"),
            "Number of SMs (default: the target's whole GPU)"
        );
        assert_eq!(
            help("record", "sms"),
            "Number of SMs the blocks run on (default: the target's whole GPU)"
        );
        let cli = Cli::command();
        let run = cli.find_subcommand("run").expect("run");
        let ids: Vec<&str> = run
            .get_arguments()
            .map(|a| a.get_id().as_str())
            .take(10)
            .collect();
        assert_eq!(
            ids,
            [
                "file",
                "arch",
                "config",
                "sets",
                "scheduler",
                "max_cycles",
                "max_instructions",
                "sms",
                "threads",
                "sample"
            ]
        );
    }
}
