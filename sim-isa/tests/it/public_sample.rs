//! A sample of `tests/data/public.jsonl` (36 vectors, `family` keys dropped)
//! run through the conformance runner with instructions translated by hand
//! from their text, so the runner and the executor are checked without the
//! parser, and a deliberately wrong translation must be caught.

use super::exec::video;
use sim_isa::conform::{run_vectors_with, Outcome};
use sim_isa::*;

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
/// One arm a line, kept from rustfmt: a table, read across.
#[rustfmt::skip]
fn sample_instruction(ptx: &str, s: &mut Symbols) -> Option<Instruction> {
    use CmpOp::*;
    use Simd::{X2, X4};
    use VideoOp::*;
    let d2 = [0, 1, 0, 0];
    let d2b = [2, 3, 0, 0];
    let d4 = [0, 1, 2, 3];
    let d4b = [4, 5, 6, 7];
    Some(match ptx {
        "vabsdiff2.s32.u32.u32.add %r1.h1, %r2, %r3.h03, %r4;" => vid(s, None, Absdiff, X2, [S, U, U], false, true, 0b10, d2, [3, 0, 0, 0], RS),
        "vavrg2.u32.s32.s32 %r1, %r2, %r3, %r4;" => vid(s, None, Avrg, X2, [U, S, S], false, false, 0b11, d2, d2b, RS),
        "vmin2.s32.s32.s32 %r1.h0, %r2, %r3.h12, %r4;" => vid(s, None, Min, X2, [S, S, S], false, false, 0b01, d2, [2, 1, 0, 0], RS),
        "@!%g vadd2.u32.u32.s32 %r1.h0, %r2, %r3, %r4;" => vid(s, Some(true), Add, X2, [U, U, S], false, false, 0b01, d2, d2b, RS),
        "@!%g vmax2.s32.s32.u32 %r1.h1, %r2.h12, %r3, %r4;" => vid(s, Some(true), Max, X2, [S, S, U], false, false, 0b10, [2, 1, 0, 0], d2b, RS),
        "vmax2.s32.u32.s32.sat %r1, %r2.h00, %r3, %r4;" => vid(s, None, Max, X2, [S, U, S], true, false, 0b11, [0, 0, 0, 0], d2b, RS),
        "@%g vset2.s32.s32.eq.add %r1.h1, %r2.h21, %r3, %r4;" => vid(s, Some(false), Set(Eq), X2, [U, S, S], false, true, 0b10, [1, 2, 0, 0], d2b, RS),
        "vset2.s32.s32.ge %r1.h1, %r2, %r3.h22, %r4;" => vid(s, None, Set(Ge), X2, [U, S, S], false, false, 0b10, d2, [2, 2, 0, 0], RS),
        "vset2.s32.u32.eq %r1, %r2.h12, %r3.h10, %r1;" => vid(s, None, Set(Eq), X2, [U, S, U], false, false, 0b11, [2, 1, 0, 0], [0, 1, 0, 0], RC1),
        "vmax4.u32.u32.s32 %r1.b321, %r2, %r3, %r4;" => vid(s, None, Max, X4, [U, U, S], false, false, 0b1110, d4, d4b, RS),
        "vavrg4.s32.s32.s32 %r1.b31, %r2.b2721, %r3.b0243, %r4;" => vid(s, None, Avrg, X4, [S, S, S], false, false, 0b1010, [1, 2, 7, 2], [3, 4, 2, 0], RS),
        "vsub4.s32.u32.u32.add %r1.b321, %r2, %r3.b3272, %r4;" => vid(s, None, Sub, X4, [S, U, U], false, true, 0b1110, d4, [2, 7, 2, 3], RS),
        "vsub4.u32.s32.u32.sat %r1.b0, %r2, %r3, %r1;" => vid(s, None, Sub, X4, [U, S, U], true, false, 0b0001, d4, d4b, RC1),
        "vmax4.s32.s32.u32.add %r1, %r2.b3106, %r3.b5654, %r4;" => vid(s, None, Max, X4, [S, S, U], false, true, 0b1111, [6, 0, 1, 3], [4, 5, 6, 5], RS),
        "vset4.u32.u32.ne.add %r1, %r2.b7550, %r3, %r1;" => vid(s, None, Set(Ne), X4, [U, U, U], false, true, 0b1111, [0, 5, 5, 7], d4b, RC1),
        "vset4.u32.s32.lt.add %r1, %r2.b1015, %r3.b7130, %r4;" => vid(s, None, Set(Lt), X4, [U, U, S], false, true, 0b1111, [5, 1, 0, 1], [0, 3, 1, 7], RS),
        "vset4.s32.s32.lt.add %r1.b1, %r2.b1503, %r3, %r4;" => vid(s, None, Set(Lt), X4, [U, S, S], false, true, 0b0010, [3, 0, 5, 1], d4b, RS),
        "vmin2.u32.u32.u32.add %r1.h0, %r2.h31, %r3.h20, %r1;" => vid(s, None, Min, X2, [U, U, U], false, true, 0b01, [1, 3, 0, 0], [0, 2, 0, 0], RC1),
        "@%g set.geu.and.f32.f32 %d, %a, %b, %p;" => hset(s, Some(false), Geu, Some((BoolOp::And, false)), Type::F32, Type::F32),
        "set.ne.and.f32.s16 %d, %a, %b, %p;" => hset(s, None, Ne, Some((BoolOp::And, false)), Type::F32, Type::S16),
        "set.ge.f32.u32 %d, %a, %b;" => hset(s, None, Ge, None, Type::F32, Type::U32),
        "setp.eq.f64 _|%p2, %a, %b;" => setp_i(s, Eq, None, false, Type::F64, None, Some(Some("%p2"))),
        "setp.gtu.or.ftz.f32 _|%p2, %a, %b, !%p3;" => setp_i(s, Gtu, Some((BoolOp::Or, true)), true, Type::F32, None, Some(Some("%p2"))),
        "setp.lt.and.s32 %p1|%p2, %a, %b, !%p3;" => setp_i(s, Lt, Some((BoolOp::And, true)), false, Type::S32, Some("%p1"), Some(Some("%p2"))),
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
        "@%g set.eq.u32.bf16x2 %d, %a, %b;" => hset(s, Some(false), Eq, None, Type::U32, Type::Bf16x2),
        "set.eq.xor.s32.bf16x2 %d, %a, %b, !%p;" => hset(s, None, Eq, Some((BoolOp::Xor, true)), Type::S32, Type::Bf16x2),
        "set.eq.xor.bf16x2.bf16x2 %d, %a, %b, %p;" => hset(s, None, Eq, Some((BoolOp::Xor, false)), Type::Bf16x2, Type::Bf16x2),
        "set.eq.and.u32.bf16x2 %d, %a, %b, %p;" => hset(s, None, Eq, Some((BoolOp::And, false)), Type::U32, Type::Bf16x2),
        "set.eq.and.bf16.b64 %d, %a, %b, %p;" => hset(s, None, Eq, Some((BoolOp::And, false)), Type::Bf16, Type::B64),
        "set.ge.xor.f16.s32 %d, %a, %b, %p;" => hset(s, None, Ge, Some((BoolOp::Xor, false)), Type::F16, Type::S32),
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
    // 36 lines of tests/data/public.jsonl (family keys dropped).
    let text = include_str!("../data/public_sample.jsonl");
    let report = run_vectors_with(text, sample_parse);
    let problems: Vec<String> = report.problems().map(|r| r.to_string()).collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert_eq!(report.summary_line(), "36 passed, 0 failed");
}

#[test]
fn public_sample_detects_a_wrong_simulator() {
    // Same vectors with vavrg mis-translated as vadd: the runner must report failures.
    let text = include_str!("../data/public_sample.jsonl");
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
