//! The C entry points for the device, errors, streams and events (the
//! memory and launch ones are in `abi`). As there, each keeps CUDA's
//! signature: the `...WithFlags` forms repeat their plain form's few lines.

use crate::abi::{c_aliases, put, put_bytes, with};
use crate::err;
use crate::gen::layout as l;
use crate::graph::Node;
use crate::runtime::{Fail, Runtime};
use std::ffi::{c_char, c_float, c_int, c_uint, c_void};

// ---- errors ----

/// `cudaGetLastError`.
#[no_mangle]
pub extern "C" fn cudaGetLastError() -> c_int {
    let mut e = err::SUCCESS;
    with(|rt| {
        e = rt.take_last_error();
        Ok(())
    });
    e
}

/// `cudaPeekAtLastError`.
#[no_mangle]
pub extern "C" fn cudaPeekAtLastError() -> c_int {
    let mut e = err::SUCCESS;
    with(|rt| {
        e = rt.peek_last_error();
        Ok(())
    });
    e
}

/// A `'static` NUL-terminated copy of `s` (each distinct string leaked
/// once: there are only as many as error codes).
fn c_str(s: &'static str) -> *const c_char {
    use std::collections::HashMap;
    use std::sync::Mutex;
    static STRINGS: Mutex<Option<HashMap<&'static str, &'static [u8]>>> = Mutex::new(None);
    let mut g = STRINGS.lock().unwrap_or_else(|e| e.into_inner());
    let m = g.get_or_insert_with(HashMap::new);
    let b = m.entry(s).or_insert_with(|| {
        let mut v = s.as_bytes().to_vec();
        v.push(0);
        Box::leak(v.into_boxed_slice())
    });
    b.as_ptr().cast()
}

/// `cudaGetErrorString`.
#[no_mangle]
pub extern "C" fn cudaGetErrorString(e: c_int) -> *const c_char {
    c_str(err::describe(e))
}

/// `cudaGetErrorName`.
#[no_mangle]
pub extern "C" fn cudaGetErrorName(e: c_int) -> *const c_char {
    c_str(err::name(e))
}

// ---- the device ----

/// `cudaGetDeviceCount`: one simulated device.
///
/// # Safety
/// `n` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaGetDeviceCount(n: *mut c_int) -> c_int {
    // SAFETY: by the caller's contract.
    with(|_| unsafe { put(n, 1) })
}

/// `cudaGetDevice`.
///
/// # Safety
/// `d` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaGetDevice(d: *mut c_int) -> c_int {
    // SAFETY: by the caller's contract.
    with(|_| unsafe { put(d, 0) })
}

/// `cudaSetDevice`: only device 0 exists.
#[no_mangle]
pub extern "C" fn cudaSetDevice(d: c_int) -> c_int {
    with(|_| match d {
        0 => Ok(()),
        _ => Err(Fail::code(err::INVALID_DEVICE)),
    })
}

/// `cudaSetDeviceFlags`: accepted, nothing to set.
#[no_mangle]
pub extern "C" fn cudaSetDeviceFlags(_flags: c_uint) -> c_int {
    with(|_| Ok(()))
}

/// `cudaGetDeviceProperties`: CUDA 13's `struct cudaDeviceProp`. In
/// `libcudart.so.12` this name is CUDA 11's layout, which no CUDA 12
/// header asks for (they call `cudaGetDeviceProperties_v2`, `cuda12`), so
/// it is refused there rather than written in a layout we do not have.
///
/// # Safety
/// `p` is valid for a `struct cudaDeviceProp`.
#[no_mangle]
pub unsafe extern "C" fn cudaGetDeviceProperties(p: *mut c_void, d: c_int) -> c_int {
    if crate::cuda12::is_cuda12() {
        return crate::abi::unimplemented("cudaGetDeviceProperties (CUDA 11's layout)");
    }
    with(|rt| {
        if d != 0 {
            return Err(Fail::code(err::INVALID_DEVICE));
        }
        let b = rt.facts()?.device_prop();
        // SAFETY: by the caller's contract, `p` holds `PROP_SIZE` bytes.
        unsafe { put_bytes(p, &b) }
    })
}

/// `cudaDeviceGetAttribute`.
///
/// # Safety
/// `v` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaDeviceGetAttribute(v: *mut c_int, attr: c_int, d: c_int) -> c_int {
    with(|rt| {
        if d != 0 {
            return Err(Fail::code(err::INVALID_DEVICE));
        }
        let x = rt.facts()?.attribute(attr).ok_or_else(|| {
            Fail::said(
                err::INVALID_VALUE,
                format!("cudaDeviceGetAttribute: attribute {attr} is not modelled"),
            )
        })?;
        // SAFETY: by the caller's contract.
        unsafe { put(v, x) }
    })
}

/// `cudaDriverGetVersion`: CUDA 13.0.
///
/// # Safety
/// `v` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaDriverGetVersion(v: *mut c_int) -> c_int {
    // SAFETY: by the caller's contract.
    with(|_| unsafe { put(v, 13000) })
}

/// `cudaRuntimeGetVersion`: CUDA 13.0 (12.9 as `libcudart.so.12`).
///
/// # Safety
/// `v` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaRuntimeGetVersion(v: *mut c_int) -> c_int {
    // SAFETY: by the caller's contract.
    with(|_| unsafe { put(v, crate::cuda12::runtime_version()) })
}

/// `cudaDeviceSynchronize`: launches already ran; the sticky error, if any.
#[no_mangle]
pub extern "C" fn cudaDeviceSynchronize() -> c_int {
    with(|rt| rt.alive())
}

/// `cudaDeviceReset`.
#[no_mangle]
pub extern "C" fn cudaDeviceReset() -> c_int {
    with(|rt| {
        rt.reset();
        Ok(())
    })
}

/// `cudaFuncGetAttributes`.
///
/// # Safety
/// `p` is valid for a `struct cudaFuncAttributes`.
#[no_mangle]
pub unsafe extern "C" fn cudaFuncGetAttributes(p: *mut c_void, func: *const c_void) -> c_int {
    with(|rt| {
        let f = rt.func_info(func as u64)?;
        let facts = rt.facts()?;
        let mut b = vec![0u8; l::FATTR_SIZE];
        let mut at = |off: usize, v: &[u8]| b[off..off + v.len()].copy_from_slice(v);
        at(
            l::FATTR_SHARED_SIZE_BYTES,
            &(f.static_shared as usize).to_le_bytes(),
        );
        at(
            l::FATTR_CONST_SIZE_BYTES,
            &(f.const_bytes as usize).to_le_bytes(),
        );
        at(
            l::FATTR_LOCAL_SIZE_BYTES,
            &(f.local_per_thread as usize).to_le_bytes(),
        );
        at(
            l::FATTR_MAX_THREADS_PER_BLOCK,
            &(f.max_threads as c_int).to_le_bytes(),
        );
        // What ptxas allocated, from the program's machine code for the
        // simulated target (PTX does not say): 0 where it has none.
        let regs = rt.registers_of(func as u64).unwrap_or(0) as c_int;
        at(l::FATTR_NUM_REGS, &regs.to_le_bytes());
        let version = facts.major * 10 + facts.minor;
        at(l::FATTR_PTX_VERSION, &version.to_le_bytes());
        at(l::FATTR_BINARY_VERSION, &version.to_le_bytes());
        let dynamic = rt.shared_limits.max_dynamic(func as u64, f.static_shared);
        at(
            l::FATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            &(dynamic as c_int).to_le_bytes(),
        );
        // SAFETY: by the caller's contract.
        unsafe { put_bytes(p, &b) }
    })
}

/// `cudaFuncSetAttribute`: the maximum dynamic shared memory (`smem`);
/// every other attribute (the carveout, cluster shapes) is accepted
/// without effect, as before: the simulator has nothing they change.
#[no_mangle]
pub extern "C" fn cudaFuncSetAttribute(func: *const c_void, attr: c_int, value: c_int) -> c_int {
    with(|rt| {
        let f = rt.func_info(func as u64)?;
        match attr {
            l::cudaFuncAttributeMaxDynamicSharedMemorySize => {
                let optin = rt.facts()?.shared_per_block_optin;
                rt.shared_limits
                    .set(func as u64, value, f.static_shared, optin)
                    .map_err(|m| Fail::said(err::INVALID_VALUE, m))
            }
            _ => Ok(()),
        }
    })
}

/// `cudaFuncSetCacheConfig`: accepted, without effect.
#[no_mangle]
pub extern "C" fn cudaFuncSetCacheConfig(_func: *const c_void, _config: c_int) -> c_int {
    with(|_| Ok(()))
}

/// `cudaDeviceSetCacheConfig`: accepted, without effect.
#[no_mangle]
pub extern "C" fn cudaDeviceSetCacheConfig(_config: c_int) -> c_int {
    with(|_| Ok(()))
}

/// `cudaOccupancyMaxActiveBlocksPerMultiprocessor`.
///
/// # Safety
/// `n` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaOccupancyMaxActiveBlocksPerMultiprocessor(
    n: *mut c_int,
    func: *const c_void,
    threads: c_int,
    shared: usize,
) -> c_int {
    with(|rt| {
        let v = crate::coop::occupancy(rt, func as u64, threads, shared)?;
        // SAFETY: by the caller's contract.
        unsafe { put(n, v) }
    })
}

/// `cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags`.
///
/// # Safety
/// `n` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    n: *mut c_int,
    func: *const c_void,
    threads: c_int,
    shared: usize,
    _flags: c_uint,
) -> c_int {
    // SAFETY: as the caller's.
    unsafe { cudaOccupancyMaxActiveBlocksPerMultiprocessor(n, func, threads, shared) }
}

// ---- streams ----
//
// The exported creators below share their shape (a doc, a signature, one
// call of `create`): each C entry point is its own function (issue 27).

/// A new handle from `make` (a stream's or an event's) into `p`.
///
/// # Safety
/// `p` is valid for a write.
unsafe fn create(p: *mut *mut c_void, make: fn(&mut Runtime) -> u64) -> c_int {
    with(|rt| {
        let h = make(rt);
        // SAFETY: by the caller's contract.
        unsafe { put(p, h as *mut c_void) }
    })
}

/// `cudaStreamCreate`.
///
/// # Safety
/// `p` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaStreamCreate(p: *mut *mut c_void) -> c_int {
    // SAFETY: as the caller's.
    unsafe { create(p, Runtime::stream_create) }
}

/// `cudaStreamCreateWithFlags`.
///
/// # Safety
/// `p` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaStreamCreateWithFlags(p: *mut *mut c_void, _flags: c_uint) -> c_int {
    // SAFETY: as the caller's.
    unsafe { create(p, Runtime::stream_create) }
}

/// `cudaStreamCreateWithPriority`.
///
/// # Safety
/// `p` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaStreamCreateWithPriority(
    p: *mut *mut c_void,
    _flags: c_uint,
    _priority: c_int,
) -> c_int {
    // SAFETY: as the caller's.
    unsafe { create(p, Runtime::stream_create) }
}

/// `cudaStreamDestroy`.
#[no_mangle]
pub extern "C" fn cudaStreamDestroy(s: *mut c_void) -> c_int {
    with(|rt| rt.stream_destroy(s as u64))
}

/// `cudaStreamSynchronize`: its work already ran. A capturing stream
/// cannot be synchronised (CUDA's cudaErrorStreamCaptureUnsupported), and
/// trying invalidates its capture, as CUDA does.
#[no_mangle]
pub extern "C" fn cudaStreamSynchronize(s: *mut c_void) -> c_int {
    with(|rt| {
        rt.alive()?;
        match rt.graphs.capturing(s as u64) {
            Some(_) => Err({
                rt.graphs.invalidate(s as u64);
                Fail::said(
                    err::STREAM_CAPTURE_UNSUPPORTED,
                    "cudaStreamSynchronize: the stream is capturing",
                )
            }),
            None => Ok(()),
        }
    })
}

/// `cudaStreamQuery`: always done.
#[no_mangle]
pub extern "C" fn cudaStreamQuery(_s: *mut c_void) -> c_int {
    with(|rt| rt.alive())
}

/// `cudaStreamWaitEvent`: the event is already done; waiting on an event
/// recorded in a capturing stream joins that capture. With
/// `cudaEventWaitExternal`, a capturing stream records an event wait node.
#[no_mangle]
pub extern "C" fn cudaStreamWaitEvent(s: *mut c_void, e: *mut c_void, flags: c_uint) -> c_int {
    with(|rt| {
        rt.event_check(e as u64)?;
        let external = flags & l::cudaEventWaitExternal as c_uint != 0;
        if external && rt.graphs.record(s as u64, Node::EventWait(e as u64)) {
            return Ok(());
        }
        rt.graphs.wait_event(s as u64, e as u64);
        Ok(())
    })
}

// ---- events ----

/// `cudaEventCreate`.
///
/// # Safety
/// `p` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaEventCreate(p: *mut *mut c_void) -> c_int {
    // SAFETY: as the caller's.
    unsafe { create(p, Runtime::event_create) }
}

/// `cudaEventCreateWithFlags`.
///
/// # Safety
/// `p` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaEventCreateWithFlags(p: *mut *mut c_void, _flags: c_uint) -> c_int {
    // SAFETY: as the caller's.
    unsafe { create(p, Runtime::event_create) }
}

/// `cudaEventDestroy`.
#[no_mangle]
pub extern "C" fn cudaEventDestroy(e: *mut c_void) -> c_int {
    with(|rt| rt.event_destroy(e as u64))
}

/// `cudaEventRecord`: the simulated time now, or a point of a capture.
#[no_mangle]
pub extern "C" fn cudaEventRecord(e: *mut c_void, s: *mut c_void) -> c_int {
    with(|rt| rt.event_record(e as u64, s as u64))
}

/// `cudaEventRecordWithFlags`: with `cudaEventRecordExternal`, a
/// capturing stream records an event record node (the event is recorded
/// when the graph runs), not a point of the capture.
#[no_mangle]
pub extern "C" fn cudaEventRecordWithFlags(e: *mut c_void, s: *mut c_void, f: c_uint) -> c_int {
    with(|rt| {
        let external = f & l::cudaEventRecordExternal as c_uint != 0;
        if external && rt.graphs.capturing(s as u64).is_some() {
            rt.event_check(e as u64)?;
            rt.graphs.record(s as u64, Node::EventRecord(e as u64));
            return Ok(());
        }
        rt.event_record(e as u64, s as u64)
    })
}

// The event calls below are one line each, alike in shape to cudaFree's:
// each C entry point is its own function (issue 27).

/// `cudaEventSynchronize`.
#[no_mangle]
pub extern "C" fn cudaEventSynchronize(e: *mut c_void) -> c_int {
    with(|rt| rt.event_check(e as u64))
}

/// `cudaEventQuery`.
#[no_mangle]
pub extern "C" fn cudaEventQuery(e: *mut c_void) -> c_int {
    with(|rt| rt.event_check(e as u64))
}

c_aliases! {
    (ms: *mut c_float, start: *mut c_void, end: *mut c_void) -> c_int {
        with(|rt| {
            let t = rt.elapsed_ms(start as u64, end as u64)?;
            // SAFETY: by the caller's contract (`ms` valid for a write).
            unsafe { put(ms, t) }
        })
    }
    /// `cudaEventElapsedTime`: milliseconds of simulated time.
    pub unsafe extern "C" fn cudaEventElapsedTime(..);
    /// `cudaEventElapsedTime_v2`: CUDA 12.8's name for the same measurement.
    pub unsafe extern "C" fn cudaEventElapsedTime_v2(..);
}
