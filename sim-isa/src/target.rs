//! Targets (`sm_XY`), PTX ISA versions and the capabilities they gate.

use std::fmt;

/// A compilation target such as `sm_53` or `sm_90a`.
///
/// Only real targets parse ([`Target::KNOWN`]); what a target can run is a queryable fact
/// ([`Target::supports`]), never a guess from its name at the call site.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Target {
    /// Compute capability as `10 * major + minor` (e.g. 53 for `sm_53`).
    pub sm: u32,
    /// Architecture-specific suffix: `a` or `f`, if any.
    pub suffix: Option<char>,
}

/// A capability that some targets have and others lack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Feature {
    /// `.f64` compares and selects (`sm_13`).
    F64,
    /// SIMD video instructions (`sm_30`).
    Video,
    /// Half-precision `set` with f16/f16x2 sources or destinations (`sm_53`).
    F16Set,
    /// Any bf16/bf16x2 form (`sm_90`).
    Bf16,
    /// `popc clz brev bfe bfi prmt` (`sm_20`).
    BitField,
    /// `shf` (`sm_32`).
    FunnelShift,
    /// `lop3` (`sm_50`).
    Lop3,
    /// `cvt` between `.f32` and `.bf16`/`.bf16x2` (`sm_80`).
    Bf16Convert,
    /// `cvt` to `.f16x2` (`sm_80`).
    CvtPacked,
    /// `min`/`max` with `.NaN` (`sm_80`).
    MinMaxNaN,
    /// Packed 16-bit integer `add min max .u16x2 .s16x2` and `min/max.relu` (`sm_90`).
    IntPacked16,
    /// `dp4a`, `dp2a` (`sm_61`).
    IntDot,
    /// `bar.red` (`sm_20`).
    BarRed,
    /// `bar.warp.sync` (`sm_30`).
    WarpSync,
    /// `match.sync`, `nanosleep` and `wmma` (`sm_70`).
    Volta,
    /// `redux.sync` (`sm_80`).
    Redux,
    /// `cp.async` and its group statements, `mbarrier` (`sm_80`).
    AsyncCopy,
    /// `mbarrier.try_wait`, `mbarrier.arrive` with a count (`sm_90`).
    MbarrierSm90,
    /// `elect.sync` (`sm_90`).
    Elect,
    /// `add sub mul fma neg abs` on `.f16`/`.f16x2` (`sm_53`).
    F16Arith,
    /// `min`/`max` on the half types, `fma neg abs` on `.bf16`/`.bf16x2`
    /// and `fma.relu` (`sm_80`).
    HalfMinMax,
    /// `cvt` with `.relu` (`sm_80`).
    CvtRelu,
    /// `cvt` to and from `.e4m3x2`/`.e5m2x2` (`sm_89`).
    Fp8Convert,
    /// `cvt` with `.satfinite` to f16 or bf16 (`sm_70`).
    CvtSatfinite,
    /// `ex2.approx` on `.f16`/`.f16x2` (`sm_75`: `MUFU.EX2.F16`).
    HalfMufu,
    /// `tanh.approx` on `.f32`, `.f16`, `.f16x2` (`sm_75`: `MUFU.TANH`).
    Tanh,
    /// `fns` (`sm_30`).
    Fns,
    /// `cvt.pack` (`sm_72`).
    CvtPack,
    /// `bmsk` (`sm_70`).
    Bmsk,
    /// `ldmatrix`, `movmatrix`, `mma.m16n8k8` with f16 (`sm_75`).
    MatrixTuring,
    /// `mma.m16n8k16`, bf16, s8/u8 and f64 `mma` (`sm_80`).
    MmaAmpere,
    /// `stmatrix` (`sm_90`).
    Stmatrix,
    /// `wmma` with `.s8`/`.u8`/`.s32` (`sm_72`).
    WmmaInt,
    /// `prefetch`, `prefetchu` (`sm_20`).
    Prefetch,
    /// `prefetch` with an L2 eviction priority (`sm_80`).
    PrefetchEviction,
    /// The bulk copies (`cp.async.bulk`), the `mbarrier` transaction count,
    /// `.shared::cluster` and `prefetch.tensormap` (`sm_90`).
    Hopper,
}

impl Feature {
    /// The lowest compute capability (`10 * major + minor`) that has this feature.
    pub const fn min_sm(self) -> u32 {
        match self {
            Feature::F64 => 13,
            Feature::Video => 30,
            Feature::F16Set => 53,
            Feature::Bf16 => 90,
            Feature::BitField => 20,
            Feature::FunnelShift => 32,
            Feature::Lop3 => 50,
            Feature::CvtPacked => 80,
            Feature::Bf16Convert => 80,
            Feature::MinMaxNaN => 80,
            Feature::IntPacked16 => 90,
            Feature::IntDot => 61,
            Feature::BarRed => 20,
            Feature::WarpSync => 30,
            Feature::Volta => 70,
            Feature::Redux | Feature::AsyncCopy => 80,
            Feature::Elect | Feature::MbarrierSm90 | Feature::Hopper => 90,
            Feature::F16Arith => 53,
            Feature::HalfMinMax => 80,
            Feature::CvtRelu => 80,
            Feature::Fp8Convert => 89,
            Feature::CvtSatfinite => 70,
            Feature::HalfMufu | Feature::Tanh => 75,
            Feature::Fns => 30,
            Feature::CvtPack => 72,
            Feature::Bmsk => 70,
            Feature::MatrixTuring => 75,
            Feature::MmaAmpere => 80,
            Feature::Stmatrix => 90,
            Feature::WmmaInt => 72,
            Feature::Prefetch => 20,
            Feature::PrefetchEviction => 80,
        }
    }
}

impl Target {
    /// `sm_30`.
    pub const SM_30: Target = Target::plain(30);
    /// `sm_53`.
    pub const SM_53: Target = Target::plain(53);
    /// `sm_90`.
    pub const SM_90: Target = Target::plain(90);
    /// `sm_13`.
    pub const SM_13: Target = Target::plain(13);

    /// `sm_<sm>`, no `a`/`f` suffix.
    const fn plain(sm: u32) -> Target {
        Target { sm, suffix: None }
    }

    /// Parses a real target name: one of [`Target::KNOWN`] (`sm_53`,
    /// `sm_90a`, `sm_100f`, ...). Names of the right shape that no target
    /// has (`sm_45`, `sm_999`, `sm_53a`, `sm_010`) are refused too.
    pub fn parse(s: &str) -> Result<Target, TargetError> {
        let bad = || TargetError {
            text: s.to_string(),
        };
        if !Target::KNOWN.contains(&s) {
            return Err(bad());
        }
        let rest = s.strip_prefix("sm_").ok_or_else(bad)?;
        let (digits, suffix) = match rest.chars().last() {
            Some(c @ ('a' | 'f')) => (&rest[..rest.len() - 1], Some(c)),
            _ => (rest, None),
        };
        let sm: u32 = digits.parse().map_err(|_| bad())?;
        Ok(Target { sm, suffix })
    }

    /// Every target name [`Target::parse`] accepts: the `sm_XY` of PTX ISA
    /// 9.0 through `sm_90a`, and the `sm_100` family with the `a` and `f`
    /// variants ptxas 13.0 knows.
    pub const KNOWN: &'static [&'static str] = &[
        "sm_10", "sm_11", "sm_12", "sm_13", "sm_20", "sm_21", "sm_30", "sm_32", "sm_35", "sm_37",
        "sm_50", "sm_52", "sm_53", "sm_60", "sm_61", "sm_62", "sm_70", "sm_72", "sm_75", "sm_80",
        "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_100f", "sm_103",
        "sm_103a", "sm_103f", "sm_110", "sm_110a", "sm_110f", "sm_120", "sm_120a", "sm_120f",
        "sm_121", "sm_121a", "sm_121f",
    ];

    /// Whether this target has `f`.
    pub const fn supports(self, f: Feature) -> bool {
        self.sm >= f.min_sm()
    }

    /// `sm_1x` targets flush f32 subnormal inputs in set/setp/slct (PTX 9.7.6).
    pub const fn flushes_f32_subnormals(self) -> bool {
        self.sm < 20
    }

    /// Major compute capability (`5` for `sm_53`).
    pub const fn major(self) -> u32 {
        self.sm / 10
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sm_{}", self.sm)?;
        if let Some(c) = self.suffix {
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

impl std::str::FromStr for Target {
    type Err = TargetError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Target::parse(s)
    }
}

/// A target name that names no real target.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid target '{text}': expected one of {}", Target::KNOWN.join(" "))]
pub struct TargetError {
    /// The text that failed to parse.
    pub text: String,
}

/// A PTX ISA version from a `.version X.Y` directive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PtxVersion {
    /// Major version.
    pub major: u8,
    /// Minor version.
    pub minor: u8,
}

impl PtxVersion {
    /// Shorthand constructor.
    pub const fn new(major: u8, minor: u8) -> Self {
        PtxVersion { major, minor }
    }

    /// Every PTX ISA version that exists, through 9.0 (ptxas 13.0's): the
    /// release history in the PTX ISA manual (there is no 1.5; 1.4 was
    /// followed by 2.0 with CUDA 3.0).
    pub const KNOWN: &'static [(u8, u8)] = &[
        (1, 0),
        (1, 1),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 0),
        (2, 1),
        (2, 2),
        (2, 3),
        (3, 0),
        (3, 1),
        (3, 2),
        (4, 0),
        (4, 1),
        (4, 2),
        (4, 3),
        (5, 0),
        (6, 0),
        (6, 1),
        (6, 2),
        (6, 3),
        (6, 4),
        (6, 5),
        (7, 0),
        (7, 1),
        (7, 2),
        (7, 3),
        (7, 4),
        (7, 5),
        (7, 6),
        (7, 7),
        (7, 8),
        (8, 0),
        (8, 1),
        (8, 2),
        (8, 3),
        (8, 4),
        (8, 5),
        (8, 6),
        (8, 7),
        (8, 8),
        (9, 0),
    ];

    /// Whether this version exists (kernel-text and trace readers refuse
    /// `.version 99.99`; [`PtxVersion::parse`] only reads the shape).
    pub fn is_known(self) -> bool {
        PtxVersion::KNOWN.contains(&(self.major, self.minor))
    }

    /// [`PtxVersion::parse`], then [`PtxVersion::is_known`]: `None` for text
    /// that is not `X.Y` or names no PTX ISA version.
    pub fn parse_known(s: &str) -> Option<PtxVersion> {
        PtxVersion::parse(s).filter(|v| v.is_known())
    }

    /// Parses `X.Y` (any digits; see [`PtxVersion::parse_known`]).
    pub fn parse(s: &str) -> Option<PtxVersion> {
        let (a, b) = s.split_once('.')?;
        if a.is_empty() || b.is_empty() || a.len() > 2 || b.len() > 2 {
            return None;
        }
        Some(PtxVersion {
            major: a.parse().ok()?,
            minor: b.parse().ok()?,
        })
    }
}

impl fmt::Display for PtxVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}
