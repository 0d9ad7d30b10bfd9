//! Supporting instructions of kernel text (`mov and or xor shl shr`).

use super::width_mask;
use crate::inst::{AluOp, Type, TypeKind};

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
