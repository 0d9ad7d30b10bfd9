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
//!   starts from (`arrive_drop` lowers it).
//!
//! An arrival returns the object as it was (the state: its phase bit says
//! which phase the arrival belongs to, its count what was pending; after
//! `.noComplete` the low word is the arriving lanes' mask, as ptxas's
//! warp-aggregated code gives; `inval` stores nothing); a wait
//! on a state holds when the object's phase bit differs from the state's
//! (that phase completed), a `.parity` wait when it differs from the
//! parity. Lanes operate in ascending order, each an atomic step.

use super::lanes::{exec_mask, read_operand};
use super::memory::{Accesses, MemFault, Memory};
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

/// `object` after `n` arrivals (`drop`: the expected count falls by `n`
/// too, for the phases after this one).
pub fn mbar_arrive(object: u64, n: u64, drop: bool) -> u64 {
    let mut reset = object >> 1 & COUNT;
    if drop {
        reset = (reset + n).min(COUNT);
    }
    let low = object & !(COUNT << 1) & 0xffff_ffff | reset << 1;
    let phase = object >> 63;
    let got = (object >> 43 & COUNT) + n;
    if got >= WRAP {
        (phase ^ 1) << 63 | reset << 43 | low
    } else {
        phase << 63 | got << 43 | low
    }
}

/// Runs `mbarrier` statement `a` (of `inst`) on the lanes of `active` whose
/// guard holds; `out` receives the object's addresses (8 bytes a lane).
// `execute_mem_into`'s signature and guard prologue, as `async_copy::copy`:
// each family keeps its own entry.
pub(super) fn run(
    inst: &Instruction,
    a: &AsyncInst,
    ctx: &ExecCtx,
    regs: &mut WarpRegs,
    active: u32,
    mem: &mut dyn Memory,
    out: &mut Accesses,
) -> Result<bool, MemFault> {
    let need = super::regs_needed(inst);
    regs.ensure(need);
    let exec = exec_mask(inst.guard, regs, active);
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
        let load =
            |mem: &mut dyn Memory| mem.load(space, lane, at, 8).map_err(|k| fault(k, at, lane));
        let arg = arg.map_or(1, |v| v[l]);
        let new = match m {
            MbarOp::Init => Some(mbar_init(arg)),
            // ptxas's code for `inval` is `SYNCS.CCTL.IV` (the sync unit
            // forgets the object) and no store: the bytes stay, as the
            // SASS-oracle vectors have them (docs/validation.md).
            MbarOp::Inval => None,
            MbarOp::Arrive { drop, no_complete } => {
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
            mem.store(space, lane, at, 8, v)
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
