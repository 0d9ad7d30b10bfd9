//! Trace files without simulating: `simcli asm` (kernel text to a binary
//! trace), `dump` (back to text) and `gen` (synthetic traces).

use super::common::{open_input, print_out, refuse_unsupported};
use anyhow::{anyhow, bail, Context, Result};
use sim_cli::output::{check_outputs, write_file, Inputs, Output};
use sim_trace::trace::Trace;
use sim_trace::{binfmt, dump, gen, load};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `simcli asm`: kernel text to a binary trace.
pub fn asm(file: &Path, output: Option<PathBuf>, record_expect: bool) -> Result<ExitCode> {
    let out = match output {
        Some(o) => o,
        None if file == Path::new("-") => bail!("asm: reading standard input needs -o FILE"),
        None => {
            let d = file.with_extension("bin");
            if d == file {
                bail!(
                    "{}: the default output (the input with extension .bin) is the input itself; name the output with -o",
                    file.display()
                );
            }
            d
        }
    };
    let mut inputs = Inputs::new();
    let (name, r) = open_input(file, &mut inputs)?;
    check_outputs(&[Output::file("-o", &out)], &inputs)?;
    let mut trace = load::load_text(&name, r)?;
    refuse_unsupported(&name, &trace, trace.target)?;
    if record_expect {
        let finals = trace.functional_run(trace.target);
        trace
            .record_expects(&finals)
            .map_err(|m| anyhow!("{name}: --record-expect: {m}"))?;
    }
    write_bin(&trace, &out, &inputs)?;
    Ok(ExitCode::SUCCESS)
}

/// Encodes first (so a trace the reader would refuse is refused before any
/// file is touched), then writes.
fn write_bin(trace: &Trace, out: &Path, inputs: &Inputs) -> Result<()> {
    let bytes =
        binfmt::to_bytes(trace).with_context(|| format!("refusing to write {}", out.display()))?;
    Ok(write_file(out, inputs, |w| w.write_all(&bytes))?)
}

/// `simcli dump`: a binary trace as kernel text.
pub fn dump(file: &Path, output: Option<PathBuf>) -> Result<ExitCode> {
    let mut inputs = Inputs::new();
    let (name, r) = open_input(file, &mut inputs)?;
    if let Some(o) = &output {
        check_outputs(&[Output::file("-o", o)], &inputs)?;
    }
    let trace = load::load_binary(&name, r)?;
    let text = dump::dump(&trace)?;
    match output {
        Some(p) => write_file(&p, &inputs, |w| w.write_all(text.as_bytes()))?,
        None => print_out(&text)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// `simcli gen`: a synthetic trace, as kernel text when `output` ends in .ptx.
pub fn gen(params: &gen::GenParams, output: &Path) -> Result<ExitCode> {
    check_outputs(&[Output::file("-o", output)], &Inputs::new())?;
    let target = params.target;
    let trace = gen::generate(params)?;
    refuse_unsupported(&output.display().to_string(), &trace, target)?;
    if output.extension().is_some_and(|e| e == "ptx") {
        let text = dump::dump(&trace)?;
        write_file(output, &Inputs::new(), |w| w.write_all(text.as_bytes()))?;
    } else {
        write_bin(&trace, output, &Inputs::new())?;
    }
    Ok(ExitCode::SUCCESS)
}
