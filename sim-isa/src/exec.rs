//! Per-lane semantics, written once per family and lifted over a 32-lane warp
//! under the active mask and the guard. (Skeleton: semantics land with issue 2.)

use crate::inst::{Instruction, RegId};
use crate::target::Target;

/// Lanes per warp.
pub const WARP_SIZE: usize = 32;

/// A warp's registers: one 32-lane array per [`RegId`]. Values are stored
/// zero-extended to 64 bits at the width last written; predicates are 0/1.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WarpRegs {
    regs: Vec<[u64; WARP_SIZE]>,
}

impl WarpRegs {
    /// `n` registers, all zero.
    pub fn new(n: usize) -> Self {
        WarpRegs { regs: vec![[0; WARP_SIZE]; n] }
    }
    /// Number of registers.
    pub fn len(&self) -> usize {
        self.regs.len()
    }
    /// No registers.
    pub fn is_empty(&self) -> bool {
        self.regs.is_empty()
    }
    /// Grows the file to at least `n` registers (new ones zero).
    pub fn ensure(&mut self, n: usize) {
        if self.regs.len() < n {
            self.regs.resize(n, [0; WARP_SIZE]);
        }
    }
    /// All lanes of `r`.
    pub fn get(&self, r: RegId) -> &[u64; WARP_SIZE] {
        &self.regs[r.0 as usize]
    }
    /// All lanes of `r`, mutably.
    pub fn get_mut(&mut self, r: RegId) -> &mut [u64; WARP_SIZE] {
        &mut self.regs[r.0 as usize]
    }
    /// One lane of `r`.
    pub fn lane(&self, r: RegId, lane: usize) -> u64 {
        self.regs[r.0 as usize][lane]
    }
    /// Sets one lane of `r`.
    pub fn set_lane(&mut self, r: RegId, lane: usize, v: u64) {
        self.regs[r.0 as usize][lane] = v;
    }
}

/// What execution needs beyond the instruction and registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExecCtx {
    /// Target (some semantics depend on it: sm_1x flushes f32 subnormals).
    pub target: Target,
    /// The warp's index, for `%warpid`.
    pub warp_id: u32,
}

/// Executes `inst` on every lane set in `active` whose guard holds.
/// Lanes that do not execute write nothing. Allocation-free.
pub fn execute(inst: &Instruction, ctx: &ExecCtx, regs: &mut WarpRegs, active: u32) {
    let _ = (inst, ctx, regs, active);
}
