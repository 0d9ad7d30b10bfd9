//! Parameter sweeps (`simcli sweep`, `docs/sweeps.md`): the sweep file, its
//! runs (generated lazily from its axes), deterministic shards, and the
//! merge of shard CSVs.
//!
//! Runs are numbered in the order inputs (traces, kernel text and launch
//! files, then programs) x archs x parameter values (the
//! `[params]` keys sorted, the last varying fastest). Shard `I/N` takes the
//! runs whose number is `I` modulo `N`, so shards get similar mixes; every
//! CSV row starts with its run number, and [`merge`] puts rows back in run
//! order, so merged shards equal the unsharded sweep byte for byte.

use serde::Deserialize;
use sim_core::config_file::{ConfigError, ConfigLayer};
use std::collections::BTreeMap;
use toml::de::{DeTable, DeValue};

/// Why a sweep file, shard or merge was refused.
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    /// The sweep file is not valid TOML of the expected shape.
    #[error("{file}:{line}: {message}")]
    File {
        /// The sweep file.
        file: String,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A `[params]` entry is not a valid configuration value.
    #[error("{file}:{line}: [params] {source}")]
    Param {
        /// The sweep file.
        file: String,
        /// 1-based line of the key.
        line: usize,
        /// The configuration error (its key).
        source: ConfigError,
    },
    /// `--shard` (or the Slurm variables) is not `I/N` with `I < N`.
    #[error("shard '{0}': expected I/N with 0 <= I < N (e.g. 0/4)")]
    Shard(String),
    /// A CSV to merge could not be read.
    #[error("{file}: {source}")]
    Csv {
        /// The file.
        file: String,
        /// The reader's error (with its line).
        source: csv::Error,
    },
    /// The CSVs to merge do not fit together.
    #[error("{file}: {message}")]
    Merge {
        /// The file at fault.
        file: String,
        /// What is wrong.
        message: String,
    },
}

/// The sweep file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SweepFile {
    #[serde(default)]
    traces: Vec<String>,
    /// Programs run under `simcli exec`: each the program, then its arguments.
    #[serde(default)]
    programs: Vec<Vec<String>>,
    #[serde(default)]
    archs: Vec<String>,
    sms: Option<usize>,
    #[serde(default)]
    params: toml::Table,
}

/// What one run simulates.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum SweepInput {
    /// A trace, kernel text or launch file (told apart as `simcli run` does).
    File(String),
    /// A program and its arguments, run under `simcli exec`: each of its
    /// launches gives a row.
    Program(Vec<String>),
}

impl SweepInput {
    /// The input as the CSV's `input` column names it: the file, or the
    /// program and its arguments joined by spaces.
    pub fn name(&self) -> String {
        match self {
            SweepInput::File(f) => f.clone(),
            SweepInput::Program(p) => p.join(" "),
        }
    }
}

// A field list alike in shape to other records' (issue 27): its own fields, nothing to share.
/// One run of a sweep.
#[derive(Clone, Debug)]
pub struct SweepRun {
    /// Its number in the whole sweep (the CSV's `run` column).
    pub index: u64,
    /// The input, as the sweep file names it.
    pub input: SweepInput,
    /// The target (`None`: the trace's own).
    pub arch: Option<String>,
    /// The overrides, `key=value` as `--set` takes them, in key order.
    pub sets: Vec<String>,
    /// The same, checked.
    pub layers: Vec<ConfigLayer>,
}

/// A parsed sweep: its axes, each value checked once; runs are generated
/// from them as they are needed ([`Sweep::runs`]), never all at once, so a
/// sweep costs its axes' size, not their product's.
#[derive(Clone, Debug)]
pub struct Sweep {
    inputs: Vec<SweepInput>,
    /// The targets (`None`: each trace's own).
    archs: Vec<Option<String>>,
    /// Per `[params]` key, in key order: each value as `--set` text, checked.
    axes: Vec<Vec<(String, ConfigLayer)>>,
    /// Runs in all (at most [`MAX_RUNS`]).
    count: u64,
    /// SMs per run (`None`: 1 for traces, the whole GPU for launches).
    pub sms: Option<usize>,
}

/// The most runs one sweep file may describe. `simcli sweep` holds every
/// run's CSV rows until it writes them in run order (a few KiB a run with
/// the per-opcode rows), so this bounds its memory to a few hundred MiB; a
/// larger study is several sweep files (or one per parameter value).
pub const MAX_RUNS: u64 = 100_000;

impl Sweep {
    /// Runs in the whole sweep.
    pub fn len(&self) -> u64 {
        self.count
    }

    /// Whether the sweep has no runs (never: a sweep has an input).
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Every input the sweep names, in order.
    pub fn inputs(&self) -> &[SweepInput] {
        &self.inputs
    }

    /// How many runs `shard` takes.
    pub fn shard_len(&self, shard: Shard) -> usize {
        match self.count.checked_sub(shard.index) {
            Some(left) if left > 0 => ((left - 1) / shard.count + 1) as usize,
            _ => 0,
        }
    }

    /// The runs of `shard`, in run order, generated one at a time.
    pub fn runs(&self, shard: Shard) -> Runs<'_> {
        let mut radices = vec![self.inputs.len() as u64, self.archs.len() as u64];
        radices.extend(self.axes.iter().map(|a| a.len() as u64));
        let mut r = Runs {
            sweep: self,
            digits: vec![0; radices.len()],
            radices,
            next: 0,
            step: shard.count,
        };
        r.advance(shard.index);
        r
    }
}

/// An odometer over a sweep's axes (inputs, archs, then each `[params]` key,
/// the last fastest), stepping a shard's stride at a time.
#[derive(Clone, Debug)]
pub struct Runs<'a> {
    sweep: &'a Sweep,
    radices: Vec<u64>,
    digits: Vec<u64>,
    /// The run number `digits` stand for.
    next: u64,
    step: u64,
}

impl Runs<'_> {
    /// Moves the odometer `n` runs on (mixed-radix addition).
    fn advance(&mut self, n: u64) {
        self.next = self.next.saturating_add(n);
        let mut carry = u128::from(n);
        for (d, &r) in self.digits.iter_mut().zip(&self.radices).rev() {
            if carry == 0 {
                break;
            }
            let v = u128::from(*d) + carry;
            let r = u128::from(r.max(1));
            *d = (v % r) as u64;
            carry = v / r;
        }
    }
}

impl Iterator for Runs<'_> {
    type Item = SweepRun;

    fn next(&mut self) -> Option<SweepRun> {
        if self.next >= self.sweep.count {
            return None;
        }
        let s = self.sweep;
        let (t, a) = (self.digits[0] as usize, self.digits[1] as usize);
        let chosen: Vec<&(String, ConfigLayer)> = s
            .axes
            .iter()
            .zip(&self.digits[2..])
            .map(|(axis, &p)| &axis[p as usize])
            .collect();
        let run = SweepRun {
            index: self.next,
            input: s.inputs[t].clone(),
            arch: s.archs[a].clone(),
            sets: chosen.iter().map(|(x, _)| x.clone()).collect(),
            layers: chosen.iter().map(|(_, l)| l.clone()).collect(),
        };
        self.advance(self.step);
        Some(run)
    }
}

/// Flattens `[params]` tables into dotted keys with their value lists.
fn flatten(prefix: &str, t: &toml::Table, out: &mut BTreeMap<String, Vec<toml::Value>>) {
    for (k, v) in t {
        let key = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match v {
            toml::Value::Table(sub) => flatten(&key, sub, out),
            toml::Value::Array(a) => {
                out.insert(key, a.clone());
            }
            v => {
                out.insert(key, vec![v.clone()]);
            }
        }
    }
}

/// The 1-based line of each `[params]` key of `text` (dotted, as
/// [`flatten`] names it), for errors. `text` has already parsed: a key not
/// found here is placed on line 1.
fn param_lines(text: &str) -> BTreeMap<String, usize> {
    fn walk(prefix: &str, t: &DeTable<'_>, text: &str, out: &mut BTreeMap<String, usize>) {
        for (k, v) in t.iter() {
            let key = if prefix.is_empty() {
                k.get_ref().to_string()
            } else {
                format!("{prefix}.{}", k.get_ref())
            };
            match v.get_ref() {
                DeValue::Table(sub) => walk(&key, sub, text, out),
                _ => {
                    out.insert(key, line_at(text, k.span().start));
                }
            }
        }
    }
    let mut out = BTreeMap::new();
    if let Ok(doc) = DeTable::parse(text) {
        if let Some(DeValue::Table(params)) = doc.get_ref().get("params").map(|v| v.get_ref()) {
            walk("", params, text, &mut out);
        }
    }
    out
}

/// The 1-based line of byte `at` of `text`.
fn line_at(text: &str, at: usize) -> usize {
    1 + text[..at.min(text.len())].matches('\n').count()
}

/// The largest sweep file read, in bytes (a sweep of thousands of runs is a
/// few KiB: its axes multiply).
pub const MAX_SWEEP_BYTES: u64 = 1 << 20;

/// The largest CSV file `simcli merge` reads, in bytes, each (a row is a
/// few hundred bytes: about a million rows).
pub const MAX_MERGE_BYTES: u64 = 256 << 20;

/// Reads a sweep file (`file` names it in errors) and lists its runs.
pub fn parse(text: &str, file: &str) -> Result<Sweep, SweepError> {
    let bad = |line: usize, message: String| SweepError::File {
        file: file.to_string(),
        line,
        message,
    };
    let f: SweepFile = toml::from_str(text).map_err(|e| {
        let line = e.span().map_or(1, |s| line_at(text, s.start));
        bad(line, e.message().to_string())
    })?;
    if f.traces.is_empty() && f.programs.is_empty() {
        return Err(bad(
            1,
            "traces, programs: at least one trace, launch file or program is needed".into(),
        ));
    }
    if f.programs.iter().any(Vec::is_empty) {
        return Err(bad(
            1,
            "programs: each entry is [PROGRAM, ARGS...], not empty".into(),
        ));
    }
    if let Some(Err(e)) = f.sms.map(|n| sim_core::config_file::check_sms(n as u64)) {
        return Err(bad(1, format!("sms: {e}")));
    }
    let n_inputs = f.traces.len() + f.programs.len();
    let mut params = BTreeMap::new();
    flatten("", &f.params, &mut params);
    let lines = param_lines(text);
    let line_of = |key: &str| lines.get(key).copied().unwrap_or(1);
    // Each key's values as `--set` text, checked now so a bad value fails before any run.
    let mut axes: Vec<Vec<(String, ConfigLayer)>> = Vec::new();
    for (key, values) in &params {
        if values.is_empty() {
            return Err(bad(
                line_of(key),
                format!("[params] {key}: the list is empty"),
            ));
        }
        let mut axis = Vec::new();
        for v in values {
            let text = match v {
                toml::Value::String(s) => format!("{key}={s}"),
                v => format!("{key}={v}"),
            };
            let layer = ConfigLayer::parse_set(&text).map_err(|source| SweepError::Param {
                file: file.to_string(),
                line: line_of(key),
                source,
            })?;
            axis.push((text, layer));
        }
        axes.push(axis);
    }
    if let Some(bad_arch) = f.archs.iter().find(|a| sim_isa::Target::parse(a).is_err()) {
        return Err(bad(
            1,
            format!("archs: '{bad_arch}' is not a target (sm_XY)"),
        ));
    }
    let archs: Vec<Option<String>> = if f.archs.is_empty() {
        vec![None]
    } else {
        f.archs.iter().cloned().map(Some).collect()
    };
    // The count, before any run is made; the message gives each factor.
    let mut factors = vec![n_inputs, archs.len()];
    factors.extend(axes.iter().map(Vec::len));
    let count = factors
        .iter()
        .try_fold(1u64, |n, &k| n.checked_mul(k as u64))
        .filter(|&n| n <= MAX_RUNS)
        .ok_or_else(|| {
            let values: Vec<String> = factors[2..].iter().map(usize::to_string).collect();
            let n = factors
                .iter()
                .try_fold(1u128, |n, &k| n.checked_mul(k as u128))
                .map_or_else(|| "more than 2^128".to_string(), |n| n.to_string());
            let values = if values.is_empty() {
                String::new()
            } else {
                format!(" x {} values", values.join(" x "))
            };
            bad(
                1,
                format!(
                    "the sweep has {n} runs ({} traces x {} archs{values}), more than the limit of {MAX_RUNS}",
                    factors[0], factors[1]
                ),
            )
        })?;
    let inputs = f
        .traces
        .into_iter()
        .map(SweepInput::File)
        .chain(f.programs.into_iter().map(SweepInput::Program))
        .collect();
    Ok(Sweep {
        inputs,
        archs,
        axes,
        count,
        sms: f.sms,
    })
}

/// A slice of a sweep: shard `index` of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This shard, from 0.
    pub index: u64,
    /// Shards in all.
    pub count: u64,
}

impl Shard {
    /// The whole sweep.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// Parses `I/N`.
    pub fn parse(s: &str) -> Result<Shard, SweepError> {
        let bad = || SweepError::Shard(s.to_string());
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            i.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// The Slurm job array's shard, from `SLURM_ARRAY_TASK_ID`,
    /// `SLURM_ARRAY_TASK_COUNT` and `SLURM_ARRAY_TASK_MIN` (task ids need not
    /// start at 0), read through `var`; `None` outside an array job.
    pub fn from_slurm(var: impl Fn(&str) -> Option<String>) -> Result<Option<Shard>, SweepError> {
        let (Some(id), Some(count)) = (var("SLURM_ARRAY_TASK_ID"), var("SLURM_ARRAY_TASK_COUNT"))
        else {
            return Ok(None);
        };
        let min = var("SLURM_ARRAY_TASK_MIN").unwrap_or_else(|| "0".into());
        let text = format!("{id}-{min}/{count}");
        let bad = || SweepError::Shard(text.clone());
        let (id, min): (u64, u64) = (
            id.parse().map_err(|_| bad())?,
            min.parse().map_err(|_| bad())?,
        );
        let index = id.checked_sub(min).ok_or_else(bad)?;
        Shard::parse(&format!("{index}/{count}")).map(Some)
    }

    /// Whether run `index` belongs to this shard.
    pub fn takes(&self, index: u64) -> bool {
        index % self.count == self.index
    }
}

/// Merges CSV files of runs (shards of a sweep, or single runs): one header
/// (every file's must be the same), then every row ordered by its `run`
/// column, rows of one run in their file's order. A run found in two files
/// is refused. `files` are (name, content) pairs.
pub fn merge(files: &[(String, Vec<u8>)]) -> Result<Vec<u8>, SweepError> {
    let mut header: Option<(String, csv::StringRecord)> = None;
    let mut rows: Vec<(u64, usize, csv::StringRecord)> = Vec::new();
    let mut owner: BTreeMap<u64, usize> = BTreeMap::new();
    for (fi, (name, bytes)) in files.iter().enumerate() {
        let csv_err = |source| SweepError::Csv {
            file: name.clone(),
            source,
        };
        let merge_err = |message: String| SweepError::Merge {
            file: name.clone(),
            message,
        };
        let mut r = csv::ReaderBuilder::new().from_reader(bytes.as_slice());
        let h = r.headers().map_err(csv_err)?.clone();
        if h.get(0) != Some("run") {
            return Err(merge_err(
                "the first column is not `run`: not a simcli CSV".into(),
            ));
        }
        match &header {
            Some((first, want)) if *want != h => {
                return Err(merge_err(format!("its columns differ from {first}'s")));
            }
            Some(_) => {}
            None => header = Some((name.clone(), h)),
        }
        for rec in r.records() {
            let rec = rec.map_err(csv_err)?;
            let line = rec.position().map_or(0, |p| p.line());
            let run: u64 = rec
                .get(0)
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| merge_err(format!("line {line}: `run` is not a number")))?;
            match owner.insert(run, fi) {
                Some(other) if other != fi => {
                    return Err(merge_err(format!(
                        "run {run} is also in {}",
                        files[other].0
                    )));
                }
                _ => {}
            }
            rows.push((run, rows.len(), rec));
        }
    }
    let Some((_, header)) = header else {
        return Err(SweepError::Merge {
            file: "(none)".into(),
            message: "no files to merge".into(),
        });
    };
    rows.sort_by_key(|&(run, seq, _)| (run, seq));
    let mut w = csv::Writer::from_writer(Vec::new());
    let io = |source: csv::Error| SweepError::Csv {
        file: "(merged output)".into(),
        source,
    };
    w.write_record(&header).map_err(io)?;
    for (_, _, rec) in &rows {
        w.write_record(rec).map_err(io)?;
    }
    w.into_inner().map_err(|e| io(e.into_error().into()))
}
