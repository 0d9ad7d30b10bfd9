//! Supporting integer instructions of kernel text
//! (`mov add sub mul.lo and or xor shl shr`).

use super::width_mask;
use crate::inst::{AluOp, Type, TypeKind};

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
            let n = b.min(63) as u32;
            if ty.kind() == TypeKind::Signed {
                // Sign-extend to 64 bits so shifting past the width fills with the sign.
                let sh = 64 - bits;
                ((((a << sh) as i64) >> sh) >> n) as u64
            } else if n >= bits {
                0
            } else {
                a >> n
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
