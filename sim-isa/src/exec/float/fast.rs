//! The common `.f32` forms on the host's own IEEE operations: `add sub
//! mul fma` rounding to nearest (`.rn`, or no modifier, PTX's default),
//! without `.sat`, with or without `.ftz`.
//!
//! [`lane32`](super::lane32) computes these exactly in `f64` and rounds
//! once to `f32`; the host's `f32` `+ - *` and [`f32::mul_add`] (a fused
//! multiply-add, rounded once) are correctly rounded to nearest even too,
//! so the value is the same: these loops give its bits, the H100's NaN
//! (`0x7fffffff` for every NaN result) and `.ftz`'s flushes of sources and
//! result applied as there. They read no target: `lane32` does not either
//! (the f32 flush of sm_1x applies to comparisons and `slct`, not here).
//! Held to [`super::float_lane`] bit for bit by the property tests
//! (`tests/it/float_fast.rs`).

// Index loops over fixed 32-lane arrays, as in `lanes.rs`.
#![allow(clippy::needless_range_loop)]

use super::NAN32;
use crate::exec::lanes::{blend, src, Lanes};
use crate::exec::{ExecCtx, WarpRegs, WARP_SIZE};
use crate::inst::{FloatArith, FloatOp, Operand, RegId, Rnd, Type};

/// A form [`Fast32Plan::new`] accepts, decoded once: the operands (a
/// missing one as the immediate 0, as the general path reads it).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fast32Plan {
    op: FloatOp,
    ftz: bool,
    d: RegId,
    a: Operand,
    b: Operand,
    c: Operand,
    /// Whether every source the operation reads is a register, as in nearly
    /// every execution: the kernel compiled for that case reads `srcs` in
    /// place, with no operand to decode and no call, so it needs no stack
    /// frame.
    in_regs: bool,
    /// The registers of `a b c` (`c` read as `a` where the operation has
    /// no `c`) when `in_regs`; unused otherwise.
    srcs: [RegId; 3],
}

/// A fast form's kernel: the lane loop with its operation and `.ftz`
/// fixed, written into the lanes of `d` selected by `exec`.
pub(crate) type Fast32Kernel = fn(&Fast32Plan, &ExecCtx, &mut WarpRegs, u32);

impl Fast32Plan {
    /// `x` if it is one of the fast forms: `.f32` `add sub mul fma`, round
    /// to nearest (`.rn` or none), no `.sat`, no `.approx`.
    #[inline(always)]
    pub(crate) fn new(x: &FloatArith) -> Option<Self> {
        let fast = x.ty == Type::F32
            && x.approx.is_none()
            && !x.sat
            && matches!(x.rnd, None | Some(Rnd::Rn))
            && matches!(
                x.op,
                FloatOp::Add | FloatOp::Sub | FloatOp::Mul | FloatOp::Fma
            );
        if !fast {
            return None;
        }
        let (a, b) = (x.a, x.b.unwrap_or(Operand::Imm(0)));
        let c = x.c.unwrap_or(Operand::Imm(0));
        let reg = |o: Operand| match o {
            Operand::Reg(r) => Some(r),
            Operand::Imm(_) | Operand::Special(_) => None,
        };
        let srcs = match (reg(a), reg(b)) {
            (Some(ra), Some(rb)) if x.op == FloatOp::Fma => reg(c).map(|rc| [ra, rb, rc]),
            (Some(ra), Some(rb)) => Some([ra, rb, ra]),
            _ => None,
        };
        Some(Fast32Plan {
            op: x.op,
            ftz: x.ftz,
            d: x.d,
            a,
            b,
            c,
            in_regs: srcs.is_some(),
            srcs: srcs.unwrap_or([RegId(0); 3]),
        })
    }

    /// The kernel for this plan, compiled for its operation, `.ftz` and
    /// whether its sources are all registers.
    pub(crate) fn kernel(&self) -> Fast32Kernel {
        let (ftz, regs) = (self.ftz, self.in_regs);
        match self.op {
            FloatOp::Add => kernel_for::<ADD>(ftz, regs),
            FloatOp::Sub => kernel_for::<SUB>(ftz, regs),
            FloatOp::Mul => kernel_for::<MUL>(ftz, regs),
            // `fma`, the one other fast operation (`new`).
            _ => kernel_for::<FMA>(ftz, regs),
        }
    }
}

/// [`Fast32Plan::kernel`] for the operation `OP`.
fn kernel_for<const OP: u8>(ftz: bool, regs: bool) -> Fast32Kernel {
    match (ftz, regs) {
        (false, false) => kernel::<OP, false, false>,
        (false, true) => kernel::<OP, false, true>,
        (true, false) => kernel::<OP, true, false>,
        (true, true) => kernel::<OP, true, true>,
    }
}

const ADD: u8 = 0;
const SUB: u8 = 1;
const MUL: u8 = 2;
const FMA: u8 = 3;

/// `v` with a subnormal flushed to the zero of its sign when `FTZ` (a zero
/// stays itself): `ftz32` on bits, branch-free.
#[inline(always)]
fn flush<const FTZ: bool>(v: u32) -> u32 {
    if FTZ && v & 0x7F80_0000 == 0 {
        v & 0x8000_0000
    } else {
        v
    }
}

/// One lane: the low words of the sources, the result's bits.
#[inline(always)]
fn lane<const OP: u8, const FTZ: bool>(a: u64, b: u64, c: u64) -> u32 {
    let f = |v: u64| f32::from_bits(flush::<FTZ>(v as u32));
    let (a, b, c) = (f(a), f(b), f(c));
    let r = match OP {
        ADD => a + b,
        SUB => a - b,
        MUL => a * b,
        _ => a.mul_add(b, c),
    };
    // A NaN source gives a NaN result, as any NaN result: the one NaN.
    if r.is_nan() {
        NAN32
    } else {
        flush::<FTZ>(r.to_bits())
    }
}

/// The lane loop over a warp's sources.
#[inline(always)]
fn lanes<const OP: u8, const FTZ: bool>(a: &Lanes, b: &Lanes, c: &Lanes) -> Lanes {
    let mut o = [0u64; WARP_SIZE];
    for l in 0..WARP_SIZE {
        o[l] = u64::from(lane::<OP, FTZ>(a[l], b[l], c[l]));
    }
    o
}

crate::exec::simd::wide_kernel! {
/// `REGS`: compiled for a plan `in_regs` (the sources are registers).
fn kernel [const OP: u8, const FTZ: bool, const REGS: bool] [OP, FTZ, REGS] (
    p: &Fast32Plan,
    ctx: &ExecCtx,
    regs: &mut WarpRegs,
    exec: u32,
) {
    let out = if REGS {
        let [a, b, c] = p.srcs;
        lanes::<OP, FTZ>(regs.get(a), regs.get(b), regs.get(c))
    } else {
        src!(a, p.a, ctx, regs);
        src!(b, p.b, ctx, regs);
        if OP == FMA {
            src!(c, p.c, ctx, regs);
            lanes::<OP, FTZ>(a, b, c)
        } else {
            lanes::<OP, FTZ>(a, b, a)
        }
    };
    blend(regs.get_mut(p.d), exec, &out);
}
}
