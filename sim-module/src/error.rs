//! Module errors: what went wrong and where (file:line:column).

use sim_isa::IsaError;
use std::fmt;

/// A 1-based line and column (in characters) in a source file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pos {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub col: u32,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// A module that could not be read, with the file name and position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{pos}: {kind}")]
pub struct ModuleError {
    /// The file name given to the parser.
    pub file: String,
    /// Where the problem is.
    pub pos: Pos,
    /// What the problem is.
    pub kind: ModuleErrorKind,
}

/// What is wrong with a module.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ModuleErrorKind {
    /// The input is larger than the parser accepts.
    #[error("module is {len} bytes, more than the limit of {max}")]
    TooLarge {
        /// Input length in bytes.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// A character that PTX does not use outside comments and strings.
    #[error("unexpected character {0:?}")]
    UnexpectedChar(char),
    /// `/*` without `*/`.
    #[error("unterminated comment")]
    UnterminatedComment,
    /// `"` without its closing quote on the same line.
    #[error("unterminated string")]
    UnterminatedString,
    /// The grammar wanted something else here.
    #[error("expected {expected}, found {found}")]
    Expected {
        /// What would have been accepted.
        expected: &'static str,
        /// What the text has ("end of file" at the end).
        found: String,
    },
    /// A directive this parser does not know.
    #[error("unknown directive '{0}'")]
    UnknownDirective(String),
    /// A type name that is no PTX fundamental type.
    #[error("unknown type '{0}'")]
    UnknownType(String),
    /// A malformed or out-of-range number.
    #[error("bad number '{0}'")]
    BadNumber(String),
    /// The same name declared twice in one scope (or a second `.version`, ...).
    #[error("{what} '{name}' declared twice")]
    Duplicate {
        /// What kind of thing ("register", "label", "function", "directive").
        what: &'static str,
        /// Its name.
        name: String,
    },
    /// A name used but not declared in any enclosing scope.
    #[error("undeclared identifier '{0}'")]
    Undeclared(String),
    /// A branch to a label the function does not have.
    #[error("branch to unknown label '{0}'")]
    UnknownLabel(String),
    /// `{ }` scopes nested deeper than the limit.
    #[error("scopes nested deeper than {max}")]
    NestingTooDeep {
        /// The limit.
        max: usize,
    },
    /// More registers, parameters or array elements than the limits allow.
    #[error("{what}: {count} exceeds the limit of {max}")]
    Limit {
        /// What was counted.
        what: &'static str,
        /// How many the text asks for.
        count: u64,
        /// The limit.
        max: u64,
    },
    /// Valid PTX this layer does not accept (named, e.g. vector registers).
    #[error("not supported by simcli: {0}")]
    NotSupported(String),
    /// An opcode word that is no PTX instruction.
    #[error("unknown instruction '{0}'")]
    UnknownInstruction(String),
    /// An instruction sim-isa rejected as invalid (the position points into it).
    /// Boxed: `IsaError` is the largest kind by far, and every `Result` in
    /// the parser would otherwise carry its size (clippy `result_large_err`).
    #[error("{0}")]
    Instruction(Box<IsaError>),
}
