//! `cudaLaunchKernelExC`: what `cudaLaunchKernelEx` (C, and the C++
//! template over `cudaLaunchConfig_t`) calls. The grid, block, dynamic
//! shared memory and stream come from the configuration; its attributes
//! choose how the kernel is launched ([`plan`]).
//!
//! Layouts are CUDA 13's `driver_types.h` (`struct cudaLaunchConfig_st`,
//! `cudaLaunchAttribute_st`; CUDA 12.9's are the same), held to the
//! generated offsets by a test.

use crate::abi::{c_aliases, pack_params, print_out, with, Dim3};
use crate::err;
use crate::gen::layout as l;
use crate::runtime::{CallConfig, Fail, Res};
use std::ffi::{c_int, c_uint, c_void};

/// `cudaLaunchConfig_t`.
#[repr(C)]
pub struct LaunchConfig {
    grid: Dim3,
    block: Dim3,
    shared: usize,
    stream: *mut c_void,
    attrs: *const LaunchAttribute,
    num_attrs: c_uint,
}

/// `cudaLaunchAttribute`: the id, 4 bytes of padding, and the 64-byte
/// `cudaLaunchAttributeValue` union (8-aligned: it holds pointers).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct LaunchAttribute {
    id: c_int,
    pad: [u8; 4],
    val: [u64; 8],
}

/// How a launch's attributes say it runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// `cudaLaunchAttributeCooperative` non-zero: as
    /// `cudaLaunchCooperativeKernel` (`crate::coop`).
    pub cooperative: bool,
    /// Events `cudaLaunchAttributeProgrammaticEvent` and
    /// `LaunchCompletionEvent` name: recorded when the launch has run
    /// (every block has begun and ended by then; launches are synchronous).
    pub events: Vec<u64>,
}

/// The `i`th 32-bit word of an attribute's value (little-endian).
fn word(val: &[u64; 8], i: usize) -> u32 {
    (val[i / 2] >> (32 * (i % 2))) as u32
}

/// What attributes `(id, value)` ask of a launch; clusters (not
/// simulated) other than 1x1x1 and unknown ids are refused.
pub fn plan(attrs: &[(i32, [u64; 8])]) -> Res<Plan> {
    let mut p = Plan::default();
    for (id, val) in attrs {
        match *id {
            l::cudaLaunchAttributeCooperative => p.cooperative = word(val, 0) != 0,
            l::cudaLaunchAttributeClusterDimension
            | l::cudaLaunchAttributePreferredClusterDimension => {
                let dims = [word(val, 0), word(val, 1), word(val, 2)];
                if dims.contains(&0) {
                    return Err(Fail::said(
                        err::INVALID_VALUE,
                        format!("cudaLaunchKernelEx: a cluster of {dims:?} blocks"),
                    ));
                }
                if dims != [1, 1, 1] {
                    return Err(Fail::said(
                        err::NOT_SUPPORTED,
                        format!(
                            "cudaLaunchKernelEx: thread block clusters ({dims:?}) are not \
                             simulated; only 1x1x1"
                        ),
                    ));
                }
            }
            // `{ cudaEvent_t event; int flags; ... }`: the event first.
            l::cudaLaunchAttributeProgrammaticEvent
            | l::cudaLaunchAttributeLaunchCompletionEvent => p.events.push(val[0]),
            l::cudaLaunchAttributeDeviceUpdatableKernelNode => {
                if word(val, 0) != 0 {
                    return Err(Fail::said(
                        err::NOT_SUPPORTED,
                        "cudaLaunchKernelEx: device-updatable kernel nodes are not simulated",
                    ));
                }
            }
            // Hints of placement, priority, caching and overlap: a
            // synchronous launch on the simulator has no use for them,
            // and CUDA lets the driver ignore each.
            l::cudaLaunchAttributeIgnore
            | l::cudaLaunchAttributeAccessPolicyWindow
            | l::cudaLaunchAttributeSynchronizationPolicy
            | l::cudaLaunchAttributeClusterSchedulingPolicyPreference
            | l::cudaLaunchAttributeProgrammaticStreamSerialization
            | l::cudaLaunchAttributePriority
            | l::cudaLaunchAttributeMemSyncDomainMap
            | l::cudaLaunchAttributeMemSyncDomain
            | l::cudaLaunchAttributePreferredSharedMemoryCarveout
            | l::cudaLaunchAttributeNvlinkUtilCentricScheduling => {}
            other => {
                return Err(Fail::said(
                    err::INVALID_VALUE,
                    format!("cudaLaunchKernelEx: unknown launch attribute {other}"),
                ))
            }
        }
    }
    Ok(p)
}

c_aliases! {
    (config: *const LaunchConfig, func: *const c_void, args: *mut *mut c_void) -> c_int {
        with(|rt| {
            // SAFETY: null or valid, by the caller's contract.
            let Some(cfg) = (unsafe { config.as_ref() }) else {
                return Err(Fail::code(err::INVALID_VALUE));
            };
            // SAFETY: as the caller's: `attrs` holds `num_attrs` entries.
            let attrs = unsafe { attributes(cfg)? };
            let p = plan(&attrs)?;
            // A bad event refuses the launch before it runs.
            p.events.iter().try_for_each(|&e| rt.event_check(e))?;
            let c = CallConfig {
                grid: cfg.grid.arr(),
                block: cfg.block.arr(),
                shared: cfg.shared as u64,
                stream: cfg.stream as u64,
            };
            // SAFETY: as the caller's.
            let params = unsafe { pack_params(rt, func, args)? };
            let r = if p.cooperative {
                crate::coop::launch(rt, func as u64, &c, &params)
            } else {
                rt.launch(func as u64, &c, &params)
            };
            print_out(&rt.take_printed());
            r?;
            p.events.iter().try_for_each(|&e| rt.event_record(e, c.stream))
        })
    }
    /// `cudaLaunchKernelExC`.
    pub unsafe extern "C" fn cudaLaunchKernelExC(..);
    /// `cudaLaunchKernelExC_ptsz` (per-thread default stream: the same here).
    pub unsafe extern "C" fn cudaLaunchKernelExC_ptsz(..);
}

/// A configuration's attributes, as `(id, value)`.
///
/// # Safety
/// `cfg.attrs` is valid for `cfg.num_attrs` reads, or the count is 0.
unsafe fn attributes(cfg: &LaunchConfig) -> Res<Vec<(i32, [u64; 8])>> {
    if cfg.num_attrs == 0 {
        return Ok(Vec::new());
    }
    if cfg.attrs.is_null() {
        return Err(Fail::said(
            err::INVALID_VALUE,
            "cudaLaunchKernelEx: numAttrs attributes at a null attrs",
        ));
    }
    // SAFETY: by the caller's contract.
    let all = unsafe { std::slice::from_raw_parts(cfg.attrs, cfg.num_attrs as usize) };
    Ok(all.iter().map(|a| (a.id, a.val)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// The structs as CUDA 13's headers lay them out (`gen::layout`).
    /// `abi_graph_exec`'s test has this shape for its own structs; each
    /// file checks the structs it defines (issue 27).
    #[test]
    fn layouts_are_cudas() {
        assert_eq!(size_of::<LaunchConfig>(), l::LCFG_SIZE);
        assert_eq!(offset_of!(LaunchConfig, grid), l::LCFG_GRID_DIM);
        assert_eq!(offset_of!(LaunchConfig, block), l::LCFG_BLOCK_DIM);
        assert_eq!(offset_of!(LaunchConfig, shared), l::LCFG_DYNAMIC_SMEM_BYTES);
        assert_eq!(offset_of!(LaunchConfig, stream), l::LCFG_STREAM);
        assert_eq!(offset_of!(LaunchConfig, attrs), l::LCFG_ATTRS);
        assert_eq!(offset_of!(LaunchConfig, num_attrs), l::LCFG_NUM_ATTRS);
        assert_eq!(size_of::<LaunchAttribute>(), l::LATTR_SIZE);
        assert_eq!(offset_of!(LaunchAttribute, id), l::LATTR_ID);
        assert_eq!(offset_of!(LaunchAttribute, val), l::LATTR_VAL);
        assert_eq!(size_of::<[u64; 8]>(), l::LATTR_VAL_SIZE);
    }

    fn val(words: &[u32]) -> [u64; 8] {
        let mut v = [0u64; 8];
        for (i, &w) in words.iter().enumerate() {
            v[i / 2] |= u64::from(w) << (32 * (i % 2));
        }
        v
    }

    #[test]
    fn cooperative_hints_and_events() {
        let p = plan(&[
            (l::cudaLaunchAttributePriority, val(&[3])),
            (l::cudaLaunchAttributeCooperative, val(&[1])),
            (l::cudaLaunchAttributeClusterDimension, val(&[1, 1, 1])),
            (
                l::cudaLaunchAttributeLaunchCompletionEvent,
                [0x5150, 0, 0, 0, 0, 0, 0, 0],
            ),
        ])
        .unwrap();
        assert_eq!(
            p,
            Plan {
                cooperative: true,
                events: vec![0x5150]
            }
        );
        // The last of a repeated attribute wins; 0 is not cooperative.
        let p = plan(&[
            (l::cudaLaunchAttributeCooperative, val(&[1])),
            (l::cudaLaunchAttributeCooperative, val(&[0])),
        ])
        .unwrap();
        assert!(!p.cooperative);
        assert_eq!(plan(&[]).unwrap(), Plan::default());
    }

    #[test]
    fn clusters_and_unknown_ids_are_refused() {
        let code = |attrs: &[(i32, [u64; 8])]| plan(attrs).unwrap_err().code;
        assert_eq!(
            code(&[(l::cudaLaunchAttributeClusterDimension, val(&[2, 1, 1]))]),
            err::NOT_SUPPORTED
        );
        assert_eq!(
            code(&[(l::cudaLaunchAttributeClusterDimension, val(&[1, 0, 1]))]),
            err::INVALID_VALUE
        );
        assert_eq!(
            code(&[(
                l::cudaLaunchAttributePreferredClusterDimension,
                val(&[1, 1, 4])
            )]),
            err::NOT_SUPPORTED
        );
        // 15 lies between CUDA 13's ids and is none of them.
        assert_eq!(code(&[(15, val(&[]))]), err::INVALID_VALUE);
        assert_eq!(code(&[(-1, val(&[]))]), err::INVALID_VALUE);
        assert_eq!(code(&[(17, val(&[]))]), err::INVALID_VALUE);
    }
}
