//! Lane functions against independent models written from the spec text
//! (different formulation: i64 element vectors, `f64::round` for vavrg,
//! native float operators for compares), and warp lifting of the guard and
//! active mask on random inputs.

use super::exec::{ctx, slct, R1, R2, R3, SM20};
use super::strategies::{f32_bits, valid_video};
use proptest::prelude::*;
use sim_isa::exec::{compare, slct_lane, video_lane};
use sim_isa::*;

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
    fn video_lane_matches_model(v in valid_video(), a: u32, b: u32, c: u32) {
        prop_assert_eq!(video_lane(&v, a, b, c), video_model(&v, a, b, c), "{:?}", v);
    }

    #[test]
    fn f32_compare_matches_native(cmp in prop::sample::select(CmpOp::ALL.to_vec()),
                                  a in f32_bits(), b in f32_bits(), ftz: bool) {
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
    fn slct_f32_matches_native(c in f32_bits(), ftz: bool) {
        let s = slct(Type::B32, Type::F32, ftz);
        let x = if ftz { flush32(c) } else { f32::from_bits(c) };
        let want = if x >= 0.0 { 1 } else { 2 };
        prop_assert_eq!(slct_lane(&s, SM20, 1, 2, c), want);
    }
}
