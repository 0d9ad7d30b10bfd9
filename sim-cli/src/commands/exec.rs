//! `simcli exec -- PROGRAM ARGS...`: runs an unmodified CUDA program
//! (built with `nvcc -cudart shared`) with the simulator's CUDA runtime
//! (sim-cudart) in place of NVIDIA's, then reports each launch.

use super::common::{parse_target, Sched, Setup};
use anyhow::{bail, Context, Result};
use sim_cli::output::{write_file, Inputs};
use sim_cli::report;
use sim_cudart::{LaunchRow, Settings, SETTINGS_ENV};
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The runtime library's file name as cargo builds it.
const RUNTIME_FILE: &str = "libsim_cudart.so";

/// The environment variable that may name the runtime library.
pub const RUNTIME_ENV: &str = "PTX_SM_SIM_CUDART";

/// The CUDA 12 runtime library's file name as cargo builds it
/// (`sim-cudart12`: the same runtime, as `libcudart.so.12`).
const RUNTIME12_FILE: &str = "libsim_cudart12.so";

/// The environment variable that may name the CUDA 12 runtime library.
pub const RUNTIME12_ENV: &str = "PTX_SM_SIM_CUDART12";

// A field list alike in shape to other records' (issue 27): its own fields, nothing to share.
/// What `exec` was asked.
pub struct ExecArgs {
    /// The configuration (`--arch`, `--config`, `--set`, ...).
    pub setup: Setup,
    /// `--config`, whose text the runtime reads again.
    pub config: Option<PathBuf>,
    /// `--set`, in order.
    pub sets: Vec<String>,
    /// `--sms`.
    pub sms: Option<usize>,
    /// `--threads`.
    pub threads: Option<usize>,
    /// `--sample`.
    pub sample: bool,
    /// `--report FILE.json|FILE.csv`.
    pub report: Option<PathBuf>,
    /// `--runtime FILE`: the runtime library.
    pub runtime: Option<PathBuf>,
    /// `--save-launches DIR`.
    pub save_launches: Option<PathBuf>,
    /// The program and its arguments.
    pub program: Vec<String>,
    /// Files read (`--config`): the report must not land on one.
    pub inputs: Inputs,
}

/// The runtime library: `--runtime`, else `$PTX_SM_SIM_CUDART`, else the
/// one cargo built beside this `simcli`.
pub fn find_runtime(given: Option<&Path>) -> Result<PathBuf> {
    if let Some(p) = given {
        if !p.is_file() {
            bail!("--runtime {}: no such file", p.display());
        }
        return Ok(p.to_path_buf());
    }
    if let Some(p) = std::env::var_os(RUNTIME_ENV) {
        let p = PathBuf::from(p);
        if !p.is_file() {
            bail!("{RUNTIME_ENV}={}: no such file", p.display());
        }
        return Ok(p);
    }
    let exe = std::env::current_exe().context("finding simcli's own folder")?;
    let dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
    for d in [Some(dir.clone()), dir.parent().map(Path::to_path_buf)]
        .into_iter()
        .flatten()
    {
        let p = d.join(RUNTIME_FILE);
        if p.is_file() {
            return Ok(p);
        }
    }
    bail!(
        "the simulator's CUDA runtime ({RUNTIME_FILE}) is not beside {}: build it with \
         `cargo build --release -p sim-cudart` (or name it with --runtime or {RUNTIME_ENV})",
        exe.display()
    )
}

/// The CUDA 12 runtime for a program that needs `libcudart.so.12`:
/// `$PTX_SM_SIM_CUDART12`, else `libsim_cudart12.so` beside the CUDA 13
/// one (`runtime13`: cargo builds the two into one folder).
fn find_runtime12(runtime13: &Path) -> Result<PathBuf> {
    if let Some(p) = std::env::var_os(RUNTIME12_ENV) {
        let p = PathBuf::from(p);
        if !p.is_file() {
            bail!("{RUNTIME12_ENV}={}: no such file", p.display());
        }
        return Ok(p);
    }
    let beside = runtime13.with_file_name(RUNTIME12_FILE);
    if beside.is_file() {
        return Ok(beside);
    }
    bail!(
        "the program was built against CUDA 12 (it needs libcudart.so.12) and the simulator's \
         CUDA 12 runtime ({RUNTIME12_FILE}) is not beside {}: build it with \
         `cargo build --release -p sim-cudart12` (or name it with {RUNTIME12_ENV})",
        runtime13.display()
    )
}

/// The CUDA runtimes a program's ELF file names (its DT_NEEDED entries
/// are strings in `.dynstr`): `[needs libcudart.so.12, needs .so.13]`.
fn cudart_versions(bytes: &[u8]) -> [bool; 2] {
    let names = |n: &[u8]| bytes.windows(n.len()).any(|w| w == n);
    [names(b"libcudart.so.12\0"), names(b"libcudart.so.13\0")]
}

/// Refuses a program that cannot load our runtime: one linked with the
/// static CUDA runtime (it carries kernels but names no libcudart.so).
/// Says whether it needs CUDA 12's runtime.
pub fn check_program(path: &Path) -> Result<bool> {
    let Ok(bytes) = sim_isa::bounded::read_file(path, 1 << 31) else {
        // Not readable here (a PATH lookup, a script): the loader decides.
        return Ok(false);
    };
    if !bytes.starts_with(b"\x7fELF") {
        return Ok(false);
    }
    let has_kernels =
        matches!(sim_fatbin::nv_fatbin_section(&bytes), Ok(Some(s)) if !s.data.is_empty());
    let shared = bytes.windows(12).any(|w| w == b"libcudart.so");
    if has_kernels && !shared {
        bail!(
            "{}: linked with the static CUDA runtime, which the simulator cannot stand in for: \
             rebuild it with `nvcc -cudart shared`",
            path.display()
        );
    }
    Ok(cudart_versions(&bytes)[0])
}

/// Where `program` is: as given if it names a folder, else found on PATH.
pub fn locate(program: &str) -> PathBuf {
    if program.contains('/') {
        return PathBuf::from(program);
    }
    std::env::var_os("PATH")
        .map(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join(program))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default()
        .into_iter()
        .find(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from(program))
}

/// `simcli exec`.
pub fn exec(a: &ExecArgs) -> Result<ExitCode> {
    let Some(program) = a.program.first() else {
        bail!("exec: name the program to run after `--`");
    };
    let runtime = find_runtime(a.runtime.as_deref())?;
    let runtime = runtime.canonicalize().unwrap_or(runtime);
    check_program(&locate(program))?;
    if let Some(r) = &a.report {
        report_format(r)?;
        a.inputs.check(r)?;
    }
    if let Some(d) = &a.save_launches {
        let busy = std::fs::read_dir(d)
            .map(|mut e| e.next().is_some())
            .unwrap_or(false);
        if busy || d.is_file() {
            bail!(
                "--save-launches {}: not an empty folder (saved launches never replace files)",
                d.display()
            );
        }
    }
    let settings = settings(a)?;
    // The same options the runtime will build: a bad one stops here.
    let opts = settings.run_options().map_err(anyhow::Error::msg)?;
    let (status, rows) = spawn(
        &a.program,
        &runtime,
        settings,
        std::process::Stdio::inherit(),
    )?;
    summary(&rows, &opts);
    if let Some(r) = &a.report {
        write_report(r, &a.inputs, program, &rows, &opts)?;
    }
    Ok(exit_code(status))
}

/// Runs `program` (the program, then its arguments) with the runtime
/// `runtime` in place of NVIDIA's and `settings` (their report file is
/// replaced by one of a temporary folder); its standard output goes to
/// `stdout`. The exit status and the launches the runtime reported.
pub fn spawn(
    program: &[String],
    runtime: &Path,
    mut settings: Settings,
    stdout: std::process::Stdio,
) -> Result<(std::process::ExitStatus, Vec<LaunchRow>)> {
    let Some(name) = program.first() else {
        bail!("exec: name the program to run after `--`");
    };
    let cuda12 = check_program(&locate(name))?;
    let dir = tempfile::Builder::new()
        .prefix("simcli-exec")
        .tempdir()
        .context("making a folder for the runtime")?;
    std::os::unix::fs::symlink(runtime, dir.path().join("libcudart.so.13"))
        .context("linking the runtime as libcudart.so.13")?;
    if cuda12 {
        let runtime12 = find_runtime12(runtime)?;
        std::os::unix::fs::symlink(&runtime12, dir.path().join("libcudart.so.12"))
            .context("linking the CUDA 12 runtime as libcudart.so.12")?;
    }
    let rows_path = dir.path().join("launches.jsonl");
    settings.report = Some(rows_path.clone());
    let settings_path = dir.path().join("settings.json");
    std::fs::write(&settings_path, serde_json::to_vec(&settings)?)
        .context("writing the runtime's settings")?;
    let mut path = std::ffi::OsString::from(dir.path());
    if let Some(old) = std::env::var_os("LD_LIBRARY_PATH") {
        path.push(":");
        path.push(old);
    }
    let status = std::process::Command::new(name)
        .args(&program[1..])
        .env("LD_LIBRARY_PATH", path)
        .env(SETTINGS_ENV, &settings_path)
        .stdout(stdout)
        .status()
        .with_context(|| format!("running {name}"))?;
    Ok((status, read_rows(&rows_path)?))
}

/// The program's exit status as simcli's: its code, or 128 + the signal.
fn exit_code(status: std::process::ExitStatus) -> ExitCode {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(c), _) => ExitCode::from(c as u8),
        (None, Some(s)) => ExitCode::from((128 + s).min(255) as u8),
        (None, None) => ExitCode::from(1),
    }
}

/// The settings the runtime reads.
fn settings(a: &ExecArgs) -> Result<Settings> {
    let config = match &a.config {
        Some(p) => {
            let text =
                sim_isa::bounded::read_file_string(p, sim_core::config_file::MAX_CONFIG_BYTES)
                    .with_context(|| format!("--config {}", p.display()))?;
            Some((p.display().to_string(), text))
        }
        None => None,
    };
    if let Some(arch) = &a.setup.arch {
        parse_target(arch)?;
    }
    Ok(Settings {
        arch: a.setup.arch.clone(),
        config,
        sets: a.sets.clone(),
        scheduler: a.setup.scheduler.map(|s| {
            match s {
                Sched::Lrr => "lrr",
                Sched::Gto => "gto",
                Sched::Oldest => "oldest",
            }
            .to_string()
        }),
        max_cycles: a.setup.max_cycles,
        max_instructions: a.setup.max_instructions,
        sms: a.sms.map(|n| n as u32),
        threads: a.threads,
        sample: a.sample,
        // `spawn` names the file.
        report: None,
        save_launches: match &a.save_launches {
            Some(d) => {
                std::fs::create_dir_all(d)
                    .with_context(|| format!("--save-launches {}", d.display()))?;
                Some(d.canonicalize().unwrap_or_else(|_| d.clone()))
            }
            None => None,
        },
    })
}

/// The launches the runtime reported, in order.
fn read_rows(path: &Path) -> Result<Vec<LaunchRow>> {
    let Ok(f) = std::fs::File::open(path) else {
        return Ok(Vec::new());
    };
    let mut rows = Vec::new();
    for (i, line) in std::io::BufReader::new(f).lines().enumerate() {
        let line = line.with_context(|| format!("reading the runtime's report, line {}", i + 1))?;
        let row: LaunchRow = serde_json::from_str(&line)
            .with_context(|| format!("the runtime's report, line {}", i + 1))?;
        rows.push(row);
    }
    Ok(rows)
}

/// One line on standard error for the whole program.
fn summary(rows: &[LaunchRow], opts: &sim_kernel::RunOptions) {
    let cycles: u64 = rows.iter().map(|r| r.cycles).sum();
    let instr: u64 = rows.iter().map(|r| r.instructions).sum();
    let failed = rows.iter().filter(|r| r.error.is_some()).count();
    eprintln!(
        "simcli exec: {} launches on {} ({} SMs): {cycles} cycles, {instr} warp-instructions{}",
        rows.len(),
        opts.config.name(),
        opts.sms,
        if failed > 0 {
            format!(", {failed} failed")
        } else {
            String::new()
        }
    );
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ReportFormat {
    Json,
    Csv,
}

fn report_format(p: &Path) -> Result<ReportFormat> {
    match p.extension().and_then(|e| e.to_str()) {
        Some("json") => Ok(ReportFormat::Json),
        Some("csv") => Ok(ReportFormat::Csv),
        _ => bail!("--report {}: name a .json or .csv file", p.display()),
    }
}

/// The columns `exec` adds before `run`'s.
const LAUNCH_COLUMNS: [&str; 6] = [
    "launch",
    "kernel",
    "grid",
    "block",
    "dynamic_shared",
    "start_cycle",
];

/// The run description (numbered by the launch) and report of one launch
/// of `program` (`--report`'s rows, and `simcli sweep`'s over programs).
pub(super) fn launch_report(
    program: &str,
    r: &LaunchRow,
    opts: &sim_kernel::RunOptions,
) -> (report::RunInfo, sim_core::Report) {
    let mut info = super::kernel::launch_info(program, r.warps as usize, opts);
    info.run = r.index;
    let rep = sim_core::Report {
        config: opts.config.name(),
        policy: opts.policy,
        sms: r.sms as usize,
        stats: r.stats.clone(),
        per_sm: Vec::new(),
    };
    (info, rep)
}

/// `--report`: one row (CSV) or object (JSON) per launch.
fn write_report(
    path: &Path,
    inputs: &Inputs,
    program: &str,
    rows: &[LaunchRow],
    opts: &sim_kernel::RunOptions,
) -> Result<()> {
    let dims = |d: [u32; 3]| format!("{}x{}x{}", d[0], d[1], d[2]);
    let of = |r: &LaunchRow| launch_report(program, r, opts);
    let bytes = match report_format(path)? {
        ReportFormat::Json => {
            let launches: Vec<serde_json::Value> = rows
                .iter()
                .map(|r| {
                    let (info, rep) = of(r);
                    let mut v = report::json(&info, &rep);
                    if let serde_json::Value::Object(o) = &mut v {
                        o.insert(
                            "launch".into(),
                            serde_json::to_value(LaunchSummary::of(r)).unwrap_or_default(),
                        );
                    }
                    v
                })
                .collect();
            let v = serde_json::json!({"program": program, "launches": launches});
            let mut b = serde_json::to_vec_pretty(&v)?;
            b.push(b'\n');
            b
        }
        ReportFormat::Csv => {
            let header: Vec<&str> = LAUNCH_COLUMNS
                .iter()
                .copied()
                .chain(report::csv_header())
                .collect();
            let records: Vec<Vec<String>> = rows
                .iter()
                .map(|r| {
                    let (info, rep) = of(r);
                    let mut row = vec![
                        r.index.to_string(),
                        r.kernel.clone(),
                        dims(r.grid),
                        dims(r.block),
                        r.dynamic_shared.to_string(),
                        r.start_cycle.to_string(),
                    ];
                    row.extend(report::csv_record(&info, &rep));
                    row
                })
                .collect();
            report::csv_bytes(&header, &records)?
        }
    };
    write_file(path, inputs, |w| w.write_all(&bytes))
        .with_context(|| format!("--report {}", path.display()))
}

/// A launch's own fields in the JSON report.
#[derive(serde::Serialize)]
struct LaunchSummary<'a> {
    index: u64,
    kernel: &'a str,
    grid: [u32; 3],
    block: [u32; 3],
    dynamic_shared: u32,
    warps: u64,
    instructions: u64,
    cycles: u64,
    start_cycle: u64,
    sampled: &'a Option<serde_json::Value>,
    error: &'a Option<String>,
}

impl<'a> LaunchSummary<'a> {
    fn of(r: &'a LaunchRow) -> LaunchSummary<'a> {
        LaunchSummary {
            index: r.index,
            kernel: &r.kernel,
            grid: r.grid,
            block: r.block,
            dynamic_shared: r.dynamic_shared,
            warps: r.warps,
            instructions: r.instructions,
            cycles: r.cycles,
            start_cycle: r.start_cycle,
            sampled: &r.sampled,
            error: &r.error,
        }
    }
}
