//! The warp-wide fast paths of `execute` against `execute_scalar` (the scalar
//! lane functions lifted lane by lane): random instructions of every family,
//! random register contents rich in float edge cases, random active masks and
//! guards. Every register must come out bit-identical.

use super::strategies::{any_width_value, vset_cmps};
use proptest::prelude::*;
use sim_isa::exec::execute_scalar;
use sim_isa::*;

pub(crate) const NREGS: u32 = 8;

pub(crate) fn reg() -> impl Strategy<Value = RegId> {
    (0..NREGS).prop_map(RegId)
}

fn operand() -> impl Strategy<Value = Operand> {
    prop_oneof![
        6 => reg().prop_map(Operand::Reg),
        2 => any_width_value().prop_map(Operand::Imm),
        1 => Just(Operand::Special(SpecialReg::LaneId)),
        1 => Just(Operand::Special(SpecialReg::WarpId)),
    ]
}

fn pred_src() -> impl Strategy<Value = PredSrc> {
    prop_oneof![
        4 => (reg(), any::<bool>()).prop_map(|(reg, negate)| PredSrc::Reg { reg, negate }),
        1 => any::<bool>().prop_map(PredSrc::Imm),
    ]
}

fn ty() -> impl Strategy<Value = Type> {
    prop::sample::select(Type::ALL.to_vec())
}

fn cmp() -> impl Strategy<Value = CmpOp> {
    prop::sample::select(CmpOp::ALL.to_vec())
}

fn bool_op() -> impl Strategy<Value = Option<(BoolOp, PredSrc)>> {
    prop::option::of((prop::sample::select(BoolOp::ALL.to_vec()), pred_src()))
}

/// The video operations but `vset`'s comparisons.
pub(crate) const ARITH_VIDEO_OPS: [VideoOp; 6] = [
    VideoOp::Add,
    VideoOp::Sub,
    VideoOp::Avrg,
    VideoOp::Absdiff,
    VideoOp::Min,
    VideoOp::Max,
];

pub(crate) fn video() -> impl Strategy<Value = Video> {
    let ops = prop_oneof![
        Just(VideoOp::Add),
        Just(VideoOp::Sub),
        Just(VideoOp::Avrg),
        Just(VideoOp::Absdiff),
        Just(VideoOp::Min),
        Just(VideoOp::Max),
        cmp().prop_map(VideoOp::Set),
    ];
    (
        ops,
        any::<bool>(),
        any::<[bool; 5]>(),
        any::<u8>(),
        any::<[u8; 4]>(),
        any::<[u8; 4]>(),
        [reg(), reg(), reg(), reg()],
        any::<bool>(),
    )
        .prop_map(
            |(
                op,
                x4,
                [dsigned, asigned, bsigned, sat, add],
                mask,
                asel,
                bsel,
                [d, a, b, c],
                plain,
            )| {
                // Half the cases use the default selectors and full mask
                // (with stray high bits), which `execute` special-cases.
                let (mask, asel, bsel) = if plain {
                    let stray = |s: [u8; 4], base: u8| {
                        [0u8, 1, 2, 3].map(|i| (base + i) | (s[usize::from(i)] & 0xF8))
                    };
                    (
                        mask | 0xF,
                        stray(asel, 0),
                        stray(bsel, if x4 { 4 } else { 2 }),
                    )
                } else {
                    (mask, asel, bsel)
                };
                // Deliberately unconstrained (sat with add, stray mask and
                // selector bits): both executors must agree on any input.
                let simd = if x4 { Simd::X4 } else { Simd::X2 };
                Video {
                    sat,
                    add,
                    mask,
                    asel,
                    bsel,
                    d,
                    a,
                    b,
                    c,
                    ..super::exec::video(op, simd, dsigned, asigned, bsigned)
                }
            },
        )
}

pub(crate) fn op() -> impl Strategy<Value = Op> {
    let set = (
        cmp(),
        bool_op(),
        any::<bool>(),
        ty(),
        ty(),
        reg(),
        operand(),
        operand(),
    )
        .prop_map(|(cmp, bool_op, ftz, dtype, stype, d, a, b)| {
            Op::Set(Set {
                cmp,
                bool_op,
                ftz,
                dtype,
                stype,
                d,
                a,
                b,
            })
        });
    let setp = (
        cmp(),
        bool_op(),
        any::<bool>(),
        ty(),
        prop::option::of(reg()),
        prop::option::of(prop::option::of(reg())),
        operand(),
        operand(),
    )
        .prop_map(|(cmp, bool_op, ftz, ty, p, q, a, b)| {
            Op::Setp(Setp {
                cmp,
                bool_op,
                ftz,
                ty,
                p,
                q,
                a,
                b,
            })
        });
    let selp = (ty(), reg(), operand(), operand(), pred_src())
        .prop_map(|(ty, d, a, b, c)| Op::Selp(Selp { ty, d, a, b, c }));
    let slct = (
        any::<bool>(),
        ty(),
        prop::sample::select(vec![Type::S32, Type::F32]),
        reg(),
        operand(),
        operand(),
        operand(),
    )
        .prop_map(|(ftz, dtype, ctype, d, a, b, c)| {
            Op::Slct(Slct {
                ftz,
                dtype,
                ctype,
                d,
                a,
                b,
                c,
            })
        });
    let alu_op = prop::sample::select(vec![
        AluOp::Mov,
        AluOp::And,
        AluOp::Or,
        AluOp::Xor,
        AluOp::Shl,
        AluOp::Shr,
    ]);
    let alu = (alu_op, ty(), reg(), operand(), prop::option::of(operand()))
        .prop_map(|(op, ty, d, a, b)| Op::Alu(Alu { op, ty, d, a, b }));
    let mode = prop::sample::select(vec![MulMode::Lo, MulMode::Hi, MulMode::Wide]);
    let int_op = prop_oneof![
        Just(IntOp::Add),
        Just(IntOp::Sub),
        mode.clone().prop_map(IntOp::Mul),
        mode.prop_map(IntOp::Mad),
        Just(IntOp::Min),
        Just(IntOp::Max),
        Just(IntOp::Div),
        Just(IntOp::Rem),
        Just(IntOp::Abs),
        Just(IntOp::Neg),
        Just(IntOp::Dp4a),
        Just(IntOp::Dp2a(MulMode::Lo)),
        Just(IntOp::Dp2a(MulMode::Hi)),
        Just(IntOp::Sad),
    ];
    // u16 u32 u64 s16 s32 s64 u16x2 s16x2: `Type::ALL[3..11]`.
    let int_ty = prop::sample::select(Type::ALL[3..11].to_vec());
    let int = (
        int_op,
        (any::<bool>(), any::<bool>(), any::<bool>()),
        int_ty,
        reg(),
        operand(),
        operand(),
        operand(),
    )
        .prop_map(|(op, (sat, relu, bsigned), ty, d, a, b, c)| {
            let c = op.has_c().then_some(c);
            let b = op.has_b().then_some(b);
            // The dot products' second type is `.u32` or `.s32`.
            let bty = match (op.is_dot(), bsigned) {
                (true, true) => Type::S32,
                (true, false) => Type::U32,
                (false, _) => ty,
            };
            Op::Int(IntArith {
                op,
                sat,
                relu,
                ty,
                bty,
                d,
                a,
                b,
                c,
                carry: None,
            })
        });
    let float_op = prop::sample::select(vec![
        FloatOp::Add,
        FloatOp::Sub,
        FloatOp::Mul,
        FloatOp::Fma,
        FloatOp::Min,
        FloatOp::Max,
        FloatOp::Abs,
        FloatOp::Neg,
        FloatOp::Div,
        FloatOp::Rcp,
        FloatOp::Sqrt,
        FloatOp::Copysign,
    ]);
    let float = (
        (
            float_op,
            prop::option::of(prop::sample::select(Rnd::ALL.to_vec())),
        ),
        (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()),
        // The half types: packed and scalar lanes through the warp path.
        prop::sample::select(vec![
            Type::F32,
            Type::F64,
            Type::F16,
            Type::F16x2,
            Type::Bf16,
            Type::Bf16x2,
        ]),
        (reg(), operand(), operand(), operand()),
    )
        .prop_map(|((op, rnd), (ftz, sat, nan, relu), ty, (d, a, b, c))| {
            let two = !matches!(
                op,
                FloatOp::Abs | FloatOp::Neg | FloatOp::Rcp | FloatOp::Sqrt
            );
            Op::Float(FloatArith {
                op,
                rnd,
                approx: None,
                ftz,
                sat,
                nan,
                relu,
                ty,
                d,
                a,
                b: two.then_some(b),
                c: (op == FloatOp::Fma).then_some(c),
            })
        });
    prop_oneof![
        3 => video().prop_map(Op::Video),
        3 => set,
        2 => setp,
        1 => selp,
        1 => slct,
        2 => alu,
        2 => int,
        2 => float,
    ]
}

pub(crate) fn target() -> impl Strategy<Value = Target> {
    prop::sample::select(vec![
        Target {
            sm: 13,
            suffix: None,
        },
        Target {
            sm: 20,
            suffix: None,
        },
        Target::SM_53,
        Target::SM_90,
    ])
}

/// Register contents: random per lane, sometimes one value for every lane, and
/// sometimes a copy of another register so equal operands come up often.
pub(crate) fn registers() -> impl Strategy<Value = Vec<[u64; WARP_SIZE]>> {
    let one = prop_oneof![
        3 => prop::array::uniform32(any_width_value()),
        1 => any_width_value().prop_map(|v| [v; WARP_SIZE]),
    ];
    (prop::collection::vec(one, NREGS as usize), any::<[u8; 2]>()).prop_map(|(mut r, [x, y])| {
        let (x, y) = (x as usize % r.len(), y as usize % r.len());
        if x != y {
            r[x] = r[y];
        }
        r
    })
}

/// An active mask: all lanes, or any.
pub(crate) fn active() -> impl Strategy<Value = u32> {
    prop_oneof![Just(u32::MAX), any::<u32>()]
}

/// A guard register and whether it is negated, or none.
pub(crate) fn guard() -> impl Strategy<Value = Option<(RegId, bool)>> {
    prop::option::of((reg(), any::<bool>()))
}

/// One case of the executor properties (here and prepared.rs's): an
/// operation, a guard, register contents, an active mask, a target and a
/// warp.
pub(crate) type Case = (
    Op,
    Option<(RegId, bool)>,
    Vec<[u64; WARP_SIZE]>,
    u32,
    Target,
    u32,
);

/// A [`Case`] of any family.
pub(crate) fn case() -> impl Strategy<Value = Case> {
    (op(), guard(), registers(), active(), target(), any::<u32>())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    /// Video alone, many more cases: its loop is specialised per operation,
    /// lane count, `.sat` and `.add`, with i16 arithmetic for vop4.
    #[test]
    fn video_matches_scalar_reference(v in video(), contents in registers(), active in active()) {
        check(Op::Video(v), None, &contents, active, Target::SM_90, 0)?;
    }

    #[test]
    fn execute_matches_scalar_reference((op, guard, contents, active, target, warp_id) in case()) {
        check(op, guard.map(|(reg, negate)| Guard { reg, negate }), &contents, active, target, warp_id)?;
    }
}

/// Runs `op` through both executors on the same registers and compares every register.
pub(crate) fn check(
    op: Op,
    guard: Option<Guard>,
    contents: &[[u64; WARP_SIZE]],
    active: u32,
    target: Target,
    warp_id: u32,
) -> Result<(), TestCaseError> {
    let inst = Instruction { guard, op };
    let ctx = ExecCtx::new(target, warp_id);
    let mut fast = WarpRegs::new(NREGS as usize);
    for (i, lanes) in contents.iter().enumerate() {
        *fast.get_mut(RegId(i as u32)) = *lanes;
    }
    let mut reference = fast.clone();
    execute(&inst, &ctx, &mut fast, active);
    execute_scalar(&inst, &ctx, &mut reference, active);
    prop_assert_eq!(fast, reference, "{:?}", inst);
    Ok(())
}

/// Every plain (default selectors, full mask) video variant, which is where
/// `execute` computes at element width when the results fit: each op, lane
/// count, signedness of d/a/b, `.sat` and `.add`, on registers whose elements
/// sit on the width's edges (0, 1, 0x7F/0x80/0xFF and the 16-bit ones), so
/// every saturation, sign and wrap boundary meets every other; their high
/// words clear and holding stale bits (the narrow paths compute over whole
/// 64-bit lanes and must drop what the high words give).
#[test]
fn plain_video_variants_match_scalar_reference() {
    let elems8: [u64; 8] = [0x00, 0x01, 0x7E, 0x7F, 0x80, 0x81, 0xFE, 0xFF];
    let elems16: [u64; 8] = [
        0x0000, 0x0001, 0x7FFE, 0x7FFF, 0x8000, 0x8001, 0xFFFE, 0xFFFF,
    ];
    // Register r, lane l: elements drawn from the edge list by (r, l, position),
    // so a and b pair up differently in every lane.
    let contents = |x4: bool, stale: u64| -> Vec<[u64; WARP_SIZE]> {
        (0..NREGS as u64)
            .map(|r| {
                std::array::from_fn(|l| {
                    let l = l as u64;
                    let high = stale.rotate_left((r * 7 + l) as u32) << 32;
                    high | if x4 {
                        (0..4).fold(0, |w, i| {
                            w | elems8[((l + r * 3 + i * 5 + (l >> 3) * i) % 8) as usize] << (8 * i)
                        })
                    } else {
                        (0..2).fold(0, |w, i| {
                            w | elems16[((l + r * 5 + i * 3 + (l >> 3) * i) % 8) as usize]
                                << (16 * i)
                        })
                    }
                })
            })
            .collect()
    };
    let ops = ARITH_VIDEO_OPS
        .into_iter()
        .chain(vset_cmps().into_iter().map(VideoOp::Set));
    let mut n = 0;
    for op in ops {
        for (x4, stale) in [false, true]
            .into_iter()
            .flat_map(|x4| [(x4, 0), (x4, 0xA5C3_0F96)])
        {
            let regs = contents(x4, stale);
            for bits in 0..32u8 {
                let v = plain_video(op, x4, bits);
                for active in [u32::MAX, 0x5A5A_A5A5] {
                    check(Op::Video(v), None, &regs, active, Target::SM_90, 0).unwrap();
                    n += 1;
                }
            }
        }
    }
    assert_eq!(n, 12 * 2 * 2 * 32 * 2);
}

/// A plain video instruction (default selectors, every element on) of
/// operation `op`, x4 or x2, with its five flags (`dsigned`, `asigned`,
/// `bsigned`, `sat`, `add`) from bits 0..5 of `bits`.
pub(crate) fn plain_video(op: VideoOp, x4: bool, bits: u8) -> Video {
    let f = |k: u8| bits >> k & 1 == 1;
    Video {
        op,
        simd: if x4 { Simd::X4 } else { Simd::X2 },
        dsigned: f(0),
        asigned: f(1),
        bsigned: f(2),
        sat: f(3),
        add: f(4),
        mask: 0xF,
        mask_explicit: false,
        asel: [0, 1, 2, 3],
        bsel: if x4 { [4, 5, 6, 7] } else { [2, 3, 0, 1] },
        asel_explicit: false,
        bsel_explicit: false,
        sat_first: false,
        d: RegId(0),
        a: RegId(1),
        b: RegId(2),
        c: RegId(3),
    }
}
