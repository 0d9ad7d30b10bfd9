//! Execution semantics: errata edge cases on the scalar lane functions and
//! warp lifting (active mask, guard, widths). The lane functions against
//! independent models are in `lane_model.rs`; a public sample run with
//! hand-built instructions in `public_sample.rs`.

use sim_isa::exec::{
    alu_lane, compare, int_lane, selp_lane, set_lane, setp_lane, slct_lane, video_lane,
};
use sim_isa::*;

pub const R1: RegId = RegId(0);
pub const R2: RegId = RegId(1);
pub const R3: RegId = RegId(2);
pub const R4: RegId = RegId(3);

/// A video instruction with the default selectors and mask of its width.
pub fn video(op: VideoOp, simd: Simd, dsigned: bool, asigned: bool, bsigned: bool) -> Video {
    Video {
        dsigned,
        asigned,
        bsigned,
        ..Video::plain(op, simd, R1, R2, R3, R4)
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

pub fn slct(dtype: Type, ctype: Type, ftz: bool) -> Slct {
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

pub const SM20: Target = Target {
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
    // eq ne lt le gt ge (`CmpOp::ALL`'s first six) and num.
    for &cmp in CmpOp::ALL[..6].iter().chain(&[CmpOp::Num]) {
        assert!(!compare(cmp, Type::F32, nan, one, false), "{cmp:?}");
    }
    // equ neu ltu leu gtu geu (`CmpOp::ALL[10..16]`) and nan.
    for &cmp in CmpOp::ALL[10..16].iter().chain(&[CmpOp::Nan]) {
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
        relu: false,
        ty,
        bty: ty,
        d: R1,
        a: Operand::Reg(R2),
        b: Some(Operand::Reg(R3)),
        c: None,
        carry: None,
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

pub fn ctx() -> ExecCtx {
    ExecCtx::new(Target::SM_90, 7)
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
        relu: false,
        ty: Type::U32,
        bty: Type::U32,
        d: R1,
        a: Operand::Reg(R2),
        b: Some(Operand::Reg(R3)),
        c: None,
        carry: None,
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

/// Every special register read for a whole warp is the lane-by-lane
/// read, on blocks whose rows and planes break inside a warp.
#[test]
fn special_registers_of_a_warp_are_each_lanes() {
    let mut all = vec![
        SpecialReg::LaneId,
        SpecialReg::WarpId,
        SpecialReg::SmId,
        SpecialReg::NsmId,
        SpecialReg::NwarpId,
        SpecialReg::GridId,
        SpecialReg::Clock,
        SpecialReg::ClockHi,
        SpecialReg::Clock64,
        SpecialReg::GlobalTimer,
        SpecialReg::LanemaskEq,
        SpecialReg::LanemaskLe,
        SpecialReg::LanemaskLt,
        SpecialReg::LanemaskGe,
        SpecialReg::LanemaskGt,
        SpecialReg::DynamicSmemSize,
        SpecialReg::TotalSmemSize,
        SpecialReg::EnvReg(1),
        SpecialReg::EnvReg(31),
    ];
    for k in 0..3 {
        all.extend([
            SpecialReg::Tid(k),
            SpecialReg::Ntid(k),
            SpecialReg::Ctaid(k),
            SpecialReg::Nctaid(k),
        ]);
    }
    let shapes = [
        (32, [5, 3, 4]),
        (0, [32, 8, 1]),
        (224, [32, 8, 1]),
        (64, [7, 1, 20]),
        (992, [1024, 1, 1]),
        (0, [1, 1, 64]),
        (96, [2, 2, 32]),
    ];
    for (first_thread, ntid) in shapes {
        let t = ThreadCtx {
            first_thread,
            ntid,
            ctaid: [7, 8, 9],
            nctaid: [10, 11, 12],
            smid: 3,
            clock: 0x1_2345_6789,
            smem: [16, 48],
            envreg: std::array::from_fn(|n| 100 + n as u32),
            ..ThreadCtx::default()
        };
        for &s in &all {
            let each: Vec<u64> = (0..32).map(|l| t.special(s, l, 5)).collect();
            assert_eq!(t.special_lanes(s, 5).to_vec(), each, "{s:?} {ntid:?}");
        }
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
        let ctx = ExecCtx::new(Target::SM_90, 0);
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
