//! `simcli report --html OUT.html INPUT`: a run's JSON report or a sweep CSV
//! as one self-contained HTML page (sim_cli::html, docs/html-report.md).

use anyhow::{bail, Context, Result};
use sim_cli::html::{self, Kind, MAX_INPUT};
use sim_cli::output::{write_file, Inputs};
use std::fs;
use std::io::Read;
use std::path::Path;
use std::process::ExitCode;

/// Reads `input`, draws its page and writes it to `out` atomically (a
/// temporary file beside it, renamed into place once complete).
pub fn report(input: &Path, out: &Path) -> Result<ExitCode> {
    let shown = input.display().to_string();
    let file = fs::File::open(input).with_context(|| format!("reading {shown}"))?;
    let mut inputs = Inputs::new();
    inputs.add_file(&shown, &file);
    let mut bytes = Vec::new();
    file.take(MAX_INPUT + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("reading {shown}"))?;
    if bytes.len() as u64 > MAX_INPUT {
        bail!(
            "{shown} is larger than {} MiB, more than a run's report or a sweep CSV holds; \
             refusing to read it",
            MAX_INPUT >> 20
        );
    }
    let Ok(text) = String::from_utf8(bytes) else {
        bail!("{shown} is not UTF-8 text; expected a run's JSON report or a sweep CSV");
    };
    let name = input
        .file_name()
        .map_or_else(|| shown.clone(), |n| n.to_string_lossy().into_owned());
    let footer = format!(
        "simcli {} ({}), from {name}",
        sim_cli::VERSION,
        sim_cli::COMMIT
    );
    let page = match html::kind(&text) {
        Kind::Report => html::run_page(&text, &name, &footer),
        Kind::Sweep => html::sweep_page(&text, &name, &footer),
    }
    .with_context(|| shown.clone())?;
    write_file(out, &inputs, |w| w.write_all(page.as_bytes()))?;
    Ok(ExitCode::SUCCESS)
}
