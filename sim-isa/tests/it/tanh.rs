//! `tanh.approx` over `.f32 .f16 .f16x2 .bf16 .bf16x2`: ptxas's verdicts per
//! target and PTX version, and the lane semantics on values an H200 gave.
//! The GPU's whole 16-bit tables and its sampled f32 checksums are compared
//! in xtask (`h200_approximate_functions_agree_with_sim_isa`).

use crate::grid;
use crate::packed_half::two_scalar_lanes;
use sim_isa::parse::{check_target, parse_instruction};
use sim_isa::*;

const GRID: &str = include_str!("../data/tanh-ptxas.txt");

/// Each line of `tests/data/tanh-ptxas.txt` (made by
/// `tools/ptxas_grid/tanh_grid.py`: ptxas 11.8 on sm_70, 13.0.88 on sm_75,
/// sm_80, sm_90) against the parser and `check_target`, the `.version` gate
/// on the lowest accepting target: ptxas refused the version below the
/// lowest it took (6.5 for the sm_75 forms, 7.7 for bf16 on sm_90).
#[test]
fn agrees_with_ptxas_per_target() {
    let (n, accepted, wrong) = grid::check_targets(
        GRID,
        &["sm_70", "sm_75", "sm_80", "sm_90"],
        &[("7.0", "6.5"), ("7.8", "7.7")],
    );
    // 8 types x {none, .approx, .rn, .full} x .ftz x .sat; ptxas takes
    // `tanh.approx` on the five types the PTX ISA names, and nothing else.
    assert_eq!((n, accepted), (128, 5));
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// ptxas's words for the rules the grid's comments quote.
#[test]
fn messages_are_ptxas_words() {
    grid::messages_are_ptxas(
        GRID,
        &[
            (
                "tanh.approx.ftz.f32 %f1, %f2;",
                "Illegal modifier '.ftz' for instruction 'tanh'",
            ),
            (
                "tanh.approx.ftz.bf16 %h1, %h2;",
                "Illegal modifier '.ftz' for instruction 'tanh'",
            ),
            (
                "tanh.approx.sat.f16 %h1, %h2;",
                "Illegal modifier '.sat' for instruction 'tanh'",
            ),
            (
                "tanh.approx.f64 %fd1, %fd2;",
                "Unexpected instruction types specified for 'tanh'",
            ),
        ],
    );
}

/// The gates: sm_75 and PTX 7.0 for f32/f16/f16x2, sm_90 and PTX 7.8 for
/// bf16/bf16x2 (the grid's `arch` columns and lowest versions).
#[test]
fn gates() {
    let t = |s: &str| Target::parse(s).unwrap();
    let v = |s: &str| Some(PtxVersion::parse(s).unwrap());
    for (text, sm, ptx) in [
        ("tanh.approx.f32 %f1, %f2;", "sm_75", "7.0"),
        ("tanh.approx.f16x2 %r1, %r2;", "sm_75", "7.0"),
        ("tanh.approx.bf16 %h1, %h2;", "sm_90", "7.8"),
    ] {
        let i = parse_instruction(text, &mut Symbols::new()).unwrap();
        let lower = if sm == "sm_75" { "sm_72" } else { "sm_89" };
        assert!(check_target(&i, t(sm), v(ptx)).is_ok(), "{text}");
        assert!(check_target(&i, t(lower), None).is_err(), "{text} {lower}");
    }
}

/// Values of the H200's tables (`xtask/tests/data/domain-h200-approx.bin`),
/// each with what makes it a case.
#[test]
fn lanes_on_the_h200s_values() {
    crate::packed_half::assert_unary_lanes(H200_VALUES);
}

const F16: &str = "tanh.approx.f16 %h1, %h2;";
const BF16: &str = "tanh.approx.bf16 %h1, %h2;";
const F32: &str = "tanh.approx.f32 %f1, %f2;";

/// `(statement, source, result)`.
#[rustfmt::skip]
const H200_VALUES: &[(&str, u64, u64)] = &[
    // Tiny: the source itself, up to 2^-8 (1 + 7/1024) in f16.
    (F16, 0x1c07, 0x1c07),
    (F16, 0x0001, 0x0001),
    (F16, 0x8000, 0x8000),
    // 2^-8 (1 + 8/1024): tanh truncated, one ulp below.
    (F16, 0x1c08, 0x1c07),
    // 1.0: tanh 0.76159 truncated (0x3a17 is 0.76123).
    (F16, 0x3c00, 0x3a17),
    (F16, 0xbc00, 0xba17),
    // Measured exceptions: 0x3c8e (1.139) gives 0x3a82 where the rule
    // gives 0x3a83; 0x29c6 gives 0x29c5, the rule 0x29c4.
    (F16, 0x3c8e, 0x3a82),
    (F16, 0xbc8e, 0xba82),
    (F16, 0x29c6, 0x29c5),
    // From 8: +-1; infinities too; NaN 0x7fff.
    (F16, 0x4800, 0x3c00),
    (F16, 0xfc00, 0xbc00),
    (F16, 0x7e00, 0x7fff),
    (BF16, 0x3b80, 0x3b80),
    (BF16, 0x3f80, 0x3f42),
    (BF16, 0x3f3f, 0x3f21),
    (BF16, 0xbf3f, 0xbf21),
    (BF16, 0x4100, 0x3f80),
    (BF16, 0xffc1, 0x7fff),
    // f32: the rule's edges (a model: the H200's checksums agree at 60 of
    // 64 sampled high halves, xtask's test).
    (F32, 0x3b7f_ffff, 0x3b7f_ffff),
    (F32, 0x4100_0000, 0x3f80_0000),
    (F32, 0xff80_0000, 0xbf80_0000),
    (F32, 0x7fc0_0000, 0x7fff_ffff),
];

/// A packed form is its scalar form on each half.
#[test]
fn packed_forms_are_two_scalar_lanes() {
    let sources = [0x4c00_3c00, 0x7e00_3c8e, 0x0001_bc8e, 0xbf3f_3f3f];
    two_scalar_lanes(
        &["tanh.approx.f16 %h1, %h2;", "tanh.approx.bf16 %h1, %h2;"],
        &sources,
    );
}
