//! `simcli calibrate`: replays the microbenchmarks of a calibration file
//! (`sim-core/data/calibration/h100/microbench.json`, its format in the README
//! beside it) on a preset and compares the simulated cycles with the measured
//! ones, kernel by kernel, with the geometric-mean error.
//!
//! A kernel text gives its inputs as `mov`s of immediates; the kernels that
//! ran loaded them from global memory just before their first clock read,
//! so the measured window also holds what is left of that load when the
//! loop first reads an input ([`input_wait`]).

use serde::Deserialize;
use sim_core::SmConfig;
use sim_isa::Target;
use sim_trace::{load, replay};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What can go wrong reading or replaying a calibration set.
#[derive(Debug, thiserror::Error)]
pub enum CalibrateError {
    /// The calibration file is not the expected JSON.
    #[error("{file}: {source}")]
    Json {
        /// The file.
        file: String,
        /// The parser's error.
        source: serde_json::Error,
    },
    /// The calibration file or a kernel text could not be read, or is past
    /// its limit ([`MAX_CALIBRATION_BYTES`], the kernel-text limit).
    #[error(transparent)]
    Read(#[from] sim_isa::bounded::ReadError),
    /// A kernel text did not parse.
    #[error("{0}")]
    Load(#[from] load::LoadError),
    /// The simulation refused or stopped.
    #[error("{kernel}: {source}")]
    Replay {
        /// The kernel's name.
        kernel: String,
        /// The replay's error.
        source: replay::ReplayError,
    },
    /// The file has no kernel with a kernel text.
    #[error("{0}: no kernel has a kernel text")]
    Empty(String),
}

#[derive(Deserialize)]
struct File {
    results: Vec<Entry>,
}

#[derive(Deserialize)]
struct Entry {
    name: String,
    #[serde(default)]
    op: String,
    mode: String,
    h100_cycles: u64,
    #[serde(default)]
    kernel_text: Option<String>,
}

/// One kernel's comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The kernel's name (`b3_lat`).
    pub name: String,
    /// The PTX form it times (`vsub4.s32.s32.s32.sat`).
    pub op: String,
    /// `lat` (one dependent chain) or `tput` (32 warps x 4 chains).
    pub mode: String,
    /// Measured cycles.
    pub measured: u64,
    /// Simulated cycles: the kernel text's replay plus `input_wait`.
    pub simulated: u64,
    /// Cycles of the window spent waiting for the loaded inputs
    /// ([`input_wait`]).
    pub input_wait: u64,
}

impl Row {
    /// Simulated over measured.
    pub fn ratio(&self) -> f64 {
        self.simulated as f64 / self.measured as f64
    }
    /// The error factor, at least 1: `max(ratio, 1/ratio)`.
    pub fn error(&self) -> f64 {
        let r = self.ratio();
        r.max(1.0 / r)
    }
}

/// The largest calibration file read, in bytes (the committed one, of
/// every measured kernel, is tens of KiB).
pub const MAX_CALIBRATION_BYTES: u64 = 16 << 20;

/// Replays every kernel of `file` that has a kernel text (paths relative to
/// the file's directory) on `config`, one SM, loose round-robin.
// The error is the house's concrete enum, its load and replay errors carrying
// positions and text inline; it is made once per run, so its size costs nothing.
#[allow(clippy::result_large_err)]
pub fn calibrate(file: &Path, config: &SmConfig) -> Result<Vec<Row>, CalibrateError> {
    let name = file.display().to_string();
    let text = sim_isa::bounded::read_file_string(file, MAX_CALIBRATION_BYTES)?;
    let parsed: File = serde_json::from_str(&text).map_err(|source| CalibrateError::Json {
        file: name.clone(),
        source,
    })?;
    let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut rows = Vec::new();
    for e in parsed.results {
        let Some(k) = e.kernel_text else { continue };
        let path: PathBuf = dir.join(&k);
        let kname = path.display().to_string();
        let src = sim_isa::bounded::read_file(&path, sim_trace::limits::MAX_TEXT as u64)?;
        let trace = load::load_text(&kname, &src[..])?;
        let replayed = simulate(&trace, config).map_err(|source| CalibrateError::Replay {
            kernel: e.name.clone(),
            source,
        })?;
        let wait = input_wait(&trace);
        rows.push(Row {
            name: e.name,
            op: e.op,
            mode: e.mode,
            measured: e.h100_cycles,
            simulated: replayed + wait,
            input_wait: wait,
        });
    }
    if rows.is_empty() {
        return Err(CalibrateError::Empty(name));
    }
    Ok(rows)
}

/// Cycles the H100's window spends waiting for the inputs, loaded just
/// before its first clock read: `b21_lat` (4215) and `b25_lat` (4211), whose
/// code waits for its inputs before that read, and `b4`, `b5`, `b17`,
/// `b23`, `b24` (4463-4473), whose first link waits for them after it, run
/// the same loop of 64 four-clock links (`microbench-sm90.sass.gz`: the
/// loads, then CS2R, then the first link on the loads' barrier). The 258
/// cycles between them are an L2 hit (291, `memory.json`) less the 30-odd
/// clocks ptxas's prologue takes from the loads to the clock read.
pub const INPUT_WAIT: u64 = 258;

/// [`INPUT_WAIT`] when the kernel text's loop (the first `.repeat` of its
/// first warp's stream) reads an input, else 0. Inputs are the registers the
/// code before the loop sets by a `mov` of an immediate and the loop never
/// writes. An instruction before the loop whose result the loop reads and
/// that reads an input (`b19`, `b21`: the `setp` of the predicate) waits for
/// it before the clock read: then 0. ptxas drops the others (an unused
/// `setp`), so they wait for nothing. (`b25` is the exception the kernel
/// text cannot show: ptxas loads its 16-bit inputs as one word and splits
/// them before the clock read, which this counts as a wait in the window.)
pub fn input_wait(trace: &sim_trace::trace::Trace) -> u64 {
    use sim_isa::{AluOp, Op, Operand};
    use sim_trace::stream::StreamOp;
    let Some(stream) = trace
        .warps
        .first()
        .and_then(|w| trace.streams.get(w.stream as usize))
    else {
        return 0;
    };
    // Static instructions before the first repeat, and in its body.
    let (mut prologue, mut body) = (Vec::new(), Vec::new());
    let mut in_body: Option<u32> = None;
    for op in stream.ops() {
        let statics = match *op {
            StreamOp::Inst(i) => i..i + 1,
            StreamOp::Run { start, len } => start..start.saturating_add(len),
            StreamOp::Repeat { body_len, .. } => {
                match in_body.as_mut() {
                    // A nested repeat is one op of the body.
                    Some(left) => *left = left.saturating_sub(1),
                    None => in_body = Some(body_len),
                }
                continue;
            }
        };
        let statics = statics
            .map(|i| i as usize)
            .filter(|&i| i < trace.insts.len());
        match in_body.as_mut() {
            None => prologue.extend(statics),
            Some(0) => break,
            Some(left) => {
                body.extend(statics);
                *left -= 1;
            }
        }
    }
    let regs = |i: usize, write: bool| -> Vec<u32> {
        let u = trace.insts[i].reg_uses();
        u.iter()
            .filter(|r| r.write == write)
            .map(|r| r.reg.0)
            .collect()
    };
    let written: Vec<u32> = body.iter().flat_map(|&i| regs(i, true)).collect();
    let read: Vec<u32> = body.iter().flat_map(|&i| regs(i, false)).collect();
    let is_input_mov = |i: usize| matches!(trace.insts[i].op, Op::Alu(a) if a.op == AluOp::Mov && matches!(a.a, Operand::Imm(_)));
    let inputs: Vec<u32> = prologue
        .iter()
        .filter(|&&i| is_input_mov(i))
        .flat_map(|&i| regs(i, true))
        .filter(|r| !written.contains(r))
        .collect();
    if !read.iter().any(|r| inputs.contains(r)) {
        return 0;
    }
    let waits_before = prologue.iter().any(|&i| {
        !is_input_mov(i)
            && regs(i, false).iter().any(|r| inputs.contains(r))
            && regs(i, true).iter().any(|r| read.contains(r))
    });
    if waits_before {
        0
    } else {
        INPUT_WAIT
    }
}

fn simulate(
    trace: &sim_trace::trace::Trace,
    config: &SmConfig,
) -> Result<u64, replay::ReplayError> {
    let mut opts = replay::RunOptions::new(config.target);
    opts.max_cycles = config.limits.max_cycles;
    opts.max_instructions = config.limits.max_instructions;
    let r = replay::replay(trace, config.clone(), &opts, 0)?;
    Ok(r.report.stats.cycles)
}

/// The geometric mean of the rows' error factors.
pub fn geomean_error(rows: &[Row]) -> f64 {
    if rows.is_empty() {
        return 1.0;
    }
    (rows.iter().map(|r| r.error().ln()).sum::<f64>() / rows.len() as f64).exp()
}

/// The table `simcli calibrate` prints: one line per kernel (`inputs`: the
/// part of `simulated` that is [`input_wait`]), then the summary.
pub fn render(rows: &[Row], target: Target, tolerance: f64) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{:<9} {:<4} {:>10} {:>10} {:>7} {:>7}  PTX",
        "kernel", "mode", "measured", "simulated", "inputs", "sim/hw"
    );
    for r in rows {
        let flag = if r.error() > 1.0 + tolerance {
            " *"
        } else {
            ""
        };
        let _ = writeln!(
            o,
            "{:<9} {:<4} {:>10} {:>10} {:>7} {:>7.3}  {}{flag}",
            r.name,
            r.mode,
            r.measured,
            r.simulated,
            r.input_wait,
            r.ratio(),
            r.op
        );
    }
    let within = rows.iter().filter(|r| r.error() <= 1.0 + tolerance).count();
    let worst = rows
        .iter()
        .max_by(|a, b| a.error().total_cmp(&b.error()))
        .map(|r| format!("{} ({:.3})", r.name, r.ratio()))
        .unwrap_or_default();
    let _ = writeln!(
        o,
        "{target}: {within} of {} kernels within {:.0}% (* outside); geometric-mean error factor {:.4}; worst {worst}",
        rows.len(),
        tolerance * 100.0,
        geomean_error(rows),
    );
    o
}
