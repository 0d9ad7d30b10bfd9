//! The manual and shell completions, both rendered from the clap definitions.

use super::common::print_out;
use anyhow::Result;
use sim_cli::output::{check_outputs, write_file, Inputs, Output};
use std::path::PathBuf;
use std::process::ExitCode;

/// `simcli completions`: the completion script for `shell`.
pub fn completions(shell: clap_complete::Shell, mut cli: clap::Command) -> Result<ExitCode> {
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cli, "simcli", &mut buf);
    print_out(&String::from_utf8_lossy(&buf))?;
    Ok(ExitCode::SUCCESS)
}

/// `simcli man`: the manual page in roff.
pub fn man(output: Option<PathBuf>, cli: clap::Command) -> Result<ExitCode> {
    if let Some(p) = &output {
        check_outputs(&[Output::file("-o", p)], &Inputs::new())?;
    }
    let mut buf = Vec::new();
    clap_mangen::Man::new(cli).render(&mut buf)?;
    match output {
        Some(p) => write_file(&p, &Inputs::new(), |w| w.write_all(&buf))?,
        None => print_out(&String::from_utf8_lossy(&buf))?,
    }
    Ok(ExitCode::SUCCESS)
}
