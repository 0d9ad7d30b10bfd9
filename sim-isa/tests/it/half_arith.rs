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

/// Values worked out by hand from the formats
/// (`tests/data/lanes-half-by-hand.txt`).
#[test]
fn lanes_by_hand() {
    let cases = crate::lane_table(include_str!("../data/lanes-half-by-hand.txt"));
    assert_eq!(cases.len(), 32);
    crate::assert_lanes(lane, &cases);
}

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
