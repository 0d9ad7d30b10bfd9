//! Acceptance 5: property tests of `sim_isa::execute` against the
//! independent model in `model.rs`, per family, on whole warps of random and
//! edge inputs (0, ±1, lane min/max, NaNs with payloads, ±inf, ±0,
//! subnormals of each float format), random active masks and guards.
//! Instructions are struct literals covering every modifier.
//!
//! Cases per property: 96 by default; `PROPTEST_CASES=N` overrides.

// Lanes index several parallel input vectors; strategies return plain tuples.
#![allow(clippy::needless_range_loop, clippy::type_complexity)]

use super::enumerate::{cmps_for, set_ftz_ok, set_pairs, CORE_TYPES};
use super::model;
use super::strategies::{config, pair, valid_video, value, video_word};
use proptest::prelude::*;
use sim_isa::{
    execute, BoolOp, CmpOp, ExecCtx, Guard, Instruction, Op, Operand, PredSrc, RegId, Selp, Set,
    Setp, Slct, Target, Type, WarpRegs, WARP_SIZE,
};

const D: RegId = RegId(0);
const A: RegId = RegId(1);
const B: RegId = RegId(2);
const C: RegId = RegId(3);
const G: RegId = RegId(4);
const Q: RegId = RegId(5);
const NREGS: usize = 6;

// ------------------------------------------------------------ warp plumbing

/// Guard and mask for one case.
#[derive(Clone, Debug)]
struct Lanes {
    active: u32,
    guard: Option<bool>,
    g: Vec<bool>,
}

fn lanes() -> impl Strategy<Value = Lanes> {
    (
        prop_oneof![Just(u32::MAX), any::<u32>()],
        prop_oneof![Just(None), any::<bool>().prop_map(Some)],
        proptest::collection::vec(any::<bool>(), WARP_SIZE),
    )
        .prop_map(|(active, guard, g)| Lanes { active, guard, g })
}

impl Lanes {
    fn guard(&self) -> Option<Guard> {
        self.guard.map(|negate| Guard { reg: G, negate })
    }
    /// Whether `lane` executes.
    fn runs(&self, lane: usize) -> bool {
        self.active & (1 << lane) != 0 && self.guard.is_none_or(|neg| self.g[lane] ^ neg)
    }
    fn fill(&self, regs: &mut WarpRegs) {
        for lane in 0..WARP_SIZE {
            regs.set_lane(G, lane, self.g[lane] as u64);
        }
    }
}

fn run(inst: &Instruction, regs: &mut WarpRegs, target: Target, lanes: &Lanes) {
    lanes.fill(regs);
    execute(inst, &ExecCtx::new(target, 3), regs, lanes.active);
}

fn pred_strategy() -> impl Strategy<Value = Option<(BoolOp, PredSrc)>> {
    prop_oneof![
        2 => Just(None),
        3 => (proptest::sample::select(BoolOp::ALL.to_vec()), any::<bool>())
            .prop_map(|(op, negate)| Some((op, PredSrc::Reg { reg: C, negate }))),
        1 => (proptest::sample::select(BoolOp::ALL.to_vec()), any::<bool>()).prop_map(|(op, v)| Some((op, PredSrc::Imm(v)))),
    ]
}

fn pred_value(p: Option<(BoolOp, PredSrc)>, regs: &WarpRegs, lane: usize) -> bool {
    match p {
        Some((_, PredSrc::Reg { reg, negate })) => (regs.lane(reg, lane) & 1 == 1) ^ negate,
        Some((_, PredSrc::Imm(v))) => v,
        None => false,
    }
}

/// Operand `reg`, or an immediate taken from lane 0's value when `imm`.
fn operand(reg: RegId, imm: bool, lane0: u64) -> Operand {
    if imm {
        Operand::Imm(lane0)
    } else {
        Operand::Reg(reg)
    }
}

/// A warp whose lanes hold `ab` in `A` and `B`, `c(lane)` in `C` and
/// `d(lane)` in `D`.
fn warp(ab: &[(u64, u64)], c: impl Fn(usize) -> u64, d: impl Fn(usize) -> u64) -> WarpRegs {
    let mut regs = WarpRegs::new(NREGS);
    for lane in 0..WARP_SIZE {
        regs.set_lane(A, lane, ab[lane].0);
        regs.set_lane(B, lane, ab[lane].1);
        regs.set_lane(C, lane, c(lane));
        regs.set_lane(D, lane, d(lane));
    }
    regs
}

fn op_value(o: Operand, regs: &WarpRegs, lane: usize) -> u64 {
    match o {
        Operand::Reg(r) => regs.lane(r, lane),
        Operand::Imm(v) => v,
        Operand::Special(_) => unreachable!(),
    }
}

// ------------------------------------------------------------ video

proptest! {
    #![proptest_config(config("PROPTEST_CASES", 96))]

    #[test]
    fn video_matches_model(
        v in valid_video(),
        vals in proptest::collection::vec((video_word(), video_word(), video_word(), video_word()), WARP_SIZE),
        l in lanes(),
        target in prop_oneof![Just(Target::SM_30), Just(Target::SM_90)],
    ) {
        let inst = Instruction { guard: l.guard(), op: Op::Video(v) };
        let ab: Vec<_> = vals.iter().map(|&(a, b, _, _)| (a as u64, b as u64)).collect();
        let mut regs = warp(&ab, |i| vals[i].2 as u64, |i| vals[i].3 as u64);
        run(&inst, &mut regs, target, &l);
        for (lane, &(a, b, c, d)) in vals.iter().enumerate() {
            let cval = if v.c == D { d } else { c };
            let want = if l.runs(lane) { model::video(&v, a, b, cval) } else { d };
            prop_assert_eq!(regs.lane(D, lane), want as u64, "lane {} a={:#x} b={:#x} c={:#x} d0={:#x}", lane, a, b, cval, d);
            prop_assert_eq!(regs.lane(A, lane), a as u64);
            prop_assert_eq!(regs.lane(B, lane), b as u64);
        }
    }
}

// ------------------------------------------------------------ set

fn set_case() -> impl Strategy<Value = (Set, Target, Vec<(u64, u64)>, Vec<bool>, Vec<u64>)> {
    proptest::sample::select(set_pairs()).prop_flat_map(|(dtype, stype)| {
        let cmps = cmps_for(stype);
        let ftz_ok = set_ftz_ok(dtype, stype);
        let half = matches!(stype, Type::F16 | Type::F16x2 | Type::Bf16 | Type::Bf16x2);
        let low_target = !half && !matches!(dtype, Type::F16 | Type::Bf16);
        let targets = if low_target {
            vec![
                Target::SM_13,
                Target {
                    sm: 20,
                    suffix: None,
                },
                Target::SM_90,
            ]
        } else {
            vec![Target::SM_90]
        };
        (
            proptest::sample::select(cmps),
            any::<bool>().prop_map(move |f| f && ftz_ok),
            pred_strategy(),
            // Immediates only where ptxas takes them (not for half-precision values).
            any::<(bool, bool)>().prop_map(move |(x, y)| (x && !half, y && !half)),
            proptest::sample::select(targets),
            proptest::collection::vec(pair(stype), WARP_SIZE),
            proptest::collection::vec(any::<bool>(), WARP_SIZE),
            proptest::collection::vec(value(dtype), WARP_SIZE),
        )
            .prop_map(move |(cmp, ftz, bool_op, (ia, ib), target, ab, c, d0)| {
                let s = Set {
                    cmp,
                    bool_op,
                    ftz,
                    dtype,
                    stype,
                    d: D,
                    a: operand(A, ia, ab[0].0),
                    b: operand(B, ib, ab[0].1),
                };
                (s, target, ab, c, d0)
            })
    })
}

proptest! {
    #![proptest_config(config("PROPTEST_CASES", 96))]

    #[test]
    fn set_matches_model((s, target, ab, c, d0) in set_case(), l in lanes()) {
        let inst = Instruction { guard: l.guard(), op: Op::Set(s) };
        let mut regs = warp(&ab, |i| c[i] as u64, |i| d0[i]);
        run(&inst, &mut regs, target, &l);
        for lane in 0..WARP_SIZE {
            let (a, b) = (op_value(s.a, &regs, lane), op_value(s.b, &regs, lane));
            let cv = pred_value(s.bool_op, &regs, lane);
            let want = if l.runs(lane) { model::set(&s, a, b, cv, target) } else { d0[lane] };
            prop_assert_eq!(regs.lane(D, lane), want, "{} lane {}: a={:#x} b={:#x} c={}", inst_name(&inst), lane, a, b, cv);
        }
    }
}

fn inst_name(i: &Instruction) -> String {
    match i.op {
        Op::Set(s) => format!(
            "set.{}{}{}.{}.{}",
            s.cmp.name(),
            s.bool_op
                .map(|(b, _)| format!(".{}", b.name()))
                .unwrap_or_default(),
            if s.ftz { ".ftz" } else { "" },
            s.dtype.name(),
            s.stype.name()
        ),
        Op::Setp(s) => format!(
            "setp.{}{}{}.{}",
            s.cmp.name(),
            s.bool_op
                .map(|(b, _)| format!(".{}", b.name()))
                .unwrap_or_default(),
            if s.ftz { ".ftz" } else { "" },
            s.ty.name()
        ),
        Op::Slct(s) => format!(
            "slct{}.{}.{}",
            if s.ftz { ".ftz" } else { "" },
            s.dtype.name(),
            s.ctype.name()
        ),
        Op::Selp(s) => format!("selp.{}", s.ty.name()),
        other => format!("{other:?}"),
    }
}

// ------------------------------------------------------------ setp

fn setp_case(
) -> impl Strategy<Value = (Setp, Target, Vec<(u64, u64)>, Vec<bool>, Vec<(bool, bool)>)> {
    proptest::sample::select(CORE_TYPES.to_vec()).prop_flat_map(|ty| {
        (
            proptest::sample::select(cmps_for(ty)),
            any::<bool>().prop_map(move |f| f && ty == Type::F32),
            pred_strategy(),
            any::<(bool, bool)>(),
            0u8..5,
            proptest::sample::select(vec![Target::SM_13, Target::SM_90]),
            proptest::collection::vec(pair(ty), WARP_SIZE),
            proptest::collection::vec(any::<bool>(), WARP_SIZE),
            proptest::collection::vec(any::<(bool, bool)>(), WARP_SIZE),
        )
            .prop_map(
                move |(cmp, ftz, bool_op, (ia, ib), dest, target, ab, c, pq0)| {
                    // p | p|q | _|q | p|_ | _
                    let (p, q) = match dest {
                        0 => (Some(D), None),
                        1 => (Some(D), Some(Some(Q))),
                        2 => (None, Some(Some(Q))),
                        3 => (Some(D), Some(None)),
                        _ => (None, None),
                    };
                    let s = Setp {
                        cmp,
                        bool_op,
                        ftz,
                        ty,
                        p,
                        q,
                        a: operand(A, ia, ab[0].0),
                        b: operand(B, ib, ab[0].1),
                    };
                    (s, target, ab, c, pq0)
                },
            )
    })
}

proptest! {
    #![proptest_config(config("PROPTEST_CASES", 96))]

    #[test]
    fn setp_matches_model((s, target, ab, c, pq0) in setp_case(), l in lanes()) {
        let inst = Instruction { guard: l.guard(), op: Op::Setp(s) };
        let mut regs = warp(&ab, |i| c[i] as u64, |i| pq0[i].0 as u64);
        for lane in 0..WARP_SIZE {
            regs.set_lane(Q, lane, pq0[lane].1 as u64);
        }
        run(&inst, &mut regs, target, &l);
        for lane in 0..WARP_SIZE {
            let (a, b) = (op_value(s.a, &regs, lane), op_value(s.b, &regs, lane));
            let cv = pred_value(s.bool_op, &regs, lane);
            let (mp, mq) = model::setp(&s, a, b, cv, target);
            let runs = l.runs(lane);
            let want_p = if runs && s.p.is_some() { mp } else { pq0[lane].0 };
            let want_q = if runs && matches!(s.q, Some(Some(_))) { mq } else { pq0[lane].1 };
            prop_assert_eq!(regs.lane(D, lane), want_p as u64, "{} p, lane {}: a={:#x} b={:#x} c={}", inst_name(&inst), lane, a, b, cv);
            prop_assert_eq!(regs.lane(Q, lane), want_q as u64, "{} q, lane {}: a={:#x} b={:#x} c={}", inst_name(&inst), lane, a, b, cv);
        }
    }
}

// ------------------------------------------------------------ selp / slct

fn selp_case() -> impl Strategy<Value = (Selp, Vec<(u64, u64)>, Vec<bool>, Vec<u64>)> {
    proptest::sample::select(CORE_TYPES.to_vec()).prop_flat_map(|ty| {
        (
            any::<(bool, bool)>(),
            prop_oneof![
                3 => any::<bool>().prop_map(|negate| PredSrc::Reg { reg: C, negate }),
                1 => any::<bool>().prop_map(PredSrc::Imm),
            ],
            proptest::collection::vec(pair(ty), WARP_SIZE),
            proptest::collection::vec(any::<bool>(), WARP_SIZE),
            proptest::collection::vec(value(ty), WARP_SIZE),
        )
            .prop_map(move |((ia, ib), c, ab, cv, d0)| {
                (
                    Selp {
                        ty,
                        d: D,
                        a: operand(A, ia, ab[0].0),
                        b: operand(B, ib, ab[0].1),
                        c,
                    },
                    ab,
                    cv,
                    d0,
                )
            })
    })
}

fn slct_case() -> impl Strategy<Value = (Slct, Target, Vec<(u64, u64)>, Vec<u64>, Vec<u64>)> {
    (
        proptest::sample::select(CORE_TYPES.to_vec()),
        prop_oneof![Just(Type::S32), Just(Type::F32)],
    )
        .prop_flat_map(|(dtype, ctype)| {
            (
                any::<bool>().prop_map(move |f| f && ctype == Type::F32),
                any::<(bool, bool, bool)>(),
                proptest::sample::select(vec![Target::SM_13, Target::SM_90]),
                proptest::collection::vec(pair(dtype), WARP_SIZE),
                proptest::collection::vec(value(ctype), WARP_SIZE),
                proptest::collection::vec(value(dtype), WARP_SIZE),
            )
                .prop_map(move |(ftz, (ia, ib, ic), target, ab, c, d0)| {
                    let s = Slct {
                        ftz,
                        dtype,
                        ctype,
                        d: D,
                        a: operand(A, ia, ab[0].0),
                        b: operand(B, ib, ab[0].1),
                        c: operand(C, ic, c[0]),
                    };
                    (s, target, ab, c, d0)
                })
        })
}

proptest! {
    #![proptest_config(config("PROPTEST_CASES", 96))]

    #[test]
    fn selp_matches_model((s, ab, c, d0) in selp_case(), l in lanes()) {
        let inst = Instruction { guard: l.guard(), op: Op::Selp(s) };
        let mut regs = warp(&ab, |i| c[i] as u64, |i| d0[i]);
        run(&inst, &mut regs, Target::SM_90, &l);
        for lane in 0..WARP_SIZE {
            let cv = match s.c {
                PredSrc::Reg { negate, .. } => c[lane] ^ negate,
                PredSrc::Imm(v) => v,
            };
            let (a, b) = (op_value(s.a, &regs, lane), op_value(s.b, &regs, lane));
            let want = if l.runs(lane) { model::selp(&s, a, b, cv) } else { d0[lane] };
            prop_assert_eq!(regs.lane(D, lane), want, "{} lane {}", inst_name(&inst), lane);
        }
    }

    #[test]
    fn slct_matches_model((s, target, ab, c, d0) in slct_case(), l in lanes()) {
        let inst = Instruction { guard: l.guard(), op: Op::Slct(s) };
        let mut regs = warp(&ab, |i| c[i], |i| d0[i]);
        run(&inst, &mut regs, target, &l);
        for lane in 0..WARP_SIZE {
            let (a, b, cv) = (op_value(s.a, &regs, lane), op_value(s.b, &regs, lane), op_value(s.c, &regs, lane));
            let want = if l.runs(lane) { model::slct(&s, a, b, cv as u32, target) } else { d0[lane] };
            prop_assert_eq!(regs.lane(D, lane), want, "{} on {} lane {}: c={:#x}", inst_name(&inst), target, lane, cv);
        }
    }
}

#[test]
fn edge_tables_are_what_they_claim() {
    // Keep the edge lists honest: subnormals really are subnormal, NaNs NaN.
    assert!(half::f16::from_bits(0x03FF).classify() == std::num::FpCategory::Subnormal);
    assert!(half::f16::from_bits(0x7C01).is_nan());
    assert!(half::bf16::from_bits(0x007F).classify() == std::num::FpCategory::Subnormal);
    assert!(half::bf16::from_bits(0x7F81).is_nan());
    assert!(f32::from_bits(0x807F_FFFF).is_subnormal());
    assert!(f64::from_bits(0x000F_FFFF_FFFF_FFFF).is_subnormal());
    assert!(f64::from_bits(0x7FF0_0000_0000_0001).is_nan());
    let _ = CmpOp::ALL;
}
