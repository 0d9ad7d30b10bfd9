//! Operands and their types: registers, special registers, immediates,
//! predicate sources. Below every instruction family (`inst.rs`,
//! `bit_inst.rs`, `cvt_inst.rs`, `mem_inst.rs`), which all build on it.

/// Index of a register in a [`crate::Symbols`] table and in a warp register file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegId(pub u32);

/// Every fundamental type PTX spells (`.u32`, `.e4m3x2`, `.pred`): the one
/// vocabulary the type sets below are drawn from, so a name and its meaning
/// are written once. Each set ([`Type`], [`crate::CvtType`], sim-module's
/// `PtxType`) is its own enum declared by [`crate::type_set!`] as a subset:
/// `cvt` cannot take `.pred` nor a declaration `.e4m3x2`, and an exhaustive
/// match on a set places only that set's types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeName {
    /// `.b8`
    B8,
    /// `.b16`
    B16,
    /// `.b32`
    B32,
    /// `.b64`
    B64,
    /// `.b128`
    B128,
    /// `.u8`
    U8,
    /// `.u16`
    U16,
    /// `.u32`
    U32,
    /// `.u64`
    U64,
    /// `.s8`
    S8,
    /// `.s16`
    S16,
    /// `.s32`
    S32,
    /// `.s64`
    S64,
    /// `.u16x2`: two unsigned 16-bit halves of a 32-bit register (PTX 8.0).
    U16x2,
    /// `.s16x2`: two signed 16-bit halves.
    S16x2,
    /// `.f16`
    F16,
    /// `.f16x2`: two `.f16` in 32 bits.
    F16x2,
    /// `.bf16`
    Bf16,
    /// `.bf16x2`: two `.bf16` in 32 bits.
    Bf16x2,
    /// `.tf32`
    Tf32,
    /// `.f32`
    F32,
    /// `.f64`
    F64,
    /// `.e4m3x2`: two fp8 values (4 exponent, 3 mantissa bits, no
    /// infinities) in 16 bits, the first in the upper byte.
    E4m3x2,
    /// `.e5m2x2`: two fp8 values (5 exponent, 2 mantissa bits) in 16 bits.
    E5m2x2,
    /// `.pred`
    Pred,
}

impl TypeName {
    /// PTX spelling without the dot (`"u32"`).
    pub const fn name(self) -> &'static str {
        use TypeName::*;
        match self {
            B8 => "b8",
            B16 => "b16",
            B32 => "b32",
            B64 => "b64",
            B128 => "b128",
            U8 => "u8",
            U16 => "u16",
            U32 => "u32",
            U64 => "u64",
            S8 => "s8",
            S16 => "s16",
            S32 => "s32",
            S64 => "s64",
            U16x2 => "u16x2",
            S16x2 => "s16x2",
            F16 => "f16",
            F16x2 => "f16x2",
            Bf16 => "bf16",
            Bf16x2 => "bf16x2",
            Tf32 => "tf32",
            F32 => "f32",
            F64 => "f64",
            E4m3x2 => "e4m3x2",
            E5m2x2 => "e5m2x2",
            Pred => "pred",
        }
    }
}

/// Declares a set of PTX types as a subset of [`TypeName`]: an enum with the
/// listed variants (each a [`TypeName`] word) and `ALL` (declaration
/// order), `word`, `name`, `from_name` and `from_word`, so every set spells
/// its types through the one vocabulary.
#[macro_export]
macro_rules! type_set {
    ($(#[$m:meta])* $vis:vis enum $name:ident { $($v:ident),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis enum $name {
            $(
                #[doc = concat!("The vocabulary's `", stringify!($v), "`.")]
                $v,
            )+
        }

        impl $name {
            /// Every type of the set, in declaration order.
            pub const ALL: [$name; [$(stringify!($v)),+].len()] = [$($name::$v),+];

            /// The type's word in the vocabulary.
            pub const fn word(self) -> $crate::TypeName {
                match self {
                    $($name::$v => $crate::TypeName::$v,)+
                }
            }

            /// PTX spelling without the dot (`"u32"`).
            pub const fn name(self) -> &'static str {
                self.word().name()
            }

            /// The set's type spelled `s` (without the dot), if it has one.
            pub fn from_name(s: &str) -> Option<$name> {
                $name::ALL.into_iter().find(|t| t.name() == s)
            }

            /// The set's type for vocabulary word `w`, if it has one.
            pub fn from_word(w: $crate::TypeName) -> Option<$name> {
                $name::ALL.into_iter().find(|t| t.word() == w)
            }
        }
    };
}

type_set! {
    /// Scalar and packed data types that appear in instruction type suffixes.
    // `tests/it/enumerate_set.rs` reads eleven of these from the manual's
    // syntax blocks (`tests/data/set-core-types.txt`), an independent oracle.
    pub enum Type {
        B16, B32, B64,
        U16, U32, U64,
        S16, S32, S64,
        U16x2, S16x2,
        F16, F16x2, Bf16, Bf16x2, F32, F64,
        Pred,
    }
}

/// Broad class of a [`Type`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeKind {
    /// `.bN`
    Bits,
    /// `.uN`
    Unsigned,
    /// `.sN`
    Signed,
    /// `.f16 .f32 .f64` and `.f16x2`
    Float,
    /// `.bf16 .bf16x2`
    BFloat,
    /// `.pred`
    Pred,
}

impl Type {
    /// Register width in bits (1 for predicates).
    pub const fn bits(self) -> u32 {
        match self {
            Type::B16 | Type::U16 | Type::S16 | Type::F16 | Type::Bf16 => 16,
            Type::B32
            | Type::U32
            | Type::S32
            | Type::U16x2
            | Type::S16x2
            | Type::F32
            | Type::F16x2
            | Type::Bf16x2 => 32,
            Type::B64 | Type::U64 | Type::S64 | Type::F64 => 64,
            Type::Pred => 1,
        }
    }

    /// The type's class.
    pub const fn kind(self) -> TypeKind {
        match self {
            Type::B16 | Type::B32 | Type::B64 => TypeKind::Bits,
            Type::U16 | Type::U32 | Type::U64 | Type::U16x2 => TypeKind::Unsigned,
            Type::S16 | Type::S32 | Type::S64 | Type::S16x2 => TypeKind::Signed,
            Type::F16 | Type::F16x2 | Type::F32 | Type::F64 => TypeKind::Float,
            Type::Bf16 | Type::Bf16x2 => TypeKind::BFloat,
            Type::Pred => TypeKind::Pred,
        }
    }

    /// `.u16x2`/`.s16x2`: two 16-bit halves (PTX 8.0 packed integers).
    pub const fn is_packed16(self) -> bool {
        matches!(self, Type::U16x2 | Type::S16x2)
    }

    /// The type of one half of a packed type (`.u16x2` -> `.u16`); itself otherwise.
    pub const fn half(self) -> Type {
        match self {
            Type::U16x2 => Type::U16,
            Type::S16x2 => Type::S16,
            t => t,
        }
    }

    /// The integer type of twice the width and the same class (`.wide` results).
    pub const fn doubled(self) -> Option<Type> {
        match self {
            Type::U16 => Some(Type::U32),
            Type::U32 => Some(Type::U64),
            Type::S16 => Some(Type::S32),
            Type::S32 => Some(Type::S64),
            Type::B16 => Some(Type::B32),
            Type::B32 => Some(Type::B64),
            Type::B64
            | Type::U64
            | Type::S64
            | Type::U16x2
            | Type::S16x2
            | Type::F16
            | Type::F16x2
            | Type::Bf16
            | Type::Bf16x2
            | Type::F32
            | Type::F64
            | Type::Pred => None,
        }
    }
}

/// Special registers readable by `mov` (values from [`crate::exec::ExecCtx`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpecialReg {
    /// `%laneid`: 0..31.
    LaneId,
    /// `%warpid`: the warp's index in the launch.
    WarpId,
    /// `%tid.{x,y,z}` (component 0..2)
    Tid(u8),
    /// `%ntid.{x,y,z}`
    Ntid(u8),
    /// `%ctaid.{x,y,z}`
    Ctaid(u8),
    /// `%nctaid.{x,y,z}`
    Nctaid(u8),
    /// `%smid`
    SmId,
    /// `%nsmid`
    NsmId,
    /// `%nwarpid`
    NwarpId,
    /// `%gridid` (64-bit)
    GridId,
    /// `%clock`: low 32 bits of the cycle counter.
    Clock,
    /// `%clock_hi`: high 32 bits.
    ClockHi,
    /// `%clock64` (64-bit)
    Clock64,
    /// `%globaltimer` (64-bit, nanoseconds): here the cycle counter, one
    /// nanosecond a cycle (docs/async-copies.md).
    GlobalTimer,
    /// `%lanemask_eq`
    LanemaskEq,
    /// `%lanemask_le`
    LanemaskLe,
    /// `%lanemask_lt`
    LanemaskLt,
    /// `%lanemask_ge`
    LanemaskGe,
    /// `%lanemask_gt`
    LanemaskGt,
    /// `%dynamic_smem_size`
    DynamicSmemSize,
    /// `%total_smem_size`
    TotalSmemSize,
    /// `%envreg0`..`%envreg31` (the number): read-only `.b32` values the
    /// launch gives, 0 where it gives none. CUDA's runtime passes a
    /// cooperative launch's grid workspace in `%envreg1` (high half) and
    /// `%envreg2` (low half), where cooperative groups' `this_grid()` reads it.
    EnvReg(u8),
}

impl SpecialReg {
    /// Every special register with a value here, by name.
    pub const NAMED: [(&'static str, SpecialReg); 30] = [
        ("%laneid", SpecialReg::LaneId),
        ("%warpid", SpecialReg::WarpId),
        ("%tid.x", SpecialReg::Tid(0)),
        ("%tid.y", SpecialReg::Tid(1)),
        ("%tid.z", SpecialReg::Tid(2)),
        ("%ntid.x", SpecialReg::Ntid(0)),
        ("%ntid.y", SpecialReg::Ntid(1)),
        ("%ntid.z", SpecialReg::Ntid(2)),
        ("%ctaid.x", SpecialReg::Ctaid(0)),
        ("%ctaid.y", SpecialReg::Ctaid(1)),
        ("%ctaid.z", SpecialReg::Ctaid(2)),
        ("%nctaid.x", SpecialReg::Nctaid(0)),
        ("%nctaid.y", SpecialReg::Nctaid(1)),
        ("%nctaid.z", SpecialReg::Nctaid(2)),
        ("%smid", SpecialReg::SmId),
        ("%nsmid", SpecialReg::NsmId),
        ("%nwarpid", SpecialReg::NwarpId),
        ("%gridid", SpecialReg::GridId),
        ("%clock", SpecialReg::Clock),
        ("%clock_hi", SpecialReg::ClockHi),
        ("%clock64", SpecialReg::Clock64),
        ("%globaltimer", SpecialReg::GlobalTimer),
        ("%lanemask_eq", SpecialReg::LanemaskEq),
        ("%lanemask_le", SpecialReg::LanemaskLe),
        ("%lanemask_lt", SpecialReg::LanemaskLt),
        ("%lanemask_ge", SpecialReg::LanemaskGe),
        ("%lanemask_gt", SpecialReg::LanemaskGt),
        ("%dynamic_smem_size", SpecialReg::DynamicSmemSize),
        ("%total_smem_size", SpecialReg::TotalSmemSize),
        ("%warpid", SpecialReg::WarpId),
    ];

    /// `%envreg0`..`%envreg31`, by number (kept out of [`Self::NAMED`],
    /// which the parser searches for every special register it reads).
    pub const ENVREG: [&'static str; 32] = [
        "%envreg0",
        "%envreg1",
        "%envreg2",
        "%envreg3",
        "%envreg4",
        "%envreg5",
        "%envreg6",
        "%envreg7",
        "%envreg8",
        "%envreg9",
        "%envreg10",
        "%envreg11",
        "%envreg12",
        "%envreg13",
        "%envreg14",
        "%envreg15",
        "%envreg16",
        "%envreg17",
        "%envreg18",
        "%envreg19",
        "%envreg20",
        "%envreg21",
        "%envreg22",
        "%envreg23",
        "%envreg24",
        "%envreg25",
        "%envreg26",
        "%envreg27",
        "%envreg28",
        "%envreg29",
        "%envreg30",
        "%envreg31",
    ];

    /// The special register `name` names (`%tid.x`, `%envreg3`), if it has
    /// a value here.
    pub fn from_name(name: &str) -> Option<SpecialReg> {
        if let Some(n) = SpecialReg::ENVREG.iter().position(|e| *e == name) {
            return Some(SpecialReg::EnvReg(n as u8));
        }
        SpecialReg::NAMED.iter().find(|n| n.0 == name).map(|n| n.1)
    }

    /// The register's name as written (`%tid.x`).
    pub fn name(self) -> &'static str {
        if let SpecialReg::EnvReg(n) = self {
            return SpecialReg::ENVREG[usize::from(n) % 32];
        }
        word_of(&SpecialReg::NAMED, self, "%laneid")
    }

    /// Width in bits: 64 for `%clock64`, `%globaltimer` and `%gridid`, else 32.
    pub fn bits(self) -> u32 {
        if matches!(
            self,
            SpecialReg::Clock64 | SpecialReg::GlobalTimer | SpecialReg::GridId
        ) {
            64
        } else {
            32
        }
    }
}

/// A source operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// A register.
    Reg(RegId),
    /// An immediate, already as the raw bits of the operand's type
    /// (`0f3F800000` is stored as `0x3F800000`, `-1` on `.s16` as `0xFFFF`).
    Imm(u64),
    /// A special register.
    Special(SpecialReg),
}

/// A predicate source: `%p`, `!%p`, or an immediate `0`/`1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PredSrc {
    /// A predicate register, optionally negated.
    Reg {
        /// The register.
        reg: RegId,
        /// `!%p`
        negate: bool,
    },
    /// An immediate truth value.
    Imm(bool),
}

/// The word `table` pairs with `v` (the first), or `default` where it has
/// none: the one lookup behind each word table's `name`/`word`.
pub(crate) fn word_of<T: PartialEq>(
    table: &[(&'static str, T)],
    v: T,
    default: &'static str,
) -> &'static str {
    table.iter().find(|w| w.1 == v).map_or(default, |w| w.0)
}
