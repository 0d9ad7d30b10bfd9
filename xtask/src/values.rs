//! Part 2: values. Each instruction variant is compiled by ptxas for sm_90 in
//! a kernel that loads every register it names from global memory, runs it,
//! and stores what it writes; nvdisasm's listing is executed by
//! [`crate::sass`] on random and edge inputs, and the results, written as
//! conformance vectors, are run through sim-isa's own conformance runner.

use crate::gen::{self, Gen};
use crate::rng::Rng;
use crate::sass::{self, Machine};
use crate::tools::Tools;
use anyhow::{bail, Context, Result};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Options of `xtask values`.
#[derive(Clone, Debug)]
pub struct Opts {
    /// Number of instruction variants.
    pub variants: usize,
    /// Input sets per variant.
    pub inputs: usize,
    /// Seed.
    pub seed: u64,
    /// Parallel ptxas/nvdisasm processes.
    pub jobs: usize,
    /// Kernels per ptxas run.
    pub batch: usize,
    /// Write the agreed vectors here.
    pub write: Option<PathBuf>,
    /// Write disagreeing vectors (machine values) here.
    pub disagreements: Option<PathBuf>,
    /// Print at most this many disagreements.
    pub show: usize,
}

/// A register the instruction names: name and width (1 = predicate).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reg {
    /// `%r1`, `%h2`, `%rd3`, `%p1`.
    pub name: String,
    /// 1, 16, 32 or 64.
    pub width: u32,
}

/// Registers of `text` in order of appearance, and which ones it writes.
pub fn layout(text: &str) -> (Vec<Reg>, Vec<String>) {
    let mut regs: Vec<Reg> = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let mut j = i + 1;
            while j < b.len() && b[j].is_ascii_alphanumeric() {
                j += 1;
            }
            let name = &text[i..j];
            let pool = name[1..].trim_end_matches(|c: char| c.is_ascii_digit());
            let width = match pool {
                "r" => 32,
                "h" => 16,
                "rd" => 64,
                "p" => 1,
                _ => 0,
            };
            if width > 0 && !regs.iter().any(|r| r.name == name) {
                regs.push(Reg {
                    name: name.to_string(),
                    width,
                });
            }
            i = j;
        } else {
            i += 1;
        }
    }
    let body = strip_guard(text).1;
    let ops = body
        .split_once(char::is_whitespace)
        .map(|x| x.1)
        .unwrap_or("");
    let first = ops.split(',').next().unwrap_or("");
    let dsts = first
        .split('|')
        .map(|d| d.trim().split('.').next().unwrap_or("").to_string())
        .filter(|d| d.starts_with('%'))
        .collect();
    (regs, dsts)
}

fn strip_guard(text: &str) -> (Option<&str>, &str) {
    let t = text.trim();
    match t.strip_prefix('@') {
        Some(rest) => {
            let (g, body) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            (Some(g), body.trim())
        }
        None => (None, t),
    }
}

fn bits_name(w: u32) -> &'static str {
    match w {
        16 => "b16",
        64 => "b64",
        _ => "b32",
    }
}

/// The PTX kernel `name` for `text`, loading from param 0, storing to param 1
/// (8-byte slots in [`layout`] order).
pub fn kernel(name: &str, text: &str) -> String {
    kernel_with(name, text, false)
}

/// [`kernel`], optionally with one vector per thread: thread `i` of `n` (param
/// 2) uses the slots at `i * 8 * slots` in both buffers (the GPU harness).
pub fn kernel_with(name: &str, text: &str, per_thread: bool) -> String {
    let (regs, dsts) = layout(text);
    let mut k = if per_thread {
        format!(
            ".visible .entry {name}(.param .u64 pin, .param .u64 pout, .param .u32 n) {{\n\
             .reg .b64 %ptr<3>; .reg .b32 %t<40>; .reg .b16 %th<2>; .reg .b32 %tr<2>; .reg .pred %psink;\n\
             .reg .b32 %r<9>; .reg .b16 %h<9>; .reg .b64 %rd<9>; .reg .pred %p<9>;\n\
             .reg .b32 %tid<5>; .reg .b64 %off; .reg .pred %pout;\n\
             ld.param.u64 %ptr1, [pin]; ld.param.u64 %ptr2, [pout]; ld.param.u32 %tid4, [n];\n\
             mov.u32 %tid1, %ctaid.x; mov.u32 %tid2, %ntid.x; mov.u32 %tid3, %tid.x;\n\
             mad.lo.u32 %tid1, %tid1, %tid2, %tid3; setp.ge.u32 %pout, %tid1, %tid4; @%pout ret;\n\
             cvta.to.global.u64 %ptr1, %ptr1; cvta.to.global.u64 %ptr2, %ptr2;\n\
             mul.wide.u32 %off, %tid1, {}; add.u64 %ptr1, %ptr1, %off; add.u64 %ptr2, %ptr2, %off;\n",
            8 * regs.len().max(1)
        )
    } else {
        format!(
            ".visible .entry {name}(.param .u64 pin, .param .u64 pout) {{\n\
             .reg .b64 %ptr<3>; .reg .b32 %t<40>; .reg .b16 %th<2>; .reg .b32 %tr<2>; .reg .pred %psink;\n\
             .reg .b32 %r<9>; .reg .b16 %h<9>; .reg .b64 %rd<9>; .reg .pred %p<9>;\n\
             ld.param.u64 %ptr1, [pin]; ld.param.u64 %ptr2, [pout];\n"
        )
    };
    for (s, r) in regs.iter().enumerate() {
        let off = 8 * s;
        let _ = match r.width {
            1 => writeln!(
                k,
                "ld.global.u32 %t{s}, [%ptr1+{off}]; setp.ne.u32 {}, %t{s}, 0;",
                r.name
            ),
            16 => writeln!(k, "ld.global.u16 {}, [%ptr1+{off}];", r.name),
            64 => writeln!(k, "ld.global.u64 {}, [%ptr1+{off}];", r.name),
            _ => writeln!(k, "ld.global.u32 {}, [%ptr1+{off}];", r.name),
        };
    }
    let fixed;
    let text = if text.contains(".bf16.f32") {
        fixed = hex_f32_literals(text);
        fixed.as_str()
    } else {
        text
    };
    let (guard, body) = strip_guard(text);
    let is_set = body.starts_with("set.");
    match guard {
        // Erratum 21: ptxas 11.8 miscompiles some guarded `set`s; compute
        // unguarded into a temporary and move it under the guard instead.
        Some(g) if is_set && dsts.len() == 1 => {
            let w = regs
                .iter()
                .find(|r| r.name == dsts[0])
                .map(|r| r.width)
                .unwrap_or(32);
            let tmp = if w == 16 { "%th1" } else { "%tr1" };
            let (op, rest) = body.split_once(char::is_whitespace).unwrap_or((body, ""));
            let rest = rest.trim_start();
            let after = rest.split_once(',').map(|x| x.1).unwrap_or("");
            let _ = writeln!(k, "{op} {tmp},{after}");
            let _ = writeln!(k, "@{g} mov.{} {}, {tmp};", bits_name(w), dsts[0]);
        }
        // Erratum 20: ptxas crashes on a guarded setp with a `_` sink; a dead
        // predicate register means the same.
        Some(_) if body.starts_with("setp.") => {
            let _ = writeln!(k, "{}", text.trim().replace('_', "%psink"));
        }
        _ => {
            let _ = writeln!(k, "{}", text.trim());
        }
    }
    for (s, r) in regs.iter().enumerate() {
        if !dsts.contains(&r.name) {
            continue;
        }
        let off = 8 * s;
        let _ = match r.width {
            1 => writeln!(
                k,
                "selp.u32 %t{}, 1, 0, {}; st.global.u32 [%ptr2+{off}], %t{};",
                20 + s,
                r.name,
                20 + s
            ),
            16 => writeln!(k, "st.global.u16 [%ptr2+{off}], {};", r.name),
            64 => writeln!(k, "st.global.u64 [%ptr2+{off}], {};", r.name),
            _ => writeln!(k, "st.global.u32 [%ptr2+{off}], {};", r.name),
        };
    }
    k.push_str("ret;\n}\n");
    k
}

/// ptxas 11.8 compiles a decimal floating-point literal in `set.CmpOp.bf16.f32`
/// as 0.0 (`set.ltu.bf16.f32 %h, -2.25, %r` becomes `FSETP.GTU ... R, 0`; the
/// `0fC0100000` spelling and every other destination type are compiled right).
/// The kernel spells such literals in hex, which means the same PTX.
fn hex_f32_literals(text: &str) -> String {
    let (head, ops) = match text.find(".f32 ") {
        Some(i) => text.split_at(i + 5),
        None => return text.to_string(),
    };
    let ops: Vec<String> = ops
        .split(',')
        .map(|o| {
            let t = o.trim().trim_end_matches(';');
            let lit =
                !t.starts_with('%') && !t.starts_with("0f") && (t.contains('.') || t.contains('e'));
            match t.parse::<f64>() {
                Ok(f) if lit => o.replace(t, &format!("0f{:08X}", (f as f32).to_bits())),
                _ => o.to_string(),
            }
        })
        .collect();
    format!("{head}{}", ops.join(","))
}

/// Instruction variants covering every family and modifier: a systematic
/// sweep (each video op x width x secondary x types, each vset compare, each
/// set/setp type and compare, each half-precision pair and compare), then
/// random valid instructions up to `n`. About a quarter carry a guard.
pub fn variants(seed: u64, n: usize) -> Vec<Variant> {
    let mut rng = Rng::new(seed ^ 0x5eed);
    let mut gens: Vec<(Gen, &'static str)> = Vec::new();
    let t = gen::VIDEO_TYPES;
    for op in gen::VIDEO_OPS {
        for n in ["2", "4"] {
            for sec in ["", "sat", "add", "satfirst"] {
                for d in t {
                    for a in t {
                        for b in t {
                            gens.push((
                                gen::video_variant(&mut rng, op, n, &[d, a, b], None, sec),
                                "video",
                            ));
                        }
                    }
                }
            }
        }
    }
    for n in ["2", "4"] {
        for cmp in gen::VSET_CMPS {
            for sec in ["", "add"] {
                for a in t {
                    for b in t {
                        gens.push((
                            gen::video_variant(&mut rng, "vset", n, &[a, b], Some(cmp), sec),
                            "vset",
                        ));
                    }
                }
            }
        }
    }
    for s in gen::SCALAR_TYPES {
        for &cmp in gen::cmps_for(s) {
            let d = *rng.pick(&gen::SET_DTYPES);
            gens.push((gen::set_variant(&mut rng, "set", Some(d), s, cmp), "set"));
            gens.push((gen::set_variant(&mut rng, "setp", None, s, cmp), "setp"));
        }
    }
    for (d, s) in gen::half_set_pairs() {
        for &cmp in gen::cmps_for(s) {
            if rng.chance(1, 2) {
                gens.push((
                    gen::set_variant(&mut rng, "set", Some(d), s, cmp),
                    "half-set",
                ));
            }
        }
    }
    while gens.len() < n {
        gens.push(gen::valid(&mut rng));
    }
    // Keep the sweep's spread when asked for fewer: sample evenly.
    let step = (gens.len() as f64 / n.max(1) as f64).max(1.0);
    let mut out = Vec::with_capacity(n);
    let mut x = 0.0;
    while (x as usize) < gens.len() && out.len() < n {
        let (g, fam) = &gens[x as usize];
        let mut text = gen::render(g, false);
        if bf16_imm_c(&text) {
            x += step;
            continue;
        }
        let mut guard = String::new();
        if rng.chance(1, 4) {
            let neg = if rng.chance(1, 2) { "!" } else { "" };
            guard = format!("@{neg}%p{} ", 1 + rng.below(3));
            text = format!("{guard}{text}");
        }
        out.push(Variant {
            text: text.clone(),
            kernel: text.clone(),
            family: fam,
            arch: "sm_90",
        });
        // Erratum 22: sm_1x flushes f32 subnormal inputs of set/setp/slct; sm_90
        // code does that only for `.ftz`, so the `.ftz` form's machine code gives
        // the sm_13 values of the form without it.
        if let Some(ftz) = sm13_twin(g) {
            {
                out.push(Variant {
                    text,
                    kernel: format!("{guard}{ftz}"),
                    family: fam,
                    arch: "sm_13",
                });
            }
        }
        x += step;
    }
    out
}

/// One variant: the vector's text and target, and the text the kernel compiles.
#[derive(Clone, Debug)]
pub struct Variant {
    /// Instruction text of the vectors.
    pub text: String,
    /// Instruction text compiled for sm_90 (differs for the sm_13 twins).
    pub kernel: String,
    /// Family, for statistics.
    pub family: &'static str,
    /// Target of the vectors.
    pub arch: &'static str,
}

/// The `.ftz` spelling of an f32 `set`/`setp`/`slct` without `.ftz` whose
/// result sm_1x defines (integer or f32 destination), if `g` is one.
fn sm13_twin(g: &Gen) -> Option<String> {
    let mut g2 = g.clone();
    match &mut g2 {
        Gen::Set(s)
            if !s.ftz
                && s.types.last().map(String::as_str) == Some("f32")
                && (s.types.len() == 1 || matches!(s.types[0].as_str(), "u32" | "s32" | "f32")) =>
        {
            s.ftz = true
        }
        Gen::Slct(s) if !s.ftz && s.types.get(1).map(String::as_str) == Some("f32") => s.ftz = true,
        Gen::Video(_) | Gen::Set(_) | Gen::Selp(_) | Gen::Slct(_) => return None,
    }
    Some(gen::render(&g2, false))
}

/// ptxas rejects an immediate BoolOp operand on the bf16 forms of `set`
/// (found by part 1); such texts cannot be compiled, so they are not variants.
fn bf16_imm_c(text: &str) -> bool {
    let bool_op = [".and.", ".or.", ".xor."].iter().any(|b| text.contains(b));
    let last = text
        .trim_end_matches(';')
        .rsplit(',')
        .next()
        .unwrap_or("")
        .trim();
    bool_op && text.contains("bf16") && !last.trim_start_matches('!').starts_with('%')
}

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

/// A kernel's machine code, or why there is none.
type Listing = Result<Vec<sass::SInst>, String>;

struct Compiled {
    /// Kernel index -> listing, or why it could not be compiled.
    progs: Vec<Result<Vec<sass::SInst>, String>>,
}

fn compile_batch(tools: &Tools, texts: &[&str], dir: &Path, id: usize) -> Compiled {
    let mut progs: Vec<Option<Result<Vec<sass::SInst>, String>>> = vec![None; texts.len()];
    let mut stack: Vec<Vec<usize>> = vec![(0..texts.len()).collect()];
    let ptx = dir.join(format!("v{id}.ptx"));
    let cubin = dir.join(format!("v{id}.cubin"));
    while let Some(group) = stack.pop() {
        if group.is_empty() {
            continue;
        }
        let mut src = String::from(".version 7.8\n.target sm_90\n.address_size 64\n");
        let mut starts = Vec::new();
        for &i in &group {
            starts.push(src.lines().count() + 1);
            src += &kernel(&format!("k{i}"), texts[i]);
        }
        let res = (|| -> Result<std::result::Result<String, String>> {
            std::fs::write(&ptx, &src)?;
            let out = Command::new(&tools.ptxas)
                .arg("-arch=sm_90")
                .arg(&ptx)
                .arg("-o")
                .arg(&cubin)
                .output()?;
            if let Some(sig) = out.status.signal() {
                return Ok(Err(format!("ptxas killed by signal {sig}")));
            }
            if !out.status.success() {
                return Ok(Err(String::from_utf8_lossy(&out.stderr).into_owned()));
            }
            let dis = Command::new(tools.nvdisasm()?)
                .arg("-c")
                .arg(&cubin)
                .output()?;
            if !dis.status.success() {
                bail!("nvdisasm failed: {}", String::from_utf8_lossy(&dis.stderr));
            }
            Ok(Ok(String::from_utf8_lossy(&dis.stdout).into_owned()))
        })();
        match res {
            Ok(Ok(listing)) => match sass::parse_listing(&listing) {
                Ok(funcs) => {
                    let by_name: HashMap<String, Vec<sass::SInst>> = funcs.into_iter().collect();
                    for &i in &group {
                        progs[i] = Some(
                            by_name
                                .get(&format!("k{i}"))
                                .cloned()
                                .ok_or_else(|| "function missing from listing".to_string()),
                        );
                    }
                }
                Err(e) => group
                    .iter()
                    .for_each(|&i| progs[i] = Some(Err(format!("listing: {e:#}")))),
            },
            Ok(Err(msg)) => {
                // Pin errors on kernels by line; split when nothing can be pinned.
                let mut bad = Vec::new();
                for l in msg.lines() {
                    let Some(n) = l
                        .split_once(", line ")
                        .and_then(|x| x.1.split_once(';'))
                        .and_then(|x| x.0.trim().parse::<usize>().ok())
                    else {
                        continue;
                    };
                    if let Some(k) = starts.iter().rposition(|&s| s <= n) {
                        if !bad.contains(&k) {
                            bad.push(k);
                            progs[group[k]] = Some(Err(l.to_string()));
                        }
                    }
                }
                if bad.is_empty() {
                    if group.len() == 1 {
                        progs[group[0]] = Some(Err(msg.lines().next().unwrap_or("").to_string()));
                    } else {
                        let (a, b) = group.split_at(group.len() / 2);
                        stack.push(a.to_vec());
                        stack.push(b.to_vec());
                    }
                } else {
                    stack.push(
                        group
                            .iter()
                            .enumerate()
                            .filter(|(k, _)| !bad.contains(k))
                            .map(|(_, &i)| i)
                            .collect(),
                    );
                }
            }
            Err(e) => group
                .iter()
                .for_each(|&i| progs[i] = Some(Err(format!("{e:#}")))),
        }
    }
    Compiled {
        progs: progs
            .into_iter()
            .map(|p| p.unwrap_or_else(|| Err("not compiled".into())))
            .collect(),
    }
}

/// Runs the listing of `text` on one input set. Returns the `out` values.
fn run_machine(
    prog: &[sass::SInst],
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

fn vector_line(
    arch: &str,
    text: &str,
    family: &str,
    regs: &[Reg],
    inputs: &[u64],
    out: &[(String, u64)],
) -> String {
    let fmt = |w: u32, v: u64| {
        if w == 1 {
            (v != 0).to_string()
        } else {
            format!("\"{}\"", hex(v))
        }
    };
    let ins: Vec<String> = regs
        .iter()
        .zip(inputs)
        .map(|(r, &v)| format!("\"{}\":{}", r.name, fmt(r.width, v)))
        .collect();
    let outs: Vec<String> = out
        .iter()
        .map(|(n, v)| {
            let w = regs
                .iter()
                .find(|r| &r.name == n)
                .map(|r| r.width)
                .unwrap_or(32);
            format!("\"{n}\":{}", fmt(w, *v))
        })
        .collect();
    format!(
        "{{\"arch\":\"{arch}\",\"ptx\":{},\"in\":{{{}}},\"out\":{{{}}},\"family\":\"{family}\"}}",
        serde_json::to_string(text).unwrap_or_default(),
        ins.join(","),
        outs.join(",")
    )
}

/// Runs part 2. Returns the number of failed vectors.
pub fn run(tools: &Tools, o: &Opts) -> Result<usize> {
    tools.nvdisasm()?;
    let vars = variants(o.seed, o.variants);
    let texts: Vec<&str> = vars.iter().map(|v| v.kernel.as_str()).collect();
    let dir = std::env::temp_dir().join(format!("xtask-values-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let t0 = std::time::Instant::now();
    let chunks: Vec<(usize, usize)> = (0..texts.len())
        .step_by(o.batch.max(1))
        .map(|s| (s, (s + o.batch).min(texts.len())))
        .collect();
    let next = AtomicUsize::new(0);
    let progs: Mutex<Vec<Option<Listing>>> = Mutex::new(vec![None; texts.len()]);
    std::thread::scope(|s| {
        for w in 0..o.jobs.max(1) {
            let (chunks, next, progs, texts, dir) = (&chunks, &next, &progs, &texts, &dir);
            s.spawn(move || loop {
                let c = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(lo, hi)) = chunks.get(c) else {
                    break;
                };
                let got = compile_batch(tools, &texts[lo..hi], dir, w);
                let mut p = progs.lock().unwrap_or_else(|e| e.into_inner());
                for (k, r) in got.progs.into_iter().enumerate() {
                    p[lo + k] = Some(r);
                }
            });
        }
    });
    let _ = std::fs::remove_dir_all(&dir);
    let progs = progs.into_inner().unwrap_or_else(|e| e.into_inner());
    eprintln!(
        "compiled and disassembled {} variants in {:.1}s",
        texts.len(),
        t0.elapsed().as_secs_f64()
    );

    let mut rng = Rng::new(o.seed ^ 0xda7a);
    let mut lines = Vec::new();
    let mut not_run: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut opcodes: BTreeMap<String, usize> = BTreeMap::new();
    for (i, var) in vars.iter().enumerate() {
        let (text, fam) = (&var.text, var.family);
        let prog = match progs[i].clone().unwrap_or_else(|| Err("missing".into())) {
            Ok(p) => p,
            Err(e) => {
                not_run
                    .entry(format!(
                        "compile: {}",
                        e.split(';').next_back().unwrap_or("").trim()
                    ))
                    .or_default()
                    .push(text.clone());
                continue;
            }
        };
        for ins in &prog {
            *opcodes.entry(ins.op.clone()).or_default() += 1;
        }
        let (regs, dsts) = layout(text);
        if regs.len() > 8 {
            continue;
        }
        for _ in 0..o.inputs {
            let mut inputs: Vec<u64> = regs.iter().map(|r| value(&mut rng, r.width)).collect();
            // Equal operands exercise the eq/le/ge edges.
            if rng.chance(1, 5) && regs.len() >= 3 {
                let (x, y) = (1 + rng.below(regs.len() - 1), rng.below(regs.len()));
                if regs[x].width == regs[y].width {
                    inputs[x] = inputs[y];
                }
            }
            match run_machine(&prog, &regs, &dsts, &inputs) {
                Ok(out) => lines.push(vector_line(var.arch, text, fam, &regs, &inputs, &out)),
                Err(e) => {
                    let key = format!(
                        "interpreter: {}",
                        format!("{e:#}").rsplit(": ").next().unwrap_or("")
                    );
                    not_run.entry(key).or_default().push(text.clone());
                    break;
                }
            }
        }
    }
    for (why, t) in &not_run {
        println!("not run ({} variants): {why}\n    e.g. {}", t.len(), t[0]);
    }
    println!(
        "SASS opcodes executed: {}",
        opcodes.keys().cloned().collect::<Vec<_>>().join(" ")
    );

    let all = lines.join("\n");
    let report = sim_isa::conform::run_vectors(&all);
    let mut agreed = String::new();
    let mut bad = String::new();
    let mut shown = 0;
    let mut fam_stats: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for r in &report.results {
        let line = &lines[r.line - 1];
        let fam = line
            .rsplit("\"family\":\"")
            .next()
            .unwrap_or("")
            .trim_end_matches("\"}")
            .to_string();
        let e = fam_stats.entry(fam).or_default();
        match &r.outcome {
            sim_isa::conform::Outcome::Passed => {
                e.0 += 1;
                agreed += line;
                agreed.push('\n');
            }
            _ => {
                e.1 += 1;
                if shown < o.show {
                    println!("FAIL {r}\n    vector: {line}");
                    shown += 1;
                }
                bad += line;
                bad.push('\n');
            }
        }
    }
    println!("by family (passed/failed):");
    for (k, (p, f)) in &fam_stats {
        println!("  {k:<10} {p:>7} {f:>6}");
    }
    if let Some(p) = &o.write {
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d)?;
        }
        let header = format!(
            "# Values derived from ptxas 11.8.89 sm_90 machine code (nvdisasm, xtask SASS interpreter) and agreed by sim-isa;\n# sm_13 lines: the .ftz form's code gives the sm_1x flush semantics (erratum 22).\n\
             # Regenerate: cargo run -p xtask --release -- values --variants {} --inputs {} --seed {} --write <this file>\n",
            o.variants, o.inputs, o.seed
        );
        let body = header + &agreed;
        if p.extension().is_some_and(|e| e == "gz") {
            use std::io::Write as _;
            let f = std::fs::File::create(p).with_context(|| format!("writing {}", p.display()))?;
            let mut z = flate2::write::GzEncoder::new(f, flate2::Compression::best());
            z.write_all(body.as_bytes())?;
            z.finish()?;
        } else {
            std::fs::write(p, body).with_context(|| format!("writing {}", p.display()))?;
        }
    }
    if let Some(p) = &o.disagreements {
        std::fs::write(p, bad).with_context(|| format!("writing {}", p.display()))?;
    }
    let skipped_variants: usize = not_run.values().map(Vec::len).sum();
    if skipped_variants > 0 {
        println!("{skipped_variants} variants could not be run (listed above)");
    }
    println!("{}", report.summary_line());
    Ok(report.failed() + report.skipped())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_names_registers_and_destinations() {
        let (regs, dsts) = layout("@!%p2 setp.lt.or.f64 %p1|%p3, %rd1, 1.5, !%p2;");
        let names: Vec<_> = regs.iter().map(|r| (r.name.as_str(), r.width)).collect();
        assert_eq!(names, [("%p2", 1), ("%p1", 1), ("%p3", 1), ("%rd1", 64)]);
        assert_eq!(dsts, ["%p1", "%p3"]);
        let (_, dsts) = layout("vadd4.u32.u32.u32 %r1.b21, %r2, %r3, %r1;");
        assert_eq!(dsts, ["%r1"]);
        let (_, dsts) = layout("setp.ne.s32 _|%p2, %r1, %r2;");
        assert_eq!(dsts, ["%p2"]);
    }

    #[test]
    fn errata_workarounds_in_kernels() {
        // Erratum 21: guarded set computes into a temporary, then a guarded mov.
        let k = kernel("k", "@%p1 set.lt.f16.f32 %h1, %r1, %r2;");
        assert!(k.contains("set.lt.f16.f32 %th1, %r1, %r2;"), "{k}");
        assert!(k.contains("@%p1 mov.b16 %h1, %th1;"), "{k}");
        // Erratum 20: guarded setp with a sink gets a dead predicate instead.
        let k = kernel("k", "@%p1 setp.ne.s32 _|%p2, %r1, %r2;");
        assert!(k.contains("setp.ne.s32 %psink|%p2"), "{k}");
        // Decimal literal in set.bf16.f32 is spelled in hex.
        assert_eq!(
            hex_f32_literals("set.ltu.bf16.f32 %h3, -2.25, %r1;"),
            "set.ltu.bf16.f32 %h3, 0fC0100000, %r1;"
        );
    }

    #[test]
    fn variants_cover_every_family() {
        let v = variants(3, 3000);
        for fam in ["video", "vset", "set", "half-set", "setp", "selp", "slct"] {
            assert!(v.iter().any(|x| x.family == fam), "{fam}");
        }
        assert!(v.iter().any(|x| x.text.starts_with('@')));
        let twin = v.iter().find(|x| x.arch == "sm_13").expect("sm_13 twins");
        assert!(
            twin.kernel.contains(".ftz") && !twin.text.contains(".ftz"),
            "{twin:?}"
        );
        assert!(v.iter().any(|x| x.text.contains("4.sat.")));
    }
}
