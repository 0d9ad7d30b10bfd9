//! The conversion family's decoded form (`cvt`, PTX ISA 9.7.9.21), re-exported
//! by `inst`: the destination and source types (which include the 8-bit
//! integers, absent from [`Type`]), the rounding modifier, `.ftz`, `.sat`.

use crate::operand::{Operand, RegId, Type};

crate::type_set! {
    /// A `cvt` type: [`Type`]'s integer and float names plus `.u8`/`.s8`,
    /// which only `cvt` takes, and the fp8 pairs. `.f16x2` is two f32 sources
    /// packed, or two fp8s widened (the source of an fp8 conversion);
    /// `.bf16x2` a destination only (two f32 sources packed).
    pub enum CvtType {
        U8, U16, U32, U64,
        S8, S16, S32, S64,
        F16, Bf16, F32, F64,
        F16x2, Bf16x2, E4m3x2, E5m2x2,
    }
}

impl CvtType {
    /// The element width of a packed type (`.f16x2` holds two 16-bit
    /// `.f16`s, `.e4m3x2` two bytes).
    pub const fn packed(self) -> Option<u32> {
        match self {
            CvtType::F16x2 | CvtType::Bf16x2 => Some(16),
            CvtType::E4m3x2 | CvtType::E5m2x2 => Some(8),
            CvtType::U8
            | CvtType::U16
            | CvtType::U32
            | CvtType::U64
            | CvtType::S8
            | CvtType::S16
            | CvtType::S32
            | CvtType::S64
            | CvtType::F16
            | CvtType::Bf16
            | CvtType::F32
            | CvtType::F64 => None,
        }
    }

    /// The register type that holds it (and reads its immediates): 8-bit
    /// integers live in 16-bit registers.
    pub const fn reg_type(self) -> Type {
        match self {
            CvtType::U8 | CvtType::U16 => Type::U16,
            CvtType::S8 | CvtType::S16 => Type::S16,
            CvtType::U32 => Type::U32,
            CvtType::U64 => Type::U64,
            CvtType::S32 => Type::S32,
            CvtType::S64 => Type::S64,
            CvtType::F16 => Type::F16,
            CvtType::Bf16 => Type::Bf16,
            CvtType::F32 => Type::F32,
            CvtType::F64 => Type::F64,
            CvtType::F16x2 => Type::F16x2,
            CvtType::Bf16x2 => Type::Bf16x2,
            CvtType::E4m3x2 | CvtType::E5m2x2 => Type::B16,
        }
    }
}

/// `cvt`'s rounding modifier: `.rn .rz .rm .rp` (floating-point results),
/// `.rni .rzi .rmi .rpi` (to an integral value).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CvtRnd {
    /// `.rn`
    Rn,
    /// `.rz`
    Rz,
    /// `.rm`
    Rm,
    /// `.rp`
    Rp,
    /// `.rni`
    Rni,
    /// `.rzi`
    Rzi,
    /// `.rmi`
    Rmi,
    /// `.rpi`
    Rpi,
}

impl CvtRnd {
    /// Every rounding modifier.
    pub const ALL: [CvtRnd; 8] = [
        CvtRnd::Rn,
        CvtRnd::Rz,
        CvtRnd::Rm,
        CvtRnd::Rp,
        CvtRnd::Rni,
        CvtRnd::Rzi,
        CvtRnd::Rmi,
        CvtRnd::Rpi,
    ];

    /// The modifier without its dot.
    pub const fn name(self) -> &'static str {
        match self {
            CvtRnd::Rn => "rn",
            CvtRnd::Rz => "rz",
            CvtRnd::Rm => "rm",
            CvtRnd::Rp => "rp",
            CvtRnd::Rni => "rni",
            CvtRnd::Rzi => "rzi",
            CvtRnd::Rmi => "rmi",
            CvtRnd::Rpi => "rpi",
        }
    }
}

/// `cvt{.rnd}{.ftz}{.sat}{.satfinite}{.relu}.dtype.atype d, a{, b}` (`b`
/// only for a packed destination from two f32 sources: `a` goes to the
/// upper half), and `cvt.pack.sat.{u16,s16}.s32 d, a, b` /
/// `cvt.pack.sat.{u8,s8}.s32.b32 d, a, b, c` (`pack`: `a` and `b`
/// saturated to the type and packed, `b` lowest; the 8-bit forms put `c`'s
/// low half above them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cvt {
    /// Rounding modifier.
    pub rnd: Option<CvtRnd>,
    /// `.ftz`: f32 subnormal inputs and results flush to signed zero.
    pub ftz: bool,
    /// `.sat`: clamp to the destination's range (`[0.0, 1.0]` for floats).
    pub sat: bool,
    /// `.satfinite`: overflow and infinity give the largest finite value of
    /// the source's sign; NaN stays NaN.
    pub satfinite: bool,
    /// `.relu`: negative results give +0; NaN gives the canonical NaN.
    pub relu: bool,
    /// Destination type.
    pub dtype: CvtType,
    /// Source type.
    pub atype: CvtType,
    /// Destination.
    pub d: RegId,
    /// Source (the upper half for packed destinations).
    pub a: Operand,
    /// Second source of a packed destination (its lower half).
    pub b: Option<Operand>,
    /// `.pack` (with `.sat`; `dtype` is the element type, `atype` `.s32`).
    pub pack: bool,
    /// `cvt.pack`'s third source (`.b32`, the 8-bit forms).
    pub c: Option<Operand>,
}

impl Cvt {
    /// The destination register's type: `.b32` for `cvt.pack`, else the
    /// register that holds `dtype`.
    pub const fn d_type(&self) -> Type {
        if self.pack {
            Type::B32
        } else {
            self.dtype.reg_type()
        }
    }
}
