//! Per-lane semantics, written once per family as pure scalar functions
//! ([`video_lane`], [`set_lane`], [`setp_lane`], [`selp_lane`], [`slct_lane`],
//! [`alu_lane`]) and lifted over a 32-lane warp by [`execute`] under the
//! active mask and the guard.

//!
//! One file per concern: `lanes.rs` (the register file, operand reads,
//! masked writes), then per family its scalar definition and its warp form:
//! `video.rs` + `video_warp.rs`, `cmp.rs` (with the comparison table both
//! forms read) + `cmp_warp.rs`, `select.rs`, `alu.rs`, `int.rs`, `bit.rs`, `cvt.rs`. [`execute`] runs the
//! warp forms; [`execute_scalar`] lifts the scalar lane functions literally
//! and is the reference the property tests hold [`execute`] to.
//! [`execute_prepared`] runs an instruction decoded once ([`Prepared`],
//! `prepared.rs`) through the same warp code, for callers that execute one
//! static instruction many times.

mod alu;
mod async_copy;
mod bit;
mod bulk;
mod carry;
mod cmp;
mod cmp_prepared;
mod cmp_warp;
mod cvt;
mod float;
mod int;
mod lanes;
mod matrix;
mod mbarrier;
mod mem;
mod memory;
mod mma;
mod prepared;
mod select;
pub mod simd;
mod video;
mod video_warp;
mod warp_ops;
mod wmma;

pub use alu::alu_lane;
pub use bit::bit_lane;
pub use carry::carry_lane;
pub use cmp::{compare, flush_subnormal, set_lane, set_true_value, setp_lane};
pub use cvt::{cvt_lane, cvt_lane_c};
pub use float::float_lane;
pub use int::int_lane;
pub use lanes::{Reg, WarpRegs};
pub use matrix::{matrix_element, movmatrix, row_lanes};
pub use mbarrier::{mbar_arrive, mbar_expect, mbar_init, mbar_pending, mbar_phase_done, mbar_tx};
pub use mem::{
    atom_lane, execute_mem, execute_mem_into, load_lanes_each, store_lanes_each, Accesses,
    FaultKind, LaneFault, MemFault, Memory,
};
pub use memory::{Access, LaneAccess, Rows};
pub use mma::{dot as mma_dot, MmaModel};
pub use prepared::{execute_prepared, execute_prepared_inline, Prepared};
pub use select::{selp_lane, slct_lane};
pub use video::video_lane;
pub use warp_ops::{
    bar_red_deliver, bar_red_share, elect_leader, match_lanes, redux, shfl_lane, BarRedShare,
};

use crate::inst::{FloatArith, Instruction, IntArith, Op, Operand, PredSrc, RegId};
use crate::target::Target;
pub use lanes::width_mask;
use lanes::{blend, exec_mask, pred_src_bits, read_operand, write_lanes, Lanes};

/// Lanes per warp.
pub const WARP_SIZE: usize = 32;

/// What execution needs beyond the instruction and registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExecCtx {
    /// Target (some semantics depend on it: sm_1x flushes f32 subnormals).
    pub target: Target,
    /// The warp's index, for `%warpid`.
    pub warp_id: u32,
    /// Where the warp's threads sit in the launch, for `%tid`, `%ctaid`, ...
    pub thread: ThreadCtx,
}

impl ExecCtx {
    /// A warp `warp_id` of a lone 32-thread block ([`ThreadCtx::default`]).
    pub fn new(target: Target, warp_id: u32) -> Self {
        ExecCtx {
            target,
            warp_id,
            thread: ThreadCtx::default(),
        }
    }
}

/// A warp's place in its launch: the values of the special registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThreadCtx {
    /// Linear index in its block of the warp's lane 0 (`%tid` of lane `l` is
    /// `first_thread + l` unfolded over `ntid`).
    pub first_thread: u32,
    /// `%ntid`: block dimensions.
    pub ntid: [u32; 3],
    /// `%ctaid`: the block's index.
    pub ctaid: [u32; 3],
    /// `%nctaid`: grid dimensions.
    pub nctaid: [u32; 3],
    /// `%smid`, `%nsmid`, `%nwarpid`.
    pub smid: u32,
    /// `%nsmid`
    pub nsmid: u32,
    /// `%nwarpid`
    pub nwarpid: u32,
    /// `%gridid`
    pub gridid: u64,
    /// The cycle counter (`%clock`, `%clock_hi`, `%clock64`).
    pub clock: u64,
    /// `%dynamic_smem_size` and `%total_smem_size` in bytes.
    pub smem: [u32; 2],
    /// `%envreg0`..`%envreg31`: what the launch gives, 0 where it gives
    /// nothing (a cooperative launch's grid workspace in 1 and 2).
    pub envreg: [u32; 32],
}

impl Default for ThreadCtx {
    fn default() -> Self {
        ThreadCtx {
            first_thread: 0,
            ntid: [32, 1, 1],
            ctaid: [0; 3],
            nctaid: [1, 1, 1],
            smid: 0,
            nsmid: 1,
            nwarpid: 64,
            gridid: 0,
            clock: 0,
            smem: [0; 2],
            envreg: [0; 32],
        }
    }
}

impl ThreadCtx {
    /// [`ThreadCtx::special`] for every lane of a warp at once, the same
    /// values: read a lane at a time (a call, the match and, for `%tid`,
    /// divisions each lane) it cost about 90 host instructions a lane.
    pub fn special_lanes(&self, s: crate::inst::SpecialReg, warp_id: u32) -> [u64; WARP_SIZE] {
        use crate::inst::SpecialReg as S;
        match s {
            S::Tid(k) => self.tid_lanes(k),
            S::LaneId
            | S::LanemaskEq
            | S::LanemaskLe
            | S::LanemaskLt
            | S::LanemaskGe
            | S::LanemaskGt => std::array::from_fn(|l| self.special(s, l as u32, warp_id)),
            // The same in every lane.
            S::WarpId
            | S::Ntid(_)
            | S::Ctaid(_)
            | S::Nctaid(_)
            | S::SmId
            | S::NsmId
            | S::NwarpId
            | S::GridId
            | S::Clock
            | S::ClockHi
            | S::Clock64
            | S::GlobalTimer
            | S::DynamicSmemSize
            | S::TotalSmemSize
            | S::EnvReg(_) => [self.special(s, 0, warp_id); WARP_SIZE],
        }
    }

    /// `%tid` component `k` of every lane: lane 0's unfolded as
    /// [`ThreadCtx::special`] does, each next lane (the next thread)
    /// counted on from it, x fastest, with no division.
    fn tid_lanes(&self, k: u8) -> [u64; WARP_SIZE] {
        let t = self.first_thread;
        let [x, y, _] = self.ntid.map(|n| n.max(1));
        let (mut tx, mut ty, mut tz) = (t % x, t / x % y, t / (x * y));
        let mut out = [0; WARP_SIZE];
        for o in &mut out {
            *o = u64::from(match k {
                0 => tx,
                1 => ty,
                _ => tz,
            });
            tx += 1;
            if tx == x {
                tx = 0;
                ty += 1;
                if ty == y {
                    ty = 0;
                    tz += 1;
                }
            }
        }
        out
    }

    /// The value of special register `s` for `lane`.
    pub fn special(&self, s: crate::inst::SpecialReg, lane: u32, warp_id: u32) -> u64 {
        use crate::inst::SpecialReg as S;
        let dim = |v: [u32; 3], k: u8| u64::from(v[usize::from(k).min(2)]);
        let below = (1u64 << lane) - 1;
        match s {
            S::LaneId => u64::from(lane),
            S::WarpId => u64::from(warp_id),
            S::Tid(k) => {
                let t = self.first_thread + lane;
                let [x, y, _] = self.ntid.map(|n| n.max(1));
                u64::from(match k {
                    0 => t % x,
                    1 => t / x % y,
                    _ => t / (x * y),
                })
            }
            S::Ntid(k) => dim(self.ntid, k),
            S::Ctaid(k) => dim(self.ctaid, k),
            S::Nctaid(k) => dim(self.nctaid, k),
            S::SmId => u64::from(self.smid),
            S::NsmId => u64::from(self.nsmid),
            S::NwarpId => u64::from(self.nwarpid),
            S::GridId => self.gridid,
            S::Clock => self.clock & 0xffff_ffff,
            S::ClockHi => self.clock >> 32,
            S::Clock64 | S::GlobalTimer => self.clock,
            S::LanemaskEq => 1 << lane,
            S::LanemaskLe => below | 1 << lane,
            S::LanemaskLt => below,
            S::LanemaskGe => !below & 0xffff_ffff,
            S::LanemaskGt => !(below | 1 << lane) & 0xffff_ffff,
            S::DynamicSmemSize => u64::from(self.smem[0]),
            S::TotalSmemSize => u64::from(self.smem[1]),
            S::EnvReg(n) => u64::from(self.envreg[usize::from(n) % 32]),
        }
    }
}

/// Executes `inst` on every lane set in `active` whose guard holds.
/// Lanes that do not execute write nothing. Allocation-free once the
/// register file covers every register the instruction names (it is grown
/// otherwise, so a short file is never a panic).
///
/// Fields are decoded once per warp-instruction and each family runs as
/// vectorisable loops over the 32 lanes; results are bit-identical to
/// [`execute_scalar`] (property-tested).
pub fn execute(inst: &Instruction, ctx: &ExecCtx, regs: &mut WarpRegs, active: u32) {
    regs.ensure(regs_needed(inst));
    execute_fitted(inst, ctx, regs, active);
}

/// [`execute`] for a caller that has already checked, once per program, that
/// `regs` holds every register `inst` names (the SM model does at
/// construction): skips the per-call size check. A file that is too short
/// panics on the out-of-range register instead of growing.
#[inline]
pub fn execute_fitted(inst: &Instruction, ctx: &ExecCtx, regs: &mut WarpRegs, active: u32) {
    debug_assert!(regs.len() >= regs_needed(inst));
    let exec = exec_mask(inst.guard, regs, active);
    if exec == 0 {
        return;
    }
    // By reference: matching by value copies the operand struct first.
    // Every arm is one call (a tail call): the dispatch needs no frame.
    match &inst.op {
        Op::Video(v) => video_warp::video(v, regs, exec),
        Op::Set(s) => cmp_prepared::set(s, ctx, regs, exec),
        Op::Setp(s) => setp_into(s, ctx, regs, exec),
        Op::Selp(s) => selp_into(s, ctx, regs, exec),
        Op::Slct(s) => slct_into(s, ctx, regs, exec),
        Op::Alu(x) => alu_into(x, ctx, regs, exec),
        Op::Int(x) if x.carry.is_some() => carry::carry_into(x, ctx, regs, exec),
        Op::Int(x) => int_into(x, ctx, regs, exec),
        Op::Bit(x) => bit_into(x, ctx, regs, exec),
        Op::Cvt(x) => cvt_into(x, ctx, regs, exec),
        Op::Float(x) => float_into(x, ctx, regs, exec),
        // Memory instructions need a memory: `execute_mem` runs them.
        // Register packing needs no memory; the rest run in `execute_mem`.
        Op::Mem(m) if matches!(m.op, crate::inst::MemOp::Pack | crate::inst::MemOp::Unpack) => {
            mem::pack(m, ctx, regs, exec)
        }
        Op::Mem(_) => {}
        Op::Warp(w) => warp_ops::warp_op(w, ctx, regs, exec),
        // A copy and an `mbarrier` operation on its object run in
        // `execute_mem`; the group statements change no register (their
        // waiting is the timing model's).
        Op::Async(a) => {
            if a.mbar() == Some(crate::inst::MbarOp::PendingCount) {
                mbarrier::pending_count(inst, a, ctx, regs, exec);
            }
        }
        Op::Mma(m) if m.shape.is_wmma() => wmma::mma(m, ctx.target, regs, exec),
        Op::Mma(m) => mma::mma(m, ctx.target, regs, exec),
    }
}

// The families' warp forms written into their destinations, each a
// function of its own so that `execute_fitted` (inlined into its caller)
// stays a dispatcher: inlined there, their result arrays gave the dispatch
// a large frame that every instruction paid to set up.

#[inline(never)]
fn setp_into(s: &crate::inst::Setp, ctx: &ExecCtx, regs: &mut WarpRegs, exec: u32) {
    cmp_prepared::setp(s, ctx, regs, exec);
}

#[inline(never)]
fn selp_into(s: &crate::inst::Selp, ctx: &ExecCtx, regs: &mut WarpRegs, exec: u32) {
    let out = select::selp(s, ctx, regs);
    blend(regs.get_mut(s.d), exec, &out);
}

#[inline(never)]
fn slct_into(s: &crate::inst::Slct, ctx: &ExecCtx, regs: &mut WarpRegs, exec: u32) {
    let out = select::slct(s, ctx, regs);
    blend(regs.get_mut(s.d), exec, &out);
}

#[inline(never)]
fn alu_into(x: &crate::inst::Alu, ctx: &ExecCtx, regs: &mut WarpRegs, exec: u32) {
    let out = alu::alu(x, ctx, regs);
    blend(regs.get_mut(x.d), exec, &out);
}

#[inline(never)]
fn int_into(x: &IntArith, ctx: &ExecCtx, regs: &mut WarpRegs, exec: u32) {
    int::int_into(x, ctx, regs, exec);
}

#[inline(never)]
fn bit_into(x: &crate::inst::Bit, ctx: &ExecCtx, regs: &mut WarpRegs, exec: u32) {
    let s = bit::bit_sources(x, ctx, regs);
    blend(regs.get_mut(x.d), exec, &bit::bit_warp(x, &s));
}

#[inline(never)]
fn cvt_into(x: &crate::inst::Cvt, ctx: &ExecCtx, regs: &mut WarpRegs, exec: u32) {
    let (a, b, c) = cvt::cvt_sources(x, ctx, regs);
    blend(regs.get_mut(x.d), exec, &cvt::cvt_warp(x, &a, &b, &c));
}

#[inline(never)]
fn float_into(x: &FloatArith, ctx: &ExecCtx, regs: &mut WarpRegs, exec: u32) {
    // `add sub mul fma .rn.f32` (the common forms) on the host's f32
    // operations; the rest lane by lane.
    if let Some(p) = float::Fast32Plan::new(x) {
        return p.kernel()(&p, ctx, regs, exec);
    }
    let (a, b, c) = float_sources(x, ctx, regs);
    blend(regs.get_mut(x.d), exec, &float::float_warp(x, &a, &b, &c));
}

/// Registers `inst` needs the file to hold: one past the highest index it
/// names, 0 when it names none (as [`Instruction::reg_uses`], without
/// building the list).
pub(crate) fn regs_needed(inst: &Instruction) -> usize {
    let d = |r: RegId| r.0 as usize + 1;
    let r = |o: Operand| match o {
        Operand::Reg(x) => d(x),
        _ => 0,
    };
    let p = |p: PredSrc| match p {
        PredSrc::Reg { reg, .. } => d(reg),
        PredSrc::Imm(_) => 0,
    };
    let bp = |b: Option<(crate::inst::BoolOp, PredSrc)>| b.map_or(0, |(_, c)| p(c));
    let g = inst.guard.map_or(0, |g| d(g.reg));
    let m = match inst.op {
        Op::Video(v) => d(v.d).max(d(v.a)).max(d(v.b)).max(d(v.c)),
        Op::Set(s) => d(s.d).max(r(s.a)).max(r(s.b)).max(bp(s.bool_op)),
        Op::Setp(s) => {
            s.p.map_or(0, d)
                .max(s.q.flatten().map_or(0, d))
                .max(r(s.a))
                .max(r(s.b))
                .max(bp(s.bool_op))
        }
        Op::Selp(s) => d(s.d).max(r(s.a)).max(r(s.b)).max(p(s.c)),
        Op::Slct(s) => d(s.d).max(r(s.a)).max(r(s.b)).max(r(s.c)),
        Op::Alu(x) => d(x.d).max(r(x.a)).max(x.b.map_or(0, r)),
        Op::Int(x) => d(x.d)
            .max(r(x.a))
            .max(x.b.map_or(0, r))
            .max(x.c.map_or(0, r))
            .max(x.carry.map_or(0, |k| d(k.cf))),
        Op::Bit(x) => x.srcs().iter().fold(d(x.d), |m, &o| m.max(r(o))),
        Op::Cvt(x) => d(x.d)
            .max(r(x.a))
            .max(x.b.map_or(0, r))
            .max(x.c.map_or(0, r)),
        Op::Float(x) => d(x.d)
            .max(r(x.a))
            .max(x.b.map_or(0, r))
            .max(x.c.map_or(0, r)),
        Op::Mem(m) => {
            let n = mem_regs_needed(&m);
            debug_assert_eq!(
                n.max(g),
                inst.reg_uses().iter().map(|u| d(u.reg)).max().unwrap_or(0)
            );
            n
        }
        Op::Warp(_) | Op::Async(_) | Op::Mma(_) => {
            inst.reg_uses().iter().map(|u| d(u.reg)).max().unwrap_or(0)
        }
    };
    m.max(g)
}

/// [`regs_needed`] of a memory instruction, its guard aside: as
/// `reg_uses` lists its registers, without building the list.
#[inline]
pub(crate) fn mem_regs_needed(m: &crate::inst::Mem) -> usize {
    let d = |r: RegId| r.0 as usize + 1;
    let base = match m.addr.base {
        crate::inst::AddrBase::Reg(x) => d(x),
        crate::inst::AddrBase::Var(_) | crate::inst::AddrBase::Abs => 0,
    };
    let dests = m.d[..m.dests()].iter().fold(base, |n, &x| n.max(d(x)));
    let (hi, stride) = m.wmma_extra();
    let extra = hi.iter().chain(&stride).fold(dests, |n, &x| n.max(d(x)));
    m.vals[..m.sources()].iter().fold(extra, |n, &o| match o {
        Operand::Reg(x) => n.max(d(x)),
        Operand::Imm(_) | Operand::Special(_) => n,
    })
}

/// The reference executor: [`execute`]'s semantics, written as the scalar
/// lane functions applied lane by lane. Kept public so tests (and anyone
/// doubting the fast paths) can compare the two bit for bit.
pub fn execute_scalar(inst: &Instruction, ctx: &ExecCtx, regs: &mut WarpRegs, active: u32) {
    let uses = inst.reg_uses();
    if let Some(max) = uses.iter().map(|u| u.reg.0 as usize).max() {
        regs.ensure(max + 1);
    }
    let exec = exec_mask(inst.guard, regs, active);
    if exec == 0 {
        return;
    }
    let target = ctx.target;
    let mut out = [0u64; WARP_SIZE];
    match inst.op {
        Op::Video(v) => {
            let a = read_operand(Operand::Reg(v.a), 32, ctx, regs);
            let b = read_operand(Operand::Reg(v.b), 32, ctx, regs);
            let c = read_operand(Operand::Reg(v.c), 32, ctx, regs);
            let plan = video::VideoPlan::new(&v);
            for l in 0..WARP_SIZE {
                out[l] = u64::from(plan.lane(a[l] as u32, b[l] as u32, c[l] as u32));
            }
            write_lanes(regs, v.d, exec, &out);
        }
        Op::Set(s) => {
            let bits = s.stype.bits();
            let a = read_operand(s.a, bits, ctx, regs);
            let b = read_operand(s.b, bits, ctx, regs);
            let c = s.bool_op.map_or(0, |(_, p)| pred_src_bits(p, regs));
            for l in 0..WARP_SIZE {
                out[l] = set_lane(&s, target, a[l], b[l], c >> l & 1 == 1);
            }
            write_lanes(regs, s.d, exec, &out);
        }
        Op::Setp(s) => {
            let bits = s.ty.bits();
            let a = read_operand(s.a, bits, ctx, regs);
            let b = read_operand(s.b, bits, ctx, regs);
            let c = s.bool_op.map_or(0, |(_, p)| pred_src_bits(p, regs));
            let mut q = [0u64; WARP_SIZE];
            for l in 0..WARP_SIZE {
                let (pv, qv) = setp_lane(&s, target, a[l], b[l], c >> l & 1 == 1);
                out[l] = u64::from(pv);
                q[l] = u64::from(qv);
            }
            if let Some(p) = s.p {
                write_lanes(regs, p, exec, &out);
            }
            if let Some(Some(qr)) = s.q {
                write_lanes(regs, qr, exec, &q);
            }
        }
        Op::Selp(s) => {
            let bits = s.ty.bits();
            let a = read_operand(s.a, bits, ctx, regs);
            let b = read_operand(s.b, bits, ctx, regs);
            let c = pred_src_bits(s.c, regs);
            for l in 0..WARP_SIZE {
                out[l] = selp_lane(a[l], b[l], c >> l & 1 == 1);
            }
            write_lanes(regs, s.d, exec, &out);
        }
        Op::Slct(s) => {
            let bits = s.dtype.bits();
            let a = read_operand(s.a, bits, ctx, regs);
            let b = read_operand(s.b, bits, ctx, regs);
            let c = read_operand(s.c, 32, ctx, regs);
            for l in 0..WARP_SIZE {
                out[l] = slct_lane(&s, target, a[l], b[l], c[l] as u32);
            }
            write_lanes(regs, s.d, exec, &out);
        }
        Op::Alu(x) => {
            let bits = x.ty.bits();
            let a = read_operand(x.a, bits, ctx, regs);
            let b = match x.b {
                Some(b) => read_operand(b, x.b_bits(), ctx, regs),
                None => [0; WARP_SIZE],
            };
            for l in 0..WARP_SIZE {
                out[l] = alu_lane(x.op, x.ty, a[l], b[l]);
            }
            write_lanes(regs, x.d, exec, &out);
        }
        Op::Int(x) => {
            let (a, b, c) = int_sources(&x, ctx, regs);
            let cf = x.carry.map_or([0; WARP_SIZE], |k| *regs.get(k.cf));
            let mut flag = [0u64; WARP_SIZE];
            for l in 0..WARP_SIZE {
                (out[l], flag[l]) = match x.carry {
                    Some(_) => carry_lane(&x, a[l], b[l], c[l], cf[l]),
                    None => (int_lane(&x, a[l], b[l], c[l]), 0),
                };
            }
            write_lanes(regs, x.d, exec, &out);
            if let Some(k) = x.carry.filter(|k| k.out) {
                write_lanes(regs, k.cf, exec, &flag);
            }
        }
        Op::Bit(x) => {
            let s = bit::bit_sources(&x, ctx, regs);
            for l in 0..WARP_SIZE {
                out[l] = bit_lane(&x, [s[0][l], s[1][l], s[2][l], s[3][l]]);
            }
            write_lanes(regs, x.d, exec, &out);
        }
        Op::Cvt(x) => {
            let (a, b, c) = cvt::cvt_sources(&x, ctx, regs);
            for l in 0..WARP_SIZE {
                out[l] = cvt_lane_c(&x, a[l], b[l], c[l]);
            }
            write_lanes(regs, x.d, exec, &out);
        }
        Op::Float(x) => {
            let (a, b, c) = float_sources(&x, ctx, regs);
            for l in 0..WARP_SIZE {
                out[l] = float_lane(&x, a[l], b[l], c[l]);
            }
            write_lanes(regs, x.d, exec, &out);
        }
        // Warp-wide and memory operations have no per-lane scalar form.
        Op::Mem(_) | Op::Warp(_) | Op::Async(_) | Op::Mma(_) => {
            execute_fitted(inst, ctx, regs, active)
        }
    }
}

/// The integer family's sources at their widths (`c` at `d`'s; 0 where
/// the operation has no `b` or `c`).
fn int_sources(x: &IntArith, ctx: &ExecCtx, regs: &WarpRegs) -> (Lanes, Lanes, Lanes) {
    let bits = x.ty.bits();
    let b =
        x.b.map_or([0; WARP_SIZE], |b| read_operand(b, x.bty.bits(), ctx, regs));
    let c =
        x.c.map_or([0; WARP_SIZE], |c| read_operand(c, x.d_bits(), ctx, regs));
    (read_operand(x.a, bits, ctx, regs), b, c)
}

/// The float family's sources at the type's width (0 where the operation
/// has no `b` or `c`).
fn float_sources(x: &FloatArith, ctx: &ExecCtx, regs: &WarpRegs) -> (Lanes, Lanes, Lanes) {
    let bits = x.ty.bits();
    let read = |o: Option<Operand>| o.map_or([0; WARP_SIZE], |o| read_operand(o, bits, ctx, regs));
    (read(Some(x.a)), read(x.b), read(x.c))
}
