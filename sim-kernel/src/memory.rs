//! A launch's memory: the global space (the launch file's buffers, then the
//! module's `.global` variables, each at its own address), `.const`, the
//! kernel parameters, and per block `.shared`, per thread `.local`; and the
//! generic address space that maps windows onto them.
//!
//! Layout (fixed, so traces and dumps are reproducible): global
//! allocations from [`GLOBAL_BASE`], each 256-byte aligned with a 256-byte
//! gap, as `cudaMalloc` aligns; the shared window at [`SHARED_WINDOW`] and
//! the local window at [`LOCAL_WINDOW`], 4 GiB each. Every access must lie
//! inside one allocation and be aligned to its size; anything else is a
//! [`FaultKind`], never a host error.

use sim_isa::exec::{
    load_lanes_each, store_lanes_each, Access, FaultKind, LaneAccess, LaneFault, Memory, Rows,
};
use sim_isa::{Space, WARP_SIZE};
use sim_module::{Init, StateSpace, Variable};

pub use crate::global::{Global, Region, GLOBAL_BASE};
/// Generic address of shared offset 0.
pub const SHARED_WINDOW: u64 = 0x1_0000_0000;
/// Generic address of local offset 0.
pub const LOCAL_WINDOW: u64 = 0x2_0000_0000;
/// Size of each window.
const WINDOW: u64 = 1 << 32;

/// Reads `n` bytes little-endian at `off` of `b` (bounds checked by the caller).
fn get(b: &[u8], off: usize, n: u32) -> Result<u64, FaultKind> {
    let s = b.get(off..off + n as usize).ok_or(FaultKind::OutOfBounds)?;
    Ok(s.iter().rev().fold(0, |v, &x| v << 8 | u64::from(x)))
}

fn put(b: &mut [u8], off: usize, n: u32, v: u64) -> Result<(), FaultKind> {
    let s = b
        .get_mut(off..off + n as usize)
        .ok_or(FaultKind::OutOfBounds)?;
    for (k, x) in s.iter_mut().enumerate() {
        *x = (v >> (8 * k)) as u8;
    }
    Ok(())
}

/// Byte offset of `off` in a window-sized space, if it fits `len`.
fn offset(addr: u64, n: u32, len: usize) -> Result<usize, FaultKind> {
    if addr
        .checked_add(u64::from(n))
        .is_none_or(|e| e > len as u64)
    {
        return Err(FaultKind::OutOfBounds);
    }
    Ok(addr as usize)
}

/// Places `vars` of one space one after another from `start`, each at its
/// alignment; returns each one's offset and the end.
pub fn layout(vars: &[&Variable], start: u64) -> (Vec<u64>, u64) {
    let mut at = start;
    let mut offs = Vec::with_capacity(vars.len());
    for v in vars {
        let align = u64::from(v.align.unwrap_or(v.ty.size().max(1) as u32)).max(1);
        at = at.next_multiple_of(align);
        offs.push(at);
        at += v.size;
    }
    (offs, at)
}

/// A variable's initial bytes: its initialiser's elements at its type's
/// size, zero elsewhere. Addresses of other symbols resolve through `addr_of`.
pub fn initial_bytes(v: &Variable, addr_of: &dyn Fn(&str) -> Option<u64>) -> Vec<u8> {
    let mut b = vec![0u8; v.size as usize];
    write_initial(v, addr_of, &mut b);
    b
}

/// Writes `v`'s initialiser's elements into `out` (its bytes, zero):
/// only the bytes the initialiser names are written, so the rest of a
/// large variable stays untouched (zero pages the OS has not yet given).
pub fn write_initial(v: &Variable, addr_of: &dyn Fn(&str) -> Option<u64>, out: &mut [u8]) {
    let es = v.ty.size().max(1) as usize;
    for (k, e) in v.init.iter().flatten().enumerate() {
        let val = match e {
            Init::Bits(x) => *x,
            Init::Address { symbol, offset } => {
                addr_of(symbol).map_or(0, |a| a.wrapping_add(*offset as u64))
            }
        };
        let _ = put(out, k * es, es.min(8) as u32, val);
    }
}

/// Maps a module state space to sim-isa's.
pub fn space_of(s: StateSpace) -> Space {
    match s {
        StateSpace::Global => Space::Global,
        StateSpace::Const => Space::Const,
        StateSpace::Shared => Space::Shared,
        StateSpace::Local => Space::Local,
        StateSpace::Param | StateSpace::Reg => Space::Param,
    }
}

/// The global space as a warp sees it.
pub enum GlobalView<'a> {
    /// The space itself.
    Direct(&'a mut Global),
    /// The space as the epoch began, under its SM's own writes (see
    /// [`crate::overlay`]).
    Layered(&'a Global, &'a mut crate::overlay::Overlay),
}

impl GlobalView<'_> {
    fn load(&mut self, addr: u64, n: u32) -> Result<u64, FaultKind> {
        match self {
            GlobalView::Direct(g) => {
                let (b, off) = g.find(addr, u64::from(n))?;
                get(b, off, n)
            }
            GlobalView::Layered(g, o) => o.load(g, addr, n),
        }
    }

    fn store(&mut self, addr: u64, n: u32, v: u64) -> Result<(), FaultKind> {
        match self {
            GlobalView::Direct(g) => {
                let (b, off) = g.find(addr, u64::from(n))?;
                put(b, off, n, v)
            }
            GlobalView::Layered(g, o) => o.store(g, addr, n, v),
        }
    }
}

/// What one warp's instruction sees: the launch-wide spaces, its block's
/// shared memory and its threads' local memory.
pub struct WarpMem<'a> {
    /// Global space.
    pub global: GlobalView<'a>,
    /// `.const` bytes.
    pub consts: &'a [u8],
    /// Kernel parameter bytes.
    pub params: &'a [u8],
    /// The block's shared memory.
    pub shared: &'a mut [u8],
    /// Local memory of the warp's 32 lanes (missing lanes have none).
    pub local: &'a mut [Vec<u8>],
    /// Per variable id (see `Symbols::intern_var`): space and address.
    pub vars: &'a [Option<(Space, u64)>],
    /// Set by a load or store of one element in every lane whose lanes
    /// all read one address, or consecutive 4-byte words (then, in shared
    /// memory, it is one wavefront: `memtime::one_wave_shared`); the
    /// caller clears it before an access.
    pub one_word: bool,
    /// Set with `one_word` when every lane read one address: in shared
    /// memory one wavefront at any width (a merged vector load's too:
    /// `vectorise`).
    pub broadcast: bool,
}

impl WarpMem<'_> {
    /// The space and in-space address a generic address falls in.
    fn resolve(space: Space, addr: u64) -> (Space, u64) {
        match space {
            Space::Generic if (SHARED_WINDOW..SHARED_WINDOW + WINDOW).contains(&addr) => {
                (Space::Shared, addr - SHARED_WINDOW)
            }
            Space::Generic if (LOCAL_WINDOW..LOCAL_WINDOW + WINDOW).contains(&addr) => {
                (Space::Local, addr - LOCAL_WINDOW)
            }
            Space::Generic => (Space::Global, addr),
            s => (s, addr),
        }
    }

    fn bytes(&mut self, space: Space, lane: u32) -> Option<&mut [u8]> {
        match space {
            Space::Shared => Some(self.shared),
            Space::Local => self.local.get_mut(lane as usize).map(Vec::as_mut_slice),
            Space::Generic | Space::Global | Space::Param | Space::Const => None,
        }
    }

    /// Where the `total` bytes every lane of `lanes` (not empty) accesses
    /// from `addrs[lane]` lie when they all lie in one space: that space's
    /// bytes (a generic address resolved as [`Self::resolve`] resolves each
    /// of its bytes; global memory: the allocation of the first lane's
    /// address) and what to subtract from an address for its offset in
    /// them. `None` when the lanes do not share a space or no allocation
    /// holds the first lane's address: the caller then goes access by
    /// access, as it does when an access lies outside the bytes.
    fn plan(
        &mut self,
        space: Space,
        lanes: u32,
        addrs: &[u64; WARP_SIZE],
        total: u64,
    ) -> Option<(Bytes<'_>, u64)> {
        let first = *addrs.get(lanes.trailing_zeros() as usize)?;
        let (space, window) = one_space(space, lanes, addrs, total)?;
        Some(match space {
            Space::Global | Space::Generic => match &mut self.global {
                GlobalView::Direct(g) => {
                    let r = g.region_at_mut(first - window)?;
                    (Bytes::One(&mut r.bytes), window + r.base)
                }
                // Read in place unless the SM wrote there this epoch;
                // stores go to its overlay (`Self::try_store_lanes`).
                GlobalView::Layered(g, o) => {
                    if o.touches(lanes, addrs, total) {
                        return None;
                    }
                    let r = g.region_at(first)?;
                    (Bytes::ReadOnly(&r.bytes), window + r.base)
                }
            },
            Space::Shared => (Bytes::One(self.shared), window),
            Space::Local => (Bytes::PerLane(self.local), window),
            Space::Param => (Bytes::ReadOnly(self.params), 0),
            Space::Const => (Bytes::ReadOnly(self.consts), 0),
        })
    }

    /// [`Memory::load_lanes`] when the lanes share a space and every
    /// access lies in its bytes (see [`Self::plan`]); `false` otherwise,
    /// having changed nothing a caller sees.
    fn try_load_lanes<const B: usize>(&mut self, a: LaneAccess<'_>, out: &mut Rows) -> bool {
        let (space, lanes, addrs, n) = (a.space, a.lanes, a.addrs, a.n);
        let shape = self.shape::<B>(lanes, addrs, n);
        let Some((bytes, delta)) = self.plan(space, lanes, addrs, (B * n) as u64) else {
            return false;
        };
        let mut ok = true;
        match bytes {
            Bytes::One(b) => load_all::<B>(b, delta, lanes, addrs, n, shape, out),
            Bytes::ReadOnly(b) => load_all::<B>(b, delta, lanes, addrs, n, shape, out),
            Bytes::PerLane(local) => {
                for (l, &a) in addrs.iter().enumerate() {
                    if lanes >> l & 1 == 1 {
                        ok &= local
                            .get(l)
                            .is_some_and(|b| load_lane::<B>(b, a.wrapping_sub(delta), n, l, out));
                    }
                }
                ok
            }
        }
    }

    /// The [`Pattern`] of a warp's addresses when every lane accesses one
    /// element (`None` otherwise), noted in `one_word`.
    fn shape<const B: usize>(
        &mut self,
        lanes: u32,
        addrs: &[u64; WARP_SIZE],
        n: usize,
    ) -> Option<Pattern> {
        let shape = (n == 1 && lanes == u32::MAX).then(|| pattern::<B>(addrs));
        self.one_word = match shape {
            Some(Pattern::Same) => true,
            Some(Pattern::Consecutive) => B == 4,
            Some(Pattern::Other) | None => false,
        };
        self.broadcast = matches!(shape, Some(Pattern::Same));
        shape
    }

    /// [`Memory::store_lanes`] as [`Self::try_load_lanes`]: every access
    /// is checked before the first store, so `false` leaves memory as it
    /// was.
    fn try_store_lanes<const B: usize>(&mut self, a: LaneAccess<'_>, vals: &Rows) -> bool {
        let (space, lanes, addrs, n) = (a.space, a.lanes, a.addrs, a.n);
        let total = (B * n) as u64;
        let shape = self.shape::<B>(lanes, addrs, n);
        if let GlobalView::Layered(g, o) = &mut self.global {
            // Global stores during an epoch go to the SM's overlay.
            if one_space(space, lanes, addrs, total).is_some_and(|(s, _)| s == Space::Global) {
                return o.store_lanes::<B>(g, lanes, addrs, n, vals);
            }
        }
        let Some((bytes, delta)) = self.plan(space, lanes, addrs, total) else {
            return false;
        };
        let runs = |l: usize| lanes >> l & 1 == 1;
        let off = |l: usize| addrs[l].wrapping_sub(delta);
        match bytes {
            Bytes::One(b) => {
                // A word a lane, every lane (the common case): consecutive
                // words are written as such.
                if let Some(Pattern::Consecutive) = shape {
                    let whole = (B * WARP_SIZE) as u64;
                    let Some(c) = span(b.len(), off(0), whole) else {
                        return false;
                    };
                    for (o, v) in b[c].as_chunks_mut::<B>().0.iter_mut().zip(&vals[0]) {
                        o.copy_from_slice(&v.to_le_bytes()[..B]);
                    }
                    return true;
                }
                let len = b.len();
                if !(0..WARP_SIZE).all(|l| !runs(l) || span(len, off(l), total).is_some()) {
                    return false;
                }
                for l in (0..WARP_SIZE).filter(|&l| runs(l)) {
                    store_lane::<B>(b, off(l), n, l, vals);
                }
                true
            }
            // Read-only: the fault is the access-by-access loop's to report.
            Bytes::ReadOnly(_) => false,
            Bytes::PerLane(local) => {
                let fits = |l: usize| {
                    local
                        .get(l)
                        .is_some_and(|b| span(b.len(), off(l), total).is_some())
                };
                if !(0..WARP_SIZE).all(|l| !runs(l) || fits(l)) {
                    return false;
                }
                for (l, b) in local.iter_mut().enumerate().take(WARP_SIZE) {
                    if runs(l) {
                        store_lane::<B>(b, off(l), n, l, vals);
                    }
                }
                true
            }
        }
    }
}

/// The one space all `total` bytes each lane of `lanes` (not empty)
/// accesses from `addrs[lane]` lie in, after the generic windows, and the
/// window's base (what to subtract for an address in that space); `None`
/// when the lanes do not share one.
fn one_space(
    space: Space,
    lanes: u32,
    addrs: &[u64; WARP_SIZE],
    total: u64,
) -> Option<(Space, u64)> {
    let first = *addrs.get(lanes.trailing_zeros() as usize)?;
    Some(match space {
        Space::Generic => {
            // Each lane's first and last byte in the first lane's window.
            let class = |a: u64| {
                if a.wrapping_sub(SHARED_WINDOW) < WINDOW {
                    Space::Shared
                } else if a.wrapping_sub(LOCAL_WINDOW) < WINDOW {
                    Space::Local
                } else {
                    Space::Global
                }
            };
            let c = class(first);
            let mut same = true;
            for (l, &a) in addrs.iter().enumerate() {
                let last = a.wrapping_add(total - 1);
                same &= lanes >> l & 1 == 0 || (last >= a && class(a) == c && class(last) == c);
            }
            if !same {
                return None;
            }
            match c {
                Space::Shared => (c, SHARED_WINDOW),
                Space::Local => (c, LOCAL_WINDOW),
                _ => (c, 0),
            }
        }
        s => (s, 0),
    })
}

/// The bytes one warp-wide access reaches (see [`WarpMem::plan`]).
enum Bytes<'b> {
    /// One buffer for every lane.
    One(&'b mut [u8]),
    /// One buffer for every lane, which stores may not change.
    ReadOnly(&'b [u8]),
    /// Each lane's own (local memory).
    PerLane(&'b mut [Vec<u8>]),
}

/// The byte range `[off, off + total)` if it lies in `len` bytes.
#[inline(always)]
fn span(len: usize, off: u64, total: u64) -> Option<std::ops::Range<usize>> {
    let end = off.checked_add(total).filter(|&e| e <= len as u64)?;
    Some(off as usize..end as usize)
}

/// A little-endian word of `B` bytes (`c` holds `B`), zero-extended.
#[inline(always)]
fn word<const B: usize>(c: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w[..B].copy_from_slice(&c[..B]);
    u64::from_le_bytes(w)
}

/// Lane `l`'s `n` elements of `B` bytes at `off` of `b` into `out[k][l]`;
/// `false` if they do not all lie in `b`.
#[inline(always)]
fn load_lane<const B: usize>(
    b: &[u8],
    off: u64,
    n: usize,
    l: usize,
    out: &mut [[u64; WARP_SIZE]],
) -> bool {
    let Some(s) = span(b.len(), off, (B * n) as u64).and_then(|r| b.get(r)) else {
        return false;
    };
    for (o, c) in out.iter_mut().zip(s.as_chunks::<B>().0) {
        o[l] = word::<B>(c);
    }
    true
}

/// How a warp's addresses lie, for accesses of `B` bytes each.
#[derive(Clone, Copy)]
enum Pattern {
    /// All the same.
    Same,
    /// Lane `l` at the first lane's plus `l * B`.
    Consecutive,
    Other,
}

/// The [`Pattern`] of `addrs`: one pass gathering the bits in which each
/// lane differs from either pattern (a call of its own, so that the pass
/// vectorises).
#[inline(never)]
fn pattern<const B: usize>(addrs: &[u64; WARP_SIZE]) -> Pattern {
    let a0 = addrs[0];
    let (mut same, mut next) = (0u64, 0u64);
    for (l, &a) in addrs.iter().enumerate() {
        same |= a ^ a0;
        next |= a ^ a0.wrapping_add((l * B) as u64);
    }
    // Seen as the plain ORs they are, the folds become vector XORs and
    // ORs; otherwise the compiler compares lane by lane and packs the
    // results (twice the instructions).
    let (same, next) = std::hint::black_box((same, next));
    if same == 0 {
        Pattern::Same
    } else if next == 0 {
        Pattern::Consecutive
    } else {
        Pattern::Other
    }
}

/// [`load_lane`] for every lane of `lanes`, offsets `addrs[l] - delta`
/// (`shape`: their [`Pattern`] when every lane loads one element).
#[inline(always)]
fn load_all<const B: usize>(
    b: &[u8],
    delta: u64,
    lanes: u32,
    addrs: &[u64; WARP_SIZE],
    n: usize,
    shape: Option<Pattern>,
    out: &mut [[u64; WARP_SIZE]],
) -> bool {
    if let Some(shape) = shape {
        // One element a lane, every lane (the common case): a warp reading
        // one word, or consecutive words, is read as such.
        match shape {
            Pattern::Same => {
                let Some(c) = span(b.len(), addrs[0].wrapping_sub(delta), B as u64) else {
                    return false;
                };
                out[0] = [word::<B>(&b[c]); WARP_SIZE];
                return true;
            }
            Pattern::Consecutive => {
                let whole = (B * WARP_SIZE) as u64;
                let Some(c) = span(b.len(), addrs[0].wrapping_sub(delta), whole) else {
                    return false;
                };
                for (o, c) in out[0].iter_mut().zip(b[c].as_chunks::<B>().0) {
                    *o = word::<B>(c);
                }
                return true;
            }
            Pattern::Other => {}
        }
    }
    if n == 1 {
        // One element a lane: a word each.
        for (l, &a) in addrs.iter().enumerate() {
            if lanes >> l & 1 == 1 {
                match span(b.len(), a.wrapping_sub(delta), B as u64) {
                    Some(c) => out[0][l] = word::<B>(&b[c]),
                    None => return false,
                }
            }
        }
        return true;
    }
    let mut ok = true;
    for (l, &a) in addrs.iter().enumerate() {
        if lanes >> l & 1 == 1 {
            ok &= load_lane::<B>(b, a.wrapping_sub(delta), n, l, out);
        }
    }
    ok
}

/// Lane `l`'s `n` elements, the low `B` bytes of `vals[k][l]`, at `off` of
/// `b` (checked to lie in it by the caller; nothing is written otherwise).
#[inline(always)]
fn store_lane<const B: usize>(
    b: &mut [u8],
    off: u64,
    n: usize,
    l: usize,
    vals: &[[u64; WARP_SIZE]],
) {
    let Some(s) = span(b.len(), off, (B * n) as u64).and_then(|r| b.get_mut(r)) else {
        return;
    };
    for (c, v) in s.as_chunks_mut::<B>().0.iter_mut().zip(vals) {
        c.copy_from_slice(&v[l].to_le_bytes()[..B]);
    }
}

/// `$recv.$method::<W>(args)` for an access width `$bytes` of 4, 8, 2 or 1
/// bytes (most common first), and `false` (not done) for any other: the
/// direct lane paths, one monomorphised copy per width.
macro_rules! by_width {
    ($bytes:expr, $recv:ident.$method:ident($($arg:expr),*)) => {
        match $bytes {
            4 => $recv.$method::<4>($($arg),*),
            8 => $recv.$method::<8>($($arg),*),
            2 => $recv.$method::<2>($($arg),*),
            1 => $recv.$method::<1>($($arg),*),
            _ => false,
        }
    };
}

impl Memory for WarpMem<'_> {
    fn load(&mut self, a: Access) -> Result<u64, FaultKind> {
        let (space, addr) = Self::resolve(a.space, a.addr);
        let (lane, n) = (a.lane, a.bytes);
        match space {
            Space::Global | Space::Generic => self.global.load(addr, n),
            Space::Param => get(self.params, offset(addr, n, self.params.len())?, n),
            Space::Const => get(self.consts, offset(addr, n, self.consts.len())?, n),
            Space::Shared | Space::Local => {
                let b = self.bytes(space, lane).ok_or(FaultKind::OutOfBounds)?;
                let off = offset(addr, n, b.len())?;
                get(b, off, n)
            }
        }
    }

    fn store(&mut self, a: Access, v: u64) -> Result<(), FaultKind> {
        let (space, addr) = Self::resolve(a.space, a.addr);
        let (lane, n) = (a.lane, a.bytes);
        match space {
            Space::Global | Space::Generic => self.global.store(addr, n, v),
            Space::Param | Space::Const => Err(FaultKind::ReadOnly),
            Space::Shared | Space::Local => {
                let b = self.bytes(space, lane).ok_or(FaultKind::OutOfBounds)?;
                let off = offset(addr, n, b.len())?;
                put(b, off, n, v)
            }
        }
    }

    /// Lanes sharing one space (after the windows) whose accesses all lie
    /// in its bytes are read there directly, a word at a time; anything
    /// else, faults included, goes access by access, as the default does.
    fn load_lanes(&mut self, a: LaneAccess<'_>, out: &mut Rows) -> Result<(), LaneFault> {
        let direct = a.n <= 4 && by_width!(a.bytes, self.try_load_lanes(a, out));
        if a.lanes == 0 || direct {
            return Ok(());
        }
        load_lanes_each(self, a, out)
    }

    /// As [`Memory::load_lanes`] here: the direct path checks every access
    /// before it stores anything.
    fn store_lanes(&mut self, a: LaneAccess<'_>, vals: &Rows) -> Result<(), LaneFault> {
        let direct = a.n <= 4 && by_width!(a.bytes, self.try_store_lanes(a, vals));
        if a.lanes == 0 || direct {
            return Ok(());
        }
        store_lanes_each(self, a, vals)
    }

    fn var(&self, id: u32) -> Result<(Space, u64), FaultKind> {
        self.vars
            .get(id as usize)
            .copied()
            .flatten()
            .ok_or(FaultKind::UnknownVariable)
    }

    fn to_generic(&self, space: Space, addr: u64) -> u64 {
        match space {
            Space::Shared => SHARED_WINDOW + (addr & (WINDOW - 1)),
            Space::Local => LOCAL_WINDOW + (addr & (WINDOW - 1)),
            Space::Generic | Space::Global | Space::Param | Space::Const => addr,
        }
    }

    fn generic_to_space(&self, space: Space, addr: u64) -> u64 {
        match space {
            Space::Shared => addr.wrapping_sub(SHARED_WINDOW) & (WINDOW - 1),
            Space::Local => addr.wrapping_sub(LOCAL_WINDOW) & (WINDOW - 1),
            Space::Generic | Space::Global | Space::Param | Space::Const => addr,
        }
    }
}

#[cfg(test)]
mod tests {
    //! `WarpMem`'s warp-wide loads and stores against the access-by-access
    //! loops they stand in for (`load_lanes_each`, `store_lanes_each`):
    //! random spaces, widths, vector sizes, lane masks and addresses in
    //! and out of every space, across windows and allocations. The same
    //! result or first fault, the same values loaded, the same memory.

    use super::*;

    /// A launch's spaces, owned, to lend as a `WarpMem`.
    struct Backing {
        global: Global,
        consts: Vec<u8>,
        params: Vec<u8>,
        shared: Vec<u8>,
        local: Vec<Vec<u8>>,
        /// Global writes go to an SM's overlay (an epoch of a launch on
        /// several SMs), merged before comparing.
        overlay: Option<crate::overlay::Overlay>,
    }

    impl Clone for Backing {
        /// An empty overlay, if any (`same` merges before comparing).
        fn clone(&self) -> Self {
            Backing {
                global: self.global.clone(),
                consts: self.consts.clone(),
                params: self.params.clone(),
                shared: self.shared.clone(),
                local: self.local.clone(),
                overlay: self.overlay.as_ref().map(|_| Default::default()),
            }
        }
    }

    impl Backing {
        fn new(rng: &mut Rng) -> Self {
            let mut bytes = |n: usize| (0..n).map(|_| rng.next() as u8).collect::<Vec<u8>>();
            let mut global = Global::default();
            for n in [64, 300, 16, 4096] {
                global.alloc("buf", bytes(n));
            }
            Backing {
                global,
                consts: bytes(32),
                params: bytes(64),
                shared: bytes(2048),
                // Lanes 20.. have no local memory.
                local: (0..20).map(|_| bytes(64)).collect(),
                overlay: rng.next().is_multiple_of(2).then(Default::default),
            }
        }
        fn mem(&mut self) -> WarpMem<'_> {
            WarpMem {
                global: match &mut self.overlay {
                    Some(o) => GlobalView::Layered(&self.global, o),
                    None => GlobalView::Direct(&mut self.global),
                },
                consts: &self.consts,
                params: &self.params,
                shared: &mut self.shared,
                local: &mut self.local,
                vars: &[],
                one_word: false,
                broadcast: false,
            }
        }
        fn same(&mut self, o: &mut Backing) -> bool {
            for b in [&mut *self, &mut *o] {
                if let Some(ov) = &mut b.overlay {
                    ov.merge_into(&mut b.global);
                }
            }
            self.shared == o.shared
                && self.local == o.local
                && self.global.regions.len() == o.global.regions.len()
                && self
                    .global
                    .regions
                    .iter()
                    .zip(&o.global.regions)
                    .all(|(a, b)| a.base == b.base && a.bytes == b.bytes)
        }
    }

    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
            xs[(self.next() % xs.len() as u64) as usize]
        }
    }

    /// One warp's addresses: a base somewhere interesting, a start, a
    /// stride, and a few lanes elsewhere.
    fn addresses(rng: &mut Rng, m: &Backing, space: Space) -> [u64; WARP_SIZE] {
        let bases: Vec<u64> = m
            .global
            .regions
            .iter()
            .flat_map(|r| [r.base, r.base + r.bytes.len() as u64 - 16])
            .chain([
                0,
                SHARED_WINDOW,
                LOCAL_WINDOW,
                SHARED_WINDOW + 2032,
                LOCAL_WINDOW + 32,
                SHARED_WINDOW - 8,
                LOCAL_WINDOW - 8,
                LOCAL_WINDOW + WINDOW - 8,
                u64::MAX - 15,
            ])
            .collect();
        // Most often where the space's bytes are.
        let regions: Vec<u64> = m.global.regions.iter().map(|r| r.base).collect();
        let home = match space {
            Space::Global => regions,
            Space::Generic => [SHARED_WINDOW, LOCAL_WINDOW]
                .into_iter()
                .chain(regions)
                .collect(),
            Space::Shared | Space::Local | Space::Param | Space::Const => vec![0],
        };
        let base = if rng.next().is_multiple_of(3) {
            rng.pick(&bases)
        } else {
            rng.pick(&home)
        };
        let any = rng.next() % 64;
        let start = rng.pick(&[0u64, 0, 0, 8, 16, 40, 200, any]);
        let stride = rng.pick(&[0i64, 0, 1, 2, 4, 4, 8, 8, 16, -4, -8]);
        let mut a: [u64; WARP_SIZE] = std::array::from_fn(|l| {
            base.wrapping_add(start)
                .wrapping_add((stride * l as i64) as u64)
        });
        for _ in 0..rng.pick(&[0, 0, 0, 1, 2]) {
            let l = (rng.next() % 32) as usize;
            a[l] = if rng.next().is_multiple_of(2) {
                rng.pick(&bases).wrapping_add(rng.next() % 64)
            } else {
                rng.next()
            };
        }
        a
    }

    /// `WarpMem::one_word` promises what `memtime` would find: aligned
    /// lanes of at most 4 bytes in shared memory, one wavefront.
    fn one_word_is_one_wave(one_word: bool, lanes: u32, addrs: &[u64; WARP_SIZE], bytes: u32) {
        if one_word && bytes <= 4 && addrs.iter().all(|a| a % u64::from(bytes) == 0) {
            let acc = sim_isa::exec::Accesses {
                lanes,
                addrs: *addrs,
                bytes,
                space: Space::Shared,
            };
            assert!(
                crate::memtime::one_wave_shared(&acc, false, false),
                "{bytes} {addrs:x?}"
            );
        }
    }

    #[test]
    fn warp_wide_accesses_match_access_by_access() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let spaces = [
            Space::Generic,
            Space::Global,
            Space::Shared,
            Space::Local,
            Space::Param,
            Space::Const,
        ];
        let (mut direct, mut faults) = (0, 0);
        for _ in 0..100_000 {
            let mut fast = Backing::new(&mut rng);
            let mut each = fast.clone();
            if fast.overlay.is_some() && rng.next().is_multiple_of(2) {
                // A page the SM wrote earlier in the epoch.
                let bases: Vec<u64> = fast.global.regions.iter().map(|r| r.base).collect();
                let (a, v) = (rng.pick(&bases) + 8, rng.next());
                for b in [&mut fast, &mut each] {
                    let at = Access::new(Space::Global, 0, a, 8);
                    assert_eq!(b.mem().store(at, v), Ok(()));
                }
            }
            let space = rng.pick(&spaces);
            let bytes = rng.pick(&[1u32, 2, 4, 4, 8, 8]);
            let n = rng.pick(&[1usize, 1, 2, 4]);
            let any = rng.next() as u32;
            let lanes = rng.pick(&[u32::MAX, u32::MAX, 0, 1 << 31, 0xFFFF, any]);
            let addrs = addresses(&mut rng, &fast, space);
            let a = LaneAccess {
                space,
                lanes,
                addrs: &addrs,
                bytes,
                n,
            };
            if rng.next().is_multiple_of(2) {
                let init: [[u64; WARP_SIZE]; 4] =
                    std::array::from_fn(|_| std::array::from_fn(|_| rng.next()));
                let (mut got, mut want) = (init, init);
                let mut m = fast.mem();
                let r = m.load_lanes(a, &mut got);
                one_word_is_one_wave(m.one_word, lanes, &addrs, bytes);
                let w = load_lanes_each(&mut each.mem(), a, &mut want);
                assert_eq!(r, w, "ld {space:?} {bytes}x{n} {lanes:#x} {addrs:x?}");
                if r.is_ok() {
                    assert_eq!(got, want, "ld {space:?} {bytes}x{n} {lanes:#x} {addrs:x?}");
                }
                faults += usize::from(r.is_err());
            } else {
                let vals: [[u64; WARP_SIZE]; 4] =
                    std::array::from_fn(|_| std::array::from_fn(|_| rng.next()));
                let mut m = fast.mem();
                let r = m.store_lanes(a, &vals);
                one_word_is_one_wave(m.one_word, lanes, &addrs, bytes);
                let w = store_lanes_each(&mut each.mem(), a, &vals);
                assert_eq!(r, w, "st {space:?} {bytes}x{n} {lanes:#x} {addrs:x?}");
                assert!(
                    fast.same(&mut each),
                    "st {space:?} {bytes}x{n} {lanes:#x} {addrs:x?}"
                );
                faults += usize::from(r.is_err());
            }
            direct += 1;
        }
        // Both outcomes come up often.
        assert!(
            faults > direct / 10 && faults < direct * 9 / 10,
            "{faults} of {direct}"
        );
    }

    /// Every lane's access of `n` elements of `bytes` at `addrs` in `space`.
    fn every_lane(space: Space, addrs: &[u64; WARP_SIZE], bytes: u32, n: usize) -> LaneAccess<'_> {
        LaneAccess {
            space,
            lanes: u32::MAX,
            addrs,
            bytes,
            n,
        }
    }

    /// The fast path's own cases, each checked: a warp reading one
    /// allocation, shared memory through the window, and a warp whose
    /// lanes span two allocations (read access by access).
    #[test]
    fn common_cases_read_words() {
        let mut rng = Rng(7);
        let mut b = Backing::new(&mut rng);
        let base = b.global.regions[3].base;
        let addrs: [u64; WARP_SIZE] = std::array::from_fn(|l| base + 4 * l as u64);
        let mut out = [[0u64; WARP_SIZE]; 4];
        b.mem()
            .load_lanes(every_lane(Space::Global, &addrs, 4, 1), &mut out)
            .unwrap();
        for (l, &v) in out[0].iter().enumerate() {
            let w = &b.global.regions[3].bytes[4 * l..4 * l + 4];
            assert_eq!(v, u64::from(u32::from_le_bytes(w.try_into().unwrap())));
        }
        let addrs: [u64; WARP_SIZE] = std::array::from_fn(|l| SHARED_WINDOW + 8 * (l as u64 % 16));
        b.mem()
            .load_lanes(every_lane(Space::Generic, &addrs, 4, 2), &mut out)
            .unwrap();
        assert_eq!(
            out[1][3],
            u64::from(u32::from_le_bytes(b.shared[28..32].try_into().unwrap()))
        );
        let (r1, r3) = (b.global.regions[1].base, b.global.regions[3].base);
        let addrs: [u64; WARP_SIZE] = std::array::from_fn(|l| if l < 16 { r1 } else { r3 } + 8);
        b.mem()
            .load_lanes(every_lane(Space::Global, &addrs, 8, 1), &mut out)
            .unwrap();
        let want =
            |r: usize| u64::from_le_bytes(b.global.regions[r].bytes[8..16].try_into().unwrap());
        assert_eq!((out[0][0], out[0][31]), (want(1), want(3)));
    }
}
