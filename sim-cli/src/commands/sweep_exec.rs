//! `simcli sweep` beyond traces: each input loaded (or checked) once, a
//! launch file run as `simcli run LAUNCH.json` runs it, and a program run
//! under `simcli exec` with the run's overrides, one CSV row per launch.

use super::common::{open_input, Sched, Setup};
use super::exec;
use super::kernel::{self, Kind};
use anyhow::{anyhow, bail, Context, Result};
use sim_cli::output::Inputs;
use sim_cli::report;
use sim_cli::sweep::{SweepInput, SweepRun};
use sim_cudart::Settings;
use sim_trace::trace::Trace;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

/// One run's CSV rows: its totals rows (one, or one per launch of a
/// program) and their per-opcode rows.
pub(super) type Rows = (Vec<Vec<String>>, Vec<Vec<String>>);

/// The columns a sweep's CSVs end with: the launch's kernel and
/// its index in the program (empty for traces; 0 for a launch file).
pub(super) const SWEEP_COLUMNS: [&str; 2] = ["kernel", "launch"];

/// `row` of one launch (or trace) with the [`SWEEP_COLUMNS`].
pub(super) fn tagged(mut row: Vec<String>, kernel: &str, launch: &str) -> Vec<String> {
    row.extend([kernel.to_string(), launch.to_string()]);
    row
}

/// The configuration a run's overrides give.
pub(super) fn setup_of(r: &SweepRun) -> Setup {
    Setup {
        arch: r.arch.clone(),
        layers: r.layers.clone(),
        scheduler: None::<Sched>,
        ..Setup::default()
    }
}

/// What a sweep input needs for its runs.
pub(super) enum Loaded {
    /// A trace or kernel text, parsed once (boxed: it dwarfs the paths).
    Trace(Box<Trace>),
    /// A launch file (read again by each run: its buffers are per run).
    Launch(PathBuf),
    /// A program, with the runtime library it runs on.
    Program(PathBuf),
}

/// Loads (or checks) every input the runs name, once each, recording the
/// files read as inputs, so no output lands on one.
pub(super) fn load_inputs(
    runs: impl Iterator<Item = SweepRun>,
    inputs: &mut Inputs,
) -> Result<BTreeMap<SweepInput, Loaded>> {
    let mut loaded = BTreeMap::new();
    let mut runtime: Option<PathBuf> = None;
    for r in runs {
        if loaded.contains_key(&r.input) {
            continue;
        }
        let l = match &r.input {
            SweepInput::File(f) => load_file(Path::new(f), inputs)?,
            SweepInput::Program(p) => {
                let Some(first) = p.first() else {
                    bail!("programs: an entry names no program");
                };
                exec::check_program(&exec::locate(first))?;
                let rt = match &runtime {
                    Some(rt) => rt.clone(),
                    None => {
                        let rt = exec::find_runtime(None)?;
                        let rt = rt.canonicalize().unwrap_or(rt);
                        runtime = Some(rt.clone());
                        rt
                    }
                };
                Loaded::Program(rt)
            }
        };
        loaded.insert(r.input.clone(), l);
    }
    Ok(loaded)
}

/// A trace or kernel text (parsed) or a launch file (checked).
fn load_file(path: &Path, inputs: &mut Inputs) -> Result<Loaded> {
    let (name, rd) = open_input(path, inputs)?;
    let mut rd = BufReader::new(rd);
    let head = rd.fill_buf().with_context(|| format!("reading {name}"))?;
    match kernel::detect(head) {
        Some(Kind::Launch) => {
            kernel::read_launch(path, &name, inputs)?;
            Ok(Loaded::Launch(path.to_path_buf()))
        }
        Some(Kind::Recording) => bail!(
            "{name}: a kernel recording replays one configuration's run; sweep its launch file instead"
        ),
        None => Ok(Loaded::Trace(Box::new(sim_trace::load::load(&name, rd)?.0))),
    }
}

/// A launch file under the run's overrides, on one host thread.
pub(super) fn launch_run(r: &SweepRun, path: &Path, sms: Option<usize>) -> Result<Rows> {
    let name = path.display().to_string();
    let mut opts = kernel::options(&setup_of(r), kernel::LAUNCH_TARGET, sms)?;
    opts.threads = 1;
    let run = sim_kernel::run_launch(path, &opts).with_context(|| format!("running {name}"))?;
    let mut info = kernel::launch_info(&name, run.warps as usize, &opts);
    info.run = r.index;
    info.memory = Some(run.timed.memory);
    let rep = kernel::report_of(&opts.config, &opts, opts.sms as usize, &run);
    let entry = run.launch.entry.as_str();
    let ops = report::opcode_csv_records(&info, &rep)
        .into_iter()
        .map(|o| tagged(o, entry, "0"))
        .collect();
    Ok((
        vec![tagged(report::csv_record(&info, &rep), entry, "0")],
        ops,
    ))
}

/// A program under `simcli exec` with the run's overrides, on one host
/// thread per launch; its standard output is dropped (the CSV may be on
/// ours), its standard error passes through.
pub(super) fn program_run(
    r: &SweepRun,
    program: &[String],
    runtime: &Path,
    sms: Option<usize>,
) -> Result<Rows> {
    let name = program.join(" ");
    let settings = Settings {
        arch: r.arch.clone(),
        sets: r.sets.clone(),
        sms: sms.map(|n| n as u32),
        threads: Some(1),
        ..Settings::default()
    };
    let opts = settings.run_options().map_err(|e| anyhow!("{name}: {e}"))?;
    let (status, launches) = exec::spawn(program, runtime, settings, std::process::Stdio::null())?;
    if let Some(bad) = launches.iter().find(|l| l.error.is_some()) {
        bail!(
            "{name}: launch {} ({}): {}",
            bad.index,
            bad.kernel,
            bad.error.as_deref().unwrap_or_default()
        );
    }
    if !status.success() {
        bail!("{name}: the program exited with {status}");
    }
    if launches.is_empty() {
        bail!("{name}: the program launched no kernels");
    }
    let (mut rows, mut ops) = (Vec::new(), Vec::new());
    for l in &launches {
        let (mut info, rep) = exec::launch_report(&name, l, &opts);
        info.run = r.index;
        let index = l.index.to_string();
        rows.push(tagged(report::csv_record(&info, &rep), &l.kernel, &index));
        ops.extend(
            report::opcode_csv_records(&info, &rep)
                .into_iter()
                .map(|o| tagged(o, &l.kernel, &index)),
        );
    }
    Ok((rows, ops))
}
