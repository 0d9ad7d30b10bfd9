//! `simcli`: replay kernel traces through the SM model, assemble and print
//! traces, generate synthetic ones, run conformance vectors, evaluate one
//! instruction. Exit codes: 0 ok, 1 check or conformance failure, 2 bad input
//! or usage.

use anyhow::{anyhow, bail, Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use sim_cli::output::{write_file, Inputs};
use sim_cli::report::{self, RunInfo};
use sim_core::SchedPolicy;
use sim_isa::{ErrorKind, ExecCtx, RegId, Symbols, Target, WarpRegs};
use sim_trace::replay::{self, ReplayError, DEFAULT_MAX_CYCLES, DEFAULT_MAX_INSTRUCTIONS};
use sim_trace::trace::{fmt_value, width_mask, Trace};
use sim_trace::{binfmt, dump, gen, load};
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Cycle-approximate simulator of NVIDIA SM warps executing PTX SIMD video,
/// compare/select and half-precision set instructions, bit-exact per lane.
#[derive(Parser, Debug)]
#[command(name = "simcli", version, about, long_about = None)]
#[command(
    after_help = "Exit codes: 0 ok, 1 --check or conformance failure, 2 bad input or usage.\n\
Example: simcli run traces/sad16x16.ptx --arch sm_53"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Simulate a kernel (binary trace or kernel text) and print a timing report.
    ///
    /// The target defaults to the file's `.target`. A trace containing an
    /// instruction the target cannot run is refused before simulating, naming
    /// the first such instruction.
    Run {
        /// Binary trace or kernel text (told apart by content; `-` reads standard input).
        file: PathBuf,
        /// Target to simulate (preset and semantics), e.g. sm_30, sm_53, sm_90.
        #[arg(long, value_name = "sm_XY")]
        arch: Option<String>,
        /// Number of SMs; warp w runs on SM w % N.
        #[arg(long, default_value_t = 1, value_name = "N")]
        sms: usize,
        /// Worker threads simulating SMs (results do not depend on it).
        #[arg(long, default_value_t = 1, value_name = "N")]
        threads: usize,
        /// Warp scheduling policy.
        #[arg(long, value_enum, default_value_t = Sched::Lrr)]
        scheduler: Sched,
        /// Report format (schema: docs/report-schema.md).
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Also write every warp's final registers as JSON to FILE (before the report is printed).
        #[arg(long, value_name = "FILE.json")]
        dump_regs: Option<PathBuf>,
        /// Compare final registers with the trace's `.expect` records; exit 1 on a mismatch.
        #[arg(long)]
        check: bool,
        /// Stop (exit 2, printing the statistics so far) when an SM's clock reaches N with work left.
        #[arg(long, default_value_t = DEFAULT_MAX_CYCLES, value_name = "N")]
        max_cycles: u64,
        /// Stop (exit 2, printing the statistics so far) when an SM has issued N warp instructions with work left.
        #[arg(long, default_value_t = DEFAULT_MAX_INSTRUCTIONS, value_name = "N")]
        max_instructions: u64,
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

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Sched {
    /// Loose round-robin.
    Lrr,
    /// Greedy-then-oldest.
    Gto,
    /// Oldest ready warp first.
    Oldest,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    /// Aligned text for people.
    Text,
    /// One JSON object.
    Json,
    /// Header line and one row.
    Csv,
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

fn main() -> ExitCode {
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
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn dispatch(cmd: Cmd) -> Result<ExitCode> {
    match cmd {
        Cmd::Run {
            file,
            arch,
            sms,
            threads,
            scheduler,
            format,
            dump_regs,
            check,
            max_cycles,
            max_instructions,
        } => run(
            &file,
            &RunArgs {
                arch,
                sms,
                threads,
                sched: scheduler,
                format,
                dump_regs,
                check,
                max_cycles,
                max_instructions,
            },
        ),
        Cmd::Asm {
            file,
            output,
            record_expect,
        } => asm(&file, output, record_expect),
        Cmd::Dump { file, output } => {
            let mut inputs = Inputs::new();
            let (name, r) = open_input(&file, &mut inputs)?;
            if let Some(o) = &output {
                inputs.check(o)?;
            }
            let trace = load::load_binary(&name, r)?;
            let text = dump::dump(&trace)?;
            match output {
                Some(p) => write_file(&p, &inputs, |w| w.write_all(text.as_bytes()))?,
                None => print_out(&text)?,
            }
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Gen {
            warps,
            instructions,
            mix,
            dep_distance,
            seed,
            arch,
            output,
        } => {
            let target = parse_target(&arch)?;
            let mix = match mix {
                MixArg::Video => gen::Mix::Video,
                MixArg::Compare => gen::Mix::Compare,
                MixArg::Half => gen::Mix::Half,
                MixArg::Mixed => gen::Mix::Mixed,
            };
            let trace = gen::generate(&gen::GenParams {
                target,
                warps,
                instructions,
                mix,
                dep_distance,
                seed,
            })?;
            refuse_unsupported(&output.display().to_string(), &trace, target)?;
            if output.extension().is_some_and(|e| e == "ptx") {
                let text = dump::dump(&trace)?;
                write_file(&output, &Inputs::new(), |w| w.write_all(text.as_bytes()))?;
            } else {
                write_bin(&trace, &output, &Inputs::new())?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Conform { files } => conform(&files),
        Cmd::Eval { arch, inst, inputs } => eval(&arch, &inst, &inputs),
    }
}

/// `simcli conform`: streams each file line by line (memory bounded by
/// `sim_isa::conform::MAX_LINE_BYTES`), printing problems as they come.
fn conform(files: &[PathBuf]) -> Result<ExitCode> {
    use sim_isa::conform::{run_reader, Outcome, Summary, VectorResult};
    let mut total = Summary::default();
    let mut write_err = None;
    let mut say = |s: String| {
        if write_err.is_none() {
            write_err = print_out(&s).err();
        }
    };
    for f in files {
        let name = f.display();
        let each = |r: &VectorResult| {
            if r.outcome != Outcome::Passed {
                say(format!("{name}: {r}\n"));
            }
        };
        let sum = if f.as_os_str() == "-" {
            run_reader(std::io::stdin().lock(), each)
        } else {
            std::fs::File::open(f).and_then(|file| run_reader(std::io::BufReader::new(file), each))
        };
        // The files before an unreadable one keep their summaries.
        let sum = sum.with_context(|| format!("reading {name}"))?;
        if files.len() > 1 {
            say(format!("{name}: {}\n", sum.line()));
        }
        total.merge(sum);
    }
    say(format!("{}\n", total.line()));
    if let Some(e) = write_err {
        return Err(e);
    }
    if total.failed > 0 {
        return Ok(ExitCode::from(1));
    }
    if total.skipped > 0 {
        eprintln!("error: {} unusable vector line(s)", total.skipped);
        return Ok(ExitCode::from(2));
    }
    if total.ran() == 0 {
        eprintln!("error: no vectors ran");
        return Ok(ExitCode::from(2));
    }
    Ok(ExitCode::SUCCESS)
}

fn print_out(s: &str) -> Result<()> {
    let mut o = std::io::stdout().lock();
    match o.write_all(s.as_bytes()).and_then(|_| o.flush()) {
        // A closed pipe (`| head`) is not an error of ours.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r.context("writing standard output"),
    }
}

fn parse_target(s: &str) -> Result<Target> {
    Target::parse(s).map_err(|e| anyhow!("{e}"))
}

/// Opens an input once, as a stream: standard input for `-`, else the file.
/// Returns the name messages use and the reader; records it in `inputs`.
fn open_input(path: &Path, inputs: &mut Inputs) -> Result<(String, Box<dyn Read>)> {
    if path == Path::new("-") {
        inputs.add_stdin();
        return Ok((
            "<stdin>".to_string(),
            Box::new(BufReader::new(std::io::stdin().lock())),
        ));
    }
    let name = path.display().to_string();
    let f = std::fs::File::open(path).with_context(|| format!("opening {name}"))?;
    inputs.add_file(&name, &f);
    Ok((name, Box::new(BufReader::new(f))))
}

fn asm(file: &Path, output: Option<PathBuf>, record_expect: bool) -> Result<ExitCode> {
    let out = match output {
        Some(o) => o,
        None if file == Path::new("-") => bail!("asm: reading standard input needs -o FILE"),
        None => {
            let d = file.with_extension("bin");
            if d == file {
                bail!(
                    "{}: the default output (the input with extension .bin) is the input itself; name the output with -o",
                    file.display()
                );
            }
            d
        }
    };
    let mut inputs = Inputs::new();
    let (name, r) = open_input(file, &mut inputs)?;
    inputs.check(&out)?;
    let mut trace = load::load_text(&name, r)?;
    refuse_unsupported(&name, &trace, trace.target)?;
    if record_expect {
        let finals = trace.functional_run(trace.target);
        trace
            .record_expects(&finals)
            .map_err(|m| anyhow!("{name}: --record-expect: {m}"))?;
    }
    write_bin(&trace, &out, &inputs)?;
    Ok(ExitCode::SUCCESS)
}

/// Encodes first (so a trace the reader would refuse is refused before any
/// file is touched), then writes.
fn write_bin(trace: &Trace, out: &Path, inputs: &Inputs) -> Result<()> {
    let bytes =
        binfmt::to_bytes(trace).with_context(|| format!("refusing to write {}", out.display()))?;
    Ok(write_file(out, inputs, |w| w.write_all(&bytes))?)
}

fn refuse_unsupported(name: &str, trace: &Trace, target: Target) -> Result<()> {
    if let Err(r) = trace.check_target(target, trace.version) {
        let at = if r.line > 0 {
            format!("{}", r.line)
        } else {
            format!(" instruction {}", r.index)
        };
        bail!(
            "{name}:{at}: '{}': {} (target is {target}); refusing to simulate",
            r.text,
            r.error
        );
    }
    Ok(())
}

/// `run`'s options.
struct RunArgs {
    arch: Option<String>,
    sms: usize,
    threads: usize,
    sched: Sched,
    format: Format,
    dump_regs: Option<PathBuf>,
    check: bool,
    max_cycles: u64,
    max_instructions: u64,
}

fn run(file: &Path, a: &RunArgs) -> Result<ExitCode> {
    if a.sms == 0 || a.sms > 4096 {
        bail!("--sms must be 1 to 4096");
    }
    if a.threads == 0 || a.threads > 1024 {
        bail!("--threads must be 1 to 1024");
    }
    let mut inputs = Inputs::new();
    let (name, r) = open_input(file, &mut inputs)?;
    if let Some(p) = &a.dump_regs {
        inputs.check(p)?;
    }
    let (trace, _) = load::load(&name, r)?;
    let target = match &a.arch {
        Some(t) => parse_target(t)?,
        None => trace.target,
    };
    refuse_unsupported(&name, &trace, target)?;
    if a.check && trace.expects.is_empty() {
        bail!("{name}: --check: the trace records no expected values (.expect)");
    }
    let policy = match a.sched {
        Sched::Lrr => SchedPolicy::Lrr,
        Sched::Gto => SchedPolicy::Gto,
        Sched::Oldest => SchedPolicy::Oldest,
    };
    let opts = replay::RunOptions {
        target,
        sms: a.sms,
        threads: a.threads,
        policy,
        max_cycles: a.max_cycles,
        max_instructions: a.max_instructions,
    };
    let info = RunInfo {
        target,
        warps: trace.warps.len(),
    };
    let (rep, finals) = match replay::simulate(&trace, &opts) {
        Ok(r) => r,
        Err(ReplayError::Limit { message, partial }) => {
            print_out(&report_text(a.format, &info, &partial)?)?;
            bail!("{name}: {message}; the statistics above are partial");
        }
        Err(e) => return Err(e).with_context(|| format!("simulating {name}")),
    };
    // The file first: a failing write must not follow a printed report.
    if let Some(p) = &a.dump_regs {
        let regs = report::dump_regs(&trace, &finals);
        write_file(p, &inputs, |w| w.write_all(regs.as_bytes()))?;
    }
    print_out(&report_text(a.format, &info, &rep)?)?;
    if a.check {
        return Ok(check_finals(&trace, &finals));
    }
    Ok(ExitCode::SUCCESS)
}

fn report_text(format: Format, info: &RunInfo, rep: &sim_core::Report) -> Result<String> {
    Ok(match format {
        Format::Text => report::text(info, rep),
        Format::Json => format!(
            "{}\n",
            serde_json::to_string_pretty(&report::json(info, rep))?
        ),
        Format::Csv => report::csv(info, rep),
    })
}

/// `--check`: 1 on any mismatch, listing the first 20.
fn check_finals(trace: &Trace, finals: &[WarpRegs]) -> ExitCode {
    let bad = trace.check(&|w| finals.get(w as usize).cloned());
    if !bad.is_empty() {
        for m in bad.iter().take(20) {
            eprintln!("check failed: {m}");
        }
        if bad.len() > 20 {
            eprintln!("... and {} more mismatches", bad.len() - 20);
        }
        eprintln!("check: {} mismatching lane values", bad.len());
        return ExitCode::from(1);
    }
    eprintln!("check: all {} recorded values match", trace.expects.len());
    ExitCode::SUCCESS
}

fn kind_name(k: ErrorKind) -> &'static str {
    match k {
        ErrorKind::Invalid => "error invalid",
        ErrorKind::Unsupported => "error arch",
        ErrorKind::Unimplemented => "error unimplemented",
    }
}

fn eval(arch: &str, text: &str, inputs: &[String]) -> Result<ExitCode> {
    let target = parse_target(arch)?;
    let mut syms = Symbols::new();
    let inst = match sim_isa::parse::parse_for_target(text, &mut syms, target, None) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("{}: {e}", kind_name(e.kind()));
            return Ok(ExitCode::from(2));
        }
    };
    let uses = inst.reg_uses();
    let width = |r: RegId| uses.iter().find(|u| u.reg == r).map(|u| u.bits);
    let mut regs = WarpRegs::new(syms.len());
    for a in inputs {
        let (name, val) = a
            .split_once('=')
            .ok_or_else(|| anyhow!("input '{a}' is not REG=VALUE"))?;
        let r = syms
            .get(name)
            .ok_or_else(|| anyhow!("input {name}: the instruction has no such register"))?;
        let bits = width(r).unwrap_or(64);
        let v = match val {
            "true" => 1,
            "false" => 0,
            _ => parse_u64(val, bits)
                .ok_or_else(|| anyhow!("input {name}: invalid value '{val}'"))?,
        };
        if v & !width_mask(bits) != 0 {
            bail!("input {name}: value {val} does not fit its {bits}-bit operand");
        }
        regs.set_lane(r, 0, v);
    }
    let before = regs.clone();
    sim_isa::execute(&inst, &ExecCtx { target, warp_id: 0 }, &mut regs, 1);
    let mut out = String::new();
    for u in uses.writes() {
        let v = regs.lane(u.reg, 0);
        out.push_str(&format!(
            "{} = {}\n",
            syms.name(u.reg),
            fmt_value(v & width_mask(u.bits), u.bits)
        ));
    }
    if let Some(g) = inst.guard {
        let p = before.lane(g.reg, 0) != 0;
        if p == g.negate {
            out.push_str("(guard false: nothing written)\n");
        }
    }
    print_out(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// Hex, decimal, or negative decimal (two's complement at `bits`).
fn parse_u64(s: &str, bits: u32) -> Option<u64> {
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()
    } else if s.starts_with('-') {
        let v: i64 = s.parse().ok()?;
        let m = width_mask(bits);
        let min = -(((m >> 1) as i64) + 1);
        (v >= min).then_some(v as u64 & m)
    } else {
        s.parse().ok()
    }
}
