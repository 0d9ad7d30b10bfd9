//! `simcli sweep` and `simcli merge`: the runs of a sweep file (or one
//! shard of them) on `--jobs` threads into one CSV, and shards joined.
//! A run is a trace or kernel text replayed, a launch file run, or a
//! program run under `simcli exec` (`sweep_exec.rs`; one row per launch).

use super::common::{open_input, print_out, read_all};
use super::progress::with_progress;
use super::run::{replay_trace, resolve_for};
use super::sweep_exec::{self, setup_of, tagged, Loaded, Rows, SWEEP_COLUMNS};
use anyhow::{anyhow, Context, Result};
use sim_cli::output::{check_outputs, write_file, Inputs, Output};
use sim_cli::report;
use sim_cli::sweep::{self, Shard, SweepInput, SweepRun};
use sim_trace::replay::ReplayError;
use sim_trace::trace::Trace;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `sweep`'s options.
pub struct SweepArgs {
    pub file: PathBuf,
    pub output: Option<PathBuf>,
    pub opcode_csv: Option<PathBuf>,
    pub shard: Option<String>,
    pub jobs: usize,
}

fn trace_run(r: &SweepRun, name: &str, trace: &Trace, sms: usize) -> Result<Rows> {
    let resolved = resolve_for(name, trace, &setup_of(r))?;
    let mut out = replay_trace(name, trace, resolved, sms, 1, 0);
    out.info.run = r.index;
    let rep = match out.result {
        Ok(rep) => rep.report,
        Err(ReplayError::Limit { message, .. }) => return Err(anyhow!("{message}")),
        Err(e) => return Err(e.into()),
    };
    let ops = report::opcode_csv_records(&out.info, &rep)
        .into_iter()
        .map(|o| tagged(o, "", ""))
        .collect();
    Ok((
        vec![tagged(report::csv_record(&out.info, &rep), "", "")],
        ops,
    ))
}

/// One run of the sweep, on the input `loaded` holds for it.
fn one_run(r: &SweepRun, loaded: &Loaded, sms: Option<usize>) -> Result<Rows> {
    let name = r.input.name();
    match loaded {
        Loaded::Trace(t) => trace_run(r, &name, t, sms.unwrap_or(1)),
        Loaded::Launch(path) => sweep_exec::launch_run(r, path, sms),
        Loaded::Program(runtime) => match &r.input {
            SweepInput::Program(p) => sweep_exec::program_run(r, p, runtime, sms),
            SweepInput::File(_) => Err(anyhow!("{name}: not a program")),
        },
    }
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
    let loaded = sweep_exec::load_inputs(spec.runs(shard), &mut inputs)?;
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
                    let out = loaded
                        .get(&r.input)
                        .ok_or_else(|| anyhow!("{}: not loaded", r.input.name()))
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
        rows.extend(r.0);
        op_rows.extend(r.1);
    }
    let with = |h: Vec<&'static str>| -> Vec<&'static str> {
        h.into_iter().chain(SWEEP_COLUMNS).collect()
    };
    if let Some(p) = &a.opcode_csv {
        let bytes = report::csv_bytes(&with(report::opcode_csv_header()), &op_rows)?;
        write_file(p, &inputs, |w| w.write_all(&bytes))?;
    }
    let bytes = report::csv_bytes(&with(report::csv_header()), &rows)?;
    emit(a.output.as_deref(), &inputs, &bytes)?;
    Ok(ExitCode::SUCCESS)
}

fn describe(r: &SweepRun) -> String {
    let mut parts = vec![r.input.name()];
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
