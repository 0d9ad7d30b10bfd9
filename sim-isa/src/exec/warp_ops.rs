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
            let m = members(w, ctx, regs, exec);
            let a = read_operand(w.srcs[0], 32, ctx, regs);
            out = per_group(&m, exec, |mm| u64::from(redux(op, &a, mm)));
        }
        WarpOp::Match { all, wide } => {
            let m = members(w, ctx, regs, exec);
            let a = read_operand(w.srcs[0], if wide { 64 } else { 32 }, ctx, regs);
            let (d, p) = match_lanes(all, &a, &m, exec);
            out = d;
            if let Some(pr) = w.p {
                blend(regs.get_mut(pr), exec, &p);
            }
        }
        WarpOp::Elect => {
            let m = members(w, ctx, regs, exec);
            let leader = |mm: u32| elect_leader(mm).map_or(u64::MAX, u64::from);
            let lead = per_group(&m, exec, leader);
            let mut p: Lanes = [0; WARP_SIZE];
            for l in 0..WARP_SIZE {
                p[l] = u64::from(lead[l] == l as u64);
                // No member: no leader; the lane number reads 0.
                out[l] = lead[l] & 31;
            }
            if let Some(pr) = w.p {
                blend(regs.get_mut(pr), exec, &p);
            }
        }
        WarpOp::Activemask => out = [u64::from(exec); WARP_SIZE],
        WarpOp::Movmatrix => {
            let a = read_operand(w.srcs[0], 32, ctx, regs);
            out = super::matrix::movmatrix(&a);
        }
        WarpOp::Vote(mode) => {
            let m = members(w, ctx, regs, exec);
            let pb = pred_src_bits(w.pred, regs);
            out = per_group(&m, exec, |mm| {
                let p = pb & mm;
                match mode {
                    VoteMode::All => u64::from(p == mm),
                    VoteMode::Any => u64::from(p != 0),
                    VoteMode::Uni => u64::from(p == 0 || p == mm),
                    VoteMode::Ballot => u64::from(p),
                }
            });
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

/// Each lane's members: the lanes executing and named by the member mask
/// as that lane holds it. Lanes may name different sets (cooperative-groups
/// tiles pass each tile's own mask); a lane not executing may hold a stale
/// mask (it is on the other side of a branch), and is not read.
fn members(w: &WarpInst, ctx: &ExecCtx, regs: &WarpRegs, exec: u32) -> [u32; WARP_SIZE] {
    let mask = read_operand(w.mask, 32, ctx, regs);
    let mut m = [0u32; WARP_SIZE];
    for l in 0..WARP_SIZE {
        m[l] = exec & mask[l] as u32;
    }
    m
}

/// `f` of each executing lane's members, computed once per run of lanes
/// with the same members (a tile's lanes are adjacent).
fn per_group(members: &[u32; WARP_SIZE], exec: u32, mut f: impl FnMut(u32) -> u64) -> Lanes {
    let mut out: Lanes = [0; WARP_SIZE];
    let mut last: Option<(u32, u64)> = None;
    for l in (0..WARP_SIZE).filter(|&l| exec >> l & 1 == 1) {
        let m = members[l];
        let v = match last {
            Some((lm, lv)) if lm == m => lv,
            Some(_) | None => f(m),
        };
        last = Some((m, v));
        out[l] = v;
    }
    out
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

/// `match.{any,all}.sync` for the `exec` lanes of `a`, each over its own
/// `members`: per lane, the destination and the predicate. `.any`: the
/// members holding the lane's value. `.all`: every member when all hold one
/// value (predicate true), else 0 (false).
pub fn match_lanes(
    all: bool,
    a: &[u64; WARP_SIZE],
    members: &[u32; WARP_SIZE],
    exec: u32,
) -> (Lanes, Lanes) {
    let same = |m: u32, v: u64| {
        (0..WARP_SIZE)
            .filter(|&j| m >> j & 1 == 1 && a[j] == v)
            .fold(0u32, |acc, j| acc | 1 << j)
    };
    let mut d: Lanes = [0; WARP_SIZE];
    let mut p: Lanes = [0; WARP_SIZE];
    for l in (0..WARP_SIZE).filter(|&l| exec >> l & 1 == 1) {
        let m = members[l];
        if all {
            let first = m.trailing_zeros().min(31) as usize;
            let uniform = m != 0 && same(m, a[first]) == m;
            d[l] = if uniform { u64::from(m) } else { 0 };
            p[l] = u64::from(uniform);
        } else {
            d[l] = u64::from(same(m, a[l]));
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
    // A named method, not `ops::Add`: callers fold with `BarRedShare::add`
    // without importing the trait.
    #[allow(clippy::should_implement_trait)]
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
    // Only `bar.red` delivers (`db::barrier_reduction` names it).
    let WarpOp::BarRed(op) = w.op else {
        return;
    };
    let v = match op {
        BarRedOp::Popc => u64::from(total.count),
        BarRedOp::And => u64::from(total.count == total.threads),
        BarRedOp::Or => u64::from(total.count > 0),
    };
    if let Some(d) = w.d {
        blend(regs.get_mut(d), lanes, &[v; WARP_SIZE]);
    }
}
