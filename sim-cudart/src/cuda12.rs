//! CUDA 12: the same source built a second time as `libcudart.so.12`
//! (the `sim-cudart12` package compiles this crate's `src/` with
//! `--cfg cuda12`; `build.rs`), for programs built against CUDA 12's
//! headers. There the entry points whose ABI differs answer as CUDA 12's
//! runtime does (nvidia-cuda-runtime-cu12 12.9.79's headers, laid out in
//! `gen::layout12`):
//!
//! - `struct cudaDeviceProp` is CUDA 12's (1,032 bytes, with `clockRate`,
//!   `memoryClockRate` and the other fields CUDA 13 removed), written by
//!   `cudaGetDeviceProperties_v2`, the name CUDA 12's header gives
//!   `cudaGetDeviceProperties`;
//! - `struct cudaPointerAttributes` is 24 bytes (CUDA 13's is 88);
//! - `cudaRuntimeGetVersion` says 12.9.
//!
//! The entry points only CUDA 12 exports and that this runtime can honour
//! are here too (`cudaThreadExit`, the `_v2` names); both libraries export
//! them.

use crate::abi::{put, with};
use crate::err;
use crate::props::PropLayout;
use crate::runtime::Fail;
use std::ffi::{c_float, c_int, c_uint, c_void};

/// Whether this build of the runtime is `libcudart.so.12`.
pub fn is_cuda12() -> bool {
    cfg!(cuda12)
}

/// The version `cudaRuntimeGetVersion` reports: that of the headers the
/// generated layouts come from (13.0, 12.9).
pub fn runtime_version() -> c_int {
    if is_cuda12() {
        12090
    } else {
        13000
    }
}

/// `cudaGetDeviceProperties_v2`: CUDA 12's `struct cudaDeviceProp`.
///
/// # Safety
/// `p` is valid for CUDA 12's `struct cudaDeviceProp`.
#[no_mangle]
pub unsafe extern "C" fn cudaGetDeviceProperties_v2(p: *mut c_void, d: c_int) -> c_int {
    with(|rt| {
        if d != 0 {
            return Err(Fail::code(err::INVALID_DEVICE));
        }
        let b = rt.facts()?.device_prop_as(&PropLayout::CUDA12);
        if p.is_null() {
            return Err(Fail::code(err::INVALID_VALUE));
        }
        // SAFETY: by the caller's contract, `p` holds CUDA 12's
        // `sizeof(struct cudaDeviceProp)`, which is `b.len()`.
        unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), p.cast::<u8>(), b.len()) };
        Ok(())
    })
}

/// `cudaEventElapsedTime_v2`: CUDA 12.8's name for the same measurement.
///
/// # Safety
/// `ms` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaEventElapsedTime_v2(
    ms: *mut c_float,
    start: *mut c_void,
    end: *mut c_void,
) -> c_int {
    with(|rt| {
        let t = rt.elapsed_ms(start as u64, end as u64)?;
        // SAFETY: by the caller's contract.
        unsafe { put(ms, t) }
    })
}

/// `cudaThreadExit` (deprecated `cudaDeviceReset`).
#[no_mangle]
pub extern "C" fn cudaThreadExit() -> c_int {
    with(|rt| {
        rt.reset();
        Ok(())
    })
}

/// `cudaMemPrefetchAsync_v2`: a hint (as `cudaMemPrefetchAsync`).
#[no_mangle]
pub extern "C" fn cudaMemPrefetchAsync_v2(
    _p: *const c_void,
    _n: usize,
    _location: u64,
    _flags: c_uint,
    _s: *mut c_void,
) -> c_int {
    with(|rt| rt.alive())
}

/// `cudaMemAdvise_v2`: a hint, accepted (as `cudaMemAdvise`).
#[no_mangle]
pub extern "C" fn cudaMemAdvise_v2(
    _p: *const c_void,
    _n: usize,
    _advice: c_int,
    _location: u64,
) -> c_int {
    with(|rt| rt.alive())
}
