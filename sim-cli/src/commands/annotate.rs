//! `simcli annotate FILE`: the source with, per line, the warp-instructions
//! issued there, their threads, the warp-cycles warps spent at it (issuing
//! and stalled) and the top stall reasons, the hottest lines marked, as
//! `perf annotate` does. Launch files (the kernel's PTX lines) and kernel
//! text (its own lines); a binary trace has no source, so its instructions'
//! text stands in.

use super::common::{check_counts, open_input, print_out, Setup};
use super::kernel::{self, Kind};
use super::progress::with_progress;
use anyhow::{bail, Context, Result};
use sim_cli::output::Inputs;
use sim_cli::profile::{self, Line};
use sim_core::Stats;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::ExitCode;

/// What `annotate` was asked.
pub struct AnnotateArgs {
    pub setup: Setup,
    pub sms: Option<usize>,
    pub threads: Option<usize>,
    /// Lines marked hot (`--hot`).
    pub hot: usize,
}

/// `simcli annotate FILE`.
pub fn annotate(file: &Path, a: &AnnotateArgs, mut inputs: Inputs) -> Result<ExitCode> {
    let (name, r) = open_input(file, &mut inputs)?;
    let mut r = BufReader::new(r);
    let head = r.fill_buf().with_context(|| format!("reading {name}"))?;
    match kernel::detect(head) {
        Some(Kind::Launch) => return launch(file, &name, a, inputs),
        Some(Kind::Recording) => {
            bail!("{name}: annotate reads launch files, kernel text and traces; a recording holds no source (annotate its launch file)")
        }
        None => {}
    }
    let sms = a.sms.unwrap_or(1);
    let threads = a.threads.unwrap_or(1);
    check_counts(sms, threads)?;
    let (trace, _) = sim_trace::load::load(&name, r)?;
    let resolved = super::run::resolve_for(&name, &trace, &a.setup)?;
    let out = with_progress(&format!("simulating {name}"), 0, |_| {
        super::run::replay_trace(&name, &trace, resolved, sms, threads, 0)
    });
    let rep = out
        .result
        .with_context(|| format!("simulating {name}"))?
        .report;
    let lines = profile::lines(&rep.stats, &super::run::source_lines(&trace));
    // Kernel text is its own source; a `.bin` has none: its instructions'
    // text, one a line, stands in.
    let source = match std::fs::read_to_string(file) {
        Ok(s) if trace.lines.iter().any(|&l| l > 0) => s,
        _ => trace.texts.join("\n"),
    };
    print(&name, &rep.stats, &source, &lines, a.hot)
}

/// A launch file: runs it and annotates its kernel's PTX.
fn launch(file: &Path, name: &str, a: &AnnotateArgs, mut inputs: Inputs) -> Result<ExitCode> {
    let threads = kernel::host_threads(a.threads);
    check_counts(a.sms.unwrap_or(1), threads)?;
    let l = kernel::read_launch(file, name, &mut inputs)?;
    let mut opts = kernel::options(&a.setup, kernel::LAUNCH_TARGET, a.sms)?;
    opts.threads = threads;
    let run = with_progress(&format!("running {name}"), 0, |_| {
        sim_kernel::run_launch(file, &opts)
    })
    .with_context(|| format!("running {name}"))?;
    let module = &l.ptx;
    let source = std::fs::read_to_string(module)
        .with_context(|| format!("{name}: reading its module {}", module.display()))?;
    let lines = profile::lines(&run.timed.stats, &run.timed.sources);
    print(
        &format!("{name} ({}, {})", module.display(), l.entry),
        &run.timed.stats,
        &source,
        &lines,
        a.hot,
    )
}

/// Prints the header and the listing of the lines from the first profiled
/// one to the last.
fn print(name: &str, stats: &Stats, source: &str, lines: &[Line], hot: usize) -> Result<ExitCode> {
    let (Some(first), Some(last)) = (lines.first(), lines.last()) else {
        bail!("{name}: no instruction issued: nothing to annotate");
    };
    let w = &stats.warp_stalls;
    let mut o = format!(
        "{name}\ncycles {}, warp instructions {}, resident warp-cycles {}\n\
         columns: share of warp-cycles, warp instructions issued, threads, warp-cycles at the line \
         (issuing and stalled), top stall reasons (docs/stalls.md); >> marks the {hot} hottest\n\n",
        stats.cycles, stats.warp_instructions, w.resident_warp_cycles
    );
    o.push_str(&profile::annotate(
        source, first.line, last.line, lines, hot,
    ));
    print_out(&o)?;
    Ok(ExitCode::SUCCESS)
}
