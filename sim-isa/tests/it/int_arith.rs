//! The integer arithmetic family (`add sub mul mad`): hardware vectors,
//! the manual's edge cases, and ptxas's verdicts on its forms.

use sim_isa::exec::int_lane;
use sim_isa::parse::parse_instruction;
use sim_isa::*;

/// Every add/sub/mul/mad vector recorded on an H100 (see the file's header).
#[test]
fn h100_vectors_pass() {
    crate::vectors::assert_all_pass(include_str!("../data/h100-int-arith.jsonl"), 900);
}

fn int(text: &str) -> IntArith {
    family!(text, Int)
}

/// `int_lane` of `text` on `a`, `b`, `c`.
fn lane(text: &str, a: u64, b: u64, c: u64) -> u64 {
    int_lane(&int(text), a, b, c)
}

/// The manual's edge cases, worked by hand (`tests/data/lanes-int-manual.txt`).
#[test]
fn manual_edge_cases() {
    let cases = crate::lane_table(include_str!("../data/lanes-int-manual.txt"));
    assert_eq!(cases.len(), 27);
    crate::assert_lanes(lane, &cases);
}

/// Widths the instruction gives its registers (the scoreboard and the
/// conformance runner read them): `.wide` doubles `d` and `mad`'s `c`.
#[test]
fn wide_forms_double_d_and_c() {
    let mut syms = Symbols::new();
    let i = parse_instruction("mad.wide.s16 %d, %a, %b, %c;", &mut syms).unwrap();
    let bits: Vec<(bool, u32)> = i.reg_uses().iter().map(|u| (u.write, u.bits)).collect();
    assert_eq!(bits, [(true, 32), (false, 16), (false, 16), (false, 32)]);
    let i = parse_instruction("mul.hi.u64 %d, %a, 7;", &mut syms).unwrap();
    let bits: Vec<u32> = i.reg_uses().iter().map(|u| u.bits).collect();
    assert_eq!(bits, [64, 64]);
    // An immediate `c` is read at d's width.
    let x = int("mad.wide.u16 %d, %a, %b, 70000;");
    assert_eq!(x.c, Some(Operand::Imm(70000)));
}

/// Texts ptxas accepts in forms beyond the canonical one (the rejections
/// are in `tests/data/parse-errors.txt`).
#[test]
fn ptxas_accepted_orders() {
    // Accepted by ptxas: `.sat` after the type, repeated, on mad.hi.s32.
    for text in [
        "add.s32.sat %r1, %r2, %r3;",
        "add.sat.sat.s32 %r1, %r2, %r3;",
        "mad.hi.s32.sat %r1, %r2, %r3, %r4;",
        "mad.hi.sat.sat.s32 %r1, %r2, %r3, %r4;",
        "mad.lo.u64 %rd1, %rd2, %rd3, 5;",
        "mad.hi.sat.s32 %r1, %r2, %r3, -4;",
    ] {
        let mut syms = Symbols::new();
        parse_instruction(text, &mut syms).unwrap_or_else(|e| panic!("{text}: {e}"));
    }
}

/// Valid PTX that simcli does not implement is neither invalid nor
/// unsupported by the target.
#[test]
fn unimplemented_ptx() {
    for (text, what) in [
        ("fma.rn.oob.f16 %h1, %h2, %h3, %h4;", "fma.rn.oob.f16"),
        ("bra LOOP;", "bra"),
        ("isspacep.global %p1, %rd1;", "isspacep"),
        ("cvt.rna.tf32.f32 %r1, %f1;", "cvt.rna.tf32.f32"),
        ("fma.rz.f64 %fd1, %fd2, %fd3, %fd4;", "fma.rz.f64"),
        ("mul.rm.f64 %fd1, %fd2, %fd3;", "mul.rm.f64"),
        // ptxas takes it; the manual defines no 16-bit carry form.
        ("addc.u16 %h1, %h2, %h3;", "addc.u16"),
        ("vadd.u32.u32.u32 %r1, %r2, %r3;", "vadd"),
    ] {
        let mut syms = Symbols::new();
        let e = parse_instruction(text, &mut syms).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Unimplemented, "{text}: {e}");
        assert_eq!(e.to_string(), format!("unsupported by simcli: {what}"));
        assert_eq!(e.col(), Some(1));
    }
    let mut syms = Symbols::new();
    let e = parse_instruction("vfoo2.u32.u32.u32 %r1, %r2, %r3, %r4;", &mut syms).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Invalid);
}

/// The parser accepts exactly what ptxas accepts over the family's grid.
#[test]
fn agrees_with_ptxas_on_the_grid() {
    agrees_with_ptxas(include_str!("../data/int-arith-ptxas.txt"), 180);
}

/// Checks that the parser accepts exactly the `accept` lines of `data` (a
/// ptxas verdict file, `tests/it/ptxas_grid.rs`), and that there are `count`
/// of them in all.
pub(crate) fn agrees_with_ptxas(data: &str, count: usize) {
    let (n, wrong) = crate::ptxas_grid::disagreements(data);
    assert_eq!(n, count);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
