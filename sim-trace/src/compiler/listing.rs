//! The listing half of `--lowering compiler`: a disassembly (read by
//! `sim_sass`, the one listing reader) walked along the path the region
//! runs, and read as dataflow (which machine instruction computes from
//! which).

use sim_core::sass_table::SassArch;
use sim_sass::regs::{mem_offset, pair, regs};
use sim_sass::{Inst, Item, Listing};
use std::collections::{HashMap, HashSet};

/// A listing's instructions and branch targets in order, all functions
/// together (a region kernel is one entry and its subroutines).
#[derive(Clone, Copy)]
pub(super) enum Step<'a> {
    /// A `.L` label: a branch or call target (entry and section names are not).
    Label(&'a str),
    /// An instruction.
    Inst(&'a Inst),
}

/// The steps of `listing` (unreadable lines left out).
pub(super) fn steps(listing: &Listing) -> Vec<Step<'_>> {
    let mut out = Vec::new();
    for f in &listing.functions {
        for item in &f.items {
            match item {
                Item::Label(l) if l.name.starts_with(".L") => out.push(Step::Label(&l.name)),
                Item::Inst(i) => out.push(Step::Inst(i)),
                Item::Label(_) | Item::Bad(_) => {}
            }
        }
    }
    out
}

/// The architecture number `sim_sass` decides register pairs by.
pub(super) fn sm(arch: SassArch) -> u32 {
    match arch {
        SassArch::Sm35 => 35,
        SassArch::Sm53 => 53,
        SassArch::Sm90 => 90,
    }
}

/// The instructions one thread runs from the entry to the last store, along
/// the fast path (derive_sass.py's `walk`: a call runs its subroutine, a
/// conditional forward branch over a call, return or outward branch is taken,
/// other conditional branches and returns are not).
pub(super) fn walk<'a>(steps: &[Step<'a>]) -> Vec<&'a Inst> {
    let labels: HashMap<&str, usize> = steps
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match s {
            Step::Label(l) => Some((*l, i)),
            Step::Inst(_) => None,
        })
        .collect();
    let target = |i: &Inst| i.target().and_then(|t| labels.get(t).copied());
    let mut path = Vec::new();
    fn run<'a>(
        steps: &[Step<'a>],
        pc0: usize,
        depth: usize,
        path: &mut Vec<&'a Inst>,
        target: &dyn Fn(&Inst) -> Option<usize>,
    ) -> bool {
        let mut pc = pc0;
        while pc < steps.len() && path.len() < 100_000 {
            let Step::Inst(inst) = steps[pc] else {
                pc += 1;
                continue;
            };
            let cond = inst.guard.is_some();
            match inst.base() {
                "BRA" => {
                    let to = target(inst);
                    // `BRA !P2, target`, `BRA CC.EQ, target`: conditional too.
                    let cond = cond || inst.operands.len() > 1;
                    let leaves = to.is_some_and(|to| {
                        steps.get(pc + 1..to).is_some_and(|between| {
                            between.iter().any(|s| match s {
                                Step::Inst(t) => {
                                    matches!(t.base(), "CAL" | "CALL" | "JCAL" | "RET" | "EXIT")
                                        || (t.base() == "BRA" && target(t).unwrap_or(0) > to)
                                }
                                Step::Label(_) => false,
                            })
                        })
                    });
                    if let Some(to) = to.filter(|&to| to > pc && (!cond || leaves)) {
                        pc = to;
                        continue;
                    }
                    if !cond {
                        return true;
                    }
                }
                "CAL" | "CALL" | "JCAL" => {
                    if let Some(to) = target(inst).filter(|_| !cond && depth < 4) {
                        if run(steps, to, depth + 1, path, target) {
                            return true;
                        }
                    }
                }
                "RET" | "EXIT" => {
                    if !cond {
                        return false;
                    }
                }
                _ => path.push(inst),
            }
            pc += 1;
        }
        true
    }
    run(steps, 0, 0, &mut path, &target);
    path
}

/// Where a machine register's value came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Def {
    /// Byte `offset` of the input area (a load).
    Load(u64),
    /// Machine instruction `k` of the decoded list.
    Mach(usize),
}

/// Registers a load or store moves: 1, 2 or 4 from its width modifier.
pub(super) fn width(opcode: &str) -> u32 {
    let parts: Vec<&str> = opcode.split('.').collect();
    if parts.contains(&"128") {
        4
    } else if parts.contains(&"64") {
        2
    } else {
        1
    }
}

pub(super) fn reg_number(r: &str) -> Option<(String, u32)> {
    let digits = r.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let prefix = &r[..r.len() - digits.len()];
    digits.parse().ok().map(|n| (prefix.to_string(), n))
}

/// Machine instructions: each opcode with its sources and the definitions
/// they read.
pub(super) type MachInsts = Vec<(String, Vec<(String, Def)>)>;

/// The machine instructions of a listing that compute (each with its
/// sources and the definitions they read; loads, stores and control left
/// out), and per stored byte offset the definitions of the registers stored.
pub(super) fn dataflow(
    listing: &str,
    arch: SassArch,
    pred_inputs: &HashSet<u64>,
) -> (MachInsts, HashMap<u64, Vec<Def>>) {
    let listing = Listing::parse(listing);
    let mut writer: HashMap<String, Def> = HashMap::new();
    // Machine instructions: (opcode, its sources with the register read).
    let mut mach: Vec<(String, Vec<(String, Def)>)> = Vec::new();
    // Per output slot: the definitions of the stored registers.
    let mut stored: HashMap<u64, Vec<Def>> = HashMap::new();
    for inst in walk(&steps(&listing)) {
        let offset = |op: Option<&String>| op.and_then(|a| mem_offset(a)).unwrap_or(0);
        let d = inst.registers(sm(arch));
        match inst.base() {
            "LDG" | "LD" => {
                let o = offset(inst.operands.last());
                if let Some((prefix, first)) = d.dests.first().and_then(|r| reg_number(r)) {
                    for k in 0..width(&inst.opcode) {
                        writer.insert(
                            format!("{prefix}{}", first + k),
                            Def::Load(o + 4 * u64::from(k)),
                        );
                    }
                }
            }
            "STG" | "ST" => {
                let addr = offset(inst.operands.first());
                let data = inst.operands.last().map(|o| regs(o)).unwrap_or_default();
                // A constant stored (`RZ`: a `mov` of 0) is a result that
                // no machine instruction computes.
                let Some(first) = data.first() else {
                    stored.insert(addr, Vec::new());
                    continue;
                };
                let regs: Vec<String> = if width(&inst.opcode) >= 2 {
                    pair(first)
                } else {
                    vec![first.clone()]
                };
                let defs = regs.iter().filter_map(|r| writer.get(r).copied()).collect();
                stored.insert(addr, defs);
            }
            "EXIT" | "RET" | "BRA" | "NOP" | "DEPBAR" | "MEMBAR" | "BAR" => {}
            _ => {
                let deps: Vec<(String, Def)> = d
                    .srcs
                    .iter()
                    .filter_map(|s| writer.get(s).map(|w| (s.clone(), *w)))
                    .collect();
                // The compare that makes an input predicate from its word is
                // the kernel's, not the region's: its result reads as the input.
                let from_pred_input = !deps.is_empty()
                    && d.dests.iter().all(|r| r.contains('P'))
                    && deps.iter().all(
                        |(_, w)| matches!(w, Def::Load(o) if pred_inputs.contains(&(o - o % 8))),
                    );
                if from_pred_input {
                    if let Some((_, w)) = deps.first() {
                        for r in &d.dests {
                            writer.insert(r.clone(), *w);
                        }
                    }
                    continue;
                }
                mach.push((inst.opcode.clone(), deps));
                for r in &d.dests {
                    writer.insert(r.clone(), Def::Mach(mach.len() - 1));
                }
            }
        }
    }
    (mach, stored)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast path: a forward branch over a return is taken, `.L` labels
    /// resolve, and the path ends at the unconditional trailing branch.
    #[test]
    fn walks_the_fast_path() {
        let l = Listing::parse(
            "/*0000*/ LDG.E R0, desc[UR4][R2.64] ;\n\
             /*0010*/ @P0 BRA `(.L_x_1) ;\n/*0020*/ @P1 EXIT ;\n/*0030*/ RET.REL.NODEC R2 ;\n\
             .L_x_1:\n/*0040*/ IADD3 R1, R0, R3, RZ ; /* 0x000fe20007ffe0ff */\n\
             .L_x_0:\n/*0050*/ BRA `(.L_x_0) ;\n/*0060*/ NOP ;\n",
        );
        let path: Vec<&str> = walk(&steps(&l)).iter().map(|i| i.text.as_str()).collect();
        assert_eq!(path, ["LDG.E R0, desc[UR4][R2.64]", "IADD3 R1, R0, R3, RZ"]);
        assert_eq!(sm(SassArch::Sm53), 53);
        assert_eq!(width("LDG.E.128"), 4);
        assert_eq!(reg_number("UR12"), Some(("UR".to_string(), 12)));
    }
}
