//! Facts about an instruction that the SM model needs, read from sim-isa's
//! instruction database: the report's mnemonic and the unit class of its
//! native (first) machine instruction.

use crate::config::UnitClass;
use sim_isa::{db, Instruction};

/// The report's mnemonic of `inst` (`vadd4`, `set`, `mul.lo`).
pub(crate) fn mnemonic(inst: &Instruction) -> &'static str {
    db::mnemonic(inst)
}

/// Unit class of an instruction's native (first) machine instruction (the
/// database's, which is the SM model's [`UnitClass`]).
pub(crate) fn native_class(inst: &Instruction) -> UnitClass {
    db::unit_class(inst)
}

/// A PTX source operand as the lowering table names it (`a`..`d`): the
/// database's ([`db::lowering_sources`]).
pub(crate) use sim_isa::db::Source as SrcOperand;

/// `inst`'s sources `a`, `b`, `c`, `d` in the lowering table's sense.
pub(crate) fn sources(inst: &Instruction) -> [SrcOperand; 4] {
    db::lowering_sources(inst)
}

/// Per register (indexed by id, `nregs` long): whether its value is the same
/// wherever the program reads it, as far as the program text shows: every
/// instruction that writes it reads only such registers, immediates and
/// special registers, and not through a guard. Registers nothing writes count
/// too. A least fixpoint, so a register in a dependence cycle (`x = f(x)`, or
/// `setp p, x` with `selp x, .., p`) is never invariant.
pub(crate) fn invariant_registers(insts: &[Instruction], nregs: usize) -> Vec<bool> {
    // Worklist: an instruction settles when none of its reads is pending; a
    // register becomes invariant when its last writer settles.
    let mut writers = vec![0usize; nregs];
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); nregs];
    let mut pending = vec![0usize; insts.len()];
    for (i, inst) in insts.iter().enumerate() {
        let uses = inst.reg_uses();
        for u in uses.writes() {
            if let Some(w) = writers.get_mut(u.reg.0 as usize) {
                *w += 1;
            }
        }
        for u in uses.reads() {
            if let Some(r) = readers.get_mut(u.reg.0 as usize) {
                r.push(i);
                pending[i] += 1;
            }
        }
        // A guarded write may keep the old value, and a load or a clock
        // read may return another value each time: never settled.
        if inst.guard.is_some() || db::varies(inst) {
            pending[i] += 1;
        }
    }
    let mut inv: Vec<bool> = writers.iter().map(|&w| w == 0).collect();
    let mut ready: Vec<usize> = (0..insts.len()).collect();
    for r in 0..nregs {
        if inv[r] {
            for &i in &readers[r] {
                pending[i] -= 1;
            }
        }
    }
    ready.retain(|&i| pending[i] == 0);
    while let Some(i) = ready.pop() {
        for u in insts[i].reg_uses().writes() {
            let r = u.reg.0 as usize;
            let Some(w) = writers.get_mut(r) else {
                continue;
            };
            *w -= 1;
            if *w == 0 && !inv[r] {
                inv[r] = true;
                for &j in &readers[r] {
                    pending[j] -= 1;
                    if pending[j] == 0 {
                        ready.push(j);
                    }
                }
            }
        }
    }
    inv
}
