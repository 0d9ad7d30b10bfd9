//! Errors with positions and real messages.

use crate::target::PtxVersion;
use std::fmt;

/// The three-way outcome callers distinguish: accepted (no error), invalid
/// everywhere, or valid but unsupported on the chosen target / PTX version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// No target accepts this text (syntax, modifiers, types, operands).
    Invalid,
    /// Valid PTX that the given target or `.version` does not support.
    Arch,
}

/// What an unsupported instruction needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Requirement {
    /// A minimum target, `10 * major + minor`.
    Sm(u32),
    /// A minimum PTX ISA version.
    Ptx(PtxVersion),
}

impl fmt::Display for Requirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Requirement::Sm(sm) => write!(f, "sm_{sm}"),
            Requirement::Ptx(v) => write!(f, "PTX ISA {v}"),
        }
    }
}

/// An instruction the parser or validator refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IsaError {
    /// Invalid on every target.
    #[error("column {col}: {msg} (at '{token}')")]
    Invalid {
        /// 1-based column (in characters) of the offending token in the text given to the parser.
        col: usize,
        /// The offending token.
        token: String,
        /// What is wrong, in ptxas's words where it has them.
        msg: String,
    },
    /// Valid, but not on this target / PTX version, e.g.
    /// "set with a bf16 source needs sm_90".
    #[error("{what} needs {need}")]
    Unsupported {
        /// The feature in words ("set with a bf16 source").
        what: String,
        /// The minimum that would accept it.
        need: Requirement,
    },
}

impl IsaError {
    /// Which of the two rejection kinds this is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            IsaError::Invalid { .. } => ErrorKind::Invalid,
            IsaError::Unsupported { .. } => ErrorKind::Arch,
        }
    }
}
