//! `cp.async.bulk`'s semantics: each lane that issues one copies `size`
//! bytes (a multiple of 16, both addresses 16-byte aligned: a fault
//! otherwise, as the hardware's is) from its source to its destination. A
//! copy to shared memory then completes `size` bytes of the transaction
//! count of the `mbarrier` at `bar` (`exec/mbarrier.rs`), which may
//! complete its phase. As `cp.async`, a copy completes as it issues: a
//! correct program reads the destination only after the barrier's phase
//! or a `wait_group`, and sees the same bytes.

use super::async_copy::{addresses, AsyncCall};
use super::lanes::read_operand;
use super::mbarrier::mbar_expect;
use super::memory::{Access, FaultKind, MemFault, Memory};
use super::WARP_SIZE;
use crate::inst::{Address, AsyncOp, Space};

/// The alignment of a bulk copy's addresses and size.
const ALIGN: u64 = 16;

/// Runs bulk copy `c.a` on the lanes of `c.exec`, in ascending order;
/// the first fault stops it. `out` receives the addresses timing charges:
/// the global ones (the source of a copy to shared memory, the destination
/// of a store), or a shared-to-shared copy's source, `size` bytes a lane
/// (the largest lane's).
pub(super) fn copy(c: AsyncCall<'_>) -> Result<bool, MemFault> {
    let AsyncCall(a, ctx, regs, exec, mem, out) = c;
    let (dspace, sspace) = (a.dst_space(), a.src_space());
    let to_shared = matches!(a.op, AsyncOp::Bulk { .. });
    let sizes =
        a.a.map_or([0; WARP_SIZE], |o| read_operand(o, 32, ctx, regs));
    let at = |addr: &Address, space, mem: &dyn Memory| {
        addresses(addr, space, regs, mem).map_err(|kind| MemFault {
            kind,
            space,
            addr: 0,
            bytes: 0,
            lane: 0,
        })
    };
    let dst = at(&a.dst, dspace, mem)?;
    let src = at(&a.src, sspace, mem)?;
    let bar = at(&a.bar, Space::Shared, mem)?;
    let timed = if sspace == Space::Global || dspace == Space::Shared {
        (&src, sspace)
    } else {
        (&dst, dspace)
    };
    out.lanes = exec;
    out.space = timed.1;
    out.bytes = 0;
    for l in 0..WARP_SIZE {
        out.addrs[l] = 0;
        if exec >> l & 1 == 0 {
            continue;
        }
        let (lane, size) = (l as u32, sizes[l]);
        let fault = |kind, space, addr| MemFault {
            kind,
            space,
            addr,
            bytes: size as u32,
            lane,
        };
        out.addrs[l] = timed.0[l];
        out.bytes = out.bytes.max(size as u32);
        if size % ALIGN != 0 {
            return Err(fault(FaultKind::BulkSize, sspace, src[l]));
        }
        for (space, addr) in [(dspace, dst[l]), (sspace, src[l])] {
            if addr % ALIGN != 0 {
                return Err(fault(FaultKind::Misaligned, space, addr));
            }
        }
        // Word by word: every address is a multiple of 16.
        for k in (0..size).step_by(4) {
            let v = mem
                .load(Access::new(sspace, lane, src[l] + k, 4))
                .map_err(|kind| fault(kind, sspace, src[l] + k))?;
            mem.store(Access::new(dspace, lane, dst[l] + k, 4), v)
                .map_err(|kind| fault(kind, dspace, dst[l] + k))?;
        }
        if to_shared {
            // `complete_tx` of the copy's bytes on the barrier.
            let bfault = |kind| MemFault {
                kind,
                space: Space::Shared,
                addr: bar[l],
                bytes: 8,
                lane,
            };
            let old = mem
                .load(Access::new(Space::Shared, lane, bar[l], 8))
                .map_err(bfault)?;
            let new = mbar_expect(old, (size as i64).wrapping_neg());
            mem.store(Access::new(Space::Shared, lane, bar[l], 8), new)
                .map_err(bfault)?;
        }
    }
    Ok(true)
}
