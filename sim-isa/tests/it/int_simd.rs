//! The integer forms PTX 8.0 and sm_61 added to the integer family: packed
//! `add min max .u16x2 .s16x2`, `min/max.relu`, `dp4a`, `dp2a`, `sad`:
//! ptxas's verdicts per target and PTX version, `Display`, the manual's
//! semantics on hand-worked cases.

use sim_isa::exec::int_lane;
use sim_isa::parse::{check_target, parse_instruction};
use sim_isa::*;

/// `"8.0"` as a version.
fn ver(s: &str) -> PtxVersion {
    let (a, b) = s.split_once('.').unwrap();
    PtxVersion::new(a.parse().unwrap(), b.parse().unwrap())
}

/// `accept|reject TARGET VERSION TEXT` lines (tools/grids/int_simd.py): the
/// parser and the target gates together must agree with ptxas on each.
#[test]
fn ptxas_verdicts_per_target_and_version() {
    let data = include_str!("../data/int-simd-ptxas.txt");
    let (n, wrong, _) = crate::ptxas_grid::per_target_disagreements(data, |_, _, _, _| false);
    assert_eq!(n, 738, "grid size");
    crate::ptxas_grid::assert_agrees(n, &wrong);
}

/// A form refused for its target or version is `Unsupported` (valid PTX),
/// not `Invalid`.
#[test]
fn gates_name_the_requirement() {
    let mut syms = Symbols::new();
    let cases = [
        ("add.u16x2 %r5, %r1, %r2;", "sm_89", "8.0", "sm_90"),
        ("add.u16x2 %r5, %r1, %r2;", "sm_90", "7.8", "8.0"),
        ("min.relu.s32 %r5, %r1, %r2;", "sm_89", "8.0", "sm_90"),
        ("dp4a.u32.s32 %r5, %r1, %r2, %r3;", "sm_53", "7.8", "sm_61"),
        (
            "dp2a.hi.s32.s32 %r5, %r1, %r2, %r3;",
            "sm_60",
            "7.8",
            "sm_61",
        ),
        ("dp4a.u32.s32 %r5, %r1, %r2, %r3;", "sm_61", "4.3", "5.0"),
    ];
    for (text, t, v, need) in cases {
        let i = parse_instruction(text, &mut syms).unwrap();
        let e = check_target(&i, Target::parse(t).unwrap(), Some(ver(v))).expect_err(text);
        assert_eq!(e.kind(), ErrorKind::Unsupported, "{text}: {e}");
        assert!(e.to_string().contains(need), "{text}: {e}");
    }
}

#[test]
fn display_round_trips() {
    for text in [
        "add.u16x2 %r5, %r1, %r2;",
        "add.s16x2 %r5, %r1, %r2;",
        "min.u16x2 %r5, %r1, %r2;",
        "max.s16x2 %r5, %r1, %r2;",
        "min.relu.s16x2 %r5, %r1, %r2;",
        "max.relu.s32 %r5, %r1, %r2;",
        "dp4a.u32.s32 %r5, %r1, %r2, %r3;",
        "dp4a.s32.u32 %r5, %r1, 3, -1;",
        "dp2a.lo.s32.s32 %r5, %r1, %r2, %r3;",
        "dp2a.hi.u32.u32 %r5, %r1, %r2, 7;",
        "sad.u16 %h5, %h1, %h2, %h3;",
        "sad.s64 %rd5, %rd1, -2, %rd3;",
    ] {
        let mut syms = Symbols::new();
        let i = parse_instruction(text, &mut syms).unwrap();
        assert_eq!(i.display(&syms).to_string(), text);
    }
}

fn lane(text: &str, a: u64, b: u64, c: u64) -> u64 {
    int_lane(&family!(text, Int), a, b, c)
}

#[test]
fn manual_semantics() {
    crate::assert_lanes(lane, MANUAL_SEMANTICS);
}

/// `(text, a, b, c, result)`: the manual's semantics on hand-worked cases.
#[rustfmt::skip]
const MANUAL_SEMANTICS: &[crate::LaneCase] = &[
    // Each half wraps on its own: no carry from the low half into the high.
    ("add.u16x2 %r5, %r1, %r2;", 0x0001_FFFF, 0x0001_0001, 0, 0x0002_0000),
    ("add.s16x2 %r5, %r1, %r2;", 0x7FFF_8000, 0x0001_FFFF, 0, 0x8000_7FFF),
    // min/max compare each half in its type's order.
    ("min.u16x2 %r5, %r1, %r2;", 0xFFFF_0001, 0x0001_FFFF, 0, 0x0001_0001),
    ("min.s16x2 %r5, %r1, %r2;", 0xFFFF_0001, 0x0001_FFFF, 0, 0xFFFF_FFFF),
    ("max.s16x2 %r5, %r1, %r2;", 0x8000_0005, 0x7FFF_0003, 0, 0x7FFF_0005),
    // .relu: a negative result (half) becomes 0.
    ("min.relu.s16x2 %r5, %r1, %r2;", 0xFFFF_0004, 0x0003_0002, 0, 0x0000_0002),
    ("max.relu.s32 %r5, %r1, %r2;", 0xFFFF_FFF0, 0xFFFF_FFFE, 0, 0),
    ("min.relu.s32 %r5, %r1, %r2;", 5, 9, 0, 5),
    // dp4a: c + sum of byte products; bytes signed per type.
    ("dp4a.u32.u32 %r5, %r1, %r2, %r3;", 0x0403_0201, 0x0101_0101, 10, 20),
    ("dp4a.s32.u32 %r5, %r1, %r2, %r3;", 0xFF, 0x02, 0, 0xFFFF_FFFE),
    ("dp4a.u32.u32 %r5, %r1, %r2, %r3;", 0xFF, 0x02, 0, 0x1FE),
    ("dp4a.s32.s32 %r5, %r1, %r2, %r3;", 0x8080_8080, 0x8080_8080, 0, 65536),
    // dp2a: a's halves times b's bytes 0-1 (.lo) or 2-3 (.hi).
    ("dp2a.lo.u32.u32 %r5, %r1, %r2, %r3;", 0x0002_0003, 0x0605_0405, 1, 24),
    ("dp2a.hi.u32.u32 %r5, %r1, %r2, %r3;", 0x0002_0003, 0x0605_0405, 1, 28),
    ("dp2a.lo.s32.s32 %r5, %r1, %r2, %r3;", 0xFFFF_0001, 0x0000_02FF, 0, 0xFFFF_FFFD),
    // sad: c + |a - b| in the type's order, wrapping at its width.
    ("sad.u32 %r5, %r1, %r2, %r3;", 3, 10, 100, 107),
    ("sad.s32 %r5, %r1, %r2, %r3;", 0xFFFF_FFFF, 1, 0, 2),
    ("sad.u32 %r5, %r1, %r2, %r3;", 0xFFFF_FFFF, 1, 0, 0xFFFF_FFFE),
    ("sad.s16 %h5, %h1, %h2, %h3;", 0x8000, 0x7FFF, 2, 1),
    // |MIN - 1| = 2^63 + 1, wrapped at 64 bits.
    ("sad.s64 %rd5, %rd1, %rd2, %rd3;", 1 << 63, 1, 0, (1 << 63) + 1),
];

/// The SASS oracle's vectors (`sass-int-simd.jsonl`: ptxas 13.0.88's sm_90
/// code for each form of `int-simd-forms.txt`, run by xtask's interpreter).
#[test]
fn sass_oracle_vectors_pass() {
    crate::vectors::assert_all_pass(include_str!("../data/sass-int-simd.jsonl"), 1160);
}
