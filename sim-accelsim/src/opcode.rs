//! SASS opcodes of a trace onto the SM model: which pipe rule times each,
//! or which part of the memory model.
//!
//! The SM model knows machine opcodes through its pipe rules
//! ([`sim_core::pipes`]) and the lowering table
//! ([`sim_core::sass_table`], `data/lowering-sass.tsv`: sm_35, sm_53 and
//! sm_90 code from ptxas). An opcode of the target's own table is timed by
//! its rule ([`How::Table`]). An opcode the target's table lacks but whose
//! rule the target inherits from an older architecture's table (Pascal's
//! `XMAD` on sm_90: Maxwell's rule) keeps that rule ([`How::Inherited`]).
//! An opcode that only another architecture's rules know (Hopper's `UMOV`
//! on sm_53) is timed as a representative opcode of the same pipe on the
//! target ([`How::Alias`]). The rest of the arithmetic and the control flow
//! (`S2R`, `BRA`, `EXIT`, `NOP`, `MEMBAR`) has no rule and is timed as an
//! `int_alu` instruction at that pipe's latency ([`How::NoRule`]). Memory
//! instructions go to the memory model (sim-kernel's `memtime`) with their
//! traced addresses; `BAR` waits for the block's warps.

use sim_core::config::UnitClass;
use sim_core::pipes;
use sim_core::sass_table::{SassArch, SASS_TSV};
use sim_isa::Space;
use std::collections::BTreeSet;

/// What a traced instruction does, for its timing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Arithmetic, moves, control flow: a pipe.
    Alu,
    /// A load from `Space` (texture fetches count as global loads).
    Load(Space),
    /// A store.
    Store(Space),
    /// An atomic (`ATOM`, `RED`).
    Atomic(Space),
    /// `BAR.SYNC` and its kin: waits for the block's warps.
    Barrier,
}

/// How an opcode's timing was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum How {
    /// The target's own table has it.
    Table,
    /// The target inherits its rule from an older architecture's table.
    Inherited,
    /// Timed as `.0`, the target's representative of the pipe another
    /// architecture's rule puts it on.
    Alias(&'static str),
    /// No rule anywhere: timed on `int_alu` at its latency.
    NoRule,
    /// The memory model or the barrier.
    Memory,
}

/// One opcode (with modifiers, as traced) mapped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mapped {
    /// What it does.
    pub class: Class,
    /// The machine opcode the SM model times (`XMAD`, or an alias).
    pub opcode: String,
    /// Its modifiers with the leading dot (empty if none).
    pub modifiers: String,
    /// How the timing was found.
    pub how: How,
}

/// The memory or barrier class of base opcode `base` (`LDG`), if any.
fn memory_class(base: &str, mods: &str) -> Option<Class> {
    use Space::{Const, Global, Local, Shared};
    Some(match base {
        "LDG" | "LD" | "LDGSTS" | "TEX" | "TLD" | "TLD4" | "TLDS" | "TEXS" | "TLD4S" | "SULD"
        | "LDU" => Class::Load(Global),
        "LDL" => Class::Load(Local),
        "LDS" | "LDSM" => Class::Load(Shared),
        "LDC" | "ULDC" => Class::Load(Const),
        "STG" | "ST" | "SUST" => Class::Store(Global),
        "STL" => Class::Store(Local),
        "STS" => Class::Store(Shared),
        "ATOM" | "ATOMG" | "RED" | "SUATOM" | "SURED" => Class::Atomic(Global),
        "ATOMS" => Class::Atomic(Shared),
        // `BAR.ARV` arrives without waiting: an issue slot only.
        "BAR" if !mods.starts_with(".ARV") => Class::Barrier,
        _ => return None,
    })
}

/// The opcodes of `arch`'s rows in the lowering table.
fn table_opcodes(arch: SassArch) -> BTreeSet<&'static str> {
    let name = arch.name();
    let mut out = BTreeSet::new();
    for line in SASS_TSV.lines().filter(|l| !l.starts_with('#')) {
        let mut f = line.split('\t');
        if f.next() != Some(name) {
            continue;
        }
        let seq = f.nth(2).unwrap_or("");
        for inst in seq.split_whitespace() {
            let op = inst.split([':', '.']).next().unwrap_or("");
            if !op.is_empty() {
                out.insert(op);
            }
        }
    }
    out
}

/// The target's representative opcode of `pipe`, if the target has a rule
/// for one.
fn representative(arch: SassArch, pipe: UnitClass) -> Option<&'static str> {
    let candidates: &[&'static str] = match pipe {
        UnitClass::IntAlu => &["IADD3", "IADD", "MOV"],
        UnitClass::IntCmp => &["ISETP"],
        UnitClass::Fp32 => &["FFMA"],
        UnitClass::Fp16 => &["HFMA2"],
        UnitClass::Fp64 => &["DFMA"],
        UnitClass::Video => &["VADD4", "IADD"],
        UnitClass::VideoAbsdiff => &["VABSDIFF4"],
        UnitClass::Xu => &["MUFU"],
    };
    candidates
        .iter()
        .copied()
        .find(|op| pipes::warp_rule(arch, op, "").is_some_and(|r| r.pipe == pipe))
}

/// Maps traced opcodes onto one target architecture.
pub struct Mapper {
    arch: SassArch,
    table: BTreeSet<&'static str>,
}

impl Mapper {
    /// A mapper onto `arch`'s table and rules.
    pub fn new(arch: SassArch) -> Mapper {
        Mapper {
            arch,
            table: table_opcodes(arch),
        }
    }

    /// The architecture mapped onto.
    pub fn arch(&self) -> SassArch {
        self.arch
    }

    /// Maps `op` (`XMAD.PSL.CBCC`).
    pub fn map(&self, op: &str) -> Mapped {
        let (base, mods) = match op.find('.') {
            Some(i) => (&op[..i], &op[i..]),
            None => (op, ""),
        };
        let mapped = |class, opcode: &str, how| Mapped {
            class,
            opcode: opcode.to_string(),
            modifiers: mods.to_string(),
            how,
        };
        if let Some(class) = memory_class(base, mods) {
            return mapped(class, base, How::Memory);
        }
        if self.table.contains(base) && pipes::warp_rule(self.arch, base, mods).is_some() {
            return mapped(Class::Alu, base, How::Table);
        }
        if pipes::warp_rule(self.arch, base, mods).is_some() {
            return mapped(Class::Alu, base, How::Inherited);
        }
        let other = SassArch::ALL
            .iter()
            .rev()
            .find_map(|&a| pipes::warp_rule(a, base, mods))
            .and_then(|r| representative(self.arch, r.pipe));
        match other {
            Some(rep) => Mapped {
                class: Class::Alu,
                opcode: rep.to_string(),
                modifiers: String::new(),
                how: How::Alias(rep),
            },
            None => mapped(Class::Alu, base, How::NoRule),
        }
    }
}

/// The one warning for a kernel's opcodes that are not the target table's
/// own: each with how it is timed; `None` if every opcode is the table's
/// (or memory).
pub fn warning(arch: SassArch, mapped: &[(String, Mapped)]) -> Option<String> {
    let mut parts = Vec::new();
    for (op, m) in mapped {
        let how = match &m.how {
            How::Table | How::Memory => continue,
            How::Inherited => {
                let pipe = pipes::warp_rule(arch, &m.opcode, &m.modifiers)
                    .map_or("int_alu", |r| r.pipe.name());
                format!("{op} (an older table's rule: {pipe})")
            }
            How::Alias(rep) => format!("{op} (as {rep})"),
            How::NoRule => format!("{op} (no rule: int_alu)"),
        };
        parts.push(how);
    }
    if parts.is_empty() {
        return None;
    }
    Some(format!(
        "{} of the trace's opcodes are not in the {} machine-code table and are approximated: {}",
        parts.len(),
        arch.name(),
        parts.join(", ")
    ))
}
