//! Changing graphs after they are built: a kernel node's parameters in a
//! graph (`cudaGraphKernelNodeGetParams`/`SetParams`), a node of an
//! executable graph (`cudaGraphExec*NodeSetParams`, `*SetEvent`), and a
//! whole executable graph from another graph (`cudaGraphExecUpdate`, CUDA
//! 12's signature, which 13 keeps). `crate::graph` holds the state and
//! the rules ([`changeable`]: what CUDA lets an executable graph's node
//! become); a refused change is `cudaErrorInvalidValue`, or for
//! `cudaGraphExecUpdate` `cudaErrorGraphExecUpdateFailure` with its
//! `cudaGraphExecUpdateResultInfo`, and leaves the graph as it was.
//!
//! Signatures are CUDA 13's (`cuda_runtime_api.h`, `driver_types.h`).
//! The `*SetEvent` pair shares its signature and body
//! (`set_event_entries!`).

use crate::abi::{put, with};
use crate::abi_graph::MemsetParams;
use crate::abi_graph::{host_node, kernel_node, memset_node, HostNodeParams, KernelNodeParams};
use crate::err;
use crate::graph::{changeable, Memset, Node};
use crate::runtime::{Fail, Place, Res, Runtime};
use std::ffi::{c_int, c_void};

/// Node `n` of executable graph `e` becomes `new`, where CUDA allows the
/// change ([`changeable`]); `what` names the call.
fn exec_set(rt: &mut Runtime, e: u64, n: u64, new: Node, what: &str) -> Res<()> {
    let old = rt.graphs.exec_node_mut(e, n)?.clone();
    if std::mem::discriminant(&old) != std::mem::discriminant(&new) {
        return Err(Fail::said(
            err::INVALID_VALUE,
            format!("{what}: the node is of another kind"),
        ));
    }
    let rt_ref: &Runtime = rt;
    let on_device = |a: u64| rt_ref.place(a) == Place::Device;
    if let Err(result) = changeable(&old, &new, &on_device) {
        return Err(Fail::said(
            err::INVALID_VALUE,
            format!("{what}: not a change CUDA allows (cudaGraphExecUpdateResult {result})"),
        ));
    }
    *rt.graphs.exec_node_mut(e, n)? = new;
    Ok(())
}

/// Whether `node` is a kernel node launched cooperatively; refused where
/// it is no kernel node.
fn kernel_kind(node: &Node, what: &str) -> Res<bool> {
    match node {
        Node::Kernel { cooperative, .. } => Ok(*cooperative),
        _ => Err(Fail::said(
            err::INVALID_VALUE,
            format!("{what}: not a kernel node"),
        )),
    }
}

/// `cudaGraphKernelNodeGetParams`: the node's kernel, shape and
/// arguments; `kernelParams` points to a pointer per parameter into a
/// copy of the node's arguments, valid until the node changes.
///
/// # Safety
/// `p` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphKernelNodeGetParams(
    node: *mut c_void,
    p: *mut KernelNodeParams,
) -> c_int {
    with(|rt| {
        let Node::Kernel {
            stub,
            grid,
            block,
            shared,
            params,
            ..
        } = rt.graphs.node_mut(node as u64)?.clone()
        else {
            return Err(Fail::said(
                err::INVALID_VALUE,
                "cudaGraphKernelNodeGetParams: not a kernel node",
            ));
        };
        let offsets: Vec<u64> = rt.params(stub)?.iter().map(|s| s.offset).collect();
        let args = rt.graphs.args_view(node as u64, &params, &offsets);
        let shared = u32::try_from(shared).map_err(|_| Fail::code(err::INVALID_VALUE))?;
        let out = KernelNodeParams {
            func: stub as *const c_void,
            grid: dim3(grid),
            block: dim3(block),
            shared,
            args: args as *mut *mut c_void,
            extra: std::ptr::null_mut(),
        };
        // SAFETY: by the caller's contract.
        unsafe { put(p, out) }
    })
}

fn dim3(d: [u32; 3]) -> crate::abi::Dim3 {
    crate::abi::Dim3 {
        x: d[0],
        y: d[1],
        z: d[2],
    }
}

/// `cudaGraphKernelNodeSetParams`: the graph's node takes new
/// parameters, its arguments read now; executable graphs made from it
/// before keep theirs.
///
/// # Safety
/// `p` is null or points to valid parameters whose `args` hold a pointer
/// per kernel parameter.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphKernelNodeSetParams(
    node: *mut c_void,
    p: *const KernelNodeParams,
) -> c_int {
    with(|rt| {
        let what = "cudaGraphKernelNodeSetParams";
        let coop = kernel_kind(rt.graphs.node_mut(node as u64)?, what)?;
        // SAFETY: as the caller's.
        let new = unsafe { kernel_node(rt, p, coop)? };
        *rt.graphs.node_mut(node as u64)? = new;
        Ok(())
    })
}

/// `cudaGraphExecKernelNodeSetParams`: the kernel (another may be
/// named), its shape and arguments, read now; a cooperative node stays
/// one.
///
/// # Safety
/// As `cudaGraphKernelNodeSetParams`.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphExecKernelNodeSetParams(
    e: *mut c_void,
    node: *mut c_void,
    p: *const KernelNodeParams,
) -> c_int {
    with(|rt| {
        let what = "cudaGraphExecKernelNodeSetParams";
        let coop = kernel_kind(rt.graphs.exec_node_mut(e as u64, node as u64)?, what)?;
        // SAFETY: as the caller's.
        let new = unsafe { kernel_node(rt, p, coop)? };
        exec_set(rt, e as u64, node as u64, new, what)
    })
}

/// `cudaGraphExecMemcpyNodeSetParams1D`: new pointers and count, each
/// pointer to the same kind of memory (device or host) as before.
#[no_mangle]
pub extern "C" fn cudaGraphExecMemcpyNodeSetParams1D(
    e: *mut c_void,
    node: *mut c_void,
    dst: *mut c_void,
    src: *const c_void,
    count: usize,
    kind: c_int,
) -> c_int {
    with(|rt| {
        let what = "cudaGraphExecMemcpyNodeSetParams1D";
        if count == 0 {
            return Err(Fail::said(
                err::INVALID_VALUE,
                format!("{what}: a copy of 0 bytes"),
            ));
        }
        let new = Node::Copy {
            dst: dst as u64,
            src: src as u64,
            n: count,
            kind,
        };
        exec_set(rt, e as u64, node as u64, new, what)
    })
}

/// `cudaGraphExecMemsetNodeSetParams`: a new address and value; a 1D
/// memset may change its width and element size too, a 2D one neither.
///
/// # Safety
/// `p` is null or points to valid parameters.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphExecMemsetNodeSetParams(
    e: *mut c_void,
    node: *mut c_void,
    p: *const MemsetParams,
) -> c_int {
    with(|rt| {
        let what = "cudaGraphExecMemsetNodeSetParams";
        // SAFETY: as the caller's.
        let new = unsafe { memset_node(p)? };
        if let Node::Set(Memset { width: 0, .. } | Memset { rows: 0, .. }) = new {
            return Err(Fail::said(
                err::INVALID_VALUE,
                format!("{what}: a memset of 0 bytes"),
            ));
        }
        exec_set(rt, e as u64, node as u64, new, what)
    })
}

/// `cudaGraphExecHostNodeSetParams`: another function or data.
///
/// # Safety
/// `p` is null or points to valid parameters whose function takes their
/// data.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphExecHostNodeSetParams(
    e: *mut c_void,
    node: *mut c_void,
    p: *const HostNodeParams,
) -> c_int {
    with(|rt| {
        // SAFETY: as the caller's.
        let new = unsafe { host_node(p)? };
        exec_set(
            rt,
            e as u64,
            node as u64,
            new,
            "cudaGraphExecHostNodeSetParams",
        )
    })
}

/// Defines `cudaGraphExecEvent{Record,Wait}NodeSetEvent`: an event node
/// of executable graph `e` set to event `ev` (`$make` the node's kind).
macro_rules! set_event_entries {
    ($($(#[$doc:meta])* pub extern "C" fn $name:ident(..) => $make:path;)+) => {
        $(
            $(#[$doc])*
            #[no_mangle]
            pub extern "C" fn $name(e: *mut c_void, node: *mut c_void, ev: *mut c_void) -> c_int {
                with(|rt| {
                    rt.event_check(ev as u64)?;
                    exec_set(rt, e as u64, node as u64, $make(ev as u64), stringify!($name))
                })
            }
        )+
    };
}

set_event_entries! {
    /// `cudaGraphExecEventRecordNodeSetEvent`.
    pub extern "C" fn cudaGraphExecEventRecordNodeSetEvent(..) => Node::EventRecord;
    /// `cudaGraphExecEventWaitNodeSetEvent`.
    pub extern "C" fn cudaGraphExecEventWaitNodeSetEvent(..) => Node::EventWait;
}

/// `cudaGraphExecUpdateResultInfo`.
#[repr(C)]
pub struct UpdateResultInfo {
    result: c_int,
    error_node: *mut c_void,
    error_from_node: *mut c_void,
}

/// `cudaGraphExecUpdate`: executable graph `e` takes graph `g`'s node
/// parameters, where `g` has the same nodes, kinds and edges and each
/// change is one CUDA allows; else `cudaErrorGraphExecUpdateFailure`,
/// the reason in `*info`, and `e` as it was.
///
/// # Safety
/// `info` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphExecUpdate(
    e: *mut c_void,
    g: *mut c_void,
    info: *mut UpdateResultInfo,
) -> c_int {
    with(|rt| {
        if info.is_null() {
            return Err(Fail::code(err::INVALID_VALUE));
        }
        // The rules ask where copies' memory lies, so the graphs are
        // taken out of the runtime while it answers.
        let mut graphs = std::mem::take(&mut rt.graphs);
        let r = graphs.update(e as u64, g as u64, |a| rt.place(a) == Place::Device);
        rt.graphs = graphs;
        let (out, code) = match r? {
            Ok(()) => ((crate::gen::layout::cudaGraphExecUpdateSuccess, 0, 0), None),
            Err(why) => (
                (why.result, why.node, why.from),
                Some(err::GRAPH_EXEC_UPDATE_FAILURE),
            ),
        };
        let v = UpdateResultInfo {
            result: out.0,
            error_node: out.1 as *mut c_void,
            error_from_node: out.2 as *mut c_void,
        };
        // SAFETY: non-null, valid by the caller's contract.
        unsafe { put(info, v)? };
        match code {
            Some(c) => Err(Fail::said(
                c,
                format!(
                    "cudaGraphExecUpdate: the graph differs from the executable one \
                     (cudaGraphExecUpdateResult {})",
                    out.0
                ),
            )),
            None => Ok(()),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::layout as l;
    use std::mem::{offset_of, size_of};

    /// The parameter structs as CUDA 13's headers lay them out.
    #[test]
    fn layouts_are_cudas() {
        assert_eq!(size_of::<KernelNodeParams>(), l::KNP_SIZE);
        assert_eq!(offset_of!(KernelNodeParams, args), l::KNP_KERNEL_PARAMS);
        assert_eq!(offset_of!(KernelNodeParams, extra), l::KNP_EXTRA);
        assert_eq!(size_of::<MemsetParams>(), l::MSP_SIZE);
        assert_eq!(offset_of!(MemsetParams, height), l::MSP_HEIGHT);
        assert_eq!(size_of::<HostNodeParams>(), l::HNP_SIZE);
        assert_eq!(size_of::<UpdateResultInfo>(), l::GEUR_SIZE);
        assert_eq!(offset_of!(UpdateResultInfo, error_node), l::GEUR_ERROR_NODE);
        assert_eq!(
            offset_of!(UpdateResultInfo, error_from_node),
            l::GEUR_ERROR_FROM_NODE
        );
    }
}
