//! `sass-listing`: a disassembly listing read by `sim_sass` (the one
//! listing reader), printed as JSON lines for the Python scripts under
//! `tools/` (`tools/sass_listing.py`), so that they parse nothing themselves.
//!
//! One object per line, in listing order: `{"kind":"function","name"}`,
//! `{"kind":"label","function","name","line"}`, `{"kind":"error","function",
//! "line","message"}` and `{"kind":"inst","function","line","addr","text",
//! "guard","guard_negated","opcode","base","mods","operands","operand_regs",
//! "operand_offsets","target","dests","srcs","encoding","control"}` (the
//! encoding words as `0x` strings; `control` null without a second word, else
//! `stall`, `yield`, `write_barrier`, `read_barrier` (7: none), `wait_mask`,
//! `reuse`).

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};
use sim_sass::regs::{mem_offset, regs};
use sim_sass::{Inst, Item, Listing};
use std::io::{Read, Write};

/// The JSON lines of `text`, registers counted for `sm` (90 for sm_90).
pub fn json_lines(text: &str, sm: u32) -> Vec<Value> {
    let mut out = Vec::new();
    for f in Listing::parse(text).functions {
        out.push(json!({"kind": "function", "name": f.name}));
        for item in &f.items {
            out.push(match item {
                Item::Label(l) => {
                    json!({"kind": "label", "function": f.name, "name": l.name, "line": l.line})
                }
                Item::Bad(e) => json!({"kind": "error", "function": f.name, "line": e.line,
                    "message": e.kind.to_string()}),
                Item::Inst(i) => inst(&f.name, i, sm),
            });
        }
    }
    out
}

fn inst(function: &str, i: &Inst, sm: u32) -> Value {
    let r = i.registers(sm);
    let control = i.control().map(|c| {
        json!({"stall": c.stall, "yield": c.yield_flag, "write_barrier": c.write_barrier,
            "read_barrier": c.read_barrier, "wait_mask": c.wait_mask, "reuse": c.reuse})
    });
    json!({
        "kind": "inst", "function": function, "line": i.line, "addr": i.addr, "text": i.text,
        "guard": i.guard.as_ref().map(|g| g.pred.clone()),
        "guard_negated": i.guard.as_ref().is_some_and(|g| g.negated),
        "opcode": i.opcode, "base": i.base(), "mods": i.modifiers().collect::<Vec<_>>(),
        "operands": i.operands,
        "operand_regs": i.operands.iter().map(|o| regs(o)).collect::<Vec<_>>(),
        "operand_offsets": i.operands.iter().map(|o| mem_offset(o)).collect::<Vec<_>>(),
        "target": i.target(), "dests": r.dests, "srcs": r.srcs,
        "encoding": i.encoding.iter().map(|w| format!("{w:#018x}")).collect::<Vec<_>>(),
        "control": control,
    })
}

/// `sm_90` as 90.
fn sm_number(arch: &str) -> Result<u32> {
    arch.strip_prefix("sm_")
        .and_then(|n| n.parse().ok())
        .with_context(|| format!("bad --arch '{arch}' (sm_35, sm_53, sm_90)"))
}

/// Reads FILE (`-`: standard input) and prints its JSON lines.
pub fn run(file: &str, arch: &str) -> Result<()> {
    let sm = sm_number(arch)?;
    let mut text = String::new();
    if file == "-" {
        std::io::stdin()
            .read_to_string(&mut text)
            .context("reading standard input")?;
    } else {
        text = std::fs::read_to_string(file).with_context(|| format!("reading {file}"))?;
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for v in json_lines(&text, sm) {
        writeln!(out, "{v}")?;
    }
    out.flush()?;
    Ok(())
}

/// The usage line's check: one file argument.
pub fn file_arg(args: &[String]) -> Result<&str> {
    match args {
        [f] => Ok(f),
        _ => bail!("usage: sass-listing FILE|- [--arch sm_90]"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_of_a_hex_listing() {
        let text = include_str!("../../tools/tests/data/loop_sm90.hex.sass");
        let v = json_lines(text, 90);
        assert_eq!(v[0], json!({"kind": "function", "name": "t0_lat"}));
        let popc = v.iter().find(|x| x["addr"] == 0x100).unwrap();
        assert_eq!(popc["text"], "@P1 POPC R11, R8");
        assert_eq!(popc["guard"], "P1");
        assert_eq!(popc["dests"], json!(["R11"]));
        assert_eq!(popc["srcs"], json!(["R8", "P1", "R11"]));
        assert_eq!(
            popc["encoding"],
            json!(["0x00000008000b1309", "0x0000620000000000"])
        );
        assert_eq!(popc["control"]["write_barrier"], 1);
        assert_eq!(popc["control"]["yield"], true);
        let ldg = v.iter().find(|x| x["addr"] == 0x30).unwrap();
        assert_eq!(ldg["operand_offsets"], json!([null, 0x24]));
        assert_eq!(ldg["operand_regs"], json!([["R6"], ["UR4", "R2"]]));
        assert!(sm_number("sm90").is_err());
        assert_eq!(sm_number("sm_53").unwrap(), 53);
    }
}
