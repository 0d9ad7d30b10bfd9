//! What the commands share: how the SM is configured (`Setup`, from the
//! preset, `--config`, `--set` and the flags), `run`'s arguments, reading
//! inputs, writing standard output and reports. Below every command file.

use anyhow::{anyhow, bail, Context, Result};
use clap::ValueEnum;
use sim_cli::output::{Inputs, Output};
use sim_cli::report::{self, RunInfo};
use sim_core::config_file::{self, ConfigLayer};
use sim_core::{SchedPolicy, SmConfig};
use sim_isa::Target;
use sim_trace::trace::Trace;
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};

/// How the SM is configured: every source of parameters, lowest first.
#[derive(Clone, Debug, Default)]
pub struct Setup {
    /// `--arch`: the target when no layer names one (else the trace's).
    pub arch: Option<String>,
    /// The `--config` file and the `--set` overrides, in order.
    pub layers: Vec<ConfigLayer>,
    /// `--scheduler`, over every layer.
    pub scheduler: Option<Sched>,
    /// `--max-cycles` / `--max-instructions`, over every layer.
    pub max_cycles: Option<u64>,
    pub max_instructions: Option<u64>,
}

fn policy(s: Sched) -> SchedPolicy {
    match s {
        Sched::Lrr => SchedPolicy::Lrr,
        Sched::Gto => SchedPolicy::Gto,
        Sched::Oldest => SchedPolicy::Oldest,
    }
}

impl Setup {
    /// Reads `--config FILE` (recorded in `inputs`) and `--set` overrides.
    pub fn load(
        &mut self,
        config: Option<&Path>,
        sets: &[String],
        inputs: &mut Inputs,
    ) -> Result<()> {
        if let Some(p) = config {
            let (name, r) = open_input(p, inputs)?;
            let text = read_all(r, &name, config_file::MAX_CONFIG_BYTES)?;
            self.layers.push(ConfigLayer::parse(&text, &name)?);
        }
        for s in sets {
            self.layers.push(ConfigLayer::parse_set(s)?);
        }
        Ok(())
    }

    /// The configuration and policy for a trace whose own target is `default`.
    pub fn resolve(&self, default: Target) -> Result<(SmConfig, SchedPolicy)> {
        let target = match &self.arch {
            Some(a) => parse_target(a)?,
            None => default,
        };
        let (mut c, mut p) = config_file::build(&self.layers, target, SchedPolicy::Lrr);
        if let Some(s) = self.scheduler {
            p = policy(s);
        }
        if let Some(n) = self.max_cycles {
            c.limits.max_cycles = n;
        }
        if let Some(n) = self.max_instructions {
            c.limits.max_instructions = n;
        }
        Ok((c, p))
    }
}

/// The most instruction starts (a launch's: events) a timeline may record over all SMs (about
/// 24 bytes each while running, a few hundred in the file).
pub const MAX_TIMELINE_ISSUES: usize = 10_000_000;

// A field list alike in shape to other records' (issue 27): `run`'s own
// options as the commands read them, apart from clap's help text in main.rs.
/// `run`'s options beyond the configuration.
pub struct RunArgs {
    pub setup: Setup,
    /// `--sms`: traces default to 1, launches to the target's whole GPU.
    pub sms: Option<usize>,
    pub threads: Option<usize>,
    /// `--sample` (launch files).
    pub sample: bool,
    /// `--sample-sms`: the SMs `--sample` times.
    pub sample_sms: Option<u32>,
    /// `--regs` (launch files).
    pub regs: Option<u32>,
    /// `--warm` (launch files): buffers start in L2.
    pub warm: bool,
    pub format: Format,
    pub dump_regs: Option<PathBuf>,
    /// `--dump-block` (launch files): the block `--dump-regs` writes.
    pub dump_block: Option<u32>,
    pub check: bool,
    pub timeline: Option<PathBuf>,
    pub timeline_limit: usize,
    pub opcode_csv: Option<PathBuf>,
    /// `--dump-buffers DIR` (launch files and kernel recordings).
    pub dump_buffers: Option<PathBuf>,
    /// `--lowering compiler`: machine code from ptxas, region by region.
    pub compiler: bool,
}

/// `run`'s outputs, for `check_outputs`: its files, the `--dump-buffers`
/// folder, and the report it prints on standard output.
pub fn run_outputs(a: &RunArgs) -> Vec<Output<'_>> {
    let mut v = vec![Output::stdout("the report")];
    let files = [
        ("--dump-regs", &a.dump_regs),
        ("--timeline", &a.timeline),
        ("--opcode-csv", &a.opcode_csv),
    ];
    for (flag, p) in files {
        if let Some(p) = p {
            v.push(Output::file(flag, p));
        }
    }
    if let Some(d) = &a.dump_buffers {
        v.push(Output::folder("--dump-buffers", d));
    }
    v
}

/// `--sms` and `--threads` within their bounds (the same as the C API's
/// and Python's: `sim_core::config_file::check_counts`).
pub fn check_counts(sms: usize, threads: usize) -> Result<()> {
    config_file::check_sms(sms as u64).map_err(|e| anyhow!("--sms: {e}"))?;
    config_file::check_counts(1, threads as u64).map_err(|e| anyhow!("--threads: {e}"))
}

/// The report in `format`.
pub fn report_text(format: Format, info: &RunInfo, rep: &sim_core::Report) -> Result<String> {
    Ok(match format {
        Format::Text => report::text(info, rep),
        Format::Json => format!(
            "{}\n",
            serde_json::to_string_pretty(&report::json(info, rep))?
        ),
        Format::Csv => String::from_utf8(report::csv(info, rep)?)?,
    })
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Sched {
    /// Loose round-robin.
    Lrr,
    /// Greedy-then-oldest.
    Gto,
    /// Oldest ready warp first.
    Oldest,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Aligned text for people.
    Text,
    /// One JSON object.
    Json,
    /// Header line and one row.
    Csv,
}

/// Writes `s` to standard output; a closed pipe is not an error.
pub fn print_out(s: &str) -> Result<()> {
    let mut o = std::io::stdout().lock();
    match o.write_all(s.as_bytes()).and_then(|_| o.flush()) {
        // A closed pipe (`| head`) is not an error of ours.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r.context("writing standard output"),
    }
}

pub fn parse_target(s: &str) -> Result<Target> {
    Target::parse(s).map_err(|e| anyhow!("{e}"))
}

/// Opens an input once, as a stream: standard input for `-`, else the file.
/// Returns the name messages use and the reader; records it in `inputs`.
pub fn open_input(path: &Path, inputs: &mut Inputs) -> Result<(String, Box<dyn Read>)> {
    if path == Path::new("-") {
        inputs.add_stdin();
        return Ok((
            "<stdin>".to_string(),
            Box::new(BufReader::new(std::io::stdin().lock())),
        ));
    }
    let name = path.display().to_string();
    if let Some(kind) = sim_isa::bounded::waits_for_writer(path) {
        // Opening it would wait for a writer, forever if none comes.
        bail!("{name}: is {kind}, not a regular file; refusing to read it (it would wait for a writer; use - for standard input)");
    }
    let f = std::fs::File::open(path).with_context(|| format!("opening {name}"))?;
    inputs.add_file(&name, &f);
    Ok((name, Box::new(BufReader::new(f))))
}

/// All of an opened input (named `name`), refused at the first byte past
/// `limit` ("NAME: more than LIMIT bytes"): the one bounded reader.
pub fn read_all(r: impl Read, name: &str, limit: u64) -> Result<String> {
    Ok(sim_isa::bounded::read_limited_string(
        r,
        Path::new(name),
        limit,
    )?)
}

/// Refuses a trace with an instruction `target` cannot run, naming the first.
pub fn refuse_unsupported(name: &str, trace: &Trace, target: Target) -> Result<()> {
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
