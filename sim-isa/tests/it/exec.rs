//! Execution semantics: errata edge cases on the scalar lane functions, warp
//! lifting (active mask, guard, widths), and a sample of public conformance
//! vectors run end to end with hand-built instructions (no parser needed).

use sim_isa::conform::{run_vectors_with, Outcome};
use sim_isa::exec::{
    alu_lane, compare, int_lane, selp_lane, set_lane, setp_lane, slct_lane, video_lane,
};
use sim_isa::*;

const R1: RegId = RegId(0);
const R2: RegId = RegId(1);
const R3: RegId = RegId(2);
const R4: RegId = RegId(3);

/// A video instruction with the default selectors and mask of its width.
fn video(op: VideoOp, simd: Simd, dsigned: bool, asigned: bool, bsigned: bool) -> Video {
    let (mask, asel, bsel) = match simd {
        Simd::X2 => (0b11, [0, 1, 0, 0], [2, 3, 0, 0]),
        Simd::X4 => (0b1111, [0, 1, 2, 3], [4, 5, 6, 7]),
    };
    Video {
        op,
        simd,
        dsigned,
        asigned,
        bsigned,
        sat: false,
        add: false,
        mask,
        mask_explicit: false,
        asel,
        bsel,
        asel_explicit: false,
        bsel_explicit: false,
        sat_first: false,
        d: R1,
        a: R2,
        b: R3,
        c: R4,
    }
}

fn set(cmp: CmpOp, dtype: Type, stype: Type) -> Set {
    Set {
        cmp,
        bool_op: None,
        ftz: false,
        dtype,
        stype,
        d: R1,
        a: Operand::Reg(R2),
        b: Operand::Reg(R3),
    }
}

fn slct(dtype: Type, ctype: Type, ftz: bool) -> Slct {
    Slct {
        ftz,
        dtype,
        ctype,
        d: R1,
        a: Operand::Reg(R2),
        b: Operand::Reg(R3),
        c: Operand::Reg(R4),
    }
}

const SM20: Target = Target {
    sm: 20,
    suffix: None,
};

// ---------------------------------------------------------------- video

#[test]
fn errata_1_vset_unmasked_lanes_come_from_c() {
    let mut v = video(VideoOp::Set(CmpOp::Eq), Simd::X2, false, false, false);
    v.mask = 0b01;
    // lane 0: 5 == 5 -> 1; lane 1 copied from c (not from b = 0x7777).
    assert_eq!(
        video_lane(&v, 0x0000_0005, 0x7777_0005, 0xABCD_1234),
        0xABCD_0001
    );
    let mut v = video(VideoOp::Set(CmpOp::Lt), Simd::X4, false, false, false);
    v.mask = 0b0101;
    assert_eq!(
        video_lane(&v, 0x0000_0000, 0x0101_0101, 0xAABB_CCDD),
        0xAA01_CC01
    );
}

#[test]
fn errata_2_lanes_truncated_and_placed() {
    // vadd2.u32.u32.u32: 0xFFFF + 0x0002 = 0x10001 truncates to 0x0001 in lane 1.
    let v = video(VideoOp::Add, Simd::X2, false, false, false);
    assert_eq!(video_lane(&v, 0xFFFF_0001, 0x0002_0003, 0), 0x0001_0004);
    // vsub4: lane 2 gets 0 - 1 = 0xFF, nothing spills into lane 3.
    let v = video(VideoOp::Sub, Simd::X4, false, false, false);
    assert_eq!(video_lane(&v, 0x0500_0000, 0x0001_0000, 0), 0x05FF_0000);
}

#[test]
fn errata_3_accumulate_full_precision_signed() {
    // vsub2.s32.s32.s32.add: t = [-2 - 3, 0x7FFF - (-0x8000)] = [-5, 0xFFFF]; d = c - 5 + 0xFFFF.
    let mut v = video(VideoOp::Sub, Simd::X2, true, true, true);
    v.add = true;
    let d = video_lane(&v, 0x7FFF_FFFE, 0x8000_0003, 100);
    assert_eq!(d, 100u32.wrapping_sub(5).wrapping_add(0xFFFF));
    // Only masked lanes are summed; no merge from c happens.
    v.mask = 0b10;
    assert_eq!(video_lane(&v, 0x7FFF_FFFE, 0x8000_0003, 100), 100 + 0xFFFF);
    // Wraps modulo 2^32.
    let mut v = video(VideoOp::Add, Simd::X4, false, false, false);
    v.add = true;
    assert_eq!(
        video_lane(&v, 0xFFFF_FFFF, 0xFFFF_FFFF, 0xFFFF_FFFF),
        0xFFFF_FFFFu32.wrapping_add(4 * 0x1FE)
    );
    // vset.add counts matches.
    let mut v = video(VideoOp::Set(CmpOp::Ne), Simd::X4, false, false, false);
    v.add = true;
    assert_eq!(video_lane(&v, 0x0102_0304, 0x0102_0000, 7), 9);
}

#[test]
fn errata_4_extension_per_operand_type() {
    // a signed, b unsigned: 0xFF = -1 (a) vs 0xFF = 255 (b); min picks -1.
    let v = video(VideoOp::Min, Simd::X4, true, true, false);
    assert_eq!(video_lane(&v, 0xFF, 0xFF, 0) & 0xFF, 0xFF);
    let v = video(VideoOp::Min, Simd::X4, true, false, true);
    // a unsigned 255, b signed -1: min = -1 too.
    assert_eq!(video_lane(&v, 0xFF, 0xFF, 0) & 0xFF, 0xFF);
    let v = video(VideoOp::Max, Simd::X4, true, true, false);
    // max(-1, 255) = 255 -> 0xFF; distinguish with absdiff: |-1 - 255| = 256 -> 0x00 truncated.
    assert_eq!(video_lane(&v, 0xFF, 0xFF, 0) & 0xFF, 0xFF);
    let v = video(VideoOp::Absdiff, Simd::X4, false, true, false);
    assert_eq!(video_lane(&v, 0xFF, 0xFF, 0) & 0xFF, 0x00);
    let v = video(VideoOp::Absdiff, Simd::X4, false, false, false);
    assert_eq!(video_lane(&v, 0xFF, 0x01, 0) & 0xFF, 0xFE);
}

#[test]
fn errata_5_sat_clamps_to_destination_range() {
    // Unsigned sources, signed destination: 0xFFFF + 0xFFFF = 131070 clamps to 32767.
    let mut v = video(VideoOp::Add, Simd::X2, true, false, false);
    v.sat = true;
    assert_eq!(video_lane(&v, 0xFFFF, 0xFFFF, 0) & 0xFFFF, 0x7FFF);
    // Signed sources, unsigned destination: -1 + -1 clamps to 0.
    let mut v = video(VideoOp::Add, Simd::X2, false, true, true);
    v.sat = true;
    assert_eq!(video_lane(&v, 0xFFFF, 0xFFFF, 0) & 0xFFFF, 0);
    // 4-way signed destination: -128 - 1 clamps to -128.
    let mut v = video(VideoOp::Sub, Simd::X4, true, true, true);
    v.sat = true;
    assert_eq!(video_lane(&v, 0x80, 0x01, 0) & 0xFF, 0x80);
    // Without .sat it truncates: -129 -> 0x7F.
    v.sat = false;
    assert_eq!(video_lane(&v, 0x80, 0x01, 0) & 0xFF, 0x7F);
}

#[test]
fn errata_7_vavrg_rounds_half_away_from_zero() {
    let v = video(VideoOp::Avrg, Simd::X2, true, true, true);
    // (1 + 2 + 1) >> 1 = 2; (-1 + -2) >> 1 = -2 (arithmetic shift).
    assert_eq!(video_lane(&v, 0xFFFF_0001, 0xFFFE_0002, 0), 0xFFFE_0002);
    // (-1 + 0) >> 1 = -1; (1 + 0 + 1) >> 1 = 1.
    assert_eq!(video_lane(&v, 0x0001_FFFF, 0, 0), 0x0001_FFFF);
}

#[test]
fn errata_8_vset_writes_one_not_all_ones() {
    let v = video(VideoOp::Set(CmpOp::Ge), Simd::X4, false, true, true);
    // Signed: 0x80 (-128) >= 0x7F is false; 0 >= 0 true.
    assert_eq!(video_lane(&v, 0x0000_0080, 0x0000_007F, 0), 0x0101_0100);
}

#[test]
fn errata_11_selectors_pick_from_both_operands() {
    // .h23 on a: lane 1 <- element 2 (b low), lane 0 <- element 3 (b high).
    let mut v = video(VideoOp::Max, Simd::X2, false, false, false);
    v.asel = [3, 2, 0, 0];
    v.bsel = [0, 0, 0, 0];
    assert_eq!(video_lane(&v, 0x0000_0000, 0x1111_2222, 0), 0x2222_1111);
    // .b7654 on a and .b3210 on b swap the roles.
    let mut v = video(VideoOp::Sub, Simd::X4, false, false, false);
    v.asel = [4, 5, 6, 7];
    v.bsel = [0, 1, 2, 3];
    assert_eq!(video_lane(&v, 0x0101_0101, 0x0504_0302, 0), 0x0403_0201);
}

// ---------------------------------------------------------------- set / setp

#[test]
fn errata_13_integer_compares_signed_unsigned() {
    assert!(compare(CmpOp::Lt, Type::S16, 0x8000, 0x0001, false));
    assert!(!compare(CmpOp::Lt, Type::U16, 0x8000, 0x0001, false));
    assert!(compare(CmpOp::Hi, Type::U64, u64::MAX, 0, false));
    assert!(compare(CmpOp::Ne, Type::B32, 1, 2, false));
    assert!(compare(CmpOp::Ge, Type::S64, 0, i64::MIN as u64, false));
}

#[test]
fn float_compare_nan_and_unordered() {
    let nan = 0x7FC0_0000;
    let one = 0x3F80_0000;
    for cmp in [
        CmpOp::Eq,
        CmpOp::Ne,
        CmpOp::Lt,
        CmpOp::Le,
        CmpOp::Gt,
        CmpOp::Ge,
        CmpOp::Num,
    ] {
        assert!(!compare(cmp, Type::F32, nan, one, false), "{cmp:?}");
    }
    for cmp in [
        CmpOp::Equ,
        CmpOp::Neu,
        CmpOp::Ltu,
        CmpOp::Leu,
        CmpOp::Gtu,
        CmpOp::Geu,
        CmpOp::Nan,
    ] {
        assert!(compare(cmp, Type::F32, one, nan, false), "{cmp:?}");
    }
    // -0 == +0, ordered.
    assert!(compare(
        CmpOp::Eq,
        Type::F64,
        0x8000_0000_0000_0000,
        0,
        false
    ));
    assert!(!compare(CmpOp::Neu, Type::F16, 0x8000, 0, false));
    // bf16 NaN (0x7FC1) and f16 infinity (0x7C00, not NaN).
    assert!(compare(CmpOp::Nan, Type::Bf16, 0x7FC1, 0, false));
    assert!(compare(CmpOp::Num, Type::F16, 0x7C00, 0x7C00, false));
    assert!(compare(CmpOp::Lt, Type::F16, 0xFC00, 0x7BFF, false));
}

#[test]
fn errata_14_sm1x_flushes_f32_not_f64() {
    // Smallest positive f32 subnormal vs +0: greater on sm_20, equal on sm_13.
    let mut s = set(CmpOp::Gt, Type::U32, Type::F32);
    assert_eq!(set_lane(&s, SM20, 1, 0, false), 0xFFFF_FFFF);
    assert_eq!(set_lane(&s, Target::SM_13, 1, 0, false), 0);
    // .ftz flushes on any target, sign preserving: -sub == +0.
    s.cmp = CmpOp::Eq;
    s.ftz = true;
    assert_eq!(
        set_lane(&s, Target::SM_90, 0x8000_0001, 0, false),
        0xFFFF_FFFF
    );
    // f64 subnormals survive on sm_13.
    let s = set(CmpOp::Gt, Type::U32, Type::F64);
    assert_eq!(set_lane(&s, Target::SM_13, 1, 0, false), 0xFFFF_FFFF);
    // f16 .ftz flushes f16 subnormals (errata 18).
    let mut s = set(CmpOp::Gt, Type::F16, Type::F16);
    assert_eq!(set_lane(&s, Target::SM_53, 1, 0, false), 0x3C00);
    s.ftz = true;
    assert_eq!(set_lane(&s, Target::SM_53, 1, 0, false), 0);
}

#[test]
fn errata_17_set_true_values_by_destination() {
    let t = |d: Type, s: Type, a: u64, b: u64| {
        set_lane(&set(CmpOp::Eq, d, s), Target::SM_90, a, b, false)
    };
    assert_eq!(t(Type::U32, Type::U32, 1, 1), 0xFFFF_FFFF);
    assert_eq!(t(Type::S32, Type::Bf16, 0x3F80, 0x3F80), 0xFFFF_FFFF);
    assert_eq!(t(Type::U16, Type::F16, 0x3C00, 0x3C00), 0xFFFF);
    assert_eq!(t(Type::S16, Type::F64, 0, 0), 0xFFFF);
    assert_eq!(t(Type::F32, Type::S16, 7, 7), 0x3F80_0000);
    assert_eq!(t(Type::F16, Type::B64, 7, 7), 0x3C00);
    assert_eq!(t(Type::Bf16, Type::F32, 7, 7), 0x3F80);
    // x2 sources: per half.
    assert_eq!(
        t(Type::F16x2, Type::F16x2, 0x3C00_0000, 0x3C00_0001),
        0x3C00_0000
    );
    assert_eq!(
        t(Type::Bf16x2, Type::Bf16x2, 0x1234_0000, 0x1234_0000),
        0x3F80_3F80
    );
    assert_eq!(
        t(Type::U32, Type::Bf16x2, 0x1234_0000, 0x1234_0001),
        0xFFFF_0000
    );
    assert_eq!(
        t(Type::S32, Type::F16x2, 0x1234_0000, 0x4321_0000),
        0x0000_FFFF
    );
    // False is 0 everywhere.
    assert_eq!(t(Type::F32, Type::U32, 1, 2), 0);
}

#[test]
fn set_bool_ops_combine_with_c() {
    let mut s = set(CmpOp::Lt, Type::U32, Type::S32);
    for (op, t_c_to_d) in [
        (BoolOp::And, [false, false, false, true]),
        (BoolOp::Or, [false, true, true, true]),
        (BoolOp::Xor, [false, true, true, false]),
    ] {
        s.bool_op = Some((op, PredSrc::Imm(true)));
        for (i, want) in t_c_to_d.into_iter().enumerate() {
            let (t, c) = (i & 2 != 0, i & 1 != 0);
            let a = if t { 0xFFFF_FFFF } else { 1 }; // -1 < 0 signed
            let d = set_lane(&s, Target::SM_90, a, 0, c);
            assert_eq!(d, if want { 0xFFFF_FFFF } else { 0 }, "{op:?} t={t} c={c}");
        }
    }
}

#[test]
fn setp_q_is_complement_combined() {
    let s = Setp {
        cmp: CmpOp::Gt,
        bool_op: Some((BoolOp::Or, PredSrc::Imm(false))),
        ftz: false,
        ty: Type::S32,
        p: Some(R1),
        q: Some(Some(R2)),
        a: Operand::Reg(R3),
        b: Operand::Reg(R4),
    };
    assert_eq!(setp_lane(&s, Target::SM_90, 3, 2, false), (true, false));
    assert_eq!(setp_lane(&s, Target::SM_90, 3, 2, true), (true, true));
    let s = Setp {
        bool_op: Some((BoolOp::And, PredSrc::Imm(false))),
        ..s
    };
    assert_eq!(setp_lane(&s, Target::SM_90, 3, 2, true), (true, false));
    assert_eq!(setp_lane(&s, Target::SM_90, 3, 2, false), (false, false));
}

// ---------------------------------------------------------------- selp / slct

#[test]
fn errata_16_selp_copies_bits() {
    assert_eq!(selp_lane(0x7FC1_2345, 0, true), 0x7FC1_2345);
    assert_eq!(
        selp_lane(0, 0x8000_0000_0000_0000, false),
        0x8000_0000_0000_0000
    );
}

#[test]
fn errata_15_slct_sign_of_c() {
    let s = slct(Type::B32, Type::F32, false);
    let pick = |s: &Slct, t: Target, c: u32| slct_lane(s, t, 0xAAAA, 0xBBBB, c);
    assert_eq!(pick(&s, SM20, 0x8000_0000), 0xAAAA, "-0.0 >= 0");
    assert_eq!(pick(&s, SM20, 0x7FC0_0000), 0xBBBB, "NaN selects b");
    assert_eq!(
        pick(&s, SM20, 0xFFC0_0000),
        0xBBBB,
        "negative NaN selects b"
    );
    assert_eq!(
        pick(&s, SM20, 0x8000_0001),
        0xBBBB,
        "negative subnormal without ftz"
    );
    assert_eq!(
        pick(&s, Target::SM_13, 0x8000_0001),
        0xAAAA,
        "errata 14: sm_1x flushes"
    );
    let f = slct(Type::B32, Type::F32, true);
    assert_eq!(pick(&f, SM20, 0x8000_0001), 0xAAAA, ".ftz flushes first");
    let i = slct(Type::B32, Type::S32, false);
    assert_eq!(pick(&i, SM20, 0x8000_0000), 0xBBBB, "s32 min is negative");
    assert_eq!(pick(&i, SM20, 0), 0xAAAA);
    // Bits unchanged at 64 bits.
    let s64 = slct(Type::F64, Type::S32, false);
    assert_eq!(
        slct_lane(&s64, SM20, 0xFFF8_0000_0000_0001, 1, 5),
        0xFFF8_0000_0000_0001
    );
}

// ---------------------------------------------------------------- alu

#[test]
fn alu_wraps_and_shifts_at_width() {
    let int = |op, ty| IntArith {
        op,
        sat: false,
        ty,
        d: R1,
        a: Operand::Reg(R2),
        b: Operand::Reg(R3),
        c: None,
    };
    assert_eq!(int_lane(&int(IntOp::Add, Type::U16), 0xFFFF, 1, 0), 0);
    assert_eq!(int_lane(&int(IntOp::Sub, Type::S32), 0, 1, 0), 0xFFFF_FFFF);
    assert_eq!(
        int_lane(
            &int(IntOp::Mul(MulMode::Lo), Type::U32),
            0x1_0001,
            0x1_0001,
            0
        ),
        0x0002_0001
    );
    assert_eq!(alu_lane(AluOp::Shl, Type::B32, 1, 31), 0x8000_0000);
    assert_eq!(alu_lane(AluOp::Shl, Type::B32, 1, 32), 0);
    assert_eq!(alu_lane(AluOp::Shr, Type::S16, 0x8000, 15), 0xFFFF);
    assert_eq!(alu_lane(AluOp::Shr, Type::S16, 0x8000, 100), 0xFFFF);
    assert_eq!(alu_lane(AluOp::Shr, Type::S32, 0x4000_0000, 40), 0);
    assert_eq!(alu_lane(AluOp::Shr, Type::U32, 0x8000_0000, 31), 1);
    assert_eq!(alu_lane(AluOp::Shr, Type::U32, 0x8000_0000, 32), 0);
    assert_eq!(alu_lane(AluOp::Shr, Type::S64, 1 << 63, 63), u64::MAX);
    assert_eq!(alu_lane(AluOp::Xor, Type::B64, u64::MAX, 1), u64::MAX - 1);
    assert_eq!(alu_lane(AluOp::Mov, Type::U16, 0x1_2345, 0), 0x2345);
}

// ---------------------------------------------------------------- warp lifting

fn ctx() -> ExecCtx {
    ExecCtx {
        target: Target::SM_90,
        warp_id: 7,
    }
}

#[test]
fn execute_respects_active_mask_and_guard() {
    let g = RegId(4);
    let mut regs = WarpRegs::new(5);
    for l in 0..WARP_SIZE {
        regs.set_lane(R2, l, l as u64);
        regs.set_lane(R3, l, 100);
        regs.set_lane(R1, l, 0xDEAD);
        regs.set_lane(g, l, (l % 2) as u64);
    }
    let add = IntArith {
        op: IntOp::Add,
        sat: false,
        ty: Type::U32,
        d: R1,
        a: Operand::Reg(R2),
        b: Operand::Reg(R3),
        c: None,
    };
    let inst = Instruction {
        guard: Some(Guard {
            reg: g,
            negate: true,
        }),
        op: Op::Int(add),
    };
    execute(&inst, &ctx(), &mut regs, 0x0000_FFFF);
    for l in 0..WARP_SIZE {
        let want = if l < 16 && l % 2 == 0 {
            100 + l as u64
        } else {
            0xDEAD
        };
        assert_eq!(regs.lane(R1, l), want, "lane {l}");
    }
}

#[test]
fn execute_special_registers_and_immediates() {
    let mut regs = WarpRegs::new(1);
    let mov = |a| Instruction {
        guard: None,
        op: Op::Alu(Alu {
            op: AluOp::Mov,
            ty: Type::U32,
            d: R1,
            a,
            b: None,
        }),
    };
    execute(
        &mov(Operand::Special(SpecialReg::LaneId)),
        &ctx(),
        &mut regs,
        u32::MAX,
    );
    assert!((0..WARP_SIZE).all(|l| regs.lane(R1, l) == l as u64));
    execute(
        &mov(Operand::Special(SpecialReg::WarpId)),
        &ctx(),
        &mut regs,
        u32::MAX,
    );
    assert!((0..WARP_SIZE).all(|l| regs.lane(R1, l) == 7));
    let selp = Selp {
        ty: Type::U16,
        d: R1,
        a: Operand::Imm(0x1_0005),
        b: Operand::Imm(9),
        c: PredSrc::Imm(true),
    };
    execute(
        &Instruction {
            guard: None,
            op: Op::Selp(selp),
        },
        &ctx(),
        &mut regs,
        1,
    );
    assert_eq!(regs.lane(R1, 0), 5, "immediate masked to the operand width");
}

#[test]
fn execute_reads_sources_at_operand_width_and_writes_zero_extended() {
    let mut regs = WarpRegs::new(4);
    regs.set_lane(R2, 0, 0xFFFF_FFFF_0000_8000); // stale high bits from a 64-bit write
    regs.set_lane(R3, 0, 0x0001);
    regs.set_lane(R1, 0, u64::MAX);
    let s = Set {
        cmp: CmpOp::Lt,
        ..set(CmpOp::Lt, Type::U16, Type::S16)
    };
    execute(
        &Instruction {
            guard: None,
            op: Op::Set(s),
        },
        &ctx(),
        &mut regs,
        1,
    );
    assert_eq!(
        regs.lane(R1, 0),
        0xFFFF,
        "s16 0x8000 < 1, written as 16 bits"
    );
}

#[test]
fn execute_setp_sink_and_negated_c() {
    let (p1, p2, p3) = (RegId(0), RegId(1), RegId(2));
    let mut regs = WarpRegs::new(5);
    regs.set_lane(p1, 0, 1);
    regs.set_lane(p2, 0, 1);
    regs.set_lane(RegId(3), 0, 5);
    regs.set_lane(RegId(4), 0, 5);
    let s = Setp {
        cmp: CmpOp::Eq,
        bool_op: Some((
            BoolOp::And,
            PredSrc::Reg {
                reg: p3,
                negate: true,
            },
        )),
        ftz: false,
        ty: Type::B32,
        p: None,
        q: Some(Some(p2)),
        a: Operand::Reg(RegId(3)),
        b: Operand::Reg(RegId(4)),
    };
    execute(
        &Instruction {
            guard: None,
            op: Op::Setp(s),
        },
        &ctx(),
        &mut regs,
        1,
    );
    // t = 1, c = !0 = 1, q = !t & c = 0; p1 (sink) untouched.
    assert_eq!((regs.lane(p1, 0), regs.lane(p2, 0)), (1, 0));
}

#[test]
fn execute_video_with_aliased_destination() {
    // d == c: sources are read before any lane is written.
    let mut regs = WarpRegs::new(4);
    regs.set_lane(R2, 3, 0x0001_0001);
    regs.set_lane(R3, 3, 0x0002_0002);
    regs.set_lane(R1, 3, 0x1234_5678);
    let mut v = video(VideoOp::Add, Simd::X2, false, false, false);
    v.c = R1;
    v.mask = 0b10;
    execute(
        &Instruction {
            guard: None,
            op: Op::Video(v),
        },
        &ctx(),
        &mut regs,
        1 << 3,
    );
    assert_eq!(regs.lane(R1, 3), 0x0003_5678);
    assert_eq!(regs.lane(R1, 0), 0, "inactive lane untouched");
}

// ---------------------------------------------------------------- public vectors

fn reg(s: &mut Symbols, n: &str) -> RegId {
    s.intern(n)
}
fn op(s: &mut Symbols, n: &str) -> Operand {
    Operand::Reg(s.intern(n))
}
fn guard(s: &mut Symbols, negate: bool) -> Option<Guard> {
    Some(Guard {
        reg: s.intern("%g"),
        negate,
    })
}

/// A hand-translated video instruction of the sample: `[d, a, b, c]` names.
#[allow(clippy::too_many_arguments)]
fn vid(
    s: &mut Symbols,
    g: Option<bool>,
    op: VideoOp,
    simd: Simd,
    signs: [bool; 3],
    sat: bool,
    add: bool,
    mask: u8,
    asel: [u8; 4],
    bsel: [u8; 4],
    names: [&str; 4],
) -> Instruction {
    let guard = g.and_then(|n| guard(s, n));
    let mut v = video(op, simd, signs[0], signs[1], signs[2]);
    v.sat = sat;
    v.add = add;
    v.mask = mask;
    v.asel = asel;
    v.bsel = bsel;
    v.d = reg(s, names[0]);
    v.a = reg(s, names[1]);
    v.b = reg(s, names[2]);
    v.c = reg(s, names[3]);
    Instruction {
        guard,
        op: Op::Video(v),
    }
}

const U: bool = false;
const S: bool = true;
const RS: [&str; 4] = ["%r1", "%r2", "%r3", "%r4"];
const RC1: [&str; 4] = ["%r1", "%r2", "%r3", "%r1"];

fn hset(
    s: &mut Symbols,
    g: Option<bool>,
    cmp: CmpOp,
    b: Option<(BoolOp, bool)>,
    dtype: Type,
    stype: Type,
) -> Instruction {
    let guard = g.and_then(|n| guard(s, n));
    let d = reg(s, "%d");
    let (a, bb) = (op(s, "%a"), op(s, "%b"));
    let bool_op = b.map(|(o, negate)| {
        (
            o,
            PredSrc::Reg {
                reg: reg(s, "%p"),
                negate,
            },
        )
    });
    Instruction {
        guard,
        op: Op::Set(Set {
            cmp,
            bool_op,
            ftz: false,
            dtype,
            stype,
            d,
            a,
            b: bb,
        }),
    }
}

fn slct_i(s: &mut Symbols, ftz: bool, dtype: Type, ctype: Type) -> Instruction {
    let d = reg(s, "%d");
    let (a, b, c) = (op(s, "%a"), op(s, "%b"), op(s, "%c"));
    Instruction {
        guard: None,
        op: Op::Slct(Slct {
            ftz,
            dtype,
            ctype,
            d,
            a,
            b,
            c,
        }),
    }
}

fn setp_i(
    s: &mut Symbols,
    cmp: CmpOp,
    b: Option<(BoolOp, bool)>,
    ftz: bool,
    ty: Type,
    p: Option<&str>,
    q: Option<Option<&str>>,
) -> Instruction {
    let p = p.map(|n| reg(s, n));
    let q = q.map(|o| o.map(|n| reg(s, n)));
    let (a, bb) = (op(s, "%a"), op(s, "%b"));
    let bool_op = b.map(|(o, negate)| {
        (
            o,
            PredSrc::Reg {
                reg: reg(s, "%p3"),
                negate,
            },
        )
    });
    Instruction {
        guard: None,
        op: Op::Setp(Setp {
            cmp,
            bool_op,
            ftz,
            ty,
            p,
            q,
            a,
            b: bb,
        }),
    }
}

/// Each sample line's instruction, translated by hand from its text
/// (selectors `.hxy`/`.bxyzw` list lane 1/3 first, so the arrays are reversed).
fn sample_instruction(ptx: &str, s: &mut Symbols) -> Option<Instruction> {
    use CmpOp::*;
    use Simd::{X2, X4};
    use VideoOp::*;
    let d2 = [0, 1, 0, 0];
    let d2b = [2, 3, 0, 0];
    let d4 = [0, 1, 2, 3];
    let d4b = [4, 5, 6, 7];
    Some(match ptx {
        "vabsdiff2.s32.u32.u32.add %r1.h1, %r2, %r3.h03, %r4;" => vid(
            s,
            None,
            Absdiff,
            X2,
            [S, U, U],
            false,
            true,
            0b10,
            d2,
            [3, 0, 0, 0],
            RS,
        ),
        "vavrg2.u32.s32.s32 %r1, %r2, %r3, %r4;" => vid(
            s,
            None,
            Avrg,
            X2,
            [U, S, S],
            false,
            false,
            0b11,
            d2,
            d2b,
            RS,
        ),
        "vmin2.s32.s32.s32 %r1.h0, %r2, %r3.h12, %r4;" => vid(
            s,
            None,
            Min,
            X2,
            [S, S, S],
            false,
            false,
            0b01,
            d2,
            [2, 1, 0, 0],
            RS,
        ),
        "@!%g vadd2.u32.u32.s32 %r1.h0, %r2, %r3, %r4;" => vid(
            s,
            Some(true),
            Add,
            X2,
            [U, U, S],
            false,
            false,
            0b01,
            d2,
            d2b,
            RS,
        ),
        "@!%g vmax2.s32.s32.u32 %r1.h1, %r2.h12, %r3, %r4;" => vid(
            s,
            Some(true),
            Max,
            X2,
            [S, S, U],
            false,
            false,
            0b10,
            [2, 1, 0, 0],
            d2b,
            RS,
        ),
        "vmax2.s32.u32.s32.sat %r1, %r2.h00, %r3, %r4;" => vid(
            s,
            None,
            Max,
            X2,
            [S, U, S],
            true,
            false,
            0b11,
            [0, 0, 0, 0],
            d2b,
            RS,
        ),
        "@%g vset2.s32.s32.eq.add %r1.h1, %r2.h21, %r3, %r4;" => vid(
            s,
            Some(false),
            Set(Eq),
            X2,
            [U, S, S],
            false,
            true,
            0b10,
            [1, 2, 0, 0],
            d2b,
            RS,
        ),
        "vset2.s32.s32.ge %r1.h1, %r2, %r3.h22, %r4;" => vid(
            s,
            None,
            Set(Ge),
            X2,
            [U, S, S],
            false,
            false,
            0b10,
            d2,
            [2, 2, 0, 0],
            RS,
        ),
        "vset2.s32.u32.eq %r1, %r2.h12, %r3.h10, %r1;" => vid(
            s,
            None,
            Set(Eq),
            X2,
            [U, S, U],
            false,
            false,
            0b11,
            [2, 1, 0, 0],
            [0, 1, 0, 0],
            RC1,
        ),
        "vmax4.u32.u32.s32 %r1.b321, %r2, %r3, %r4;" => vid(
            s,
            None,
            Max,
            X4,
            [U, U, S],
            false,
            false,
            0b1110,
            d4,
            d4b,
            RS,
        ),
        "vavrg4.s32.s32.s32 %r1.b31, %r2.b2721, %r3.b0243, %r4;" => vid(
            s,
            None,
            Avrg,
            X4,
            [S, S, S],
            false,
            false,
            0b1010,
            [1, 2, 7, 2],
            [3, 4, 2, 0],
            RS,
        ),
        "vsub4.s32.u32.u32.add %r1.b321, %r2, %r3.b3272, %r4;" => vid(
            s,
            None,
            Sub,
            X4,
            [S, U, U],
            false,
            true,
            0b1110,
            d4,
            [2, 7, 2, 3],
            RS,
        ),
        "vsub4.u32.s32.u32.sat %r1.b0, %r2, %r3, %r1;" => vid(
            s,
            None,
            Sub,
            X4,
            [U, S, U],
            true,
            false,
            0b0001,
            d4,
            d4b,
            RC1,
        ),
        "vmax4.s32.s32.u32.add %r1, %r2.b3106, %r3.b5654, %r4;" => vid(
            s,
            None,
            Max,
            X4,
            [S, S, U],
            false,
            true,
            0b1111,
            [6, 0, 1, 3],
            [4, 5, 6, 5],
            RS,
        ),
        "vset4.u32.u32.ne.add %r1, %r2.b7550, %r3, %r1;" => vid(
            s,
            None,
            Set(Ne),
            X4,
            [U, U, U],
            false,
            true,
            0b1111,
            [0, 5, 5, 7],
            d4b,
            RC1,
        ),
        "vset4.u32.s32.lt.add %r1, %r2.b1015, %r3.b7130, %r4;" => vid(
            s,
            None,
            Set(Lt),
            X4,
            [U, U, S],
            false,
            true,
            0b1111,
            [5, 1, 0, 1],
            [0, 3, 1, 7],
            RS,
        ),
        "vset4.s32.s32.lt.add %r1.b1, %r2.b1503, %r3, %r4;" => vid(
            s,
            None,
            Set(Lt),
            X4,
            [U, S, S],
            false,
            true,
            0b0010,
            [3, 0, 5, 1],
            d4b,
            RS,
        ),
        "vmin2.u32.u32.u32.add %r1.h0, %r2.h31, %r3.h20, %r1;" => vid(
            s,
            None,
            Min,
            X2,
            [U, U, U],
            false,
            true,
            0b01,
            [1, 3, 0, 0],
            [0, 2, 0, 0],
            RC1,
        ),
        "@%g set.geu.and.f32.f32 %d, %a, %b, %p;" => hset(
            s,
            Some(false),
            Geu,
            Some((BoolOp::And, false)),
            Type::F32,
            Type::F32,
        ),
        "set.ne.and.f32.s16 %d, %a, %b, %p;" => hset(
            s,
            None,
            Ne,
            Some((BoolOp::And, false)),
            Type::F32,
            Type::S16,
        ),
        "set.ge.f32.u32 %d, %a, %b;" => hset(s, None, Ge, None, Type::F32, Type::U32),
        "setp.eq.f64 _|%p2, %a, %b;" => {
            setp_i(s, Eq, None, false, Type::F64, None, Some(Some("%p2")))
        }
        "setp.gtu.or.ftz.f32 _|%p2, %a, %b, !%p3;" => setp_i(
            s,
            Gtu,
            Some((BoolOp::Or, true)),
            true,
            Type::F32,
            None,
            Some(Some("%p2")),
        ),
        "setp.lt.and.s32 %p1|%p2, %a, %b, !%p3;" => setp_i(
            s,
            Lt,
            Some((BoolOp::And, true)),
            false,
            Type::S32,
            Some("%p1"),
            Some(Some("%p2")),
        ),
        "selp.f32 %d, %a, %b, %p;" => {
            let d = reg(s, "%d");
            let (a, b) = (op(s, "%a"), op(s, "%b"));
            let c = PredSrc::Reg {
                reg: reg(s, "%p"),
                negate: false,
            };
            Instruction {
                guard: None,
                op: Op::Selp(Selp {
                    ty: Type::F32,
                    d,
                    a,
                    b,
                    c,
                }),
            }
        }
        "slct.ftz.u32.f32 %d, %a, %b, %c;" => slct_i(s, true, Type::U32, Type::F32),
        "slct.f64.f32 %d, %a, %b, %c;" => slct_i(s, false, Type::F64, Type::F32),
        "slct.ftz.s16.f32 %d, %a, %b, %c;" => slct_i(s, true, Type::S16, Type::F32),
        "set.le.f16x2.f16x2 %d, %a, %b;" => hset(s, None, Le, None, Type::F16x2, Type::F16x2),
        "@%g set.eq.u32.bf16x2 %d, %a, %b;" => {
            hset(s, Some(false), Eq, None, Type::U32, Type::Bf16x2)
        }
        "set.eq.xor.s32.bf16x2 %d, %a, %b, !%p;" => hset(
            s,
            None,
            Eq,
            Some((BoolOp::Xor, true)),
            Type::S32,
            Type::Bf16x2,
        ),
        "set.eq.xor.bf16x2.bf16x2 %d, %a, %b, %p;" => hset(
            s,
            None,
            Eq,
            Some((BoolOp::Xor, false)),
            Type::Bf16x2,
            Type::Bf16x2,
        ),
        "set.eq.and.u32.bf16x2 %d, %a, %b, %p;" => hset(
            s,
            None,
            Eq,
            Some((BoolOp::And, false)),
            Type::U32,
            Type::Bf16x2,
        ),
        "set.eq.and.bf16.b64 %d, %a, %b, %p;" => hset(
            s,
            None,
            Eq,
            Some((BoolOp::And, false)),
            Type::Bf16,
            Type::B64,
        ),
        "set.ge.xor.f16.s32 %d, %a, %b, %p;" => hset(
            s,
            None,
            Ge,
            Some((BoolOp::Xor, false)),
            Type::F16,
            Type::S32,
        ),
        _ => return None,
    })
}

/// Stand-in for the parser: the sample table, with the video target gate.
fn sample_parse(ptx: &str, s: &mut Symbols, t: Target) -> Result<Instruction, IsaError> {
    let inst = sample_instruction(ptx, s).ok_or_else(|| IsaError::Invalid {
        col: 1,
        token: ptx.into(),
        reason: InvalidReason::UnknownInstruction(ptx.into()),
    })?;
    if matches!(inst.op, Op::Video(_)) && !t.supports(Feature::Video) {
        return Err(IsaError::Unsupported {
            what: "video".into(),
            need: Requirement::Sm(30),
        });
    }
    Ok(inst)
}

#[test]
fn public_sample_hand_translated() {
    // 36 lines copied verbatim from shared/conformance/public.jsonl (family keys dropped).
    let text = include_str!("public_sample.jsonl");
    let report = run_vectors_with(text, sample_parse);
    let problems: Vec<String> = report.problems().map(|r| r.to_string()).collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert_eq!(report.summary_line(), "36 passed, 0 failed");
}

#[test]
fn public_sample_detects_a_wrong_simulator() {
    // Same vectors with vavrg mis-translated as vadd: the runner must report failures.
    let text = include_str!("public_sample.jsonl");
    let report = run_vectors_with(text, |ptx, s, t| {
        let mut inst = sample_parse(ptx, s, t)?;
        if let Op::Video(v) = &mut inst.op {
            if v.op == VideoOp::Avrg {
                v.op = VideoOp::Add;
            }
        }
        Ok(inst)
    });
    assert_eq!(report.failed(), 2);
    assert!(report
        .results
        .iter()
        .all(|r| r.outcome == Outcome::Passed || r.ptx.starts_with("vavrg")));
}

/// End to end over the whole public sample with the real parser. Fails until
/// the parser (issue 2, "parse") lands; run at integration.
#[test]
fn conform_public() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/conformance/public.jsonl"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let report = sim_isa::conform::run_vectors(&text);
    let problems: Vec<String> = report.problems().map(|r| r.to_string()).collect();
    assert!(
        problems.is_empty(),
        "{}\n{}",
        problems.join("\n"),
        report.summary_line()
    );
}

// ---------------------------------------------------------------- properties

/// Lane functions against independent models written from the spec text
/// (different formulation: i64 element vectors, `f64::round` for vavrg,
/// native float operators for compares).
mod props {
    use super::*;
    use proptest::prelude::*;

    fn video_model(v: &Video, a: u32, b: u32, c: u32) -> u32 {
        let n = v.simd.lanes();
        let w = v.simd.lane_bits();
        let m = (1i64 << w) - 1;
        let element = |k: usize, signed: bool| -> i64 {
            let src = if k < n { a } else { b };
            let raw = (i64::from(src) >> ((k % n) as u32 * w)) & m;
            if signed && raw > m / 2 {
                raw - (m + 1)
            } else {
                raw
            }
        };
        let mut t = vec![0i64; n];
        for (i, ti) in t.iter_mut().enumerate() {
            let x = element(v.asel[i] as usize, v.asigned);
            let y = element(v.bsel[i] as usize, v.bsigned);
            *ti = match v.op {
                VideoOp::Add => x + y,
                VideoOp::Sub => x - y,
                VideoOp::Avrg => ((x + y) as f64 / 2.0).round() as i64,
                VideoOp::Absdiff => (x - y).abs(),
                VideoOp::Min => x.min(y),
                VideoOp::Max => x.max(y),
                VideoOp::Set(CmpOp::Eq) => (x == y) as i64,
                VideoOp::Set(CmpOp::Ne) => (x != y) as i64,
                VideoOp::Set(CmpOp::Lt) => (x < y) as i64,
                VideoOp::Set(CmpOp::Le) => (x <= y) as i64,
                VideoOp::Set(CmpOp::Gt) => (x > y) as i64,
                VideoOp::Set(_) => (x >= y) as i64,
            };
            if v.sat {
                let (lo, hi) = if v.dsigned {
                    (-(m + 1) / 2, m / 2)
                } else {
                    (0, m)
                };
                *ti = (*ti).max(lo).min(hi);
            }
        }
        let masked = |i: usize| v.mask & (1 << i) != 0;
        if v.add {
            let sum: i64 = (0..n).filter(|&i| masked(i)).map(|i| t[i]).sum();
            (i64::from(c) + sum).rem_euclid(1 << 32) as u32
        } else {
            (0..n)
                .map(|i| {
                    let lane = if masked(i) {
                        t[i] & m
                    } else {
                        (i64::from(c) >> (i as u32 * w)) & m
                    };
                    (lane as u32) << (i as u32 * w)
                })
                .fold(0, |d, l| d | l)
        }
    }

    fn arb_video() -> impl Strategy<Value = Video> {
        let ops = prop_oneof![
            Just(VideoOp::Add),
            Just(VideoOp::Sub),
            Just(VideoOp::Avrg),
            Just(VideoOp::Absdiff),
            Just(VideoOp::Min),
            Just(VideoOp::Max),
            prop::sample::select(vec![
                CmpOp::Eq,
                CmpOp::Ne,
                CmpOp::Lt,
                CmpOp::Le,
                CmpOp::Gt,
                CmpOp::Ge
            ])
            .prop_map(VideoOp::Set),
        ];
        (
            ops,
            any::<bool>(),
            any::<[bool; 5]>(),
            1u8..16,
            any::<[u8; 8]>(),
        )
            .prop_map(|(op, x4, [ds, as_, bs, sat, add], mask, sels)| {
                let simd = if x4 { Simd::X4 } else { Simd::X2 };
                let n = simd.lanes();
                let mut v = video(op, simd, ds, as_, bs);
                let is_set = matches!(op, VideoOp::Set(_));
                v.dsigned = ds && !is_set;
                // .sat with .add is rejected (errata 6); vset has no .sat (errata 8).
                v.add = add;
                v.sat = sat && !add && !is_set;
                v.mask = mask & ((1 << n) - 1);
                if v.mask == 0 {
                    v.mask = 1;
                }
                for i in 0..n {
                    v.asel[i] = sels[i] % (2 * n as u8);
                    v.bsel[i] = sels[4 + i] % (2 * n as u8);
                }
                v
            })
    }

    fn arb_f32_bits() -> impl Strategy<Value = u32> {
        prop_oneof![
            any::<u32>(),
            prop::sample::select(vec![
                0,
                0x8000_0000,
                1,
                0x8000_0001,
                0x7F80_0000,
                0xFF80_0000,
                0x7FC0_0000,
                0x3F80_0000
            ]),
            (0u32..0x80_0000, any::<bool>()).prop_map(|(m, s)| m | (u32::from(s) << 31)),
        ]
    }

    fn f32_model(cmp: CmpOp, x: f32, y: f32) -> bool {
        let un = x.is_nan() || y.is_nan();
        #[allow(clippy::neg_cmp_op_on_partial_ord)]
        match cmp {
            CmpOp::Eq => x == y,
            CmpOp::Ne => !un && x != y,
            CmpOp::Lt | CmpOp::Lo => x < y,
            CmpOp::Le | CmpOp::Ls => x <= y,
            CmpOp::Gt | CmpOp::Hi => x > y,
            CmpOp::Ge | CmpOp::Hs => x >= y,
            CmpOp::Equ => !(x != y) || un,
            CmpOp::Neu => x != y,
            CmpOp::Ltu => !(x >= y),
            CmpOp::Leu => !(x > y),
            CmpOp::Gtu => !(x <= y),
            CmpOp::Geu => !(x < y),
            CmpOp::Num => !un,
            CmpOp::Nan => un,
        }
    }

    fn flush32(x: u32) -> f32 {
        let f = f32::from_bits(x);
        if f.is_subnormal() {
            0.0f32.copysign(f)
        } else {
            f
        }
    }

    proptest! {
        #[test]
        fn video_lane_matches_model(v in arb_video(), a: u32, b: u32, c: u32) {
            prop_assert_eq!(video_lane(&v, a, b, c), video_model(&v, a, b, c), "{:?}", v);
        }

        #[test]
        fn f32_compare_matches_native(cmp in prop::sample::select(CmpOp::ALL.to_vec()),
                                      a in arb_f32_bits(), b in arb_f32_bits(), ftz: bool) {
            let (x, y) = if ftz { (flush32(a), flush32(b)) } else { (f32::from_bits(a), f32::from_bits(b)) };
            prop_assert_eq!(compare(cmp, Type::F32, a.into(), b.into(), ftz), f32_model(cmp, x, y));
        }

        #[test]
        fn f16_bf16_compare_match_half_crate(cmp in prop::sample::select(CmpOp::ALL.to_vec()), a: u16, b: u16) {
            let (x, y) = (half::f16::from_bits(a).to_f32(), half::f16::from_bits(b).to_f32());
            prop_assert_eq!(compare(cmp, Type::F16, a.into(), b.into(), false), f32_model(cmp, x, y));
            let (x, y) = (half::bf16::from_bits(a).to_f32(), half::bf16::from_bits(b).to_f32());
            prop_assert_eq!(compare(cmp, Type::Bf16, a.into(), b.into(), false), f32_model(cmp, x, y));
        }

        #[test]
        fn int_compare_matches_native(a: u64, b: u64) {
            use std::cmp::Ordering;
            let cases: [(Type, i128, i128); 6] = [
                (Type::S16, i128::from(a as u16 as i16), i128::from(b as u16 as i16)),
                (Type::U16, i128::from(a as u16), i128::from(b as u16)),
                (Type::S32, i128::from(a as u32 as i32), i128::from(b as u32 as i32)),
                (Type::U32, i128::from(a as u32), i128::from(b as u32)),
                (Type::S64, i128::from(a as i64), i128::from(b as i64)),
                (Type::U64, i128::from(a), i128::from(b)),
            ];
            for (ty, x, y) in cases {
                let m = if ty.bits() == 64 { u64::MAX } else { (1 << ty.bits()) - 1 };
                let o = x.cmp(&y);
                for (cmp, want) in [
                    (CmpOp::Eq, o == Ordering::Equal),
                    (CmpOp::Ne, o != Ordering::Equal),
                    (CmpOp::Lt, o == Ordering::Less),
                    (CmpOp::Le, o != Ordering::Greater),
                    (CmpOp::Gt, o == Ordering::Greater),
                    (CmpOp::Ge, o != Ordering::Less),
                ] {
                    prop_assert_eq!(compare(cmp, ty, a & m, b & m, false), want, "{:?} {:?}", ty, cmp);
                }
                prop_assert_eq!(compare(CmpOp::Lo, ty, a & m, b & m, false), (a & m) < (b & m));
                prop_assert_eq!(compare(CmpOp::Hs, ty, a & m, b & m, false), (a & m) >= (b & m));
            }
        }

        #[test]
        fn execute_writes_exactly_active_guarded_lanes(active: u32, guard_bits: u32, negate: bool,
                                                       a: [u32; 32], before: [u32; 32]) {
            let g = RegId(3);
            let mut regs = WarpRegs::new(4);
            for l in 0..WARP_SIZE {
                regs.set_lane(R2, l, a[l].into());
                regs.set_lane(R3, l, 3);
                regs.set_lane(R1, l, before[l].into());
                regs.set_lane(g, l, u64::from(guard_bits >> l & 1));
            }
            let inst = Instruction {
                guard: Some(Guard { reg: g, negate }),
                op: Op::Alu(Alu { op: AluOp::Shl, ty: Type::B32, d: R1, a: Operand::Reg(R2), b: Some(Operand::Reg(R3)) }),
            };
            execute(&inst, &ctx(), &mut regs, active);
            let exec = active & if negate { !guard_bits } else { guard_bits };
            for l in 0..WARP_SIZE {
                let want = if exec >> l & 1 == 1 { u64::from(a[l] << 3) } else { u64::from(before[l]) };
                prop_assert_eq!(regs.lane(R1, l), want, "lane {}", l);
            }
        }

        #[test]
        fn slct_f32_matches_native(c in arb_f32_bits(), ftz: bool) {
            let s = slct(Type::B32, Type::F32, ftz);
            let x = if ftz { flush32(c) } else { f32::from_bits(c) };
            let want = if x >= 0.0 { 1 } else { 2 };
            prop_assert_eq!(slct_lane(&s, SM20, 1, 2, c), want);
        }
    }
}

#[test]
fn setp_x2_writes_low_half_to_p_and_high_half_to_q() {
    // Half-precision setp (PTX 9.7.7.2): p from the low halves, q from the high halves.
    let s = Setp {
        cmp: CmpOp::Lt,
        bool_op: None,
        ftz: false,
        ty: Type::F16x2,
        p: Some(R1),
        q: Some(Some(R2)),
        a: Operand::Reg(R3),
        b: Operand::Reg(R4),
    };
    // low: 1.0 < 2.0; high: 2.0 < 1.0 is false.
    assert_eq!(
        setp_lane(&s, Target::SM_53, 0x4000_3C00, 0x3C00_4000, false),
        (true, false)
    );
    let s = Setp {
        ty: Type::Bf16x2,
        bool_op: Some((BoolOp::Or, PredSrc::Imm(true))),
        ..s
    };
    assert_eq!(setp_lane(&s, Target::SM_90, 0, 0, true), (true, true));
}

/// Half-precision setp (PTX 9.7.7.2), parsed and executed end to end through
/// the fast path: for x2 sources `p` compares the low halves and `q` the high
/// halves; scalar f16/bf16 compare as numbers (NaN unordered).
#[test]
fn half_precision_setp_end_to_end() {
    let run = |text: &str, a: u64, b: u64| -> (bool, bool) {
        let mut syms = Symbols::new();
        let inst = parse::parse_for_target(text, &mut syms, Target::SM_90, None).unwrap();
        let mut regs = WarpRegs::new(syms.len());
        let (ra, rb) = (syms.get("%a").unwrap(), syms.get("%b").unwrap());
        regs.set_lane(ra, 0, a);
        regs.set_lane(rb, 0, b);
        let ctx = ExecCtx {
            target: Target::SM_90,
            warp_id: 0,
        };
        execute(&inst, &ctx, &mut regs, 1);
        let p = syms.get("%p").is_some_and(|r| regs.lane(r, 0) == 1);
        let q = syms.get("%q").is_some_and(|r| regs.lane(r, 0) == 1);
        (p, q)
    };
    // f16x2: a = (lo 1.0, hi 3.0), b = (2.0, 2.0): 1 < 2 true, 3 < 2 false.
    assert_eq!(
        run("setp.lt.f16x2 %p|%q, %a, %b;", 0x4200_3C00, 0x4000_4000),
        (true, false)
    );
    // bf16x2: a = (lo 3.0, hi 1.0), b = (2.0, 2.0).
    assert_eq!(
        run("setp.lt.bf16x2 %p|%q, %a, %b;", 0x3F80_4040, 0x4000_4000),
        (false, true)
    );
    // Scalar f16: -0.0 == +0.0; NaN is unordered.
    assert_eq!(
        run("setp.eq.f16 %p|%q, %a, %b;", 0x8000, 0x0000),
        (true, false)
    );
    assert!(run("setp.ltu.f16 %p, %a, %b;", 0x7E00, 0x3C00).0);
    assert!(!run("setp.lt.f16 %p, %a, %b;", 0x7E00, 0x3C00).0);
    // bf16 scalar: 1.0 < 2.0.
    assert!(run("setp.lt.bf16 %p, %a, %b;", 0x3F80, 0x4000).0);
}
