//! Errors with positions and real messages.

use crate::inst::Type;
use crate::target::PtxVersion;
use std::fmt;

/// The outcome classes callers distinguish besides acceptance: invalid
/// everywhere, valid but unsupported on the chosen target / PTX version, or
/// valid PTX that this simulator does not implement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// No target accepts this text (syntax, modifiers, types, operands).
    Invalid,
    /// Valid PTX that the given target or `.version` does not support.
    /// Conformance files spell it `"error":"arch"`.
    Unsupported,
    /// Valid PTX that simcli does not implement (`fma`, `bra`, `ld.global`, ...).
    Unimplemented,
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

/// Why a text is invalid PTX. `Display` is ptxas's wording where ptxas has
/// one (`inst` fields name the instruction as ptxas does: `mul.lo`, `set`).
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum InvalidReason {
    /// A token that does not fit the grammar here.
    Syntax {
        /// The token as written.
        near: String,
    },
    /// The statement ended early.
    UnexpectedEnd {
        /// What was expected ("an operand").
        expected: &'static str,
    },
    /// `/*` without `*/`.
    UnterminatedComment,
    /// An opcode that is no PTX instruction.
    UnknownInstruction(String),
    /// A type list the instruction does not take.
    UnexpectedTypes {
        /// The instruction.
        inst: &'static str,
    },
    /// A compare on an instruction without one.
    CompareNotAllowed {
        /// The instruction.
        inst: &'static str,
    },
    /// A second compare.
    MultipleCompares,
    /// A second BoolOp or `.add`.
    MultiplePostOps,
    /// A second `.ftz`.
    DuplicateFtz,
    /// `.min`/`.max` on a video instruction.
    IllegalSecondaryOp {
        /// The instruction.
        inst: &'static str,
    },
    /// A modifier ptxas does not know.
    UnknownModifier(String),
    /// A known modifier this instruction does not take.
    IllegalModifier {
        /// The modifier as written (`.sat`).
        modifier: String,
        /// The instruction.
        inst: &'static str,
    },
    /// `set`/`setp`/`vset` without a compare.
    CompareRequired {
        /// The instruction.
        inst: &'static str,
    },
    /// `slct` with an unsigned `c` type.
    SlctSignedOnly,
    /// Both `.sat` and `.add` (video).
    SatWithAdd,
    /// Both `.cc` and `.sat` (the extended-precision forms).
    CcWithSat,
    /// `.cc` on a type other than `.u32 .s32 .u64 .s64`.
    CcNotForType {
        /// The instruction as ptxas names it.
        inst: &'static str,
    },
    /// `.sat` on a type that has no saturating form (`add.sat.u32`).
    SatNotForType(Type),
    /// A compare the source type does not order that way.
    CompareTypeMismatch,
    /// A `c` operand without a BoolOp.
    BoolOpRequired {
        /// The instruction.
        inst: &'static str,
    },
    /// Wrong operand count or an operand of the wrong kind.
    ArgumentsMismatch {
        /// The instruction.
        inst: &'static str,
    },
    /// `-%r` where only a register fits.
    NegationNotAllowed {
        /// The instruction.
        inst: &'static str,
    },
    /// `%laneid` where it does not fit.
    SpecialRegNotAllowed {
        /// The instruction.
        inst: &'static str,
    },
    /// A special register without a value in this simulator.
    SpecialRegNotSimulated(String),
    /// A video selector on a non-video operand.
    SelectorNotAllowed {
        /// The instruction.
        inst: &'static str,
    },
    /// A float literal under `!` or `~`.
    IntegerExpressionExpected,
    /// A selector (or immediate) that does not fit video operand `operand`.
    IncorrectVideoSelector {
        /// 0-based operand index.
        operand: usize,
    },
    /// A word that is no video selector.
    UnknownVideoSelector(String),
    /// A selector on video operand `c`.
    SelectorOnSourceC,
    /// An unsigned type on `abs`/`neg`.
    SignedOnly {
        /// The instruction.
        inst: &'static str,
    },
    /// `fma` without a rounding modifier.
    RoundingRequired {
        /// The instruction.
        inst: &'static str,
    },
    /// A rounding modifier on an instruction without one (`min.rn`).
    IllegalRounding {
        /// The instruction.
        inst: &'static str,
    },
    /// A second rounding modifier.
    MultipleRoundings,
    /// `div/rcp/sqrt.f32` without a rounding modifier or `.approx` (or with both).
    RoundingOrApproxRequired {
        /// The instruction.
        inst: &'static str,
    },
    /// A state space this instruction does not take where it is written.
    StateSpaceIncorrect {
        /// The instruction.
        inst: &'static str,
    },
    /// Fewer state spaces than the instruction needs (`cp.async.ca.shared`).
    StateSpaceCount {
        /// The instruction.
        inst: &'static str,
    },
    /// A modifier the instruction needs is missing.
    ModifierRequired {
        /// What is needed, as ptxas says it (`.ca or .cg`).
        what: &'static str,
        /// The instruction.
        inst: &'static str,
    },
    /// An immediate operand that is not one of the values allowed.
    UnexpectedValue {
        /// The instruction.
        inst: &'static str,
        /// 0-based operand index.
        arg: usize,
        /// The value as written.
        value: String,
        /// The values allowed, as ptxas lists them (`4 or 8 or 16`).
        want: &'static str,
    },
    /// An immediate operand above its range `0..=max`.
    OutOfRange {
        /// The instruction.
        inst: &'static str,
        /// 0-based operand index.
        arg: usize,
        /// The value as written.
        value: String,
        /// The largest value allowed.
        max: u64,
    },
    /// `ex2.approx.bf16` without `.ftz`.
    FtzRequired {
        /// The instruction with its type (`ex2.bf16`), as ptxas names it.
        inst: &'static str,
    },
}

impl fmt::Display for InvalidReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use InvalidReason as R;
        match self {
            R::Syntax { near } => write!(f, "Parsing error near '{near}': syntax error"),
            R::UnexpectedEnd { expected } => write!(
                f,
                "Parsing error: unexpected end of statement, expected {expected}"
            ),
            R::UnterminatedComment => f.write_str("Unterminated comment"),
            R::UnknownInstruction(s) => write!(f, "Not a name of any known instruction: '{s}'"),
            R::UnexpectedTypes { inst } => {
                write!(f, "Unexpected instruction types specified for '{inst}'")
            }
            R::CompareNotAllowed { inst } => write!(
                f,
                "Comparison qualifier is not allowed for instruction '{inst}'"
            ),
            R::MultipleCompares => f.write_str("Multiple comparisons set"),
            R::MultiplePostOps => f.write_str("Multiple instruction post-operation flags set"),
            R::DuplicateFtz => f.write_str("Duplicate .ftz modifier"),
            R::IllegalSecondaryOp { inst } => write!(
                f,
                "Illegal secondary operation for video instruction '{inst}'"
            ),
            R::UnknownModifier(m) => write!(f, "Unknown modifier '{m}'"),
            R::IllegalModifier { modifier, inst } => {
                write!(f, "Illegal modifier '{modifier}' for instruction '{inst}'")
            }
            R::CompareRequired { inst } => {
                write!(f, "Comparison modifier required for instruction '{inst}'")
            }
            R::SlctSignedOnly => {
                f.write_str("Instruction 'slct' applies only to signed numeric types")
            }
            R::SatWithAdd => f.write_str("Illegal combination of .sat and .add modifiers"),
            R::CcWithSat => f.write_str("Modifier '.cc' cannot be combined with modifier '.sat'"),
            R::CcNotForType { inst } => {
                write!(f, "Modifier '.cc' applies only to {inst} integer types")
            }
            R::SatNotForType(t) => {
                write!(f, "Modifier '.sat' does not apply to '.{}' type", t.name())
            }
            R::CompareTypeMismatch => {
                f.write_str("Mismatch between instruction type and comparison qualifier")
            }
            R::BoolOpRequired { inst } => {
                write!(f, "Boolean operation is required for instruction '{inst}'")
            }
            R::ArgumentsMismatch { inst } => {
                write!(f, "Arguments mismatch for instruction '{inst}'")
            }
            R::NegationNotAllowed { inst } => {
                write!(f, "Operand negation not allowed for instruction '{inst}'")
            }
            R::SpecialRegNotAllowed { inst } => write!(
                f,
                "Special register argument not allowed for instruction '{inst}'"
            ),
            R::SpecialRegNotSimulated(r) => write!(f, "Special register '{r}' is not simulated"),
            R::SelectorNotAllowed { inst } => {
                write!(f, "Video selector is not allowed on operand of '{inst}'")
            }
            R::IntegerExpressionExpected => f.write_str("Integer constant expression expected"),
            R::IncorrectVideoSelector { operand } => {
                write!(f, "Incorrect video selector for operand {operand}")
            }
            R::UnknownVideoSelector(s) => write!(f, "Unknown video selector: '{s}'"),
            R::SelectorOnSourceC => {
                f.write_str("Video selector is not allowed on 'source C' operand")
            }
            R::SignedOnly { inst } => {
                write!(
                    f,
                    "Instruction '{inst}' applies only to signed numeric types"
                )
            }
            R::RoundingRequired { inst } => {
                write!(f, "Rounding modifier required for instruction '{inst}'")
            }
            R::IllegalRounding { inst } => {
                write!(f, "Illegal rounding modifier for instruction '{inst}'")
            }
            R::MultipleRoundings => f.write_str("Multiple rounding modifiers specified"),
            R::FtzRequired { inst } => {
                write!(f, ".ftz modifier required for instruction '{inst}'")
            }
            R::RoundingOrApproxRequired { inst } => write!(
                f,
                "Rounding modifier or '.approx' modifier required for instruction '{inst}'"
            ),
            R::StateSpaceIncorrect { inst } => {
                write!(f, "State space incorrect for instruction '{inst}'")
            }
            R::StateSpaceCount { inst } => write!(
                f,
                "Unexpected number of state spaces specified in instruction '{inst}'"
            ),
            R::ModifierRequired { what, inst } => {
                write!(f, "'{what}' modifier required for instruction '{inst}'")
            }
            R::UnexpectedValue {
                inst,
                arg,
                value,
                want,
            } => write!(
                f,
                "Argument {arg} of instruction '{inst}': unexpected value '{value}', expected to be {want}"
            ),
            R::OutOfRange {
                inst,
                arg,
                value,
                max,
            } => write!(
                f,
                "Argument {arg} of instruction '{inst}': value '{value}' out of range, expected to be in range [0..{max}]"
            ),
        }
    }
}

/// An instruction the parser or validator refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IsaError {
    /// Invalid on every target.
    #[error("column {col}: {reason} (at '{token}')")]
    Invalid {
        /// 1-based column (in characters) of the offending token in the text given to the parser.
        col: usize,
        /// The offending token.
        token: String,
        /// What is wrong, in ptxas's words where it has them.
        reason: InvalidReason,
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
    /// Valid PTX that simcli does not implement, e.g. "unsupported by simcli: fma".
    #[error("unsupported by simcli: {what}")]
    Unimplemented {
        /// 1-based column of the opcode or modifier that is not implemented.
        col: usize,
        /// The opcode, or opcode and type (`add.f32`), as written.
        what: String,
    },
}

impl IsaError {
    /// Which rejection kind this is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            IsaError::Invalid { .. } => ErrorKind::Invalid,
            IsaError::Unsupported { .. } => ErrorKind::Unsupported,
            IsaError::Unimplemented { .. } => ErrorKind::Unimplemented,
        }
    }

    /// The 1-based column the error points at, where it has one.
    pub fn col(&self) -> Option<usize> {
        match self {
            IsaError::Invalid { col, .. } | IsaError::Unimplemented { col, .. } => Some(*col),
            IsaError::Unsupported { .. } => None,
        }
    }
}
