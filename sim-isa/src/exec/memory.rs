//! The memory a warp's accesses reach ([`Memory`], the caller's), their
//! faults, and the addresses one instruction touched ([`Accesses`]): below
//! every family that accesses memory (`mem.rs`, `async_copy.rs`,
//! `mbarrier.rs`).

use super::WARP_SIZE;
use crate::inst::Space;

/// Why an access failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// No allocation holds the bytes.
    OutOfBounds,
    /// The address is not a multiple of the access size.
    Misaligned,
    /// A variable or parameter the memory does not know.
    UnknownVariable,
    /// A store to read-only memory (`.param` of a kernel, `.const`).
    ReadOnly,
    /// A bulk copy (`cp.async.bulk`) whose size is not a multiple of 16.
    BulkSize,
}

/// A failed access: what, where, by which lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemFault {
    /// What went wrong.
    pub kind: FaultKind,
    /// The space addressed.
    pub space: Space,
    /// The address (in `space`; generic for [`Space::Generic`]).
    pub addr: u64,
    /// Bytes accessed.
    pub bytes: u32,
    /// The lane.
    pub lane: u32,
}

impl MemFault {
    /// The faults of accesses of `bytes` in `space`, made from what
    /// differs per access: `(kind, addr, lane)`.
    pub fn maker(space: Space, bytes: u32) -> impl Fn(FaultKind, u64, u32) -> MemFault + Copy {
        move |kind, addr, lane| MemFault {
            kind,
            space,
            addr,
            bytes,
            lane,
        }
    }
}

impl std::fmt::Display for MemFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self.kind {
            FaultKind::OutOfBounds => "out-of-bounds",
            FaultKind::Misaligned => "misaligned",
            FaultKind::UnknownVariable => "unknown variable in",
            FaultKind::ReadOnly => "read-only",
            FaultKind::BulkSize => "bulk copy size not a multiple of 16:",
        };
        let space = match self.space {
            Space::Generic => "generic",
            s => s.name(),
        };
        write!(
            f,
            "{what} {}-byte {space} access at 0x{:x} by lane {}",
            self.bytes, self.addr, self.lane
        )
    }
}

/// The memory a warp's loads and stores reach, provided by the caller (a
/// launch's buffers, a host simulator's memory). Addresses are per space;
/// [`Space::Generic`] addresses are the caller's to map onto windows.
// Every implementation repeats these signatures (Rust requires it: sim-kernel's
// memories, the tests'), and `load_lanes_each`/`store_lanes_each` the
// defaults': `duplicates` pairs them, and they stay.
pub trait Memory {
    /// Reads `bytes` (1, 2, 4 or 8) at `addr`, little-endian, for `lane`
    /// (local memory is per thread).
    fn load(&mut self, space: Space, lane: u32, addr: u64, bytes: u32) -> Result<u64, FaultKind>;
    /// Writes the low `bytes` of `value` at `addr`.
    fn store(
        &mut self,
        space: Space,
        lane: u32,
        addr: u64,
        bytes: u32,
        value: u64,
    ) -> Result<(), FaultKind>;
    /// The space and address of variable (or parameter) `id` (see
    /// [`crate::Symbols::intern_var`]).
    fn var(&self, id: u32) -> Result<(Space, u64), FaultKind>;
    /// `cvta.space`: an address in `space` as a generic address.
    fn to_generic(&self, space: Space, addr: u64) -> u64;
    /// `cvta.to.space`: a generic address as an address in `space`.
    fn generic_to_space(&self, space: Space, addr: u64) -> u64;

    /// One `ld` of a warp: for each lane of `lanes` in ascending order,
    /// `n` elements (1, 2 or 4) of `bytes` each at `addrs[lane]`,
    /// `addrs[lane] + bytes`, ..., element `k` into `out[k][lane]` (other
    /// lanes' entries are left as they are; `out` holds at least `n` rows). Stops at the first access
    /// that fails, in that order, and returns it. The default is
    /// [`load_lanes_each`], [`Memory::load`] access by access; an override
    /// must give the same values, and on failure the same first
    /// [`LaneFault`] (`out` need not then hold what that loop left).
    fn load_lanes(
        &mut self,
        space: Space,
        lanes: u32,
        addrs: &[u64; WARP_SIZE],
        bytes: u32,
        n: usize,
        out: &mut [[u64; WARP_SIZE]],
    ) -> Result<(), LaneFault> {
        load_lanes_each(self, space, lanes, addrs, bytes, n, out)
    }

    /// One `st` of a warp: as [`Memory::load_lanes`], storing the low
    /// `bytes` of `vals[k][lane]` as element `k`. The default is
    /// [`store_lanes_each`]; an override must leave memory as that loop
    /// does, on failure too (the stores before the failing access done,
    /// none after), and return the same first [`LaneFault`].
    fn store_lanes(
        &mut self,
        space: Space,
        lanes: u32,
        addrs: &[u64; WARP_SIZE],
        bytes: u32,
        n: usize,
        vals: &[[u64; WARP_SIZE]],
    ) -> Result<(), LaneFault> {
        store_lanes_each(self, space, lanes, addrs, bytes, n, vals)
    }
}

/// The access of a warp-wide [`Memory::load_lanes`] or
/// [`Memory::store_lanes`] that failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneFault {
    /// What went wrong.
    pub kind: FaultKind,
    /// The element's address.
    pub addr: u64,
    /// The lane.
    pub lane: u32,
}

/// [`Memory::load_lanes`] access by access through [`Memory::load`]: lane
/// by lane in ascending order, each lane's elements in order. (Its
/// parameters repeat [`Memory::load_lanes`]'s, whose default it is.)
pub fn load_lanes_each<M: Memory + ?Sized>(
    mem: &mut M,
    space: Space,
    lanes: u32,
    addrs: &[u64; WARP_SIZE],
    bytes: u32,
    n: usize,
    out: &mut [[u64; WARP_SIZE]],
) -> Result<(), LaneFault> {
    each_access(lanes, addrs, bytes, n.min(out.len()), |l, k, addr| {
        out[k][l] = mem.load(space, l as u32, addr, bytes)?;
        Ok(())
    })
}

/// [`Memory::store_lanes`] access by access through [`Memory::store`], in
/// [`load_lanes_each`]'s order.
pub fn store_lanes_each<M: Memory + ?Sized>(
    mem: &mut M,
    space: Space,
    lanes: u32,
    addrs: &[u64; WARP_SIZE],
    bytes: u32,
    n: usize,
    vals: &[[u64; WARP_SIZE]],
) -> Result<(), LaneFault> {
    each_access(lanes, addrs, bytes, n.min(vals.len()), |l, k, addr| {
        mem.store(space, l as u32, addr, bytes, vals[k][l])
    })
}

/// Calls `access(lane, element, address)` for the first `n` elements of
/// `bytes` each of every lane of `lanes`, lane by lane in ascending order,
/// each lane's elements in order; stops at the first that fails.
fn each_access(
    lanes: u32,
    addrs: &[u64; WARP_SIZE],
    bytes: u32,
    n: usize,
    mut access: impl FnMut(usize, usize, u64) -> Result<(), FaultKind>,
) -> Result<(), LaneFault> {
    for (l, &base) in addrs.iter().enumerate() {
        if lanes >> l & 1 == 0 {
            continue;
        }
        for k in 0..n {
            let addr = base.wrapping_add((k as u64) * u64::from(bytes));
            access(l, k, addr).map_err(|kind| LaneFault {
                kind,
                addr,
                lane: l as u32,
            })?;
        }
    }
    Ok(())
}

/// The per-lane addresses one memory instruction touched, for a timing
/// model (coalescing, caches). `lanes` are the lanes that accessed memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Accesses {
    /// Lanes that accessed memory.
    pub lanes: u32,
    /// Each lane's first byte (lanes outside `lanes` are 0).
    pub addrs: [u64; WARP_SIZE],
    /// Bytes each lane accessed (all elements of a vector).
    pub bytes: u32,
    /// The space the instruction named.
    pub space: Space,
}
