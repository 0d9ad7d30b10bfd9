//! sim-core: a cycle-approximate, deterministic SM model that embeds sim-isa.
//!
//! An [`Sm`] holds resident warps, each with its own registers, active mask and
//! instruction stream ([`WarpStream`]). Every clock each scheduler picks warps by
//! its [`SchedPolicy`], checks the scoreboard and the pipes it needs, and issues
//! the instruction's machine instructions (micro-ops: the compiler's code from
//! [`sass_table`], timed on per-architecture pipes by [`pipes`]). Instructions execute functionally (through [`sim_isa::execute`]) when
//! their first micro-op issues. [`Simulation`] spreads warps over several SMs and
//! runs them on worker threads with bit-identical results for any thread count.
//!
//! No file I/O, no clocks, no hash-order dependence: the same input gives the
//! same [`Stats`].
//!
//! # Embedding in a host simulator
//! A host that produces instructions one at a time registers a warp with
//! [`Sm::add_host_warp`], feeds it with [`Sm::push_instruction`] (an index into
//! [`Program::insts`]; [`Program::from_ptx`] builds a program from text) and
//! ends it with [`Sm::close_warp`]. [`Sm::run_until_idle`] returns as soon as
//! a host warp runs low ([`Sm::hungry_warps`]), so a host that feeds it then
//! gets the cycles of a replayed stream. The host may own instructions
//! ([`Sm::mark_external`], the [`External`] trait): the SM issues them and
//! the host completes them with values and a cycle. Registers are read and
//! written with [`Sm::reg`] and [`Sm::set_reg`]. A [`Simulation`] steps all
//! its SMs in lockstep on the caller's thread ([`Simulation::step`],
//! [`Simulation::run_until`]). Any [`WarpStream`] implementation works
//! through [`Sm::add_warp`], where `None` ends the warp. `docs/embedding.md`
//! and `examples/toy_memory.rs` show the whole API.
//!
//! A host that executes warps itself and wants only their timing adds
//! them with [`Sm::add_executed_warp`] and feeds each instruction with the
//! lanes that ran it ([`Sm::push_executed`]): the SM keeps no registers for
//! them and times them exactly as host-fed warps. Once finished (and their
//! external instructions completed) they are forgotten and their slots
//! reused, so an SM holds only its resident and pending warps. The host
//! learns which warps to feed and which finished at a cost proportional to
//! the news ([`Sm::take_hungry_into`], [`Sm::take_retired_into`]; the run
//! returns [`Progress::Waiting`] at the clock an executed warp finishes).
//! [`Sm::run_until_idle_before`] stops at a clock bound, so many SMs can
//! advance in epochs with exactly the cycles of one run each, and
//! [`Sm::idle_until`] brings an SM without warps to the global time.
//!
//! # Bounds
//! A program's per-instruction tables ([`ProgramTables`]) are built once and
//! shared by every SM of a [`Simulation`], so memory grows with the program
//! once and per SM only with that SM's warps. Runs stop at the
//! configuration's [`Limits`] (cycles, warp instructions) with
//! [`SimError::LimitExceeded`], which carries the statistics so far.
//!
//! # Layout
//! `program` (what runs), `stream` (how warps are fed), `external` (host-owned
//! instructions), `config` (presets and limits), `sm/` (one SM: shared
//! tables, warp lifecycle, schedulers, units, clock loop, host hooks), `sim`
//! (many SMs on worker threads, or in lockstep), `stats`, `error`.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod config;
pub mod config_file;
mod error;
pub mod external;
mod facts;
pub mod lowering;
pub mod pipes;
mod program;
pub mod sass_table;
mod sim;
mod sm;
pub mod stats;
pub mod stream;
pub mod warp_states;

pub use config::{
    preset, ICache, Limits, LoweringArch, Preset, SchedPolicy, SmConfig, UnitClass, UnitConfig,
    Units,
};
pub use error::{Limit, SimError};
pub use external::{Completion, Deferred, External, ExternalRequest};
pub use program::{Program, WarpLaunch};
pub use sim::Simulation;
pub use sm::{IssueEvent, ProgramTables, Progress, Sm};
pub use stats::{OpStats, Report, Stalls, Stats, UnitStats};
pub use stream::{FnStream, RepeatStream, VecStream, WarpStream};
pub use warp_states::{Activity, InstProfile, WarpStalls};
