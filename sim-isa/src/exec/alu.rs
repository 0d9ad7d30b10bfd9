//! Supporting instructions of kernel text (`mov and or xor shl shr`): one
//! lane ([`alu_lane`], the definition) and over a warp.

use super::lanes::{src, width_mask, Lanes, WarpRegs};
use super::{ExecCtx, WARP_SIZE};
use crate::inst::{Alu, AluOp, Operand, Type, TypeKind};

/// One lane of an ALU instruction on type `ty`: `a` at the type's width, `b`
/// the second source (a 32-bit unsigned amount for shifts; ignored by `mov`).
/// Shifts by the width or more give 0, or the sign fill for `shr` on `.sN`
/// (PTX clamps the amount); `mov` copies bits. The result is zero-extended
/// at the type width.
pub fn alu_lane(op: AluOp, ty: Type, a: u64, b: u64) -> u64 {
    let bits = ty.bits();
    let m = width_mask(bits);
    let a = a & m;
    let r = match op {
        AluOp::Mov => a,
        AluOp::And => a & b,
        AluOp::Or => a | b,
        AluOp::Xor => a ^ b,
        AluOp::Shl => {
            let n = b.min(64) as u32;
            if n >= bits {
                0
            } else {
                a << n
            }
        }
        AluOp::Shr => {
            if ty.kind() == TypeKind::Signed {
                // Sign-extend to 64 bits so shifting past the width fills with the sign.
                let sh = 64 - bits;
                ((((a << sh) as i64) >> sh) >> b.min(63)) as u64
            } else if b >= u64::from(bits) {
                // Checked on the full amount: clamping it to 63 first would
                // turn `shr.u64` by 64 or more into a shift by 63.
                0
            } else {
                a >> b
            }
        }
    };
    r & m
}

/// Bitwise operations: masking the result alone is exact (each result
/// bit depends on its own bits of `a` and `b` only).
#[inline(always)]
fn bitwise_loop(f: impl Fn(u64, u64) -> u64, m: u64, a: &Lanes, b: &Lanes) -> Lanes {
    let mut o = [0u64; WARP_SIZE];
    for l in 0..WARP_SIZE {
        o[l] = f(a[l], b[l]) & m;
    }
    o
}

#[inline(always)]
fn alu_loop(f: impl Fn(u64, u64) -> u64, ma: u64, mb: u64, a: &Lanes, b: &Lanes) -> Lanes {
    let mut o = [0u64; WARP_SIZE];
    for l in 0..WARP_SIZE {
        o[l] = f(a[l] & ma, b[l] & mb) & ma;
    }
    o
}

/// Integer ALU over a warp (`a` at the type width, `b` at `x.b_bits()`,
/// the width `execute` reads it at).
#[inline]
pub(super) fn alu(x: &Alu, ctx: &ExecCtx, regs: &WarpRegs) -> Lanes {
    // From the instruction's fields: building an `AluPlan` per call cost
    // more than these reads.
    src!(a, x.a, ctx, regs);
    src!(b, alu_b(x), ctx, regs);
    alu_lanes(x.op, x.ty, width_mask(x.ty.bits()), x.b_bits(), a, b)
}

/// The second source [`alu`] reads: without one, `mov` (which ignores it)
/// reads `a` again rather than zeros filled.
#[inline(always)]
fn alu_b(x: &Alu) -> Operand {
    match (x.b, x.op) {
        (Some(b), _) => b,
        (None, AluOp::Mov) => x.a,
        (None, _) => Operand::Imm(0),
    }
}

/// The operation on the sources' lanes (`m`: the type's width mask;
/// `b_bits`: `b`'s width, which shifts read).
#[inline(always)]
fn alu_lanes(op: AluOp, ty: Type, m: u64, b_bits: u32, a: &Lanes, b: &Lanes) -> Lanes {
    match op {
        AluOp::Mov => bitwise_loop(|x, _| x, m, a, b),
        AluOp::And => bitwise_loop(|x, y| x & y, m, a, b),
        AluOp::Or => bitwise_loop(|x, y| x | y, m, a, b),
        AluOp::Xor => bitwise_loop(|x, y| x ^ y, m, a, b),
        AluOp::Shl | AluOp::Shr => shift(op, ty, b_bits, a, b),
    }
}

/// An ALU instruction decoded once: the type's width mask, the second
/// source resolved (without one, `mov`, which ignores it, reads `a` again
/// rather than zeros filled) and its width. [`alu`] builds one per call; a
/// prepared instruction keeps one.
#[derive(Clone, Copy, Debug)]
pub(super) struct AluPlan {
    op: AluOp,
    ty: Type,
    m: u64,
    b_bits: u32,
    pub(super) d: crate::inst::RegId,
    a: Operand,
    b: Operand,
}

impl AluPlan {
    /// `x`, decoded.
    #[inline(always)]
    pub(super) fn new(x: &Alu) -> Self {
        let b = alu_b(x);
        AluPlan {
            op: x.op,
            ty: x.ty,
            m: width_mask(x.ty.bits()),
            b_bits: x.b_bits(),
            d: x.d,
            a: x.a,
            b,
        }
    }
}

/// A decoded ALU instruction over a warp, the operation `op` (the plan's)
/// given apart so that a kernel can fix it as a constant
/// ([`AluPlan::kernel`]).
#[inline(always)]
fn alu_run_op(op: AluOp, p: &AluPlan, ctx: &ExecCtx, regs: &WarpRegs) -> Lanes {
    src!(a, p.a, ctx, regs);
    src!(b, p.b, ctx, regs);
    alu_lanes(op, p.ty, p.m, p.b_bits, a, b)
}

/// An ALU kernel: a decoded instruction run over a warp and written into
/// the lanes of its destination selected by `exec`.
pub(super) type AluKernel = fn(&AluPlan, &ExecCtx, &mut WarpRegs, u32);

/// The operations the kernels fix, by kernel index; `None`: read from the
/// plan (the shifts, whose own dispatch is in [`shift`]).
const KERNEL_OPS: [Option<AluOp>; 5] = [
    Some(AluOp::Mov),
    Some(AluOp::And),
    Some(AluOp::Or),
    Some(AluOp::Xor),
    None,
];

impl AluPlan {
    /// The kernel for this plan, compiled for its operation.
    pub(super) fn kernel(&self) -> AluKernel {
        match self.op {
            AluOp::Mov => alu_kernel::<0>,
            AluOp::And => alu_kernel::<1>,
            AluOp::Or => alu_kernel::<2>,
            AluOp::Xor => alu_kernel::<3>,
            AluOp::Shl | AluOp::Shr => alu_kernel::<4>,
        }
    }
}

crate::exec::simd::wide_kernel! {
fn alu_kernel [const K: usize] [K] (p: &AluPlan, ctx: &ExecCtx, regs: &mut WarpRegs, exec: u32) {
    let op = KERNEL_OPS[K].unwrap_or(p.op);
    let out = alu_run_op(op, p, ctx, regs);
    super::lanes::blend(regs.get_mut(p.d), exec, &out);
}
}

/// The shifts of [`alu`]: a function of their own, so that what they
/// decode (the amount's width, the sign fill) is not computed ahead of the
/// match for every ALU instruction.
#[inline(never)]
fn shift(op: AluOp, ty: Type, b_bits: u32, a: &Lanes, b: &Lanes) -> Lanes {
    let bits = ty.bits();
    let m = width_mask(bits);
    let mb = width_mask(b_bits);
    let wide = u64::from(bits);
    match op {
        AluOp::Shr if ty.kind() == TypeKind::Signed => {
            let sh = 64 - bits;
            alu_loop(
                move |x, y| ((((x << sh) as i64) >> sh) >> y.min(63)) as u64,
                m,
                mb,
                a,
                b,
            )
        }
        AluOp::Shr => alu_loop(
            |x, y| if y >= wide { 0 } else { x >> (y & 63) },
            m,
            mb,
            a,
            b,
        ),
        _ => alu_loop(
            |x, y| if y >= wide { 0 } else { x << (y & 63) },
            m,
            mb,
            a,
            b,
        ),
    }
}
