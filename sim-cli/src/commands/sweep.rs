//! `simcli sweep` and `simcli merge`: the runs of a sweep file (or one
//! shard of them) on `--jobs` threads into one CSV, and shards joined.

use super::common::{open_input, print_out, read_all, Sched, Setup};
use super::progress::with_progress;
use super::run::{replay_trace, resolve_for};
use anyhow::{anyhow, Context, Result};
use sim_cli::output::{check_outputs, write_file, Inputs, Output};
use sim_cli::report;
use sim_cli::sweep::{self, Shard, SweepRun};
use sim_trace::replay::ReplayError;
use sim_trace::trace::Trace;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

/// `sweep`'s options.
pub struct SweepArgs {
    pub file: PathBuf,
    pub output: Option<PathBuf>,
    pub opcode_csv: Option<PathBuf>,
    pub shard: Option<String>,
    pub jobs: usize,
}

/// One run's CSV rows: the totals row and its per-opcode rows.
type Rows = (Vec<String>, Vec<Vec<String>>);

/// Loads every trace the runs name, once each (recording them as inputs).
fn load_traces(
    runs: impl Iterator<Item = SweepRun>,
    inputs: &mut Inputs,
) -> Result<BTreeMap<String, Arc<Trace>>> {
    let mut traces = BTreeMap::new();
    for r in runs {
        if !traces.contains_key(&r.trace) {
            let (name, rd) = open_input(Path::new(&r.trace), inputs)?;
            let (t, _) = sim_trace::load::load(&name, rd)?;
            traces.insert(r.trace.clone(), Arc::new(t));
        }
    }
    Ok(traces)
}

fn one_run(r: &SweepRun, trace: &Trace, sms: usize) -> Result<Rows> {
    let setup = Setup {
        arch: r.arch.clone(),
        layers: r.layers.clone(),
        scheduler: None::<Sched>,
        ..Setup::default()
    };
    let resolved = resolve_for(&r.trace, trace, &setup)?;
    let mut out = replay_trace(&r.trace, trace, resolved, sms, 1, 0);
    out.info.run = r.index;
    let rep = match out.result {
        Ok(rep) => rep.report,
        Err(ReplayError::Limit { message, .. }) => return Err(anyhow!("{message}")),
        Err(e) => return Err(e.into()),
    };
    Ok((
        report::csv_record(&out.info, &rep),
        report::opcode_csv_records(&out.info, &rep),
    ))
}

/// `simcli sweep`.
pub fn sweep(a: &SweepArgs) -> Result<ExitCode> {
    let mut inputs = Inputs::new();
    let (name, r) = open_input(&a.file, &mut inputs)?;
    let text = read_all(r, &name, sweep::MAX_SWEEP_BYTES)?;
    let spec = sweep::parse(&text, &name)?;
    let shard = match &a.shard {
        Some(s) => Shard::parse(s)?,
        None => Shard::from_slurm(|k| std::env::var(k).ok())?.unwrap_or(Shard::ALL),
    };
    // The shard's runs are generated from the axes as the workers take
    // them; `sweep::parse` bounded their number (`sweep::MAX_RUNS`).
    let traces = load_traces(spec.runs(shard), &mut inputs)?;
    let n = spec.shard_len(shard);
    let mut outputs = vec![match &a.output {
        Some(p) => Output::file("-o", p),
        None => Output::stdout("the CSV"),
    }];
    outputs.extend(
        a.opcode_csv
            .as_deref()
            .map(|p| Output::file("--opcode-csv", p)),
    );
    check_outputs(&outputs, &inputs)?;
    let jobs = a.jobs.clamp(1, n.max(1));
    let results: Vec<std::sync::Mutex<Option<Result<Rows>>>> =
        (0..n).map(|_| Default::default()).collect();
    // The odometer, shared: each worker takes the next run and its place.
    let next = std::sync::Mutex::new(spec.runs(shard).enumerate());
    let label = format!("runs of {name} (shard {}/{})", shard.index, shard.count);
    with_progress(&label, n as u64, |progress| {
        std::thread::scope(|scope| {
            for _ in 0..jobs {
                scope.spawn(|| loop {
                    let taken = next.lock().ok().and_then(|mut it| it.next());
                    let Some((i, r)) = taken else { break };
                    let Some(slot) = results.get(i) else { break };
                    let out = traces
                        .get(&r.trace)
                        .ok_or_else(|| anyhow!("{}: not loaded", r.trace))
                        .and_then(|t| one_run(&r, t, spec.sms))
                        .with_context(|| format!("{name}: run {} ({})", r.index, describe(&r)));
                    if let Ok(mut slot) = slot.lock() {
                        *slot = Some(out);
                    }
                    progress.step();
                });
            }
        })
    });
    let (mut rows, mut op_rows) = (Vec::new(), Vec::new());
    for slot in results {
        let r = slot
            .into_inner()
            .ok()
            .flatten()
            .ok_or_else(|| anyhow!("a sweep worker stopped early"))??;
        rows.push(r.0);
        op_rows.extend(r.1);
    }
    if let Some(p) = &a.opcode_csv {
        let bytes = report::csv_bytes(&report::opcode_csv_header(), &op_rows)?;
        write_file(p, &inputs, |w| w.write_all(&bytes))?;
    }
    let bytes = report::csv_bytes(&report::csv_header(), &rows)?;
    emit(a.output.as_deref(), &inputs, &bytes)?;
    Ok(ExitCode::SUCCESS)
}

fn describe(r: &SweepRun) -> String {
    let mut parts = vec![r.trace.clone()];
    parts.extend(r.arch.clone());
    parts.extend(r.sets.iter().cloned());
    parts.join(", ")
}

fn emit(output: Option<&Path>, inputs: &Inputs, bytes: &[u8]) -> Result<()> {
    match output {
        Some(p) => Ok(write_file(p, inputs, |w| w.write_all(bytes))?),
        None => print_out(&String::from_utf8_lossy(bytes)),
    }
}

/// `simcli merge`.
pub fn merge(files: &[PathBuf], output: Option<&Path>) -> Result<ExitCode> {
    let mut inputs = Inputs::new();
    let mut contents = Vec::new();
    for f in files {
        let (name, r) = open_input(f, &mut inputs)?;
        let bytes = sim_isa::bounded::read_limited(r, Path::new(&name), sweep::MAX_MERGE_BYTES)?;
        contents.push((name, bytes));
    }
    if let Some(p) = output {
        check_outputs(&[Output::file("-o", p)], &inputs)?;
    }
    let merged = sweep::merge(&contents)?;
    emit(output, &inputs, &merged)?;
    Ok(ExitCode::SUCCESS)
}
