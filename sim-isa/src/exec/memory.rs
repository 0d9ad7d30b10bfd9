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

/// One lane's access of one element: `bytes` (1, 2, 4 or 8) at `addr` in
/// `space`, for `lane` (local memory is per thread). Passed by value: the
/// fields are what [`Memory::load`] and [`Memory::store`] took one by one,
/// and a call that inlines compiles to the same code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// The space addressed ([`Space::Generic`]: the memory maps it).
    pub space: Space,
    /// The lane.
    pub lane: u32,
    /// The address (in `space`).
    pub addr: u64,
    /// Bytes accessed.
    pub bytes: u32,
}

/// One warp-wide access ([`Memory::load_lanes`], [`Memory::store_lanes`]):
/// for each lane of `lanes`, `n` elements (1, 2 or 4) of `bytes` each at
/// `addrs[lane]`, `addrs[lane] + bytes`, ... in `space`. Passed by value,
/// as [`Access`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneAccess<'a> {
    /// The space addressed.
    pub space: Space,
    /// The lanes that access memory.
    pub lanes: u32,
    /// Each lane's first element's address (lanes outside `lanes` unread).
    pub addrs: &'a [u64; WARP_SIZE],
    /// Bytes of each element.
    pub bytes: u32,
    /// Elements per lane.
    pub n: usize,
}

impl Access {
    /// The access of `bytes` at `addr` in `space` for `lane`.
    #[inline(always)]
    pub const fn new(space: Space, lane: u32, addr: u64, bytes: u32) -> Access {
        Access {
            space,
            lane,
            addr,
            bytes,
        }
    }
}

impl LaneAccess<'_> {
    /// Lane `lane`'s access of one element at `addr`.
    #[inline(always)]
    pub fn one(&self, lane: usize, addr: u64) -> Access {
        Access::new(self.space, lane as u32, addr, self.bytes)
    }
}

/// A warp-wide access's values: element `k` of lane `l` at `[k][l]`.
pub type Rows = [[u64; WARP_SIZE]];

/// The memory a warp's loads and stores reach, provided by the caller (a
/// launch's buffers, a host simulator's memory). Addresses are per space;
/// [`Space::Generic`] addresses are the caller's to map onto windows.
pub trait Memory {
    /// Reads `a.bytes` at `a.addr`, little-endian.
    fn load(&mut self, a: Access) -> Result<u64, FaultKind>;
    /// Writes the low `a.bytes` of `value` at `a.addr`.
    fn store(&mut self, a: Access, value: u64) -> Result<(), FaultKind>;
    /// The space and address of variable (or parameter) `id` (see
    /// [`crate::Symbols::intern_var`]).
    fn var(&self, id: u32) -> Result<(Space, u64), FaultKind>;
    /// `cvta.space`: an address in `space` as a generic address.
    fn to_generic(&self, space: Space, addr: u64) -> u64;
    /// `cvta.to.space`: a generic address as an address in `space`.
    fn generic_to_space(&self, space: Space, addr: u64) -> u64;

    /// One `ld` of a warp: for each lane of `a.lanes` in ascending order,
    /// its `a.n` elements, element `k` into `out[k][lane]` (other lanes'
    /// entries are left as they are; `out` holds at least `a.n` rows).
    /// Stops at the first access that fails, in that order, and returns
    /// it. The default is [`load_lanes_each`], [`Memory::load`] access by
    /// access; an override must give the same values, and on failure the
    /// same first [`LaneFault`] (`out` need not then hold what that loop
    /// left).
    fn load_lanes(&mut self, a: LaneAccess<'_>, out: &mut Rows) -> Result<(), LaneFault> {
        load_lanes_each(self, a, out)
    }

    /// One `st` of a warp: as [`Memory::load_lanes`], storing the low
    /// `a.bytes` of `vals[k][lane]` as element `k`. The default is
    /// [`store_lanes_each`]; an override must leave memory as that loop
    /// does, on failure too (the stores before the failing access done,
    /// none after), and return the same first [`LaneFault`].
    fn store_lanes(&mut self, a: LaneAccess<'_>, vals: &Rows) -> Result<(), LaneFault> {
        store_lanes_each(self, a, vals)
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
/// by lane in ascending order, each lane's elements in order.
pub fn load_lanes_each<M: Memory + ?Sized>(
    mem: &mut M,
    a: LaneAccess<'_>,
    out: &mut Rows,
) -> Result<(), LaneFault> {
    each_access(a, out.len(), |l, k, addr| {
        out[k][l] = mem.load(a.one(l, addr))?;
        Ok(())
    })
}

/// [`Memory::store_lanes`] access by access through [`Memory::store`], in
/// [`load_lanes_each`]'s order.
pub fn store_lanes_each<M: Memory + ?Sized>(
    mem: &mut M,
    a: LaneAccess<'_>,
    vals: &Rows,
) -> Result<(), LaneFault> {
    each_access(a, vals.len(), |l, k, addr| {
        mem.store(a.one(l, addr), vals[k][l])
    })
}

/// Calls `access(lane, element, address)` for the first `a.n` (at most
/// `rows`) elements of every lane of `a.lanes`, lane by lane in ascending
/// order, each lane's elements in order; stops at the first that fails.
fn each_access(
    a: LaneAccess<'_>,
    rows: usize,
    mut access: impl FnMut(usize, usize, u64) -> Result<(), FaultKind>,
) -> Result<(), LaneFault> {
    let n = a.n.min(rows);
    for (l, &base) in a.addrs.iter().enumerate() {
        if a.lanes >> l & 1 == 0 {
            continue;
        }
        for k in 0..n {
            let addr = base.wrapping_add((k as u64) * u64::from(a.bytes));
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
///
/// The addresses first and the whole 32-byte aligned, so that code given
/// an `&mut Accesses` knows them aligned, as a register (`Reg`): the
/// portable build's AVX2 copies split each 32-byte store not known to be
/// aligned in two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(32))]
pub struct Accesses {
    /// Each lane's first byte (lanes outside `lanes` are 0).
    pub addrs: [u64; WARP_SIZE],
    /// Lanes that accessed memory.
    pub lanes: u32,
    /// Bytes each lane accessed (all elements of a vector).
    pub bytes: u32,
    /// The space the instruction named.
    pub space: Space,
}
