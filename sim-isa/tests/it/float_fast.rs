//! The `.f32` `add sub mul fma` forms that round to nearest without `.sat`
//! run on the host's f32 operations (`execute` and `Prepared`'s kernels):
//! both must write exactly what the scalar reference (`execute_scalar`,
//! `float_lane`'s exact-in-f64 rounding) writes, for every such form
//! (`.rn` or no modifier, with and without `.ftz`), on every target, with
//! register and immediate operands, NaN sources with payloads, infinities,
//! signed zeros, subnormals, overflow, exact cancellation and rounding
//! ties, and high words holding stale bits. The neighbouring forms (other
//! roundings, `.sat`, `.f64`), which keep the lane path, run alongside.

// Lanes index several parallel input arrays.
#![allow(clippy::needless_range_loop)]

use super::fastpath::target;
use super::strategies::{f32_bits, F32_EDGES};
use proptest::prelude::*;
use sim_isa::exec::{execute_prepared, execute_scalar, Prepared};
use sim_isa::*;

const NREGS: usize = 5;
/// The guard's predicate register.
const G: RegId = RegId(4);
const OPS: [FloatOp; 4] = [FloatOp::Add, FloatOp::Sub, FloatOp::Mul, FloatOp::Fma];

/// `x` is one of the forms that run on the host's operations.
fn is_fast(x: &FloatArith) -> bool {
    x.ty == Type::F32
        && !x.sat
        && x.approx.is_none()
        && matches!(x.rnd, None | Some(Rnd::Rn))
        && OPS.contains(&x.op)
}

/// f32 values whose few mantissa bits and nearby exponents (around
/// `centre`) make sums and products land exactly on rounding ties and
/// cancel exactly; exponent 0 and 255 come up (subnormals, inf, NaN).
fn sparse(centre: i32, sign: bool, off: i32, mant: u32) -> u32 {
    let e = (centre + off).clamp(0, 255) as u32;
    u32::from(sign) << 31 | e << 23 | (mant & 0x7F_FFFF)
}

fn sparse_mant() -> impl Strategy<Value = u32> {
    prop_oneof![
        Just(0u32),
        Just(1),
        Just(0x40_0000),
        Just(0x40_0001),
        Just(0x7F_FFFF),
        Just(0x7F_FFFE),
        (0u32..23).prop_map(|k| 1 << k),
        (0u32..23, 0u32..23).prop_map(|(i, j)| 1 << i | 1 << j),
    ]
}

/// One lane's `(a, b, c)`: independent f32 bits (edges, subnormals,
/// random), or sparse values close in exponent, or an fma whose addend
/// cancels the product (nearly) exactly.
fn lane_triple() -> impl Strategy<Value = (u32, u32, u32)> {
    let independent = (f32_bits(), f32_bits(), f32_bits());
    let close = (
        0i32..=255,
        any::<[bool; 3]>(),
        [-26i32..=26, -26i32..=26, -52i32..=52],
        [sparse_mant(), sparse_mant(), sparse_mant()],
    )
        .prop_map(|(centre, s, off, m)| {
            (
                sparse(centre, s[0], off[0], m[0]),
                sparse(centre, s[1], off[1] / 2, m[1]),
                sparse(centre, s[2], off[2], m[2]),
            )
        });
    let cancel = (f32_bits(), f32_bits(), -3i32..=3).prop_map(|(a, b, k)| {
        let p = (f64::from(f32::from_bits(a)) * f64::from(f32::from_bits(b))) as f32;
        let c = (-p).to_bits().wrapping_add(k as u32);
        (a, b, c)
    });
    prop_oneof![3 => independent, 2 => close, 2 => cancel]
}

/// A source operand: one of the value registers, or an f32 immediate
/// (sometimes with stray high bits, which a 32-bit read drops).
fn operand(r: u32) -> impl Strategy<Value = Operand> {
    prop_oneof![
        4 => Just(Operand::Reg(RegId(r))),
        1 => (1u32..4).prop_map(|r| Operand::Reg(RegId(r))),
        1 => (f32_bits(), prop_oneof![Just(0u64), any::<u64>()])
            .prop_map(|(v, hi)| Operand::Imm(u64::from(v) | hi << 32)),
        1 => Just(Operand::Special(SpecialReg::LaneId)),
    ]
}

/// Mostly the fast forms; now and then a neighbour that is not.
fn float_inst() -> impl Strategy<Value = FloatArith> {
    let rnd = prop_oneof![
        6 => Just(None),
        6 => Just(Some(Rnd::Rn)),
        1 => prop::sample::select(Rnd::ALL.to_vec()).prop_map(Some),
    ];
    (
        prop::sample::select(OPS.to_vec()),
        rnd,
        any::<bool>(),
        prop::bool::weighted(0.05),
        prop::bool::weighted(0.05),
        0u32..4,
        (operand(1), operand(2), operand(3)),
    )
        .prop_map(|(op, rnd, ftz, sat, f64_, d, (a, b, c))| FloatArith {
            op,
            rnd,
            approx: None,
            ftz: ftz && !f64_,
            sat: sat && !f64_,
            nan: false,
            relu: false,
            ty: if f64_ { Type::F64 } else { Type::F32 },
            d: RegId(d),
            a,
            b: Some(b),
            c: (op == FloatOp::Fma).then_some(c),
        })
}

/// Runs `x` through the reference, `execute` and a prepared instruction on
/// the same registers (twice: a prepared instruction is reused) and
/// compares every register.
fn check(
    x: FloatArith,
    guard: Option<bool>,
    regs: &WarpRegs,
    active: u32,
    target: Target,
) -> Result<(), TestCaseError> {
    let inst = Instruction {
        guard: guard.map(|negate| Guard { reg: G, negate }),
        op: Op::Float(x),
    };
    let ctx = ExecCtx::new(target, 3);
    let p = Prepared::new(&inst, target);
    prop_assert_eq!(p.is_specialised(), is_fast(&x), "{:?}", x);
    let (mut reference, mut fast, mut prepared) = (regs.clone(), regs.clone(), regs.clone());
    for _ in 0..2 {
        execute_scalar(&inst, &ctx, &mut reference, active);
        execute(&inst, &ctx, &mut fast, active);
        execute_prepared(&p, &ctx, &mut prepared, active);
        prop_assert_eq!(&fast, &reference, "execute: {:?}", x);
        prop_assert_eq!(&prepared, &reference, "prepared: {:?}", x);
    }
    Ok(())
}

/// Registers: `d` with stale bits, `a`, `b`, `c` from `lanes` (high words
/// 0 or stale), the guard's predicates.
fn registers(lanes: &[(u32, u32, u32)], stale: u64, preds: u32) -> WarpRegs {
    let mut regs = WarpRegs::new(NREGS);
    for l in 0..WARP_SIZE {
        let (a, b, c) = lanes[l % lanes.len()];
        let hi = |k: u32| stale.rotate_left(k + l as u32) & 0xFFFF_FFFF_0000_0000;
        regs.set_lane(RegId(0), l, stale.rotate_right(l as u32));
        regs.set_lane(RegId(1), l, u64::from(a) | hi(1));
        regs.set_lane(RegId(2), l, u64::from(b) | hi(2));
        regs.set_lane(RegId(3), l, u64::from(c) | hi(3));
        regs.set_lane(G, l, u64::from(preds >> l & 1));
    }
    regs
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    #[test]
    fn fast_f32_forms_match_scalar_reference(
        x in float_inst(),
        lanes in prop::collection::vec(lane_triple(), WARP_SIZE),
        stale in prop_oneof![Just(0u64), any::<u64>()],
        preds: u32,
        guard in prop::option::of(any::<bool>()),
        active in prop_oneof![Just(u32::MAX), any::<u32>()],
        target in target(),
    ) {
        let regs = registers(&lanes, stale, preds);
        check(x, guard, &regs, active, target)?;
    }
}

/// Every fast form on every pair (`add sub mul`) and triple (`fma`) of the
/// f32 edge values and their neighbours (the ties and the boundaries of
/// the subnormal and overflow ranges), on each target.
#[test]
fn fast_f32_forms_on_every_edge_combination() {
    let mut vals: Vec<u32> = F32_EDGES.iter().map(|&v| v as u32).collect();
    vals.extend([
        0x3F80_0001, // 1 + ulp
        0x3400_0000, // 2^-23: half an ulp of 2
        0x3380_0000, // 2^-24: half an ulp of 1
        0x3380_0001,
        0x4B80_0000, // 2^24
        0x0080_0001, // smallest normal + ulp
        0x0040_0000, // half the smallest normal
        0x1F80_0000, // 2^-64: squares to 2^-128 (subnormal)
        0x1A00_0000, // 2^-75: squares below the smallest subnormal
        0x5F80_0000, // 2^64: squares to overflow
        0x7F00_0000, // 2^127
        0x3F00_0000, // 0.5
        0xC040_0000, // -3
    ]);
    let n = vals.len();
    let combos: Vec<(u32, u32, u32)> = (0..n * n * n)
        .map(|i| (vals[i % n], vals[i / n % n], vals[i / (n * n)]))
        .collect();
    let mut count = 0;
    for target in [
        Target::SM_90,
        Target {
            sm: 13,
            suffix: None,
        },
    ] {
        for op in OPS {
            for rnd in [None, Some(Rnd::Rn)] {
                for ftz in [false, true] {
                    let x = FloatArith {
                        op,
                        rnd,
                        approx: None,
                        ftz,
                        sat: false,
                        nan: false,
                        relu: false,
                        ty: Type::F32,
                        d: RegId(0),
                        a: Operand::Reg(RegId(1)),
                        b: Some(Operand::Reg(RegId(2))),
                        c: (op == FloatOp::Fma).then_some(Operand::Reg(RegId(3))),
                    };
                    // add/sub/mul read no `c`: its pairs are the first n*n.
                    let span = if op == FloatOp::Fma { n * n * n } else { n * n };
                    for chunk in combos[..span].chunks(WARP_SIZE) {
                        let regs = registers(chunk, 0xDEAD_BEEF_0BAD_F00D, u32::MAX);
                        check(x, None, &regs, u32::MAX, target).unwrap();
                        count += chunk.len();
                    }
                }
            }
        }
    }
    assert_eq!(count, 2 * 2 * 2 * (3 * n * n + n * n * n));
}

/// The forms the SGEMM kernel runs are specialised when parsed.
#[test]
fn parsed_fast_forms_are_specialised() {
    let texts = [
        ("fma.rn.f32 %f0, %f1, %f2, %f0;", true),
        ("fma.rn.ftz.f32 %f0, %f1, 0f3F800000, %f0;", true),
        ("add.f32 %f0, %f1, %f2;", true),
        ("add.rn.ftz.f32 %f0, %f1, %f2;", true),
        ("sub.f32 %f0, %f1, 0f00000001;", true),
        ("mul.rn.f32 %f0, %f1, %f2;", true),
        ("mul.f32 %f0, %f1, %f2;", true),
        ("fma.rz.f32 %f0, %f1, %f2, %f0;", false),
        ("add.sat.f32 %f0, %f1, %f2;", false),
        ("mul.rn.f64 %d0, %d1, %d2;", false),
    ];
    for (text, fast) in texts {
        let mut syms = Symbols::new();
        for r in ["%f0", "%f1", "%f2"] {
            syms.declare(r, Type::F32);
        }
        for r in ["%d0", "%d1", "%d2"] {
            syms.declare(r, Type::F64);
        }
        let inst = parse::parse_for_target(text, &mut syms, Target::SM_90, None)
            .unwrap_or_else(|e| panic!("`{text}`: {e}"));
        assert_eq!(
            Prepared::new(&inst, Target::SM_90).is_specialised(),
            fast,
            "{text}"
        );
    }
}
