//! Warp-wide operations: `shfl.sync`, `vote.sync`, `activemask`,
//! `redux.sync`, `match.sync`, `elect.sync`. Each lane's result depends on
//! other lanes, so these are written over the warp; the lane functions are
//! the manual's pseudocode. `bar`/`membar`/`fence`/`bar.warp.sync`/
//! `nanosleep` have no register effect (a launch's scheduler implements the
//! barrier); `bar.red`'s result is the block's, which a launch reduces from
//! each warp's [`bar_red_share`] and hands back with [`bar_red_deliver`].

use super::lanes::{blend, pred_src_bits, read_operand, Lanes};
use super::{ExecCtx, WarpRegs, WARP_SIZE};
use crate::inst::{BarRedOp, ReduxOp, ShflMode, VoteMode, WarpInst, WarpOp};

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
        WarpOp::BarSync
        | WarpOp::BarArrive
        | WarpOp::Fence
        | WarpOp::Control
        | WarpOp::WarpSync
        | WarpOp::Nanosleep => return,
        WarpOp::BarRed(_) => {
            // Alone (no launch), the warp is a block of one warp.
            let share = bar_red_share(w, regs, exec);
            return bar_red_deliver(w, regs, exec, share);
        }
        WarpOp::Redux(op) => {
            let members = members(w, ctx, regs, exec);
            let a = read_operand(w.srcs[0], 32, ctx, regs);
            out = [u64::from(redux(op, &a, members)); WARP_SIZE];
        }
        WarpOp::Match { all, wide } => {
            let members = members(w, ctx, regs, exec);
            let a = read_operand(w.srcs[0], if wide { 64 } else { 32 }, ctx, regs);
            let (d, p) = match_lanes(all, &a, members);
            out = d;
            if let Some(pr) = w.p {
                blend(regs.get_mut(pr), exec, &p);
            }
        }
        WarpOp::Elect => {
            let members = members(w, ctx, regs, exec);
            let leader = elect_leader(members);
            let mut p: Lanes = [0; WARP_SIZE];
            if let Some(l) = leader {
                p[l as usize] = 1;
            }
            out = [u64::from(leader.unwrap_or(0)); WARP_SIZE];
            if let Some(pr) = w.p {
                blend(regs.get_mut(pr), exec, &p);
            }
        }
        WarpOp::Activemask => out = [u64::from(exec); WARP_SIZE],
        WarpOp::Vote(mode) => {
            let members = members(w, ctx, regs, exec);
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

/// The lanes taking part: executing and named by the member mask, as an
/// executing lane holds it (lane 0 may be on the other side of a branch,
/// its register stale).
fn members(w: &WarpInst, ctx: &ExecCtx, regs: &WarpRegs, exec: u32) -> u32 {
    let first = exec.trailing_zeros().min(31) as usize;
    let mask = read_operand(w.mask, 32, ctx, regs)[first] as u32;
    exec & mask
}

/// `redux.sync`'s result over the `members` lanes of `a` (32-bit values;
/// `.add` wraps). No member leaves the operation's identity.
pub fn redux(op: ReduxOp, a: &[u64; WARP_SIZE], members: u32) -> u32 {
    let vals = (0..WARP_SIZE)
        .filter(|&l| members >> l & 1 == 1)
        .map(|l| a[l] as u32);
    match op {
        ReduxOp::Add => vals.fold(0u32, u32::wrapping_add),
        ReduxOp::MinU => vals.fold(u32::MAX, u32::min),
        ReduxOp::MaxU => vals.fold(0, u32::max),
        ReduxOp::MinS => vals.fold(i32::MAX, |m, v| m.min(v as i32)) as u32,
        ReduxOp::MaxS => vals.fold(i32::MIN, |m, v| m.max(v as i32)) as u32,
        ReduxOp::And => vals.fold(u32::MAX, |m, v| m & v),
        ReduxOp::Or => vals.fold(0, |m, v| m | v),
        ReduxOp::Xor => vals.fold(0, |m, v| m ^ v),
    }
}

/// `match.{any,all}.sync` over the `members` lanes of `a`: per lane, the
/// destination and the predicate. `.any`: the members holding the lane's
/// value. `.all`: every member when all hold one value (predicate true),
/// else 0 (false).
pub fn match_lanes(all: bool, a: &[u64; WARP_SIZE], members: u32) -> (Lanes, Lanes) {
    let mut d: Lanes = [0; WARP_SIZE];
    let mut p: Lanes = [0; WARP_SIZE];
    let same = |v: u64| {
        (0..WARP_SIZE)
            .filter(|&j| members >> j & 1 == 1 && a[j] == v)
            .fold(0u32, |m, j| m | 1 << j)
    };
    if all {
        let first = members.trailing_zeros().min(31) as usize;
        let uniform = members != 0 && same(a[first]) == members;
        let v = if uniform { u64::from(members) } else { 0 };
        d = [v; WARP_SIZE];
        p = [u64::from(uniform); WARP_SIZE];
    } else {
        for l in (0..WARP_SIZE).filter(|&l| members >> l & 1 == 1) {
            d[l] = u64::from(same(a[l]));
        }
    }
    (d, p)
}

/// `elect.sync`'s leader among the `members` lanes. The manual says only
/// that the election is deterministic (the same leader for the same mask);
/// the lowest lane is this model's choice, unchecked against a machine (no
/// H100 here, and the SASS interpreter has no `ELECT`).
pub fn elect_leader(members: u32) -> Option<u32> {
    (members != 0).then(|| members.trailing_zeros())
}

/// One warp's share of a `bar.red`: of its `lanes` arriving (active, guard
/// true), how many hold the predicate true. Shares add up over a block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BarRedShare {
    /// Threads whose predicate is true.
    pub count: u32,
    /// Threads arriving.
    pub threads: u32,
}

impl BarRedShare {
    /// Two shares together (order does not matter: the reduction is exact).
    pub fn add(self, o: BarRedShare) -> BarRedShare {
        BarRedShare {
            count: self.count + o.count,
            threads: self.threads + o.threads,
        }
    }
}

/// What `lanes` of the warp bring to the `bar.red` `w`.
pub fn bar_red_share(w: &WarpInst, regs: &WarpRegs, lanes: u32) -> BarRedShare {
    BarRedShare {
        count: (pred_src_bits(w.pred, regs) & lanes).count_ones(),
        threads: lanes.count_ones(),
    }
}

/// Writes the block's reduction `total` to `w`'s destination in `lanes`:
/// `.popc` the count, `.and` whether every arriving thread's predicate was
/// true, `.or` whether any was.
pub fn bar_red_deliver(w: &WarpInst, regs: &mut WarpRegs, lanes: u32, total: BarRedShare) {
    let v = match w.op {
        WarpOp::BarRed(BarRedOp::Popc) => u64::from(total.count),
        WarpOp::BarRed(BarRedOp::And) => u64::from(total.count == total.threads),
        WarpOp::BarRed(BarRedOp::Or) => u64::from(total.count > 0),
        WarpOp::BarSync
        | WarpOp::BarArrive
        | WarpOp::Fence
        | WarpOp::Shfl(_)
        | WarpOp::Vote(_)
        | WarpOp::Activemask
        | WarpOp::Control
        | WarpOp::WarpSync
        | WarpOp::Redux(_)
        | WarpOp::Match { .. }
        | WarpOp::Nanosleep
        | WarpOp::Elect => return,
    };
    if let Some(d) = w.d {
        blend(regs.get_mut(d), lanes, &[v; WARP_SIZE]);
    }
}
