//! The exported device functions (`pss_device_*`): a simulated GPU whose
//! memory and modules persist across launches, as a CUDA context's do.
//! Conventions as `ffi.rs`: pointers checked for null, bodies under
//! `catch_unwind`, failures a return value plus `pss_last_error`, one call
//! at a time per handle.

use crate::device::{self, DeviceBusy, PssDevice};
use crate::ffi::{boxed, free_handle, guard, text};
use crate::handle::Res;
use crate::types::{PssLaunchReport, PssParam};
use std::ffi::{c_char, c_void};

fn dev<'a>(p: *mut PssDevice) -> Res<DeviceBusy<'a>> {
    // SAFETY: a non-null handle comes from `pss_device_new` or
    // `pss_device_from_config` and is not yet freed (the caller's
    // contract); `as_ref` checks null; the state is reached only through
    // the guard `enter` hands out once at a time.
    let h = unsafe { p.as_ref() }.ok_or_else(|| "null device handle".to_string())?;
    h.enter()
}

/// `n` bytes at `p` (null allowed when `n` is 0).
fn bytes<'a>(p: *const c_void, n: usize, what: &str) -> Res<&'a [u8]> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(format!("{what} is null"));
    }
    // SAFETY: non-null, and the caller passes `n` readable bytes.
    Ok(unsafe { std::slice::from_raw_parts(p.cast::<u8>(), n) })
}

/// Three dimensions at `p`.
fn dims(p: *const u32, what: &str) -> Res<[u32; 3]> {
    // SAFETY: the caller passes 3 readable uint32_t or null.
    unsafe { p.cast::<[u32; 3]>().as_ref() }
        .copied()
        .ok_or_else(|| format!("{what} is null"))
}

// The constructors and `pss_device_free` have the shape of `pss_sim_*`'s in
// ffi.rs, their work in `boxed` and `free_handle`: each C entry point is its
// own (issue 27).

/// A device of preset `arch` (`"sm_90"`, ...) dealing blocks to `sms` SMs
/// (0: the preset's whole GPU, 132 for sm_90; at most `PSS_MAX_SMS`); null
/// on failure. Free it with `pss_device_free`.
///
/// # Safety
/// Pointers are null or valid for the call ([pointer contract](crate#pointer-contract)).
#[no_mangle]
pub unsafe extern "C" fn pss_device_new(arch: *const c_char, sms: u32) -> *mut PssDevice {
    boxed(|| device::new(text(arch, "arch")?, sms))
}

/// A device configured by the TOML file at `path` (as `simcli run
/// --config` reads it: its `target`, parameters and scheduler), `sms` SMs
/// as for `pss_device_new`; null on failure.
///
/// # Safety
/// Pointers are null or valid for the call ([pointer contract](crate#pointer-contract)).
#[no_mangle]
pub unsafe extern "C" fn pss_device_from_config(path: *const c_char, sms: u32) -> *mut PssDevice {
    boxed(|| device::from_config(text(path, "path")?, sms))
}

/// Frees a device, its memory and modules (null is ignored). While another
/// call on it is in progress nothing is freed and `pss_last_error` says why.
///
/// # Safety
/// `d` is null or a live handle from `pss_device_new` or
/// `pss_device_from_config`, and no other thread uses it after the call.
#[no_mangle]
pub unsafe extern "C" fn pss_device_free(d: *mut PssDevice) {
    // SAFETY: the caller's contract.
    unsafe { free_handle(d, "pss_device_free", |h| h.enter().map(drop)) }
}

/// Allocates `bytes` of zeroed device memory (256-byte aligned, as
/// `cudaMalloc`); writes its device address to `out`; 0 or -1.
///
/// # Safety
/// Pointers are null or valid for the call ([pointer contract](crate#pointer-contract)).
#[no_mangle]
pub unsafe extern "C" fn pss_device_malloc(d: *mut PssDevice, bytes: u64, out: *mut u64) -> i32 {
    guard(-1, || {
        // SAFETY: the caller passes a writable uint64_t or null.
        let out = unsafe { out.as_mut() }.ok_or("out is null")?;
        *out = dev(d)?.device.malloc(bytes).map_err(|e| e.to_string())?;
        Ok(0)
    })
}

/// Frees the allocation at device address `addr`; 0 or -1.
///
/// # Safety
/// Pointers are null or valid for the call ([pointer contract](crate#pointer-contract)).
#[no_mangle]
pub unsafe extern "C" fn pss_device_mem_free(d: *mut PssDevice, addr: u64) -> i32 {
    guard(-1, || {
        dev(d)?.device.free(addr).map_err(|e| e.to_string())?;
        Ok(0)
    })
}

/// Copies `n` bytes from host `data` to device address `addr` (within one
/// allocation); 0 or -1.
///
/// # Safety
/// Pointers are null or valid for the call; `data` holds `n` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn pss_device_write(
    d: *mut PssDevice,
    addr: u64,
    data: *const c_void,
    n: usize,
) -> i32 {
    guard(-1, || {
        let data = bytes(data, n, "data")?;
        dev(d)?
            .device
            .write(addr, data)
            .map_err(|e| e.to_string())?;
        Ok(0)
    })
}

/// Copies `n` bytes at device address `addr` (within one allocation) to
/// host `out`; 0 or -1.
///
/// # Safety
/// Pointers are null or valid for the call; `out` holds `n` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn pss_device_read(
    d: *mut PssDevice,
    addr: u64,
    out: *mut c_void,
    n: usize,
) -> i32 {
    guard(-1, || {
        let h = dev(d)?;
        if n == 0 {
            return Ok(0);
        }
        if out.is_null() {
            return Err("out is null".into());
        }
        // SAFETY: non-null, and the caller passes `n` writable bytes.
        let out = unsafe { std::slice::from_raw_parts_mut(out.cast::<u8>(), n) };
        h.device.read(addr, out).map_err(|e| e.to_string())?;
        Ok(0)
    })
}

/// Loads the PTX module `ptx` (named `name` in errors): parses it and
/// places its `.global` variables (initialised). Returns its id for the
/// other calls, or -1.
///
/// # Safety
/// Pointers are null or valid for the call ([pointer contract](crate#pointer-contract)).
#[no_mangle]
pub unsafe extern "C" fn pss_device_load_module(
    d: *mut PssDevice,
    name: *const c_char,
    ptx: *const c_char,
) -> i64 {
    guard(-1, || {
        let (name, ptx) = (text(name, "name")?, text(ptx, "ptx")?);
        let m = dev(d)?
            .device
            .load_module(name, ptx)
            .map_err(|e| e.to_string())?;
        Ok(m.0 as i64)
    })
}

// `pss_device_param_count` and `pss_device_param` open alike (the C
// signature, the entry's name): each C entry point is its own (issue 27).

/// The parameter slots of kernel `entry` of module `module` on device `d`.
fn params(d: *mut PssDevice, module: u32, entry: &str) -> Res<Vec<sim_kernel::ParamSlot>> {
    dev(d)?
        .device
        .params(device::module(module), entry)
        .map_err(|e| e.to_string())
}

/// The number of parameters of kernel `entry` of module `module`, or -1.
///
/// # Safety
/// Pointers are null or valid for the call ([pointer contract](crate#pointer-contract)).
#[no_mangle]
pub unsafe extern "C" fn pss_device_param_count(
    d: *mut PssDevice,
    module: u32,
    entry: *const c_char,
) -> i64 {
    guard(-1, || {
        let entry = text(entry, "entry")?;
        Ok(params(d, module, entry)?.len() as i64)
    })
}

/// Where parameter `index` of kernel `entry` goes in the packed parameter
/// buffer `pss_device_launch` takes (offset, size, alignment); 0 or -1.
///
/// # Safety
/// Pointers are null or valid for the call ([pointer contract](crate#pointer-contract)).
#[no_mangle]
pub unsafe extern "C" fn pss_device_param(
    d: *mut PssDevice,
    module: u32,
    entry: *const c_char,
    index: u32,
    out: *mut PssParam,
) -> i32 {
    guard(-1, || {
        let entry = text(entry, "entry")?;
        // SAFETY: the caller passes a writable PssParam or null.
        let out = unsafe { out.as_mut() }.ok_or("out is null")?;
        let params = params(d, module, entry)?;
        let p = params.get(index as usize).ok_or_else(|| {
            format!(
                "{entry} has {} parameters; there is no parameter {index}",
                params.len()
            )
        })?;
        *out = PssParam {
            offset: p.offset,
            size: p.size,
            align: p.align,
        };
        Ok(0)
    })
}

/// Copies `n` bytes from `data` to `offset` of module `module`'s `.global`
/// or `.const` variable `name` (`cudaMemcpyToSymbol`); 0 or -1.
///
/// # Safety
/// Pointers are null or valid for the call; `data` holds `n` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn pss_device_write_symbol(
    d: *mut PssDevice,
    module: u32,
    name: *const c_char,
    offset: u64,
    data: *const c_void,
    n: usize,
) -> i32 {
    guard(-1, || {
        let (name, data) = (text(name, "name")?, bytes(data, n, "data")?);
        dev(d)?
            .device
            .write_symbol(device::module(module), name, offset, data)
            .map_err(|e| e.to_string())?;
        Ok(0)
    })
}

/// Copies `n` bytes at `offset` of module `module`'s `.global` or `.const`
/// variable `name` to `out` (`cudaMemcpyFromSymbol`); 0 or -1.
///
/// # Safety
/// Pointers are null or valid for the call; `out` holds `n` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn pss_device_read_symbol(
    d: *mut PssDevice,
    module: u32,
    name: *const c_char,
    offset: u64,
    out: *mut c_void,
    n: usize,
) -> i32 {
    guard(-1, || {
        let name = text(name, "name")?;
        if out.is_null() && n > 0 {
            return Err("out is null".into());
        }
        let mut buf = vec![0u8; n];
        dev(d)?
            .device
            .read_symbol(device::module(module), name, offset, &mut buf)
            .map_err(|e| e.to_string())?;
        if n > 0 {
            // SAFETY: non-null (checked), and the caller passes `n`
            // writable bytes; `buf` holds `n`.
            unsafe { std::ptr::copy_nonoverlapping(buf.as_ptr(), out.cast::<u8>(), n) };
        }
        Ok(0)
    })
}

/// Runs kernel `entry` of module `module` on `grid` x `block` (3
/// `uint32_t` each) with `dynamic_shared` bytes of dynamic shared memory a
/// block and the packed parameter buffer `params` of `params_len` bytes
/// (exactly the kernel's: each parameter at its `pss_device_param` offset;
/// a pointer parameter holds a `pss_device_malloc` address). Its writes stay
/// in device memory for the next launch. Fills `out` (null: not wanted);
/// 0 or -1. A kernel that faults fails, and the device then refuses every
/// later call with that error, as a CUDA context after a fault.
///
/// # Safety
/// Pointers are null or valid for the call; `params` holds `params_len`
/// readable bytes.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn pss_device_launch(
    d: *mut PssDevice,
    module: u32,
    entry: *const c_char,
    grid: *const u32,
    block: *const u32,
    dynamic_shared: u32,
    params: *const c_void,
    params_len: usize,
    out: *mut PssLaunchReport,
) -> i32 {
    guard(-1, || {
        let entry = text(entry, "entry")?;
        let (grid, block) = (dims(grid, "grid")?, dims(block, "block")?);
        let params = bytes(params, params_len, "params")?;
        let mut h = dev(d)?;
        h.printf.clear();
        let l = h
            .device
            .launch(
                device::module(module),
                entry,
                grid,
                block,
                dynamic_shared,
                params,
            )
            .map_err(|e| e.to_string())?;
        // SAFETY: the caller passes a writable PssLaunchReport or null.
        if let Some(out) = unsafe { out.as_mut() } {
            *out = device::report(&l);
        }
        h.printf = l.printf;
        Ok(0)
    })
}

/// Copies up to `cap` bytes of what the last launch's device `printf`
/// printed to `out` (not NUL-terminated); returns its length in bytes
/// (possibly more than `cap`), or -1.
///
/// # Safety
/// Pointers are null or valid for the call; `out` holds `cap` writable
/// bytes.
#[no_mangle]
pub unsafe extern "C" fn pss_device_printf(d: *mut PssDevice, out: *mut c_char, cap: usize) -> i64 {
    guard(-1, || {
        let h = dev(d)?;
        if out.is_null() && cap > 0 {
            return Err("out is null".into());
        }
        let n = h.printf.len().min(cap);
        if n > 0 {
            // SAFETY: non-null (checked), `out` holds `cap` writable bytes
            // and `n <= cap`.
            unsafe { std::ptr::copy_nonoverlapping(h.printf.as_ptr(), out.cast::<u8>(), n) };
        }
        Ok(h.printf.len() as i64)
    })
}
