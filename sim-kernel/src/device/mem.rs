//! A device's global memory as the host sees it: allocation, freeing,
//! reads, writes, fills and copies, each within one allocation.

use super::{Device, DeviceError};
use crate::global::{Global, Region};
use std::collections::HashSet;

/// First address [`Device::malloc`] hands out: clear of the addresses
/// Linux x86-64 gives host memory (the heap near 0x55xx_xxxx_xxxx, mmap
/// near 0x7fxx_xxxx_xxxx), so device and host pointers never coincide.
pub const DEVICE_BASE: u64 = 0x3000_0000_0000;
/// The device's address range from [`DEVICE_BASE`]: 64 GiB, of which only
/// what is allocated is held.
pub const DEVICE_SPACE: u64 = 64 << 30;
/// Most bytes a device holds at once until [`Device::set_memory_cap`]
/// changes it.
pub const DEFAULT_MEMORY_CAP: u64 = 16 << 30;
/// Alignment of every allocation, and the gap after each, as
/// `cudaMalloc` aligns: an access just past an allocation faults.
const ALIGN: u64 = 256;

/// What the device has handed out.
#[derive(Debug)]
pub(super) struct Book {
    /// Most bytes held at once.
    pub cap: u64,
    /// Bytes held.
    pub held: u64,
    /// Bases of modules' `.global` variables (not the host's to free).
    modules: HashSet<u64>,
}

impl Book {
    pub fn new(cap: u64) -> Book {
        Book {
            cap,
            held: 0,
            modules: HashSet::new(),
        }
    }

    /// Whether `bytes` more fit under the cap (and in host memory's
    /// indexable range).
    fn room(&self, bytes: u64) -> Result<(), DeviceError> {
        let over = self.held.checked_add(bytes).is_none_or(|t| t > self.cap);
        if over || bytes > isize::MAX as u64 {
            return Err(DeviceError::OutOfMemory {
                bytes,
                held: self.held,
                cap: self.cap,
            });
        }
        Ok(())
    }

    /// The lowest address from [`DEVICE_BASE`] where `bytes` fit, with
    /// the gap after every allocation.
    pub fn place(&self, global: &Global, bytes: u64) -> Result<u64, DeviceError> {
        self.room(bytes)?;
        let span = bytes.max(1).next_multiple_of(ALIGN) + ALIGN;
        let mut at = DEVICE_BASE;
        let first = global
            .regions
            .partition_point(|r| r.end().max(r.base + 1) <= at);
        for r in &global.regions[first..] {
            if at + span <= r.base {
                break;
            }
            at = at.max((r.end().max(r.base + 1) + ALIGN).next_multiple_of(ALIGN));
        }
        if at + span > DEVICE_BASE + DEVICE_SPACE {
            return Err(DeviceError::OutOfMemory {
                bytes,
                held: self.held,
                cap: DEVICE_SPACE,
            });
        }
        Ok(at)
    }

    /// Adds `bytes` at `base` (a module's `.global` variables if `module`).
    pub fn insert(
        &mut self,
        global: &mut Global,
        name: &str,
        base: u64,
        bytes: Vec<u8>,
        module: bool,
    ) -> Result<(), DeviceError> {
        let n = bytes.len() as u64;
        self.room(n)?;
        global.insert(name, base, bytes).map_err(|b| {
            let end = base.saturating_add((b.len() as u64).max(1));
            let r = global
                .regions
                .iter()
                .find(|r| r.base < end && r.end().max(r.base + 1) > base);
            DeviceError::Overlap {
                addr: base,
                bytes: n,
                base: r.map_or(0, |r| r.base),
                len: r.map_or(0, |r| r.bytes.len() as u64),
            }
        })?;
        self.held += n;
        if module {
            self.modules.insert(base);
        }
        Ok(())
    }
}

/// The range `[addr, addr + n)` checked to lie in `r`: its offset there.
fn within(what: &'static str, r: Option<&Region>, addr: u64, n: u64) -> Result<usize, DeviceError> {
    let oob = |why: String| DeviceError::OutOfBounds { what, addr, n, why };
    let r = r.ok_or_else(|| oob("no allocation holds it".into()))?;
    let off = addr - r.base;
    if off.checked_add(n).is_none_or(|e| e > r.bytes.len() as u64) {
        return Err(oob(format!(
            "it passes the end of the allocation of {} bytes at {:#x}",
            r.bytes.len(),
            r.base
        )));
    }
    Ok(off as usize)
}

impl Device {
    /// `bytes` of zeroed memory (`cudaMalloc`): its address, 256-aligned;
    /// a zero-byte allocation still has its own address.
    pub fn malloc(&mut self, bytes: u64) -> Result<u64, DeviceError> {
        self.alive()?;
        let base = self.mem.place(&self.global, bytes)?;
        let data = vec![0u8; bytes as usize];
        self.mem
            .insert(&mut self.global, "malloc", base, data, false)?;
        Ok(base)
    }

    /// `bytes` of zeroed memory at `addr`, chosen by the caller (memory
    /// whose host address is its device address); refused where it
    /// overlaps an allocation.
    pub fn malloc_at(&mut self, addr: u64, bytes: u64) -> Result<(), DeviceError> {
        self.alive()?;
        if addr.checked_add(bytes.max(1)).is_none() {
            return Err(DeviceError::InvalidPointer {
                addr,
                why: format!("{bytes} bytes from it pass the end of the address space"),
            });
        }
        self.mem.room(bytes)?;
        let data = vec![0u8; bytes as usize];
        self.mem
            .insert(&mut self.global, "malloc_at", addr, data, false)
    }

    /// Frees the allocation at `addr` (`cudaFree`), which must be its base.
    pub fn free(&mut self, addr: u64) -> Result<(), DeviceError> {
        self.alive()?;
        let bad = |why: String| DeviceError::InvalidPointer { addr, why };
        if self.mem.modules.contains(&addr) {
            return Err(bad("it holds a module's .global variables".into()));
        }
        match self.global.holding(addr) {
            Some(r) if r.base != addr => {
                return Err(bad(format!(
                    "not the start of an allocation: it is {} bytes into the one at {:#x}",
                    addr - r.base,
                    r.base
                )))
            }
            Some(_) => {}
            None => return Err(bad("no allocation starts there".into())),
        }
        if let Some(r) = self.global.remove(addr) {
            self.mem.held -= r.bytes.len() as u64;
        }
        Ok(())
    }

    /// Every allocation the host made (`malloc`, `malloc_at`; not the
    /// modules' variables): base and length, in address order.
    pub fn allocations(&self) -> Vec<(u64, u64)> {
        self.global
            .regions
            .iter()
            .filter(|r| !self.mem.modules.contains(&r.base))
            .map(|r| (r.base, r.bytes.len() as u64))
            .collect()
    }

    /// The allocation holding `addr`: its base and length.
    pub fn allocation(&self, addr: u64) -> Option<(u64, u64)> {
        self.global
            .holding(addr)
            .map(|r| (r.base, r.bytes.len() as u64))
    }

    /// Writes `data` at `addr`, within one allocation.
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), DeviceError> {
        self.alive()?;
        if data.is_empty() {
            return Ok(());
        }
        let r = self.global.holding_mut(addr);
        let off = within("write", r.as_deref(), addr, data.len() as u64)?;
        if let Some(r) = r {
            r.bytes[off..off + data.len()].copy_from_slice(data);
        }
        Ok(())
    }

    /// Reads `out.len()` bytes at `addr`, within one allocation.
    pub fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), DeviceError> {
        self.alive()?;
        if out.is_empty() {
            return Ok(());
        }
        let r = self.global.holding(addr);
        let off = within("read", r, addr, out.len() as u64)?;
        if let Some(r) = r {
            out.copy_from_slice(&r.bytes[off..off + out.len()]);
        }
        Ok(())
    }

    /// Sets `n` bytes at `addr` to `value` (`cudaMemset`).
    pub fn fill(&mut self, addr: u64, value: u8, n: u64) -> Result<(), DeviceError> {
        self.alive()?;
        if n == 0 {
            return Ok(());
        }
        let r = self.global.holding_mut(addr);
        let off = within("fill", r.as_deref(), addr, n)?;
        if let Some(r) = r {
            r.bytes[off..off + n as usize].fill(value);
        }
        Ok(())
    }

    /// Copies `n` bytes from `src` to `dst` (device to device), each
    /// within one allocation; they may overlap.
    pub fn copy(&mut self, dst: u64, src: u64, n: u64) -> Result<(), DeviceError> {
        self.alive()?;
        if n == 0 {
            return Ok(());
        }
        let s_off = within("copy source", self.global.holding(src), src, n)?;
        let d_off = within("copy destination", self.global.holding(dst), dst, n)?;
        // Both held (`within` above): each address has its allocation.
        let index = |a: u64| self.global.index_at(a).unwrap_or(0);
        let (si, di) = (index(src), index(dst));
        let regions = &mut self.global.regions;
        let n = n as usize;
        if si == di {
            regions[si].bytes.copy_within(s_off..s_off + n, d_off);
        } else {
            let (lo, hi) = regions.split_at_mut(si.max(di));
            let (s, d) = if si < di {
                (&lo[si], &mut hi[0])
            } else {
                (&hi[0], &mut lo[di])
            };
            d.bytes[d_off..d_off + n].copy_from_slice(&s.bytes[s_off..s_off + n]);
        }
        Ok(())
    }
}
