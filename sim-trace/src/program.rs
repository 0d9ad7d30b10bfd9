//! The one way a program is built from instruction texts, shared by kernel
//! text, the binary trace reader and the generator: parse against declared
//! registers, check each register's declared width against the operand that
//! uses it (as ptxas does), deduplicate, keep the canonical text.

use crate::limits;
use sim_isa::{Instruction, IsaError, RegId, Symbols, Type, TypeKind};
use std::collections::HashMap;

/// Why an instruction text cannot join a program.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProgramError {
    /// The text is not a valid instruction (or not one sim-isa implements).
    #[error("{0}")]
    Parse(IsaError),
    /// The text names a register no `.reg` declared.
    #[error("undeclared register '{name}' (declare it with .reg)")]
    Undeclared {
        /// The first undeclared name.
        name: String,
    },
    /// A register's declared width differs from its operand's. ptxas 11.8
    /// rejects these ("Arguments mismatch", or "Predicate expression
    /// expected" for a guard); it accepts no wider or narrower register.
    #[error("register '{name}' is declared .{} but used as {}", .declared.name(), operand_words(*.bits))]
    Width {
        /// The register.
        name: String,
        /// Its declared type.
        declared: Type,
        /// The operand's width (1 for a predicate).
        bits: u32,
    },
    /// More distinct instructions than [`limits::MAX_INSTS`].
    #[error("more than {} distinct instructions", limits::MAX_INSTS)]
    TooMany,
}

fn operand_words(bits: u32) -> String {
    if bits == 1 {
        "a predicate".into()
    } else {
        format!("a {bits}-bit operand")
    }
}

// A field list alike in shape to other records' (issue 27): its own fields, nothing to share.
/// A program's parts, as [`crate::trace::Trace`] holds them.
#[derive(Clone, Debug, Default)]
pub struct ProgramParts {
    /// Declared registers.
    pub syms: Symbols,
    /// Static instructions.
    pub insts: Vec<Instruction>,
    /// Canonical text of each (its `Display`).
    pub texts: Vec<String>,
    /// Source line of each (0 when unknown).
    pub lines: Vec<u32>,
}

/// Builds a program from instruction texts over a set of declared registers.
#[derive(Debug, Default)]
pub struct ProgramBuilder {
    parts: ProgramParts,
    index: HashMap<Instruction, u32>,
}

impl ProgramBuilder {
    /// An empty program with no registers declared.
    pub fn new() -> Self {
        Self::default()
    }

    /// The register table, to declare registers before instructions use them.
    pub fn syms_mut(&mut self) -> &mut Symbols {
        &mut self.parts.syms
    }

    /// The register table.
    pub fn syms(&self) -> &Symbols {
        &self.parts.syms
    }

    /// Static instructions so far.
    pub fn len(&self) -> usize {
        self.parts.insts.len()
    }

    /// No instructions yet.
    pub fn is_empty(&self) -> bool {
        self.parts.insts.is_empty()
    }

    /// Parses `text` against the declared registers and checks operand widths.
    /// The instruction is not added (see [`Self::intern`], [`Self::append`]).
    pub fn parse(&mut self, text: &str) -> Result<Instruction, ProgramError> {
        let syms = &mut self.parts.syms;
        let before = syms.len();
        let parsed = sim_isa::parse::parse_instruction(text, syms);
        let mut undeclared = None;
        // Parsing interned a name nobody declared: drop it again, so the
        // table stays what the declarations made it. The async-copy token
        // and the carry flag are no names of the text's
        // (`sim_isa::carry::is_hidden_register`): they stay.
        let stray = (before..syms.len())
            .map(|k| syms.name(RegId(k as u32)))
            .find(|&n| !sim_isa::carry::is_hidden_register(n));
        if let Some(name) = stray {
            undeclared = Some(name.to_string());
            self.undo_interned(before);
        }
        let inst = parsed.map_err(ProgramError::Parse)?;
        if let Some(name) = undeclared {
            return Err(ProgramError::Undeclared { name });
        }
        if let Some(what) = needs_a_launch(&inst) {
            return Err(ProgramError::Parse(sim_isa::IsaError::Unimplemented {
                col: text.len() - text.trim_start().len() + 1,
                what: format!(
                    "{what} in kernel text or a trace, which have no memory and no thread \
                     blocks (run a PTX module from a launch file: docs/launch-format.md)"
                ),
            }));
        }
        check_widths(&inst, &self.parts.syms)?;
        Ok(inst)
    }

    fn undo_interned(&mut self, keep: usize) {
        let mut s = Symbols::new();
        for r in self.parts.syms.ids().take(keep) {
            let name = self.parts.syms.name(r);
            match self.parts.syms.declared_type(r) {
                Some(t) => s.declare(name, t),
                None => Some(s.intern(name)),
            };
        }
        self.parts.syms = s;
    }

    /// The index of `inst`, adding it (with its source `line`) if new.
    pub fn intern(&mut self, inst: Instruction, line: u32) -> Result<u32, ProgramError> {
        if let Some(&i) = self.index.get(&inst) {
            return Ok(i);
        }
        let i = self.append(inst, line)?;
        self.index.insert(inst, i);
        Ok(i)
    }

    /// Adds `inst` as a new static instruction even if an equal one exists
    /// (a binary trace numbers its instructions itself).
    pub fn append(&mut self, inst: Instruction, line: u32) -> Result<u32, ProgramError> {
        let p = &mut self.parts;
        if p.insts.len() >= limits::MAX_INSTS {
            return Err(ProgramError::TooMany);
        }
        p.texts.push(inst.display(&p.syms).to_string());
        p.insts.push(inst);
        p.lines.push(line);
        Ok(p.insts.len() as u32 - 1)
    }

    /// [`Self::parse`] then [`Self::intern`].
    pub fn intern_text(&mut self, text: &str, line: u32) -> Result<u32, ProgramError> {
        let inst = self.parse(text)?;
        self.intern(inst, line)
    }

    /// The finished program.
    pub fn finish(self) -> ProgramParts {
        self.parts
    }
}

/// Every register's declared type must fit the operand that uses it
/// ([`register_fits`]). sim-isa's `RegUse` gives each operand's width, not
/// its type, so the operand is taken as the bit type of that width (a
/// predicate for 1 bit): this checks sizes and predicates. Given the
/// operand's type, the same call checks the type classes too.
/// The opcode of an instruction only a launch can run: memory accesses and
/// addresses need the launch's memory, barriers its thread blocks.
fn needs_a_launch(inst: &Instruction) -> Option<&'static str> {
    sim_isa::db::needs_launch(inst).then(|| sim_isa::db::mnemonic(inst))
}

fn check_widths(inst: &Instruction, syms: &Symbols) -> Result<(), ProgramError> {
    for u in inst.reg_uses().iter() {
        let Some(declared) = syms.declared_type(u.reg) else {
            continue;
        };
        let operand = match u.bits {
            1 => Some(Type::Pred),
            16 => Some(Type::B16),
            32 => Some(Type::B32),
            64 => Some(Type::B64),
            _ => None,
        };
        if !operand.is_some_and(|o| register_fits(declared, o)) {
            return Err(ProgramError::Width {
                name: syms.name(u.reg).to_string(),
                declared,
                bits: u.bits,
            });
        }
    }
    Ok(())
}

/// Whether a register declared `declared` may be an operand of type
/// `operand`, as ptxas 11.8 decides (recorded for sm_90 with
/// `nvidia-cuda-nvcc-cu11==11.8.89`; its error is "Arguments mismatch"):
/// the sizes must be equal, neither wider nor narrower, and
/// - a `.bN` operand takes any `N`-bit register but a predicate;
/// - a `.uN` or `.sN` operand takes `.bN`, `.uN` or `.sN`;
/// - a floating-point operand (`.f16 .f16x2 .f32 .f64`) takes `.bN` or its own type;
/// - a `.bf16`/`.bf16x2` operand takes `.bN` or its own type (ptxas 11.8 has
///   no `.reg .bf16`; later versions do);
/// - a predicate (guards included) takes only `.pred`.
pub fn register_fits(declared: Type, operand: Type) -> bool {
    if declared.bits() != operand.bits() {
        return false;
    }
    match operand.kind() {
        TypeKind::Bits => declared.kind() != TypeKind::Pred,
        TypeKind::Unsigned | TypeKind::Signed => matches!(
            declared.kind(),
            TypeKind::Bits | TypeKind::Unsigned | TypeKind::Signed
        ),
        TypeKind::Float | TypeKind::BFloat => {
            declared.kind() == TypeKind::Bits || declared == operand
        }
        TypeKind::Pred => declared == Type::Pred,
    }
}

#[cfg(test)]
mod tests {
    use super::register_fits;
    use sim_isa::Type::{self, *};

    /// (declared, operand, ptxas 11.8 accepts), from single-instruction
    /// kernels assembled for sm_90.
    const PTXAS: &[(Type, Type, bool)] = &[
        (B32, U32, true),     // add.u32 %r
        (U32, S32, true),     // add.u32 %s0, %u1: signedness is free
        (Pred, U32, false),   // add.u32 with a .pred source
        (B16, U32, false),    // add.u32 with a .b16 source or destination
        (B64, U32, false),    // wider is refused too
        (F32, U32, false),    // add.u32 with a .f32 register
        (B32, U16, false),    // add.u16 with a .b32 register
        (U16, U16, true),     // add.u16 %w (.u16)
        (F16, U16, false),    // add.u16 with a .f16 register
        (S64, U64, true),     // add.u64 with .s64 and .u64 registers
        (B32, Pred, false),   // @%r guard: "Predicate expression expected"
        (B16, Pred, false),   // @%h guard
        (Pred, Pred, true),   // @%p
        (F32, B32, true),     // selp.b32 / xor.b32 with a .f32 register
        (B16, B32, false),    // xor.b32 with a .b16 register
        (Pred, B32, false),   // xor.b32 with a .pred source
        (F16x2, B32, true),   // xor.b32 with a .f16x2 register
        (B32, F32, true),     // set.eq.f32.f32 on .b32 registers
        (U32, F32, false),    // set.eq.u32.f32 with a .u32 source
        (S32, F32, false),    // ... or a .s32 source
        (F32, U32, false),    // set.eq.f32.u32 %u0: .u32 result of .f32 type
        (B16, F16, true),     // set.eq.u32.f16 on .b16
        (F16, F16, true),     // ... or .f16 registers
        (U16, F16, false),    // ... not .u16
        (B32, F16, false),    // ... nor .b32
        (F16x2, F16x2, true), // set.eq.u32.f16x2 %x
        (B32, F16x2, true),   // ... or .b32
        (F32, F16x2, false),  // ... not .f32
        (U32, F16x2, false),  // ... nor .u32
        (B16, Bf16, true),    // set.eq.u32.bf16 on .b16
        (F16, Bf16, false),   // ... not .f16
        (F64, F64, true),     // set.eq.u32.f64 %z (.f64)
        (B64, F64, true),     // ... or .b64
        (U64, F64, false),    // ... not .u64
        (S64, F64, false),    // ... nor .s64
    ];

    #[test]
    fn agrees_with_ptxas() {
        for &(declared, operand, ok) in PTXAS {
            assert_eq!(
                register_fits(declared, operand),
                ok,
                ".reg .{} as a .{} operand",
                declared.name(),
                operand.name()
            );
        }
    }
}
