//! The instruction set as data: opcodes, per-family modifier/type/operand
//! rules and target gates. Parser, validator, `Display` and `check_target`
//! all read these tables; nothing here is repeated per variant.

use crate::inst::{AluOp, CmpOp, Instruction, Op, Simd, Type, TypeKind, VideoOp};
use crate::target::Feature;

/// Instruction families; each has one [`FamilySpec`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Family {
    /// vadd2 ... vmax4
    VideoArith,
    /// vset2 / vset4
    VideoSet,
    /// set (incl. half precision)
    Set,
    /// setp
    Setp,
    /// selp
    Selp,
    /// slct
    Slct,
    /// mov add sub mul and or xor shl shr
    Alu,
}

/// What an opcode word decodes to.
#[derive(Clone, Copy, Debug)]
pub(crate) struct OpcodeDef {
    pub name: &'static str,
    pub family: Family,
    /// Video op (`Set` carries a placeholder compare, replaced by the modifier).
    pub video: Option<(VideoOp, Simd)>,
    pub alu: Option<AluOp>,
}

const fn v(name: &'static str, op: VideoOp, s: Simd) -> OpcodeDef {
    let family = if matches!(op, VideoOp::Set(_)) {
        Family::VideoSet
    } else {
        Family::VideoArith
    };
    OpcodeDef {
        name,
        family,
        video: Some((op, s)),
        alu: None,
    }
}
const fn a(name: &'static str, op: AluOp) -> OpcodeDef {
    OpcodeDef {
        name,
        family: Family::Alu,
        video: None,
        alu: Some(op),
    }
}
const fn f(name: &'static str, family: Family) -> OpcodeDef {
    OpcodeDef {
        name,
        family,
        video: None,
        alu: None,
    }
}

/// Every opcode word.
pub(crate) const OPCODES: &[OpcodeDef] = &[
    v("vadd2", VideoOp::Add, Simd::X2),
    v("vsub2", VideoOp::Sub, Simd::X2),
    v("vavrg2", VideoOp::Avrg, Simd::X2),
    v("vabsdiff2", VideoOp::Absdiff, Simd::X2),
    v("vmin2", VideoOp::Min, Simd::X2),
    v("vmax2", VideoOp::Max, Simd::X2),
    v("vset2", VideoOp::Set(CmpOp::Eq), Simd::X2),
    v("vadd4", VideoOp::Add, Simd::X4),
    v("vsub4", VideoOp::Sub, Simd::X4),
    v("vavrg4", VideoOp::Avrg, Simd::X4),
    v("vabsdiff4", VideoOp::Absdiff, Simd::X4),
    v("vmin4", VideoOp::Min, Simd::X4),
    v("vmax4", VideoOp::Max, Simd::X4),
    v("vset4", VideoOp::Set(CmpOp::Eq), Simd::X4),
    f("set", Family::Set),
    f("setp", Family::Setp),
    f("selp", Family::Selp),
    f("slct", Family::Slct),
    a("mov", AluOp::Mov),
    a("add", AluOp::Add),
    a("sub", AluOp::Sub),
    a("mul", AluOp::MulLo),
    a("and", AluOp::And),
    a("or", AluOp::Or),
    a("xor", AluOp::Xor),
    a("shl", AluOp::Shl),
    a("shr", AluOp::Shr),
];

/// Opcode word of a decoded instruction (inverse of [`OPCODES`]).
pub(crate) fn opcode_name(op: &Op) -> &'static str {
    OPCODES
        .iter()
        .find(|d| match op {
            Op::Video(x) => d.video == Some((normalize(x.op), x.simd)),
            Op::Set(_) => d.family == Family::Set,
            Op::Setp(_) => d.family == Family::Setp,
            Op::Selp(_) => d.family == Family::Selp,
            Op::Slct(_) => d.family == Family::Slct,
            Op::Alu(x) => d.alu == Some(x.op),
        })
        .map_or("?", |d| d.name)
}

fn normalize(op: VideoOp) -> VideoOp {
    match op {
        VideoOp::Set(_) => VideoOp::Set(CmpOp::Eq),
        o => o,
    }
}

/// Modifier classes a family may carry (bit set).
pub(crate) mod m {
    pub const CMP: u8 = 1;
    pub const BOOL: u8 = 2;
    pub const FTZ: u8 = 4;
    pub const SAT: u8 = 8;
    pub const ADD: u8 = 16;
    pub const LO: u8 = 32;
}

/// How one operand position is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OperandKind {
    /// Register destination of the instruction's (first) type.
    Dst,
    /// Video destination with optional mask.
    VDst,
    /// Video source a/b with optional selector.
    VSrc,
    /// Video source c: register, no selector.
    VC,
    /// `p`, `p|q`, `_`, `_|q`, `p|_`.
    PredPair,
    /// Register or immediate of type slot 0 / 1 (index into the type list
    /// as the family defines it; see [`value_type`]).
    Value(u8),
    /// Register, immediate or `%laneid`/`%warpid` (mov).
    ValueOrSpecial,
    /// Shift amount: 32-bit register or immediate.
    Shift,
    /// `{!}c` predicate or 0/1 immediate.
    Pred,
}

/// One family's shape.
pub(crate) struct FamilySpec {
    pub family: Family,
    /// Exact number of type modifiers.
    pub ntypes: usize,
    /// Modifier classes allowed (besides types).
    pub allow: u8,
    /// Operands, without the optional BoolOp predicate.
    pub operands: &'static [OperandKind],
}

use OperandKind as K;

/// The family table.
pub(crate) const FAMILIES: &[FamilySpec] = &[
    FamilySpec {
        family: Family::VideoArith,
        ntypes: 3,
        allow: m::SAT | m::ADD,
        operands: &[K::VDst, K::VSrc, K::VSrc, K::VC],
    },
    FamilySpec {
        family: Family::VideoSet,
        ntypes: 2,
        allow: m::CMP | m::ADD,
        operands: &[K::VDst, K::VSrc, K::VSrc, K::VC],
    },
    FamilySpec {
        family: Family::Set,
        ntypes: 2,
        allow: m::CMP | m::BOOL | m::FTZ,
        operands: &[K::Dst, K::Value(1), K::Value(1)],
    },
    FamilySpec {
        family: Family::Setp,
        ntypes: 1,
        allow: m::CMP | m::BOOL | m::FTZ,
        operands: &[K::PredPair, K::Value(0), K::Value(0)],
    },
    FamilySpec {
        family: Family::Selp,
        ntypes: 1,
        allow: 0,
        operands: &[K::Dst, K::Value(0), K::Value(0), K::Pred],
    },
    FamilySpec {
        family: Family::Slct,
        ntypes: 2,
        allow: m::FTZ,
        operands: &[K::Dst, K::Value(0), K::Value(0), K::Value(1)],
    },
    FamilySpec {
        family: Family::Alu,
        ntypes: 1,
        allow: m::LO,
        operands: &[],
    },
];

/// The spec of `fam`.
pub(crate) fn family(fam: Family) -> &'static FamilySpec {
    FAMILIES
        .iter()
        .find(|s| s.family == fam)
        .unwrap_or(&FAMILIES[0])
}

/// ALU operand lists (they differ per operation).
pub(crate) fn alu_operands(op: AluOp) -> &'static [OperandKind] {
    match op {
        AluOp::Mov => &[K::Dst, K::ValueOrSpecial],
        AluOp::Shl | AluOp::Shr => &[K::Dst, K::Value(0), K::Shift],
        _ => &[K::Dst, K::Value(0), K::Value(0)],
    }
}

use Type as T;

/// The eleven scalar types of `set`/`setp`/`selp`/`slct` (9.7.6).
pub(crate) const SCALAR: &[Type] = &[
    T::B16,
    T::B32,
    T::B64,
    T::U16,
    T::U32,
    T::U64,
    T::S16,
    T::S32,
    T::S64,
    T::F32,
    T::F64,
];
const VIDEO_TYPES: &[Type] = &[T::U32, T::S32];
const INT_BITS: &[Type] = &[
    T::B16,
    T::B32,
    T::B64,
    T::U16,
    T::U32,
    T::U64,
    T::S16,
    T::S32,
    T::S64,
];
const INT_US: &[Type] = &[T::U16, T::U32, T::U64, T::S16, T::S32, T::S64];
const BITS: &[Type] = &[T::B16, T::B32, T::B64];
const SHR: &[Type] = INT_BITS;
const SC_F16: &[Type] = &[
    T::B16,
    T::B32,
    T::B64,
    T::U16,
    T::U32,
    T::U64,
    T::S16,
    T::S32,
    T::S64,
    T::F32,
    T::F64,
    T::F16,
];
const SC_F16_BF16: &[Type] = &[
    T::B16,
    T::B32,
    T::B64,
    T::U16,
    T::U32,
    T::U64,
    T::S16,
    T::S32,
    T::S64,
    T::F32,
    T::F64,
    T::F16,
    T::Bf16,
];

/// `set` dtype/stype pairs ptxas 11.8 accepts (sm_90, PTX 7.8), found by
/// assembling every pair of the 15 types: groups of (dtypes, stypes).
pub(crate) const SET_PAIRS: &[(&[Type], &[Type])] = &[
    (&[T::U32, T::S32, T::F32], SCALAR),
    (&[T::U32, T::S32], &[T::F16, T::F16x2, T::Bf16, T::Bf16x2]),
    (&[T::U16, T::S16], &[T::F16, T::Bf16]),
    (&[T::F16], SC_F16),
    (&[T::Bf16], SC_F16_BF16),
    (&[T::F16x2], &[T::F16x2]),
    (&[T::Bf16x2], &[T::Bf16x2]),
];

/// Whether the type list `tys` is legal for the family / opcode.
pub(crate) fn types_ok(fam: Family, alu: Option<AluOp>, tys: &[Type]) -> bool {
    let one = |set: &[Type]| tys.len() == 1 && set.contains(&tys[0]);
    match fam {
        Family::VideoArith | Family::VideoSet => tys.iter().all(|t| VIDEO_TYPES.contains(t)),
        Family::Set => {
            tys.len() == 2
                && SET_PAIRS
                    .iter()
                    .any(|(d, s)| d.contains(&tys[0]) && s.contains(&tys[1]))
        }
        Family::Setp | Family::Selp => one(SCALAR),
        Family::Slct => {
            tys.len() == 2 && SCALAR.contains(&tys[0]) && matches!(tys[1], T::S32 | T::F32)
        }
        Family::Alu => match alu {
            Some(AluOp::Mov) => one(INT_BITS) || one(&[T::F32, T::F64]),
            Some(AluOp::Add | AluOp::Sub | AluOp::MulLo) => one(INT_US),
            Some(AluOp::And | AluOp::Or | AluOp::Xor | AluOp::Shl) => one(BITS),
            Some(AluOp::Shr) => one(SHR),
            None => false,
        },
    }
}

/// Comparison operators allowed per source type class (errata 13, confirmed
/// with ptxas over every CmpOp x type of `setp`).
pub(crate) fn cmp_ok(kind: TypeKind, c: CmpOp) -> bool {
    use CmpOp::*;
    let ordered = matches!(c, Eq | Ne | Lt | Le | Gt | Ge);
    match kind {
        TypeKind::Bits => matches!(c, Eq | Ne),
        TypeKind::Signed => ordered,
        TypeKind::Unsigned => ordered || matches!(c, Lo | Ls | Hi | Hs),
        TypeKind::Float | TypeKind::BFloat => {
            ordered || matches!(c, Equ | Neu | Ltu | Leu | Gtu | Geu | Num | Nan)
        }
        TypeKind::Pred => false,
    }
}

/// Compares `vset2/4` accept (9.7.18.2.2).
pub(crate) fn vset_cmp_ok(c: CmpOp) -> bool {
    matches!(
        c,
        CmpOp::Eq | CmpOp::Ne | CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge
    )
}

/// `.ftz` legality (errata 18; ptxas: `set` accepts it for f32/f16/f16x2
/// sources unless the destination is bf16/bf16x2; `setp` for f32; `slct` for
/// an f32 `c`).
pub(crate) fn ftz_ok(fam: Family, tys: &[Type]) -> bool {
    match (fam, tys) {
        (Family::Set, [d, s]) => {
            matches!(s, T::F32 | T::F16 | T::F16x2) && !matches!(d, T::Bf16 | T::Bf16x2)
        }
        (Family::Setp, [t]) => *t == T::F32,
        (Family::Slct, [_, c]) => *c == T::F32,
        _ => false,
    }
}

/// A target / PTX-version requirement of some instructions.
pub(crate) struct Gate {
    /// The feature in words, for the error.
    pub what: &'static str,
    /// Minimum target feature.
    pub feature: Option<Feature>,
    /// Minimum PTX ISA version (major, minor).
    pub ptx: (u8, u8),
    /// Whether `inst` needs this.
    pub applies: fn(&Instruction) -> bool,
}

fn set_types(i: &Instruction) -> Option<(Type, Type)> {
    match i.op {
        Op::Set(s) => Some((s.dtype, s.stype)),
        _ => None,
    }
}
fn is_f16(t: Type) -> bool {
    matches!(t, T::F16 | T::F16x2)
}
fn is_bf16(t: Type) -> bool {
    matches!(t, T::Bf16 | T::Bf16x2)
}

/// Every gate. `check_target` tests all target gates first, then all version
/// gates, so an instruction failing both reports the target.
pub(crate) const GATES: &[Gate] = &[
    Gate {
        what: "SIMD video instruction",
        feature: Some(Feature::Video),
        ptx: (3, 0),
        applies: |i| matches!(i.op, Op::Video(_)),
    },
    Gate {
        what: "set with an f64 source",
        feature: Some(Feature::F64),
        ptx: (1, 0),
        applies: |i| set_types(i).is_some_and(|(_, s)| s == T::F64),
    },
    Gate {
        what: "setp with an f64 source",
        feature: Some(Feature::F64),
        ptx: (1, 0),
        applies: |i| matches!(i.op, Op::Setp(s) if s.ty == T::F64),
    },
    Gate {
        what: "selp.f64",
        feature: Some(Feature::F64),
        ptx: (1, 0),
        applies: |i| matches!(i.op, Op::Selp(s) if s.ty == T::F64),
    },
    Gate {
        what: "slct.f64",
        feature: Some(Feature::F64),
        ptx: (1, 0),
        applies: |i| matches!(i.op, Op::Slct(s) if s.dtype == T::F64),
    },
    Gate {
        what: "set with an f16 source",
        feature: Some(Feature::F16Set),
        ptx: (4, 2),
        applies: |i| set_types(i).is_some_and(|(_, s)| is_f16(s)),
    },
    Gate {
        what: "set with an f16 destination",
        feature: Some(Feature::F16Set),
        ptx: (4, 2),
        applies: |i| set_types(i).is_some_and(|(d, _)| is_f16(d)),
    },
    Gate {
        what: "set with an integer destination from an f16 source",
        feature: Some(Feature::F16Set),
        ptx: (6, 5),
        applies: |i| {
            set_types(i)
                .is_some_and(|(d, s)| is_f16(s) && matches!(d, T::U16 | T::S16 | T::U32 | T::S32))
        },
    },
    Gate {
        what: "set with a bf16 source",
        feature: Some(Feature::Bf16),
        ptx: (7, 8),
        applies: |i| set_types(i).is_some_and(|(_, s)| is_bf16(s)),
    },
    Gate {
        what: "set with a bf16 destination",
        feature: Some(Feature::Bf16),
        ptx: (7, 8),
        applies: |i| set_types(i).is_some_and(|(d, _)| is_bf16(d)),
    },
];
