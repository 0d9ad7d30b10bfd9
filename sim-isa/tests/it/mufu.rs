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
/// MUFU alone does with them (`tests/data/lanes-mufu-h100.txt`).
#[test]
fn edges() {
    let cases = crate::lane_table(include_str!("../data/lanes-mufu-h100.txt"));
    assert_eq!(cases.len(), 23);
    crate::assert_lanes(lane, &cases);
}
