//! The integer family's `min max div rem abs neg`: hardware vectors, the
//! manual's edge cases (and the H100's division by zero), ptxas's verdicts
//! and messages.

use sim_isa::exec::int_lane;
use sim_isa::parse::parse_instruction;
use sim_isa::*;

/// Every min/max/div/rem/abs/neg vector over the integer types recorded on
/// an H100 (see the file's header).
#[test]
fn h100_vectors_pass() {
    crate::vectors::assert_all_pass(include_str!("../data/h100-int-more.jsonl"), 780);
}

/// `int_lane` of `text` on `a`, `b`.
fn lane(text: &str, a: u64, b: u64) -> u64 {
    int_lane(&family!(text, Int), a, b, 0)
}

#[test]
fn manual_edge_cases() {
    let two = |op: &str| format!("{op} %d, %a, %b;");
    let one = |op: &str| format!("{op} %d, %a;");
    // min/max order by the type: signed or unsigned, at its width.
    assert_eq!(lane(&two("min.s16"), 0xFFFF, 1,), 0xFFFF);
    assert_eq!(lane(&two("min.u16"), 0xFFFF, 1), 1);
    assert_eq!(lane(&two("max.s32"), 0x8000_0000, 0x7FFF_FFFF), 0x7FFF_FFFF);
    assert_eq!(lane(&two("max.u64"), 1 << 63, 5), 1 << 63);
    assert_eq!(lane(&two("min.s64"), 1 << 63, 5), 1 << 63);
    // abs/neg wrap on the most negative value.
    assert_eq!(lane(&one("abs.s16"), 0x8000, 0), 0x8000);
    assert_eq!(lane(&one("abs.s32"), 0xFFFF_FFFB, 0), 5);
    assert_eq!(lane(&one("abs.s64"), 7, 0), 7);
    assert_eq!(lane(&one("neg.s32"), 0x8000_0000, 0), 0x8000_0000);
    assert_eq!(lane(&one("neg.s16"), 1, 0), 0xFFFF);
    assert_eq!(lane(&one("neg.s64"), 0, 0), 0);
    // div truncates toward zero; rem has a's sign.
    assert_eq!(
        lane(&two("div.s32"), (-7i32) as u32 as u64, 2),
        (-3i32) as u32 as u64
    );
    assert_eq!(
        lane(&two("rem.s32"), (-7i32) as u32 as u64, 2),
        (-1i32) as u32 as u64
    );
    assert_eq!(lane(&two("rem.s32"), 7, (-2i32) as u32 as u64), 1);
    assert_eq!(lane(&two("div.u16"), 0xFFFF, 2), 0x7FFF);
    assert_eq!(lane(&two("div.s16"), 0xFFFF, 2), 0);
    assert_eq!(lane(&two("rem.u64"), u64::MAX, 10), 5);
    // The most negative value over -1: the quotient wraps, remainder 0.
    assert_eq!(lane(&two("div.s32"), 0x8000_0000, 0xFFFF_FFFF), 0x8000_0000);
    assert_eq!(lane(&two("rem.s32"), 0x8000_0000, 0xFFFF_FFFF), 0);
    assert_eq!(lane(&two("div.s16"), 0x8000, 0xFFFF), 0x8000);
    assert_eq!(lane(&two("div.s64"), 1 << 63, u64::MAX), 1 << 63);
    assert_eq!(lane(&two("rem.s64"), 1 << 63, u64::MAX), 0);
    // Division by zero: all ones, whatever the signs (the H100's code
    // selects ~0 when b is zero; vectors for div.s32, div.u64, rem.u32 ...).
    for op in ["div", "rem"] {
        for (ty, ones) in [
            ("u16", 0xFFFF),
            ("s16", 0xFFFF),
            ("u32", 0xFFFF_FFFF),
            ("s32", 0xFFFF_FFFF),
            ("u64", u64::MAX),
            ("s64", u64::MAX),
        ] {
            for a in [0, 1, 0x8000, 0x8000_0000, u64::MAX] {
                assert_eq!(
                    lane(&two(&format!("{op}.{ty}")), a, 0),
                    ones,
                    "{op}.{ty} {a:#x} / 0"
                );
            }
        }
    }
}

/// Register widths: `abs`/`neg` read one source.
#[test]
fn reg_uses() {
    let mut syms = Symbols::new();
    let i = parse_instruction("neg.s16 %d, %a;", &mut syms).unwrap();
    let bits: Vec<(bool, u32)> = i.reg_uses().iter().map(|u| (u.write, u.bits)).collect();
    assert_eq!(bits, [(true, 16), (false, 16)]);
    let i = parse_instruction("rem.u64 %d, %a, 3;", &mut syms).unwrap();
    assert_eq!(i.display(&syms).to_string(), "rem.u64 %d, %a, 3;");
    let i = parse_instruction("abs.s32 %d, -5;", &mut syms).unwrap();
    assert_eq!(i.display(&syms).to_string(), "abs.s32 %d, -5;");
}

/// The parser accepts exactly what ptxas accepts over the grid.
#[test]
fn agrees_with_ptxas_on_the_grid() {
    super::int_arith::agrees_with_ptxas(include_str!("../data/int-more-ptxas.txt"), 108);
}

/// Rejections in ptxas 11.8's words (each message recorded from ptxas on
/// the text).
#[test]
fn ptxas_messages() {
    for (text, want) in [
        (
            "min.b32 %r5, %r1, %r2;",
            "invalid col 4 at '.b32': Unexpected instruction types specified for 'min'",
        ),
        (
            "min.u32.s32 %r5, %r1, %r2;",
            "invalid col 4 at '.u32': Unexpected instruction types specified for 'min'",
        ),
        (
            "abs %r5, %r1;",
            "invalid col 1 at 'abs': Unexpected instruction types specified for 'abs'",
        ),
        (
            "abs.b32 %r5, %r1;",
            "invalid col 4 at '.b32': Unexpected instruction types specified for 'abs'",
        ),
        (
            "abs.u32 %r5, %r1;",
            "invalid col 4 at '.u32': Instruction 'abs' applies only to signed numeric types",
        ),
        (
            "neg.u16 %h5, %h1;",
            "invalid col 4 at '.u16': Instruction 'neg' applies only to signed numeric types",
        ),
        (
            "div.sat.s32 %r5, %r1, %r2;",
            "invalid col 4 at '.sat': Illegal modifier '.sat' for instruction 'div'",
        ),
        (
            "min.ftz.s32 %r5, %r1, %r2;",
            "invalid col 4 at '.ftz': Illegal modifier '.ftz' for instruction 'min'",
        ),
        (
            "rem.lo.u32 %r5, %r1, %r2;",
            "invalid col 4 at '.lo': Comparison qualifier is not allowed for instruction 'rem'",
        ),
        (
            "abs.s32 %r5, %r1, %r2;",
            "invalid col 19 at '%r2': Arguments mismatch for instruction 'abs'",
        ),
        (
            "min.s32 %r5, %r1;",
            "invalid col 1 at 'min': Arguments mismatch for instruction 'min'",
        ),
    ] {
        let mut syms = Symbols::new();
        let got = match parse_instruction(text, &mut syms) {
            Err(IsaError::Invalid { col, token, reason }) => {
                format!("invalid col {col} at '{token}': {reason}")
            }
            other => format!("{other:?}"),
        };
        assert_eq!(got, want, "{text}");
    }
}
