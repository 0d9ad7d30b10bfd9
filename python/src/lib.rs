//! Python bindings (module `ptx_sm_sim._native`; the package `ptx_sm_sim`
//! wraps it): `simulate_json` runs a kernel-text or binary-trace file,
//! `Sm` is the host stepping API of one SM, `conform_json` runs conformance
//! vectors, `Module` launches a PTX module's kernels on a device of its own
//! (`launch.rs`), `read_launch` reads a launch file (`launchfile.rs`). Reports cross the boundary as JSON; the Python side
//! decodes them.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

mod launch;
mod launchfile;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use sim_core::config_file::{self, ConfigLayer};
use sim_core::{preset, Deferred, Program, Progress, SchedPolicy};
use sim_isa::{RegId, Symbols, Target, WARP_SIZE};
use sim_trace::load::load;
use sim_trace::replay::{replay, RunOptions};
use std::sync::Arc;

pub(crate) fn err(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

pub(crate) fn target(arch: &str) -> PyResult<Target> {
    Target::parse(arch).map_err(err)
}

fn policy(name: &str) -> PyResult<SchedPolicy> {
    SchedPolicy::parse(name).ok_or_else(|| {
        err(format!(
            "unknown scheduling policy '{name}' (lrr, gto, oldest)"
        ))
    })
}

/// Simulates a kernel-text or binary-trace file; returns the report as JSON.
/// The SM is `arch`'s preset, then the TOML file `config` (as `simcli
/// config` prints it), then each `KEY=VALUE` of `sets` (`simcli run --set`).
#[pyfunction]
#[pyo3(signature = (path, arch = "sm_90", policy = "lrr", sms = 1, threads = 1, config = None, sets = Vec::new()))]
fn simulate_json(
    path: &str,
    arch: &str,
    policy: &str,
    sms: usize,
    threads: usize,
    config: Option<&str>,
    sets: Vec<String>,
) -> PyResult<String> {
    // The same reader as `simcli run`: one pass, either format, size limits
    // enforced while reading.
    let file = std::fs::File::open(path).map_err(|e| err(format!("reading {path}: {e}")))?;
    let (trace, _) = load(path, std::io::BufReader::new(file)).map_err(err)?;
    let target = target(arch)?;
    if let Err(r) = trace.check_target(target, trace.version) {
        return Err(err(format!("{path}:{}: {}: {}", r.line, r.text, r.error)));
    }
    let mut layers = Vec::new();
    if let Some(c) = config {
        // Counted while reading, as simcli and the C API read it.
        let text = sim_isa::bounded::read_file_string(
            std::path::Path::new(c),
            config_file::MAX_CONFIG_BYTES,
        )
        .map_err(err)?;
        layers.push(ConfigLayer::parse(&text, c).map_err(err)?);
    }
    for s in &sets {
        layers.push(ConfigLayer::parse_set(s).map_err(err)?);
    }
    let (sm, sched) = config_file::build(&layers, target, self::policy(policy)?);
    // simcli's bounds (`--sms`, `--threads`), before anything is allocated.
    config_file::check_counts(sms as u64, threads as u64).map_err(err)?;
    let opts = RunOptions {
        sms,
        threads,
        policy: sched,
        ..RunOptions::new(sm.target)
    };
    let run = replay(&trace, sm, &opts, 0).map_err(err)?;
    serde_json::to_string(&run.report).map_err(err)
}

/// Runs a conformance-vector file; returns its summary as JSON.
#[pyfunction]
fn conform_json(path: &str) -> PyResult<String> {
    // A stream, line by line, as `simcli conform` reads it: each line is
    // bounded (`conform::MAX_LINE_BYTES`), so `/dev/zero` stops at the first.
    let file = std::fs::File::open(path).map_err(|e| err(format!("reading {path}: {e}")))?;
    let s = sim_isa::conform::run_reader(std::io::BufReader::new(file), |_| {})
        .map_err(|e| err(format!("reading {path}: {e}")))?;
    Ok(format!(
        "{{\"passed\": {}, \"failed\": {}, \"skipped\": {}}}",
        s.passed, s.failed, s.skipped
    ))
}

/// One SM driven by the host: host-fed warps, stepping, registers.
#[pyclass(unsendable, subclass, module = "ptx_sm_sim._native")]
struct Sm {
    sm: sim_core::Sm,
    syms: Symbols,
}

impl Sm {
    fn reg_id(&self, name: &str) -> PyResult<RegId> {
        self.syms
            .get(name)
            .ok_or_else(|| err(format!("no register '{name}' in the program")))
    }
}

#[pymethods]
impl Sm {
    /// An SM of preset `arch` running `program` (PTX instructions, one per item).
    #[new]
    #[pyo3(signature = (program, arch = "sm_90", policy = "lrr"))]
    fn new(program: Vec<String>, arch: &str, policy: &str) -> PyResult<Self> {
        let t = target(arch)?;
        let (prog, syms) = Program::from_ptx(t, &program).map_err(err)?;
        let sm =
            sim_core::Sm::new(preset(t), Arc::new(prog), self::policy(policy)?).map_err(err)?;
        Ok(Sm { sm, syms })
    }

    /// Adds a host-fed warp with active lanes `active`.
    #[pyo3(signature = (warp_id, active = u32::MAX))]
    fn add_warp(&mut self, warp_id: u32, active: u32) -> PyResult<()> {
        self.sm.add_host_warp(warp_id, active).map_err(err)
    }

    /// Appends program instruction `index` to a warp.
    fn push(&mut self, warp_id: u32, index: u32) -> PyResult<()> {
        self.sm.push_instruction(warp_id, index).map_err(err)
    }

    /// Ends a warp once its queued instructions have issued.
    fn close(&mut self, warp_id: u32) -> PyResult<()> {
        self.sm.close_warp(warp_id).map_err(err)
    }

    /// Warps that want their next instruction.
    fn hungry_warps(&self) -> Vec<u32> {
        self.sm.hungry_warps().collect()
    }

    /// Advances one clock.
    fn step(&mut self) -> PyResult<()> {
        self.sm.step().map_err(err)
    }

    /// Runs until done (returns True) or the host is needed (False).
    fn run(&mut self) -> PyResult<bool> {
        Ok(self.sm.run_until_idle(&mut Deferred).map_err(err)? == Progress::Done)
    }

    /// The clock.
    #[getter]
    fn cycle(&self) -> u64 {
        self.sm.cycle()
    }

    /// The 32 lanes of register `name` of a warp.
    fn reg(&self, warp_id: u32, name: &str) -> PyResult<Vec<u64>> {
        Ok(self
            .sm
            .reg(warp_id, self.reg_id(name)?)
            .map_err(err)?
            .to_vec())
    }

    /// Sets the 32 lanes of register `name` of a warp.
    fn set_reg(&mut self, warp_id: u32, name: &str, values: Vec<u64>) -> PyResult<()> {
        let lanes: [u64; WARP_SIZE] = values
            .try_into()
            .map_err(|v: Vec<u64>| err(format!("{} values given, 32 needed", v.len())))?;
        let r = self.reg_id(name)?;
        self.sm.set_reg(warp_id, r, &lanes).map_err(err)
    }

    /// The statistics so far, as JSON.
    fn stats_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.sm.stats()).map_err(err)
    }
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(simulate_json, m)?)?;
    m.add_function(wrap_pyfunction!(conform_json, m)?)?;
    m.add_class::<Sm>()?;
    m.add_class::<launch::Module>()?;
    m.add_function(wrap_pyfunction!(launchfile::read_launch, m)?)?;
    Ok(())
}
