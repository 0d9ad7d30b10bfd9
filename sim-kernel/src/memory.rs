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

use sim_isa::exec::{FaultKind, Memory};
use sim_isa::Space;
use sim_module::{Init, StateSpace, Variable};

/// Address of the first global allocation.
pub const GLOBAL_BASE: u64 = 0x7f00_0000_0000;
/// Generic address of shared offset 0.
pub const SHARED_WINDOW: u64 = 0x1_0000_0000;
/// Generic address of local offset 0.
pub const LOCAL_WINDOW: u64 = 0x2_0000_0000;
/// Size of each window.
const WINDOW: u64 = 1 << 32;

/// One global allocation.
#[derive(Clone, Debug)]
pub struct Region {
    /// Its name (buffer or variable).
    pub name: String,
    /// First byte's address.
    pub base: u64,
    /// Contents.
    pub bytes: Vec<u8>,
}

/// The global space: allocations in increasing address order.
#[derive(Clone, Debug, Default)]
pub struct Global {
    /// The allocations.
    pub regions: Vec<Region>,
}

impl Global {
    /// Adds an allocation after the last one; returns its address.
    pub fn alloc(&mut self, name: &str, bytes: Vec<u8>) -> u64 {
        let base = self.regions.last().map_or(GLOBAL_BASE, |r| {
            (r.base + r.bytes.len() as u64 + 256).next_multiple_of(256)
        });
        self.regions.push(Region {
            name: name.to_string(),
            base,
            bytes,
        });
        base
    }

    /// The final bytes of the allocations at `bases` (a launch's buffers).
    pub fn buffer_bytes(&self, bases: &[u64]) -> Vec<Vec<u8>> {
        bases
            .iter()
            .map(|&base| {
                self.regions
                    .iter()
                    .find(|r| r.base == base)
                    .map(|r| r.bytes.clone())
                    .unwrap_or_default()
            })
            .collect()
    }

    /// The allocation holding `[addr, addr + n)` and the offset in it.
    fn find(&mut self, addr: u64, n: u64) -> Result<(&mut Vec<u8>, usize), FaultKind> {
        let i = self.regions.partition_point(|r| r.base <= addr);
        let r = i
            .checked_sub(1)
            .and_then(|i| self.regions.get_mut(i))
            .ok_or(FaultKind::OutOfBounds)?;
        let off = addr - r.base;
        if off.checked_add(n).is_none_or(|e| e > r.bytes.len() as u64) {
            return Err(FaultKind::OutOfBounds);
        }
        Ok((&mut r.bytes, off as usize))
    }
}

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
    let es = v.ty.size().max(1) as usize;
    for (k, e) in v.init.iter().flatten().enumerate() {
        let val = match e {
            Init::Bits(x) => *x,
            Init::Address { symbol, offset } => {
                addr_of(symbol).map_or(0, |a| a.wrapping_add(*offset as u64))
            }
        };
        let _ = put(&mut b, k * es, es.min(8) as u32, val);
    }
    b
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

/// What one warp's instruction sees: the launch-wide spaces, its block's
/// shared memory and its threads' local memory.
pub struct WarpMem<'a> {
    /// Global space.
    pub global: &'a mut Global,
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
}

impl Memory for WarpMem<'_> {
    fn load(&mut self, space: Space, lane: u32, addr: u64, n: u32) -> Result<u64, FaultKind> {
        let (space, addr) = Self::resolve(space, addr);
        match space {
            Space::Global | Space::Generic => {
                let (b, off) = self.global.find(addr, u64::from(n))?;
                get(b, off, n)
            }
            Space::Param => get(self.params, offset(addr, n, self.params.len())?, n),
            Space::Const => get(self.consts, offset(addr, n, self.consts.len())?, n),
            Space::Shared | Space::Local => {
                let b = self.bytes(space, lane).ok_or(FaultKind::OutOfBounds)?;
                let off = offset(addr, n, b.len())?;
                get(b, off, n)
            }
        }
    }

    fn store(
        &mut self,
        space: Space,
        lane: u32,
        addr: u64,
        n: u32,
        v: u64,
    ) -> Result<(), FaultKind> {
        let (space, addr) = Self::resolve(space, addr);
        match space {
            Space::Global | Space::Generic => {
                let (b, off) = self.global.find(addr, u64::from(n))?;
                put(b, off, n, v)
            }
            Space::Param | Space::Const => Err(FaultKind::ReadOnly),
            Space::Shared | Space::Local => {
                let b = self.bytes(space, lane).ok_or(FaultKind::OutOfBounds)?;
                let off = offset(addr, n, b.len())?;
                put(b, off, n, v)
            }
        }
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
