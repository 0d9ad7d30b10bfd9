//! The async-copy family (issue 23): `cp.async.{ca,cg}.shared{::cta}.global`
//! (a copy of 4, 8 or 16 bytes from global to shared memory, zero-filled
//! past `src-size`), `cp.async.commit_group`, `cp.async.wait_group N` and
//! `cp.async.wait_all`. Parsed by `parse/async_copy.rs`, run by
//! `exec/async_copy.rs` through the caller's [`crate::exec::Memory`].
//!
//! A copy is complete when it issues (a correct program reads the shared
//! bytes only after a wait, and sees the same values). For timing, every
//! form names one register of its own, the warp's *async token*
//! ([`ASYNC_TOKEN`], interned by the parser; no text names it): a copy
//! writes it, as a load writes its destination, and the waits read it, so a
//! scoreboard holds a wait until the warp's last copy has landed
//! (`docs/async-copies.md`).

use crate::mem_inst::Address;
use crate::operand::{Operand, PredSrc, RegId};

/// The register name every async-copy statement's token is interned under:
/// no PTX identifier (it has dots), so no program's register can clash.
pub const ASYNC_TOKEN: &str = "%cp.async.token";

/// What an [`AsyncInst`] does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AsyncOp {
    /// `cp.async.ca` (`cg: false`) or `cp.async.cg`.
    Copy {
        /// `.cg` (L2 only; 16 bytes only).
        cg: bool,
    },
    /// `cp.async.commit_group`
    Commit,
    /// `cp.async.wait_group N` (`n`)
    WaitGroup,
    /// `cp.async.wait_all`
    WaitAll,
}

/// An async-copy statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AsyncInst {
    /// The operation.
    pub op: AsyncOp,
    /// The copy's `cp-size`: 4, 8 or 16 bytes (0 for the others).
    pub size: u8,
    /// `.shared::cta` was written (else `.shared`).
    pub cta: bool,
    /// `.L2::64B`/`.L2::128B`/`.L2::256B` prefetch size in bytes, or 0.
    pub l2: u16,
    /// The shared destination.
    pub dst: Address,
    /// The global source.
    pub src: Address,
    /// `src-size`: bytes read from `src`, the rest of `size` zero-filled.
    pub src_size: Option<Operand>,
    /// `ignore-src`: where true, nothing is read (all zeros).
    pub ignore_src: Option<PredSrc>,
    /// `wait_group`'s `N` (at most `N` most recent groups left pending).
    pub n: u64,
    /// The warp's async token (see the module doc).
    pub token: RegId,
}

impl AsyncInst {
    /// The opcode with its modifiers as written (without `.L2::`).
    pub fn word(&self) -> &'static str {
        match (self.op, self.cta) {
            (AsyncOp::Copy { cg: false }, false) => "cp.async.ca.shared.global",
            (AsyncOp::Copy { cg: false }, true) => "cp.async.ca.shared::cta.global",
            (AsyncOp::Copy { cg: true }, false) => "cp.async.cg.shared.global",
            (AsyncOp::Copy { cg: true }, true) => "cp.async.cg.shared::cta.global",
            (AsyncOp::Commit, _) => "cp.async.commit_group",
            (AsyncOp::WaitGroup, _) => "cp.async.wait_group",
            (AsyncOp::WaitAll, _) => "cp.async.wait_all",
        }
    }

    /// Whether the statement is a copy (it writes the token; waits read it).
    pub fn is_copy(&self) -> bool {
        matches!(self.op, AsyncOp::Copy { .. })
    }

    /// Whether the statement waits for copies (reads the token).
    pub fn is_wait(&self) -> bool {
        matches!(self.op, AsyncOp::WaitGroup | AsyncOp::WaitAll)
    }
}
