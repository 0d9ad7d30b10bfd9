//! The half-precision forms of the float family (`add sub mul fma neg abs
//! min max` over `.f16 .f16x2 .bf16 .bf16x2`) and `copysign`: ptxas's
//! verdicts per target and PTX version and the lane semantics by hand.
//! (The property test holding `float_lane` to an exact integer model is
//! xtask's, against its SASS interpreter's model: `sass/exec_half.rs`.)

use crate::grid::{self, Grid};
use sim_isa::exec::float_lane;
use sim_isa::parse::parse_instruction;
use sim_isa::*;

const GRID: &str = include_str!("../data/half-arith-ptxas.txt");

fn parse(text: &str) -> Result<Instruction, IsaError> {
    parse_instruction(text, &mut Symbols::new())
}

/// `float_lane` of `text` on `a`, `b`, `c`.
fn lane(text: &str, a: u64, b: u64, c: u64) -> u64 {
    float_lane(&family!(text, Float), a, b, c)
}

/// Valid PTX simcli refuses as unimplemented: `fma.rz` on bf16, which
/// ptxas accepts though the PTX ISA does not list it (and compiles as an
/// f16 operation: docs/validation.md).
fn unimplemented(text: &str) -> bool {
    text.starts_with("fma.rz.")
}

/// Each line of `tests/data/half-arith-ptxas.txt` (made by
/// `tools/ptxas_grid/half_grid.py`) against the parser and `check_target`
/// (`grid::check`) on sm_53, sm_80 and sm_90. The `.version` gate is checked on sm_90; the version below the lowest
/// ptxas accepted was asked (and refused) only where sm_53 accepts and the
/// probe (4.2, 6.0, 6.5, 7.0, 7.8) had one below.
#[test]
fn agrees_with_ptxas_per_target() {
    let versions = ["4.2", "6.0", "6.5", "7.0", "7.8"];
    let below = |v: &str, _: usize, verdicts: &[&str]| {
        let i = versions
            .iter()
            .position(|x| *x == v)
            .expect("known version");
        (verdicts[0] == "accept" && i > 0)
            .then(|| PtxVersion::parse(versions[i - 1]))
            .flatten()
    };
    let g = Grid {
        columns: &[("sm_53", None), ("sm_80", None), ("sm_90", None)],
        gate_column: Some(2),
        below: &below,
        unrun: &unimplemented,
        untyped: &[],
    };
    let (n, accepted, wrong) = grid::check(GRID, &g);
    assert_eq!((n, accepted), (292, 118));
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// `mad` is `fma` only on `.f32`/`.f64`, and `div` has no half form
/// (ptxas: "Unexpected instruction types specified").
#[test]
fn no_half_mad_or_div() {
    for text in [
        "mad.rn.f16 %h1, %h2, %h3, %h4;",
        "div.rn.f16 %h1, %h2, %h3;",
        "copysign.f16 %h1, %h2, %h3;",
        "add.f16 %h1, %h2, 0x3c00;",
        // ptxas: "Illegal modifier '.ftz' for instruction 'ex2'", ".ftz
        // modifier required for instruction 'ex2.bf16'".
        "ex2.approx.ftz.f16 %h1, %h2;",
        "ex2.approx.bf16 %h1, %h2;",
    ] {
        let e = parse(text).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Invalid, "{text}: {e}");
    }
}

/// Values worked out by hand from the formats.
#[test]
fn lanes_by_hand() {
    crate::assert_lanes(lane, BY_HAND);
}

/// 1.0 in f16.
const ONE: u64 = 0x3c00;
const FMA_RELU: &str = "fma.rn.relu.f16 %h1, %h2, %h3, %h4;";

/// `(text, a, b, c, result)`.
// A vector table: its rows' alike shape is the data, and stays.
#[rustfmt::skip]
const BY_HAND: &[crate::LaneCase] = &[
    // 1 + 2^-11 is a tie between 1 and 1 + 2^-10: to even.
    ("add.f16 %h1, %h2, %h3;", ONE, 0x1000, 0, ONE),
    // 1 + 3 * 2^-11 ties up to 1 + 2^-9.
    ("add.f16 %h1, %h2, %h3;", 0x3c01, 0x1000, 0, 0x3c02),
    // fma: (1 + 2^-10)^2 - 1 = 2^-9 + 2^-20, half of f16's spacing at
    // 2^-9: a tie, to even (2^-9).
    ("fma.rn.f16 %h1, %h2, %h3, %h4;", 0x3c01, 0x3c01, 0xbc00, 0x1800),
    // (1 + 2^-10) * 1.5 = 1.5 + 3 * 2^-11, a tie between 0x3e01 and 0x3e02
    // (to even); an addend of -2^-24 puts it just below the tie.
    ("fma.rn.f16 %h1, %h2, %h3, %h4;", 0x3c01, 0x3e00, 0, 0x3e02),
    ("fma.rn.f16 %h1, %h2, %h3, %h4;", 0x3c01, 0x3e00, 0x8001, 0x3e01),
    // Overflow: 65504 + 65504 is inf; 2 * 2^-24 * 2^-1 = 2^-24.
    ("add.f16 %h1, %h2, %h3;", 0x7bff, 0x7bff, 0, 0x7c00),
    ("mul.f16 %h1, %h2, %h3;", 0x0002, 0x3800, 0, 0x0001),
    // .ftz flushes the subnormal source and result.
    ("mul.ftz.f16 %h1, %h2, %h3;", 0x0002, 0x3800, 0, 0),
    ("add.ftz.f16 %h1, %h2, %h3;", 0x8001, 0, 0, 0),
    // .sat: 2 to 1, -1 to +0, NaN to +0.
    ("add.sat.f16 %h1, %h2, %h3;", ONE, ONE, 0, ONE),
    ("sub.sat.f16 %h1, %h2, %h3;", 0, ONE, 0, 0),
    ("mul.sat.f16 %h1, %h2, %h3;", 0x7e00, ONE, 0, 0),
    // .relu: a negative result and -0 to +0; NaN stays 0x7fff.
    (FMA_RELU, ONE, 0xbc00, 0, 0),
    (FMA_RELU, ONE, 0x8000, 0x8000, 0),
    (FMA_RELU, 0x7c00, 0, 0, 0x7fff),
    ("fma.rn.relu.bf16x2 %r1, %r2, %r3, %r4;", 0xbf80_3f80, 0x3f80_3f80, 0, 0x3f80),
    // NaN and inf - inf give 0x7fff.
    ("add.f16 %h1, %h2, %h3;", 0x7c00, 0xfc00, 0, 0x7fff),
    ("mul.bf16 %h1, %h2, %h3;", 0x7f81, 0x3f80, 0, 0x7fff),
    // Exact zeros: x - x is +0, -0 + -0 is -0.
    ("sub.f16 %h1, %h2, %h3;", ONE, ONE, 0, 0),
    ("add.f16 %h1, %h2, %h3;", 0x8000, 0x8000, 0, 0x8000),
    // neg/abs change the sign; a NaN becomes 0x7fff.
    ("neg.f16 %h1, %h2;", ONE, 0, 0, 0xbc00),
    ("abs.bf16 %h1, %h2;", 0xbf80, 0, 0, 0x3f80),
    ("neg.bf16 %h1, %h2;", 0xffc1, 0, 0, 0x7fff),
    // min/max: -0 below +0; one NaN gives the other; .NaN gives NaN.
    ("min.f16 %h1, %h2, %h3;", 0, 0x8000, 0, 0x8000),
    ("max.bf16 %h1, %h2, %h3;", 0x7fc0, 0xbf80, 0, 0xbf80),
    ("max.NaN.f16 %h1, %h2, %h3;", 0x7e00, ONE, 0, 0x7fff),
    // bf16: 1 + 2^-8 ties to 1; 1 + 3 * 2^-8 ties up.
    ("add.bf16 %h1, %h2, %h3;", 0x3f80, 0x3b80, 0, 0x3f80),
    ("add.bf16 %h1, %h2, %h3;", 0x3f81, 0x3b80, 0, 0x3f82),
    // Packed: each half on its own (lo: 1 + 1, hi: 2 * -1).
    ("add.f16x2 %r1, %r2, %r3;", 0xc000_3c00, 0xbc00_3c00, 0, 0xc200_4000),
    ("mul.bf16x2 %r1, %r2, %r3;", 0x4000_3f80, 0xbf80_4040, 0, 0xc000_4040),
    // copysign: b with a's sign, NaN payloads kept.
    ("copysign.f32 %f1, %f2, %f3;", 0x8000_0000, 0x7fc0_1234, 0, 0xffc0_1234),
    ("copysign.f64 %fd1, %fd2, %fd3;", 0, 0xbff0_0000_0000_0000, 0, 0x3ff0_0000_0000_0000),
];

/// Display round trip: every grid statement simcli runs prints back as
/// ptxas was given it and re-parses to the same instruction, and so does
/// every half form the database enumerates (`db::forms`).
#[test]
fn display_round_trips() {
    let mut texts: Vec<String> = GRID
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.splitn(5, ' ').collect::<Vec<_>>())
        .filter(|f| f[..3].iter().any(|v| *v != "reject") && !unimplemented(f[4]))
        .map(|f| f[4].to_string())
        .collect();
    assert_eq!(texts.len(), 114);
    let half = [".f16 ", ".f16x2 ", ".bf16 ", ".bf16x2 "];
    let forms: Vec<String> = sim_isa::db::forms()
        .into_iter()
        .filter(|f| f.family == sim_isa::db::Family::Float)
        .filter(|f| half.iter().any(|t| f.text.contains(t)) || f.text.starts_with("copysign"))
        .map(|f| f.text)
        .collect();
    // The grid's 114 and `ex2.approx` and `tanh.approx` on the four half
    // types (`tests/data/ex2-half-ptxas.txt`, `tests/data/tanh-ptxas.txt`).
    assert_eq!(forms.len(), 122);
    texts.extend(forms);
    for text in &texts {
        let mut syms = Symbols::new();
        let inst = parse_instruction(text, &mut syms).unwrap_or_else(|e| panic!("{text}: {e}"));
        let printed = inst.display(&syms).to_string();
        assert_eq!(&printed, text);
        let again = parse_instruction(&printed, &mut syms).expect("re-parses");
        assert_eq!(again, inst, "{text}");
    }
}
