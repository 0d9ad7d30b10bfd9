//! Supporting integer instructions of kernel text
//! (`mov add sub mul.lo and or xor shl shr`): one lane ([`alu_lane`], the
//! definition) and over a warp.

use super::lanes::{src, width_mask, Lanes, WarpRegs};
use super::{ExecCtx, WARP_SIZE};
use crate::inst::{AluOp, Operand, Type, TypeKind};

/// One lane of an ALU instruction on type `ty`: `a` at the type's width, `b`
/// the second source (a 32-bit unsigned amount for shifts; ignored by `mov`).
/// Integer arithmetic wraps at the type width; shifts by the width or more give
/// 0, or the sign fill for `shr` on `.sN` (PTX clamps the amount). `add`/`sub`
/// on float types round to nearest even in the type's precision; `mov` copies
/// bits. The result is zero-extended at the type width.
pub fn alu_lane(op: AluOp, ty: Type, a: u64, b: u64) -> u64 {
    let bits = ty.bits();
    let m = width_mask(bits);
    let a = a & m;
    let r = match op {
        AluOp::Mov => a,
        AluOp::Add | AluOp::Sub if is_float(ty) => float_add(ty, a, b & m, op == AluOp::Sub),
        AluOp::Add => a.wrapping_add(b),
        AluOp::Sub => a.wrapping_sub(b),
        AluOp::MulLo => a.wrapping_mul(b),
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

fn is_float(ty: Type) -> bool {
    matches!(ty, Type::F16 | Type::Bf16 | Type::F32 | Type::F64)
}

/// `a ± b` rounded to nearest even in `ty`'s precision. f16/bf16 go through
/// f32, which is exact enough that the second rounding cannot change the result
/// (24 >= 2*11+2 mantissa bits).
fn float_add(ty: Type, a: u64, b: u64, sub: bool) -> u64 {
    let b = if sub {
        b ^ (1u64 << (ty.bits() - 1))
    } else {
        b
    };
    match ty {
        Type::F64 => (f64::from_bits(a) + f64::from_bits(b)).to_bits(),
        Type::F32 => u64::from((f32::from_bits(a as u32) + f32::from_bits(b as u32)).to_bits()),
        Type::F16 => {
            let s =
                half::f16::from_bits(a as u16).to_f32() + half::f16::from_bits(b as u16).to_f32();
            u64::from(half::f16::from_f32(s).to_bits())
        }
        _ => {
            let s =
                half::bf16::from_bits(a as u16).to_f32() + half::bf16::from_bits(b as u16).to_f32();
            u64::from(half::bf16::from_f32(s).to_bits())
        }
    }
}

#[inline(always)]
fn alu_loop(f: impl Fn(u64, u64) -> u64, ma: u64, mb: u64, a: &Lanes, b: &Lanes) -> Lanes {
    let mut o = [0u64; WARP_SIZE];
    for l in 0..WARP_SIZE {
        o[l] = f(a[l] & ma, b[l] & mb) & ma;
    }
    o
}

/// Integer ALU over a warp (`a` at the type width, `b` at `b_bits`, the
/// width `execute` reads it at); float `add`/`sub` go lane by lane through
/// [`alu_lane`].
pub(super) fn alu(
    op: AluOp,
    ty: Type,
    a: Operand,
    b: Option<Operand>,
    b_bits: u32,
    ctx: &ExecCtx,
    regs: &WarpRegs,
) -> Lanes {
    let bits = ty.bits();
    let m = width_mask(bits);
    let mb = width_mask(b_bits);
    // Without b (`mov`, which ignores it) read a again rather than fill zeros.
    let b = match (b, op) {
        (Some(b), _) => b,
        (None, AluOp::Mov) => a,
        (None, _) => Operand::Imm(0),
    };
    src!(a, a, ctx, regs);
    src!(b, b, ctx, regs);
    if is_float(ty) && matches!(op, AluOp::Add | AluOp::Sub) {
        let mut o = [0u64; WARP_SIZE];
        for l in 0..WARP_SIZE {
            o[l] = alu_lane(op, ty, a[l] & m, b[l] & mb);
        }
        return o;
    }
    let wide = u64::from(bits);
    match op {
        AluOp::Mov => alu_loop(|x, _| x, m, mb, a, b),
        AluOp::Add => alu_loop(|x, y| x.wrapping_add(y), m, mb, a, b),
        AluOp::Sub => alu_loop(|x, y| x.wrapping_sub(y), m, mb, a, b),
        AluOp::MulLo => alu_loop(|x, y| x.wrapping_mul(y), m, mb, a, b),
        AluOp::And => alu_loop(|x, y| x & y, m, mb, a, b),
        AluOp::Or => alu_loop(|x, y| x | y, m, mb, a, b),
        AluOp::Xor => alu_loop(|x, y| x ^ y, m, mb, a, b),
        AluOp::Shl => alu_loop(
            |x, y| if y >= wide { 0 } else { x << (y & 63) },
            m,
            mb,
            a,
            b,
        ),
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
    }
}
