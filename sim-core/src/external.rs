//! Instructions the host owns: the external-instruction interface.
//!
//! A host marks program instructions as external ([`crate::Sm::mark_external`],
//! by index into [`crate::Program::insts`]: the host decides, e.g. its memory
//! accesses or a custom unit's operations). When a warp issues a marked
//! instruction, the SM takes its issue slot and unit as for any other, but does
//! not execute it: it calls [`External::issue`] with the instruction and the
//! warp's registers. The destination registers stay pending on the scoreboard
//! until the host completes the instruction with its per-lane values and the
//! cycle its result is ready, either at once (the return value of `issue`) or
//! later ([`crate::Sm::complete_external`], naming the request's ticket).
//!
//! A memory model built into the simulator is one implementation of
//! [`External`]; a host simulator's memory system is another.

use sim_isa::{Instruction, RegId, WarpRegs, WARP_SIZE};

/// One issued external instruction, as the host sees it.
pub struct ExternalRequest<'a> {
    /// Names this request in [`crate::Sm::complete_external`] (unique per SM).
    pub ticket: u64,
    /// The SM's index in its [`crate::Simulation`] (0 for a lone [`crate::Sm`]).
    pub sm: u32,
    /// Clock of the issue.
    pub cycle: u64,
    /// The issuing warp.
    pub warp_id: u32,
    /// Index into [`crate::Program::insts`].
    pub index: u32,
    /// The instruction.
    pub inst: &'a Instruction,
    /// Lanes that execute it: active lanes whose guard held (for an
    /// executed warp, [`crate::Sm::add_executed_warp`], the lanes the host
    /// pushed with it).
    pub lanes: u32,
    /// The warp's registers at issue (its source operands are read here).
    /// Empty for an executed warp: the host holds its values.
    pub regs: &'a WarpRegs,
}

impl ExternalRequest<'_> {
    /// Source registers (the guard excluded) with their 32 lane values, in
    /// operand order. Allocation-free. None for an executed warp's request
    /// (its `regs` are empty).
    pub fn sources(&self) -> impl Iterator<Item = (RegId, &[u64; WARP_SIZE])> + '_ {
        // `reg_uses` lists the guard first.
        let skip = usize::from(self.inst.guard.is_some());
        let (regs, n) = collect(self.inst.reg_uses().reads().skip(skip).map(|u| u.reg));
        let n = if self.regs.is_empty() { 0 } else { n };
        (0..n).map(move |k| (regs[k], self.regs.get(regs[k])))
    }

    /// Destination registers, in the order [`Completion::values`] fills them.
    pub fn dests(&self) -> impl Iterator<Item = RegId> {
        let (regs, n) = collect(self.inst.reg_uses().writes().map(|u| u.reg).take(2));
        (0..n).map(move |k| regs[k])
    }
}

/// Registers into a fixed array (an instruction names at most 16).
fn collect(it: impl Iterator<Item = RegId>) -> ([RegId; 16], usize) {
    let mut regs = [RegId(0); 16];
    let mut n = 0;
    for (slot, r) in regs.iter_mut().zip(it) {
        *slot = r;
        n += 1;
    }
    (regs, n)
}

/// The result of an external instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    /// Clock its results are ready (at least the issue clock).
    pub cycle: u64,
    /// Per destination ([`ExternalRequest::dests`] order), the 32 lane values;
    /// only the request's `lanes` are written (nothing for an executed warp,
    /// which has no registers: only `cycle` counts then).
    pub values: [[u64; WARP_SIZE]; 2],
}

impl Completion {
    /// Results ready at `cycle`, all values zero.
    pub fn at(cycle: u64) -> Self {
        Completion {
            cycle,
            values: [[0; WARP_SIZE]; 2],
        }
    }
}

/// The host side of external instructions.
pub trait External {
    /// Called when a warp issues a marked instruction. Return the completion
    /// now, or `None` to complete it later with [`crate::Sm::complete_external`].
    fn issue(&mut self, req: &ExternalRequest<'_>) -> Option<Completion>;

    /// [`External::issue`] for an executed warp's request
    /// ([`crate::Sm::add_executed_warp`]): it has no registers, so only the
    /// completion's clock counts. Returns that clock now, or `None` to
    /// complete it later. A host that completes such requests at once may
    /// override this to skip building (and the SM reading) a [`Completion`]
    /// of 64 lane values per issue; it must then answer as `issue` would.
    fn issue_at(&mut self, req: &ExternalRequest<'_>) -> Option<u64> {
        self.issue(req).map(|c| c.cycle)
    }
}

/// An [`External`] that completes nothing itself: every marked instruction
/// waits for [`crate::Sm::complete_external`]. Runs without a host use it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Deferred;

impl External for Deferred {
    fn issue(&mut self, _req: &ExternalRequest<'_>) -> Option<Completion> {
        None
    }
}

impl<F: FnMut(&ExternalRequest<'_>) -> Option<Completion>> External for F {
    fn issue(&mut self, req: &ExternalRequest<'_>) -> Option<Completion> {
        self(req)
    }
}
