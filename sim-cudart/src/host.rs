//! Host memory the runtime hands out (`cudaMallocHost`, `cudaHostAlloc`,
//! `cudaMallocManaged`): 256-byte aligned, zeroed, owned here until freed.
//! Kernels reach it at its host address (CUDA's unified addressing), so the
//! runtime also maps it into the simulated device at that address and
//! copies it in before a launch and back after one.

use std::alloc::Layout;
use std::ptr::NonNull;

/// The alignment of every allocation (as `cudaMalloc`'s).
pub const ALIGN: usize = 256;

/// One host allocation.
pub struct HostBlock {
    ptr: NonNull<u8>,
    layout: Layout,
    /// `cudaMallocManaged` (else pinned host memory).
    pub managed: bool,
}

// SAFETY: the block is plain bytes owned by this value; the runtime only
// touches it under its lock.
unsafe impl Send for HostBlock {}

impl HostBlock {
    /// `len` zeroed bytes (at least one, so every block has its own
    /// address), or `None` if the allocator refuses.
    pub fn new(len: u64, managed: bool) -> Option<HostBlock> {
        let size = usize::try_from(len.max(1)).ok()?;
        let layout = Layout::from_size_align(size, ALIGN).ok()?;
        // SAFETY: `layout` has a non-zero size.
        let raw = unsafe { std::alloc::alloc_zeroed(layout) };
        NonNull::new(raw).map(|ptr| HostBlock {
            ptr,
            layout,
            managed,
        })
    }

    /// Its address.
    pub fn addr(&self) -> u64 {
        self.ptr.as_ptr() as u64
    }

    /// Its length in bytes.
    pub fn len(&self) -> u64 {
        self.layout.size() as u64
    }

    /// Its bytes.
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: the allocation is `layout.size()` initialised (zeroed)
        // bytes, alive while `self` is.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.layout.size()) }
    }

    /// Its bytes, to write.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as `bytes`, and `&mut self` makes this the only view the
        // runtime holds.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.layout.size()) }
    }
}

impl Drop for HostBlock {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout, freed once.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}
