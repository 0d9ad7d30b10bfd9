//! Random PTX instruction texts for the differential validity test (part 1).
//!
//! The grammar here is written from the PTX ISA manual and the project's
//! errata to it, independently of sim-isa's parser tables, so a misreading in
//! one cannot hide in the other. Every case is judged by ptxas, never by this
//! file: "valid" and "near-miss" only steer the mix, they are not expectations.

mod draw;
mod model;
mod mutate;
mod render;

pub use draw::{imm_for, set_variant, valid, video_variant};
pub use model::Gen;
pub use render::render;

use crate::rng::Rng;
use draw::slot;
use mutate::{mutate, text_mutate};

/// The arithmetic SIMD video operations (9.7.18.2.1/3).
pub const VIDEO_OPS: [&str; 6] = ["vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax"];
/// Operand types of the video instructions.
pub const VIDEO_TYPES: [&str; 2] = ["u32", "s32"];
/// Comparisons of `vset2`/`vset4`.
pub const VSET_CMPS: [&str; 6] = ["eq", "ne", "lt", "le", "gt", "ge"];
/// Destination masks of the 2-way instructions.
pub const MASK2: [&str; 3] = ["h0", "h1", "h10"];
/// Destination masks of the 4-way instructions (erratum 10).
pub const MASK4: [&str; 15] = [
    "b0", "b1", "b10", "b2", "b20", "b21", "b210", "b3", "b30", "b31", "b310", "b32", "b320",
    "b321", "b3210",
];
/// Source types of the classic `set`/`setp`/`selp`/`slct`.
pub const SCALAR_TYPES: [&str; 11] = [
    "b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64",
];
/// Destination types of the classic `set`.
pub const SET_DTYPES: [&str; 3] = ["u32", "s32", "f32"];
/// Boolean operators.
pub const BOOL_OPS: [&str; 3] = ["and", "or", "xor"];
const CMP_BITS: &[&str] = &["eq", "ne"];
const CMP_SIGNED: &[&str] = &["eq", "ne", "lt", "le", "gt", "ge"];
const CMP_UNSIGNED: &[&str] = &["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"];
const CMP_FLOAT: &[&str] = &[
    "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
];

/// Comparison operators legal for a source type (erratum 13).
pub fn cmps_for(t: &str) -> &'static [&'static str] {
    match t.as_bytes()[0] {
        b'b' if !t.starts_with("bf") => CMP_BITS,
        b's' => CMP_SIGNED,
        b'u' => CMP_UNSIGNED,
        _ => CMP_FLOAT,
    }
}

/// Half-precision `set` (9.7.7.1) destination/source pairs, plus erratum 18's
/// `set.CmpOp.bf16.bf16`.
pub fn half_set_pairs() -> Vec<(&'static str, &'static str)> {
    let mut v = Vec::new();
    for s in SCALAR_TYPES.iter().copied().chain(["f16"]) {
        v.push(("f16", s));
    }
    for s in [
        "s16", "u16", "f16", "b16", "s32", "u32", "f32", "b32", "s64", "u64", "f64", "b64", "bf16",
    ] {
        v.push(("bf16", s));
    }
    for d in ["u16", "s16", "u32", "s32"] {
        v.push((d, "f16"));
        v.push((d, "bf16"));
    }
    for d in ["f16x2", "u32", "s32"] {
        v.push((d, "f16x2"));
    }
    for d in ["bf16x2", "u32", "s32"] {
        v.push((d, "bf16x2"));
    }
    v
}

fn is_type(t: &str) -> bool {
    SCALAR_TYPES.contains(&t) || matches!(t, "f16" | "bf16" | "f16x2" | "bf16x2" | "pred")
}

/// Register width an operand of type `t` needs (unknown spellings: 32).
pub fn width_of(t: &str) -> u32 {
    match t {
        "b16" | "u16" | "s16" | "f16" | "bf16" => 16,
        "b64" | "u64" | "s64" | "f64" => 64,
        "pred" => 1,
        _ => 32,
    }
}

/// Name of register `idx` of width `w` (declared by the kernel wrapper).
pub fn reg_name(w: u32, idx: u8, plain: bool) -> String {
    let base = match w {
        16 => "h",
        64 => "rd",
        1 => "p",
        _ => "r",
    };
    if plain {
        format!("{base}{idx}")
    } else {
        format!("%{base}{idx}")
    }
}

/// A rendered case.
#[derive(Clone, Debug)]
pub struct Case {
    /// Instruction text (one line, with `;`).
    pub text: String,
    /// Family for statistics (`video`, `vset`, `set`, `half-set`, `setp`, `selp`, `slct`).
    pub family: &'static str,
    /// Near-miss mutation applied, if any.
    pub mutation: Option<&'static str>,
}

/// Cosmetic variation the assembler must not care about (valid cases only).
fn decorate(rng: &mut Rng, text: String) -> String {
    match rng.below(12) {
        0 => text.replace(", ", ","),
        1 => text.replacen(' ', "\t", 1).replace(", ", " , "),
        2 => format!("{text} // trailing comment"),
        3 => text.replacen(' ', " /* c */ ", 1),
        _ => text,
    }
}

/// `n` cases: about 60% valid variants and 40% near-misses, guards on some.
pub fn cases(seed: u64, n: usize) -> Vec<Case> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let (mut g, family) = valid(&mut rng);
        let plain = rng.chance(1, 12);
        let mut mutation = None;
        let mut text;
        if rng.chance(2, 5) {
            let m = mutate(&mut rng, &mut g);
            text = render(&g, plain);
            if m == "text" {
                let (t, m2) = text_mutate(&mut rng, &text);
                text = t;
                mutation = Some(m2);
            } else {
                mutation = Some(m);
            }
        } else {
            text = decorate(&mut rng, render(&g, plain));
        }
        if rng.chance(1, 5) {
            let neg = if rng.chance(1, 2) { "!" } else { "" };
            text = format!("@{neg}{} {text}", reg_name(1, slot(&mut rng), plain));
        }
        out.push(Case {
            text,
            family,
            mutation,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_single_line() {
        let a = cases(7, 500);
        let b = cases(7, 500);
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.text, y.text);
            assert!(!x.text.contains('\n'));
        }
        assert!(a.iter().any(|c| c.mutation.is_none()));
        assert!(a.iter().any(|c| c.mutation == Some("sat-with-add")));
    }

    #[test]
    fn cmp_tables_follow_erratum_13() {
        assert_eq!(cmps_for("b32"), &["eq", "ne"]);
        assert!(cmps_for("u16").contains(&"hs"));
        assert!(!cmps_for("s64").contains(&"lo"));
        assert!(cmps_for("bf16x2").contains(&"nan"));
        assert!(!cmps_for("f32").contains(&"lo"));
    }
}
