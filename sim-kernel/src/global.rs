//! The global space: a launch's allocations (its buffers, then the
//! module's `.global` variables), each at its own address. Below both the
//! memory a warp sees ([`crate::memory`]) and an SM's writes of an epoch
//! ([`crate::overlay`]).

use sim_isa::exec::FaultKind;

/// Address of the first global allocation.
pub const GLOBAL_BASE: u64 = 0x7f00_0000_0000;

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

impl Region {
    /// One past its last byte.
    pub fn end(&self) -> u64 {
        self.base + self.bytes.len() as u64
    }

    /// Whether `addr` is its (a zero-length one holds its base).
    fn holds(&self, addr: u64) -> bool {
        addr < self.end().max(self.base + 1)
    }

    /// The offset of `[addr, addr + n)` in it, if it lies inside (`addr`
    /// at or above its base).
    #[inline]
    pub(crate) fn offset(&self, addr: u64, n: u64) -> Result<usize, FaultKind> {
        let off = addr - self.base;
        if off
            .checked_add(n)
            .is_none_or(|e| e > self.bytes.len() as u64)
        {
            return Err(FaultKind::OutOfBounds);
        }
        Ok(off as usize)
    }
}

/// The global space: allocations in increasing address order.
#[derive(Clone, Debug, Default)]
pub struct Global {
    /// The allocations.
    pub regions: Vec<Region>,
    /// Device `malloc`'s heap, once a kernel called it (its bytes are one
    /// of `regions`): it persists with the space across a device's launches.
    pub heap: Option<crate::heap::Heap>,
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

    /// Adds an allocation at `base`, keeping the order; refused (the bytes
    /// given back) when `[base, base + max(len, 1))` overlaps one already
    /// there (a zero-length allocation still owns its address).
    pub fn insert(&mut self, name: &str, base: u64, bytes: Vec<u8>) -> Result<(), Vec<u8>> {
        let end = base.saturating_add((bytes.len() as u64).max(1));
        let i = self.regions.partition_point(|r| r.base < base);
        let before = i.checked_sub(1).and_then(|k| self.regions.get(k));
        let clash_before = before.is_some_and(|r| r.end().max(r.base + 1) > base);
        let clash_after = self.regions.get(i).is_some_and(|r| r.base < end);
        if clash_before || clash_after {
            return Err(bytes);
        }
        self.regions.insert(
            i,
            Region {
                name: name.to_string(),
                base,
                bytes,
            },
        );
        Ok(())
    }

    /// Gives the space a device `malloc` heap of `bytes` unless it has
    /// one: `place` adds them (zeroed) as one of its allocations, refusing
    /// what does not fit, and returns its address.
    pub(crate) fn ensure_heap<E>(
        &mut self,
        bytes: u64,
        place: impl FnOnce(&mut Global, u64) -> Result<u64, E>,
    ) -> Result<(), E> {
        if self.heap.is_some() {
            return Ok(());
        }
        let base = place(self, bytes)?;
        self.heap = Some(crate::heap::Heap::new(base, bytes));
        Ok(())
    }

    /// Removes the allocation whose first byte is `base`.
    pub fn remove(&mut self, base: u64) -> Option<Region> {
        let i = self.index_of(base)?;
        Some(self.regions.remove(i))
    }

    /// The allocation holding `addr` (a zero-length one holds its base).
    pub fn holding(&self, addr: u64) -> Option<&Region> {
        self.region_at(addr).filter(|r| r.holds(addr))
    }

    /// [`Self::holding`], to change its bytes.
    pub fn holding_mut(&mut self, addr: u64) -> Option<&mut Region> {
        self.region_at_mut(addr).filter(|r| r.holds(addr))
    }

    /// [`Self::buffer_bytes`], moving the bytes out rather than copying
    /// them (a launch's final buffers are not held twice).
    pub fn into_buffer_bytes(mut self, bases: &[u64]) -> Vec<Vec<u8>> {
        let mut take = |base| {
            let i = self.index_of(base)?;
            Some(std::mem::take(&mut self.regions.get_mut(i)?.bytes))
        };
        bases.iter().map(|&b| take(b).unwrap_or_default()).collect()
    }

    /// The final bytes of the allocations at `bases` (a launch's buffers).
    pub fn buffer_bytes(&self, bases: &[u64]) -> Vec<Vec<u8>> {
        let copy = |base| Some(self.regions.get(self.index_of(base)?)?.bytes.clone());
        bases.iter().map(|&b| copy(b).unwrap_or_default()).collect()
    }

    /// The index of the allocation whose first byte is `base`.
    fn index_of(&self, base: u64) -> Option<usize> {
        self.regions.binary_search_by_key(&base, |r| r.base).ok()
    }

    /// The index of the last allocation whose first byte is at or below
    /// `addr`: the only one that can hold it.
    #[inline]
    pub(crate) fn index_at(&self, addr: u64) -> Option<usize> {
        self.regions
            .partition_point(|r| r.base <= addr)
            .checked_sub(1)
    }

    /// The allocation `addr` falls in, if any (by its first byte alone).
    #[inline]
    pub(crate) fn region_at(&self, addr: u64) -> Option<&Region> {
        self.regions.get(self.index_at(addr)?)
    }

    /// [`Self::region_at`], to change its bytes.
    #[inline]
    pub(crate) fn region_at_mut(&mut self, addr: u64) -> Option<&mut Region> {
        let i = self.index_at(addr)?;
        self.regions.get_mut(i)
    }

    /// The allocation holding `[addr, addr + n)` and the offset in it.
    pub(crate) fn find(&mut self, addr: u64, n: u64) -> Result<(&mut Vec<u8>, usize), FaultKind> {
        let r = self.region_at_mut(addr).ok_or(FaultKind::OutOfBounds)?;
        let off = r.offset(addr, n)?;
        Ok((&mut r.bytes, off))
    }
}
