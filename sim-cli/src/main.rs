//! `simcli`: replay kernel traces through the SM model, assemble and print
//! traces, generate synthetic ones, run conformance vectors, evaluate one
//! instruction. Exit codes: 0 ok, 1 check or conformance failure, 2 bad input
//! or usage.

use anyhow::{anyhow, bail, Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use sim_cli::report::{self, RunInfo};
use sim_cli::trace::{fmt_value, width_mask, Trace};
use sim_cli::{binfmt, dump, gen, kernel, replay};
use sim_core::SchedPolicy;
use sim_isa::{ErrorKind, ExecCtx, RegId, Symbols, Target, WarpRegs};
use std::io::Write;
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
        /// Binary trace (.bin) or kernel text (.ptx).
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
        /// Also write every warp's final registers as JSON to FILE.
        #[arg(long, value_name = "FILE.json")]
        dump_regs: Option<PathBuf>,
        /// Compare final registers with the trace's `.expect` records; exit 1 on a mismatch.
        #[arg(long)]
        check: bool,
    },
    /// Assemble kernel text into a binary trace.
    Asm {
        /// Kernel text.
        file: PathBuf,
        /// Output (default: the input with extension .bin).
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Execute the kernel functionally and record every register's final
        /// value as `.expect` records (replacing those in the text).
        #[arg(long)]
        record_expect: bool,
    },
    /// Print a binary trace as kernel text that re-assembles to the identical binary.
    Dump {
        /// Binary trace.
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
    /// Run conformance vectors (JSON Lines, shared/conformance/FORMAT.md).
    ///
    /// Prints each failing or skipped vector, then `N passed, M failed`; exits 1
    /// if any vector failed.
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
        } => run(
            &file,
            arch.as_deref(),
            sms,
            threads,
            scheduler,
            format,
            dump_regs.as_deref(),
            check,
        ),
        Cmd::Asm {
            file,
            output,
            record_expect,
        } => {
            let mut trace = load_text(&file)?;
            refuse_unsupported(&file, &trace, trace.target)?;
            if record_expect {
                let finals = trace.functional_run(trace.target);
                trace.record_expects(&finals);
            }
            let out = output.unwrap_or_else(|| file.with_extension("bin"));
            write_bin(&trace, &out)?;
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Dump { file, output } => {
            let trace = load_bin(&file)?;
            let text = dump::dump(&trace)?;
            match output {
                Some(p) => {
                    std::fs::write(&p, text).with_context(|| format!("writing {}", p.display()))?
                }
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
            refuse_unsupported(&output, &trace, target)?;
            if output.extension().is_some_and(|e| e == "ptx") {
                std::fs::write(&output, dump::dump(&trace)?)
                    .with_context(|| format!("writing {}", output.display()))?;
            } else {
                write_bin(&trace, &output)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Conform { files } => {
            let (mut passed, mut failed, mut skipped) = (0, 0, 0);
            let mut out = String::new();
            for f in &files {
                let text = std::fs::read_to_string(f)
                    .with_context(|| format!("reading {}", f.display()))?;
                let rep = sim_isa::conform::run_vectors(&text);
                for r in rep.problems() {
                    out.push_str(&format!("{}: {r}\n", f.display()));
                }
                passed += rep.passed();
                failed += rep.failed();
                skipped += rep.skipped();
            }
            out.push_str(&format!("{passed} passed, {failed} failed"));
            if skipped > 0 {
                out.push_str(&format!(", {skipped} skipped"));
            }
            out.push('\n');
            print_out(&out)?;
            Ok(if failed > 0 {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            })
        }
        Cmd::Eval { arch, inst, inputs } => eval(&arch, &inst, &inputs),
    }
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

fn load_text(path: &Path) -> Result<Trace> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        anyhow!(
            "{}: kernel text is not UTF-8 (byte {})",
            path.display(),
            e.utf8_error().valid_up_to()
        )
    })?;
    Ok(kernel::parse_kernel(&path.display().to_string(), &text)?)
}

fn load_bin(path: &Path) -> Result<Trace> {
    let f = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    binfmt::read_trace(std::io::BufReader::new(f)).with_context(|| format!("{}", path.display()))
}

/// A binary trace if the file starts with the magic or is named `.bin`, else kernel text.
fn load_any(path: &Path) -> Result<Trace> {
    let mut head = [0u8; 8];
    let n = {
        use std::io::Read;
        let mut f =
            std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
        f.read(&mut head)
            .with_context(|| format!("reading {}", path.display()))?
    };
    if binfmt::looks_binary(&head[..n]) || path.extension().is_some_and(|e| e == "bin") {
        load_bin(path)
    } else {
        load_text(path)
    }
}

fn write_bin(trace: &Trace, out: &Path) -> Result<()> {
    let bytes = binfmt::to_bytes(trace)?;
    std::fs::write(out, bytes).with_context(|| format!("writing {}", out.display()))
}

fn refuse_unsupported(file: &Path, trace: &Trace, target: Target) -> Result<()> {
    if let Err(r) = trace.check_target(target, trace.version) {
        let at = if r.line > 0 {
            format!("{}", r.line)
        } else {
            format!(" instruction {}", r.index)
        };
        bail!(
            "{}:{at}: '{}': {} (target is {target}); refusing to simulate",
            file.display(),
            r.text,
            r.error
        );
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn run(
    file: &Path,
    arch: Option<&str>,
    sms: usize,
    threads: usize,
    sched: Sched,
    format: Format,
    dump_regs: Option<&Path>,
    check: bool,
) -> Result<ExitCode> {
    if sms == 0 || sms > 4096 {
        bail!("--sms must be 1 to 4096");
    }
    if threads == 0 || threads > 1024 {
        bail!("--threads must be 1 to 1024");
    }
    let trace = load_any(file)?;
    let target = match arch {
        Some(a) => parse_target(a)?,
        None => trace.target,
    };
    refuse_unsupported(file, &trace, target)?;
    if check && trace.expects.is_empty() {
        bail!(
            "{}: --check: the trace records no expected values (.expect)",
            file.display()
        );
    }
    let policy = match sched {
        Sched::Lrr => SchedPolicy::Lrr,
        Sched::Gto => SchedPolicy::Gto,
        Sched::Oldest => SchedPolicy::Oldest,
    };
    let opts = replay::RunOptions {
        target,
        sms,
        threads,
        policy,
    };
    let (rep, finals) = replay::simulate(&trace, &opts)
        .with_context(|| format!("simulating {}", file.display()))?;
    let info = RunInfo {
        target,
        warps: trace.warps.len(),
    };
    let text = match format {
        Format::Text => report::text(&info, &rep),
        Format::Json => format!(
            "{}\n",
            serde_json::to_string_pretty(&report::json(&info, &rep))?
        ),
        Format::Csv => report::csv(&info, &rep),
    };
    print_out(&text)?;
    if let Some(p) = dump_regs {
        std::fs::write(p, report::dump_regs(&trace, &finals))
            .with_context(|| format!("writing {}", p.display()))?;
    }
    if check {
        let bad = trace.check(&|w| finals.get(w as usize).cloned());
        if !bad.is_empty() {
            for m in bad.iter().take(20) {
                eprintln!("check failed: {m}");
            }
            if bad.len() > 20 {
                eprintln!("... and {} more mismatches", bad.len() - 20);
            }
            eprintln!("check: {} mismatching lane values", bad.len());
            return Ok(ExitCode::from(1));
        }
        eprintln!("check: all {} recorded values match", trace.expects.len());
    }
    Ok(ExitCode::SUCCESS)
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
