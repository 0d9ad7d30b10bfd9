//! Per-lane semantics, written once per family as pure scalar functions
//! ([`video_lane`], [`set_lane`], [`setp_lane`], [`selp_lane`], [`slct_lane`],
//! [`alu_lane`]) and lifted over a 32-lane warp by [`execute`] under the
//! active mask and the guard.

mod alu;
mod cmp;
mod fast;
mod int;
mod video;

pub use alu::alu_lane;
pub use cmp::{
    compare, flush_subnormal, selp_lane, set_lane, set_true_value, setp_lane, slct_lane,
};
pub use int::int_lane;
pub use video::video_lane;

use crate::inst::{Instruction, Op, Operand, PredSrc, RegId, SpecialReg};
use crate::target::Target;

/// Lanes per warp.
pub const WARP_SIZE: usize = 32;

/// A warp's registers: one 32-lane array per [`RegId`]. Values are stored
/// zero-extended to 64 bits at the width last written; predicates are 0/1.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WarpRegs {
    regs: Vec<[u64; WARP_SIZE]>,
}

impl WarpRegs {
    /// `n` registers, all zero.
    pub fn new(n: usize) -> Self {
        WarpRegs {
            regs: vec![[0; WARP_SIZE]; n],
        }
    }
    /// Number of registers.
    pub fn len(&self) -> usize {
        self.regs.len()
    }
    /// No registers.
    pub fn is_empty(&self) -> bool {
        self.regs.is_empty()
    }
    /// Grows the file to at least `n` registers (new ones zero).
    pub fn ensure(&mut self, n: usize) {
        if self.regs.len() < n {
            self.regs.resize(n, [0; WARP_SIZE]);
        }
    }
    /// All lanes of `r`.
    pub fn get(&self, r: RegId) -> &[u64; WARP_SIZE] {
        &self.regs[r.0 as usize]
    }
    /// All lanes of `r`, mutably.
    pub fn get_mut(&mut self, r: RegId) -> &mut [u64; WARP_SIZE] {
        &mut self.regs[r.0 as usize]
    }
    /// One lane of `r`.
    pub fn lane(&self, r: RegId, lane: usize) -> u64 {
        self.regs[r.0 as usize][lane]
    }
    /// Sets one lane of `r`.
    pub fn set_lane(&mut self, r: RegId, lane: usize, v: u64) {
        self.regs[r.0 as usize][lane] = v;
    }
}

/// What execution needs beyond the instruction and registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExecCtx {
    /// Target (some semantics depend on it: sm_1x flushes f32 subnormals).
    pub target: Target,
    /// The warp's index, for `%warpid`.
    pub warp_id: u32,
}

/// All-ones in the low `bits` bits (`bits` in 1..=64).
pub(crate) const fn width_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

type Lanes = [u64; WARP_SIZE];

/// Reads a source operand for every lane at `bits` width: registers are
/// masked so stale high bits from a wider earlier write never leak in.
fn read_operand(op: Operand, bits: u32, ctx: &ExecCtx, regs: &WarpRegs) -> Lanes {
    let m = width_mask(bits);
    let mut out = [0u64; WARP_SIZE];
    match op {
        Operand::Reg(r) => {
            for (o, v) in out.iter_mut().zip(regs.get(r)) {
                *o = v & m;
            }
        }
        Operand::Imm(v) => out = [v & m; WARP_SIZE],
        Operand::Special(SpecialReg::LaneId) => {
            for (l, o) in out.iter_mut().enumerate() {
                *o = l as u64 & m;
            }
        }
        Operand::Special(SpecialReg::WarpId) => out = [u64::from(ctx.warp_id) & m; WARP_SIZE],
    }
    out
}

/// Lanes (as a bit mask) where a predicate register holds true.
#[allow(clippy::needless_range_loop)]
fn pred_bits(r: RegId, regs: &WarpRegs) -> u32 {
    let v = regs.get(r);
    let mut m = 0u32;
    for l in 0..WARP_SIZE {
        // A table of lane bits instead of `<< l` lets the loop vectorise.
        m |= fast::BIT[l] & 0u32.wrapping_sub(v[l] as u32 & 1);
    }
    m
}

/// Lanes where a predicate source is true, `!` applied.
fn pred_src_bits(p: PredSrc, regs: &WarpRegs) -> u32 {
    match p {
        PredSrc::Imm(b) => {
            if b {
                u32::MAX
            } else {
                0
            }
        }
        PredSrc::Reg { reg, negate } => pred_bits(reg, regs) ^ if negate { u32::MAX } else { 0 },
    }
}

/// Writes `vals` to the lanes of `d` selected by `exec`.
fn write_lanes(regs: &mut WarpRegs, d: RegId, exec: u32, vals: &Lanes) {
    if exec == u32::MAX {
        *regs.get_mut(d) = *vals;
        return;
    }
    for (l, (o, v)) in regs.get_mut(d).iter_mut().zip(vals).enumerate() {
        if exec >> l & 1 == 1 {
            *o = *v;
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
    let exec = active
        & match inst.guard {
            None => u32::MAX,
            Some(g) => pred_bits(g.reg, regs) ^ if g.negate { u32::MAX } else { 0 },
        };
    if exec == 0 {
        return;
    }
    // By reference: matching by value copies the operand struct first.
    match &inst.op {
        Op::Video(v) => {
            fast::video(v, regs, exec);
        }
        Op::Set(s) => {
            fast::set(s, ctx, regs, exec);
        }
        Op::Setp(s) => {
            let (p, q) = fast::setp(s, ctx, regs);
            if let Some(pr) = s.p {
                fast::blend32(regs.get_mut(pr), exec, &p);
            }
            if let Some(Some(qr)) = s.q {
                fast::blend32(regs.get_mut(qr), exec, &q);
            }
        }
        Op::Selp(s) => {
            let out = fast::selp(s.ty, s.a, s.b, s.c, ctx, regs);
            fast::blend(regs.get_mut(s.d), exec, &out);
        }
        Op::Slct(s) => {
            let out = fast::slct(s, ctx, regs);
            fast::blend(regs.get_mut(s.d), exec, &out);
        }
        Op::Alu(x) => {
            let out = fast::alu(x.op, x.ty, x.a, x.b, alu_b_bits(x.op, x.ty), ctx, regs);
            fast::blend(regs.get_mut(x.d), exec, &out);
        }
        Op::Int(x) => {
            let (a, b, c) = int_sources(x, ctx, regs);
            fast::blend(regs.get_mut(x.d), exec, &int::int_warp(x, &a, &b, &c));
        }
    }
}

/// Registers `inst` needs the file to hold: one past the highest index it
/// names, 0 when it names none (as [`Instruction::reg_uses`], without
/// building the list).
fn regs_needed(inst: &Instruction) -> usize {
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
        Op::Int(x) => d(x.d).max(r(x.a)).max(r(x.b)).max(x.c.map_or(0, r)),
    };
    m.max(g)
}

/// Width `execute` reads an ALU instruction's second source at: shift
/// amounts are 32-bit whatever the type.
fn alu_b_bits(op: crate::inst::AluOp, ty: crate::inst::Type) -> u32 {
    if matches!(op, crate::inst::AluOp::Shl | crate::inst::AluOp::Shr) {
        32
    } else {
        ty.bits()
    }
}

/// The reference executor: [`execute`]'s semantics, written as the scalar
/// lane functions applied lane by lane. Kept public so tests (and anyone
/// doubting the fast paths) can compare the two bit for bit.
pub fn execute_scalar(inst: &Instruction, ctx: &ExecCtx, regs: &mut WarpRegs, active: u32) {
    let uses = inst.reg_uses();
    if let Some(max) = uses.iter().map(|u| u.reg.0 as usize).max() {
        regs.ensure(max + 1);
    }
    let exec = active
        & match inst.guard {
            None => u32::MAX,
            Some(g) => pred_bits(g.reg, regs) ^ if g.negate { u32::MAX } else { 0 },
        };
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
                Some(b) => read_operand(b, alu_b_bits(x.op, x.ty), ctx, regs),
                None => [0; WARP_SIZE],
            };
            for l in 0..WARP_SIZE {
                out[l] = alu_lane(x.op, x.ty, a[l], b[l]);
            }
            write_lanes(regs, x.d, exec, &out);
        }
        Op::Int(x) => {
            let (a, b, c) = int_sources(&x, ctx, regs);
            for l in 0..WARP_SIZE {
                out[l] = int_lane(&x, a[l], b[l], c[l]);
            }
            write_lanes(regs, x.d, exec, &out);
        }
    }
}

/// The integer family's sources at their widths (`c` at `d`'s; 0 without `mad`).
fn int_sources(x: &crate::inst::IntArith, ctx: &ExecCtx, regs: &WarpRegs) -> (Lanes, Lanes, Lanes) {
    let bits = x.ty.bits();
    let c =
        x.c.map_or([0; WARP_SIZE], |c| read_operand(c, x.d_bits(), ctx, regs));
    (
        read_operand(x.a, bits, ctx, regs),
        read_operand(x.b, bits, ctx, regs),
        c,
    )
}
