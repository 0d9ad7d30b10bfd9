//! The gates of the families declared in `mod.rs` (the half forms',
//! async copies', memory's, WMMA's and the carry forms' live with their
//! families): each a target feature and PTX version some instructions
//! need, declared once as data (`Gate`).

use super::{bit, cvt, BitWord, Gate, OpTag};
use crate::inst::{CvtType, FloatOp, Instruction, MemOp, MmaShape, Op, Type, WarpOp};
use crate::target::Feature;
use Type as T;

fn set_types(i: &Instruction) -> Option<(Type, Type)> {
    if let Op::Set(s) = i.op {
        Some((s.dtype, s.stype))
    } else {
        None
    }
}
fn is_f16(t: Type) -> bool {
    matches!(t, T::F16 | T::F16x2)
}
fn is_bf16(t: Type) -> bool {
    matches!(t, T::Bf16 | T::Bf16x2)
}

/// Every gate but the half forms'. `check_target` tests all target gates
/// first, then all version gates, so an instruction failing both reports
/// the target.
// A table: its entries' alike shape is the data (one gate each), and stays.
pub(crate) const GATES: &[Gate] = &[
    Gate {
        what: "SIMD video instruction",
        feature: Some(Feature::Video),
        ptx: (3, 0),
        on: &[OpTag::Video],
        applies: |i| matches!(i.op, Op::Video(_)),
    },
    Gate {
        what: "set with an f64 source",
        feature: Some(Feature::F64),
        ptx: (1, 0),
        on: &[OpTag::Set],
        applies: |i| set_types(i).is_some_and(|(_, s)| s == T::F64),
    },
    Gate {
        what: "setp with an f64 source",
        feature: Some(Feature::F64),
        ptx: (1, 0),
        on: &[OpTag::Setp],
        applies: |i| matches!(i.op, Op::Setp(s) if s.ty == T::F64),
    },
    Gate {
        what: "selp.f64",
        feature: Some(Feature::F64),
        ptx: (1, 0),
        on: &[OpTag::Selp],
        applies: |i| matches!(i.op, Op::Selp(s) if s.ty == T::F64),
    },
    Gate {
        what: "slct.f64",
        feature: Some(Feature::F64),
        ptx: (1, 0),
        on: &[OpTag::Slct],
        applies: |i| matches!(i.op, Op::Slct(s) if s.dtype == T::F64),
    },
    Gate {
        what: "set with an f16 source",
        feature: Some(Feature::F16Set),
        ptx: (4, 2),
        on: &[OpTag::Set],
        applies: |i| set_types(i).is_some_and(|(_, s)| is_f16(s)),
    },
    Gate {
        what: "set with an f16 destination",
        feature: Some(Feature::F16Set),
        ptx: (4, 2),
        on: &[OpTag::Set],
        applies: |i| set_types(i).is_some_and(|(d, _)| is_f16(d)),
    },
    Gate {
        what: "set with an integer destination from an f16 source",
        feature: Some(Feature::F16Set),
        ptx: (6, 5),
        on: &[OpTag::Set],
        applies: |i| {
            set_types(i)
                .is_some_and(|(d, s)| is_f16(s) && matches!(d, T::U16 | T::S16 | T::U32 | T::S32))
        },
    },
    Gate {
        what: "setp with an f16 source",
        feature: Some(Feature::F16Set),
        ptx: (4, 2),
        on: &[OpTag::Setp],
        applies: |i| matches!(i.op, Op::Setp(s) if is_f16(s.ty)),
    },
    Gate {
        what: "setp with a bf16 source",
        feature: Some(Feature::Bf16),
        ptx: (7, 8),
        on: &[OpTag::Setp],
        applies: |i| matches!(i.op, Op::Setp(s) if is_bf16(s.ty)),
    },
    Gate {
        what: "set with a bf16 source",
        feature: Some(Feature::Bf16),
        ptx: (7, 8),
        on: &[OpTag::Set],
        applies: |i| set_types(i).is_some_and(|(_, s)| is_bf16(s)),
    },
    Gate {
        what: "set with a bf16 destination",
        feature: Some(Feature::Bf16),
        ptx: (7, 8),
        on: &[OpTag::Set],
        applies: |i| set_types(i).is_some_and(|(d, _)| is_bf16(d)),
    },
    Gate {
        what: "popc, clz, brev, bfe, bfi or prmt",
        feature: Some(Feature::BitField),
        ptx: (2, 0),
        on: &[OpTag::Bit],
        applies: |i| {
            bit::is_word(
                i,
                &[
                    BitWord::Popc,
                    BitWord::Clz,
                    BitWord::Brev,
                    BitWord::Bfe,
                    BitWord::Bfi,
                    BitWord::Prmt,
                ],
            )
        },
    },
    // The manual: PTX 2.0, sm_20 (`.f64` also needs double precision);
    // ptxas 13.0.88 knows no target below sm_75 and ptxas 11.8 none below
    // sm_35, where both accept it (tests/data/testp-ptxas.txt).
    Gate {
        what: "testp",
        feature: Some(Feature::BitField),
        ptx: (2, 0),
        on: &[OpTag::Bit],
        applies: |i| bit::is_word(i, &[BitWord::Testp]),
    },
    Gate {
        what: "testp.f64",
        feature: Some(Feature::F64),
        ptx: (1, 0),
        on: &[OpTag::Bit],
        applies: |i| matches!(i.op, Op::Bit(b) if bit::is_word(i, &[BitWord::Testp]) && b.ty == T::F64),
    },
    // The manual: PTX 6.0, sm_30; ptxas 11.8 accepts it on sm_50 from 6.0
    // and not at 5.0 (tests/data/fns-ptxas.txt).
    Gate {
        what: "fns",
        feature: Some(Feature::Fns),
        ptx: (6, 0),
        on: &[OpTag::Bit],
        applies: |i| bit::is_word(i, &[BitWord::Fns]),
    },
    // The manual: PTX 7.6, sm_70; ptxas 11.8 refuses it on sm_50 and takes
    // it on sm_70 from 7.6, not at 7.5 (tests/data/bmsk-ptxas.txt).
    Gate {
        what: "bmsk",
        feature: Some(Feature::Bmsk),
        ptx: (7, 6),
        on: &[OpTag::Bit],
        applies: |i| bit::is_word(i, &[BitWord::Bmsk]),
    },
    Gate {
        what: "shf",
        feature: Some(Feature::FunnelShift),
        ptx: (3, 1),
        on: &[OpTag::Bit],
        applies: |i| bit::is_word(i, &[BitWord::Shf]),
    },
    Gate {
        what: "lop3",
        feature: Some(Feature::Lop3),
        ptx: (4, 3),
        on: &[OpTag::Bit],
        applies: |i| bit::is_word(i, &[BitWord::Lop3]),
    },
    Gate {
        what: "cvt with an f64 type",
        feature: Some(Feature::F64),
        ptx: (1, 0),
        on: &[OpTag::Cvt],
        applies: |i| cvt_types(i).is_some_and(|(d, a)| d == CvtType::F64 || a == CvtType::F64),
    },
    // ptxas 13.0.88 (tests/data/cvt-bf16-gates.txt): f32 to bf16 from
    // sm_80 and PTX 7.0, bf16 to f32 from sm_80 and PTX 7.8, bf16 with any
    // other type from sm_90.
    Gate {
        what: "cvt from f32 to bf16",
        feature: Some(Feature::Bf16Convert),
        ptx: (7, 0),
        on: &[OpTag::Cvt],
        applies: |i| cvt_types(i).is_some_and(|(d, a)| is_bf16_cvt(d) && a == CvtType::F32),
    },
    Gate {
        what: "cvt from bf16 to f32",
        feature: Some(Feature::Bf16Convert),
        ptx: (7, 8),
        on: &[OpTag::Cvt],
        applies: |i| cvt_types(i).is_some_and(|(d, a)| d == CvtType::F32 && is_bf16_cvt(a)),
    },
    Gate {
        what: "cvt with a bf16 type",
        feature: Some(Feature::Bf16),
        ptx: (7, 8),
        on: &[OpTag::Cvt],
        applies: |i| {
            cvt_types(i).is_some_and(|(d, a)| {
                (is_bf16_cvt(d) || is_bf16_cvt(a)) && d != CvtType::F32 && a != CvtType::F32
            })
        },
    },
    Gate {
        what: "cvt to f16x2",
        feature: Some(Feature::CvtPacked),
        ptx: (7, 0),
        on: &[OpTag::Cvt],
        applies: |i| cvt_types(i).is_some_and(|(d, a)| d == CvtType::F16x2 && a == CvtType::F32),
    },
    // ptxas 13.0.88 (tests/data/cvt-fp8-ptxas.txt; sm_89's extra demand
    // of PTX 8.1 is cvt::LOW_TARGET_GATES).
    Gate {
        what: "cvt with .e4m3x2/.e5m2x2",
        feature: Some(Feature::Fp8Convert),
        ptx: (7, 8),
        on: &[OpTag::Cvt],
        applies: |i| matches!(i.op, Op::Cvt(c) if cvt::is_fp8_cvt(&c)),
    },
    // ptxas 11.8 and 13.0.88: "Feature 'cvt.pack' requires .target sm_72
    // or higher", PTX 6.5 (tests/data/cvt-pack-ptxas.txt).
    Gate {
        what: "cvt.pack",
        feature: Some(Feature::CvtPack),
        ptx: (6, 5),
        on: &[OpTag::Cvt],
        applies: |i| matches!(i.op, Op::Cvt(c) if c.pack),
    },
    Gate {
        what: "cvt with .relu",
        feature: Some(Feature::CvtRelu),
        ptx: (7, 0),
        on: &[OpTag::Cvt],
        applies: |i| matches!(i.op, Op::Cvt(c) if c.relu),
    },
    // ptxas 12.4: "Feature '.satfinite' requires .target sm_70 or higher"
    // (13.0.88 knows no target below sm_75, where it accepts it).
    Gate {
        what: "cvt.satfinite to f16 or bf16",
        feature: Some(Feature::CvtSatfinite),
        ptx: (8, 1),
        on: &[OpTag::Cvt],
        applies: |i| matches!(i.op, Op::Cvt(c) if c.satfinite && !cvt::is_fp8_cvt(&c)),
    },
    Gate {
        what: "f64 arithmetic",
        feature: Some(Feature::F64),
        ptx: (1, 0),
        on: &[OpTag::Float],
        applies: |i| matches!(i.op, Op::Float(x) if x.ty == T::F64),
    },
    // ptxas 11.8 on sm_35: "Feature 'rcp.approx.f64' requires PTX ISA
    // .version 2.1 or later", "Feature 'rsqrt.approx.ftz.f64' requires PTX
    // ISA .version 4.0 or later" (`tests/data/approx-f64-ptxas.txt`).
    Gate {
        what: "rcp.approx.f64",
        feature: Some(Feature::F64),
        ptx: (2, 1),
        on: &[OpTag::Float],
        applies: |i| matches!(i.op, Op::Float(x) if x.ty == T::F64 && x.op == FloatOp::Rcp && x.approx.is_some()),
    },
    Gate {
        what: "rsqrt.approx.ftz.f64",
        feature: Some(Feature::F64),
        ptx: (4, 0),
        on: &[OpTag::Float],
        applies: |i| matches!(i.op, Op::Float(x) if x.ty == T::F64 && x.op == FloatOp::Rsqrt && x.ftz),
    },
    Gate {
        what: "packed 16-bit integer arithmetic (.u16x2/.s16x2)",
        feature: Some(Feature::IntPacked16),
        ptx: (8, 0),
        on: &[OpTag::Int],
        applies: |i| matches!(i.op, Op::Int(x) if x.ty.is_packed16()),
    },
    Gate {
        what: "min/max with .relu",
        feature: Some(Feature::IntPacked16),
        ptx: (8, 0),
        on: &[OpTag::Int],
        applies: |i| matches!(i.op, Op::Int(x) if x.relu),
    },
    Gate {
        what: "dp4a or dp2a",
        feature: Some(Feature::IntDot),
        ptx: (5, 0),
        on: &[OpTag::Int],
        applies: |i| matches!(i.op, Op::Int(x) if x.op.is_dot()),
    },
    Gate {
        what: "min/max with .NaN",
        feature: Some(Feature::MinMaxNaN),
        ptx: (7, 0),
        on: &[OpTag::Float],
        applies: |i| matches!(i.op, Op::Float(x) if x.nan),
    },
    // The warp family: ptxas 13.0.88 and 11.8's verdicts
    // (`tests/data/warp-ptxas.txt`). `nanosleep` needs PTX 6.2 there, where
    // the manual says 6.3.
    Gate {
        what: "bar.warp.sync",
        feature: Some(Feature::WarpSync),
        ptx: (6, 0),
        on: &[OpTag::Warp],
        applies: |i| warp_is(i, |o| o == WarpOp::WarpSync),
    },
    Gate {
        what: "redux.sync",
        feature: Some(Feature::Redux),
        ptx: (7, 0),
        on: &[OpTag::Warp],
        applies: |i| warp_is(i, |o| matches!(o, WarpOp::Redux(_))),
    },
    Gate {
        what: "match.sync",
        feature: Some(Feature::Volta),
        ptx: (6, 0),
        on: &[OpTag::Warp],
        applies: |i| warp_is(i, |o| matches!(o, WarpOp::Match { .. })),
    },
    Gate {
        what: "nanosleep",
        feature: Some(Feature::Volta),
        ptx: (6, 2),
        on: &[OpTag::Warp],
        applies: |i| warp_is(i, |o| o == WarpOp::Nanosleep),
    },
    Gate {
        what: "elect.sync",
        feature: Some(Feature::Elect),
        ptx: (8, 0),
        on: &[OpTag::Warp],
        applies: |i| warp_is(i, |o| o == WarpOp::Elect),
    },
    Gate {
        what: "bar.red",
        feature: Some(Feature::BarRed),
        ptx: (2, 0),
        on: &[OpTag::Warp],
        applies: |i| warp_is(i, |o| matches!(o, WarpOp::BarRed(_))),
    },
    Gate {
        what: "barrier.red",
        feature: None,
        ptx: (6, 0),
        on: &[OpTag::Warp],
        applies: |i| {
            warp_is(i, |o| matches!(o, WarpOp::BarRed(_)))
                && warp_word(i).is_some_and(|w| w.starts_with("barrier."))
        },
    },
    Gate {
        what: "bar.cta.red",
        feature: None,
        ptx: (7, 8),
        on: &[OpTag::Warp],
        applies: |i| warp_word(i).is_some_and(|w| w.starts_with("bar.cta.red.")),
    },
    // The tensor-core family: ptxas 13.0.88's verdicts
    // (`tests/data/mma-ptxas.txt`).
    Gate {
        what: "ldmatrix",
        feature: Some(Feature::MatrixTuring),
        ptx: (6, 5),
        on: &[OpTag::Mem],
        applies: |i| matches!(i.op, Op::Mem(m) if matches!(m.op, MemOp::Ldmatrix { .. })),
    },
    Gate {
        what: "stmatrix",
        feature: Some(Feature::Stmatrix),
        ptx: (7, 8),
        on: &[OpTag::Mem],
        applies: |i| matches!(i.op, Op::Mem(m) if matches!(m.op, MemOp::Stmatrix { .. })),
    },
    Gate {
        what: "movmatrix",
        feature: Some(Feature::MatrixTuring),
        ptx: (7, 8),
        on: &[OpTag::Warp],
        applies: |i| warp_is(i, |o| o == WarpOp::Movmatrix),
    },
    Gate {
        what: "mma.m16n8k8 with f16",
        feature: Some(Feature::MatrixTuring),
        ptx: (6, 5),
        on: &[OpTag::Mma],
        applies: |i| matches!(i.op, Op::Mma(m) if m.shape == MmaShape::M16n8k8),
    },
    Gate {
        what: "mma.m16n8k16, mma.m16n8k32, mma.m8n8k4.f64 or mma with bf16",
        feature: Some(Feature::MmaAmpere),
        ptx: (7, 0),
        on: &[OpTag::Mma],
        applies: |i| matches!(i.op, Op::Mma(m) if m.needs_ampere()),
    },
];

fn is_bf16_cvt(t: CvtType) -> bool {
    matches!(t, CvtType::Bf16 | CvtType::Bf16x2)
}

/// Whether `i` is of the warp family with an operation `f` accepts.
fn warp_is(i: &Instruction, f: impl Fn(WarpOp) -> bool) -> bool {
    matches!(i.op, Op::Warp(w) if f(w.op))
}

/// The warp family's opcode as written, if `i` is of that family.
fn warp_word(i: &Instruction) -> Option<&'static str> {
    if let Op::Warp(w) = i.op {
        Some(w.word())
    } else {
        None
    }
}

fn cvt_types(i: &Instruction) -> Option<(CvtType, CvtType)> {
    if let Op::Cvt(c) = i.op {
        Some((c.dtype, c.atype))
    } else {
        None
    }
}
