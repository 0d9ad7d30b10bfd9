//! `values --family wmma`: the WMMA statements (`wmma.load.{a,b,c}`,
//! `wmma.mma`, `wmma.store.d`; docs/wmma.md) as warp vectors, through
//! [`super::mma`]'s machinery. A load or store sees a memory image placed
//! in global or shared memory as its space says: the address register is
//! an offset into the image (the kernel adds the buffer's or the shared
//! variable's base), the same for every lane; a store's vector records the
//! image after it. `wmma.mma` reads its fragments from each lane's slots
//! like `mma` (`d` in `%r1..`, `a` in `%r11..`, `b` in `%r21..`, `c` in
//! `%r31..`; `%rd` for f64).

use super::kernel::Reg;
use super::mma::{
    address, bytes4, f32_value, f64_value, frame_kernel, half, run_family, s32_value, Family,
    Frame, Inputs, Profile,
};
use super::Opts;
use crate::rng::Rng;
use crate::sass::LANES;
use crate::tools::Tools;
use anyhow::Result;

/// The shapes of the 16-bit and 8-bit types.
const SHAPES16: [&str; 3] = ["m16n16k16", "m32n8k16", "m8n32k16"];
/// The stride register (elements), when a form has one.
const STRIDE: &str = "%r9";
/// The strides the draws use: the default leading dimension and wider.
const STRIDES: [u64; 3] = [16, 24, 32];

/// `(m, n, k)` of a shape.
fn dims(shape: &str) -> (usize, usize, usize) {
    match shape {
        "m32n8k16" => (32, 8, 16),
        "m8n32k16" => (8, 32, 16),
        "m8n8k4" => (8, 8, 4),
        "m8n8k32" => (8, 8, 32),
        "m8n8k128" => (8, 8, 128),
        "m16n16k8" => (16, 16, 8),
        _ => (16, 16, 16),
    }
}

/// Bits of an element of `ty`.
fn bits(ty: &str) -> usize {
    match ty {
        "f64" => 64,
        "f16" | "bf16" => 16,
        "s8" | "u8" => 8,
        "s4" | "u4" => 4,
        "b1" => 1,
        _ => 32,
    }
}

/// `(rows, cols)` of fragment `frag` (`a`, `b`, `c`, `d`) of `shape`.
fn matrix(shape: &str, frag: &str) -> (usize, usize) {
    let (m, n, k) = dims(shape);
    match frag {
        "a" => (m, k),
        "b" => (k, n),
        _ => (m, n),
    }
}

/// Registers of a fragment: its elements over the warp, a register's worth
/// a lane (f64: one 64-bit register an element); f16 `a`/`b` are eight
/// (docs/wmma.md: registers 4-7 repeat 0-3).
fn regs(shape: &str, frag: &str, ty: &str) -> usize {
    if ty == "f16" && matches!(frag, "a" | "b") {
        return 8;
    }
    let (r, c) = matrix(shape, frag);
    (r * c * bits(ty)).div_ceil(32 * LANES).max(1) / if ty == "f64" { 2 } else { 1 }
}

/// `{%r<first>, ...}` of `n` registers (`%rd` for f64).
fn list(ty: &str, first: usize, n: usize) -> String {
    let pre = if ty == "f64" { "%rd" } else { "%r" };
    let r: Vec<String> = (first..first + n).map(|i| format!("{pre}{i}")).collect();
    format!("{{{}}}", r.join(", "))
}

/// A load (`frag` `a`, `b`, `c`) or store (`d`) in `space` (`""`: generic),
/// with or without a stride register.
fn ldst(shape: &str, frag: &str, lay: &str, space: &str, ty: &str, stride: bool) -> String {
    let (addr, frag_list) = (
        if space == "shared" {
            "[%r39]"
        } else {
            "[%rd39]"
        },
        list(ty, 1, regs(shape, frag, ty)),
    );
    let s = if stride {
        format!(", {STRIDE}")
    } else {
        String::new()
    };
    let space = if space.is_empty() {
        String::new()
    } else {
        format!(".{space}")
    };
    if frag == "d" {
        format!("wmma.store.d.sync.aligned.{lay}.{shape}{space}.{ty} {addr}, {frag_list}{s};")
    } else {
        format!("wmma.load.{frag}.sync.aligned.{lay}.{shape}{space}.{ty} {frag_list}, {addr}{s};")
    }
}

/// `wmma.mma` of `shape` with layouts `lays`, `ab` sources, `c`/`d` types
/// and modifiers `pre` (before `.sync`) and `post` (after the shape).
fn mma(shape: &str, lays: &str, ab: &str, d: &str, c: &str, pre: &str, post: &str) -> String {
    let types = if ab == "f16" {
        format!("{d}.{c}")
    } else {
        format!("{d}.{ab}.{ab}.{c}")
    };
    format!(
        "wmma.mma{pre}.sync.aligned.{lays}.{shape}{post}.{types} {}, {}, {}, {};",
        list(d, 1, regs(shape, "d", d)),
        list(ab, 11, regs(shape, "a", ab)),
        list(ab, 21, regs(shape, "b", ab)),
        list(c, 31, regs(shape, "c", c)),
    )
}

/// Every load and store: each fragment of each shape and type in each
/// layout it takes, from global memory; from shared memory for
/// m16n16k16's, f64's, tf32's, and the sub-byte shapes'; a stride register
/// on m16n16k16 f16 and f32; six through generic addresses.
fn ldst_forms() -> Vec<String> {
    let mut v = Vec::new();
    let both = ["row", "col"];
    // (shape, frag, type, layouts)
    let mut frags: Vec<(&str, &str, &str, &[&str])> = Vec::new();
    for shape in SHAPES16 {
        for ty in ["f16", "bf16", "s8", "u8"] {
            frags.push((shape, "a", ty, &both));
            frags.push((shape, "b", ty, &both));
        }
        for ty in ["f16", "f32", "s32"] {
            frags.push((shape, "c", ty, &both));
            frags.push((shape, "d", ty, &both));
        }
    }
    for f in ["a", "b", "c", "d"] {
        frags.push(("m8n8k4", f, "f64", &both));
    }
    for (shape, ty) in [("m8n8k32", "s4"), ("m8n8k32", "u4"), ("m8n8k128", "b1")] {
        frags.push((shape, "a", ty, &["row"]));
        frags.push((shape, "b", ty, &["col"]));
    }
    for shape in ["m8n8k32", "m8n8k128"] {
        frags.push((shape, "c", "s32", &both));
        frags.push((shape, "d", "s32", &both));
    }
    for f in ["a", "b", "c", "d"] {
        let ty = if matches!(f, "a" | "b") {
            "tf32"
        } else {
            "f32"
        };
        frags.push(("m16n16k8", f, ty, &both));
    }
    for (shape, frag, ty, lays) in frags {
        for lay in lays {
            v.push(ldst(shape, frag, lay, "global", ty, false));
            if shape != "m32n8k16" && shape != "m8n32k16" {
                v.push(ldst(shape, frag, lay, "shared", ty, false));
            }
            if shape == "m16n16k16" && matches!(ty, "f16" | "f32") {
                v.push(ldst(shape, frag, lay, "global", ty, true));
            }
        }
    }
    // Generic addresses (of global memory): `LD`/`ST`. Shape, fragment,
    // layout, type.
    for spec in [
        "m16n16k16 a row f16",
        "m16n16k16 b col f16",
        "m16n16k16 c row f32",
        "m16n16k16 d col f32",
        "m8n8k4 c row f64",
        "m8n8k32 d col s32",
    ] {
        let w: Vec<&str> = spec.split(' ').collect();
        v.push(ldst(w[0], w[1], w[2], "", w[3], false));
    }
    v
}

/// Every `wmma.mma` sim-isa runs: each shape with each type combination
/// (`.satfinite` on the integer ones), f64 in each rounding, the four
/// layout pairs on m16n16k16 f16 and tf32.
fn mma_forms() -> Vec<String> {
    let mut v = Vec::new();
    let rc = "row.col";
    for shape in SHAPES16 {
        for (d, c) in [
            ("f32", "f32"),
            ("f16", "f16"),
            ("f32", "f16"),
            ("f16", "f32"),
        ] {
            v.push(mma(shape, rc, "f16", d, c, "", ""));
        }
        v.push(mma(shape, rc, "bf16", "f32", "f32", "", ""));
        for ab in ["s8", "u8"] {
            for sat in ["", ".satfinite"] {
                v.push(mma(shape, rc, ab, "s32", "s32", "", sat));
            }
        }
    }
    for lays in ["row.row", "col.col", "col.row"] {
        v.push(mma("m16n16k16", lays, "f16", "f32", "f32", "", ""));
        v.push(mma("m16n16k8", lays, "tf32", "f32", "f32", "", ""));
    }
    v.push(mma("m16n16k8", rc, "tf32", "f32", "f32", "", ""));
    for rnd in ["", ".rn", ".rz", ".rm", ".rp"] {
        v.push(mma("m8n8k4", rc, "f64", "f64", "f64", "", rnd));
    }
    for ab in ["s4", "u4"] {
        for sat in ["", ".satfinite"] {
            v.push(mma("m8n8k32", rc, ab, "s32", "s32", "", sat));
        }
    }
    for op in [".xor.popc", ".and.popc"] {
        v.push(mma("m8n8k128", rc, "b1", "s32", "s32", op, ""));
    }
    v
}

/// The forms, the new machine instructions' first (tf32, b1, f64).
pub fn forms() -> Vec<String> {
    let mut v = mma_forms();
    v.extend(ldst_forms());
    v
}

/// The words of a statement's opcode.
fn words(text: &str) -> Vec<&str> {
    text.split_whitespace()
        .next()
        .unwrap_or("")
        .split('.')
        .collect()
}

/// A load's or store's `(shape, frag, layout, type)`.
fn ldst_parts(text: &str) -> Option<(&str, &str, &str, &str)> {
    let w = words(text);
    if w.first() != Some(&"wmma") || w.get(1) == Some(&"mma") {
        return None;
    }
    Some((w[6], w[2], w[5], w[w.len() - 1]))
}

/// Bytes a load or store spans from its address with stride `ld` elements
/// (`None`: the default leading dimension).
fn footprint(text: &str, ld: Option<usize>) -> usize {
    let Some((shape, frag, lay, ty)) = ldst_parts(text) else {
        return 0;
    };
    let (r, c) = matrix(shape, frag);
    let (lines, len) = if lay == "row" { (r, c) } else { (c, r) };
    let elems = (lines - 1) * ld.unwrap_or(len) + len;
    (elems * bits(ty)).div_ceil(8)
}

/// The image of a load or store: its largest footprint and 128 bytes of
/// slack for the address, rounded to 128.
fn image(text: &str) -> usize {
    if ldst_parts(text).is_none() {
        return 0;
    }
    let ld = text.contains(STRIDE).then_some(STRIDES[2] as usize);
    (footprint(text, ld) + 128).next_multiple_of(128)
}

fn writes(text: &str) -> bool {
    text.starts_with("wmma.store")
}

/// The kernel: [`frame_kernel`] with the image in the statement's space.
fn kernel(name: &str, text: &str) -> String {
    let f = Frame {
        img: image(text),
        shared: text.contains(".shared."),
        writes: writes(text),
    };
    frame_kernel(name, text, &f)
}

/// `(d, a/b, c)` types of a `wmma.mma`.
fn mma_types(text: &str) -> (&str, &str, &str) {
    let w = words(text);
    let t: Vec<&str> = w
        .iter()
        .copied()
        .filter(|x| {
            matches!(
                *x,
                "f16" | "bf16" | "f32" | "f64" | "s32" | "s8" | "u8" | "s4" | "u4" | "b1" | "tf32"
            )
        })
        .collect();
    match t[..] {
        [d, c] => (d, "f16", c),
        [d, ab, _, c] => (d, ab, c),
        _ => ("", "", ""),
    }
}

/// One lane's value of a `wmma.mma` register of `ty`.
fn value(rng: &mut Rng, ty: &str, p: Profile) -> u64 {
    match ty {
        "f16" | "bf16" => {
            let bf = ty == "bf16";
            half(rng, bf, p) | half(rng, bf, p) << 16
        }
        "s8" | "u8" => bytes4(rng),
        // Within 4096 of a limit, so the 4-bit and 1-bit sums (at most
        // 2048 and 128) saturate or wrap too.
        "s32" => match rng.below(3) {
            0 => u64::from(i32::MAX as u32 - rng.below(4096) as u32),
            1 => u64::from(i32::MIN as u32 + rng.below(4096) as u32),
            _ => s32_value(rng),
        },
        // tf32 with random low 13 bits, which the tensor core drops.
        "f32" | "tf32" => f32_value(rng, p),
        "f64" => f64_value(rng, p),
        // s4/u4 nibbles and b1 bits: any, or all ones or zeros.
        _ => match rng.below(8) {
            0 => 0,
            1 => 0xffff_ffff,
            _ => rng.next_u64() & 0xffff_ffff,
        },
    }
}

/// The warp's inputs for one vector (the module doc).
fn inputs(rng: &mut Rng, text: &str, regs: &[Reg]) -> Inputs {
    let p = Profile::pick(rng);
    let img = image(text);
    let img_bytes: Vec<u8> = (0..img).map(|_| rng.next_u64() as u8).collect();
    let stride = *rng.pick(&STRIDES);
    let ld = text.contains(STRIDE).then_some(stride as usize);
    let slack = img.saturating_sub(footprint(text, ld));
    let offset = 32 * rng.below(slack / 32 + 1).min(4) as u64;
    let addr = address(text);
    let (d, ab, c) = mma_types(text);
    let vals = regs
        .iter()
        .map(|r| {
            if Some(&r.name) == addr.as_ref() {
                return [offset; LANES];
            }
            if r.name == STRIDE {
                return [stride; LANES];
            }
            let n: usize = r
                .name
                .trim_start_matches(|c: char| !c.is_ascii_digit())
                .parse()
                .unwrap_or(0);
            let ty = match n / 10 {
                _ if ab.is_empty() => "any",
                0 => d,
                1 | 2 => ab,
                _ => c,
            };
            std::array::from_fn(|_| {
                if ty == "any" {
                    let mask = if r.width == 64 { u64::MAX } else { 0xffff_ffff };
                    rng.next_u64() & mask
                } else {
                    value(rng, ty, p)
                }
            })
        })
        .collect();
    (img_bytes, vals)
}

/// Input sets of a form given `--inputs n`: all for the `row.col`
/// `wmma.mma` forms of the opcodes `values --family mma` has no vectors of
/// (tf32, f64, the sub-byte and bit types), a quarter for the other
/// `wmma.mma` forms (their `HMMA`/`IMMA` have those vectors; the other
/// layouts give the same machine code), an eighth for a load or store (it
/// moves bits; one random image already places every element).
fn count(text: &str, n: usize) -> usize {
    if ldst_parts(text).is_some() {
        return n.div_ceil(8);
    }
    let new = matches!(mma_types(text).1, "tf32" | "f64" | "s4" | "u4" | "b1");
    if new && text.contains(".row.col.") {
        n
    } else {
        n.div_ceil(4)
    }
}

/// `values --family wmma`. Returns the number of vectors sim-isa disagrees with.
pub fn run(tools: &Tools, o: &Opts) -> Result<usize> {
    let fam = Family {
        name: "wmma",
        salt: 0x5757,
        forms: forms(),
        wrap: kernel,
        img: image,
        writes,
        count,
        inputs,
    };
    run_family(tools, o, &fam)
}
