//! Real kernels: `simcli run` on a launch file (docs/launch-format.md) or a
//! kernel recording (docs/kernel-trace.md), and `simcli record`.

use super::common::{check_counts, print_out, report_text, run_outputs, Format, RunArgs, Setup};
use super::progress::with_progress;
use anyhow::{bail, Context, Result};
use sim_cli::output::{check_outputs, write_file, Inputs, Output};
use sim_cli::report::{self, RunInfo};
use sim_core::sass_table::Row;
use sim_core::{Report, SmConfig};
use sim_isa::Target;
use sim_kernel::lowering::{KernelCode, MachineCode};
use sim_kernel::record::RecordReader;
use sim_kernel::{LaunchRun, RunOptions};
use sim_module::launch::BufferInit;
use sim_module::Launch;
use std::error::Error;
use std::io::{Read, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::{Arc, Mutex, PoisonError};

/// What a `run` input is, from its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A launch file: a JSON object.
    Launch,
    /// A kernel recording (its magic).
    Recording,
}

/// Tells launch files and recordings from traces and kernel text.
pub fn detect(head: &[u8]) -> Option<Kind> {
    if sim_kernel::record::is_recording(head) {
        return Some(Kind::Recording);
    }
    let first = head.iter().find(|b| !b.is_ascii_whitespace());
    (first == Some(&b'{')).then_some(Kind::Launch)
}

/// The target of a launch file when `--arch` names none.
pub(super) const LAUNCH_TARGET: Target = Target::SM_90;

/// Flags of `run` that traces, kernel text and launch files have and kernel
/// recordings (`launch` false) do not.
fn refuse_trace_flags(name: &str, a: &RunArgs, launch: bool) -> Result<()> {
    for (set, flag) in [
        (a.dump_regs.is_some() && !launch, "--dump-regs"),
        (a.timeline.is_some() && !launch, "--timeline"),
    ] {
        if set {
            bail!("{name}: {flag} applies to traces, kernel text and launch files, not to kernel recordings");
        }
    }
    Ok(())
}

/// Records every file a launch reads, so no output lands on one.
fn add_launch_inputs(launch: &Launch, inputs: &mut Inputs) {
    let files = std::iter::once(&launch.ptx)
        .chain(launch.buffers.iter().filter_map(|b| match &b.init {
            BufferInit::File(p) => Some(p),
            BufferInit::Fill(_) | BufferInit::Random(_) => None,
        }))
        .chain(launch.expected.iter().map(|(_, p)| p));
    for p in files {
        inputs.add_path(&p.display().to_string(), p);
    }
}

/// Reads the launch file `file` (named `name`), refusing standard input.
pub(super) fn read_launch(file: &Path, name: &str, inputs: &mut Inputs) -> Result<Launch> {
    if file == Path::new("-") {
        bail!("{name}: a launch file must be a file (its buffers are named relative to its folder), not standard input");
    }
    let launch = Launch::read(file).with_context(|| name.to_string())?;
    add_launch_inputs(&launch, inputs);
    Ok(launch)
}

/// The run's options: `--max-instructions` bounds the launch's
/// warp-instructions (default: the configuration's
/// `limits.max_instructions`, as for traces); the memory figures are the
/// target's preset with the layers' `[memory]` keys; `--sms` defaults to
/// the whole GPU (`memory.sms`).
pub(super) fn options(setup: &Setup, default: Target, sms: Option<usize>) -> Result<RunOptions> {
    let (config, policy) = setup.resolve(default)?;
    let memory = sim_kernel::MemConfig::configured(config.target, &setup.layers);
    let whole = memory.sms;
    let mut opts = RunOptions::new(config, policy, sms.map_or(whole, |n| n as u32));
    opts.memory = memory;
    if let Some(n) = setup.max_instructions {
        opts.max_instructions = n;
    }
    Ok(opts)
}

/// `--threads`, by default the cores this process may use.
pub(super) fn host_threads(n: Option<usize>) -> usize {
    n.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `simcli run LAUNCH.json`.
pub fn run_launch(file: &Path, name: &str, a: &RunArgs, mut inputs: Inputs) -> Result<ExitCode> {
    refuse_trace_flags(name, a, true)?;
    let threads = host_threads(a.threads);
    check_counts(a.sms.unwrap_or(1), threads)?;
    let launch = read_launch(file, name, &mut inputs)?;
    // Again, now that the launch's own files are inputs: before it runs.
    check_outputs(&run_outputs(a), &inputs)?;
    if let Some(dir) = &a.dump_buffers {
        for b in launch.buffers.iter().filter(|b| safe_name(&b.name)) {
            inputs.check(&dir.join(format!("{}.bin", b.name)))?;
        }
    }
    if a.check && launch.expected.is_empty() {
        bail!("{name}: --check: the launch file names no expected outputs (`expected`)");
    }
    let mut opts = options(&a.setup, LAUNCH_TARGET, a.sms)?;
    opts.threads = threads;
    opts.sample = a.sample;
    if let Some(n) = a.sample_sms.filter(|&n| n >= opts.sms) {
        bail!(
            "--sample-sms {n}: must be fewer than the SMs ({}), which would all be timed",
            opts.sms
        );
    }
    opts.sample_sms = a.sample_sms;
    if a.timeline.is_some() {
        let most = super::common::MAX_TIMELINE_ISSUES;
        if a.timeline_limit.saturating_mul(opts.sms as usize) > most {
            bail!(
                "--timeline-limit x SMs ({}) must be at most {most} (the events are held in memory): lower --timeline-limit or --sms",
                opts.sms
            );
        }
        opts.timeline = a.timeline_limit;
    }
    if a.dump_regs.is_some() {
        let cta = a.dump_block.unwrap_or(0);
        let blocks = launch.grid_blocks();
        if u64::from(cta) >= blocks {
            bail!(
                "{name}: --dump-block {cta}: the grid has {blocks} blocks (0 to {})",
                blocks.saturating_sub(1)
            );
        }
        opts.dump_block = Some(cta);
    }
    opts.registers = a.regs;
    opts.warm = a.warm;
    let compiled = if a.compiler {
        let (code, counts) = compiler_code(name, &opts.config)?;
        opts.machine_code = Some(code);
        Some(counts)
    } else {
        None
    };
    let run = with_progress(&format!("running {name}"), 0, |_| {
        sim_kernel::run_launch(file, &opts)
    })
    .with_context(|| format!("running {name}"))?;
    let show: Vec<usize> = (0..run.buffers.len()).collect();
    let lowering = match &compiled {
        Some(c) => Lowered::Compiler(*c.lock().unwrap_or_else(PoisonError::into_inner)),
        None => Lowered::Table,
    };
    finish(name, &run, &opts, a, (&inputs, &show), (None, lowering))?;
    Ok(check_result(
        a.check,
        &run,
        launch.expected.len(),
        "expected",
    ))
}

/// `simcli run kernel.bin` (a recording), read from `r` as the replay
/// runs: each warp when its block becomes resident.
pub fn run_recording(name: &str, r: impl Read, a: &RunArgs, inputs: Inputs) -> Result<ExitCode> {
    refuse_trace_flags(name, a, false)?;
    if a.sample {
        bail!("{name}: --sample applies to launch files, not to kernel recordings");
    }
    if a.regs.is_some() {
        bail!("{name}: --regs applies to launch files, not to kernel recordings");
    }
    if a.warm {
        bail!("{name}: --warm applies to launch files, not to kernel recordings");
    }
    let threads = host_threads(a.threads);
    check_counts(a.sms.unwrap_or(1), threads)?;
    let rec = RecordReader::open(name, r)?;
    let h = rec.header();
    let outputs = h.outputs();
    if a.check && outputs.is_empty() {
        bail!("{name}: --check: the recording holds no output buffers");
    }
    let target = Target::parse(&h.target).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    // The recorded run's SM count unless told otherwise: blocks then land
    // on the same SMs (`%smid`) and the replay repeats the run exactly.
    let mut opts = options(&a.setup, target, a.sms.or(Some(h.sms as usize)))?;
    opts.threads = threads;
    let done = with_progress(&format!("replaying {name}"), 0, |_| {
        sim_kernel::record::replay_stream(rec, &opts)
    })
    .with_context(|| format!("replaying {name}"))?;
    let run = &done.run;
    if !a.check && !run.mismatches.is_empty() {
        // The outputs a replay computes again are the recorded ones, unless
        // the recording was changed (a load value, a step): an error, not a
        // report of another run. `--check` lists every buffer (exit 1).
        let what: Vec<String> = run.mismatches.iter().map(|m| m.to_string()).collect();
        bail!(
            "{name}: the replayed outputs differ from the recorded ones ({} of {} output buffers): {}; the recording does not hold together (--check compares every buffer)",
            what.len(),
            outputs.len(),
            what.join("; ")
        );
    }
    finish(
        name,
        run,
        &opts,
        a,
        (&inputs, &outputs),
        (Some(done.recorded_cycles), Lowered::Table),
    )?;
    Ok(check_result(a.check, run, outputs.len(), "recorded"))
}

/// The kernel's `printf` output, before the report, as a CUDA program's
/// comes before what it prints after the launch: on standard output with
/// the text report, on standard error with a JSON or CSV one (which stays
/// machine-readable on standard output).
fn print_device_output(run: &LaunchRun, format: Format) -> Result<()> {
    if run.printf_dropped > 0 {
        eprintln!(
            "warning: printf: {} calls dropped past the {}-byte printf buffer (cudaLimitPrintfFifoSize's default)",
            run.printf_dropped,
            sim_kernel::printf::FIFO_BYTES
        );
    }
    if run.printf.is_empty() {
        return Ok(());
    }
    // The bytes as printed (not necessarily UTF-8).
    let r = if matches!(format, Format::Text) {
        let mut o = std::io::stdout().lock();
        o.write_all(&run.printf).and_then(|_| o.flush())
    } else {
        let mut e = std::io::stderr().lock();
        e.write_all(&run.printf).and_then(|_| e.flush())
    };
    match r {
        // A closed pipe (`| head`) is not an error of ours.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r.context("writing the kernel's printf output"),
    }
}

/// Where a launch's machine code came from, for the report.
#[derive(Clone, Copy, Debug)]
enum Lowered {
    /// The table's rows.
    Table,
    /// `--lowering compiler`: (static instructions given ptxas's code, of
    /// the kernel's).
    Compiler((usize, usize)),
}

/// Set once a kernel is lowered: (instructions given ptxas's code, of the
/// kernel's).
type Compiled = Arc<Mutex<(usize, usize)>>;

/// `--lowering compiler` for a launch: the machine code ptxas emits for
/// each straight-line stretch of the kernel sim-kernel runs (regions as
/// [`sim_trace::compiler::stretch_regions`] cuts them), for `config`'s
/// architecture; and, once the kernel is lowered, how many of its
/// instructions have compiled code. The tools are looked for now, so that
/// a launch without them stops before it runs.
fn compiler_code(name: &str, config: &SmConfig) -> Result<(MachineCode, Compiled)> {
    use sim_trace::compiler::{lower_regions, stretch_regions, Source};
    let tools = sim_cli::compiler::Toolchain::from_env().with_context(|| name.to_string())?;
    let arch = sim_core::sass_table::SassArch::from_lowering(config.lowering);
    let config_name = config.name();
    let counts = Arc::new(Mutex::new((0, 0)));
    let seen = counts.clone();
    let f = move |k: &KernelCode<'_>| -> Result<Vec<Option<Row>>, Box<dyn Error + Send + Sync>> {
        let insts = &k.program.insts;
        let texts: Vec<String> = insts
            .iter()
            .map(|i| i.display(k.symbols).to_string())
            .collect();
        let src = Source {
            insts,
            texts: &texts,
            lines: &k.lines,
            syms: k.symbols,
            version: k.version,
        };
        let regions = stretch_regions(insts, &k.stretches);
        let rows = lower_regions(&src, regions, arch, &config_name, &mut tools.clone())?;
        let n = rows.iter().filter(|r| r.is_some()).count();
        *seen.lock().unwrap_or_else(PoisonError::into_inner) = (n, insts.len());
        Ok(rows)
    };
    Ok((MachineCode(Arc::new(f)), counts))
}

/// Writes the files, then prints the report: `dump` the buffers
/// `--dump-buffers` writes, `recorded` a recording's cycles.
fn finish(
    name: &str,
    run: &LaunchRun,
    opts: &RunOptions,
    a: &RunArgs,
    (inputs, dump): (&Inputs, &[usize]),
    (recorded, lowering): (Option<u64>, Lowered),
) -> Result<()> {
    let mut info = launch_info(name, run.warps as usize, opts);
    info.sources = run.timed.sources.clone();
    info.memory = Some(run.timed.memory);
    let rep = report_of(&opts.config, opts, opts.sms as usize, run);
    // The files first: a failing write must not follow a printed report.
    if let Some(dir) = &a.dump_buffers {
        dump_buffers(dir, &run.launch, &run.buffers, dump, inputs)?;
    }
    if let Some(p) = &a.opcode_csv {
        let bytes = report::opcode_csv(&info, &rep)?;
        write_file(p, inputs, |w| w.write_all(&bytes))?;
    }
    if let (Some(p), Some(regs)) = (&a.dump_regs, &run.timed.regs) {
        if regs.warps.is_empty() {
            bail!(
                "{name}: --dump-regs: block {} ran on an SM that --sample runs functionally, whose registers are not kept: pick a block of a timed SM or drop --sample",
                regs.cta
            );
        }
        let text = sim_cli::launch_timeline::dump_block_regs(regs, run.launch.grid)?;
        write_file(p, inputs, |w| w.write_all(text.as_bytes()))?;
    }
    if let (Some(p), Some(spans)) = (&a.timeline, &run.timed.timeline) {
        let t = sim_cli::launch_timeline::LaunchTimeline {
            spans,
            limit: a.timeline_limit,
        };
        let doc = sim_cli::launch_timeline::timeline(&t, &info);
        write_file(p, inputs, |w| {
            serde_json::to_writer(&mut *w, &doc)?;
            w.write_all(b"\n")
        })?;
    }
    print_device_output(run, a.format)?;
    let summary = Summary {
        run,
        recorded,
        lowering,
    };
    let text = match a.format {
        Format::Json => {
            let mut v = report::json(&info, &rep);
            sim_cli::memreport::add_json(&mut v, &run.timed, report::stats_json);
            if let serde_json::Value::Object(o) = &mut v {
                o.insert("launch".into(), summary.json());
            }
            format!("{}\n", serde_json::to_string_pretty(&v)?)
        }
        Format::Text => format!(
            "{}{}{}",
            report::text(&info, &rep),
            sim_cli::memreport::text(&run.timed),
            summary.text()
        ),
        Format::Csv => report_text(a.format, &info, &rep)?,
    };
    print_out(&text)
}

/// The report's description of a launch run with `opts`: its parameters
/// include the memory figures (`params.memory` in JSON), its overrides
/// those that differ from the preset.
pub(super) fn launch_info(name: &str, warps: usize, opts: &RunOptions) -> RunInfo {
    let mut info = RunInfo::new(name, warps, &opts.config, opts.policy);
    info.params.extend(
        opts.memory
            .keys()
            .iter()
            .map(|(k, v)| (k.to_string(), sim_core::config_file::ParamValue::Int(*v))),
    );
    let memory = opts.memory.overrides(opts.config.target);
    if !memory.is_empty() {
        let mut all: Vec<String> = Vec::new();
        if !info.overrides.is_empty() {
            all.push(info.overrides.clone());
        }
        all.extend(memory);
        info.overrides = all.join(";");
    }
    info
}

pub(super) fn report_of(
    config: &SmConfig,
    opts: &RunOptions,
    sms: usize,
    run: &LaunchRun,
) -> Report {
    Report {
        config: config.name(),
        policy: opts.policy,
        sms,
        stats: run.timed.stats.clone(),
        per_sm: Vec::new(),
    }
}

/// `--check`: 1 naming each differing buffer, else 0 saying how many matched.
fn check_result(check: bool, run: &LaunchRun, compared: usize, what: &str) -> ExitCode {
    if !check {
        return ExitCode::SUCCESS;
    }
    if !run.mismatches.is_empty() {
        for m in &run.mismatches {
            eprintln!("check failed: {m}");
        }
        eprintln!(
            "check: {} of {compared} output buffers differ from their {what} bytes",
            run.mismatches.len()
        );
        return ExitCode::from(1);
    }
    eprintln!("check: all {compared} output buffers match their {what} bytes");
    ExitCode::SUCCESS
}

/// Whether `name` is safe as a file name inside the dump folder.
fn safe_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 200
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// `--dump-buffers DIR`: buffers `which` as `DIR/<name>.bin`.
fn dump_buffers(
    dir: &Path,
    launch: &Launch,
    buffers: &[Vec<u8>],
    which: &[usize],
    inputs: &Inputs,
) -> Result<()> {
    for &i in which {
        let n = &launch.buffers[i].name;
        if !safe_name(n) {
            bail!(
                "--dump-buffers: buffer name '{n}' cannot be a file name in {} (letters, digits, '_', '-', '.'; not starting with '.')",
                dir.display()
            );
        }
    }
    std::fs::create_dir_all(dir)
        .with_context(|| format!("--dump-buffers: creating {}", dir.display()))?;
    for &i in which {
        let p = dir.join(format!("{}.bin", launch.buffers[i].name));
        write_file(&p, inputs, |w| w.write_all(&buffers[i]))?;
    }
    Ok(())
}

/// The launch lines of a report: the run itself, with the cycles a
/// recording held and the lowering it was timed with.
struct Summary<'a> {
    run: &'a LaunchRun,
    recorded: Option<u64>,
    lowering: Lowered,
}

fn dims(d: [u32; 3]) -> String {
    format!("{}x{}x{}", d[0], d[1], d[2])
}

impl Summary<'_> {
    /// Simulated clock window over the H100's `cycles_cold`.
    fn ratio(&self) -> Option<f64> {
        match (self.run.timed.clock_window(), self.h100()) {
            (Some(s), Some(h)) if h > 0 => Some(s as f64 / h as f64),
            _ => None,
        }
    }

    /// The H100's `cycles_cold` from the launch file, if it has one.
    fn h100(&self) -> Option<u64> {
        self.run.launch.h100.as_ref().and_then(|h| h.cycles_cold)
    }

    fn text(&self) -> String {
        let run = self.run;
        let mut o = String::from("\nlaunch\n");
        let mut kv = |k: &str, v: String| o.push_str(&format!("  {k:<22}{v}\n"));
        kv(
            "entry",
            format!("{} ({})", run.launch.entry, run.module_name),
        );
        kv(
            "grid x block",
            format!("{} x {}", dims(run.launch.grid), dims(run.launch.block)),
        );
        kv("warps", run.warps.to_string());
        kv("warp-instr executed", run.instructions.to_string());
        kv("SMs used", run.timed.sms_used.to_string());
        if let Lowered::Compiler((n, of)) = self.lowering {
            kv(
                "machine code",
                format!("--lowering compiler: ptxas's for {n} of {of} instructions, the table's for the rest"),
            );
        }
        if let Some(x) = &run.timed.sampled {
            kv(
                "sampled",
                format!(
                    "cycles estimated: {} SMs timed ({}; {} blocks, {:.0} +- {:.0} cycles each, 95%), the rest run functionally, each block held as its timed partner's ({} by the mean)",
                    x.timed_sms,
                    x.timed.iter().map(u32::to_string).collect::<Vec<_>>().join(", "),
                    x.timed_blocks, x.block_cycles, x.ci95, x.modelled_by_mean
                ),
            );
        }
        match run.timed.clock_window() {
            Some(c) => kv(
                "clock window",
                format!("{c} cycles (last %clock read - first)"),
            ),
            None => kv("clock window", "(the kernel reads no %clock)".into()),
        }
        if let Some(h) = self.h100() {
            let r = self
                .ratio()
                .map_or(String::new(), |r| format!(" (simulated/H100 {r:.3})"));
            kv("H100 cycles_cold", format!("{h}{r}"));
        }
        if let Some(c) = self.recorded {
            let same = if c == run.timed.cycles {
                "same as this replay"
            } else {
                "differs: other configuration?"
            };
            kv("recorded cycles", format!("{c} ({same})"));
        }
        o
    }

    fn json(&self) -> serde_json::Value {
        let run = self.run;
        serde_json::json!({
            "entry": run.launch.entry,
            "module": run.module_name,
            "grid": run.launch.grid,
            "block": run.launch.block,
            "warps": run.warps,
            "warp_instructions_executed": run.instructions,
            "sms_used": run.timed.sms_used,
            "clock_window": run.timed.clock_window(),
            "h100_cycles_cold": self.h100(),
            "h100_ratio": self.ratio(),
            "recorded_cycles": self.recorded,
            "lowering": match self.lowering {
                Lowered::Table => "table",
                Lowered::Compiler(_) => "compiler",
            },
            "compiled_instructions": match self.lowering {
                Lowered::Table => None,
                Lowered::Compiler((n, _)) => Some(n),
            },
            "sampled": run.timed.sampled.as_ref().map(|x| serde_json::json!({
                "timed_sms": x.timed_sms,
                "timed_sm_indices": x.timed,
                "timed_blocks": x.timed_blocks,
                "block_cycles": x.block_cycles,
                "block_cycles_ci95": if x.ci95.is_finite() { Some(x.ci95) } else { None },
                "modelled_by_mean": x.modelled_by_mean,
            })),
        })
    }
}

/// `simcli record LAUNCH.json -o FILE`.
pub fn record(
    file: &Path,
    output: &Path,
    setup: &Setup,
    sms: Option<usize>,
    mut inputs: Inputs,
) -> Result<ExitCode> {
    check_counts(sms.unwrap_or(1), 1)?;
    let name = file.display().to_string();
    inputs.add_path(&name, file);
    read_launch(file, &name, &mut inputs)?;
    check_outputs(&[Output::file("-o", output)], &inputs)?;
    let opts = options(setup, LAUNCH_TARGET, sms)?;
    // Written as the launch runs, to a temporary file renamed into place
    // at the end: a failed run leaves no recording.
    let out_name = output.display().to_string();
    let mut result = None;
    let written = with_progress(&format!("running {name}"), 0, |_| {
        write_file(
            output,
            &inputs,
            |w| match sim_kernel::record::record_launch(file, &opts, w, &out_name) {
                Ok(r) => {
                    result = Some(Ok(r));
                    Ok(())
                }
                Err(e) => {
                    result = Some(Err(e));
                    Err(std::io::Error::other("the recording failed"))
                }
            },
        )
    });
    let rec = match (result, written) {
        (Some(Err(e)), _) => return Err(anyhow::Error::new(e).context(format!("recording {name}"))),
        (_, Err(e)) => return Err(e.into()),
        (Some(Ok(r)), Ok(())) => r,
        (None, Ok(())) => bail!("recording {name}: nothing was written"),
    };
    for m in &rec.run.mismatches {
        eprintln!("warning: {m}");
    }
    eprintln!(
        "recorded {} warps, {} warp-instructions, {} load values, {} cycles into {} ({} bytes)",
        rec.stats.warps,
        rec.run.instructions,
        rec.stats.loads,
        rec.run.timed.cycles,
        output.display(),
        rec.stats.bytes
    );
    Ok(ExitCode::SUCCESS)
}
