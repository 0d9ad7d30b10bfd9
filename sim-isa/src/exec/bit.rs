//! Bit manipulation (`popc clz brev not cnot bfe bfi prmt lop3 shf bmsk`, PTX ISA
//! 9.7.8.x and 9.7.9.7): each operation's scalar definition once, the lane
//! function [`bit_lane`] (the reference) and its warp form, which decodes
//! the operation once per warp instruction and runs the same definition in
//! a loop per lane.

use super::lanes::{read_operand, width_mask, Lanes};
use super::{ExecCtx, WarpRegs, WARP_SIZE};
use crate::inst::{Bit, BitOp, PrmtMode, TestOp, TypeKind};

/// Population count of the low `bits` bits.
fn popc(a: u64, bits: u32) -> u64 {
    u64::from((a & width_mask(bits)).count_ones())
}

/// Leading zeros of the low `bits` bits (`bits` for zero).
fn clz(a: u64, bits: u32) -> u64 {
    u64::from((a & width_mask(bits)).leading_zeros() - (64 - bits))
}

/// The low `bits` bits in reverse order.
fn brev(a: u64, bits: u32) -> u64 {
    a.reverse_bits() >> (64 - bits)
}

/// `bfe`/`bfi`'s position and length. The manual restricts both to
/// 0..255 and its pseudo-code masks them (`& 0xff`), which the 32-bit forms
/// do on the H100; the 64-bit forms (a sequence of 32-bit instructions
/// after ptxas) take the whole `.u32` instead, so a position or length of
/// 256 or more reaches past the msb rather than wrapping (recorded vectors,
/// `tests/data/h100-bit.jsonl`).
fn field(pos: u64, len: u64, bits: u32) -> (u64, u64) {
    let m = if bits == 64 { 0xffff_ffff } else { 0xff };
    (pos & m, len & m)
}

/// `bfe`: `len` bits of `a` from `pos` (see [`field`]), zero- or
/// sign-extended; bits past the type's msb read as the sign bit (`a`'s
/// msb-most selected bit; 0 when `len` is 0 or unsigned).
fn bfe(a: u64, pos: u64, len: u64, bits: u32, signed: bool) -> u64 {
    let ((pos, len), msb) = (field(pos, len, bits), u64::from(bits) - 1);
    let sbit = if signed && len != 0 {
        a >> (pos + len - 1).min(msb) & 1
    } else {
        0
    };
    let mut d = 0;
    for i in 0..=msb {
        let bit = if i < len && pos + i <= msb {
            a >> (pos + i) & 1
        } else {
            sbit
        };
        d |= bit << i;
    }
    d
}

/// `bfi`: `b` with `len` bits from `pos` (see [`field`]) replaced by `a`'s
/// low bits, stopping at the type's msb.
fn bfi(a: u64, b: u64, pos: u64, len: u64, bits: u32) -> u64 {
    let (pos, len) = field(pos, len, bits);
    let bits = u64::from(bits);
    if pos >= bits {
        return b;
    }
    let n = len.min(bits - pos);
    let field = width_mask(n as u32) << pos;
    (b & !field | (a << pos) & field) & width_mask(bits as u32)
}

/// Source byte numbers (0..7 over `{b, a}`) of `d`'s bytes 0..3 for a
/// mode and `c`'s two low bits (the manual's table, 9.7.9.7).
fn prmt_sel(mode: PrmtMode, c: u32) -> [u32; 4] {
    let c = c & 3;
    match mode {
        PrmtMode::F4e => [c, c + 1, c + 2, c + 3].map(|x| x & 7),
        PrmtMode::B4e => [c, c + 7, c + 6, c + 5].map(|x| x & 7),
        PrmtMode::Rc8 => [c; 4],
        PrmtMode::Ecl => [c, c.max(1), c.max(2), 3],
        PrmtMode::Ecr => [0, c.min(1), c.min(2), c],
        PrmtMode::Rc16 => {
            let h = 2 * (c & 1);
            [h, h + 1, h, h + 1]
        }
    }
}

/// `prmt`: bytes of the 64-bit `{b, a}` picked by `c`: per byte of `d`, a
/// nibble of `c` (its low 3 bits the byte, its high bit: replicate that
/// byte's sign) in the general form, or the mode's table.
fn prmt(mode: Option<PrmtMode>, a: u64, b: u64, c: u64) -> u64 {
    let src = (b & 0xffff_ffff) << 32 | (a & 0xffff_ffff);
    let byte = |n: u32| (src >> (8 * n)) & 0xff;
    let c = c as u32;
    let mut d = 0;
    for i in 0..4 {
        let v = match mode {
            None => {
                let nib = c >> (4 * i) & 0xf;
                let v = byte(nib & 7);
                if nib & 8 != 0 {
                    (v >> 7) * 0xff
                } else {
                    v
                }
            }
            Some(m) => byte(prmt_sel(m, c)[i as usize]),
        };
        d |= v << (8 * i);
    }
    d
}

/// `lop3`: each result bit is `lut`'s bit numbered by the inputs' bits
/// `a b c` (the manual's `F(0xF0, 0xCC, 0xAA) = lut`).
fn lop3(a: u64, b: u64, c: u64, lut: u64) -> u64 {
    let mut d = 0;
    for k in 0..8u64 {
        if lut >> k & 1 == 1 {
            // The lanes' bits where (a, b, c) spell k.
            let pick = |v: u64, bit: u64| if k >> bit & 1 == 1 { v } else { !v };
            d |= pick(a, 2) & pick(b, 1) & pick(c, 0);
        }
    }
    d & 0xffff_ffff
}

/// `shf`: the high (`.l`) or low (`.r`) word of the 64-bit `{b, a}` shifted
/// by `c`, which `.clamp` limits to 32 and `.wrap` takes mod 32.
fn shf(left: bool, clamp: bool, a: u64, b: u64, c: u64) -> u64 {
    let n = if clamp {
        (c & 0xffff_ffff).min(32)
    } else {
        c & 31
    };
    let v = (b & 0xffff_ffff) << 32 | (a & 0xffff_ffff);
    if left {
        (v << n) >> 32
    } else {
        (v >> n) & 0xffff_ffff
    }
}

/// One lane of `x`: sources at their types' widths (see
/// [`Bit::src_type`]), the result zero-extended at `d`'s width.
pub fn bit_lane(x: &Bit, s: [u64; 4]) -> u64 {
    let bits = x.ty.bits();
    let [a, b, c, e] = s;
    match x.op {
        BitOp::Popc => popc(a, bits),
        BitOp::Clz => clz(a, bits),
        BitOp::Brev => brev(a, bits),
        BitOp::Not => !a & width_mask(bits),
        BitOp::Cnot => u64::from(a & width_mask(bits) == 0),
        BitOp::Bfe => bfe(a, b, c, bits, x.ty.kind() == TypeKind::Signed),
        BitOp::Bfi => bfi(a, b, c, e, bits),
        BitOp::Prmt(m) => prmt(m, a, b, c),
        BitOp::Lop3 => lop3(a, b, c, e),
        BitOp::Shf { left, clamp } => shf(left, clamp, a, b, c),
        BitOp::Bfind { shiftamt } => bfind(a, bits, x.ty.kind() == TypeKind::Signed, shiftamt),
        BitOp::Testp(t) => testp(t, a, bits),
        BitOp::Fns => fns(a, b, c),
        BitOp::Bmsk { clamp } => bmsk(clamp, a, b),
    }
}

/// `fns` (PTX ISA 9.7.8.x): from bit `base` of `mask`, the `|offset|`-th set
/// bit upward (offset > 0) or downward (offset < 0); offset 0 asks whether
/// bit `base` itself is set. `0xffffffff` when there is no such bit (a
/// `base` above 31, which the manual leaves undefined, finds none: so does
/// the machine, whose code shifts the mask by it).
///
/// One case where the machine departs from the manual: an offset of
/// `i32::MIN` gives 0 whatever the mask and base, where the manual's loop
/// finds nothing (0xffffffff). ptxas's code negates the offset into an
/// unsigned count (2^31, which no 32-bit mask holds, so its search runs to
/// bit 31 and, reversed, reports bit 0) and then decides "not found" with a
/// signed compare of the mask's population against that count, which reads
/// it as -2^31 (`tests/data/sass-fns.jsonl`).
fn fns(mask: u64, base: u64, offset: u64) -> u64 {
    const NONE: u64 = 0xffff_ffff;
    let (mask, base, offset) = (mask as u32, base as u32, offset as u32 as i32);
    if offset == i32::MIN {
        return 0;
    }
    if base > 31 {
        return NONE;
    }
    if offset == 0 {
        return if mask >> base & 1 == 1 {
            u64::from(base)
        } else {
            NONE
        };
    }
    // The bits from `base` on, in search order, lowest first.
    let (bits, up) = if offset > 0 {
        (mask >> base, true)
    } else {
        (mask.reverse_bits() >> (31 - base), false)
    };
    let mut count = offset.unsigned_abs();
    for i in 0..32 - if up { base } else { 31 - base } {
        if bits >> i & 1 == 1 {
            count -= 1;
            if count == 0 {
                return u64::from(if up { base + i } else { base - i });
            }
        }
    }
    NONE
}

/// `bmsk` (PTX ISA 9.7.8.x): a 32-bit mask of `b` ones from bit `a`.
/// Both read their low five bits (`.wrap`); with `.clamp` a position of 32
/// or more gives 0 and a width of 32 or more every bit from the position up.
/// A mask reaching past bit 31 stops there, and a width of 0 is no bits.
/// (The manual's `b1 == 0` case, `mask1 = ~0`, gives the same 0 as the
/// general formula, `mask0 & !(~0 << a1)`, so it needs no branch.)
fn bmsk(clamp: bool, a: u64, b: u64) -> u64 {
    let (a, b) = (a as u32, b as u32);
    let (a1, b1) = (a & 0x1f, b & 0x1f);
    let mask0 = if clamp && a >= 32 { 0 } else { u32::MAX << a1 };
    let sum = a1 + b1;
    let mask1 = if sum >= 32 || (clamp && (a >= 32 || b >= 32)) {
        0
    } else {
        u32::MAX << sum
    };
    u64::from(mask0 & !mask1)
}

/// `testp` (PTX ISA 9.7.3.x) on the bits of an f32 or f64: 1 when `a` has
/// the property. Zero counts as normal, as the manual says.
fn testp(t: TestOp, a: u64, bits: u32) -> u64 {
    let mant = if bits == 64 { 52 } else { 23 };
    let exp = (a >> mant) & width_mask(bits - 1 - mant);
    let max_exp = width_mask(bits - 1 - mant);
    let frac = a & width_mask(mant);
    let nan = exp == max_exp && frac != 0;
    let inf = exp == max_exp && frac == 0;
    let r = match t {
        TestOp::Finite => exp != max_exp,
        TestOp::Infinite => inf,
        TestOp::Number => !nan,
        TestOp::Notanumber => nan,
        TestOp::Normal => exp != max_exp && (exp != 0 || frac == 0),
        TestOp::Subnormal => exp == 0 && frac != 0,
    };
    u64::from(r)
}

/// `bfind` (PTX ISA 9.7.8.x): for a signed value, the highest bit that
/// differs from the sign bit; for an unsigned one, the highest set bit.
fn bfind(a: u64, bits: u32, signed: bool, shiftamt: bool) -> u64 {
    let a = a & width_mask(bits);
    let neg = signed && (a >> (bits - 1)) & 1 == 1;
    let v = if neg { !a & width_mask(bits) } else { a };
    if v == 0 {
        return 0xffff_ffff;
    }
    let pos = 63 - u64::from(v.leading_zeros());
    if shiftamt {
        u64::from(bits - 1) - pos
    } else {
        pos
    }
}

/// The used sources of `x`, read at their widths (unused ones are 0).
pub(super) fn bit_sources(x: &Bit, ctx: &ExecCtx, regs: &WarpRegs) -> [Lanes; 4] {
    let mut out = [[0; WARP_SIZE]; 4];
    for (i, &o) in x.srcs().iter().enumerate() {
        out[i] = read_operand(o, x.src_type(i).bits(), ctx, regs);
    }
    out
}

#[inline(always)]
fn each(s: &[Lanes; 4], f: impl Fn(u64, u64, u64, u64) -> u64) -> Lanes {
    let mut o = [0u64; WARP_SIZE];
    for l in 0..WARP_SIZE {
        o[l] = f(s[0][l], s[1][l], s[2][l], s[3][l]);
    }
    o
}

/// [`bit_lane`] over a warp: the operation decoded once, then one loop of
/// its definition.
pub(crate) fn bit_warp(x: &Bit, s: &[Lanes; 4]) -> Lanes {
    let bits = x.ty.bits();
    let m = width_mask(bits);
    let signed = x.ty.kind() == TypeKind::Signed;
    match x.op {
        BitOp::Popc => each(s, |a, _, _, _| popc(a, bits)),
        BitOp::Clz => each(s, |a, _, _, _| clz(a, bits)),
        BitOp::Brev => each(s, |a, _, _, _| brev(a, bits)),
        BitOp::Not => each(s, |a, _, _, _| !a & m),
        BitOp::Cnot => each(s, |a, _, _, _| u64::from(a & m == 0)),
        BitOp::Bfe => each(s, |a, b, c, _| bfe(a, b, c, bits, signed)),
        BitOp::Bfi => each(s, |a, b, c, e| bfi(a, b, c, e, bits)),
        BitOp::Prmt(md) => each(s, |a, b, c, _| prmt(md, a, b, c)),
        BitOp::Lop3 => each(s, lop3),
        BitOp::Shf { left, clamp } => each(s, |a, b, c, _| shf(left, clamp, a, b, c)),
        BitOp::Bfind { shiftamt } => each(s, |a, _, _, _| bfind(a, bits, signed, shiftamt)),
        BitOp::Testp(t) => each(s, |a, _, _, _| testp(t, a, bits)),
        BitOp::Fns => each(s, |a, b, c, _| fns(a, b, c)),
        BitOp::Bmsk { clamp } => each(s, |a, b, _, _| bmsk(clamp, a, b)),
    }
}
