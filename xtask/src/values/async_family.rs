//! `xtask values --family async --texts FILE`: SASS-oracle vectors of the
//! async copies and `mbarrier` statements, which act on memory.
//!
//! Each statement names the shared variable `sm` (32 bytes) and registers;
//! its kernel loads the registers from the input slots (as [`super::kernel`]
//! does), `sm` from input bytes 64..96, runs the statement (then
//! `cp.async.wait_all` after a copy) and stores what it writes and `sm`'s
//! bytes. A copy's source `%rd1` points into input bytes 96..128. The
//! inputs are drawn per form so that the statement is defined: objects the
//! way `mbarrier.init` and arrivals leave them, arrival counts no larger
//! than the pending count, `src-size` at most the copy's size.
//!
//! A vector line adds to the register vectors' fields `shared` (sm's bytes
//! before), `global_at` / `global` (the source bytes) and `shared_out`;
//! sim-isa's test `async_sass` runs them (`tests/data/sass-async.jsonl`).

use super::async_kernel;
use super::async_kernel::{is_async, GLOBAL_AT, SHARED_AT, SPAN};
use super::compile::compile_all_with;
use super::kernel::{layout, Reg};
use super::vectors::reg_maps;
use super::warp_gpu::{Form, GpuDir};
use super::Opts;
use crate::rng::Rng;
use crate::sass::{Machine, SInst, IN_BASE};
use crate::tools::Tools;
use anyhow::{bail, Context, Result};

const WRAP: u64 = 1 << 20;

/// An object as `init(expected)` and arrivals leave it: `pending` left of
/// `expected`, phase parity `phase`.
fn object(pending: u64, expected: u64, phase: u64) -> u64 {
    phase << 63 | (WRAP - pending) << 43 | (WRAP - expected) << 1
}

/// A count from 1 to 2^20 - 1, mostly small.
fn count(rng: &mut Rng) -> u64 {
    match rng.below(4) {
        0 => 1 + rng.below((WRAP - 1) as usize) as u64,
        1 => WRAP - 1 - rng.below(3) as u64,
        _ => 1 + rng.below(8) as u64,
    }
}

/// A random object reachable from `init`: (object, pending, expected).
fn random_object(rng: &mut Rng) -> (u64, u64, u64) {
    let e = count(rng);
    let p = 1 + rng.below(e as usize) as u64;
    (object(p, e, rng.below(2) as u64), p, e)
}

/// The copy's size in bytes (its third operand).
fn copy_size(text: &str) -> u64 {
    let ops = text.split(']').nth(2).unwrap_or("");
    let n = ops.trim_start_matches(',').split(',').next().unwrap_or("");
    n.trim().trim_end_matches(';').parse().unwrap_or(16)
}

/// Inputs for `text`: register values (in `regs` order), `sm`'s bytes and
/// the global bytes.
fn draw(rng: &mut Rng, text: &str, regs: &[Reg]) -> (Vec<u64>, Vec<u8>, Vec<u8>) {
    let bytes = |rng: &mut Rng| (0..SPAN).map(|_| rng.next_u64() as u8).collect::<Vec<_>>();
    let mut shared = bytes(rng);
    let global = bytes(rng);
    let copy = text.starts_with("cp.async.c");
    let n = copy_size(text);
    let (mut obj, mut pending, mut expected) = random_object(rng);
    // `arrive_drop` must leave a phase expecting some arrival, and a
    // `.noComplete` arrival must not complete the phase.
    let drop = text.contains("arrive_drop");
    let no_complete = text.contains(".noComplete");
    if (drop && expected == 1) || (no_complete && pending == 1) {
        pending = if no_complete { 2 } else { pending };
        expected = expected.max(2);
        obj = object(pending, expected, obj >> 63);
    }
    let mut most = pending - u64::from(no_complete);
    if drop {
        most = most.min(expected - 1);
    }
    if !copy {
        shared[..8].copy_from_slice(&obj.to_le_bytes());
    }
    let vals = regs
        .iter()
        .map(|r| match (r.name.as_str(), copy) {
            ("%rd1", true) => {
                IN_BASE + (GLOBAL_AT as u64) + n * rng.below(SPAN / n as usize) as u64
            }
            ("%r2", true) => rng.below(n as usize + 1) as u64,
            ("%p1", _) => rng.below(2) as u64,
            // An arrival count: at most what is pending.
            ("%r2", false) => 1 + rng.below(most as usize) as u64,
            // A count for `init`, or a parity.
            ("%r1", false) if text.contains("init") => count(rng),
            ("%r1", false) => rng.below(2) as u64,
            // A state: another reachable object, or (pending_count) any
            // word half the time.
            ("%rd1", false) if text.contains("pending_count") && rng.chance(1, 2) => rng.next_u64(),
            ("%rd1", false) => random_object(rng).0,
            _ => 0,
        })
        .collect();
    (vals, shared, global)
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Destination registers and their values.
type Written = Vec<(String, u64)>;

/// The kernel's input buffer: the register slots, `sm`'s bytes at
/// [`SHARED_AT`], the copy source's at [`GLOBAL_AT`].
fn input_buffer(vals: &[u64], shared: &[u8], global: &[u8]) -> Vec<u8> {
    let mut input = vec![0u8; GLOBAL_AT + SPAN];
    for (s, v) in vals.iter().enumerate() {
        input[8 * s..8 * s + 8].copy_from_slice(&v.to_le_bytes());
    }
    input[SHARED_AT..SHARED_AT + SPAN].copy_from_slice(shared);
    input[GLOBAL_AT..].copy_from_slice(global);
    input
}

/// One run: the input buffer laid out as the kernel reads it; returns the
/// destination registers and `sm`'s bytes after.
fn run_one(
    prog: &[SInst],
    regs: &[Reg],
    dsts: &[String],
    vals: &[u64],
    shared: &[u8],
    global: &[u8],
) -> Result<(Written, Vec<u8>)> {
    let mut m = Machine::new(input_buffer(vals, shared, global), SHARED_AT + SPAN);
    m.run(prog)?;
    let mut out = Vec::new();
    for (s, r) in regs.iter().enumerate() {
        if dsts.contains(&r.name) {
            let raw = u64::from_le_bytes(m.output[8 * s..8 * s + 8].try_into().context("slot")?);
            let v = if r.width == 64 {
                raw
            } else {
                raw & 0xffff_ffff
            };
            out.push((r.name.clone(), v));
        }
    }
    Ok((out, m.output[SHARED_AT..].to_vec()))
}

/// Compiles every statement of `o.texts`, runs each `o.inputs` times and
/// writes the vectors to `o.write` (sim-isa's test judges them).
pub(super) fn run(tools: &Tools, o: &Opts) -> Result<usize> {
    let Some(path) = &o.texts else {
        bail!("--family async needs --texts FILE")
    };
    let body = std::fs::read_to_string(path).with_context(|| format!("{}", path.display()))?;
    let texts: Vec<&str> = body
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    if let Some(t) = texts.iter().find(|t| !is_async(t)) {
        bail!("'{t}' is no async statement on sm");
    }
    let progs = compile_all_with(
        tools,
        &texts,
        o.common.batch,
        o.common.jobs,
        async_kernel::kernel,
    )?;
    let mut rng = Rng::new(o.common.seed ^ 0xa5c);
    let mut lines = String::new();
    let mut failed = 0;
    let mut gpu = o.gpu_dir.as_ref().map(|_| GpuDir::new(tools.ptx_version));
    for (i, (text, prog)) in texts.iter().zip(progs).enumerate() {
        let prog = match prog.unwrap_or_else(|| Err("missing".into())) {
            Ok(p) => p,
            Err(e) => {
                println!("not compiled: {text}: {e}");
                failed += 1;
                continue;
            }
        };
        let ops: Vec<&str> = prog.iter().map(|i| i.op.as_str()).collect();
        println!("{text}\n    {}", ops.join(" "));
        let (regs, dsts) = layout(text);
        if let Some(g) = &mut gpu {
            let name = format!("a{i}");
            let copy = text.starts_with("cp.async.c");
            g.form(&Form {
                kernel: async_kernel::kernel(&name, text),
                name,
                text,
                img: 0,
                writes: true,
                regs: &regs,
                dsts: dsts.clone(),
                thread: serde_json::json!({
                    "bytes": GLOBAL_AT + SPAN, "shared_at": SHARED_AT, "span": SPAN, "in_base": IN_BASE,
                    "addresses": if copy { vec!["%rd1"] } else { Vec::new() },
                }),
            });
        }
        for _ in 0..o.inputs {
            let (vals, shared, global) = draw(&mut rng, text, &regs);
            let (out, after) = match run_one(&prog, &regs, &dsts, &vals, &shared, &global) {
                Ok(r) => r,
                Err(e) => {
                    println!("not run: {text}: {e:#}");
                    failed += 1;
                    break;
                }
            };
            let one = line(text, &regs, &vals, &shared, &global, &out, &after);
            if let Some(g) = &mut gpu {
                g.vector(&input_buffer(&vals, &shared, &global), one.trim_end());
            }
            lines += &one;
        }
    }
    if let (Some(g), Some(dir)) = (&gpu, &o.gpu_dir) {
        g.write(dir)?;
    }
    if let Some(p) = &o.write {
        let header = format!(
            "# Values of the async copies and mbarrier from ptxas 13.0.88 sm_90 machine code (.version 8.0; nvdisasm, xtask SASS interpreter).\n\
             # Regenerate: PTXAS=<ptxas 13.0.88> cargo run -p xtask --release -- values --family async --texts {} --inputs {} --seed {} --write <this file>\n",
            path.display(),
            o.inputs,
            o.common.seed
        );
        std::fs::write(p, header + &lines).with_context(|| format!("writing {}", p.display()))?;
    }
    println!("{} vectors, {failed} forms not run", lines.lines().count());
    Ok(failed)
}

/// The vector line (see the module doc).
fn line(
    text: &str,
    regs: &[Reg],
    vals: &[u64],
    shared: &[u8],
    global: &[u8],
    out: &[(String, u64)],
    after: &[u8],
) -> String {
    let (ins, outs) = reg_maps(regs, vals, out);
    format!(
        "{{\"arch\":\"sm_90\",\"ptx\":{},\"in\":{{{}}},\"shared\":\"{}\",\"global_at\":\"0x{:x}\",\"global\":\"{}\",\"out\":{{{}}},\"shared_out\":\"{}\",\"family\":\"async\"}}\n",
        serde_json::to_string(text).unwrap_or_default(),
        ins,
        hex(shared),
        IN_BASE + GLOBAL_AT as u64,
        hex(global),
        outs,
        hex(after)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines are those committed in sim-isa's `sass-async.jsonl`: its
    /// first `mbarrier.arrive` line, rebuilt from its values.
    #[test]
    fn line_is_the_committed_format() {
        let text = "mbarrier.arrive.shared.b64 %rd2, [sm];";
        let bytes = |h: &str| -> Vec<u8> {
            (0..h.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
                .collect()
        };
        let shared = "fcff1f0000f0ffff5c223ca756c8fff0559674e6a83b2ff5cc6340eb51665240";
        let global = "66275d2d5e8eb552fb33b9bc1e62b9ce16856b482f52984263accdb183815f9a";
        let after = "fcff1f0000f8ffff5c223ca756c8fff0559674e6a83b2ff5cc6340eb51665240";
        let out = [("%rd2".to_string(), 0xfffff000001ffffc)];
        let (regs, _) = layout(text);
        let got = line(
            text,
            &regs,
            &[0],
            &bytes(shared),
            &bytes(global),
            &out,
            &bytes(after),
        );
        let committed = include_str!("../../../sim-isa/tests/data/sass-async.jsonl");
        assert!(committed.lines().any(|l| l == got.trim_end()), "{got}");
    }

    /// Draws keep the statements defined: an arrival count at most the
    /// pending count (`arrive_drop`: below the expected one), `src-size` at
    /// most the copy's size, a source inside the global bytes, aligned.
    #[test]
    fn draws_are_defined() {
        let mut rng = Rng::new(5);
        for text in [
            "mbarrier.arrive_drop.shared.b64 %rd2, [sm], %r2;",
            "mbarrier.arrive.shared.b64 %rd2, [sm], %r2;",
            "mbarrier.arrive_drop.noComplete.shared.b64 %rd2, [sm], %r2;",
        ] {
            let (regs, _) = layout(text);
            for _ in 0..500 {
                let (vals, shared, _) = draw(&mut rng, text, &regs);
                let o = u64::from_le_bytes(shared[..8].try_into().unwrap());
                let pending = WRAP - (o >> 43 & 0xf_ffff);
                let expected = WRAP - (o >> 1 & 0xf_ffff);
                let n = vals[regs.iter().position(|r| r.name == "%r2").unwrap()];
                assert!(n >= 1 && n <= pending && pending <= expected, "{text}");
                assert!(!text.contains("drop") || n < expected, "{text}");
                assert!(!text.contains("noComplete") || n < pending, "{text}");
            }
        }
        let text = "cp.async.ca.shared.global [sm+8], [%rd1], 8, %r2;";
        let (regs, _) = layout(text);
        for _ in 0..200 {
            let (vals, _, _) = draw(&mut rng, text, &regs);
            let src = vals[0] - IN_BASE - GLOBAL_AT as u64;
            assert!(src.is_multiple_of(8) && src + 8 <= SPAN as u64 && vals[1] <= 8);
        }
        assert_eq!(copy_size(text), 8);
    }
}
