//! `simcli run DIR/kernelslist.g` (or `DIR`): Accel-Sim trace directories
//! (sim-accelsim), each kernel run and reported in its own section.

use super::common::{check_counts, print_out, report_text, Format, RunArgs};
use anyhow::{bail, Context, Result};
use sim_accelsim::{read_dir, run_kernel, Item, Options};
use sim_cli::report::{self, RunInfo};
use sim_isa::Target;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

/// Options that need a PTX program or a launch: refused for a trace directory.
fn refuse(name: &str, a: &RunArgs) -> Result<()> {
    let flags = [
        ("--timeline", a.timeline.is_some()),
        ("--dump-regs", a.dump_regs.is_some()),
        ("--check", a.check),
        ("--sample", a.sample),
        ("--warm", a.warm),
        ("--dump-buffers", a.dump_buffers.is_some()),
        ("--opcode-csv", a.opcode_csv.is_some()),
        ("--lowering compiler", a.compiler),
    ];
    if let Some((flag, _)) = flags.iter().find(|(_, on)| *on) {
        bail!("{name}: {flag} does not apply to an Accel-Sim trace directory");
    }
    Ok(())
}

/// The target a trace's `-binary version` names (61: sm_61), for when
/// `--arch` is not given.
fn binary_target(version: u32) -> Result<Target> {
    Target::parse(&format!("sm_{version}"))
        .with_context(|| format!("-binary version = {version} names no target; give --arch"))
}

/// `simcli run` on an Accel-Sim trace.
pub fn run(path: &Path, a: &RunArgs) -> Result<ExitCode> {
    let name = path.display().to_string();
    refuse(&name, a)?;
    if let Some(s) = a.sms {
        check_counts(s, 1)?;
    }
    let dir = read_dir(path)?;
    let mut sections = Vec::new();
    let mut json = Vec::new();
    let mut copies = Vec::new();
    for item in &dir.items {
        let k = match item {
            Item::Memcpy { addr, bytes } => {
                copies.push(serde_json::json!({"addr": format!("{addr:#x}"), "bytes": bytes}));
                continue;
            }
            Item::Kernel(k) => k,
        };
        let (config, policy) = a.setup.resolve(binary_target(k.header.binary_version)?)?;
        let opts = Options {
            memory: sim_kernel::MemConfig::preset(config.target),
            config,
            policy,
            sms: a.sms.map(|s| s as u32),
        };
        let start = Instant::now();
        let run = run_kernel(k, &opts)?;
        let secs = start.elapsed().as_secs_f64();
        if let Some(w) = &run.warning {
            eprintln!("warning: {}: {w}", k.file);
        }
        let warps = k.blocks.iter().map(|b| b.warps.len()).sum();
        let info = RunInfo::new(&k.file, warps, &opts.config, opts.policy);
        let rate = if secs > 0.0 {
            k.warp_instructions() as f64 / secs
        } else {
            0.0
        };
        let trace = serde_json::json!({
            "file": k.file,
            "kernel": k.header.name,
            "id": k.header.id,
            "grid": k.header.grid,
            "block": k.header.block,
            "binary_version": k.header.binary_version,
            "tracer_version": k.header.tracer_version,
            "warp_instructions": k.warp_instructions(),
            "thread_instructions": k.thread_instructions(),
            "memory_instructions": run.memory_instructions,
            "sectors": {"load": run.sectors.load, "store": run.sectors.store, "atomic": run.sectors.atomic},
            "warning": run.warning,
            "wall_seconds": secs,
            "warp_instructions_per_second": rate,
        });
        match a.format {
            Format::Json => {
                let mut v = report::json(&info, &run.report);
                if let serde_json::Value::Object(o) = &mut v {
                    o.insert("accelsim".into(), trace);
                }
                json.push(v);
            }
            Format::Csv => {
                let rows = report_text(Format::Csv, &info, &run.report)?;
                // One header line for all kernels.
                let skip = usize::from(!sections.is_empty());
                sections.extend(rows.lines().skip(skip).map(|l| format!("{l}\n")));
            }
            Format::Text => sections.push(format!(
                "== kernel {} `{}` ({}): {} warp instructions, {} thread instructions, \
                 {:.0} warp-instructions/s; global sectors: {} loaded, {} stored, {} atomic\n{}",
                k.header.id,
                k.header.name,
                k.file,
                k.warp_instructions(),
                k.thread_instructions(),
                rate,
                run.sectors.load,
                run.sectors.store,
                run.sectors.atomic,
                report::text(&info, &run.report)
            )),
        }
    }
    let text = match a.format {
        Format::Json => {
            let v = serde_json::json!({"trace": name, "memcpy_htod": copies, "kernels": json});
            format!("{}\n", serde_json::to_string_pretty(&v)?)
        }
        Format::Text => sections.join("\n"),
        Format::Csv => sections.concat(),
    };
    print_out(&text)?;
    Ok(ExitCode::SUCCESS)
}
