//! The device heap: what device-side `malloc` and `free` (and C++ `new` and
//! `delete`, which nvcc 13.0 compiles to calls of them) allocate from.
//! nvcc declares both `.extern .func` (`sim_module::BuiltinKind::Malloc`,
//! `Free`) and calls them with `call.uni`; the engine runs them.
//!
//! The heap is one allocation of the global space ([`HEAP_NAME`]), made
//! the first time a launch's kernel calls either, [`DEFAULT_HEAP_BYTES`]
//! long unless set otherwise (`cudaLimitMallocHeapSize`, whose default is
//! 8 MiB). It is global memory: what a thread writes there any thread, and
//! any later kernel on the same device, reads. Blocks are 16-byte aligned
//! (as CUDA's `malloc` aligns) and first fit from the lowest address; a
//! freed block is merged with free neighbours and reused. `malloc` returns
//! NULL when no free block is large enough; `free(NULL)` does nothing; a
//! pointer that is not the start of a live block is an error naming the
//! thread and the call ([`crate::KernelError::BadFree`]).
//!
//! Why the addresses never depend on `--threads`: a warp that reaches
//! either call stops there, as a warp stops at a global atomic whose result
//! other SMs may change (`engine::warp`, state `Atomic`), and the calls are
//! served at the epoch's end, on the global space itself, SM by SM in SM
//! order, within an SM in the order its warps stopped (fixed by that SM's
//! own simulation, which one host thread runs), and within a warp in lane
//! order. So the heap's state is changed only between epochs, in an order
//! that no host thread's timing can change. (Per-SM or per-block arenas
//! would also be deterministic, but would split 8 MiB into small pieces
//! that a single large `malloc` could not get, where a GPU gives it.)
//!
//! Cost (docs/validation.md, "Device malloc and free"): the call issues
//! as a branch and the warp waits for the epoch's end, up to
//! [`crate::EPOCH`] cycles.

use std::collections::BTreeMap;

/// CUDA's default `cudaLimitMallocHeapSize`: 8 MiB.
pub const DEFAULT_HEAP_BYTES: u64 = 8 << 20;
/// Alignment of every block `malloc` returns, and the unit of its sizes.
pub const ALIGN: u64 = 16;
/// The heap's name among the global space's allocations.
pub const HEAP_NAME: &str = "(device malloc heap)";

/// The heap's blocks: where it lies and which parts are free or in use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Heap {
    /// Its first byte's address (of an allocation of the global space).
    pub base: u64,
    /// Its bytes.
    pub bytes: u64,
    /// Free ranges, by address: length. Neighbours are always merged.
    free: BTreeMap<u64, u64>,
    /// Blocks in use, by address: length (a multiple of [`ALIGN`]).
    used: BTreeMap<u64, u64>,
}

/// A `free` of an address that is no live block's start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BadFree {
    /// The lane that called it.
    pub lane: u32,
    /// The address it gave.
    pub addr: u64,
}

impl Heap {
    /// A heap of `bytes` (rounded down to [`ALIGN`]) at `base`, all free.
    pub fn new(base: u64, bytes: u64) -> Heap {
        let bytes = bytes - bytes % ALIGN;
        let mut free = BTreeMap::new();
        if bytes > 0 {
            free.insert(base, bytes);
        }
        Heap {
            base,
            bytes,
            free,
            used: BTreeMap::new(),
        }
    }

    /// `malloc(size)`: the lowest free block of at least `size` bytes
    /// (rounded up to [`ALIGN`]; 0 asks for one unit, so that every
    /// pointer returned is distinct), or 0 (NULL) when none is.
    pub fn malloc(&mut self, size: u64) -> u64 {
        let Some(n) = size.max(1).checked_next_multiple_of(ALIGN) else {
            return 0;
        };
        let Some((&at, &len)) = self.free.iter().find(|(_, &len)| len >= n) else {
            return 0;
        };
        self.free.remove(&at);
        if len > n {
            self.free.insert(at + n, len - n);
        }
        self.used.insert(at, n);
        at
    }

    /// `free(addr)`: NULL does nothing; else `addr` must start a block in
    /// use, which becomes free (merged with free neighbours). False when
    /// it does not.
    pub fn free(&mut self, addr: u64) -> bool {
        if addr == 0 {
            return true;
        }
        let Some(n) = self.used.remove(&addr) else {
            return false;
        };
        let (mut at, mut len) = (addr, n);
        if let Some((&p, &pl)) = self.free.range(..addr).next_back() {
            if p + pl == addr {
                self.free.remove(&p);
                (at, len) = (p, pl + len);
            }
        }
        if let Some(nl) = self.free.remove(&(addr + n)) {
            len += nl;
        }
        self.free.insert(at, len);
        true
    }

    /// Bytes in use.
    pub fn used_bytes(&self) -> u64 {
        self.used.values().sum()
    }
}

/// Whether `body` calls `malloc` or `free` (so its launch needs a heap).
pub(crate) fn calls_heap(body: &sim_module::Body) -> bool {
    body.statements.iter().any(|s| heap_call(&s.kind).is_some())
}

/// The `malloc` or `free` builtin that statement `kind` calls, if any.
pub(crate) fn heap_call(kind: &sim_module::StatementKind) -> Option<&sim_module::Builtin> {
    use sim_module::{BuiltinKind as K, Control, ControlOp, StatementKind};
    match kind {
        StatementKind::Control(Control {
            op: ControlOp::Call {
                builtin: Some(b), ..
            },
            ..
        }) if matches!(b.kind, K::Malloc | K::Free) => Some(b),
        StatementKind::Control(_)
        | StatementKind::Instruction(_)
        | StatementKind::Unimplemented(_) => None,
    }
}

/// Serves builtin `b` (`malloc` or `free`) in `lanes`, in lane order, on
/// `heap` (the global space's): `malloc`'s argument register holds each
/// lane's size and its result register gets its address. Without a heap
/// (none was placed) every `malloc` returns NULL.
pub(crate) fn serve(
    b: &sim_module::Builtin,
    lanes: u32,
    regs: &mut sim_isa::WarpRegs,
    mut heap: Option<&mut Heap>,
) -> Result<(), BadFree> {
    let Some(&arg) = b.args.first() else {
        return Ok(());
    };
    let args = *regs.get(arg);
    let mut rets = b.rets.first().map(|&r| *regs.get(r));
    for lane in (0..32u32).filter(|l| lanes >> l & 1 == 1) {
        let v = args[lane as usize];
        match (b.kind, heap.as_deref_mut()) {
            (sim_module::BuiltinKind::Free, h) => {
                if !h.map_or(v == 0, |h| h.free(v)) {
                    return Err(BadFree { lane, addr: v });
                }
            }
            (_, h) => {
                if let Some(r) = rets.as_mut() {
                    r[lane as usize] = h.map_or(0, |h| h.malloc(v));
                }
            }
        }
    }
    if let (Some(&r), Some(v)) = (b.rets.first(), rets) {
        *regs.get_mut(r) = v;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_fit_merges_and_reuses() {
        let mut h = Heap::new(0x1000, 256);
        let a = h.malloc(10);
        let b = h.malloc(16);
        let c = h.malloc(0);
        assert_eq!((a, b, c), (0x1000, 0x1010, 0x1020));
        assert_eq!(h.malloc(256), 0);
        assert!(h.free(b));
        assert!(!h.free(b), "a second free of one block");
        assert!(!h.free(0x1004), "inside a block");
        assert_eq!(h.malloc(17), 0x1030);
        assert_eq!(h.malloc(16), 0x1010);
        assert!(h.free(0x1010) && h.free(a) && h.free(c) && h.free(0x1030));
        assert_eq!(h.used_bytes(), 0);
        assert!(h.free(0));
        assert_eq!(h.malloc(256), 0x1000);
        assert_eq!(h.malloc(u64::MAX), 0);
    }
}
