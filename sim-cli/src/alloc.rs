//! simcli's allocator: the system's, except that on Linux a block of
//! [`BIG`] bytes or more (in practice a launch's global-memory buffers) is
//! mapped on its own, aligned to 2 MiB and marked for transparent huge
//! pages (`madvise(MADV_HUGEPAGE)`) before anything touches it.
//!
//! Why: a simulated kernel walks its buffers with strides of a row or more
//! (an SGEMM reads a new 4 KiB page of B at every load of a tile), and each
//! such access missed the host's TLB. On 4 KiB pages the 1024^3 SGEMM's
//! sampled run (one thread) spent 8-11% of its time on those loads; on
//! 2 MiB pages 2.4-4.5% (docs/speed.md, "Session 20 (lead20, 2026-11-30):
//! huge pages for the buffers"). Nothing computed depends on it: the same
//! bytes at other addresses.
//!
//! The kernel decides: with transparent huge pages set to `never`, or
//! where the advice fails, the block stays on small pages. A block's
//! resident memory is at most its mapped length (its size rounded up to
//! 2 MiB), as for any mapping; memory is never committed beyond what is
//! touched, a 2 MiB page at a time. Other systems, and smaller blocks, go
//! to [`System`] unchanged.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};

/// The smallest block mapped on its own: one huge page.
pub const BIG: usize = 2 << 20;

/// The allocator (`#[global_allocator]` in `main.rs`).
pub struct BigPages;

/// Whether a block of layout `l` is mapped on its own.
fn big(l: Layout) -> bool {
    cfg!(target_os = "linux") && l.size() >= BIG && l.align() <= BIG
}

// SAFETY: every block is either `System`'s, allocated and freed through
// `System` with its own layout, or one of `map`'s, freed by `unmap` with
// the size it was mapped for; `big` tells the two apart from the layout
// alone, which the caller passes back unchanged, and a `realloc` between
// the two kinds moves the bytes to a block of the other kind.
unsafe impl GlobalAlloc for BigPages {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if big(l) {
            map(l.size())
        } else {
            // SAFETY: the caller's contract for `alloc`.
            unsafe { System.alloc(l) }
        }
    }

    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        if big(l) {
            // A fresh anonymous mapping reads as zeroes.
            map(l.size())
        } else {
            // SAFETY: the caller's contract for `alloc_zeroed`.
            unsafe { System.alloc_zeroed(l) }
        }
    }

    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        if big(l) {
            // SAFETY: `p` came from `map(l.size())` (see `big`).
            unsafe { unmap(p, l.size()) }
        } else {
            // SAFETY: `p` came from `System` with layout `l`.
            unsafe { System.dealloc(p, l) }
        }
    }

    unsafe fn realloc(&self, p: *mut u8, l: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract: `new_size` is valid for `l`'s
        // alignment.
        let n = unsafe { Layout::from_size_align_unchecked(new_size, l.align()) };
        if !big(l) && !big(n) {
            // SAFETY: `p` came from `System` with layout `l`.
            return unsafe { System.realloc(p, l, new_size) };
        }
        if big(l) && big(n) && round(l.size()).is_some() && round(l.size()) == round(new_size) {
            // The same mapping holds it.
            return p;
        }
        // SAFETY: `n` has a non-zero size (`l`'s or `n`'s is at least `BIG`,
        // and `new_size` is non-zero by `realloc`'s contract).
        let q = unsafe { self.alloc(n) };
        if !q.is_null() {
            // SAFETY: both blocks hold at least the bytes copied and are
            // distinct; `p` is then freed with its own layout.
            unsafe {
                std::ptr::copy_nonoverlapping(p, q, l.size().min(new_size));
                self.dealloc(p, l);
            }
        }
        q
    }
}

/// `size` rounded up to whole huge pages (`None` past the address space).
fn round(size: usize) -> Option<usize> {
    size.checked_add(BIG - 1).map(|s| s & !(BIG - 1))
}

/// A new anonymous mapping of `size` bytes rounded up to 2 MiB, at an
/// address aligned to 2 MiB, advised for huge pages; null if the system
/// refuses it.
#[cfg(target_os = "linux")]
fn map(size: usize) -> *mut u8 {
    let Some(len) = round(size) else {
        return std::ptr::null_mut();
    };
    let Some(span) = len.checked_add(BIG) else {
        return std::ptr::null_mut();
    };
    // SAFETY: a new private anonymous mapping, no existing memory named.
    let raw = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            span,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if raw == libc::MAP_FAILED {
        return std::ptr::null_mut();
    }
    // The aligned `len` bytes inside the `span` mapped; the rest back.
    let start = raw as usize;
    let head = start.next_multiple_of(BIG) - start;
    let tail = span - head - len;
    // SAFETY: the head and tail lie inside the mapping just made and
    // outside the block handed out; unmapping them touches nothing else.
    // `madvise` is a hint on the block's own pages (a failure leaves them
    // small pages).
    unsafe {
        let p = raw.cast::<u8>();
        if head > 0 {
            libc::munmap(raw, head);
        }
        if tail > 0 {
            libc::munmap(p.add(head + len).cast(), tail);
        }
        let block = p.add(head);
        libc::madvise(block.cast(), len, libc::MADV_HUGEPAGE);
        block
    }
}

/// Gives back a block of `size` bytes from [`map`].
///
/// # Safety
/// `p` came from `map(size)` and is not used after.
#[cfg(target_os = "linux")]
unsafe fn unmap(p: *mut u8, size: usize) {
    if let Some(len) = round(size) {
        // SAFETY: the caller's: `p` is the start of a mapping of `len`.
        unsafe { libc::munmap(p.cast(), len) };
    }
}

#[cfg(not(target_os = "linux"))]
fn map(_size: usize) -> *mut u8 {
    // `big` is false off Linux: never called.
    std::ptr::null_mut()
}

#[cfg(not(target_os = "linux"))]
unsafe fn unmap(_p: *mut u8, _size: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Big blocks are aligned to 2 MiB, zeroed, keep their bytes through
    /// growing and shrinking across the threshold, and small blocks are
    /// the system's.
    #[test]
    fn big_blocks_are_aligned_and_keep_their_bytes() {
        let a = BigPages;
        let l = Layout::from_size_align(BIG + 12_345, 8).unwrap();
        // SAFETY: a non-zero size; freed below with the same layout.
        unsafe {
            let p = a.alloc_zeroed(l);
            assert!(!p.is_null());
            if cfg!(target_os = "linux") {
                assert_eq!(p as usize % BIG, 0);
            }
            assert!((0..l.size()).step_by(4093).all(|i| *p.add(i) == 0));
            for i in (0..l.size()).step_by(1000) {
                *p.add(i) = (i % 251) as u8;
            }
            // Grown within its mapping, then past it, then shrunk below
            // the threshold: the bytes stay.
            let p = a.realloc(p, l, BIG + 20_000);
            let l2 = Layout::from_size_align(BIG + 20_000, 8).unwrap();
            let p = a.realloc(p, l2, 3 * BIG);
            let l3 = Layout::from_size_align(3 * BIG, 8).unwrap();
            for i in (0..l.size()).step_by(1000) {
                assert_eq!(*p.add(i), (i % 251) as u8, "byte {i}");
            }
            let p = a.realloc(p, l3, 5000);
            let l4 = Layout::from_size_align(5000, 8).unwrap();
            for i in (0..5000).step_by(1000) {
                assert_eq!(*p.add(i), (i % 251) as u8, "byte {i}");
            }
            a.dealloc(p, l4);
        }
        let v: Vec<u64> = vec![7; BIG / 8 + 1];
        assert!(v.iter().all(|&x| x == 7));
    }
}
