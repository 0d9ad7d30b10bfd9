//! Input values, one run of a listing in the SASS interpreter, and the
//! conformance-vector line that records it.

use super::kernel::Reg;
use crate::rng::Rng;
use crate::sass::{Machine, SInst};
use anyhow::{Context, Result};

const E16: [u16; 26] = [
    0, 1, 0xffff, 0x7fff, 0x8000, 0x8001, 0x7ffe, 0x00ff, 0xff00, 0x3c00, 0xbc00, 0x7c00, 0xfc00,
    0x7e00, 0x7c01, 0x03ff, 0x83ff, 0x0400, 0x7bff, 0x3f80, 0xbf80, 0x7f80, 0xff80, 0x7fc0, 0x007f,
    0x0080,
];
const E8: [u8; 9] = [0, 1, 0x7f, 0x80, 0x81, 0xfe, 0xff, 0x40, 0xc0];
const E32: [u32; 16] = [
    0,
    1,
    0xffff_ffff,
    0x7fff_ffff,
    0x8000_0000,
    0x3f80_0000,
    0xbf80_0000,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0xffc0_0000,
    0x7f80_0001,
    0x0000_0001,
    0x8000_0001,
    0x007f_ffff,
    0x0080_0000,
];
const E64: [u64; 16] = [
    0,
    1,
    u64::MAX,
    i64::MAX as u64,
    i64::MIN as u64,
    0x3ff0_0000_0000_0000,
    0xbff0_0000_0000_0000,
    0x7ff0_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x7ff8_0000_0000_0000,
    0x0000_0000_0000_0001,
    0x8000_0000_0000_0001,
    0x0000_0001_0000_0000,
    0x0000_0001_ffff_ffff,
    0x0000_0000_ffff_ffff,
    0x8000_0000_0000_0000,
];

pub(crate) fn value(rng: &mut Rng, w: u32) -> u64 {
    let edge = rng.chance(1, 2);
    match w {
        1 => rng.below(2) as u64,
        16 if edge => *rng.pick(&E16) as u64,
        16 => rng.next_u64() & 0xffff,
        32 if edge => match rng.below(3) {
            0 => *rng.pick(&E32) as u64,
            1 => (*rng.pick(&E16) as u64) << 16 | *rng.pick(&E16) as u64,
            _ => (0..4).fold(0u64, |acc, k| acc | (*rng.pick(&E8) as u64) << (8 * k)),
        },
        32 => rng.next_u64() & 0xffff_ffff,
        64 if edge => *rng.pick(&E64),
        _ => rng.next_u64(),
    }
}

fn hex(v: u64) -> String {
    format!("0x{v:x}")
}

/// Runs the listing of `text` on one input set. Returns the `out` values.
pub(super) fn run_machine(
    prog: &[SInst],
    regs: &[Reg],
    dsts: &[String],
    inputs: &[u64],
) -> Result<Vec<(String, u64)>> {
    let mut mem = vec![0u8; 8 * regs.len().max(1)];
    for (s, v) in inputs.iter().enumerate() {
        mem[8 * s..8 * s + 8].copy_from_slice(&v.to_le_bytes());
    }
    let mut m = Machine::new(mem, 8 * regs.len().max(1));
    m.run(prog)?;
    let mut out = Vec::new();
    for (s, r) in regs.iter().enumerate() {
        if !dsts.contains(&r.name) {
            continue;
        }
        let raw = u64::from_le_bytes(m.output[8 * s..8 * s + 8].try_into().context("slot")?);
        let v = match r.width {
            1 => raw & 0xffff_ffff,
            16 => raw & 0xffff,
            32 => raw & 0xffff_ffff,
            _ => raw,
        };
        out.push((r.name.clone(), v));
    }
    Ok(out)
}

pub(super) fn vector_line(
    arch: &str,
    text: &str,
    family: &str,
    regs: &[Reg],
    inputs: &[u64],
    out: &[(String, u64)],
) -> String {
    let (ins, outs) = reg_maps(regs, inputs, out);
    format!(
        "{{\"arch\":\"{arch}\",\"ptx\":{},\"in\":{{{}}},\"out\":{{{}}},\"family\":\"{family}\"}}",
        serde_json::to_string(text).unwrap_or_default(),
        ins,
        outs
    )
}

/// The contents of a vector line's `"in"` and `"out"` maps: `regs` with
/// `inputs`, and the written registers `out` (at their widths in `regs`,
/// 32 for one it lacks); a predicate as `true`/`false`, the others as hex
/// strings (`"%r1":"0x5"`).
pub(super) fn reg_maps(regs: &[Reg], inputs: &[u64], out: &[(String, u64)]) -> (String, String) {
    let fmt = |w: u32, v: u64| {
        if w == 1 {
            (v != 0).to_string()
        } else {
            format!("\"{}\"", hex(v))
        }
    };
    let width = |n: &str| regs.iter().find(|r| r.name == n).map_or(32, |r| r.width);
    let ins: Vec<String> = regs
        .iter()
        .zip(inputs)
        .map(|(r, &v)| format!("\"{}\":{}", r.name, fmt(r.width, v)))
        .collect();
    let outs: Vec<String> = out
        .iter()
        .map(|(n, v)| format!("\"{n}\":{}", fmt(width(n), *v)))
        .collect();
    (ins.join(","), outs.join(","))
}

/// Writes `body` to `p`, gzip when it ends in `.gz` (the vectors of
/// `values` and of `values --family mma`).
pub(super) fn write_file(p: &std::path::Path, body: &str) -> Result<()> {
    use std::io::Write as _;
    if p.extension().is_some_and(|e| e == "gz") {
        let f = std::fs::File::create(p).with_context(|| format!("writing {}", p.display()))?;
        let mut z = flate2::write::GzEncoder::new(f, flate2::Compression::best());
        z.write_all(body.as_bytes())?;
        z.finish()?;
    } else {
        std::fs::write(p, body).with_context(|| format!("writing {}", p.display()))?;
    }
    Ok(())
}
