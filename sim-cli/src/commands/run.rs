//! `simcli run` on traces and kernel text (launch files and recordings go
//! on to `kernel.rs`), `simcli config`, the replay, and its outputs.

use super::common::{
    check_counts, open_input, print_out, refuse_unsupported, report_text, run_outputs, RunArgs,
    Setup, MAX_TIMELINE_ISSUES,
};
use super::kernel::{self, Kind};
use super::progress::with_progress;
use anyhow::{bail, Context, Result};
use sim_cli::output::{check_outputs, write_file, Inputs, Output};
use sim_cli::report::{self, RunInfo};
use sim_cli::timeline::{self, TimelineInput};
use sim_core::config_file;
use sim_core::{SchedPolicy, SmConfig};
use sim_isa::{Target, WarpRegs};
use sim_trace::replay::{self, ReplayError, RunOptions};
use sim_trace::trace::Trace;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `simcli config`: the resolved configuration as TOML with its sources.
pub fn config(setup: &Setup, output: Option<PathBuf>, inputs: &Inputs) -> Result<ExitCode> {
    if let Some(o) = &output {
        check_outputs(&[Output::file("-o", o)], inputs)?;
    }
    let (c, p) = setup.resolve(Target::SM_90)?;
    let memory = sim_kernel::MemConfig::configured(c.target, &setup.layers);
    let text = config_file::to_toml(&c, p) + &config_file::memory_toml(&memory.params(c.target));
    match output {
        Some(o) => write_file(&o, inputs, |w| w.write_all(text.as_bytes()))?,
        None => print_out(&text)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// One replay of a loaded trace: its report description and outcome.
pub struct Outcome {
    pub info: RunInfo,
    pub result: Result<replay::Replay, ReplayError>,
}

/// The configuration `setup` gives `trace` (named `name`); refuses a
/// target the trace cannot run on.
pub fn resolve_for(name: &str, trace: &Trace, setup: &Setup) -> Result<(SmConfig, SchedPolicy)> {
    let (config, policy) = setup.resolve(trace.target)?;
    refuse_unsupported(name, trace, config.target)?;
    Ok((config, policy))
}

/// Replays `trace` (named `name`) on `config`, recording `issue_log`
/// starts per SM.
pub fn replay_trace(
    name: &str,
    trace: &Trace,
    resolved: (SmConfig, SchedPolicy),
    sms: usize,
    threads: usize,
    issue_log: usize,
) -> Outcome {
    replay_trace_with(name, trace, resolved, (sms, threads, issue_log), Vec::new())
}

/// Each static instruction's line in kernel text and its text; a `.bin`
/// knows no lines: the instruction's index + 1.
pub fn source_lines(trace: &Trace) -> Vec<(u32, String)> {
    (trace.texts.iter().enumerate())
        .map(|(i, t)| match trace.lines.get(i) {
            Some(&l) if l > 0 => (l, t.clone()),
            _ => (i as u32 + 1, t.clone()),
        })
        .collect()
}

/// As [`replay_trace`], with machine code per static instruction
/// (`--lowering compiler`; `None` entries keep the table's).
pub fn replay_trace_with(
    name: &str,
    trace: &Trace,
    (config, policy): (SmConfig, SchedPolicy),
    (sms, threads, issue_log): (usize, usize, usize),
    code: Vec<Option<sim_core::sass_table::Row>>,
) -> Outcome {
    let mut info = RunInfo::new(name, trace.warps.len(), &config, policy);
    // The instruction's index + 1, for kernel text as for a `.bin` (which
    // knows no lines), so that both give the same report; `annotate` maps
    // kernel text's own lines (`source_lines`).
    info.sources = (trace.texts.iter().enumerate())
        .map(|(i, t)| (i as u32 + 1, t.clone()))
        .collect();
    let mut opts = RunOptions::new(config.target);
    opts.sms = sms;
    opts.threads = threads;
    opts.policy = policy;
    let result = replay::replay_with_code(trace, config, &opts, issue_log, code);
    Outcome { info, result }
}

/// `--lowering compiler`: the machine code ptxas emits for each
/// straight-line region of `trace` on `config`'s architecture.
pub fn compiled_code(
    name: &str,
    trace: &Trace,
    config: &SmConfig,
) -> Result<Vec<Option<sim_core::sass_table::Row>>> {
    let mut tools = sim_cli::compiler::Toolchain::from_env().with_context(|| name.to_string())?;
    let arch = sim_core::sass_table::SassArch::from_lowering(config.lowering);
    let code = sim_trace::compiler::lower(trace, arch, &config.name(), &mut tools)
        .with_context(|| name.to_string())?;
    Ok(code)
}

/// `simcli run`.
pub fn run(file: &Path, a: &RunArgs, mut inputs: Inputs) -> Result<ExitCode> {
    if sim_accelsim::is_trace_path(file) {
        return super::accelsim::run(file, a);
    }
    let sms = a.sms.unwrap_or(1);
    let threads = a.threads.unwrap_or(1);
    check_counts(sms, threads)?;
    if a.timeline.is_some() && a.timeline_limit.saturating_mul(sms) > MAX_TIMELINE_ISSUES {
        bail!("--timeline-limit x --sms must be at most {MAX_TIMELINE_ISSUES} (the log is held in memory)");
    }
    let (name, r) = open_input(file, &mut inputs)?;
    check_outputs(&run_outputs(a), &inputs)?;
    let mut r = BufReader::new(r);
    let head = r.fill_buf().with_context(|| format!("reading {name}"))?;
    if a.compiler && kernel::detect(head) == Some(Kind::Recording) {
        bail!("{name}: --lowering compiler applies to kernel text, traces and launch files, not kernel recordings");
    }
    match kernel::detect(head) {
        Some(Kind::Launch) => return kernel::run_launch(file, &name, a, inputs),
        Some(Kind::Recording) => return kernel::run_recording(&name, r, a, inputs),
        None => {}
    }
    if a.dump_buffers.is_some() {
        bail!("{name}: --dump-buffers applies to launch files and kernel recordings");
    }
    if a.sample {
        bail!("{name}: --sample applies to launch files");
    }
    if a.dump_block.is_some() {
        bail!("{name}: --dump-block applies to launch files (a trace's --dump-regs writes every warp)");
    }
    if a.regs.is_some() {
        bail!("{name}: --regs applies to launch files");
    }
    if a.warm {
        bail!("{name}: --warm applies to launch files");
    }
    let (trace, _) = sim_trace::load::load(&name, r)?;
    let resolved = resolve_for(&name, &trace, &a.setup)?;
    if a.check && trace.expects.is_empty() {
        bail!("{name}: --check: the trace records no expected values (.expect)");
    }
    let log = if a.timeline.is_some() {
        a.timeline_limit
    } else {
        0
    };
    let code = if a.compiler {
        compiled_code(&name, &trace, &resolved.0)?
    } else {
        Vec::new()
    };
    let out = with_progress(&format!("simulating {name}"), 0, |_| {
        replay_trace_with(&name, &trace, resolved, (sms, threads, log), code)
    });
    let rep = match out.result {
        Ok(r) => r,
        Err(ReplayError::Limit { message, partial }) => {
            print_out(&report_text(a.format, &out.info, &partial)?)?;
            bail!("{name}: {message}; the statistics above are partial");
        }
        Err(e) => return Err(e).with_context(|| format!("simulating {name}")),
    };
    // The files first: a failing write must not follow a printed report.
    if let Some(p) = &a.dump_regs {
        let regs = report::dump_regs(&trace, &rep.regs)?;
        write_file(p, &inputs, |w| w.write_all(regs.as_bytes()))?;
    }
    if let Some(p) = &a.timeline {
        let doc = timeline::timeline(
            &TimelineInput {
                trace: &trace,
                issues: &rep.issues,
                tables: &rep.tables,
                limit: a.timeline_limit,
                total_issues: rep.report.stats.warp_instructions,
            },
            &out.info,
        );
        write_file(p, &inputs, |w| {
            serde_json::to_writer(&mut *w, &doc)?;
            w.write_all(b"\n")
        })?;
    }
    if let Some(p) = &a.opcode_csv {
        let bytes = report::opcode_csv(&out.info, &rep.report)?;
        write_file(p, &inputs, |w| w.write_all(&bytes))?;
    }
    print_out(&report_text(a.format, &out.info, &rep.report)?)?;
    if a.check {
        return Ok(check_finals(&trace, &rep.regs));
    }
    Ok(ExitCode::SUCCESS)
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
