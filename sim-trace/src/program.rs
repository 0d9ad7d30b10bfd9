//! The one way a program is built from instruction texts, shared by kernel
//! text, the binary trace reader and the generator: parse against declared
//! registers, check each register's declared width against the operand that
//! uses it (as ptxas does), deduplicate, keep the canonical text.

use crate::limits;
use sim_isa::{Instruction, IsaError, RegId, Symbols, Type};
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
        if syms.len() > before {
            // Parsing interned a name nobody declared: drop it again, so the
            // table stays what the declarations made it.
            undeclared = Some(syms.name(RegId(before as u32)).to_string());
            self.undo_interned(before);
        }
        let inst = parsed.map_err(ProgramError::Parse)?;
        if let Some(name) = undeclared {
            return Err(ProgramError::Undeclared { name });
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

/// Every register's declared width must equal the width its operand gives it.
fn check_widths(inst: &Instruction, syms: &Symbols) -> Result<(), ProgramError> {
    for u in inst.reg_uses().iter() {
        let Some(declared) = syms.declared_type(u.reg) else {
            continue;
        };
        if declared.bits() != u.bits {
            return Err(ProgramError::Width {
                name: syms.name(u.reg).to_string(),
                declared,
                bits: u.bits,
            });
        }
    }
    Ok(())
}
