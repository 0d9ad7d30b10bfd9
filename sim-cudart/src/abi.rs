//! The C entry points: each reads the program's pointers, calls the
//! [`Runtime`] under one lock, and writes its results back. A panic is
//! caught and becomes `cudaErrorUnknown`; nothing here aborts the program.
//!
//! Signatures are CUDA 13's (`cuda_runtime_api.h`, `crt/host_runtime.h`,
//! `crt/device_functions.h` of the nvidia-cuda-runtime and -crt wheels).
//!
//! Entry points that only rename another, or take its parameters and a
//! few more that change nothing here, share one definition
//! (`c_aliases!`); the others keep their own signature, CUDA's.

use crate::err;
use crate::graph::{Memset, Node};
use crate::runtime::{CallConfig, Fail, Place, Res, Runtime};
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::Mutex;

/// The runtime, created at the first call (usually the program's first
/// fatbinary registration, before `main`).
static RUNTIME: Mutex<Option<Runtime>> = Mutex::new(None);

/// `dim3`, passed by value.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Dim3 {
    /// x.
    pub x: c_uint,
    /// y.
    pub y: c_uint,
    /// z.
    pub z: c_uint,
}

impl Dim3 {
    pub(crate) fn arr(self) -> [u32; 3] {
        [self.x, self.y, self.z]
    }
}

/// Runs `f` on the runtime, noting its result for `cudaGetLastError`.
pub(crate) fn with(f: impl FnOnce(&mut Runtime) -> Res<()>) -> c_int {
    let mut guard = RUNTIME.lock().unwrap_or_else(|e| e.into_inner());
    let rt = guard.get_or_insert_with(|| {
        Runtime::new(crate::protocol::Settings::from_env().unwrap_or_else(|m| {
            eprintln!("ptx-sm-sim: {m}; using the defaults");
            crate::protocol::Settings::default()
        }))
    });
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(rt)));
    let r = r.unwrap_or_else(|_| Err(Fail::said(err::UNKNOWN, "internal error (a panic)")));
    rt.note(r)
}

/// Writes `bytes` to `p`, refusing a null pointer.
///
/// # Safety
/// `p` is null or valid for `bytes.len()` bytes of writes.
pub(crate) unsafe fn put_bytes(p: *mut c_void, bytes: &[u8]) -> Res<()> {
    if p.is_null() {
        return Err(Fail::code(err::INVALID_VALUE));
    }
    // SAFETY: by the caller's contract; the two never overlap.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p.cast::<u8>(), bytes.len()) };
    Ok(())
}

/// Writes `v` through `p`, refusing a null pointer.
///
/// # Safety
/// `p` is null or valid for a write of `T`.
pub(crate) unsafe fn put<T>(p: *mut T, v: T) -> Res<()> {
    if p.is_null() {
        return Err(Fail::code(err::INVALID_VALUE));
    }
    // SAFETY: non-null, and valid by the caller's contract.
    unsafe { p.write_unaligned(v) };
    Ok(())
}

/// `n` bytes the program owns at `p`.
///
/// # Safety
/// `p` is valid for `n` bytes of reads, or `n` is 0.
unsafe fn host_bytes<'a>(p: *const c_void, n: usize) -> Res<&'a [u8]> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(Fail::code(err::INVALID_VALUE));
    }
    // SAFETY: by the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(p.cast::<u8>(), n) })
}

/// `n` bytes the program owns at `p`, to write.
///
/// # Safety
/// `p` is valid for `n` bytes of writes, or `n` is 0.
unsafe fn host_bytes_mut<'a>(p: *mut c_void, n: usize) -> Res<&'a mut [u8]> {
    if n == 0 {
        return Ok(&mut []);
    }
    if p.is_null() {
        return Err(Fail::code(err::INVALID_VALUE));
    }
    // SAFETY: by the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts_mut(p.cast::<u8>(), n) })
}

/// A C string the program passed, or `""`.
///
/// # Safety
/// `p` is null or a NUL-terminated string.
unsafe fn text(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: by the caller's contract.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// A stub for an entry point the runtime does not implement: it names
/// itself on standard error (once) and returns `cudaErrorNotSupported`.
pub fn unimplemented(name: &'static str) -> c_int {
    static SAID: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
    let mut said = SAID.lock().unwrap_or_else(|e| e.into_inner());
    if !said.contains(&name) {
        said.push(name);
        eprintln!("ptx-sm-sim: {name} is not implemented by the simulator's CUDA runtime");
    }
    drop(said);
    with(|_| Err(Fail::code(err::NOT_SUPPORTED)))
}

/// Defines C entry points that take the same arguments and do the same
/// thing (CUDA's aliases: `_ptsz`, `_v2`, cooperative launches, the
/// `*Async` forms that run synchronously here): the parameter list and
/// body once, then each name as `pub [unsafe] extern "C" fn NAME(..);`,
/// spelled so that `build.rs` sees it implemented. A name may take more
/// parameters after the shared ones, which the body leaves unread:
/// `fn NAME(.., _s: *mut c_void);`.
macro_rules! c_aliases {
    (@fn [$($head:tt)*] ($($p:ident: $t:ty),* $(,)?) ($(, $x:ident: $xt:ty)* $(,)?)
        -> $ret:ty $body:block) => {
        $($head)* ($($p: $t,)* $($x: $xt),*) -> $ret $body
    };
    (
        $params:tt -> $ret:ty $body:block
        $($(#[$doc:meta])* pub unsafe extern "C" fn $name:ident(.. $($extra:tt)*);)+
    ) => {
        $(
            c_aliases!(@fn [
                $(#[$doc])*
                ///
                /// # Safety
                /// Each pointer is valid as CUDA documents it.
                #[no_mangle]
                pub unsafe extern "C" fn $name
            ] $params ($($extra)*) -> $ret $body);
        )+
    };
    (
        $params:tt -> $ret:ty $body:block
        $($(#[$doc:meta])* pub extern "C" fn $name:ident(.. $($extra:tt)*);)+
    ) => {
        $(
            c_aliases!(@fn [
                $(#[$doc])*
                #[no_mangle]
                pub extern "C" fn $name
            ] $params ($($extra)*) -> $ret $body);
        )+
    };
}
pub(crate) use c_aliases;

/// Defines the stubs `build.rs` lists.
macro_rules! stubs {
    ($($name:ident),* $(,)?) => {
        $(
            #[no_mangle]
            #[allow(non_snake_case, missing_docs)]
            pub extern "C" fn $name() -> c_int {
                unimplemented(stringify!($name))
            }
        )*
    };
}

include!(concat!(env!("OUT_DIR"), "/stubs.rs"));

// ---- registration, as nvcc's host code calls it ----

/// The fatbinary a `__fatBinC_Wrapper_t` points to.
///
/// # Safety
/// `wrapper` is null or the wrapper nvcc emitted.
unsafe fn fatbin_bytes<'a>(wrapper: *const c_void) -> Result<&'a [u8], String> {
    if wrapper.is_null() {
        return Err("a null fatbinary wrapper".into());
    }
    // SAFETY: the wrapper is {i32 magic, i32 version, const u64* data, ...}.
    let (magic, data) = unsafe {
        let w = wrapper.cast::<u8>();
        (
            w.cast::<u32>().read_unaligned(),
            w.add(8).cast::<*const u8>().read_unaligned(),
        )
    };
    if magic != crate::fatbin::WRAPPER_MAGIC {
        return Err(format!("a fatbinary wrapper with magic {magic:#x}"));
    }
    if data.is_null() {
        return Err("a fatbinary wrapper without data".into());
    }
    // SAFETY: the fatbinary starts with its 16-byte header.
    let head = unsafe { std::slice::from_raw_parts(data, 16) };
    let len = crate::fatbin::len(head)?;
    let len = usize::try_from(len).map_err(|_| "a fatbinary larger than memory".to_string())?;
    // SAFETY: the header states the fatbinary's length, header included.
    Ok(unsafe { std::slice::from_raw_parts(data, len) })
}

/// `__cudaRegisterFatBinary`.
///
/// # Safety
/// As nvcc calls it.
#[no_mangle]
pub unsafe extern "C" fn __cudaRegisterFatBinary(wrapper: *mut c_void) -> *mut *mut c_void {
    let mut handle = 0usize;
    with(|rt| {
        // SAFETY: as nvcc passes it.
        let bytes = unsafe { fatbin_bytes(wrapper) };
        handle = rt.register_fatbin(bytes);
        Ok(())
    });
    // The handle is the fatbinary's index, plus one so it is never null;
    // nvcc's code only passes it back.
    (handle + 1) as *mut *mut c_void
}

fn fatbin_index(h: *mut *mut c_void) -> usize {
    (h as usize).wrapping_sub(1)
}

/// `__cudaRegisterFatBinaryEnd`.
#[no_mangle]
pub extern "C" fn __cudaRegisterFatBinaryEnd(_handle: *mut *mut c_void) {}

/// `__cudaUnregisterFatBinary`.
#[no_mangle]
pub extern "C" fn __cudaUnregisterFatBinary(_handle: *mut *mut c_void) {}

/// `__cudaInitModule`: nvcc's code calls it before the host first touches a
/// `__managed__` variable; each one's pointer is set to its host block.
#[no_mangle]
pub extern "C" fn __cudaInitModule(handle: *mut *mut c_void) -> c_char {
    let code = with(|rt| {
        for (pointer, block) in rt.init_module(fatbin_index(handle))? {
            // SAFETY: `pointer` is the address of the program's own
            // pointer variable that nvcc registered for this variable.
            unsafe { put(pointer as *mut u64, block)? };
        }
        Ok(())
    });
    c_char::from(code == err::SUCCESS)
}

/// `__cudaRegisterManagedVar`.
///
/// # Safety
/// As nvcc calls it.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __cudaRegisterManagedVar(
    handle: *mut *mut c_void,
    host_var_ptr: *mut *mut c_void,
    _device_address: *mut c_char,
    device_name: *const c_char,
    _ext: c_int,
    size: usize,
    _constant: c_int,
    _global: c_int,
) {
    // SAFETY: nvcc passes the variable's PTX name.
    let name = unsafe { text(device_name) };
    with(|rt| {
        rt.register_managed_var(fatbin_index(handle), host_var_ptr as u64, name, size as u64);
        Ok(())
    });
}

/// `__cudaRegisterFunction`.
///
/// # Safety
/// As nvcc calls it.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __cudaRegisterFunction(
    handle: *mut *mut c_void,
    host_fun: *const c_char,
    _device_fun: *mut c_char,
    device_name: *const c_char,
    _thread_limit: c_int,
    _tid: *mut c_void,
    _bid: *mut c_void,
    _bdim: *mut c_void,
    _gdim: *mut c_void,
    _wsize: *mut c_int,
) {
    // SAFETY: nvcc passes the kernel's mangled name.
    let name = unsafe { text(device_name) };
    with(|rt| {
        rt.register_function(fatbin_index(handle), host_fun as u64, name);
        Ok(())
    });
}

/// `__cudaRegisterVar`. Its parameter list is `__cudaRegisterManagedVar`'s,
/// as nvcc declares both; each C entry point is its own (issue 27).
///
/// # Safety
/// As nvcc calls it.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __cudaRegisterVar(
    handle: *mut *mut c_void,
    host_var: *mut c_char,
    _device_address: *mut c_char,
    device_name: *const c_char,
    _ext: c_int,
    _size: usize,
    _constant: c_int,
    _global: c_int,
) {
    // SAFETY: nvcc passes the variable's PTX name.
    let name = unsafe { text(device_name) };
    with(|rt| {
        rt.register_var(fatbin_index(handle), host_var as u64, name);
        Ok(())
    });
}

/// `__cudaPushCallConfiguration`.
#[no_mangle]
pub extern "C" fn __cudaPushCallConfiguration(
    grid: Dim3,
    block: Dim3,
    shared: usize,
    stream: *mut c_void,
) -> c_uint {
    with(|rt| {
        rt.push_config(CallConfig {
            grid: grid.arr(),
            block: block.arr(),
            shared: shared as u64,
            stream: stream as u64,
        });
        Ok(())
    }) as c_uint
}

/// `__cudaPopCallConfiguration`.
///
/// # Safety
/// Each pointer is valid for its write.
#[no_mangle]
pub unsafe extern "C" fn __cudaPopCallConfiguration(
    grid: *mut Dim3,
    block: *mut Dim3,
    shared: *mut usize,
    stream: *mut *mut c_void,
) -> c_int {
    with(|rt| {
        let c = rt.pop_config()?;
        let d = |a: [u32; 3]| Dim3 {
            x: a[0],
            y: a[1],
            z: a[2],
        };
        // SAFETY: nvcc passes its locals.
        unsafe {
            put(grid, d(c.grid))?;
            put(block, d(c.block))?;
            put(shared, c.shared as usize)?;
            put(stream, c.stream as *mut c_void)
        }
    })
}

/// `__cudaGetKernel`: the kernel handle is the host stub's address.
///
/// # Safety
/// `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn __cudaGetKernel(out: *mut *const c_void, func: *const c_void) -> c_int {
    // SAFETY: by the caller's contract.
    with(|_| unsafe { put(out, func) })
}

extern "C" {
    /// The C library's standard output stream.
    static mut stdout: *mut c_void;
    fn fwrite(p: *const c_void, size: usize, n: usize, f: *mut c_void) -> usize;
}

/// Device `printf` output onto the program's `stdout`, through the C
/// library's stream so it keeps its place among the host's own output (as
/// NVIDIA's runtime prints it at the launch's end).
pub(crate) fn print_out(bytes: &[u8]) {
    if bytes.is_empty() {
        return;
    }
    // SAFETY: `stdout` is the C library's stream, initialised before any
    // constructor runs; `bytes` is valid for its length.
    unsafe {
        let f = std::ptr::addr_of!(stdout).read();
        fwrite(bytes.as_ptr().cast(), 1, bytes.len(), f);
    }
}

/// The parameter buffer of the kernel whose host stub is `func`, each
/// argument read through `args` at its parameter's size.
///
/// # Safety
/// `args` holds a valid pointer per kernel parameter, each to a value of
/// the parameter's size (nvcc's stub passes its own arguments).
pub(crate) unsafe fn pack_params(
    rt: &mut Runtime,
    func: *const c_void,
    args: *mut *mut c_void,
) -> Res<Vec<u8>> {
    let slots = rt.params(func as u64)?;
    let size = slots.iter().map(|s| s.offset + s.size).max().unwrap_or(0);
    let mut params = vec![0u8; size as usize];
    for (i, s) in slots.iter().enumerate() {
        if args.is_null() {
            return Err(Fail::said(
                err::INVALID_VALUE,
                "kernel arguments: a null array",
            ));
        }
        // SAFETY: by the caller's contract.
        let v = unsafe { host_bytes(*args.add(i), s.size as usize)? };
        params[s.offset as usize..(s.offset + s.size) as usize].copy_from_slice(v);
    }
    Ok(params)
}

/// Launches the kernel whose host stub is `func`, reading each argument
/// through `args` at its parameter's size; `cooperative`: as
/// `cudaLaunchCooperativeKernel` (`crate::coop`).
///
/// # Safety
/// `args` holds a valid pointer per kernel parameter.
unsafe fn launch_args(
    func: *const c_void,
    c: CallConfig,
    args: *mut *mut c_void,
    cooperative: bool,
) -> c_int {
    with(|rt| {
        // SAFETY: as the caller's.
        let params = unsafe { pack_params(rt, func, args)? };
        let r = if cooperative {
            crate::coop::launch(rt, func as u64, &c, &params)
        } else {
            rt.launch(func as u64, &c, &params)
        };
        print_out(&rt.take_printed());
        r
    })
}

/// C entry points launching the kernel whose host stub is `func`
/// (`launch_args`), `$coop`: as a cooperative launch. The parameter list
/// and body once for both kinds.
macro_rules! launches {
    ($coop:expr; $($names:tt)*) => {
        c_aliases! {
            (
                func: *const c_void,
                grid: Dim3,
                block: Dim3,
                args: *mut *mut c_void,
                shared: usize,
                stream: *mut c_void,
            ) -> c_int {
                let c = CallConfig {
                    grid: grid.arr(),
                    block: block.arr(),
                    shared: shared as u64,
                    stream: stream as u64,
                };
                // SAFETY: as the caller's.
                unsafe { launch_args(func, c, args, $coop) }
            }
            $($names)*
        }
    };
}

launches! { false;
    /// `__cudaLaunchKernel`, as nvcc calls it.
    pub unsafe extern "C" fn __cudaLaunchKernel(..);
    /// `__cudaLaunchKernel_ptsz` (per-thread default stream: the same here).
    pub unsafe extern "C" fn __cudaLaunchKernel_ptsz(..);
    /// `cudaLaunchKernel`.
    pub unsafe extern "C" fn cudaLaunchKernel(..);
}

// The same, as a cooperative launch: the grid resident at once, its
// workspace in `%envreg1`/`%envreg2` (`crate::coop`).
launches! { true;
    /// `cudaLaunchCooperativeKernel`.
    pub unsafe extern "C" fn cudaLaunchCooperativeKernel(..);
    /// `cudaLaunchCooperativeKernel_ptsz` (per-thread default stream: the
    /// same here).
    pub unsafe extern "C" fn cudaLaunchCooperativeKernel_ptsz(..);
}

// ---- memory ----

/// `cudaMalloc`.
///
/// # Safety
/// `p` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaMalloc(p: *mut *mut c_void, size: usize) -> c_int {
    with(|rt| {
        let a = rt.malloc(size as u64)?;
        // SAFETY: by the caller's contract.
        unsafe { put(p, a as *mut c_void) }
    })
}

/// Host memory kernels reach too.
///
/// # Safety
/// `p` is valid for a write.
unsafe fn malloc_host(p: *mut *mut c_void, size: usize, managed: bool) -> c_int {
    with(|rt| {
        let a = rt.malloc_host(size as u64, managed)?;
        // SAFETY: by the caller's contract.
        unsafe { put(p, a as *mut c_void) }
    })
}

/// `cudaMallocHost`.
///
/// # Safety
/// `p` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaMallocHost(p: *mut *mut c_void, size: usize) -> c_int {
    // SAFETY: as the caller's.
    unsafe { malloc_host(p, size, false) }
}

/// `cudaHostAlloc`.
///
/// # Safety
/// `p` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaHostAlloc(p: *mut *mut c_void, size: usize, _flags: c_uint) -> c_int {
    // SAFETY: as the caller's.
    unsafe { malloc_host(p, size, false) }
}

/// `cudaMallocManaged`.
///
/// # Safety
/// `p` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaMallocManaged(
    p: *mut *mut c_void,
    size: usize,
    _flags: c_uint,
) -> c_int {
    // SAFETY: as the caller's.
    unsafe { malloc_host(p, size, true) }
}

/// `cudaHostGetDevicePointer`: the same address (unified addressing).
///
/// # Safety
/// `p` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaHostGetDevicePointer(
    p: *mut *mut c_void,
    host: *mut c_void,
    _flags: c_uint,
) -> c_int {
    // SAFETY: by the caller's contract.
    with(|_| unsafe { put(p, host) })
}

// cudaFree and cudaFreeHost (as the one-line event calls in abi_device.rs)
// share their shape: each C entry point is its own function (issue 27).

/// `cudaFree`.
#[no_mangle]
pub extern "C" fn cudaFree(p: *mut c_void) -> c_int {
    with(|rt| rt.free(p as u64))
}

/// `cudaFreeHost`.
#[no_mangle]
pub extern "C" fn cudaFreeHost(p: *mut c_void) -> c_int {
    with(|rt| rt.free(p as u64))
}

/// `cudaMemGetInfo`.
///
/// # Safety
/// Both pointers are valid for writes.
#[no_mangle]
pub unsafe extern "C" fn cudaMemGetInfo(free: *mut usize, total: *mut usize) -> c_int {
    with(|rt| {
        let t = rt.facts()?.global_bytes;
        let f = t.saturating_sub(rt.allocated());
        // SAFETY: by the caller's contract.
        unsafe {
            put(free, f as usize)?;
            put(total, t as usize)
        }
    })
}

/// Where one side of a copy is, from the call's kind and the pointer.
fn side(rt: &Runtime, p: u64, device_by_kind: Option<bool>) -> Res<Place> {
    let place = rt.place(p);
    match (device_by_kind, place) {
        // The kind says device: a device allocation or a host block
        // (which kernels reach too), never an unknown address.
        (Some(true), Place::Other) => Err(Fail::said(
            err::INVALID_VALUE,
            format!("{p:#x} is not device memory (no allocation holds it)"),
        )),
        // The kind says host: the program's memory, wherever it is.
        (Some(false), Place::Device) => Err(Fail::said(
            err::INVALID_VALUE,
            format!("{p:#x} is device memory where the copy's kind says host"),
        )),
        (Some(false), _) => Ok(Place::Other),
        _ => Ok(place),
    }
}

/// One copy of `n` bytes, each side placed by the kind and where it points.
///
/// # Safety
/// Host sides are valid for `n` bytes.
pub(crate) unsafe fn copy(
    rt: &mut Runtime,
    dst: *mut c_void,
    src: *const c_void,
    n: usize,
    kind: c_int,
) -> Res<()> {
    use crate::gen::layout as l;
    rt.alive()?;
    let (d_dev, s_dev) = match kind {
        l::cudaMemcpyHostToHost => (Some(false), Some(false)),
        l::cudaMemcpyHostToDevice => (Some(true), Some(false)),
        l::cudaMemcpyDeviceToHost => (Some(false), Some(true)),
        l::cudaMemcpyDeviceToDevice => (Some(true), Some(true)),
        l::cudaMemcpyDefault => (None, None),
        _ => return Err(Fail::code(err::INVALID_MEMCPY_DIRECTION)),
    };
    let d = side(rt, dst as u64, d_dev)?;
    let s = side(rt, src as u64, s_dev)?;
    if n == 0 {
        return Ok(());
    }
    match (d == Place::Device, s == Place::Device) {
        (true, true) => rt.copy(dst as u64, src as u64, n as u64),
        // SAFETY: the host side is the program's, valid for `n` bytes.
        (true, false) => rt.write(dst as u64, unsafe { host_bytes(src, n)? }),
        // SAFETY: as above.
        (false, true) => rt.read(src as u64, unsafe { host_bytes_mut(dst, n)? }),
        (false, false) => {
            // SAFETY: both the program's; `copy` allows overlap.
            unsafe { std::ptr::copy(src.cast::<u8>(), dst.cast::<u8>(), n) };
            Ok(())
        }
    }
}

/// `cudaMemcpy`.
///
/// # Safety
/// As CUDA documents it.
#[no_mangle]
pub unsafe extern "C" fn cudaMemcpy(
    dst: *mut c_void,
    src: *const c_void,
    n: usize,
    kind: c_int,
) -> c_int {
    // SAFETY: as the caller's.
    with(|rt| unsafe { copy(rt, dst, src, n, kind) })
}

/// `cudaMemcpyAsync` (synchronous here).
///
/// # Safety
/// As CUDA documents it.
#[no_mangle]
pub unsafe extern "C" fn cudaMemcpyAsync(
    dst: *mut c_void,
    src: *const c_void,
    n: usize,
    kind: c_int,
    stream: *mut c_void,
) -> c_int {
    with(|rt| {
        let node = Node::Copy {
            dst: dst as u64,
            src: src as u64,
            n,
            kind,
        };
        if rt.graphs.record(stream as u64, node) {
            return rt.alive();
        }
        // SAFETY: as the caller's.
        unsafe { copy(rt, dst, src, n, kind) }
    })
}

/// `cudaMemset`.
#[no_mangle]
pub extern "C" fn cudaMemset(p: *mut c_void, value: c_int, n: usize) -> c_int {
    with(|rt| memset(rt, p, value, n))
}

/// `cudaMemsetAsync` (synchronous here).
#[no_mangle]
pub extern "C" fn cudaMemsetAsync(
    p: *mut c_void,
    value: c_int,
    n: usize,
    stream: *mut c_void,
) -> c_int {
    with(|rt| {
        let node = Node::Set(Memset {
            dst: p as u64,
            value: u32::from(value as u8),
            element: 1,
            width: n as u64,
            rows: 1,
            pitch: n as u64,
        });
        if rt.graphs.record(stream as u64, node) {
            return rt.alive();
        }
        memset(rt, p, value, n)
    })
}

pub(crate) fn memset(rt: &mut Runtime, p: *mut c_void, value: c_int, n: usize) -> Res<()> {
    rt.alive()?;
    match side(rt, p as u64, Some(true))? {
        Place::Device => rt.fill(p as u64, value as u8, n as u64),
        Place::HostBlock | Place::Other => {
            // SAFETY: host memory the program passed as device memory is
            // the runtime's own host block (`place`), valid for `n` bytes
            // if the program's call is.
            let b = unsafe { host_bytes_mut(p, n)? };
            b.fill(value as u8);
            Ok(())
        }
    }
}

/// `cudaMemcpyToSymbol`.
///
/// # Safety
/// `src` is valid for `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn cudaMemcpyToSymbol(
    symbol: *const c_void,
    src: *const c_void,
    n: usize,
    offset: usize,
    kind: c_int,
) -> c_int {
    with(|rt| {
        if from_device(rt, src as u64, kind) {
            // `cudaMemcpyDeviceToDevice`: the bytes come from device memory.
            let mut data = vec![0u8; n];
            rt.read(src as u64, &mut data)?;
            return rt.write_symbol(symbol as u64, offset as u64, &data);
        }
        // SAFETY: by the caller's contract.
        let data = unsafe { host_bytes(src, n)? };
        rt.write_symbol(symbol as u64, offset as u64, data)
    })
}

/// Whether a symbol copy's other side is device memory: the kind says so
/// (`cudaMemcpyDeviceToDevice`), or it is `cudaMemcpyDefault` and the
/// pointer is a device allocation.
fn from_device(rt: &Runtime, p: u64, kind: c_int) -> bool {
    use crate::gen::layout as l;
    kind == l::cudaMemcpyDeviceToDevice
        || (kind == l::cudaMemcpyDefault && rt.place(p) == Place::Device)
}

/// `cudaMemcpyFromSymbol`.
///
/// # Safety
/// `dst` is valid for `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn cudaMemcpyFromSymbol(
    dst: *mut c_void,
    symbol: *const c_void,
    n: usize,
    offset: usize,
    kind: c_int,
) -> c_int {
    with(|rt| {
        if from_device(rt, dst as u64, kind) {
            let mut data = vec![0u8; n];
            rt.read_symbol(symbol as u64, offset as u64, &mut data)?;
            return rt.write(dst as u64, &data);
        }
        // SAFETY: by the caller's contract.
        let out = unsafe { host_bytes_mut(dst, n)? };
        rt.read_symbol(symbol as u64, offset as u64, out)
    })
}

/// `cudaMemcpyToSymbolAsync` (synchronous here).
///
/// # Safety
/// As `cudaMemcpyToSymbol`.
#[no_mangle]
pub unsafe extern "C" fn cudaMemcpyToSymbolAsync(
    symbol: *const c_void,
    src: *const c_void,
    n: usize,
    offset: usize,
    kind: c_int,
    _stream: *mut c_void,
) -> c_int {
    // SAFETY: as the caller's.
    unsafe { cudaMemcpyToSymbol(symbol, src, n, offset, kind) }
}

/// `cudaMemcpyFromSymbolAsync` (synchronous here).
///
/// # Safety
/// As `cudaMemcpyFromSymbol`.
#[no_mangle]
pub unsafe extern "C" fn cudaMemcpyFromSymbolAsync(
    dst: *mut c_void,
    symbol: *const c_void,
    n: usize,
    offset: usize,
    kind: c_int,
    _stream: *mut c_void,
) -> c_int {
    // SAFETY: as the caller's.
    unsafe { cudaMemcpyFromSymbol(dst, symbol, n, offset, kind) }
}

/// `cudaGetSymbolAddress`.
///
/// # Safety
/// `p` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaGetSymbolAddress(p: *mut *mut c_void, symbol: *const c_void) -> c_int {
    with(|rt| {
        let (a, _) = rt.symbol(symbol as u64)?;
        // SAFETY: by the caller's contract.
        unsafe { put(p, a as *mut c_void) }
    })
}

/// `cudaGetSymbolSize`.
///
/// # Safety
/// `p` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaGetSymbolSize(p: *mut usize, symbol: *const c_void) -> c_int {
    with(|rt| {
        let (_, n) = rt.symbol(symbol as u64)?;
        // SAFETY: by the caller's contract.
        unsafe { put(p, n as usize) }
    })
}
