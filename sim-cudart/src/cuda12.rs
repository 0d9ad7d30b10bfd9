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
//! are here too (`cudaThreadExit`, `cudaGetDeviceProperties_v2`); both
//! libraries export them. The `_v2` names that only rename an entry point
//! (`cudaEventElapsedTime_v2`, `cudaMemPrefetchAsync_v2`, `cudaMemAdvise_v2`)
//! are defined beside it (`c_aliases!`).

use crate::abi::{put_bytes, with};
use crate::err;
use crate::props::PropLayout;
use crate::runtime::Fail;
use std::ffi::{c_int, c_void};

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
        // SAFETY: by the caller's contract, `p` is null or holds CUDA 12's
        // `sizeof(struct cudaDeviceProp)`, which is `b.len()`.
        unsafe { put_bytes(p, &b) }
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
