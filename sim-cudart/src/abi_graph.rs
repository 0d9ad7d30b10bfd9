//! The C entry points of CUDA graphs and stream capture (`crate::graph`
//! keeps the state): capture, the node-by-node API for kernels, copies,
//! memsets, host functions, empty and child-graph nodes, instantiation and
//! launch. A launched graph's nodes run one after another, each as the
//! call it stands for would.
//!
//! Signatures are CUDA 13's (`cuda_runtime_api.h`, `driver_types.h` of
//! the nvidia-cuda-runtime wheel). The `cudaGraphAdd*Node` entry points
//! share one parameter list (`out`, `g`, `deps`, `n`, then the node's
//! own), written once in `add_node_entries!`.

use crate::abi::{c_aliases, copy, memset, pack_params, print_out, put, with, Dim3};
use crate::err;
use crate::graph::{HostFn, Memset, Node};
use crate::runtime::{CallConfig, Fail, Place, Res, Runtime};
use std::ffi::{c_int, c_uint, c_ulonglong, c_void};

// ---- capture ----

/// `cudaStreamBeginCapture`. Every mode captures alike here: work runs
/// only on this thread, in the order it is made.
#[no_mangle]
pub extern "C" fn cudaStreamBeginCapture(s: *mut c_void, _mode: c_int) -> c_int {
    with(|rt| {
        rt.alive()?;
        rt.graphs.begin(s as u64)
    })
}

/// `cudaStreamEndCapture`: the graph the stream recorded.
///
/// # Safety
/// `g` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaStreamEndCapture(s: *mut c_void, g: *mut *mut c_void) -> c_int {
    with(|rt| {
        let graph = rt.graphs.end(s as u64)?;
        // SAFETY: by the caller's contract.
        unsafe { put(g, graph as *mut c_void) }
    })
}

/// `cudaStreamIsCapturing`.
///
/// # Safety
/// `status` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaStreamIsCapturing(s: *mut c_void, status: *mut c_int) -> c_int {
    with(|rt| {
        let (st, _, _) = rt.graphs.info(s as u64);
        // SAFETY: by the caller's contract.
        unsafe { put(status, st) }
    })
}

/// `cudaStreamGetCaptureInfo`: the status, the capture's id and its
/// graph; no dependency list (each node follows the one before).
///
/// CUDA 12's signature has no `edges` (its sixth parameter is `count`),
/// so CUDA 12's library writes a null list and count through the sixth
/// and leaves the seventh alone; both are 8 bytes of zero.
///
/// # Safety
/// Each pointer is null or valid for a write of its type.
#[no_mangle]
pub unsafe extern "C" fn cudaStreamGetCaptureInfo(
    s: *mut c_void,
    status: *mut c_int,
    id: *mut c_ulonglong,
    graph: *mut *mut c_void,
    deps: *mut *const c_void,
    edges: *mut *const c_void,
    count: *mut usize,
) -> c_int {
    with(|rt| {
        let (st, i, g) = rt.graphs.info(s as u64);
        // SAFETY: by the caller's contract; null pointers are skipped.
        unsafe {
            put(status, st)?;
            maybe_put(id, i);
            maybe_put(graph, g as *mut c_void);
            maybe_put(deps, std::ptr::null());
            maybe_put(edges, std::ptr::null());
            if !cfg!(cuda12) {
                maybe_put(count, 0);
            }
        }
        Ok(())
    })
}

/// `cudaThreadExchangeStreamCaptureMode`: the mode is kept and given
/// back; it changes nothing here (work runs on the calling thread only).
///
/// # Safety
/// `mode` is valid for a read and a write.
#[no_mangle]
pub unsafe extern "C" fn cudaThreadExchangeStreamCaptureMode(mode: *mut c_int) -> c_int {
    with(|rt| {
        if mode.is_null() {
            return Err(Fail::code(err::INVALID_VALUE));
        }
        // SAFETY: non-null, valid by the caller's contract.
        unsafe { *mode = rt.graphs.exchange_mode(*mode) };
        Ok(())
    })
}

// ---- graphs ----

/// `cudaGraphCreate`: an empty graph.
///
/// # Safety
/// `g` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphCreate(g: *mut *mut c_void, _flags: c_uint) -> c_int {
    with(|rt| {
        let h = rt.graphs.create();
        // SAFETY: by the caller's contract.
        unsafe { put(g, h as *mut c_void) }
    })
}

/// `cudaGraphDestroy`.
#[no_mangle]
pub extern "C" fn cudaGraphDestroy(g: *mut c_void) -> c_int {
    with(|rt| rt.graphs.destroy(g as u64))
}

/// `cudaGraphGetNodes`: with `nodes` null, how many there are; else up
/// to `*count` of them, and `*count` set to how many were written.
///
/// # Safety
/// `count` is valid for a read and a write; `nodes` is null or valid for
/// `*count` writes.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphGetNodes(
    g: *mut c_void,
    nodes: *mut *mut c_void,
    count: *mut usize,
) -> c_int {
    with(|rt| {
        let all = rt.graphs.nodes(g as u64)?;
        if count.is_null() {
            return Err(Fail::code(err::INVALID_VALUE));
        }
        // SAFETY: non-null, valid by the caller's contract.
        let room = unsafe { *count };
        let n = if nodes.is_null() {
            all.len()
        } else {
            room.min(all.len())
        };
        for (i, h) in all.iter().take(n).enumerate() {
            if !nodes.is_null() {
                // SAFETY: `i < *count`, within the caller's array.
                unsafe { nodes.add(i).write(*h as *mut c_void) };
            }
        }
        // SAFETY: as above.
        unsafe { *count = n };
        Ok(())
    })
}

/// Adds `node` to `g` after `n` dependencies at `deps`, writing its handle.
///
/// # Safety
/// `out` is valid for a write; `deps` for `n` reads (or null with `n` 0).
unsafe fn add_node(
    rt: &mut Runtime,
    out: *mut *mut c_void,
    g: *mut c_void,
    deps: *const *mut c_void,
    n: usize,
    node: Node,
) -> Res<()> {
    let deps: Vec<u64> = if n == 0 {
        Vec::new()
    } else if deps.is_null() {
        return Err(Fail::code(err::INVALID_VALUE));
    } else {
        // SAFETY: by the caller's contract.
        unsafe { std::slice::from_raw_parts(deps, n) }
            .iter()
            .map(|&d| d as u64)
            .collect()
    };
    let h = rt.graphs.add(g as u64, &deps, node)?;
    // SAFETY: by the caller's contract.
    unsafe { put(out, h as *mut c_void) }
}

/// `cudaKernelNodeParams`.
#[repr(C)]
pub struct KernelNodeParams {
    pub(crate) func: *const c_void,
    pub(crate) grid: Dim3,
    pub(crate) block: Dim3,
    pub(crate) shared: c_uint,
    pub(crate) args: *mut *mut c_void,
    pub(crate) extra: *mut *mut c_void,
}

/// The kernel node `p` describes, its arguments read now (as CUDA reads
/// them when a node is added or set); `cooperative` as the node was.
///
/// # Safety
/// `p` is null or points to valid parameters whose `args` hold a pointer
/// per kernel parameter.
pub(crate) unsafe fn kernel_node(
    rt: &mut Runtime,
    p: *const KernelNodeParams,
    cooperative: bool,
) -> Res<Node> {
    // SAFETY: null or valid, by the caller's contract.
    let Some(p) = (unsafe { p.as_ref() }) else {
        return Err(Fail::code(err::INVALID_VALUE));
    };
    if !p.extra.is_null() {
        return Err(Fail::said(
            err::NOT_SUPPORTED,
            "kernel node parameters: arguments in the `extra` form",
        ));
    }
    // SAFETY: by the caller's contract.
    let params = unsafe { pack_params(rt, p.func, p.args)? };
    Ok(Node::Kernel {
        stub: p.func as u64,
        grid: p.grid.arr(),
        block: p.block.arr(),
        shared: u64::from(p.shared),
        params,
        cooperative,
    })
}

/// `cudaMemsetParams`.
#[repr(C)]
pub struct MemsetParams {
    pub(crate) dst: *mut c_void,
    pub(crate) pitch: usize,
    pub(crate) value: c_uint,
    pub(crate) element: c_uint,
    pub(crate) width: usize,
    pub(crate) height: usize,
}

/// The memset node `p` describes: rows of elements of 1, 2 or 4 bytes.
///
/// # Safety
/// `p` is null or points to valid parameters.
pub(crate) unsafe fn memset_node(p: *const MemsetParams) -> Res<Node> {
    // SAFETY: null or valid, by the caller's contract.
    let Some(p) = (unsafe { p.as_ref() }) else {
        return Err(Fail::code(err::INVALID_VALUE));
    };
    let row = p.width as u64 * u64::from(p.element);
    if ![1, 2, 4].contains(&p.element) || (p.height > 1 && (p.pitch as u64) < row) {
        return Err(Fail::code(err::INVALID_VALUE));
    }
    Ok(Node::Set(Memset {
        dst: p.dst as u64,
        value: p.value,
        element: p.element,
        width: p.width as u64,
        rows: p.height as u64,
        pitch: p.pitch as u64,
    }))
}

/// `cudaHostNodeParams`.
#[repr(C)]
pub struct HostNodeParams {
    pub(crate) f: Option<HostFn>,
    pub(crate) data: *mut c_void,
}

/// The host node `p` describes (its function not null).
///
/// # Safety
/// `p` is null or points to valid parameters.
pub(crate) unsafe fn host_node(p: *const HostNodeParams) -> Res<Node> {
    // SAFETY: null or valid, by the caller's contract.
    let Some(HostNodeParams { f: Some(f), data }) = (unsafe { p.as_ref() }) else {
        return Err(Fail::code(err::INVALID_VALUE));
    };
    Ok(Node::Host {
        f: *f,
        data: *data as u64,
    })
}

/// Defines `cudaGraphAdd*Node` entry points: each takes `out`, `g`, `deps`
/// and `n` (written `..`: where the new node's handle goes, its graph and
/// dependencies), then its own parameters, from which `$node` (a
/// `Res<Node>`, the runtime `$rt`) makes the node added.
macro_rules! add_node_entries {
    ($(
        $(#[$attr:meta])*
        pub unsafe extern "C" fn $name:ident(.. $(, $p:ident: $t:ty)* $(,)?) => |$rt:ident| $node:expr;
    )+) => {
        $(
            $(#[$attr])*
            #[no_mangle]
            pub unsafe extern "C" fn $name(
                out: *mut *mut c_void,
                g: *mut c_void,
                deps: *const *mut c_void,
                n: usize,
                $($p: $t),*
            ) -> c_int {
                with(|$rt| {
                    let node: Node = $node?;
                    // SAFETY: as the caller's.
                    unsafe { add_node($rt, out, g, deps, n, node) }
                })
            }
        )+
    };
}

add_node_entries! {
    /// `cudaGraphAddKernelNode`: the arguments are read now, as CUDA reads
    /// them when the node is added.
    ///
    /// # Safety
    /// As `cudaGraphAddEmptyNode`; `p` points to valid parameters whose
    /// `args` hold a pointer per kernel parameter.
    pub unsafe extern "C" fn cudaGraphAddKernelNode(.., p: *const KernelNodeParams) => |rt|
        // SAFETY: as the caller's.
        unsafe { kernel_node(rt, p, false) };

    /// `cudaGraphAddMemcpyNode1D`.
    ///
    /// # Safety
    /// As `cudaGraphAddEmptyNode`; the copy's pointers are read when the
    /// graph runs.
    #[allow(clippy::too_many_arguments)]
    pub unsafe extern "C" fn cudaGraphAddMemcpyNode1D(
        ..,
        dst: *mut c_void,
        src: *const c_void,
        count: usize,
        kind: c_int
    ) => |rt| Res::Ok(Node::Copy {
        dst: dst as u64,
        src: src as u64,
        n: count,
        kind,
    });

    /// `cudaGraphAddMemsetNode`: rows of elements of 1, 2 or 4 bytes.
    ///
    /// # Safety
    /// As `cudaGraphAddEmptyNode`; `p` points to valid parameters.
    pub unsafe extern "C" fn cudaGraphAddMemsetNode(.., p: *const MemsetParams) => |rt|
        // SAFETY: as the caller's.
        unsafe { memset_node(p) };

    /// `cudaGraphAddHostNode`.
    ///
    /// # Safety
    /// As `cudaGraphAddEmptyNode`; `p` points to valid parameters whose
    /// function takes their data.
    pub unsafe extern "C" fn cudaGraphAddHostNode(.., p: *const HostNodeParams) => |rt|
        // SAFETY: as the caller's.
        unsafe { host_node(p) };

    /// `cudaGraphAddEmptyNode`: a join point.
    ///
    /// # Safety
    /// `out` is valid for a write; `deps` for `n` reads (or null with `n` 0).
    pub unsafe extern "C" fn cudaGraphAddEmptyNode(..) => |rt| Res::Ok(Node::Empty);

    /// `cudaGraphAddEventRecordNode`: the event is recorded when the node runs.
    ///
    /// # Safety
    /// As `cudaGraphAddEmptyNode`.
    pub unsafe extern "C" fn cudaGraphAddEventRecordNode(.., e: *mut c_void) => |rt|
        rt.event_check(e as u64).map(|()| Node::EventRecord(e as u64));

    /// `cudaGraphAddEventWaitNode`: a wait on the event when the node runs.
    ///
    /// # Safety
    /// As `cudaGraphAddEmptyNode`.
    pub unsafe extern "C" fn cudaGraphAddEventWaitNode(.., e: *mut c_void) => |rt|
        rt.event_check(e as u64).map(|()| Node::EventWait(e as u64));

    /// `cudaGraphAddChildGraphNode`: a copy of `child`'s nodes as they are now.
    ///
    /// # Safety
    /// As `cudaGraphAddEmptyNode`.
    pub unsafe extern "C" fn cudaGraphAddChildGraphNode(.., child: *mut c_void) => |rt|
        rt.graphs.nodes_of(child as u64).map(|c| Node::Child(c.to_vec()));
}

// ---- executable graphs ----

// Each instantiates graph `g` into `*e` (`e` valid for a write); CUDA 12
// and 13 both take the flags as the third parameter.
c_aliases! {
    (e: *mut *mut c_void, g: *mut c_void, _flags: c_ulonglong) -> c_int {
        with(|rt| {
            let h = rt.graphs.instantiate(g as u64)?;
            // SAFETY: by the caller's contract.
            unsafe { put(e, h as *mut c_void) }
        })
    }
    /// `cudaGraphInstantiate`.
    pub unsafe extern "C" fn cudaGraphInstantiate(..);
    /// `cudaGraphInstantiateWithFlags`.
    pub unsafe extern "C" fn cudaGraphInstantiateWithFlags(..);
}

/// `cudaGraphExecDestroy`.
#[no_mangle]
pub extern "C" fn cudaGraphExecDestroy(e: *mut c_void) -> c_int {
    with(|rt| rt.graphs.exec_destroy(e as u64))
}

/// `cudaGraphUpload`: nothing to upload; the handle is checked.
#[no_mangle]
pub extern "C" fn cudaGraphUpload(e: *mut c_void, _s: *mut c_void) -> c_int {
    with(|rt| rt.graphs.exec(e as u64).map(|_| ()))
}

/// `cudaGraphLaunch`: the graph's nodes run now, in order, in stream `s`
/// (or are recorded, where `s` is capturing).
#[no_mangle]
pub extern "C" fn cudaGraphLaunch(e: *mut c_void, s: *mut c_void) -> c_int {
    let mut nodes = Vec::new();
    let code = with(|rt| {
        rt.alive()?;
        let all = rt.graphs.exec(e as u64)?.to_vec();
        if !rt.graphs.record(s as u64, Node::Child(all.clone())) {
            nodes = all;
        }
        Ok(())
    });
    if code != err::SUCCESS {
        return code;
    }
    run(&nodes, s as u64)
}

/// Runs `nodes` in order in stream `s`; the first failure's code.
fn run(nodes: &[Node], s: u64) -> c_int {
    for node in nodes {
        let code = match node {
            Node::Kernel {
                stub,
                grid,
                block,
                shared,
                params,
                cooperative,
            } => with(|rt| {
                let c = CallConfig {
                    grid: *grid,
                    block: *block,
                    shared: *shared,
                    stream: s,
                };
                let r = if *cooperative {
                    crate::coop::launch(rt, *stub, &c, params)
                } else {
                    rt.launch(*stub, &c, params)
                };
                print_out(&rt.take_printed());
                r
            }),
            &Node::Copy { dst, src, n, kind } => {
                // SAFETY: the program's pointers, as it gave them to the
                // copy it captured or added; valid while the graph may run,
                // as CUDA requires.
                with(|rt| unsafe { copy(rt, dst as *mut c_void, src as *const c_void, n, kind) })
            }
            Node::Set(m) => with(|rt| set(rt, m)),
            &Node::Host { f, data } => {
                let code = with(|rt| rt.alive());
                if code == err::SUCCESS {
                    // SAFETY: the program's function with its own data,
                    // called outside the runtime's lock (it may call it).
                    unsafe { f(data as *mut c_void) };
                }
                code
            }
            Node::Empty => err::SUCCESS,
            &Node::EventRecord(e) => with(|rt| rt.event_record(e, s)),
            // Every earlier piece of work has run: the wait is over.
            &Node::EventWait(e) => with(|rt| rt.event_check(e)),
            Node::Child(inner) => run(inner, s),
        };
        if code != err::SUCCESS {
            return code;
        }
    }
    err::SUCCESS
}

/// A memset node's rows: bytes through `memset`, wider elements written
/// whole into device memory.
fn set(rt: &mut Runtime, m: &Memset) -> Res<()> {
    let &Memset {
        dst,
        value,
        element,
        width,
        rows,
        pitch,
    } = m;
    for r in 0..rows {
        let at = dst.wrapping_add(r * pitch);
        if element == 1 {
            memset(rt, at as *mut c_void, value as c_int, width as usize)?;
            continue;
        }
        if rt.place(at) != Place::Device {
            return Err(Fail::code(err::INVALID_VALUE));
        }
        // A row at a time in pieces of at most 64 KiB, whatever its width.
        let total = width.saturating_mul(u64::from(element));
        let one = &value.to_le_bytes()[..element as usize];
        let piece: Vec<u8> = one
            .iter()
            .copied()
            .cycle()
            .take(total.min(1 << 16) as usize)
            .collect();
        let mut done = 0;
        while done < total {
            let k = (total - done).min(piece.len() as u64);
            rt.write(at.wrapping_add(done), &piece[..k as usize])?;
            done += k;
        }
    }
    Ok(())
}

/// Writes `v` through `p` where `p` is not null.
///
/// # Safety
/// `p` is null or valid for a write of `T`.
unsafe fn maybe_put<T>(p: *mut T, v: T) {
    if !p.is_null() {
        // SAFETY: non-null, and valid by the caller's contract.
        unsafe { p.write_unaligned(v) };
    }
}
