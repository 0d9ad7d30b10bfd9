//! PTX instruction text -> [`Instruction`], validated as ptxas validates.
//! (Skeleton: the full table-driven parser lands with issue 2.)

use crate::error::IsaError;
use crate::inst::Instruction;
use crate::symbols::Symbols;
use crate::target::{PtxVersion, Target};

/// Parses one instruction (optionally guarded, trailing `;` optional), interning
/// register names into `syms`. Errors are [`IsaError::Invalid`] with the
/// offending token and its 1-based column.
pub fn parse_instruction(text: &str, syms: &mut Symbols) -> Result<Instruction, IsaError> {
    let _ = syms;
    Err(IsaError::Invalid { col: 1, token: text.to_string(), msg: "parser not implemented".into() })
}

/// Checks that `target` (and `version`, when the text had a `.version`) can run
/// `inst`. Errors are [`IsaError::Unsupported`] naming the minimum.
pub fn check_target(inst: &Instruction, target: Target, version: Option<PtxVersion>) -> Result<(), IsaError> {
    let _ = (inst, target, version);
    Ok(())
}

/// [`parse_instruction`] then [`check_target`].
pub fn parse_for_target(
    text: &str,
    syms: &mut Symbols,
    target: Target,
    version: Option<PtxVersion>,
) -> Result<Instruction, IsaError> {
    let inst = parse_instruction(text, syms)?;
    check_target(&inst, target, version)?;
    Ok(inst)
}

impl Instruction {
    /// Prints the instruction as PTX text (with `;`), names from `syms`.
    /// The text re-parses to an equal instruction.
    pub fn display<'a>(&'a self, syms: &'a Symbols) -> impl std::fmt::Display + 'a {
        DisplayInst { inst: self, syms }
    }
}

struct DisplayInst<'a> {
    inst: &'a Instruction,
    syms: &'a Symbols,
}

impl std::fmt::Display for DisplayInst<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let _ = self.syms;
        write!(f, "{:?};", self.inst)
    }
}
