//! Targets (`sm_XY`), PTX ISA versions and the capabilities they gate.

use std::fmt;

/// A compilation target such as `sm_53` or `sm_90a`.
///
/// Any `sm_XY` parses; what a target can run is a queryable fact
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
}

impl Feature {
    /// The lowest compute capability (`10 * major + minor`) that has this feature.
    pub const fn min_sm(self) -> u32 {
        match self {
            Feature::F64 => 13,
            Feature::Video => 30,
            Feature::F16Set => 53,
            Feature::Bf16 => 90,
        }
    }
}

impl Target {
    /// `sm_30`.
    pub const SM_30: Target = Target {
        sm: 30,
        suffix: None,
    };
    /// `sm_53`.
    pub const SM_53: Target = Target {
        sm: 53,
        suffix: None,
    };
    /// `sm_90`.
    pub const SM_90: Target = Target {
        sm: 90,
        suffix: None,
    };
    /// `sm_13`.
    pub const SM_13: Target = Target {
        sm: 13,
        suffix: None,
    };

    /// Parses `sm_XY`, `sm_XYa`, `sm_XYf` (also `sm_100`-style three digits).
    pub fn parse(s: &str) -> Result<Target, TargetError> {
        let bad = || TargetError {
            text: s.to_string(),
        };
        let rest = s.strip_prefix("sm_").ok_or_else(bad)?;
        let (digits, suffix) = match rest.chars().last() {
            Some(c @ ('a' | 'f')) => (&rest[..rest.len() - 1], Some(c)),
            _ => (rest, None),
        };
        if digits.len() < 2 || digits.len() > 3 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let sm: u32 = digits.parse().map_err(|_| bad())?;
        if sm < 10 {
            return Err(bad());
        }
        Ok(Target { sm, suffix })
    }

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

/// A target name that is not of the form `sm_XY[a|f]`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid target '{text}': expected sm_XY, e.g. sm_53 or sm_90a")]
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

    /// Parses `X.Y`.
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
