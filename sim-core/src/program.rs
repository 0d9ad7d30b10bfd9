//! What an SM runs: the static program and the warps launched over it.

use crate::error::SimError;
use crate::stream::WarpStream;
use sim_isa::{Instruction, Symbols, Target};

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

impl Program {
    /// A program from PTX instructions, one per item (`add.u32 %r1, %r2, 4;`),
    /// checked against `target`. Registers are numbered in order of first use;
    /// the returned [`Symbols`] maps their names to ids.
    pub fn from_ptx<S: AsRef<str>>(
        target: Target,
        lines: &[S],
    ) -> Result<(Program, Symbols), SimError> {
        let mut syms = Symbols::new();
        let mut insts = Vec::with_capacity(lines.len());
        for (index, line) in lines.iter().enumerate() {
            insts.push(Program::parse_one(target, line.as_ref(), &mut syms, index)?);
        }
        let prog = Program {
            target,
            insts,
            nregs: syms.len(),
        };
        Ok((prog, syms))
    }

    /// Parses instruction `index` of a program being built.
    pub fn parse_one(
        target: Target,
        text: &str,
        syms: &mut Symbols,
        index: usize,
    ) -> Result<Instruction, SimError> {
        sim_isa::parse::parse_for_target(text, syms, target, None)
            .map_err(|error| SimError::Ptx { index, error })
    }
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
