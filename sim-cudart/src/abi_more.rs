//! More C entry points that real programs and libraries (Thrust, CUB)
//! call: stream-ordered and pitched allocation, pointer attributes,
//! limits, hints, host callbacks. Everything here is synchronous too.

use crate::abi::{c_aliases, copy, memset, put, with};
use crate::err;
use crate::gen::layout as l;
use crate::runtime::{Fail, Res};
use std::ffi::{c_int, c_uint, c_void};

/// `cudaMallocAsync`: allocated at once.
///
/// # Safety
/// `p` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaMallocAsync(
    p: *mut *mut c_void,
    size: usize,
    _s: *mut c_void,
) -> c_int {
    with(|rt| {
        let a = rt.malloc(size as u64)?;
        // SAFETY: by the caller's contract.
        unsafe { put(p, a as *mut c_void) }
    })
}

/// `cudaFreeAsync`: freed at once.
#[no_mangle]
pub extern "C" fn cudaFreeAsync(p: *mut c_void, _s: *mut c_void) -> c_int {
    with(|rt| rt.free(p as u64))
}

/// The pitch of a pitched allocation: rows start 512-byte aligned (the
/// texture pitch alignment CUDA reports for compute capability 9.0).
const PITCH: usize = 512;

/// `cudaMallocPitch`.
///
/// # Safety
/// Both pointers are valid for writes.
#[no_mangle]
pub unsafe extern "C" fn cudaMallocPitch(
    p: *mut *mut c_void,
    pitch: *mut usize,
    width: usize,
    height: usize,
) -> c_int {
    with(|rt| {
        let row = width.div_ceil(PITCH).max(1) * PITCH;
        let bytes = (row as u64)
            .checked_mul(height as u64)
            .ok_or_else(|| Fail::code(err::INVALID_VALUE))?;
        let a = rt.malloc(bytes)?;
        // SAFETY: by the caller's contract.
        unsafe {
            put(pitch, row)?;
            put(p, a as *mut c_void)
        }
    })
}

c_aliases! {
    (
        dst: *mut c_void,
        dpitch: usize,
        src: *const c_void,
        spitch: usize,
        width: usize,
        height: usize,
        kind: c_int,
    ) -> c_int {
        with(|rt| {
            if width > dpitch || width > spitch {
                return Err(Fail::code(err::INVALID_VALUE));
            }
            for r in 0..height {
                let d = (dst as usize).wrapping_add(r * dpitch) as *mut c_void;
                let s = (src as usize).wrapping_add(r * spitch) as *const c_void;
                // SAFETY: each row lies in the caller's buffers.
                unsafe { copy(rt, d, s, width, kind)? };
            }
            Ok(())
        })
    }
    /// `cudaMemcpy2D`: `height` rows of `width` bytes.
    pub unsafe extern "C" fn cudaMemcpy2D(..);
    /// `cudaMemcpy2DAsync` (synchronous here).
    #[allow(clippy::too_many_arguments)]
    pub unsafe extern "C" fn cudaMemcpy2DAsync(.., _s: *mut c_void);
}

/// `cudaMemset2D`: `height` rows of `width` bytes, `pitch` apart.
#[no_mangle]
pub extern "C" fn cudaMemset2D(
    p: *mut c_void,
    pitch: usize,
    value: c_int,
    width: usize,
    height: usize,
) -> c_int {
    with(|rt| {
        if width > pitch && height > 1 {
            return Err(Fail::code(err::INVALID_VALUE));
        }
        for r in 0..height {
            let row = (p as usize).wrapping_add(r * pitch) as *mut c_void;
            memset(rt, row, value, width)?;
        }
        Ok(())
    })
}

c_aliases! {
    (_p: *const c_void, _n: usize, _location: u64, _flags: c_uint, _s: *mut c_void) -> c_int {
        with(|rt| rt.alive())
    }
    /// `cudaMemPrefetchAsync`: a hint; managed memory is always where the
    /// kernel needs it here.
    pub extern "C" fn cudaMemPrefetchAsync(..);
    /// `cudaMemPrefetchAsync_v2` (CUDA 12's name): a hint, as `cudaMemPrefetchAsync`.
    pub extern "C" fn cudaMemPrefetchAsync_v2(..);
}

c_aliases! {
    (_p: *const c_void, _n: usize, _advice: c_int, _location: u64) -> c_int {
        with(|rt| rt.alive())
    }
    /// `cudaMemAdvise`: a hint, accepted.
    pub extern "C" fn cudaMemAdvise(..);
    /// `cudaMemAdvise_v2` (CUDA 12's name): a hint, accepted (as `cudaMemAdvise`).
    pub extern "C" fn cudaMemAdvise_v2(..);
}

/// `cudaPointerGetAttributes`.
///
/// # Safety
/// `a` is valid for a `struct cudaPointerAttributes`.
#[no_mangle]
pub unsafe extern "C" fn cudaPointerGetAttributes(a: *mut c_void, p: *const c_void) -> c_int {
    with(|rt| {
        let (kind, device, host) = rt.pointer_attributes(p as u64);
        let mut b = [0u8; l::PATTR_SIZE];
        // CUDA 12's struct is the four fields alone; 13 added reserved room.
        let size = if crate::cuda12::is_cuda12() {
            crate::gen::layout12::PATTR_SIZE
        } else {
            l::PATTR_SIZE
        };
        b[l::PATTR_TYPE..l::PATTR_TYPE + 4].copy_from_slice(&kind.to_le_bytes());
        let dev: i32 = if kind == l::cudaMemoryTypeUnregistered {
            -2
        } else {
            0
        };
        b[l::PATTR_DEVICE..l::PATTR_DEVICE + 4].copy_from_slice(&dev.to_le_bytes());
        b[l::PATTR_DEVICE_POINTER..l::PATTR_DEVICE_POINTER + 8]
            .copy_from_slice(&device.to_le_bytes());
        b[l::PATTR_HOST_POINTER..l::PATTR_HOST_POINTER + 8].copy_from_slice(&host.to_le_bytes());
        if a.is_null() {
            return Err(Fail::code(err::INVALID_VALUE));
        }
        // SAFETY: by the caller's contract, `a` holds `size` bytes (its
        // runtime's `sizeof(struct cudaPointerAttributes)`), at most `b.len()`.
        unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), a.cast::<u8>(), size.min(b.len())) };
        Ok(())
    })
}

/// The limits `cudaDeviceGetLimit` reports: the printf buffer the engine
/// keeps (`sim_kernel::printf::FIFO_BYTES`), CUDA's default for the stack
/// (1 KiB a thread), which the simulator does not bound separately, and
/// the device heap device `malloc` allocates from (8 MiB until set).
fn limit(rt: &mut crate::runtime::Runtime, which: c_int) -> Res<usize> {
    match which {
        l::cudaLimitStackSize => Ok(1024),
        l::cudaLimitPrintfFifoSize => Ok(sim_kernel::printf::FIFO_BYTES),
        l::cudaLimitMallocHeapSize => Ok(rt.heap_bytes()? as usize),
        _ => Err(Fail::code(err::NOT_SUPPORTED)),
    }
}

/// `cudaDeviceGetLimit`.
///
/// # Safety
/// `v` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaDeviceGetLimit(v: *mut usize, which: c_int) -> c_int {
    with(|rt| {
        let n = limit(rt, which)?;
        // SAFETY: by the caller's contract.
        unsafe { put(v, n) }
    })
}

/// `cudaDeviceSetLimit`: the device heap's size is set (before the first
/// kernel that calls `malloc`); the other known limits are accepted
/// without effect (the simulator's own bounds hold).
#[no_mangle]
pub extern "C" fn cudaDeviceSetLimit(which: c_int, value: usize) -> c_int {
    with(|rt| match which {
        l::cudaLimitMallocHeapSize => rt.set_heap_bytes(value as u64),
        _ => limit(rt, which).map(|_| ()),
    })
}

/// `cudaThreadSynchronize` (deprecated `cudaDeviceSynchronize`).
#[no_mangle]
pub extern "C" fn cudaThreadSynchronize() -> c_int {
    with(|rt| rt.alive())
}

/// `cudaGetDeviceFlags`: none set.
///
/// # Safety
/// `f` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaGetDeviceFlags(f: *mut c_uint) -> c_int {
    // SAFETY: by the caller's contract.
    with(|_| unsafe { put(f, 0) })
}

/// `cudaDeviceCanAccessPeer`: one device, no peers.
///
/// # Safety
/// `v` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaDeviceCanAccessPeer(v: *mut c_int, _d: c_int, _peer: c_int) -> c_int {
    // SAFETY: by the caller's contract.
    with(|_| unsafe { put(v, 0) })
}

/// `cudaDeviceGetStreamPriorityRange`: one priority.
///
/// # Safety
/// Each pointer is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaDeviceGetStreamPriorityRange(
    least: *mut c_int,
    greatest: *mut c_int,
) -> c_int {
    with(|_| {
        for p in [least, greatest] {
            if !p.is_null() {
                // SAFETY: by the caller's contract.
                unsafe { put(p, 0)? };
            }
        }
        Ok(())
    })
}

/// `cudaLaunchHostFunc`: the stream's work is done, so `f` runs now (or
/// when the graph runs, in a capturing stream).
///
/// # Safety
/// `f` is a function the program gives, taking `data`.
#[no_mangle]
pub unsafe extern "C" fn cudaLaunchHostFunc(
    s: *mut c_void,
    f: Option<unsafe extern "C" fn(*mut c_void)>,
    data: *mut c_void,
) -> c_int {
    let mut captured = false;
    let code = with(|rt| match f {
        Some(f) => {
            let node = crate::graph::Node::Host {
                f,
                data: data as u64,
            };
            captured = rt.graphs.record(s as u64, node);
            rt.alive()
        }
        None => Err(Fail::code(err::INVALID_VALUE)),
    });
    if let (err::SUCCESS, Some(f), false) = (code, f, captured) {
        // SAFETY: the program's callback with its own data, called outside
        // the runtime's lock (it may call the runtime).
        unsafe { f(data) };
    }
    code
}

/// `cudaStreamAddCallback`: runs the callback now, with the sticky error.
///
/// # Safety
/// `f` is a function the program gives.
#[no_mangle]
pub unsafe extern "C" fn cudaStreamAddCallback(
    s: *mut c_void,
    f: Option<unsafe extern "C" fn(*mut c_void, c_int, *mut c_void)>,
    data: *mut c_void,
    _flags: c_uint,
) -> c_int {
    let mut status = err::SUCCESS;
    let code = with(|rt| {
        status = rt.alive().err().map_or(err::SUCCESS, |f| f.code);
        f.map(|_| ()).ok_or_else(|| Fail::code(err::INVALID_VALUE))
    });
    if let (err::SUCCESS, Some(f)) = (code, f) {
        // SAFETY: as `cudaLaunchHostFunc`.
        unsafe { f(s, status, data) };
    }
    code
}

/// `cudaMemcpyPeer`: one device, so a device-to-device copy.
///
/// # Safety
/// As `cudaMemcpy`.
#[no_mangle]
pub unsafe extern "C" fn cudaMemcpyPeer(
    dst: *mut c_void,
    _dd: c_int,
    src: *const c_void,
    _sd: c_int,
    n: usize,
) -> c_int {
    // SAFETY: as the caller's.
    with(|rt| unsafe { copy(rt, dst, src, n, l::cudaMemcpyDeviceToDevice) })
}
