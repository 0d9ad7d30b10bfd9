//! The `mbarrier` object: 64 bits in shared memory, in the layout ptxas
//! 13.0.88's sm_90 machine code uses (`tests/data/async-sass.txt`:
//! `mbarrier.init` stores `(2^20 - count) << 11` in the high word and
//! `(2^20 - count) << 1` in the low one; `pending_count` reads
//! `2^20 - (state >> 43 & 0xfffff)`; a `.parity` wait compares its parity
//! with bit 63):
//!
//! - bits 43..63: `2^20 -` the arrivals still pending in the current phase;
//!   an arrival adds its count, and reaching `2^20` completes the phase;
//! - bit 63: the current phase's parity, flipped as a phase completes;
//! - bits 1..21: `2^20 -` the expected arrivals, the count a new phase
//!   starts from (`arrive_drop` lowers it);
//! - bits 21..43: the phase's transaction count (bytes expected by
//!   `expect_tx` and not yet arrived by `complete_tx` or a bulk copy), 22
//!   bits of two's complement: a copy may land before its `expect_tx`, as
//!   libcu++'s `memcpy_async` issues them. These bits are simcli's choice:
//!   the machine code's `SYNCS.ARRIVE.TRANS64` does not show where the
//!   hardware keeps the count.
//!
//! A phase completes when both its pending arrivals and its transaction
//! count are zero (PTX ISA, "Phase completion of the mbarrier object"):
//! until the count is zero, an object with no arrivals pending keeps a
//! count field of 0.
//!
//! An arrival returns the object as it was (the state: its phase bit says
//! which phase the arrival belongs to, its count what was pending; after
//! `.noComplete` the low word is the arriving lanes' mask, as ptxas's
//! warp-aggregated code gives; `inval` stores nothing); a wait
//! on a state holds when the object's phase bit differs from the state's
//! (that phase completed), a `.parity` wait when it differs from the
//! parity. Lanes operate in ascending order, each an atomic step.

use super::async_copy::AsyncCall;
use super::lanes::{exec_mask, read_operand};
use super::memory::{Access, MemFault, Memory};
use super::{ExecCtx, WarpRegs, WARP_SIZE};
use crate::inst::{AddrBase, AsyncInst, Instruction, MbarOp, Space};

/// 20-bit counts.
const COUNT: u64 = 0xf_ffff;
/// A count field's wrap: a count field holds `WRAP - n`.
const WRAP: u64 = 1 << 20;

/// The object `mbarrier.init` makes for `count` expected arrivals.
pub fn mbar_init(count: u64) -> u64 {
    let c = WRAP.wrapping_sub(count) & COUNT;
    c << 43 | c << 1
}

/// The arrivals still pending in `state`'s phase (`mbarrier.pending_count`).
pub fn mbar_pending(state: u64) -> u64 {
    WRAP - (state >> 43 & COUNT)
}

/// Whether the phase `state` was taken in has completed on `object`.
pub fn mbar_phase_done(object: u64, state: u64) -> bool {
    (object ^ state) >> 63 != 0
}

/// The transaction count's bits.
const TX: u64 = (1 << 22) - 1;
/// Where the transaction count starts.
const TX_SHIFT: u32 = 21;

/// The transaction count of `object` (bytes still expected; negative while
/// copies have landed before their `expect_tx`).
pub fn mbar_tx(object: u64) -> i64 {
    // Sign-extended from 22 bits.
    (((object >> TX_SHIFT & TX) << 42) as i64) >> 42
}

/// `object` with its transaction count raised by `delta` (`expect_tx`;
/// negative: `complete_tx`, a bulk copy's bytes), the phase completing if
/// that leaves nothing pending.
pub fn mbar_expect(object: u64, delta: i64) -> u64 {
    let tx = (mbar_tx(object).wrapping_add(delta) as u64) & TX;
    settle(object & !(TX << TX_SHIFT) | tx << TX_SHIFT)
}

/// `object` after `n` arrivals (`drop`: the expected count falls by `n`
/// too, for the phases after this one).
pub fn mbar_arrive(object: u64, n: u64, drop: bool) -> u64 {
    let mut reset = object >> 1 & COUNT;
    if drop {
        reset = (reset + n).min(COUNT);
    }
    // A field of 0 has none pending (its phase awaits transactions): more
    // arrivals than pending are undefined (PTX), and leave it at none.
    let field = object >> 43 & COUNT;
    let got = if field == 0 {
        0
    } else {
        (field + n).min(WRAP) & COUNT
    };
    settle(object & !(COUNT << 43 | COUNT << 1) | got << 43 | reset << 1)
}

/// `object`, its phase completed when no arrival and no transaction is
/// pending: the parity flips and the count restarts from the expected one.
fn settle(object: u64) -> u64 {
    if object >> 43 & COUNT != 0 || object >> TX_SHIFT & TX != 0 {
        return object;
    }
    let reset = object >> 1 & COUNT;
    (object ^ 1 << 63) | reset << 43
}

/// Runs `mbarrier` statement `c.a` on the lanes of `c.exec`; `out`
/// receives the object's addresses (8 bytes a lane).
pub(super) fn run(c: AsyncCall<'_>) -> Result<bool, MemFault> {
    let AsyncCall(a, ctx, regs, exec, mem, out) = c;
    let space = if a.generic {
        Space::Generic
    } else {
        Space::Shared
    };
    let fault = |kind, addr, lane| MemFault {
        kind,
        space,
        addr,
        bytes: 8,
        lane,
    };
    let off = a.dst.offset as u64;
    let addrs: [u64; WARP_SIZE] = match a.dst.base {
        AddrBase::Reg(r) => {
            let mask = super::width_mask(space.addr_bits());
            (*regs.get(r)).map(|v| (v & mask).wrapping_add(off))
        }
        AddrBase::Var(id) => {
            let base = mem.var(id).map_err(|k| fault(k, 0, 0))?.1;
            [base.wrapping_add(off); WARP_SIZE]
        }
        AddrBase::Abs => [off; WARP_SIZE],
    };
    let m = a.mbar().unwrap_or(MbarOp::Inval);
    let arg = a.a.map(|o| read_operand(o, a.a_bits(), ctx, regs));
    out.lanes = exec;
    out.bytes = 8;
    out.space = space;
    let mut dvals = [0u64; WARP_SIZE];
    for l in 0..WARP_SIZE {
        out.addrs[l] = 0;
        if exec >> l & 1 == 0 {
            continue;
        }
        let lane = l as u32;
        let at = addrs[l];
        out.addrs[l] = at;
        let load = |mem: &mut dyn Memory| {
            mem.load(Access::new(space, lane, at, 8))
                .map_err(|k| fault(k, at, lane))
        };
        let arg = arg.map_or(1, |v| v[l]);
        let new = match m {
            MbarOp::Init => Some(mbar_init(arg)),
            // ptxas's code for `inval` is `SYNCS.CCTL.IV` (the sync unit
            // forgets the object) and no store: the bytes stay, as the
            // SASS-oracle vectors have them (docs/validation.md).
            MbarOp::Inval => None,
            MbarOp::Arrive {
                drop,
                tx: false,
                no_complete,
            } => {
                let old = load(mem)?;
                // `.noComplete`: ptxas's code (`SYNCS.ARRIVE.TRANS64.TMASK`,
                // aggregated over the warp) returns the arriving lanes'
                // mask in the state's low word; the high word is the
                // object's as this lane found it (docs/validation.md).
                dvals[l] = match no_complete {
                    true => old & !0xffff_ffff | u64::from(exec),
                    false => old,
                };
                Some(mbar_arrive(old, arg, drop))
            }
            // An `expect_tx` of `arg` bytes, then one arrival.
            MbarOp::Arrive { drop, tx: true, .. } => {
                let old = load(mem)?;
                dvals[l] = old;
                Some(mbar_arrive(mbar_expect(old, arg as i64), 1, drop))
            }
            MbarOp::ExpectTx => Some(mbar_expect(load(mem)?, arg as i64)),
            MbarOp::CompleteTx => Some(mbar_expect(load(mem)?, (arg as i64).wrapping_neg())),
            MbarOp::CpArrive { noinc } => {
                let old = load(mem)?;
                // Without `.noinc` the pending count is raised by one
                // before the arrival: no net change.
                noinc.then(|| mbar_arrive(old, 1, false))
            }
            MbarOp::Wait { parity, .. } => {
                let object = load(mem)?;
                let state = if parity { (arg & 1) << 63 } else { arg };
                dvals[l] = u64::from(mbar_phase_done(object, state));
                None
            }
            // Lane-local (`super::execute`); nothing to do with memory.
            MbarOp::PendingCount => None,
        };
        if let Some(v) = new {
            mem.store(Access::new(space, lane, at, 8), v)
                .map_err(|k| fault(k, at, lane))?;
        }
    }
    if let Some(d) = a.d {
        let dst = regs.get_mut(d);
        for l in 0..WARP_SIZE {
            if exec >> l & 1 != 0 {
                dst[l] = dvals[l];
            }
        }
    }
    Ok(true)
}

/// `mbarrier.pending_count`: lane-local.
pub(super) fn pending_count(
    inst: &Instruction,
    a: &AsyncInst,
    ctx: &ExecCtx,
    regs: &mut WarpRegs,
    active: u32,
) {
    let (Some(d), Some(s)) = (a.d, a.a) else {
        return;
    };
    regs.ensure(super::regs_needed(inst));
    let exec = exec_mask(inst.guard, regs, active);
    let state = read_operand(s, 64, ctx, regs);
    let dst = regs.get_mut(d);
    for l in 0..WARP_SIZE {
        if exec >> l & 1 != 0 {
            dst[l] = mbar_pending(state[l]);
        }
    }
}
