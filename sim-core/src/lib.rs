//! sim-core: a cycle-approximate, deterministic SM model that embeds sim-isa.
//!
//! An [`Sm`] holds resident warps, each with its own registers, active mask and
//! instruction stream ([`WarpStream`]). Every clock each scheduler picks warps by
//! its [`SchedPolicy`], checks the scoreboard and its functional unit, and issues
//! the instruction's machine instructions (micro-ops, from the [`lowering`]
//! table). Instructions execute functionally (through [`sim_isa::execute`]) when
//! their first micro-op issues. [`Simulation`] spreads warps over several SMs and
//! runs them on worker threads with bit-identical results for any thread count.
//!
//! No file I/O, no clocks, no hash-order dependence: the same input gives the
//! same [`Stats`].
//!
//! # Embedding in a host simulator
//! A host that produces instructions one at a time registers a warp with
//! [`Sm::add_host_warp`], feeds it with [`Sm::push_instruction`] (an index into
//! [`Program::insts`]), advances time with [`Sm::step`] (or
//! [`Sm::run_to_completion`], which returns as soon as every live warp waits for
//! input), checks [`Sm::warp_waiting`] to know when to feed more, and ends the
//! warp with [`Sm::close_warp`]. Any [`WarpStream`] implementation (a channel
//! receiver, a decoder over a trace) works the same way through
//! [`Sm::add_warp`], where `None` ends the warp.

pub mod config;
mod facts;
pub mod lowering;
mod sim;
mod sm;
pub mod stats;
pub mod stream;

pub use config::{preset, LoweringArch, SchedPolicy, SmConfig, UnitClass, UnitConfig, Units};
pub use sim::{Report, Simulation};
pub use sm::{IssueEvent, Sm};
pub use stats::{OpStats, Stalls, Stats, UnitStats};
pub use stream::{FnStream, RepeatStream, VecStream};

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

/// A warp's dynamic instruction stream.
pub trait WarpStream: Send {
    /// The next dynamic instruction, as an index into [`Program::insts`];
    /// `None` ends the warp.
    fn next_index(&mut self) -> Option<u32>;

    /// Fills the front of `out` with the next indices and returns how many;
    /// 0 ends the warp. The SM buffers the batch, saving a dynamic call per
    /// instruction. The default takes one index, so streams that wait for
    /// input (channels) are never read ahead; replayable streams override it.
    fn next_batch(&mut self, out: &mut [u32]) -> usize {
        let Some(slot) = out.first_mut() else {
            return 0;
        };
        match self.next_index() {
            Some(i) => {
                *slot = i;
                1
            }
            None => 0,
        }
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

/// Errors of the SM model.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    /// A stream or host produced an index past the end of the program.
    #[error("warp {warp_id}: instruction index {index} is out of range (program has {len} instructions)")]
    BadIndex {
        /// The warp.
        warp_id: u32,
        /// The index.
        index: u32,
        /// Program length.
        len: usize,
    },
    /// Two warps with one id on one SM.
    #[error("warp {0} was added twice")]
    DuplicateWarp(u32),
    /// An operation named a warp the SM does not have.
    #[error("no warp {0} on this SM")]
    UnknownWarp(u32),
    /// A host pushed into a warp that is not host-fed or already closed.
    #[error("warp {0} does not accept pushed instructions (not a host warp, or closed)")]
    NotHostWarp(u32),
    /// An instruction uses a register outside the program's register count.
    #[error("instruction {index}: register {reg} is outside the program's {nregs} registers")]
    BadRegister {
        /// Instruction index.
        index: usize,
        /// Register id.
        reg: u32,
        /// [`Program::nregs`].
        nregs: usize,
    },
    /// The configuration lacks the unit an instruction needs.
    #[error("instruction {index} needs the {unit} unit, which {config} does not have")]
    MissingUnit {
        /// Instruction index.
        index: usize,
        /// Unit name.
        unit: &'static str,
        /// Configuration name.
        config: String,
    },
    /// A configuration value is unusable.
    #[error("invalid configuration: {0}")]
    BadConfig(String),
    /// A worker thread panicked.
    #[error("a simulation worker thread panicked")]
    WorkerPanicked,
}
