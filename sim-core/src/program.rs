//! What an SM runs: the static program and the warps launched over it.

use crate::stream::WarpStream;
use sim_isa::{Instruction, Target};

/// A static program: the instructions warps' streams index into.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// Target the instructions execute as (passed to [`sim_isa::execute`]).
    pub target: Target,
    /// The instructions.
    pub insts: Vec<Instruction>,
    /// Registers per warp (every [`sim_isa::RegId`] used must be below this).
    pub nregs: usize,
}

/// A warp to launch: its id (for `%warpid` and SM placement), active lanes and stream.
pub struct WarpLaunch {
    /// Warp index in the launch.
    pub warp_id: u32,
    /// Active lanes (bit i = lane i).
    pub active: u32,
    /// Its instructions.
    pub stream: Box<dyn WarpStream>,
}
