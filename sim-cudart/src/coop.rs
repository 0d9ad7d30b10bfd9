//! Cooperative launches (`cudaLaunchCooperativeKernel`): the whole grid
//! must be resident at once, and its blocks find the grid workspace that
//! cooperative groups' `this_grid().sync()` counts arrivals in.
//!
//! CUDA's runtime gives the workspace's address in `%envreg1` (high half)
//! and `%envreg2` (low half): `cooperative_groups/details/driver_abi.h`
//! reads it there as a `grid_workspace { unsigned wsSize; unsigned barrier; }`,
//! traps where it is null (a kernel that syncs its grid, launched
//! otherwise), and `sync_grids` adds to `barrier` with
//! `atom.add.release.gpu` and spins on `ld.acquire.gpu` until the top bit
//! flips. Nothing reads `wsSize`; here the workspace is 8 zeroed bytes of
//! device memory, held for the launch alone.

use crate::err;
use crate::runtime::{CallConfig, Fail, Res, Runtime};

/// Bytes of the grid workspace: `grid_workspace`'s two `unsigned`s.
pub const WORKSPACE_BYTES: u64 = 8;

/// The environment registers that hand a kernel the workspace at `addr`.
pub fn workspace_envreg(addr: u64) -> [u32; 32] {
    let mut e = [0; 32];
    e[1] = (addr >> 32) as u32;
    e[2] = addr as u32;
    e
}

/// Runs the kernel whose stub is at `stub` as a cooperative launch:
/// refused with `cudaErrorCooperativeLaunchTooLarge` where its blocks
/// outnumber what the SMs hold at once (the blocks a SM holds as
/// `cudaOccupancyMaxActiveBlocksPerMultiprocessor` counts them, times the
/// SMs), else run with a zeroed workspace, freed after.
pub fn launch(rt: &mut Runtime, stub: u64, c: &CallConfig, params: &[u8]) -> Res<()> {
    let threads: u64 = c.block.iter().map(|&d| u64::from(d)).product();
    if !(1..=1024).contains(&threads) {
        // Refused as any launch of that shape is.
        return rt.launch(stub, c, params);
    }
    let shared = usize::try_from(c.shared).map_err(|_| Fail::code(err::INVALID_CONFIGURATION))?;
    let per_sm = occupancy(rt, stub, threads as i32, shared)?;
    let sms = rt.facts()?.sms;
    let blocks: u64 = c.grid.iter().map(|&d| u64::from(d)).product();
    let most = u64::try_from(per_sm).unwrap_or(0) * u64::try_from(sms).unwrap_or(0);
    if blocks > most {
        return Err(Fail::said(
            err::COOPERATIVE_LAUNCH_TOO_LARGE,
            format!(
                "cudaLaunchCooperativeKernel: {blocks} blocks, but {sms} SMs hold at most \
                 {per_sm} each of {threads} threads and {shared} bytes of dynamic shared memory"
            ),
        ));
    }
    // Captured, the workspace is made when the graph's node runs.
    if rt.capture(stub, c, params, true) {
        return Ok(());
    }
    let ws = rt.malloc(WORKSPACE_BYTES)?;
    let r = rt.launch_env(stub, c, params, workspace_envreg(ws));
    // A kernel error leaves the device broken, the workspace with it.
    r?;
    rt.free(ws)
}

/// Blocks of `threads` threads and `shared` dynamic bytes an SM holds
/// (`cudaOccupancyMaxActiveBlocksPerMultiprocessor`, and the residency
/// check of a cooperative launch).
pub fn occupancy(rt: &mut Runtime, func: u64, threads: i32, shared: usize) -> Res<i32> {
    let f = rt.func_info(func)?;
    let facts = rt.facts()?;
    if threads <= 0 {
        return Err(Fail::code(err::INVALID_VALUE));
    }
    let warps = (threads as i64 + 31) / 32;
    let by_threads = i64::from(facts.threads_per_sm) / (warps * 32);
    let per_block = f.static_shared + shared as u64 + crate::props::RESERVED_SHARED_PER_BLOCK;
    let by_shared = (facts.shared_per_sm / per_block.max(1)) as i64;
    // The register file, where the machine code says what ptxas
    // allocated (each warp's share rounded up to the allocation unit), as
    // the launch itself is held (`sim_kernel::timing::blocks_per_sm`).
    let by_regs = match rt.registers_of(func) {
        Some(r) if r > 0 => {
            let unit = i64::from(facts.reg_unit.max(1));
            let per_warp = (i64::from(r) * 32 + unit - 1) / unit * unit;
            i64::from(facts.regs_per_sm) / (per_warp * warps)
        }
        _ => i64::MAX,
    };
    let n = by_threads
        .min(by_shared)
        .min(by_regs)
        .min(i64::from(facts.blocks_per_sm));
    Ok(n.max(0) as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The address as cooperative groups joins it back:
    /// `(envreg1 << 32) | envreg2`; every other register 0.
    #[test]
    fn workspace_in_envreg1_and_2() {
        let e = workspace_envreg(0x0000_7f00_dead_be00);
        assert_eq!((u64::from(e[1]) << 32) | u64::from(e[2]), 0x7f00_dead_be00);
        assert_eq!((e[1], e[2]), (0x7f00, 0xdead_be00));
        assert!(e
            .iter()
            .enumerate()
            .all(|(i, &v)| v == 0 || i == 1 || i == 2));
    }
}
