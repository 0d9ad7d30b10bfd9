//! Errors of the SM model.

use crate::stats::Report;
use std::fmt;

/// Which run limit stopped a simulation ([`crate::Limits`]), with its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// [`crate::Limits::max_cycles`]: the clock reached it with work left.
    Cycles(u64),
    /// [`crate::Limits::max_instructions`]: an SM issued that many warp
    /// instructions with work left.
    Instructions(u64),
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Limit::Cycles(n) => write!(f, "the cycle limit (max_cycles = {n})"),
            Limit::Instructions(n) => write!(
                f,
                "the instruction limit (max_instructions = {n} warp instructions per SM)"
            ),
        }
    }
}

/// Errors of the SM model.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
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
    /// A host pushed into a warp that is not host-fed or already closed, or
    /// pushed an executed instruction to a host-fed warp or the reverse.
    #[error("warp {0} does not accept this push (not a host warp of that kind, or closed)")]
    NotHostWarp(u32),
    /// An instruction uses a register outside the program's register count.
    #[error("instruction {index}: register {reg} is outside the program's {nregs} registers")]
    BadRegister {
        /// Instruction index.
        index: usize,
        /// Register id.
        reg: u32,
        /// [`crate::Program::nregs`].
        nregs: usize,
    },
    /// The configuration lacks the unit an instruction needs.
    #[error("instruction {index} needs the {unit} unit, which {config} does not have")]
    MissingUnit {
        /// Instruction index.
        index: usize,
        /// Unit name.
        unit: &'static str,
        /// Configuration name ([`crate::SmConfig::name`]), for the message.
        config: String,
    },
    /// A configuration value is unusable.
    #[error("invalid configuration: {0}")]
    BadConfig(String),
    /// A run limit stopped the simulation before every warp finished.
    /// `partial` holds the statistics up to that point (every SM's, for a
    /// [`crate::Simulation`]), so a caller can still report them.
    #[error("simulation stopped at cycle {}: {limit} was reached", partial.stats.cycles)]
    LimitExceeded {
        /// The limit that was reached (the lowest-numbered SM's, when several were).
        limit: Limit,
        /// Statistics of the stopped run.
        partial: Box<Report>,
    },
    /// The operating system refused to start a worker thread (thread or
    /// memory limits). Workers already started ran to their end.
    #[error("could not start simulation worker thread {index} of {threads}: {reason}")]
    ThreadSpawn {
        /// The worker that could not start.
        index: usize,
        /// Workers requested.
        threads: usize,
        /// The operating system's reason.
        reason: String,
    },
    /// An instruction of a program built from text does not parse or does
    /// not run on the target.
    #[error("instruction {index}: {error}")]
    Ptx {
        /// Its index in the program.
        index: usize,
        /// What is wrong, with its column.
        error: sim_isa::IsaError,
    },
    /// A host marked an instruction index past the end of the program.
    #[error("cannot mark instruction {index} as external: the program has {len} instructions")]
    BadMark {
        /// The index.
        index: u32,
        /// Program length.
        len: usize,
    },
    /// A host read or wrote a register the warp does not have.
    #[error("warp {warp_id}: register {reg} is outside its {nregs} registers")]
    NoSuchRegister {
        /// The warp.
        warp_id: u32,
        /// Register id.
        reg: u32,
        /// Registers per warp.
        nregs: usize,
    },
    /// A completion named no outstanding external instruction.
    #[error("no external instruction with ticket {0} is outstanding")]
    UnknownTicket(u64),
    /// A completion's cycle is before its instruction's issue.
    #[error(
        "external instruction {ticket} issued at cycle {issued} cannot complete at cycle {cycle}"
    )]
    EarlyCompletion {
        /// The request's ticket.
        ticket: u64,
        /// Its issue clock.
        issued: u64,
        /// The completion's clock.
        cycle: u64,
    },
    /// A worker thread panicked.
    #[error("a simulation worker thread panicked")]
    WorkerPanicked,
}
