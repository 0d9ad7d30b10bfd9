//! `values --family mma`: the tensor-core forms (`mma.sync`, `ldmatrix`,
//! `stmatrix`, `movmatrix`) as warp vectors. Each form is compiled in a
//! one-warp kernel: every lane loads the registers the form names from its
//! own 8-byte slots, the block's shared memory is filled from a 512-byte
//! image first (for the forms that touch it), and after the instruction the
//! lanes store what it wrote and copy the image back. The machine code runs
//! on [`crate::sass::Warp`]; the vectors (`sim_isa::conform_warp`'s format)
//! are then run through sim-isa.

use super::compile::{compile_all_with, Wrap};
use super::kernel::{layout, Reg};
use super::vectors::write_file as write;
use super::warp_gpu::{Form, GpuDir};
use super::Opts;
use crate::rng::Rng;
use crate::sass::{SInst, Warp, LANES};
use crate::tools::Tools;
use anyhow::{bail, Context, Result};
use std::fmt::Write as _;

/// Bytes of the shared-memory image (32 rows of 16 bytes: `.x4`'s rows).
const IMAGE: usize = 512;

const F4: &str = "{%r1, %r2, %r3, %r4}";
const A4: &str = "{%r5, %r6, %r7, %r8}";
const C4: &str = "{%r11, %r12, %r13, %r14}";

/// The forms: every shape and type sim-isa runs, in place (D = C) and not.
pub fn forms() -> Vec<String> {
    let mut v = Vec::new();
    let m = "mma.sync.aligned";
    for ty in ["f16", "bf16"] {
        v.push(format!(
            "{m}.m16n8k16.row.col.f32.{ty}.{ty}.f32 {F4}, {A4}, {{%r9, %r10}}, {C4};"
        ));
        v.push(format!(
            "{m}.m16n8k8.row.col.f32.{ty}.{ty}.f32 {F4}, {{%r5, %r6}}, {{%r9}}, {F4};"
        ));
    }
    v.push(format!(
        "{m}.m16n8k16.row.col.f16.f16.f16.f16 {{%r1, %r2}}, {A4}, {{%r9, %r10}}, {{%r11, %r12}};"
    ));
    v.push(format!(
        "{m}.m16n8k8.row.col.f16.f16.f16.f16 {{%r1, %r2}}, {{%r5, %r6}}, {{%r9}}, {{%r1, %r2}};"
    ));
    for sat in ["", ".satfinite"] {
        for (a, b) in [("s8", "s8"), ("u8", "s8"), ("s8", "u8"), ("u8", "u8")] {
            v.push(format!(
                "{m}.m16n8k32.row.col{sat}.s32.{a}.{b}.s32 {F4}, {A4}, {{%r9, %r10}}, {C4};"
            ));
        }
        v.push(format!(
            "{m}.m16n8k16.row.col{sat}.s32.s8.u8.s32 {F4}, {{%r5, %r6}}, {{%r9}}, {F4};"
        ));
    }
    for rn in ["", ".rn"] {
        v.push(format!(
            "{m}.m8n8k4.row.col{rn}.f64.f64.f64.f64 {{%rd1, %rd2}}, {{%rd3}}, {{%rd4}}, {{%rd5, %rd6}};"
        ));
    }
    v.push("movmatrix.sync.aligned.m8n8.trans.b16 %r2, %r1;".into());
    for (x, regs) in [
        ("x1", "{%r2}"),
        ("x2", "{%r2, %r3}"),
        ("x4", "{%r2, %r3, %r4, %r5}"),
    ] {
        for t in ["", ".trans"] {
            v.push(format!(
                "ldmatrix.sync.aligned.m8n8.{x}{t}.shared.b16 {regs}, [%r1];"
            ));
            v.push(format!(
                "stmatrix.sync.aligned.m8n8.{x}{t}.shared.b16 [%r1], {regs};"
            ));
        }
    }
    v
}

/// Registers the form writes: its first operand (a `{..}` list or one register).
pub(super) fn dsts(text: &str) -> Vec<String> {
    let ops = text
        .split_once(char::is_whitespace)
        .map_or("", |x| x.1)
        .trim();
    let first = match ops.strip_prefix('{') {
        Some(r) => r.split('}').next().unwrap_or(""),
        None => ops.split(',').next().unwrap_or(""),
    };
    first
        .split(',')
        .map(|d| d.trim().to_string())
        .filter(|d| d.starts_with('%'))
        .collect()
}

/// The register in `[..]`, if the form addresses shared memory.
pub(super) fn address(text: &str) -> Option<String> {
    let i = text.find("[%")?;
    let rest = &text[i + 1..];
    Some(rest[..rest.find(']')?].to_string())
}

/// Where a form's memory image lives and which register addresses it.
pub(super) struct Frame {
    /// Bytes of the image (a multiple of 128; 0: none).
    pub img: usize,
    /// In shared memory (else global: copied to the output buffer first).
    pub shared: bool,
    /// Whether the form writes the image (its address is then the output's).
    pub writes: bool,
}

/// The one-warp kernel around `text` (the module doc).
pub fn warp_kernel(name: &str, text: &str) -> String {
    let img = if address(text).is_some() { IMAGE } else { 0 };
    let writes = text.starts_with("st");
    frame_kernel(
        name,
        text,
        &Frame {
            img,
            shared: true,
            writes,
        },
    )
}

/// Appends the copy of an `img`-byte image, word `tid + 32 j` of each
/// lane, from `(space, base register)` to another: the copy in before the
/// instruction and, for a shared image, the copy back after.
fn copy_image(k: &mut String, img: usize, (from, at): (&str, &str), (space, to): (&str, &str)) {
    for j in 0..img / 128 {
        let o = 128 * j;
        let _ = writeln!(
            k,
            "ld.{from}.u32 %t5, [{at}+{o}]; st.{space}.u32 [{to}+{o}], %t5;"
        );
    }
}

/// The one-warp kernel around `text` with its image placed as `f` says: a
/// shared image is loaded from the input and copied back after; a global
/// one is copied from the input to the output buffer, and the address
/// register (an offset into the image) is made the input's (a load) or the
/// output's (a store).
pub(super) fn frame_kernel(name: &str, text: &str, f: &Frame) -> String {
    let (regs, dsts) = (layout(text).0, dsts(text));
    let slots = 8 * regs.len();
    let img = f.img;
    let mut k = format!(
        ".visible .entry {name}(.param .u64 pin, .param .u64 pout) {{\n\
         .reg .b64 %ptr<8>; .reg .b32 %t<8>; .reg .b32 %r<40>; .reg .b64 %rd<40>;\n\
         ld.param.u64 %ptr1, [pin]; ld.param.u64 %ptr2, [pout];\n\
         cvta.to.global.u64 %ptr1, %ptr1; cvta.to.global.u64 %ptr2, %ptr2;\n\
         mov.u32 %t1, %tid.x;\n"
    );
    let (space, to) = if f.shared {
        ("shared", "%t4")
    } else {
        ("global", "%ptr6")
    };
    if img > 0 {
        // Word `tid + 32 j` of the image, so no two loads of a lane are
        // adjacent (ptxas would merge them into one 128-bit load).
        if f.shared {
            let _ = writeln!(k, ".shared .align 128 .b8 sm[{img}];");
        }
        if f.shared {
            k += "mov.u32 %t2, sm; shl.b32 %t3, %t1, 2; add.u32 %t4, %t2, %t3;\n";
        }
        k += "mul.wide.u32 %ptr3, %t1, 4; add.u64 %ptr4, %ptr1, %ptr3; add.u64 %ptr6, %ptr2, %ptr3;\n";
        copy_image(&mut k, img, ("global", "%ptr4"), (space, to));
        k += "bar.sync 0;\n";
    }
    let _ = writeln!(
        k,
        "mul.wide.u32 %ptr3, %t1, {slots}; add.u64 %ptr5, %ptr1, %ptr3; add.u64 %ptr7, %ptr2, %ptr3;"
    );
    for (s, r) in regs.iter().enumerate() {
        let w = if r.width == 64 { "u64" } else { "u32" };
        let _ = writeln!(k, "ld.global.{w} {}, [%ptr5+{}];", r.name, img + 8 * s);
    }
    if let Some(a) = address(text) {
        if f.shared {
            let _ = writeln!(k, "add.u32 {a}, {a}, %t2;");
        } else {
            let base = if f.writes { "%ptr2" } else { "%ptr1" };
            let _ = writeln!(k, "add.u64 {a}, {a}, {base};");
        }
    }
    let _ = writeln!(k, "{text}");
    for (s, r) in regs.iter().enumerate() {
        if dsts.contains(&r.name) {
            let w = if r.width == 64 { "u64" } else { "u32" };
            let _ = writeln!(k, "st.global.{w} [%ptr7+{}], {};", img + 8 * s, r.name);
        }
    }
    if img > 0 && f.shared {
        k += "bar.sync 0;\n";
        copy_image(&mut k, img, ("shared", "%t4"), ("global", "%ptr6"));
    }
    k + "ret;\n}\n"
}

/// f16 values the draws mix in: zeros, ones, the largest, infinities, NaN,
/// subnormals, the smallest normal.
const H16: [u16; 14] = [
    0x0000, 0x8000, 0x3c00, 0xbc00, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x0001, 0x83ff, 0x0400,
    0x3555, 0xc000,
];
const B16: [u16; 14] = [
    0x0000, 0x8000, 0x3f80, 0xbf80, 0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fc0, 0x0001, 0x807f, 0x0080,
    0x3eab, 0xc000,
];

/// How one vector's values are drawn.
#[derive(Clone, Copy)]
pub(super) struct Profile {
    /// One in `special` elements is an edge value (0: none).
    pub special: u32,
    /// Exponent spread around 1.0 of the ordinary values.
    pub spread: u32,
}

impl Profile {
    /// One of the draws' profiles: plain, a few edges, many edges, any
    /// exponent, a wide spread with rare edges.
    pub(super) fn pick(rng: &mut Rng) -> Profile {
        let (special, spread) = *rng.pick(&[(0, 4), (40, 6), (8, 3), (0, 0), (100, 14)]);
        Profile { special, spread }
    }
}

/// One 16-bit float: an edge value, or a random sign and fraction with an
/// exponent near 1.0 (`spread` wide) or anywhere, subnormals included.
pub(super) fn half(rng: &mut Rng, bf: bool, p: Profile) -> u64 {
    if p.special > 0 && rng.chance(1, p.special) {
        return u64::from(*rng.pick(if bf { &B16 } else { &H16 }));
    }
    let (fb, bias, emax) = if bf { (7, 127, 254) } else { (10, 15, 30) };
    let e = if p.spread == 0 {
        rng.below(emax + 1) as i64
    } else {
        bias + rng.below(2 * p.spread as usize + 1) as i64 - p.spread as i64
    };
    let e = e.clamp(0, emax as i64) as u64;
    let sign = rng.next_u64() & 1;
    sign << (fb + if bf { 8 } else { 5 }) | e << fb | (rng.next_u64() & ((1 << fb) - 1))
}

/// A 32-bit accumulator or source value for `text`'s register `name`.
fn accumulator(rng: &mut Rng, text: &str, p: Profile) -> u64 {
    if text.contains(".s32.") {
        return s32_value(rng);
    }
    if text.contains(".f16.f16.f16.f16") {
        return half(rng, false, p) | half(rng, false, p) << 16;
    }
    f32_value(rng, p)
}

/// An s32 accumulator: near either limit (so sums saturate or wrap) or any.
pub(super) fn s32_value(rng: &mut Rng) -> u64 {
    match rng.below(4) {
        0 => (i32::MAX - rng.below(1 << 20) as i32) as u32 as u64,
        1 => (i32::MIN + rng.below(1 << 20) as i32) as u32 as u64,
        _ => rng.next_u64() & 0xffff_ffff,
    }
}

/// An f32 value: an edge value, or a widened bf16 (values near the
/// products) with random low bits.
pub(super) fn f32_value(rng: &mut Rng, p: Profile) -> u64 {
    if p.special > 0 && rng.chance(1, p.special) {
        return u64::from(*rng.pick(&[
            0u32,
            0x8000_0000,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0x7f7f_ffff,
            0x0000_0001,
            0x8000_0001,
        ]));
    }
    let h = half(rng, true, p);
    h << 16 | (rng.next_u64() & 0xffff)
}

/// One lane's value of register `r` of `text`.
fn draw(rng: &mut Rng, text: &str, r: &Reg, is_src_ab: bool, p: Profile) -> u64 {
    if r.width == 64 {
        return f64_value(rng, p);
    }
    if text.starts_with("mma") && is_src_ab {
        if text.contains(".s32.") {
            return bytes4(rng);
        }
        let bf = text.contains("bf16");
        return half(rng, bf, p) | half(rng, bf, p) << 16;
    }
    if text.starts_with("mma") {
        return accumulator(rng, text, p);
    }
    rng.next_u64() & 0xffff_ffff
}

/// Four 8-bit integers, one in four an edge (0, 1, 127, 128, 255).
pub(super) fn bytes4(rng: &mut Rng) -> u64 {
    (0..4).fold(0, |v, k| {
        let b = if rng.chance(1, 4) {
            *rng.pick(&[0u64, 0x7f, 0x80, 0xff, 0x01])
        } else {
            rng.next_u64() & 0xff
        };
        v | b << (8 * k)
    })
}

/// An f64 value: an edge value, or one within about `2^(20 + spread)` of 1.
pub(super) fn f64_value(rng: &mut Rng, p: Profile) -> u64 {
    if p.special > 0 && rng.chance(1, p.special) {
        return *rng.pick(&[
            0,
            1 << 63,
            0x7ff0 << 48,
            0xfff0 << 48,
            0x7ff8 << 48,
            1,
            0x7fef_ffff_ffff_ffff,
        ]);
    }
    let e = (1023 + rng.below(2 * p.spread as usize + 41) as i64 - 20 - p.spread as i64) as u64;
    (rng.next_u64() & (1 << 63)) | (e & 0x7ff) << 52 | (rng.next_u64() >> 12)
}

/// The warp's inputs for one vector: the image and each register's lanes.
fn inputs(rng: &mut Rng, text: &str, regs: &[Reg]) -> Inputs {
    let p = Profile::pick(rng);
    let image: Vec<u8> = (0..IMAGE).map(|_| rng.next_u64() as u8).collect();
    let addr = address(text);
    let (_, dst) = (0, dsts(text));
    let mut rows: Vec<u64> = (0..LANES as u64).map(|r| 16 * r).collect();
    // stmatrix: distinct rows (two lanes naming one row would race);
    // ldmatrix: any rows, repeats included.
    for i in (1..LANES).rev() {
        rows.swap(i, rng.below(i + 1));
    }
    let vals = regs
        .iter()
        .map(|r| {
            std::array::from_fn(|l| {
                if Some(&r.name) == addr.as_ref() {
                    if text.starts_with("ld") {
                        16 * rng.below(LANES) as u64
                    } else {
                        rows[l]
                    }
                } else {
                    let src = !dst.contains(&r.name) && !is_c(text, &r.name);
                    draw(rng, text, r, src, p)
                }
            })
        })
        .collect();
    (image, vals)
}

/// Whether `name` is in the form's C operand (the last `{..}` list of an `mma`).
fn is_c(text: &str, name: &str) -> bool {
    text.starts_with("mma")
        && text
            .rsplit('{')
            .next()
            .is_some_and(|c| c.split([',', '}']).any(|x| x.trim() == name))
}

fn lanes_json(v: &[u64; LANES]) -> String {
    let items: Vec<String> = v.iter().map(|x| format!("\"{x:#x}\"")).collect();
    format!("[{}]", items.join(","))
}

fn hex(b: &[u8]) -> String {
    b.iter().fold(String::new(), |mut s, x| {
        let _ = write!(s, "{x:02x}");
        s
    })
}

/// One input set: the memory image and each register's lanes.
pub(super) type Inputs = (Vec<u8>, Vec<[u64; LANES]>);

/// A family of warp forms and how its vectors are made.
pub(super) struct Family {
    /// `family` of the vectors and `--family` of the command.
    pub name: &'static str,
    /// Mixed into the seed.
    pub salt: u64,
    pub forms: Vec<String>,
    /// The kernel around a form.
    pub wrap: Wrap,
    /// Bytes of a form's memory image (0: none).
    pub img: fn(&str) -> usize,
    /// Whether the form writes its image (the vector then records it after).
    pub writes: fn(&str) -> bool,
    /// Input sets of a form, given `--inputs`.
    pub count: fn(&str, usize) -> usize,
    /// One input set: the image and each register's lanes.
    pub inputs: fn(&mut Rng, &str, &[Reg]) -> Inputs,
}

/// The kernel's input buffer: the `img`-byte image, then each lane's
/// `slots` bytes (one 8-byte word a register).
fn input_buffer(img: usize, slots: usize, image: &[u8], vals: &[[u64; LANES]]) -> Vec<u8> {
    let mut input = image[..img].to_vec();
    input.resize(img + LANES * slots, 0);
    for l in 0..LANES {
        for (s, v) in vals.iter().enumerate() {
            let at = img + l * slots + 8 * s;
            input[at..at + 8].copy_from_slice(&v[l].to_le_bytes());
        }
    }
    input
}

/// Runs `prog` on one input set; returns the vector line.
fn vector(
    fam: &Family,
    prog: &[SInst],
    text: &str,
    regs: &[Reg],
    image: &[u8],
    vals: &[[u64; LANES]],
) -> Result<String> {
    let slots = 8 * regs.len();
    let img = (fam.img)(text);
    let input = input_buffer(img, slots, image, vals);
    let mut w = Warp::new(input, img + LANES * slots);
    w.run(prog)?;
    let dst = dsts(text);
    let mut ins = Vec::new();
    let mut outs = Vec::new();
    for (s, (r, v)) in regs.iter().zip(vals).enumerate() {
        // A register only written (named once, as a destination) has no input.
        let named = text
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '%'))
            .filter(|w| *w == r.name)
            .count();
        if !dst.contains(&r.name) || named > 1 {
            ins.push(format!("\"{}\":{}", r.name, lanes_json(v)));
        }
        if dst.contains(&r.name) {
            let mask = if r.width == 64 { u64::MAX } else { 0xffff_ffff };
            let got: [u64; LANES] = std::array::from_fn(|l| {
                let at = img + l * slots + 8 * s;
                u64::from_le_bytes(w.output[at..at + 8].try_into().unwrap_or_default()) & mask
            });
            outs.push(format!("\"{}\":{}", r.name, lanes_json(&got)));
        }
    }
    let mut line = format!(
        "{{\"arch\":\"sm_90\",\"ptx\":{},\"in\":{{{}}}",
        serde_json::to_string(text)?,
        ins.join(",")
    );
    if img > 0 {
        let _ = write!(line, ",\"shared\":\"{}\"", hex(&image[..img]));
    }
    let _ = write!(line, ",\"out\":{{{}}}", outs.join(","));
    if img > 0 && (fam.writes)(text) {
        let _ = write!(line, ",\"shared_out\":\"{}\"", hex(&w.output[..img]));
    }
    Ok(line + &format!(",\"family\":\"{}\"}}", fam.name))
}

/// `values --family mma`. Returns the number of vectors sim-isa disagrees with.
pub fn run(tools: &Tools, o: &Opts) -> Result<usize> {
    let fam = Family {
        name: "mma",
        salt: 0x3a3a,
        forms: forms(),
        wrap: warp_kernel,
        img: |t| if address(t).is_some() { IMAGE } else { 0 },
        writes: |t| t.starts_with("st"),
        count: |_, n| n,
        inputs,
    };
    run_family(tools, o, &fam)
}

/// Compiles `fam`'s forms, runs `o.inputs` input sets of each on the warp
/// interpreter and through sim-isa, and writes the vectors sim-isa agrees
/// with. Returns the number it disagrees with.
pub(super) fn run_family(tools: &Tools, o: &Opts, fam: &Family) -> Result<usize> {
    tools.nvdisasm()?;
    let forms = &fam.forms;
    let texts: Vec<&str> = forms.iter().map(String::as_str).collect();
    let progs = compile_all_with(tools, &texts, o.common.batch, o.common.jobs, fam.wrap)?;
    let mut rng = Rng::new(o.common.seed ^ fam.salt);
    let (mut lines, mut bad, mut failed) = (Vec::new(), Vec::new(), 0);
    let mut gpu = o.gpu_dir.as_ref().map(|_| GpuDir::new(tools.ptx_version));
    for (i, (text, prog)) in forms.iter().zip(progs).enumerate() {
        let prog = match prog.context("missing listing")? {
            Ok(p) => p,
            Err(e) => bail!("{text}: {e}"),
        };
        // The tensor-core, LDSM/STSM or MOVM instruction ptxas chose.
        let ops: Vec<&str> = prog
            .iter()
            .filter(|i| i.op.ends_with("MMA") || i.op.ends_with("SM") || i.op == "MOVM")
            .filter_map(|i| i.text.split_whitespace().next())
            .collect();
        println!("{text}\n    {}", ops.join(" "));
        let regs = layout(text).0;
        if let Some(g) = &mut gpu {
            let name = format!("w{i}");
            g.form(&Form {
                kernel: (fam.wrap)(&name, text),
                name,
                text,
                img: (fam.img)(text),
                writes: (fam.writes)(text),
                regs: &regs,
                dsts: dsts(text),
                thread: serde_json::Value::Null,
            });
        }
        for _ in 0..(fam.count)(text, o.inputs) {
            let (image, vals) = (fam.inputs)(&mut rng, text, &regs);
            // An opcode the interpreter lacks: named, counted as failed, and
            // the next form tried (so one run lists them all).
            let line = match vector(fam, &prog, text, &regs, &image, &vals) {
                Ok(l) => l,
                Err(e) => {
                    println!("NOT RUN {text}: {e:#}");
                    failed += 1;
                    break;
                }
            };
            if let Some(g) = &mut gpu {
                let slots = 8 * regs.len();
                g.vector(&input_buffer((fam.img)(text), slots, &image, &vals), &line);
            }
            match sim_isa::conform_warp::run_warp_vector(&line) {
                Ok(None) => lines.push(line),
                Ok(Some(diff)) => {
                    if failed < o.common.show {
                        println!("FAIL {text}: {diff}");
                    }
                    failed += 1;
                    bad.push(line);
                }
                Err(e) => bail!("{text}: unusable vector: {e}"),
            }
        }
    }
    println!("{} passed, {failed} failed", lines.len());
    let header = format!(
        "# Warp vectors from ptxas 13.0.88 sm_90 machine code (.version 8.0; nvdisasm, xtask SASS interpreter's Warp) agreed by sim-isa.\n\
         # Regenerate: PTXAS=<ptxas 13.0.88> cargo run -p xtask --release -- values --family {} --inputs {} --seed {} --write <this file>\n",
        fam.name, o.inputs, o.common.seed
    );
    if let Some(p) = &o.write {
        write(p, &(header + &lines.join("\n") + "\n"))?;
    }
    if let Some(p) = &o.disagreements {
        write(p, &(bad.join("\n") + "\n"))?;
    }
    if let (Some(g), Some(dir)) = (&gpu, &o.gpu_dir) {
        g.write(dir)?;
    }
    Ok(failed)
}
