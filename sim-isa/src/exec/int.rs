//! Integer arithmetic (`add sub mul mad min max div rem` over `.u16 .u32
//! .u64 .s16 .s32 .s64`, `abs neg` over the signed ones, the packed `add
//! min max .u16x2 .s16x2` and `.relu`, `dp4a dp2a sad`, PTX ISA 9.7.1):
//! one scalar lane function, the reference, and its warp form.

use super::lanes::{blend, src, src_in, width_mask, Lanes, Reg, WarpRegs};
use super::{ExecCtx, WARP_SIZE};
use crate::inst::{IntArith, IntOp, MulMode, Operand, Type, TypeKind};

/// `x` (its low `bits` bits) as a signed or unsigned value.
fn ext(x: u64, bits: u32, signed: bool) -> i128 {
    let x = x & width_mask(bits);
    if signed {
        let sh = 64 - bits;
        i128::from(((x << sh) as i64) >> sh)
    } else {
        i128::from(x)
    }
}

/// `v` clamped to `.s32`'s range, as its 32 bits (`.sat`: MININT..MAXINT).
fn sat32(v: i128) -> u64 {
    u64::from(v.clamp(i128::from(i32::MIN), i128::from(i32::MAX)) as i32 as u32)
}

/// The full `2n`-bit product `a * b`, as two's complement bits.
fn product(ty: Type, a: u64, b: u64) -> u128 {
    let (bits, signed) = (ty.bits(), ty.kind() == TypeKind::Signed);
    if signed {
        // |a|, |b| <= 2^63: the product fits in i128.
        (ext(a, bits, true) * ext(b, bits, true)) as u128
    } else {
        u128::from(a & width_mask(bits)) * u128::from(b & width_mask(bits))
    }
}

/// One lane of `x`'s operation: `a`, `b` at the type's width, `c` (mad's
/// addend) at the destination's. The result is zero-extended at the
/// destination's width (twice the type's for `.wide`).
///
/// - `add`/`sub` wrap; `.sat` (`.s32` only) clamps to MININT..MAXINT.
/// - `mul.lo`/`.hi` keep the low/high `n` bits of the `2n`-bit product,
///   `mul.wide` all of it.
/// - `mad.lo`/`.hi` add `c` to those `n` bits, wrapping; `mad.hi.sat.s32`
///   clamps the sum; `mad.wide` adds `c` to the `2n`-bit product.
/// - `min`/`max` compare in the type's order; `abs`/`neg` wrap (the most
///   negative value is its own absolute value and negation).
/// - `div` rounds toward zero and `rem` takes `a`'s sign (the manual's C
///   semantics); the most negative value divided by -1 wraps to itself,
///   remainder 0. Division by zero, which the manual leaves undefined, gives
///   all ones for both, as the H100's code does (its `div`/`rem` sequences
///   end by selecting `~0` when `b` is zero, whatever the signs).
///
/// The packed types compute each 16-bit half on its own (wrapping, no
/// carry between halves); `.relu` then makes a negative result (or half) 0.
/// `dp4a`, `dp2a` and `sad` are [`dot_sad_lane`]'s.
pub fn int_lane(x: &IntArith, a: u64, b: u64, c: u64) -> u64 {
    if x.ty.is_packed16() {
        let h = IntArith {
            ty: x.ty.half(),
            bty: x.ty.half(),
            ..*x
        };
        let half = |s: u32| int_lane(&h, (a >> s) & 0xffff, (b >> s) & 0xffff, 0) << s;
        return half(0) | half(16);
    }
    let v = int_lane_scalar(x, a, b, c);
    if x.relu && ext(v, x.ty.bits(), true) < 0 {
        0
    } else {
        v
    }
}

/// `int_lane` of one scalar (or one half's) operation, before `.relu`.
fn int_lane_scalar(x: &IntArith, a: u64, b: u64, c: u64) -> u64 {
    let n = x.ty.bits();
    let signed = x.ty.kind() == TypeKind::Signed;
    let m = width_mask(n);
    let hi = |t: u128| ((t >> n) as u64) & m;
    match (x.op, x.sat) {
        (IntOp::Add, false) => a.wrapping_add(b) & m,
        (IntOp::Sub, false) => a.wrapping_sub(b) & m,
        (IntOp::Add, true) => sat32(ext(a, n, signed) + ext(b, n, signed)),
        (IntOp::Sub, true) => sat32(ext(a, n, signed) - ext(b, n, signed)),
        (IntOp::Mul(MulMode::Lo), _) => a.wrapping_mul(b) & m,
        (IntOp::Mul(MulMode::Hi), _) => hi(product(x.ty, a, b)),
        (IntOp::Mul(MulMode::Wide), _) => product(x.ty, a, b) as u64 & width_mask(2 * n),
        (IntOp::Mad(MulMode::Lo), _) => a.wrapping_mul(b).wrapping_add(c) & m,
        (IntOp::Mad(MulMode::Hi), false) => hi(product(x.ty, a, b)).wrapping_add(c) & m,
        (IntOp::Mad(MulMode::Hi), true) => {
            sat32(ext(hi(product(x.ty, a, b)), n, signed) + ext(c, n, signed))
        }
        (IntOp::Mad(MulMode::Wide), _) => {
            (product(x.ty, a, b) as u64).wrapping_add(c) & width_mask(2 * n)
        }
        (IntOp::Min, _) => pick(ext(a, n, signed) <= ext(b, n, signed), a, b) & m,
        (IntOp::Max, _) => pick(ext(a, n, signed) >= ext(b, n, signed), a, b) & m,
        (IntOp::Div | IntOp::Rem, _) if b & m == 0 => m,
        // In i128 neither overflows (MIN / -1 = 2^(n-1), wrapped by the mask).
        (IntOp::Div, _) => (ext(a, n, signed) / ext(b, n, signed)) as u64 & m,
        (IntOp::Rem, _) => (ext(a, n, signed) % ext(b, n, signed)) as u64 & m,
        (IntOp::Abs, _) => ext(a, n, signed).unsigned_abs() as u64 & m,
        (IntOp::Neg, _) => a.wrapping_neg() & m,
        (IntOp::Dp4a | IntOp::Dp2a(_) | IntOp::Sad, _) => dot_sad_lane(x, a, b, c),
        // `int_lane` reads no flag: the carry-in forms as with `CC.CF` 0,
        // `a + b`, `a + ~b` and `mad` (`exec/carry.rs` runs them with it).
        (IntOp::Addc, _) => a.wrapping_add(b) & m,
        (IntOp::Subc, _) => a.wrapping_add(!b) & m,
        (IntOp::Madc(mode), _) => int_lane_scalar(
            &IntArith {
                op: IntOp::Mad(mode),
                sat: false,
                ..*x
            },
            a,
            b,
            c,
        ),
    }
}

/// `dp4a`, `dp2a` and `sad` (9.7.1.23, 9.7.1.24, 9.7.1.12), wrapping at
/// the destination's width:
/// - `dp4a`: `c` plus the products of byte `i` of `a` and of `b`, `i` = 0..3,
///   each byte extended by its type's signedness;
/// - `dp2a.lo`/`.hi`: `c` plus the products of `a`'s 16-bit half `i` with
///   byte `i` (`.lo`) or `i + 2` (`.hi`) of `b`;
/// - `sad`: `c + |a - b|`, the difference taken in the type's order.
fn dot_sad_lane(x: &IntArith, a: u64, b: u64, c: u64) -> u64 {
    let (sa, sb) = (
        x.ty.kind() == TypeKind::Signed,
        x.bty.kind() == TypeKind::Signed,
    );
    let m = width_mask(x.d_bits());
    let sum = match x.op {
        IntOp::Dp4a => (0..4)
            .map(|i| ext(a >> (8 * i), 8, sa) * ext(b >> (8 * i), 8, sb))
            .sum::<i128>(),
        IntOp::Dp2a(mode) => {
            let base = if mode == MulMode::Hi { 2 } else { 0 };
            (0..2)
                .map(|i| ext(a >> (16 * i), 16, sa) * ext(b >> (8 * (base + i)), 8, sb))
                .sum::<i128>()
        }
        // Each other operation named: exhaustive, no wildcard (a new one must be placed).
        IntOp::Sad
        | IntOp::Add
        | IntOp::Sub
        | IntOp::Mul(_)
        | IntOp::Mad(_)
        | IntOp::Min
        | IntOp::Max
        | IntOp::Div
        | IntOp::Rem
        | IntOp::Abs
        | IntOp::Neg
        | IntOp::Addc
        | IntOp::Subc
        | IntOp::Madc(_) => {
            let n = x.ty.bits();
            (ext(a, n, sa) - ext(b, n, sa)).abs()
        }
    };
    (sum as u64).wrapping_add(c) & m
}

/// `a` if `first`, else `b`.
#[inline(always)]
fn pick(first: bool, a: u64, b: u64) -> u64 {
    if first {
        a
    } else {
        b
    }
}

#[inline(always)]
fn each(f: impl Fn(u64, u64) -> u64, a: &Lanes, b: &Lanes) -> Lanes {
    let mut o = [0u64; WARP_SIZE];
    for l in 0..WARP_SIZE {
        o[l] = f(a[l], b[l]);
    }
    o
}

/// [`int_lane`] over a warp, reading its own sources and writing the lanes
/// of `d` selected by `exec`. The wrapping forms (`add`, `sub`, `mul.lo`
/// without `.sat`) take the registers unmasked, as they are: the low `n`
/// bits of a wrapping sum, difference or product depend only on the
/// sources' low `n` bits, so masking the result alone is exact, and the
/// three 32-lane source copies `int_sources` makes are saved.
#[inline]
pub(crate) fn int_into(x: &IntArith, ctx: &ExecCtx, regs: &mut WarpRegs, exec: u32) {
    if !is_wrapping(x) {
        // Elsewhere: its arrays would merge with these and go through memory.
        return int_general_into(x, ctx, regs, exec);
    }
    // From the instruction's fields: building an `IntWrapPlan` per call
    // cost more than these reads.
    let out = {
        src!(a, x.a, ctx, regs);
        src!(b, x.b.unwrap_or(Operand::Imm(0)), ctx, regs);
        wrap_lanes(x.op, width_mask(x.ty.bits()), a, b)
    };
    blend(regs.get_mut(x.d), exec, &out);
}

/// A wrapping form's operation on the sources' lanes, masked by `m` (the
/// type's width mask).
#[inline(always)]
fn wrap_lanes(op: IntOp, m: u64, a: &Lanes, b: &Lanes) -> Lanes {
    match op {
        IntOp::Add => each(|p, q| p.wrapping_add(q) & m, a, b),
        IntOp::Sub => each(|p, q| p.wrapping_sub(q) & m, a, b),
        _ => each(|p, q| p.wrapping_mul(q) & m, a, b),
    }
}

/// Whether `x` is one of the wrapping forms (`add`, `sub`, `mul.lo`
/// without `.sat`).
#[inline(always)]
pub(crate) fn is_wrapping(x: &IntArith) -> bool {
    // A packed add does not carry between its halves, and `.relu` clamps:
    // `int_lane`'s.
    !x.sat
        && !x.relu
        && x.carry.is_none()
        && !x.ty.is_packed16()
        && matches!(x.op, IntOp::Add | IntOp::Sub | IntOp::Mul(MulMode::Lo))
}

/// Whether `x` runs a prepared kernel ([`IntWrapPlan`]): a wrapping form
/// ([`is_wrapping`]), `mad.lo` without `.sat`, or `mul.wide` (16 and 32
/// bits, the validator's only widths for it) with `b` of `a`'s type, the
/// forms that index arrays in nearly every kernel.
pub(crate) fn has_wrap_kernel(x: &IntArith) -> bool {
    let plain = !x.sat && !x.relu && x.carry.is_none() && !x.ty.is_packed16();
    let wide = x.op == IntOp::Mul(MulMode::Wide) && x.ty.bits() <= 32 && x.bty == x.ty;
    is_wrapping(x) || (plain && (x.op == IntOp::Mad(MulMode::Lo) || wide))
}

/// A form [`has_wrap_kernel`] accepts, decoded once: the operation, the
/// masks of the sources' and the result's widths, the operands (a missing
/// `b` or `c` as 0).
#[derive(Clone, Copy, Debug)]
pub(crate) struct IntWrapPlan {
    op: IntOp,
    /// The type's width mask.
    m: u64,
    /// The destination's width mask: `m`, or twice its width for `.wide`.
    dm: u64,
    /// `64 -` the type's width: `.wide.s*` sign-extends a source with it.
    sh: u32,
    /// The type is signed (`.wide`'s kernel depends on it).
    signed: bool,
    d: crate::inst::RegId,
    a: Operand,
    b: Operand,
    c: Operand,
}

impl IntWrapPlan {
    /// `x`, which must be a form [`has_wrap_kernel`] accepts.
    #[inline(always)]
    pub(crate) fn new(x: &IntArith) -> Self {
        let n = x.ty.bits();
        IntWrapPlan {
            op: x.op,
            m: width_mask(n),
            dm: width_mask(x.d_bits()),
            sh: 64 - n,
            signed: x.ty.kind() == TypeKind::Signed,
            d: x.d,
            a: x.a,
            b: x.b.unwrap_or(Operand::Imm(0)),
            c: x.c.unwrap_or(Operand::Imm(0)),
        }
    }
}

/// A decoded form over a warp, written into the lanes of `d` selected by
/// `exec`; the operation `K` (one of the constants below) fixed by the
/// kernel ([`IntWrapPlan::kernel`]). Sources are read unmasked: the low
/// `n` bits of a wrapping result depend only on the sources' low `n`
/// bits, and `.wide` masks or sign-extends its sources from them. The
/// registers as aligned [`Reg`]s: whole vectors in the AVX2 copy.
#[inline(always)]
fn int_wrap_op<const K: usize>(p: &IntWrapPlan, ctx: &ExecCtx, file: &mut [Reg], exec: u32) {
    let out = {
        src_in!(a, p.a, ctx, file);
        src_in!(b, p.b, ctx, file);
        let (m, sh) = (p.m, p.sh);
        match K {
            MAD_LO => {
                src_in!(c, p.c, ctx, file);
                let mut o = [0u64; WARP_SIZE];
                for l in 0..WARP_SIZE {
                    o[l] = a[l].wrapping_mul(b[l]).wrapping_add(c[l]) & m;
                }
                o
            }
            // The 2n-bit product fits in 64 bits (n <= 32): signed, as the
            // two's complement of the i64 product (`int_warp`'s arms).
            WIDE_U => each(|x, y| (x & m) * (y & m), a, b),
            WIDE_S => {
                let dm = p.dm;
                let v = move |x: u64| ((x << sh) as i64) >> sh;
                each(|x, y| v(x).wrapping_mul(v(y)) as u64 & dm, a, b)
            }
            ADD => wrap_lanes(IntOp::Add, m, a, b),
            SUB => wrap_lanes(IntOp::Sub, m, a, b),
            // `MUL_LO`, the one other kernel (`kernel`).
            _ => wrap_lanes(IntOp::Mul(MulMode::Lo), m, a, b),
        }
    };
    blend(&mut file[p.d.0 as usize].0, exec, &out);
}

/// A form's kernel: [`int_wrap_op`] with the operation fixed.
pub(crate) type IntWrapKernel = fn(&IntWrapPlan, &ExecCtx, &mut WarpRegs, u32);

/// The operations the kernels fix: `add sub mul.lo mad.lo`, `mul.wide`
/// unsigned and signed.
const ADD: usize = 0;
const SUB: usize = 1;
const MUL_LO: usize = 2;
const MAD_LO: usize = 3;
const WIDE_U: usize = 4;
const WIDE_S: usize = 5;

impl IntWrapPlan {
    /// The kernel for this plan, compiled for its operation.
    pub(crate) fn kernel(&self) -> IntWrapKernel {
        match self.op {
            IntOp::Add => int_wrap_kernel::<ADD>,
            IntOp::Sub => int_wrap_kernel::<SUB>,
            IntOp::Mad(_) => int_wrap_kernel::<MAD_LO>,
            IntOp::Mul(MulMode::Wide) if self.signed => int_wrap_kernel::<WIDE_S>,
            IntOp::Mul(MulMode::Wide) => int_wrap_kernel::<WIDE_U>,
            // `mul.lo`, the one other form (`has_wrap_kernel`).
            _ => int_wrap_kernel::<MUL_LO>,
        }
    }
}

crate::exec::simd::wide_kernel! {
fn int_wrap_kernel [const K: usize] [K] (p: &IntWrapPlan, ctx: &ExecCtx, regs: &mut WarpRegs, exec: u32)
as (p: &IntWrapPlan = p, ctx: &ExecCtx = ctx, file: &mut [Reg] = regs.file_mut(), exec: u32 = exec) {
    int_wrap_op::<K>(p, ctx, file, exec);
}
}

/// [`int_into`] for the forms that read their sources at their widths.
#[inline(never)]
fn int_general_into(x: &IntArith, ctx: &ExecCtx, regs: &mut WarpRegs, exec: u32) {
    let (a, b, c) = super::int_sources(x, ctx, regs);
    blend(regs.get_mut(x.d), exec, &int_warp(x, &a, &b, &c));
}

/// [`int_lane`] over a warp: sources already read at their widths. The
/// common wrapping forms run as plain loops the compiler vectorises.
pub(crate) fn int_warp(x: &IntArith, a: &Lanes, b: &Lanes, c: &Lanes) -> Lanes {
    let m = width_mask(x.ty.bits());
    if x.ty.is_packed16() || x.relu {
        let mut o = [0u64; WARP_SIZE];
        for l in 0..WARP_SIZE {
            o[l] = int_lane(x, a[l], b[l], c[l]);
        }
        return o;
    }
    let n = x.ty.bits();
    let signed = x.ty.kind() == TypeKind::Signed;
    // The type's value of a source as an i64 (`n` <= 64 bits; `ext` in
    // 64-bit arithmetic, which the compiler vectorises).
    let sh = 64 - n;
    let val = move |v: u64| -> i64 {
        if signed {
            ((v << sh) as i64) >> sh
        } else {
            (v & m) as i64
        }
    };
    match (x.op, x.sat) {
        (IntOp::Add, false) => each(|p, q| p.wrapping_add(q) & m, a, b),
        (IntOp::Sub, false) => each(|p, q| p.wrapping_sub(q) & m, a, b),
        (IntOp::Mul(MulMode::Lo), _) => each(|p, q| p.wrapping_mul(q) & m, a, b),
        // `int_lane_scalar`'s arms as plain lane loops: `mad.lo` wraps,
        // the `.wide` forms' 2n-bit products fit in 64 bits for n <= 32
        // (signed: two's complement of the i64 product), `min`/`max`
        // compare in the type's order, for unsigned 64-bit too (as i64
        // they would not: kept below).
        (IntOp::Mad(MulMode::Lo), _) => {
            let mut o = [0u64; WARP_SIZE];
            for l in 0..WARP_SIZE {
                o[l] = a[l].wrapping_mul(b[l]).wrapping_add(c[l]) & m;
            }
            o
        }
        (IntOp::Mul(MulMode::Wide), _) if n <= 32 => {
            let wm = width_mask(2 * n);
            each(|p, q| (val(p).wrapping_mul(val(q)) as u64) & wm, a, b)
        }
        (IntOp::Mad(MulMode::Wide), _) if n <= 32 => {
            let wm = width_mask(2 * n);
            let mut o = [0u64; WARP_SIZE];
            for l in 0..WARP_SIZE {
                o[l] = (val(a[l]).wrapping_mul(val(b[l])) as u64).wrapping_add(c[l]) & wm;
            }
            o
        }
        (IntOp::Min, _) if signed || n < 64 => each(|p, q| pick(val(p) <= val(q), p, q) & m, a, b),
        (IntOp::Max, _) if signed || n < 64 => each(|p, q| pick(val(p) >= val(q), p, q) & m, a, b),
        (IntOp::Add | IntOp::Sub, true)
        | (IntOp::Mul(MulMode::Hi | MulMode::Wide), _)
        | (IntOp::Mad(_), _)
        | (IntOp::Min | IntOp::Max | IntOp::Div | IntOp::Rem | IntOp::Abs | IntOp::Neg, _)
        | (IntOp::Dp4a | IntOp::Dp2a(_) | IntOp::Sad, _)
        | (IntOp::Addc | IntOp::Subc | IntOp::Madc(_), _) => {
            let mut o = [0u64; WARP_SIZE];
            for l in 0..WARP_SIZE {
                o[l] = int_lane(x, a[l], b[l], c[l]);
            }
            o
        }
    }
}
