//! What the engine hands from functional execution to timing: one executed
//! statement of a warp ([`Step`]). Which instructions read the clock is the
//! database's (`sim_isa::db::reads_clock`).

/// Most memory instructions one warp of a recording may hold (each keeps
/// its lanes' addresses).
pub const MAX_ACCESSES: usize = 4_000_000;

/// One executed statement of a warp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// Statement index in the kernel body.
    pub stmt: u32,
    /// Lanes that executed it (active and guard true).
    pub lanes: u32,
    /// The slot of its addresses, for a memory access.
    pub access: Option<u32>,
}
