//! `cp.async`'s semantics: each lane copies `cp-size` bytes from its global
//! source to its shared destination, the bytes past `src-size` (all of
//! them where `ignore-src` holds) written as zeros. The copy completes as
//! it issues: a program reads the destination only after a wait, and sees
//! the same bytes (see [`crate::async_inst`]).

use super::lanes::{pred_src_bits, read_operand};
use super::memory::{Access, Accesses, FaultKind, MemFault, Memory};
use super::{ExecCtx, WarpRegs, WARP_SIZE};
use crate::inst::{AddrBase, Address, AsyncInst, Space};

/// An async family statement as `execute_mem_into` hands it to its entry
/// (`copy` here, `bulk::copy`, `mbarrier::run`), the guard prologue done:
/// its async operation, the context, the registers (those it names exist),
/// the lanes of the active mask whose guard holds (`exec`), the memory, and
/// the place for the addresses timing charges (`out`).
pub(super) struct AsyncCall<'a>(
    pub(super) &'a AsyncInst,
    pub(super) &'a ExecCtx,
    pub(super) &'a mut WarpRegs,
    pub(super) u32,
    pub(super) &'a mut dyn Memory,
    pub(super) &'a mut Accesses,
);

/// Runs copy `c.a` on the lanes of `c.exec`. `out` receives the global
/// source addresses, which timing treats as the copy's access. Lanes copy
/// in ascending order; the first fault (an address out of bounds or not a
/// multiple of `cp-size`) stops it.
pub(super) fn copy(c: AsyncCall<'_>) -> Result<bool, MemFault> {
    let AsyncCall(a, ctx, regs, exec, mem, out) = c;
    let size = u32::from(a.size);
    let fault = |kind, space, addr, lane| MemFault {
        kind,
        space,
        addr,
        bytes: size,
        lane,
    };
    let dst =
        addresses(&a.dst, Space::Shared, regs, mem).map_err(|k| fault(k, Space::Shared, 0, 0))?;
    let src =
        addresses(&a.src, Space::Global, regs, mem).map_err(|k| fault(k, Space::Global, 0, 0))?;
    let keep = match a.src_size {
        Some(o) => read_operand(o, 32, ctx, regs),
        None => [u64::from(size); WARP_SIZE],
    };
    let ignore = a.ignore_src.map(|p| pred_src_bits(p, regs));
    out.lanes = exec;
    out.bytes = size;
    out.space = Space::Global;
    for l in 0..WARP_SIZE {
        let lane = l as u32;
        if exec >> l & 1 == 0 {
            out.addrs[l] = 0;
            continue;
        }
        out.addrs[l] = src[l];
        for (space, addr) in [(Space::Shared, dst[l]), (Space::Global, src[l])] {
            if addr % u64::from(size) != 0 {
                return Err(fault(FaultKind::Misaligned, space, addr, lane));
            }
        }
        // `src-size` above `cp-size` is undefined (ptxas refuses an
        // immediate one); the copy reads at most `cp-size` bytes.
        let ignored = ignore.is_some_and(|m| m >> l & 1 != 0);
        let n = if ignored {
            0
        } else {
            keep[l].min(u64::from(size)) as u32
        };
        // Word by word (every address is a multiple of `cp-size`, at
        // least 4); the word `src-size` ends in, byte by byte.
        for k in (0..size).step_by(4) {
            let at = src[l] + u64::from(k);
            let load = |mem: &mut dyn Memory, at: u64, bytes: u32| {
                mem.load(Access::new(Space::Global, lane, at, bytes))
                    .map_err(|kind| fault(kind, Space::Global, at, lane))
            };
            let v = if k + 4 <= n {
                load(mem, at, 4)?
            } else {
                let mut v = 0;
                for b in k..n.max(k) {
                    v |= load(mem, src[l] + u64::from(b), 1)? << (8 * (b - k));
                }
                v
            };
            let at = dst[l] + u64::from(k);
            mem.store(Access::new(Space::Shared, lane, at, 4), v)
                .map_err(|kind| fault(kind, Space::Shared, at, lane))?;
        }
    }
    Ok(true)
}

/// Each lane's address in `space`: the base register at the space's
/// address width (or a variable's address), plus the offset.
pub(super) fn addresses(
    a: &Address,
    space: Space,
    regs: &WarpRegs,
    mem: &dyn Memory,
) -> Result<[u64; WARP_SIZE], FaultKind> {
    let off = a.offset as u64;
    Ok(match a.base {
        AddrBase::Reg(r) => {
            let mask = super::width_mask(space.addr_bits());
            (*regs.get(r)).map(|v| (v & mask).wrapping_add(off))
        }
        AddrBase::Var(id) => [mem.var(id)?.1.wrapping_add(off); WARP_SIZE],
        AddrBase::Abs => [off; WARP_SIZE],
    })
}
