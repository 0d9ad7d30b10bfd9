//! `testp`, `fns`, `cvt.pack` and `bmsk`: ptxas's verdicts per target and PTX
//! version (`tests/data/{testp,fns,cvt-pack,bmsk}-ptxas.txt`, written by
//! `tools/ptxas_grid/families_grid.py`), and lane values the manual's
//! definitions give. The SASS oracle's vectors run in `vectors.rs`.

use crate::grid;
use sim_isa::exec::bit_lane;
use sim_isa::parse::{check_target, parse_instruction};
use sim_isa::*;

fn parse(text: &str) -> Result<Instruction, IsaError> {
    parse_instruction(text, &mut Symbols::new())
}

/// The grid's targets, the `.version` each verdict was given at (sm_50 to
/// sm_72 by ptxas 11.8, the rest by 13.0.88) and the first version each
/// target allows.
const TARGETS: [(&str, &str, &str); 6] = [
    ("sm_50", "7.8", "4.0"),
    ("sm_70", "7.8", "6.0"),
    ("sm_72", "7.8", "6.1"),
    ("sm_75", "9.0", "6.3"),
    ("sm_80", "9.0", "7.0"),
    ("sm_90", "9.0", "7.8"),
];

/// Holds a grid against the parser and `check_target` (`grid::check`),
/// the `.version` gate on the first accepting target: below the lowest
/// version ptxas took, unless that is the target's first, it refused.
/// `unrun`: valid PTX simcli does not run; `untyped`: statements ptxas
/// refuses for a register's declared type. Returns (statements, accepted
/// including `unrun`, wrong).
fn check_grid(text: &str, unrun: &[&str], untyped: &[&str]) -> (usize, usize, Vec<String>) {
    grid::check_first_versions(text, &TARGETS, &|t| unrun.contains(&t), untyped)
}

#[test]
fn testp_agrees_with_ptxas_per_target() {
    let grid = include_str!("../data/testp-ptxas.txt");
    let (n, accepted, wrong) = check_grid(
        grid,
        &["testp.f32 %p1, %f1;"],
        &["testp.normal.f32 %r1, %f1;"],
    );
    // Accepted counts the valid `testp.f32` simcli does not run.
    assert_eq!((n, accepted), (19, 13));
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// `testp`'s predicate on the bits `a` of an f32 (`.f64` when `wide`).
fn testp(op: &str, wide: bool, a: u64) -> bool {
    let text = if wide {
        format!("testp.{op}.f64 %p1, %fd1;")
    } else {
        format!("testp.{op}.f32 %p1, %f1;")
    };
    match parse(&text) {
        Ok(Instruction { op: Op::Bit(x), .. }) => {
            assert_eq!(x.d_type(), Type::Pred);
            match bit_lane(&x, [a, 0, 0, 0]) {
                0 => false,
                1 => true,
                other => panic!("{text}: {other}"),
            }
        }
        other => panic!("{text}: {other:?}"),
    }
}

/// The six properties on zero, a subnormal, a normal, infinity and NaN
/// of both signs (the manual: zeros are normal).
#[test]
fn testp_classes() {
    // The manual's names in its order, read from the hand-written form list
    // `tests/data/testp-forms.txt` (its `.f32` lines) rather than from the
    // library (`TestOp::name`), which is what is under test.
    let ops: Vec<&str> = include_str!("../data/testp-forms.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && l.contains(".f32 "))
        .map(|l| l.split('.').nth(1).expect("testp.OP.f32"))
        .collect();
    assert_eq!(ops.len(), 6, "{ops:?}");
    // (f32 bits, f64 bits, the six answers in `ops`' order)
    #[rustfmt::skip]
    let cases: [(u64, u64, [bool; 6]); 10] = [
        (0, 0, [true, false, true, false, true, false]),
        (1 << 31, 1 << 63, [true, false, true, false, true, false]),
        (1, 1, [true, false, true, false, false, true]),
        (0x807f_ffff, 0x800f_ffff_ffff_ffff, [true, false, true, false, false, true]),
        (0x0080_0000, 0x0010_0000_0000_0000, [true, false, true, false, true, false]),
        (0xff7f_ffff, 0xffef_ffff_ffff_ffff, [true, false, true, false, true, false]),
        (0x7f80_0000, 0x7ff0_0000_0000_0000, [false, true, true, false, false, false]),
        (0xff80_0000, 0xfff0_0000_0000_0000, [false, true, true, false, false, false]),
        (0x7fc0_0000, 0x7ff8_0000_0000_0000, [false, false, false, true, false, false]),
        (0xff80_0001, 0xfff0_0000_0000_0001, [false, false, false, true, false, false]),
    ];
    for (f32_bits, f64_bits, want) in cases {
        for (op, w) in ops.iter().zip(want) {
            assert_eq!(testp(op, false, f32_bits), w, "{op}.f32 {f32_bits:#x}");
            assert_eq!(testp(op, true, f64_bits), w, "{op}.f64 {f64_bits:#x}");
        }
    }
}

/// ptxas's words for what `testp` refuses, which the grid's comments quote.
#[test]
fn testp_refusals() {
    let grid = include_str!("../data/testp-ptxas.txt");
    for text in [
        "testp.finite.infinite.f32 %p1, %f1;",
        "testp.normal.ftz.f32 %p1, %f1;",
        "testp.finite.f16 %p1, %r1;",
    ] {
        assert!(grid.contains(&format!("reject - {text}")), "{text}");
        assert_eq!(
            parse(text).map_err(|e| e.kind()).err(),
            Some(ErrorKind::Invalid),
            "{text}"
        );
    }
}

#[test]
fn fns_agrees_with_ptxas_per_target() {
    let grid = include_str!("../data/fns-ptxas.txt");
    let (n, accepted, wrong) = check_grid(grid, &[], &[]);
    assert_eq!((n, accepted), (7, 3));
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // ptxas 11.8 takes `fns` at PTX 6.0 on sm_50 and not before; the
    // manual's sm_30 is below what either assembler targets.
    let inst = parse("fns.b32 %r1, %r2, %r3, %r4;").expect("fns");
    let sm30 = Target::parse("sm_30").expect("target");
    assert!(check_target(&inst, sm30, PtxVersion::parse("6.0")).is_ok());
    assert!(check_target(&inst, sm30, PtxVersion::parse("5.0")).is_err());
    let sm21 = Target::parse("sm_21").expect("target");
    assert!(check_target(&inst, sm21, PtxVersion::parse("6.0")).is_err());
}

/// `fns.b32 d, mask, base, offset` on one lane.
fn fns(mask: u32, base: u32, offset: i32) -> u32 {
    match parse("fns.b32 %r1, %r2, %r3, %r4;") {
        Ok(Instruction { op: Op::Bit(x), .. }) => {
            let d = bit_lane(
                &x,
                [u64::from(mask), u64::from(base), offset as u32 as u64, 0],
            );
            u32::try_from(d).expect("32 bits")
        }
        other => panic!("fns: {other:?}"),
    }
}

/// The manual's examples, offset 0, the ends of the mask, not found, and
/// the machine's answer for an offset of `i32::MIN`.
#[test]
fn fns_lanes() {
    // PTX ISA, `fns`: "fns.b32 d, 0xaaaaaaaa, 3, 1; // d = 3" and so on.
    assert_eq!(fns(0xaaaa_aaaa, 3, 1), 3);
    assert_eq!(fns(0xaaaa_aaaa, 3, -1), 3);
    assert_eq!(fns(0xaaaa_aaaa, 2, 1), 3);
    assert_eq!(fns(0xaaaa_aaaa, 2, -1), 1);
    assert_eq!(fns(0xaaaa_aaaa, 3, 0), 3);
    assert_eq!(fns(0xaaaa_aaaa, 2, 0), 0xffff_ffff);
    assert_eq!(fns(0xaaaa_aaaa, 0, 16), 31);
    assert_eq!(fns(0xaaaa_aaaa, 0, 17), 0xffff_ffff);
    assert_eq!(fns(0xffff_ffff, 31, -32), 0);
    assert_eq!(fns(0xffff_ffff, 31, -33), 0xffff_ffff);
    assert_eq!(fns(0x8000_0001, 31, -2), 0);
    assert_eq!(fns(0x8000_0001, 1, 1), 31);
    assert_eq!(fns(0, 5, 1), 0xffff_ffff);
    // A base above 31 (undefined in the manual) finds nothing on the machine.
    assert_eq!(fns(0xffff_ffff, 32, 1), 0xffff_ffff);
    assert_eq!(fns(0xffff_ffff, 40, -1), 0xffff_ffff);
    assert_eq!(fns(0xffff_ffff, 32, 0), 0xffff_ffff);
    // The manual's loop finds nothing for i32::MAX and i32::MIN alike; the
    // machine code (sass-fns.jsonl) answers 0 for i32::MIN, any mask, any base.
    assert_eq!(fns(0xffff_ffff, 3, i32::MAX), 0xffff_ffff);
    assert_eq!(fns(0xffff_ffff, 3, i32::MIN), 0);
    assert_eq!(fns(0, 40, i32::MIN), 0);
}

#[test]
fn cvt_pack_agrees_with_ptxas_per_target() {
    let grid = include_str!("../data/cvt-pack-ptxas.txt");
    // The sub-byte types (sm_75) are valid PTX simcli does not run.
    let sub_byte: Vec<&str> = grid
        .lines()
        .filter(|l| {
            l.contains(" 6.5 cvt.pack.sat.") && !l.contains("8.s32") && !l.contains("16.s32")
        })
        .map(|l| l.splitn(8, ' ').nth(7).expect("text"))
        .collect();
    assert_eq!(sub_byte.len(), 4, "{sub_byte:?}");
    let (n, accepted, wrong) = check_grid(grid, &sub_byte, &[]);
    // Accepted counts the four sub-byte forms simcli does not run.
    assert_eq!((n, accepted), (24, 8));
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// `cvt.pack.sat.{ty}` on one lane (`c` only for the 8-bit types).
fn pack(ty: &str, a: i32, b: i32, c: u32) -> u32 {
    let text = if ty.ends_with('8') {
        format!("cvt.pack.sat.{ty}.s32.b32 %r1, %r2, %r3, %r4;")
    } else {
        format!("cvt.pack.sat.{ty}.s32 %r1, %r2, %r3;")
    };
    match parse(&text) {
        Ok(Instruction { op: Op::Cvt(x), .. }) => {
            assert_eq!(x.d_type().bits(), 32, "{text}");
            let r = exec::cvt_lane_c(&x, a as u32 as u64, b as u32 as u64, u64::from(c));
            u32::try_from(r).expect("32 bits")
        }
        other => panic!("{text}: {other:?}"),
    }
}

/// Saturation at each type's ends, `b` in the low element, `c`'s low half
/// above the 8-bit pair (its high half dropped: ptxas loads only the low
/// half of an immediate `c`).
#[test]
fn cvt_pack_lanes() {
    assert_eq!(pack("u16", -7, 70_000, 0), 0x0000_ffff);
    assert_eq!(pack("u16", 70_000, 5, 0), 0xffff_0005);
    assert_eq!(pack("s16", -40_000, 40_000, 0), 0x8000_7fff);
    assert_eq!(pack("s16", -1, 1, 0), 0xffff_0001);
    assert_eq!(pack("u8", 300, -5, 0x1234_5678), 0x5678_ff00);
    assert_eq!(pack("u8", 17, 200, 0), 0x0000_11c8);
    assert_eq!(pack("s8", -200, 100, 0xab), 0x00ab_8064);
    assert_eq!(pack("s8", i32::MIN, i32::MAX, 0xffff_ffff), 0xffff_807f);
}

/// The forms ptxas refuses, and its target and version demands.
#[test]
fn cvt_pack_refusals_and_gates() {
    for text in [
        "cvt.pack.u8.s32.b32 %r1, %r2, %r3, %r4;",
        "cvt.pack.sat.u16.s32.b32 %r1, %r2, %r3, %r4;",
        "cvt.pack.sat.u8.s32 %r1, %r2, %r3;",
        "cvt.pack.sat.rn.u8.s32.b32 %r1, %r2, %r3, %r4;",
    ] {
        assert_eq!(
            parse(text).map_err(|e| e.kind()).err(),
            Some(ErrorKind::Invalid),
            "{text}"
        );
    }
    let inst = parse("cvt.pack.sat.s8.s32.b32 %r1, %r2, %r3, %r4;").expect("cvt.pack");
    let at =
        |t: &str, v: &str| check_target(&inst, Target::parse(t).expect("t"), PtxVersion::parse(v));
    assert!(at("sm_72", "6.5").is_ok());
    assert!(at("sm_72", "6.4").is_err());
    assert!(at("sm_70", "7.8").is_err());
    assert_eq!(
        parse("cvt.pack.sat.u4.s32.b32 %r1, %r2, %r3, %r4;")
            .map_err(|e| e.kind())
            .err(),
        Some(ErrorKind::Unimplemented)
    );
}

#[test]
fn bmsk_agrees_with_ptxas_per_target() {
    let grid = include_str!("../data/bmsk-ptxas.txt");
    let (n, accepted, wrong) = check_grid(
        grid,
        &[],
        &[
            "bmsk.clamp.b32 %rd1, %r2, %r3;",
            "bmsk.wrap.b32 %r1, %rd2, %r3;",
        ],
    );
    assert_eq!((n, accepted), (15, 6));
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The manual's sm_70 and PTX 7.6, which ptxas 11.8 confirms on sm_70.
    let inst = parse("bmsk.wrap.b32 %r1, %r2, %r3;").expect("bmsk");
    let sm70 = Target::parse("sm_70").expect("target");
    assert!(check_target(&inst, sm70, PtxVersion::parse("7.6")).is_ok());
    assert!(check_target(&inst, sm70, PtxVersion::parse("7.5")).is_err());
    let sm61 = Target::parse("sm_61").expect("target");
    assert!(check_target(&inst, sm61, PtxVersion::parse("7.6")).is_err());
}

/// Both modes print back as written and keep their mode.
#[test]
fn bmsk_round_trips() {
    for text in [
        "bmsk.clamp.b32 %r1, %r2, %r3;",
        "bmsk.wrap.b32 %r1, 1, 2;",
        "bmsk.wrap.b32 %r1, %r2, 40;",
    ] {
        let mut syms = Symbols::new();
        let inst = parse_instruction(text, &mut syms).expect(text);
        assert_eq!(inst.display(&syms).to_string(), text);
        let Op::Bit(x) = inst.op else {
            panic!("{text}: {inst:?}")
        };
        assert_eq!(
            x.op,
            BitOp::Bmsk {
                clamp: text.contains("clamp")
            }
        );
        assert_eq!(x.d_type(), Type::B32);
    }
}

/// `bmsk.{clamp|wrap}.b32 d, a, b` on one lane.
fn bmsk(clamp: bool, a: u32, b: u32) -> u32 {
    let mode = if clamp { "clamp" } else { "wrap" };
    match parse(&format!("bmsk.{mode}.b32 %r1, %r2, %r3;")) {
        Ok(Instruction { op: Op::Bit(x), .. }) => {
            let d = bit_lane(&x, [u64::from(a), u64::from(b), 0, 0]);
            u32::try_from(d).expect("32 bits")
        }
        other => panic!("bmsk: {other:?}"),
    }
}

/// The manual's example and each of its clamp and wrap rules.
#[test]
fn bmsk_lanes() {
    // PTX ISA, `bmsk`: "bmsk.wrap.b32 rd, 1, 2; // Creates a bitmask of 0x00000006."
    assert_eq!(bmsk(false, 1, 2), 0x6);
    assert_eq!(bmsk(true, 1, 2), 0x6);
    assert_eq!(bmsk(true, 0, 31), 0x7fff_ffff);
    assert_eq!(bmsk(true, 0, 32), 0xffff_ffff);
    // A mask running past bit 31 stops there (sum-overflow).
    assert_eq!(bmsk(true, 28, 8), 0xf000_0000);
    assert_eq!(bmsk(false, 28, 8), 0xf000_0000);
    // A width of 0 is no bits, in both modes.
    assert_eq!(bmsk(true, 4, 0), 0);
    assert_eq!(bmsk(false, 4, 0), 0);
    // .clamp: a position of 32 or more gives 0; a width of 32 or more
    // reaches the top.
    assert_eq!(bmsk(true, 32, 1), 0);
    assert_eq!(bmsk(true, u32::MAX, 5), 0);
    assert_eq!(bmsk(true, 4, 40), 0xffff_fff0);
    assert_eq!(bmsk(true, 4, u32::MAX), 0xffff_fff0);
    // .wrap: both are read modulo 32 (a width of 32 is 0).
    assert_eq!(bmsk(false, 33, 2), 0x6);
    assert_eq!(bmsk(false, 4, 32), 0);
    assert_eq!(bmsk(false, 4, 40), 0xff0);
    assert_eq!(bmsk(false, 0xffff_ffe0, 0xffff_ffe3), 0x7);
}
