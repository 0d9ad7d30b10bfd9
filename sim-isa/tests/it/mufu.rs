//! The approximate `.f32` forms (`rcp rsqrt sqrt ex2 lg2 sin cos .approx`,
//! `div.approx`, `div.full`, with and without `.ftz`): H100 vectors, and
//! the parser's verdicts on their neighbours.

use sim_isa::parse::parse_instruction;
use sim_isa::*;

/// The 300 approximate-form vectors of the H100 set of non-seed
/// instructions (30 per form; see the file's header).
#[test]
fn h100_sample_passes() {
    crate::vectors::assert_all_pass(include_str!("../data/h100-approx.jsonl"), 300);
}

/// 200 vectors per form (18 forms) from a separate H100 run on random
/// inputs (specials, boundaries and each form's useful range included) that
/// were not used to build the MUFU tables (`tools/mufu/vectors.py`).
#[test]
fn h100_held_out_passes() {
    crate::vectors::assert_all_pass(include_str!("../data/h100-mufu-heldout.jsonl"), 3600);
}

fn parse(text: &str) -> Result<Instruction, IsaError> {
    let mut syms = Symbols::new();
    parse_instruction(text, &mut syms)
}

/// Every approximate `.f32` form parses and prints back as written.
#[test]
fn forms_parse_and_print() {
    for op in ["rcp", "rsqrt", "sqrt", "ex2", "lg2", "sin", "cos", "tanh"] {
        // `tanh` takes no `.ftz` (`tests/data/tanh-ptxas.txt`).
        for ftz in if op == "tanh" {
            &[""][..]
        } else {
            &["", ".ftz"]
        } {
            let text = format!("{op}.approx{ftz}.f32 %f1, %f2;");
            let mut syms = Symbols::new();
            let i = parse_instruction(&text, &mut syms).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(i.display(&syms).to_string(), text);
        }
    }
    for m in ["approx", "full"] {
        for ftz in ["", ".ftz"] {
            let text = format!("div.{m}{ftz}.f32 %f1, %f2, %f3;");
            let mut syms = Symbols::new();
            let i = parse_instruction(&text, &mut syms).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(i.display(&syms).to_string(), text);
        }
    }
}

/// Invalid neighbours (ptxas 13.0.88: `.ftz` is illegal on
/// `ex2.approx.f16`, required on `.bf16`, illegal on every `tanh`:
/// `tests/data/tanh-ptxas.txt`). `rcp.approx.ftz.f64` and
/// `rsqrt.approx{.ftz}.f64` run (`float_arith`, `approx_f64`).
#[test]
fn verdicts_on_neighbours() {
    for text in [
        "sin.f32 %f1, %f2;",
        "ex2.rn.f32 %f1, %f2;",
        "lg2.approx.f64 %fd1, %fd2;",
        "cos.approx.sat.f32 %f1, %f2;",
        "rsqrt.full.f32 %f1, %f2;",
        "sqrt.full.f32 %f1, %f2;",
        "div.full.f64 %fd1, %fd2, %fd3;",
        "sin.approx.f32 %f1, %f2, %f3;",
        "ex2.approx.u32 %r1, %r2;",
        "ex2.approx.ftz.f16 %h1, %h2;",
        "ex2.approx.ftz.f16x2 %r1, %r2;",
        "ex2.approx.bf16 %h1, %h2;",
        "ex2.approx.sat.f16 %h1, %h2;",
        "lg2.approx.f16 %h1, %h2;",
        "tanh.approx.ftz.f32 %f1, %f2;",
        "tanh.approx.ftz.bf16x2 %r1, %r2;",
        "tanh.f16 %h1, %h2;",
        "tanh.approx.f64 %fd1, %fd2;",
    ] {
        let e = parse(text).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Invalid, "{text}: {e}");
    }
}

/// One lane of `text` on `a` (and `b`): the f32 result's bits.
fn lane(text: &str, a: u64, b: u64, c: u64) -> u64 {
    u64::from(exec::float_lane(&family!(text, Float), a, b, c) as u32)
}

/// Edge cases, each a value the H100 produced (`tools/mufu/` runs): the
/// subnormal and huge sources the non-`.ftz` sequences rescale, and what
/// MUFU alone does with them.
#[test]
fn edges() {
    crate::assert_lanes(lane, EDGES);
}

const RCP: &str = "rcp.approx.f32 %f1, %f2;";
const RCP_FTZ: &str = "rcp.approx.ftz.f32 %f1, %f2;";
const LG2: &str = "lg2.approx.f32 %f1, %f2;";

/// `(text, a, b, 0, result)`.
// A vector table: its rows' alike shape is the data, and stays.
#[rustfmt::skip]
const EDGES: &[crate::LaneCase] = &[
    (RCP, 0x3f80_0000, 0, 0, 0x3f80_0000),
    (RCP, 0x0000_0001, 0, 0, 0x7f80_0000), // 1/2^-149 overflows
    (RCP, 0x0040_0000, 0, 0, 0x7f00_0000), // 1/2^-127
    (RCP_FTZ, 0x0040_0000, 0, 0, 0x7f80_0000), // flushed source
    (RCP, 0x7f00_0000, 0, 0, 0x0040_0000), // 1/2^127, subnormal kept
    (RCP_FTZ, 0x7f00_0000, 0, 0, 0),       // flushed result
    (RCP, 0xff80_0000, 0, 0, 0x8000_0000),
    (RCP, 0x7fc0_0000, 0, 0, 0x7fff_ffff),
    // ex2: 2^-127 through the squared half (2^-63.5 squared); 2^128
    // overflows.
    ("ex2.approx.f32 %f1, %f2;", 0xc2fe_0000, 0, 0, 0x003f_ffff),
    ("ex2.approx.ftz.f32 %f1, %f2;", 0xc2fe_0000, 0, 0, 0),
    ("ex2.approx.f32 %f1, %f2;", 0x4300_0000, 0, 0, 0x7f80_0000),
    ("ex2.approx.f32 %f1, %f2;", 0xff80_0000, 0, 0, 0),
    // lg2 of 1, 0.5 (not exactly -1 on the H100), 0, a negative.
    (LG2, 0x3f80_0000, 0, 0, 0),
    (LG2, 0x3f00_0000, 0, 0, 0xbf7f_fffe),
    (LG2, 0x8000_0000, 0, 0, 0xff80_0000),
    (LG2, 0xbf80_0000, 0, 0, 0x7fff_ffff),
    // sin/cos of zeros and infinity.
    ("sin.approx.f32 %f1, %f2;", 0x8000_0000, 0, 0, 0x8000_0000),
    ("cos.approx.f32 %f1, %f2;", 0x8000_0000, 0, 0, 0x3f80_0000),
    ("sin.approx.f32 %f1, %f2;", 0x7f80_0000, 0, 0, 0x7fff_ffff),
    // div.full scales a divisor above 2^126; div.approx does not (RCP
    // underflows to zero).
    ("div.full.f32 %f1, %f2, %f3;", 0x406991af, 0x7ed92b8d, 0, 0x0109_aa61),
    ("div.full.f32 %f1, %f2, %f3;", 0xc02d6fc3, 0xff7fffff, 0, 0x0056_b7e2),
    ("div.approx.f32 %f1, %f2, %f3;", 0x4091d45f, 0x7effffff, 0, 0),
    ("div.approx.f32 %f1, %f2, %f3;", 0xbf800001, 0x7f134bd0, 0, 0x8000_0000),
];
