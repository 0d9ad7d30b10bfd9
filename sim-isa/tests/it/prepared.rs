//! `execute_prepared` against `execute_fitted`: an instruction decoded once
//! by `Prepared::new` must write exactly what `execute_fitted` writes, for
//! random instructions of every family (the specialised ones and those
//! that fall back), random register contents, guards, active masks,
//! targets and warps. Every register must come out bit-identical.

use super::fastpath::{active, case, guard, plain_video, registers, video, ARITH_VIDEO_OPS, NREGS};
use proptest::prelude::*;
use sim_isa::exec::{execute_fitted, execute_prepared, Prepared};
use sim_isa::*;

// The properties take fastpath.rs's strategies; only the check differs.
proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    /// Video alone, many more cases: its forms (narrow, plain, general)
    /// are decided at preparation.
    #[test]
    fn prepared_video_matches_fitted(
        v in video(),
        guard in guard(),
        contents in registers(),
        active in active(),
    ) {
        check(Op::Video(v), guard, &contents, active, Target::SM_90, 0)?;
    }

    #[test]
    fn prepared_matches_fitted((op, guard, contents, active, target, warp_id) in case()) {
        check(op, guard, &contents, active, target, warp_id)?;
    }
}

/// Runs `op` through both paths on the same registers, twice in a row (a
/// prepared instruction is reused), and compares every register.
fn check(
    op: Op,
    guard: Option<(RegId, bool)>,
    contents: &[[u64; WARP_SIZE]],
    active: u32,
    target: Target,
    warp_id: u32,
) -> Result<(), TestCaseError> {
    let inst = Instruction {
        guard: guard.map(|(reg, negate)| Guard { reg, negate }),
        op,
    };
    let ctx = ExecCtx::new(target, warp_id);
    let mut fitted = WarpRegs::new(NREGS as usize);
    for (i, lanes) in contents.iter().enumerate() {
        *fitted.get_mut(RegId(i as u32)) = *lanes;
    }
    let mut prepared = fitted.clone();
    let p = Prepared::new(&inst, target);
    for _ in 0..2 {
        execute_fitted(&inst, &ctx, &mut fitted, active);
        execute_prepared(&p, &ctx, &mut prepared, active);
        prop_assert_eq!(&prepared, &fitted, "{:?}", inst);
    }
    Ok(())
}

/// The families the benchmark trace runs are specialised (not run through
/// the fallback), and a prepared instruction stays small.
#[test]
fn trace_families_are_specialised() {
    let texts = [
        "vadd4.u32.u32.u32.sat %r0, %r0, %k0, %k1;",
        "vabsdiff4.u32.u32.u32.add %r0, %r0, %k0, %r0;",
        "vavrg2.u32.u32.u32 %r0, %r0, %k0, %k1;",
        "vset4.u32.u32.lt %r0, %r0, %k0, %k1;",
        "vsub4.u32.s32.s32 %r0.b310, %r0.b7320, %k0.b0145, %k1;",
        "set.lt.u32.u32 %r0, %r0, %k0;",
        "set.gtu.f16x2.f16x2 %r0, %r0, %k1;",
        "set.num.xor.s32.f64 %x, %y, %z, !%q;",
        "setp.lt.s32 %q, %r0, %k0;",
        "setp.ne.and.u32 %q, %r0, %k1, !%q;",
        "selp.b32 %r0, %r0, %k0, %q;",
        "slct.ftz.f32.f32 %r0, %r0, %k0, %k1;",
        "add.u32 %r0, %r0, %k0;",
        "xor.b32 %r0, %r0, %k1;",
        "shr.s32 %r0, %r0, %k1;",
        // The SGEMM's address arithmetic.
        "mad.lo.s32 %r0, %r0, %k0, %k1;",
        "mul.wide.s32 %w, %r0, 4;",
        "mul.wide.u16 %r0, %r0, %k1;",
    ];
    for text in texts {
        let mut syms = Symbols::new();
        for r in ["%r0", "%k0", "%k1"] {
            syms.declare(r, Type::B32);
        }
        for r in ["%x", "%y", "%z"] {
            syms.declare(r, Type::F64);
        }
        syms.declare("%w", Type::B64);
        syms.declare("%q", Type::Pred);
        let inst = parse::parse_for_target(text, &mut syms, Target::SM_90, None)
            .unwrap_or_else(|e| panic!("`{text}`: {e}"));
        assert!(
            Prepared::new(&inst, Target::SM_90).is_specialised(),
            "{text}"
        );
    }
    assert!(std::mem::size_of::<Prepared>() <= 192);
}

/// Every plain video variant (each op, vset comparison, lane count,
/// signedness of d/a/b, `.sat` and `.add`): the narrow ones run kernels
/// compiled per operation, each of which must meet registers whose
/// elements sit on the 8- and 16-bit edges, high words holding stale bits.
#[test]
fn prepared_plain_video_variants_match_fitted() {
    const EDGES: [u64; 8] = [0x00, 0x01, 0x7E, 0x7F, 0x80, 0x81, 0xFE, 0xFF];
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let contents: Vec<[u64; WARP_SIZE]> = (0..NREGS)
        .map(|_| {
            std::array::from_fn(|_| {
                (0..8).fold(0u64, |w, i| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    w | EDGES[(x >> 61) as usize] << (8 * i)
                })
            })
        })
        .collect();
    let ops = ARITH_VIDEO_OPS
        .into_iter()
        .chain(CmpOp::ALL.into_iter().map(VideoOp::Set));
    for op in ops {
        for x4 in [false, true] {
            for bits in 0..32u8 {
                let v = plain_video(op, x4, bits);
                for active in [u32::MAX, 0x5A5A_A5A5] {
                    check(Op::Video(v), None, &contents, active, Target::SM_90, 0).unwrap();
                }
            }
        }
    }
}
