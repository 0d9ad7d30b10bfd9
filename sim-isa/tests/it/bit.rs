//! The bit-manipulation family (`popc clz brev not cnot bfe bfi prmt lop3
//! shf`): hardware vectors, the manual's edge cases, and ptxas's verdicts
//! on its forms.

use sim_isa::exec::bit_lane;
use sim_isa::parse::parse_instruction;
use sim_isa::*;

/// Every vector of the family recorded on an H100 (see the file's header).
#[test]
fn h100_vectors_pass() {
    crate::vectors::assert_all_pass(include_str!("../data/h100-bit.jsonl"), 960);
}

fn bit(text: &str) -> Bit {
    family!(text, Bit)
}

/// `bit_lane` of `text` on the sources `s`.
fn lane(text: &str, s: [u64; 4]) -> u64 {
    bit_lane(&bit(text), s)
}

#[test]
fn manual_edge_cases() {
    let one = |op: &str, a: u64| lane(&format!("{op} %d, %a;"), [a, 0, 0, 0]);
    assert_eq!(one("popc.b64", u64::MAX), 64);
    assert_eq!(one("clz.b32", 0), 32);
    assert_eq!(one("clz.b64", 0), 64);
    assert_eq!(one("clz.b64", 1), 63);
    assert_eq!(one("brev.b32", 1), 0x8000_0000);
    assert_eq!(one("not.b16", 0x00ff), 0xff00);
    assert_eq!(one("cnot.b32", 0), 1);
    assert_eq!(one("cnot.b64", 1 << 40), 0);
    let three = |op: &str, s: [u64; 4]| lane(&format!("{op} %d, %a, %b, %c;"), s);
    // bfe: len 0 gives 0 even when signed; fields past the msb sign-extend
    // from the msb; pos/len are taken mod 256.
    assert_eq!(three("bfe.s32", [0x8000_0000, 4, 0, 0]), 0);
    assert_eq!(
        three("bfe.s32", [0x8000_0000, 31, 8, 0]),
        u64::from(u32::MAX)
    );
    assert_eq!(three("bfe.u32", [0x8000_0000, 31, 8, 0]), 1);
    assert_eq!(three("bfe.s64", [0xf0, 4, 4, 0]), u64::MAX);
    assert_eq!(three("bfe.u32", [0xf0, 0x104, 0x204, 0]), 0xf);
    assert_eq!(three("bfe.s32", [0x7fff_ffff, 40, 3, 0]), 0);
    // bfi: the field stops at the msb; pos past it leaves b.
    let bfi = |s: [u64; 4]| lane("bfi.b32 %d, %a, %b, %c, %e;", s);
    assert_eq!(bfi([0xff, 0, 28, 8]), 0xf000_0000);
    assert_eq!(bfi([0xff, 0x1234, 32, 8]), 0x1234);
    assert_eq!(bfi([0xff, 0x1234, 4, 0]), 0x1234);
    // prmt: nibble's msb replicates the picked byte's sign.
    assert_eq!(three("prmt.b32", [0x80, 0, 0x8888, 0]), 0xffff_ffff);
    assert_eq!(
        three("prmt.b32", [0x0403_0201, 0x0807_0605, 0x4567, 0]),
        0x0506_0708
    );
    assert_eq!(three("prmt.b32.rc16", [0x0403_0201, 0, 1, 0]), 0x0403_0403);
    assert_eq!(
        three("prmt.b32.b4e", [0x0403_0201, 0x0807_0605, 0, 0]),
        0x0607_0801
    );
    // lop3: 0xF0 is a, 0xCC is b, 0xAA is c.
    let lop = |lut: u64| {
        lane(
            &format!("lop3.b32 %d, %a, %b, %c, {lut};"),
            [0xf0f0, 0xcccc, 0xaaaa, lut],
        )
    };
    assert_eq!(lop(0xF0), 0xf0f0);
    assert_eq!(lop(0xCC), 0xcccc);
    assert_eq!(lop(0x96), 0xf0f0 ^ 0xcccc ^ 0xaaaa);
    // shf: clamp stops at 32 (the other word), wrap takes the count mod 32.
    assert_eq!(
        three("shf.l.clamp.b32", [0x1111_1111, 0x2222_2222, 40, 0]),
        0x1111_1111
    );
    assert_eq!(
        three("shf.r.clamp.b32", [0x1111_1111, 0x2222_2222, 40, 0]),
        0x2222_2222
    );
    assert_eq!(three("shf.l.wrap.b32", [0x8000_0000, 1, 33, 0]), 3);
    assert_eq!(three("shf.r.wrap.b32", [1, 1, 32, 0]), 1);
}

#[test]
fn forms_print_back_and_bad_words_are_refused() {
    let mut syms = Symbols::new();
    for t in [
        "prmt.b32.f4e %d, %a, %b, %c;",
        "shf.l.wrap.b32 %d, %a, %b, %c;",
        "shf.r.clamp.b32 %d, %a, %b, 7;",
        "lop3.b32 %d, %a, 1, %c, 254;",
        "bfi.b64 %d, %a, %b, %c, %e;",
    ] {
        let i = parse_instruction(t, &mut syms).unwrap();
        assert_eq!(i.display(&syms).to_string(), t);
    }
    for bad in [
        "shf.b32 %d, %a, %b, %c;",
        "shf.wrap.l.b32 %d, %a, %b, %c;",
        "prmt.b32.f4e.b4e %d, %a, %b, %c;",
        "popc.f4e.b32 %d, %a;",
        "popc.u32 %d, %a;",
        "lop3.b32 %d, %a, %b, %c, %e;",
        "bfe.b32 %d, %a, %b, %c;",
        "add.wrap.u32 %d, %a, %b;",
    ] {
        let e = parse_instruction(bad, &mut syms).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Invalid, "{bad}: {e}");
    }
    // `not.pred` is the predicate complement (PTX ISA 9.7.10.x).
    let i = parse_instruction("not.pred %p, %q;", &mut syms).unwrap();
    assert_eq!(i.display(&syms).to_string(), "not.pred %p, %q;");
    let mut regs = sim_isa::WarpRegs::new(syms.len());
    let q = syms.get("%q").unwrap();
    for l in 0..32 {
        regs.set_lane(q, l, (l % 3 == 0) as u64);
    }
    sim_isa::execute(
        &i,
        &sim_isa::ExecCtx::new(sim_isa::Target::SM_90, 0),
        &mut regs,
        u32::MAX,
    );
    let p = syms.get("%p").unwrap();
    for l in 0..32 {
        assert_eq!(regs.lane(p, l), (l % 3 != 0) as u64, "lane {l}");
    }
    // bfind: the highest non-sign bit; .shiftamt counts from the top;
    // 0xffffffff when there is none (PTX ISA 9.7.8.x).
    for (t, a, want) in [
        ("bfind.u32 %d, %a;", 0x0001_0000u64, 16u64),
        ("bfind.shiftamt.u32 %d, %a;", 0x0001_0000, 15),
        ("bfind.u32 %d, %a;", 0, 0xffff_ffff),
        ("bfind.s32 %d, %a;", 0xffff_fff0, 3),
        ("bfind.s32 %d, %a;", 0xffff_ffff, 0xffff_ffff),
        ("bfind.u64 %d, %a;", 1 << 40, 40),
        ("bfind.shiftamt.s64 %d, %a;", 1 << 40, 23),
    ] {
        let mut syms = Symbols::new();
        let i = parse_instruction(t, &mut syms).unwrap();
        let mut regs = sim_isa::WarpRegs::new(syms.len());
        regs.set_lane(syms.get("%a").unwrap(), 0, a);
        sim_isa::execute(
            &i,
            &sim_isa::ExecCtx::new(sim_isa::Target::SM_90, 0),
            &mut regs,
            1,
        );
        assert_eq!(regs.lane(syms.get("%d").unwrap(), 0), want, "{t} {a:#x}");
    }
}

/// The parser accepts exactly what ptxas 11.8 accepts over the family's
/// grid of types and modifier words (see the data file's header).
#[test]
fn agrees_with_ptxas_on_the_grid() {
    let (n, wrong) = crate::ptxas_grid::disagreements(include_str!("../data/bit-ptxas.txt"));
    assert_eq!(n, 351);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

mod props {
    use crate::strategies::any_width_value;
    use proptest::prelude::*;
    use sim_isa::*;

    const NREGS: u32 = 6;

    fn operand() -> impl Strategy<Value = Operand> {
        prop_oneof![
            6 => (0..NREGS).prop_map(|r| Operand::Reg(RegId(r))),
            2 => any_width_value().prop_map(Operand::Imm),
            // Small counts and positions, where the edges are.
            2 => (0u64..80).prop_map(Operand::Imm),
        ]
    }

    /// Any bit-family instruction with any operands (forms the parser
    /// refuses too: the executors must still agree).
    fn bit_inst() -> impl Strategy<Value = Bit> {
        let mode = prop::option::of(prop::sample::select(PrmtMode::ALL.to_vec()));
        let op = prop_oneof![
            Just(BitOp::Popc),
            Just(BitOp::Clz),
            Just(BitOp::Brev),
            Just(BitOp::Not),
            Just(BitOp::Cnot),
            Just(BitOp::Bfe),
            Just(BitOp::Bfi),
            mode.prop_map(BitOp::Prmt),
            Just(BitOp::Lop3),
            (any::<bool>(), any::<bool>()).prop_map(|(left, clamp)| BitOp::Shf { left, clamp }),
        ];
        let ty = prop::sample::select(vec![
            Type::B16,
            Type::B32,
            Type::B64,
            Type::U32,
            Type::U64,
            Type::S32,
            Type::S64,
        ]);
        (op, ty, 0..NREGS, prop::array::uniform4(operand())).prop_map(|(op, ty, d, src)| Bit {
            op,
            ty,
            d: RegId(d),
            src,
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        /// The warp form (`execute`) equals `bit_lane` lifted lane by lane.
        #[test]
        fn warp_form_matches_scalar_lanes(
            x in bit_inst(),
            contents in prop::collection::vec(prop::array::uniform32(any_width_value()), NREGS as usize),
            active in prop_oneof![Just(u32::MAX), any::<u32>()],
        ) {
            crate::fastpath::check(Op::Bit(x), None, &contents, active, Target::SM_90, 1)?;
        }
    }
}
