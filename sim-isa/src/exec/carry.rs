//! The extended-precision forms' values (PTX ISA 9.7.2; the flag's model
//! is `crate::carry`'s): each is a sum of up to three `n`-bit terms whose
//! low `n` bits are `d` and whose carry-out is the new `CC.CF`.

use super::lanes::{blend, width_mask, Lanes, WarpRegs};
use super::{int::int_lane, ExecCtx, WARP_SIZE};
use crate::inst::{IntArith, IntOp, MulMode, TypeKind};

/// One lane of an extended-precision form: `(d, carry-out)` from the
/// sources (`a`, `b` at the type's width, `c` `mad`'s addend) and the flag
/// `cf` (0 or 1; read by `addc`, `subc`, `madc` only).
///
/// - `add.cc`: `a + b`; `addc`: `a + b + CF`;
/// - `sub.cc`: `a + ~b + 1` (= `a - b`, carry-out 1 when nothing is
///   borrowed); `subc`: `a + ~b + CF` (= `a - b - (1 - CF)`), as ptxas's
///   IADD3/IADD3.X compute them on sm_90;
/// - `mad.lo.cc`/`.hi.cc`: the low/high `n` bits of the `2n`-bit product
///   (signed for `.s32`/`.s64`) plus `c`; `madc` adds `CF` too.
///
/// Every other form has no carry: its `int_lane` value and a carry of 0.
pub fn carry_lane(x: &IntArith, a: u64, b: u64, c: u64, cf: u64) -> (u64, u64) {
    let n = x.ty.bits();
    let m = width_mask(n);
    let w = |v: u64| u128::from(v & m);
    let cf = u128::from(cf & 1);
    let (p, q, cin) = match x.op {
        IntOp::Add => (w(a), w(b), 0),
        IntOp::Addc => (w(a), w(b), cf),
        IntOp::Sub => (w(a), w(!b), 1),
        IntOp::Subc => (w(a), w(!b), cf),
        IntOp::Mad(mode) => (w(product_part(x, mode, a, b)), w(c), 0),
        IntOp::Madc(mode) => (w(product_part(x, mode, a, b)), w(c), cf),
        // No carry (a form without `.cc` or a carry-in has no flag). Each
        // other operation named: exhaustive, no wildcard.
        IntOp::Mul(_)
        | IntOp::Min
        | IntOp::Max
        | IntOp::Div
        | IntOp::Rem
        | IntOp::Abs
        | IntOp::Neg
        | IntOp::Dp4a
        | IntOp::Dp2a(_)
        | IntOp::Sad => return (int_lane(x, a, b, c), 0),
    };
    let s = p + q + cin;
    ((s as u64) & m, (s >> n) as u64 & 1)
}

/// The `n` bits of `a * b` that `mad.lo`/`mad.hi` add (the signed
/// product for the signed types); `.wide` is refused by the parser and
/// taken as `.lo`.
fn product_part(x: &IntArith, mode: MulMode, a: u64, b: u64) -> u64 {
    let n = x.ty.bits();
    let m = width_mask(n);
    let ext = |v: u64| -> i128 {
        let sh = 64 - n;
        if x.ty.kind() == TypeKind::Signed {
            i128::from(((v << sh) as i64) >> sh)
        } else {
            i128::from(v & m)
        }
    };
    let full = (ext(a) * ext(b)) as u128;
    match mode {
        MulMode::Hi => (full >> n) as u64 & m,
        MulMode::Lo | MulMode::Wide => full as u64 & m,
    }
}

/// A form with a carry over a warp: reads its sources and the flag, writes
/// `d` and (`.cc`) the flag in the lanes `exec` selects.
pub(super) fn carry_into(x: &IntArith, ctx: &ExecCtx, regs: &mut WarpRegs, exec: u32) {
    let Some(k) = x.carry else {
        return;
    };
    let (a, b, c) = super::int_sources(x, ctx, regs);
    let cf: Lanes = if x.op.reads_carry() {
        *regs.get(k.cf)
    } else {
        [0; WARP_SIZE]
    };
    let (mut d, mut out) = ([0u64; WARP_SIZE], [0u64; WARP_SIZE]);
    for l in 0..WARP_SIZE {
        (d[l], out[l]) = carry_lane(x, a[l], b[l], c[l], cf[l]);
    }
    blend(regs.get_mut(x.d), exec, &d);
    if k.out {
        blend(regs.get_mut(k.cf), exec, &out);
    }
}
