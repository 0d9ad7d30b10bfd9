//! PTX instruction text -> [`Instruction`], validated as ptxas 11.8 validates.
//!
//! The instruction set is declared once, as data, in [`crate::db`] (opcodes,
//! per-family modifiers, type lists, operand kinds, `.ftz`/compare rules,
//! target and PTX-version gates). This module reads statements against it in
//! stages: `lex.rs` (tokens), `syntax.rs` (the statement's shape),
//! `validate.rs` (modifiers and types), `operand.rs` and `literal.rs`
//! (operands and literals), `build.rs` (the decoded [`Op`]); `display.rs`
//! prints them back, and [`check_target`] applies the gates.
//! Every rule was settled by assembling the text with ptxas 11.8; the tests
//! in `tests/it/parse.rs` record the evidence.
//!
//! What ptxas accepts, and so do we:
//! - modifiers in any order (`vset4.lt.u32.u32`, `set.f32.s32.lt`,
//!   `slct.u32.f32.ftz`); only the order of the type modifiers matters, and
//!   `mul`/`mad` must start with their mode (`.lo`, `.hi`, `.wide`). A repeated `.sat` is accepted; a second
//!   compare, BoolOp, `.add` or `.ftz` is not.
//! - integer literals in decimal, hex (`0x`), octal (leading `0`), binary
//!   (`0b`), optional `U` suffix, under any number of unary `-`, `!`, `~`;
//!   `0fXXXXXXXX` (no unary operator), `0dXXXXXXXXXXXXXXXX` and decimal floats
//!   (`1.5`, `.5e1`, `--1.5`) for `.f32`/`.f64`; `.b32` takes `0f`, `.b64`
//!   takes `0d` and decimal floats; f16/bf16 operands take no immediates.
//!
//! Known differences, all rejections of valid PTX: constant expressions
//! beyond unary operators (`(5)`, `1+2`); integer literals beyond 64 bits;
//! and special registers other than
//! `%laneid`/`%warpid`, which the simulator does not model. Register widths
//! are not checked here (standalone text has no declarations); kernel-text
//! callers can compare [`Instruction::reg_uses`] with declared types.

mod async_copy;
mod build;
mod bulk;
mod cx;
mod display;
mod lex;
mod literal;
mod matrix;
mod mbarrier;
mod mem;
mod operand;
mod prefetch;
mod syntax;
mod validate;
mod warp;
mod wmma;

use crate::db;
use crate::error::{IsaError, Requirement};
use crate::inst::*;
use crate::symbols::Symbols;
use crate::target::{PtxVersion, Target};

/// Parses one instruction (optionally guarded, trailing `;` optional), interning
/// register names into `syms`. Errors are [`IsaError::Invalid`] with the
/// offending token and its 1-based column (relative to `text`), or
/// [`IsaError::Unimplemented`] for valid PTX that simcli does not run.
pub fn parse_instruction(text: &str, syms: &mut Symbols) -> Result<Instruction, IsaError> {
    if mem::is_family(text, syms) {
        return mem::parse(text, syms);
    }
    // Operands of instructions simcli does not implement may hold tokens
    // its lexer does not know (`[%rd1]`, `(%r1)`): the opcode decides first.
    let toks = lex::lex(text).map_err(|e| syntax::unimplemented_opcode(text).unwrap_or(e))?;
    let end_col = text.chars().count() + 1;
    let raw = syntax::statement(&toks, end_col)?;
    let checked = validate::check(&raw)?;
    // Interned in text order: guard first.
    let guard = raw.guard.map(|(t, negate)| Guard {
        reg: syms.intern(t.text),
        negate,
    });
    let op = build::build(&raw, &checked, syms)?;
    Ok(Instruction { guard, op })
}

/// Checks that `target` (and `version`, when the text had a `.version`) can run
/// `inst`. Errors are [`IsaError::Unsupported`] naming the minimum.
///
/// Every target gate is tested before any version gate, so an instruction
/// that fails both reports the target (e.g. bf16 on sm_53 with `.version
/// 6.0` reports sm_90).
pub fn check_target(
    inst: &Instruction,
    target: Target,
    version: Option<PtxVersion>,
) -> Result<(), IsaError> {
    // One pass over the gates of the instruction's variant (each asked
    // whether it applies once; no other gate can): a target failure is
    // reported at once, the first version failure only once every target
    // gate has passed.
    let mut version_failure = None;
    let gates = db::gates_for(db::OpTag::of(&inst.op));
    for g in gates.iter().filter(|g| (g.applies)(inst)) {
        if let Some(f) = g.feature {
            if !target.supports(f) {
                return Err(IsaError::Unsupported {
                    what: g.what.to_string(),
                    need: Requirement::Sm(f.min_sm()),
                });
            }
        }
        let need = PtxVersion::new(g.ptx.0, g.ptx.1);
        if version_failure.is_none() && version.is_some_and(|v| v < need) {
            version_failure = Some(IsaError::Unsupported {
                what: g.what.to_string(),
                need: Requirement::Ptx(need),
            });
        }
    }
    if let Some(e) = version_failure {
        return Err(e);
    }
    if let Some(v) = version {
        for g in db::LOW_TARGET_GATES.iter().filter(|g| (g.applies)(inst)) {
            let need = PtxVersion::new(g.ptx.0, g.ptx.1);
            if target.sm < g.below_sm && v < need {
                return Err(IsaError::Unsupported {
                    what: g.what.to_string(),
                    need: Requirement::Ptx(need),
                });
            }
        }
    }
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
