//! The async-copy family (issue 23): `cp.async.{ca,cg}.shared{::cta}.global`
//! (a copy of 4, 8 or 16 bytes from global to shared memory, zero-filled
//! past `src-size`), `cp.async.commit_group`, `cp.async.wait_group N` and
//! `cp.async.wait_all`; and the `mbarrier` objects (`mbarrier.init`,
//! `arrive`, `arrive_drop`, `test_wait`, `try_wait`, `pending_count`,
//! `inval`, `cp.async.mbarrier.arrive`). Parsed by `parse/async_copy.rs`,
//! run by `exec/async_copy.rs` and `exec/mbarrier.rs` through the caller's
//! [`crate::exec::Memory`].
//!
//! A copy is complete when it issues (a correct program reads the shared
//! bytes only after a wait, and sees the same values). For timing, every
//! form names one register of its own, the warp's *async token*
//! ([`ASYNC_TOKEN`], interned by the parser; no text names it): a copy
//! writes it, as a load writes its destination, and the waits read it, so a
//! scoreboard holds a wait until the warp's last copy has landed
//! (`docs/async-copies.md`).

use crate::mem_inst::{Address, Space};
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
    /// An `mbarrier` operation on the 64-bit object at `dst`.
    Mbar(MbarOp),
    /// `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
    /// [dst], [src], size, [bar]` (`from_shared`: the source is
    /// `.shared::cta`): `size` bytes (`a`) to shared memory, completing by
    /// the transaction count of the `mbarrier` at `bar`.
    Bulk {
        /// The source is shared memory (`.shared::cta`), not global.
        from_shared: bool,
    },
    /// `cp.async.bulk.global.shared::cta.bulk_group [dst], [src], size`:
    /// shared to global, completing with the thread's bulk group.
    BulkStore,
    /// `cp.async.bulk.commit_group`
    BulkCommit,
    /// `cp.async.bulk.wait_group{.read} N` (`n`)
    BulkWait {
        /// `.read`: only the groups' reads of their sources are waited for.
        read: bool,
    },
}

/// What an `mbarrier` statement does (the object: `exec/mbarrier.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MbarOp {
    /// `mbarrier.init [a], count`
    Init,
    /// `mbarrier.arrive{.noComplete} state, [a]{, count}` and
    /// `mbarrier.arrive_drop` (`drop`: the expected count falls too);
    /// `.expect_tx` (`tx`): `state, [a], txCount`, one arrival after an
    /// `expect_tx` of `txCount`.
    Arrive {
        /// `arrive_drop`
        drop: bool,
        /// `.noComplete` (the arrival must not complete the phase).
        no_complete: bool,
        /// `.expect_tx`: `a` is the transaction count, the arrivals one.
        tx: bool,
    },
    /// `mbarrier.expect_tx [a], txCount`: the phase awaits `txCount` more
    /// bytes.
    ExpectTx,
    /// `mbarrier.complete_tx [a], txCount`: `txCount` bytes have arrived.
    CompleteTx,
    /// `mbarrier.test_wait` / `try_wait` (`try_`), `.parity` (`parity`):
    /// `p, [a], state|parity{, hint}`.
    Wait {
        /// `try_wait`
        try_: bool,
        /// `.parity`
        parity: bool,
    },
    /// `mbarrier.pending_count.b64 count, state`: no memory.
    PendingCount,
    /// `mbarrier.inval [a]`
    Inval,
    /// `cp.async.mbarrier.arrive{.noinc} [a]`: an arrival once the thread's
    /// earlier copies are done (at once here: they complete as they issue).
    CpArrive {
        /// `.noinc` (without it the pending count is raised first: no net change).
        noinc: bool,
    },
}

/// Memory-order and scope words an `mbarrier` statement may carry, in the
/// order they print (index 0: none).
pub const MBAR_ORDERS: [&str; 7] = [
    "",
    "release.cta",
    "release.cluster",
    "relaxed.cta",
    "relaxed.cluster",
    "acquire.cta",
    "acquire.cluster",
];

/// An async-copy statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AsyncInst {
    /// The operation.
    pub op: AsyncOp,
    /// The copy's `cp-size`: 4, 8 or 16 bytes (0 for the others).
    pub size: u8,
    /// `.shared::cta` was written (else `.shared`; a bulk copy's
    /// destination: else `.shared::cluster`).
    pub cta: bool,
    /// `mbarrier`: `.shared::cluster` was written (this block's own
    /// shared memory: simcli runs clusters of one block).
    pub cluster: bool,
    /// `mbarrier`: no state space (a generic address).
    pub generic: bool,
    /// `mbarrier`: memory order and scope, an index into [`MBAR_ORDERS`].
    pub order: u8,
    /// `mbarrier`: the destination (`arrive`'s state, `None` for the sink
    /// `_`; a wait's predicate; `pending_count`'s count).
    pub d: Option<RegId>,
    /// `mbarrier`: `init`'s and `arrive`'s count, a wait's state or parity,
    /// `pending_count`'s state, the transaction count; a bulk copy's size.
    pub a: Option<Operand>,
    /// `try_wait`'s suspend-time hint.
    pub hint: Option<Operand>,
    /// `.L2::64B`/`.L2::128B`/`.L2::256B` prefetch size in bytes, or 0.
    pub l2: u16,
    /// The shared destination (`mbarrier`: the object; a bulk store's:
    /// global).
    pub dst: Address,
    /// The global source (a bulk store's, and `from_shared`'s: shared).
    pub src: Address,
    /// A bulk copy's `mbarrier` (`.shared::cluster`).
    pub bar: Address,
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
    /// The opcode with its modifiers as written, without the state space,
    /// `.L2::`, orders or type (`cp.async.ca`, `mbarrier.try_wait.parity`).
    pub fn word(&self) -> &'static str {
        match self.op {
            AsyncOp::Copy { cg: false } => "cp.async.ca",
            AsyncOp::Copy { cg: true } => "cp.async.cg",
            AsyncOp::Commit => "cp.async.commit_group",
            AsyncOp::WaitGroup => "cp.async.wait_group",
            AsyncOp::WaitAll => "cp.async.wait_all",
            AsyncOp::Bulk { .. } | AsyncOp::BulkStore => "cp.async.bulk",
            AsyncOp::BulkCommit => "cp.async.bulk.commit_group",
            AsyncOp::BulkWait { read: false } => "cp.async.bulk.wait_group",
            AsyncOp::BulkWait { read: true } => "cp.async.bulk.wait_group.read",
            AsyncOp::Mbar(m) => match m {
                MbarOp::Init => "mbarrier.init",
                MbarOp::Arrive {
                    drop,
                    no_complete,
                    tx,
                } => {
                    // Indexed by the three words (ptxas takes no
                    // `.noComplete` with `.expect_tx`; it prints anyway).
                    const ARRIVE: [&str; 8] = [
                        "mbarrier.arrive",
                        "mbarrier.arrive.expect_tx",
                        "mbarrier.arrive.noComplete",
                        "mbarrier.arrive.noComplete.expect_tx",
                        "mbarrier.arrive_drop",
                        "mbarrier.arrive_drop.expect_tx",
                        "mbarrier.arrive_drop.noComplete",
                        "mbarrier.arrive_drop.noComplete.expect_tx",
                    ];
                    ARRIVE[usize::from(drop) * 4 + usize::from(no_complete) * 2 + usize::from(tx)]
                }
                MbarOp::ExpectTx => "mbarrier.expect_tx",
                MbarOp::CompleteTx => "mbarrier.complete_tx",
                MbarOp::Wait {
                    try_: false,
                    parity: false,
                } => "mbarrier.test_wait",
                MbarOp::Wait {
                    try_: false,
                    parity: true,
                } => "mbarrier.test_wait.parity",
                MbarOp::Wait {
                    try_: true,
                    parity: false,
                } => "mbarrier.try_wait",
                MbarOp::Wait {
                    try_: true,
                    parity: true,
                } => "mbarrier.try_wait.parity",
                MbarOp::PendingCount => "mbarrier.pending_count",
                MbarOp::Inval => "mbarrier.inval",
                MbarOp::CpArrive { noinc: false } => "cp.async.mbarrier.arrive",
                MbarOp::CpArrive { noinc: true } => "cp.async.mbarrier.arrive.noinc",
            },
        }
    }

    /// The state-space word as written after the opcode and order
    /// (`shared`, `shared::cta`, `shared::cluster`; empty for a generic
    /// address, the group statements and the bulk copies, whose spaces
    /// print with their operands).
    pub fn space_word(&self) -> &'static str {
        match self.op {
            AsyncOp::Commit
            | AsyncOp::WaitGroup
            | AsyncOp::WaitAll
            | AsyncOp::Bulk { .. }
            | AsyncOp::BulkStore
            | AsyncOp::BulkCommit
            | AsyncOp::BulkWait { .. }
            | AsyncOp::Mbar(MbarOp::PendingCount) => "",
            AsyncOp::Copy { .. } | AsyncOp::Mbar(_) if self.generic => "",
            AsyncOp::Copy { .. } | AsyncOp::Mbar(_) => {
                if self.cta {
                    "shared::cta"
                } else if self.cluster {
                    "shared::cluster"
                } else {
                    "shared"
                }
            }
        }
    }

    /// The space of `dst`'s addresses (a generic `mbarrier`'s: generic).
    pub fn dst_space(&self) -> Space {
        match self.op {
            AsyncOp::BulkStore => Space::Global,
            AsyncOp::Mbar(_) if self.generic => Space::Generic,
            AsyncOp::Copy { .. }
            | AsyncOp::Bulk { .. }
            | AsyncOp::Mbar(_)
            | AsyncOp::Commit
            | AsyncOp::WaitGroup
            | AsyncOp::WaitAll
            | AsyncOp::BulkCommit
            | AsyncOp::BulkWait { .. } => Space::Shared,
        }
    }

    /// The space of `src`'s addresses.
    pub fn src_space(&self) -> Space {
        match self.op {
            AsyncOp::BulkStore | AsyncOp::Bulk { from_shared: true } => Space::Shared,
            AsyncOp::Copy { .. }
            | AsyncOp::Bulk { from_shared: false }
            | AsyncOp::Mbar(_)
            | AsyncOp::Commit
            | AsyncOp::WaitGroup
            | AsyncOp::WaitAll
            | AsyncOp::BulkCommit
            | AsyncOp::BulkWait { .. } => Space::Global,
        }
    }

    /// The `mbarrier` operation, if the statement is one.
    pub fn mbar(&self) -> Option<MbarOp> {
        match self.op {
            AsyncOp::Mbar(m) => Some(m),
            AsyncOp::Copy { .. }
            | AsyncOp::Commit
            | AsyncOp::WaitGroup
            | AsyncOp::WaitAll
            | AsyncOp::Bulk { .. }
            | AsyncOp::BulkStore
            | AsyncOp::BulkCommit
            | AsyncOp::BulkWait { .. } => None,
        }
    }

    /// A bulk copy's words after `cp.async.bulk` (empty for the others).
    pub fn bulk_words(&self) -> &'static str {
        match self.op {
            AsyncOp::Bulk { from_shared: false } => {
                ".shared::cluster.global.mbarrier::complete_tx::bytes"
            }
            AsyncOp::Bulk { from_shared: true } => {
                ".shared::cluster.shared::cta.mbarrier::complete_tx::bytes"
            }
            AsyncOp::BulkStore => ".global.shared::cta.bulk_group",
            AsyncOp::Copy { .. }
            | AsyncOp::Commit
            | AsyncOp::WaitGroup
            | AsyncOp::WaitAll
            | AsyncOp::BulkCommit
            | AsyncOp::BulkWait { .. }
            | AsyncOp::Mbar(_) => "",
        }
    }

    /// Whether the statement is a bulk copy (`cp.async.bulk`, either way).
    pub fn is_bulk(&self) -> bool {
        matches!(self.op, AsyncOp::Bulk { .. } | AsyncOp::BulkStore)
    }

    /// Whether the statement reads or writes an `mbarrier` object in memory.
    pub fn touches_object(&self) -> bool {
        self.mbar().is_some_and(|m| m != MbarOp::PendingCount)
    }

    /// Width in bits of `d`: an arrival's state 64, a wait's predicate 1,
    /// `pending_count`'s count 32.
    pub fn d_bits(&self) -> u32 {
        match self.mbar() {
            Some(MbarOp::Arrive { .. }) => 64,
            Some(MbarOp::Wait { .. }) => 1,
            Some(
                MbarOp::PendingCount
                | MbarOp::Init
                | MbarOp::Inval
                | MbarOp::CpArrive { .. }
                | MbarOp::ExpectTx
                | MbarOp::CompleteTx,
            )
            | None => 32,
        }
    }

    /// Width in bits of `a`: a state 64, a count or parity 32.
    pub fn a_bits(&self) -> u32 {
        match self.mbar() {
            Some(MbarOp::Wait { parity: false, .. } | MbarOp::PendingCount) => 64,
            Some(
                MbarOp::Wait { parity: true, .. }
                | MbarOp::Init
                | MbarOp::Arrive { .. }
                | MbarOp::Inval
                | MbarOp::CpArrive { .. }
                | MbarOp::ExpectTx
                | MbarOp::CompleteTx,
            )
            | None => 32,
        }
    }

    /// Whether the statement runs through a memory: a copy, or an
    /// `mbarrier` operation on its object.
    pub fn in_memory(&self) -> bool {
        self.is_copy() || self.touches_object()
    }

    /// Whether the statement is a copy (it writes the token; waits read
    /// it): `cp.async` or a bulk copy.
    pub fn is_copy(&self) -> bool {
        matches!(
            self.op,
            AsyncOp::Copy { .. } | AsyncOp::Bulk { .. } | AsyncOp::BulkStore
        )
    }

    /// Whether the statement waits for copies (reads the token): the group
    /// waits, and an `mbarrier` wait, whose phase a bulk copy may complete
    /// (the issuing warp's copies land before it sees the phase).
    pub fn is_wait(&self) -> bool {
        matches!(
            self.op,
            AsyncOp::WaitGroup
                | AsyncOp::WaitAll
                | AsyncOp::BulkWait { .. }
                | AsyncOp::Mbar(MbarOp::Wait { .. })
        )
    }
}
