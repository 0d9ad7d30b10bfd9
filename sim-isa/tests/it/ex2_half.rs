//! `ex2.approx` over the half types (`.f16 .f16x2`, and with `.ftz` `.bf16
//! .bf16x2`): ptxas 13.0.88's verdicts per target and PTX version, and the
//! lane semantics (`MUFU.EX2.F16`/`.BF16`: the f32 unit, the result
//! truncated) on values an H200 gave. The GPU's whole tables are compared
//! in xtask (`h200_approximate_functions_agree_with_sim_isa`); its sample
//! and the SASS oracle's vectors run in `vectors.rs`.

use crate::grid;
use crate::packed_half::two_scalar_lanes;

const GRID: &str = include_str!("../data/ex2-half-ptxas.txt");

/// Each line of `tests/data/ex2-half-ptxas.txt` (made by
/// `tools/ptxas_grid/ex2_half_grid.py`) against the parser and
/// `check_target` (`grid::check`), the `.version` gate on the lowest
/// accepting target: ptxas refused the version below the lowest it took.
#[test]
fn agrees_with_ptxas_per_target() {
    let (n, accepted, wrong) = grid::check_targets(
        GRID,
        &["sm_75", "sm_80", "sm_90"],
        &[("7.0", "6.5"), ("7.8", "7.7")],
    );
    assert_eq!((n, accepted), (64, 4));
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// ptxas's words for the `.ftz` rules, which the grid's comments quote.
#[test]
fn ftz_messages() {
    grid::messages_are_ptxas(
        GRID,
        &[
            (
                "ex2.approx.bf16 %h1, %h2;",
                ".ftz modifier required for instruction 'ex2.bf16'",
            ),
            (
                "ex2.approx.bf16x2 %r1, %r2;",
                ".ftz modifier required for instruction 'ex2.bf16x2'",
            ),
            (
                "ex2.approx.ftz.f16 %h1, %h2;",
                "Illegal modifier '.ftz' for instruction 'ex2'",
            ),
        ],
    );
}

/// Values of the H200's tables (`xtask/tests/data/domain-h200-approx.bin`),
/// each with what makes it a case.
#[test]
fn lanes_on_the_h200s_values() {
    crate::packed_half::assert_unary_lanes(H200_VALUES);
}

const F16: &str = "ex2.approx.f16 %h1, %h2;";
const BF16: &str = "ex2.approx.ftz.bf16 %h1, %h2;";

/// `(statement, source, result)`.
#[rustfmt::skip]
const H200_VALUES: &[(&str, u64, u64)] = &[
    (F16, 0x3c00, 0x4000), // 2^1
    (F16, 0x0000, 0x3c00),
    (F16, 0x8000, 0x3c00),
    // 0x11c5 (6.9e-4): MUFU.EX2 gives 0x3f801001, 1 + 2^-11 + ...: nearest
    // would be 1 + 2^-10, the machine truncates to 1.
    (F16, 0x11c5, 0x3c00),
    // 16: 2^16 is beyond f16, infinity (not the largest finite, as a
    // truncating conversion would give); -16: 2^-16, a subnormal.
    (F16, 0x4c00, 0x7c00),
    (F16, 0xcc00, 0x0100),
    // -30: below f16's subnormals, +0.
    (F16, 0xcf80, 0x0000),
    (F16, 0xfc00, 0x0000),
    (F16, 0x7c00, 0x7c00),
    (F16, 0x7e00, 0x7fff),
    (BF16, 0x3f80, 0x4000),
    // 0x3bb9 (5.6e-3): MUFU gives 0x3f80807c, truncated to 1.
    (BF16, 0x3bb9, 0x3f80),
    // A subnormal source is a zero (`.ftz`, and MUFU alike): 2^0.
    (BF16, 0x0001, 0x3f80),
    (BF16, 0xff80, 0x0000),
    (BF16, 0x7fc0, 0x7fff),
];

/// A packed form is its scalar form on each half.
#[test]
fn packed_forms_are_two_scalar_lanes() {
    let sources = [0x4c00_3c00, 0x7e00_11c5, 0x0001_cc00, 0xff80_3bb9];
    two_scalar_lanes(
        &["ex2.approx.f16 %h1, %h2;", "ex2.approx.ftz.bf16 %h1, %h2;"],
        &sources,
    );
}
