//! Instructions alone, without a program: `simcli conform` (vector files)
//! and `simcli eval` (one instruction on one lane).

use super::common::{parse_target, print_out};
use anyhow::{anyhow, bail, Context, Result};
use sim_isa::{ErrorKind, ExecCtx, RegId, Symbols, WarpRegs};
use sim_trace::trace::{fmt_value, width_mask};
use std::path::PathBuf;
use std::process::ExitCode;

/// `simcli conform`: streams each file line by line (memory bounded by
/// `sim_isa::conform::MAX_LINE_BYTES`), printing problems as they come.
pub fn conform(files: &[PathBuf]) -> Result<ExitCode> {
    use sim_isa::conform::{run_reader, Outcome, Summary, VectorResult};
    let mut total = Summary::default();
    let mut write_err = None;
    let mut say = |s: String| {
        if write_err.is_none() {
            write_err = print_out(&s).err();
        }
    };
    for f in files {
        let name = f.display();
        let each = |r: &VectorResult| {
            if r.outcome != Outcome::Passed {
                say(format!("{name}: {r}\n"));
            }
        };
        let sum = if f.as_os_str() == "-" {
            run_reader(std::io::stdin().lock(), each)
        } else {
            std::fs::File::open(f).and_then(|file| run_reader(std::io::BufReader::new(file), each))
        };
        // The files before an unreadable one keep their summaries.
        let sum = sum.with_context(|| format!("reading {name}"))?;
        if files.len() > 1 {
            say(format!("{name}: {}\n", sum.line()));
        }
        total.merge(sum);
    }
    say(format!("{}\n", total.line()));
    if let Some(e) = write_err {
        return Err(e);
    }
    if total.failed > 0 {
        return Ok(ExitCode::from(1));
    }
    if total.skipped > 0 {
        eprintln!("error: {} unusable vector line(s)", total.skipped);
        return Ok(ExitCode::from(2));
    }
    if total.ran() == 0 {
        eprintln!("error: no vectors ran");
        return Ok(ExitCode::from(2));
    }
    Ok(ExitCode::SUCCESS)
}

fn kind_name(k: ErrorKind) -> &'static str {
    match k {
        ErrorKind::Invalid => "error invalid",
        ErrorKind::Unsupported => "error arch",
        ErrorKind::Unimplemented => "error unimplemented",
    }
}

/// `simcli eval`: one instruction on lane 0; its writes printed.
pub fn eval(arch: &str, text: &str, inputs: &[String]) -> Result<ExitCode> {
    let target = parse_target(arch)?;
    let mut syms = Symbols::new();
    let inst = match sim_isa::parse::parse_for_target(text, &mut syms, target, None) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("{}: {e}", kind_name(e.kind()));
            return Ok(ExitCode::from(2));
        }
    };
    // One lane has no memory and no block: a memory access, an address, a
    // barrier or an async copy is a launch's (docs/launch-format.md).
    if sim_isa::db::needs_launch(&inst) {
        eprintln!(
            "error unimplemented: {} needs a launch's memory or thread block \
             (run a PTX module from a launch file: docs/launch-format.md)",
            sim_isa::db::mnemonic(&inst)
        );
        return Ok(ExitCode::from(2));
    }
    let uses = inst.reg_uses();
    let width = |r: RegId| uses.iter().find(|u| u.reg == r).map(|u| u.bits);
    let mut regs = WarpRegs::new(syms.len());
    for a in inputs {
        let (name, val) = a
            .split_once('=')
            .ok_or_else(|| anyhow!("input '{a}' is not REG=VALUE"))?;
        let r = syms
            .get(name)
            .ok_or_else(|| anyhow!("input {name}: the instruction has no such register"))?;
        let bits = width(r).unwrap_or(64);
        let v = match val {
            "true" => 1,
            "false" => 0,
            _ => parse_u64(val, bits)
                .ok_or_else(|| anyhow!("input {name}: invalid value '{val}'"))?,
        };
        if v & !width_mask(bits) != 0 {
            bail!("input {name}: value {val} does not fit its {bits}-bit operand");
        }
        regs.set_lane(r, 0, v);
    }
    let before = regs.clone();
    sim_isa::execute(&inst, &ExecCtx::new(target, 0), &mut regs, 1);
    let mut out = String::new();
    // The async-copy token is the timing model's, no register of the text.
    // The carry flag (`sim_isa::carry`) is printed as `%cc.cf`, and may be
    // given as an input (`%cc.cf=1`) to the carry-in forms.
    for u in uses
        .writes()
        .filter(|u| syms.name(u.reg) != sim_isa::ASYNC_TOKEN)
    {
        let v = regs.lane(u.reg, 0);
        out.push_str(&format!(
            "{} = {}\n",
            syms.name(u.reg),
            fmt_value(v & width_mask(u.bits), u.bits)
        ));
    }
    if let Some(g) = inst.guard {
        let p = before.lane(g.reg, 0) != 0;
        if p == g.negate {
            out.push_str("(guard false: nothing written)\n");
        }
    }
    print_out(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// Hex, decimal, or negative decimal (two's complement at `bits`).
fn parse_u64(s: &str, bits: u32) -> Option<u64> {
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()
    } else if s.starts_with('-') {
        let v: i64 = s.parse().ok()?;
        let m = width_mask(bits);
        let min = -(((m >> 1) as i64) + 1);
        (v >= min).then_some(v as u64 & m)
    } else {
        s.parse().ok()
    }
}
