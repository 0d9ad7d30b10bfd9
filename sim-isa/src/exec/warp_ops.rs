//! Warp-wide operations: `shfl.sync`, `vote.sync`, `activemask`. Each lane's
//! result depends on other lanes, so these are written over the warp; the
//! lane functions are the manual's pseudocode. `bar`/`membar`/`fence` have
//! no register effect (a launch's scheduler implements the barrier).

use super::lanes::{blend, pred_src_bits, read_operand, Lanes};
use super::{ExecCtx, WarpRegs, WARP_SIZE};
use crate::inst::{ShflMode, VoteMode, WarpInst, WarpOp};

/// `shfl.sync`'s source lane for `lane` and whether it is in range
/// (the PTX ISA's pseudocode: `c` packs the clamp in bits 0-4 and the
/// segment mask in bits 8-12).
pub fn shfl_lane(mode: ShflMode, lane: u32, b: u32, c: u32) -> (u32, bool) {
    let bval = b & 31;
    let cval = c & 31;
    let segmask = (c >> 8) & 31;
    let max_lane = (lane & segmask) | (cval & !segmask);
    let min_lane = lane & segmask;
    let (j, ok) = match mode {
        ShflMode::Up => {
            let j = lane as i32 - bval as i32;
            (j, j >= max_lane as i32)
        }
        ShflMode::Down => {
            let j = (lane + bval) as i32;
            (j, j <= max_lane as i32)
        }
        ShflMode::Bfly => {
            let j = (lane ^ bval) as i32;
            (j, j <= max_lane as i32)
        }
        ShflMode::Idx => {
            let j = (min_lane | (bval & !segmask)) as i32;
            (j, j <= max_lane as i32)
        }
    };
    if ok {
        (j as u32 & 31, true)
    } else {
        (lane, false)
    }
}

/// Runs `w` on the lanes of `exec`.
pub(super) fn warp_op(w: &WarpInst, ctx: &ExecCtx, regs: &mut WarpRegs, exec: u32) {
    let mut out: Lanes = [0; WARP_SIZE];
    match w.op {
        WarpOp::BarSync | WarpOp::BarArrive | WarpOp::Fence | WarpOp::Control => return,
        WarpOp::Activemask => out = [u64::from(exec); WARP_SIZE],
        WarpOp::Vote(mode) => {
            // The member mask as an executing lane holds it (lane 0 may be
            // on the other side of a branch, its register stale).
            let first = exec.trailing_zeros().min(31) as usize;
            let mask = read_operand(w.mask, 32, ctx, regs)[first] as u32;
            let members = exec & mask;
            let p = pred_src_bits(w.pred, regs) & members;
            let v = match mode {
                VoteMode::All => u64::from(p == members),
                VoteMode::Any => u64::from(p != 0),
                VoteMode::Uni => u64::from(p == 0 || p == members),
                VoteMode::Ballot => u64::from(p),
            };
            out = [v; WARP_SIZE];
        }
        WarpOp::Shfl(mode) => {
            let a = read_operand(w.srcs[0], 32, ctx, regs);
            let b = read_operand(w.srcs[1], 32, ctx, regs);
            let c = read_operand(w.srcs[2], 32, ctx, regs);
            let mut pv: Lanes = [0; WARP_SIZE];
            for l in 0..WARP_SIZE {
                let (j, ok) = shfl_lane(mode, l as u32, b[l] as u32, c[l] as u32);
                out[l] = a[j as usize];
                pv[l] = u64::from(ok);
            }
            if let Some(p) = w.p {
                blend(regs.get_mut(p), exec, &pv);
            }
        }
    }
    if let Some(d) = w.d {
        blend(regs.get_mut(d), exec, &out);
    }
}
