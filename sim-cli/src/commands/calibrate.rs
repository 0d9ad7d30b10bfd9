//! `simcli calibrate`: measured microbenchmarks replayed, simulated cycles
//! against the hardware's.

use super::common::{parse_target, Setup};
use anyhow::Result;
use std::path::Path;
use std::process::ExitCode;

/// Exits 1 when a kernel is off by more than `tolerance`.
pub fn calibrate(file: &Path, setup: &Setup, tolerance: f64) -> Result<ExitCode> {
    let (cfg, _) = setup.resolve(parse_target("sm_90")?)?;
    let rows = sim_cli::calibrate::calibrate(file, &cfg)?;
    print!(
        "{}",
        sim_cli::calibrate::render(&rows, cfg.target, tolerance)
    );
    let all = rows.iter().all(|r| r.error() <= 1.0 + tolerance);
    Ok(if all {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
