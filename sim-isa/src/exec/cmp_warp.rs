//! Comparisons over a warp (`set` and `setp` run them from
//! `cmp_prepared`, which decodes them once or per call). Each comparison
//! becomes an ordering test (`Base`, from the comparison table in `cmp.rs`
//! that the scalar reference reads too) on integer keys whose order is the
//! values': floats map sign and magnitude to a signed key (NaN flagged,
//! subnormals zeroed when flushing), integers sign-extend or bias, so one
//! signed compare per lane serves every type and the loops vectorise.

// Index loops over fixed 32-lane arrays read as what they are (one lane per
// step, several arrays in step) and vectorise without bounds checks.
#![allow(clippy::needless_range_loop)]

use super::cmp::{
    float_cmp_kind, float_fields, half_true_value, int_cmp_kind, is_unsigned_op, is_x2,
    set_true_value, with_base, Base,
};
use super::lanes::{halves, width_mask, Lanes};
use super::WARP_SIZE;
use crate::inst::{BoolOp, CmpOp, Type, TypeKind};

/// What the warp paths read of a type, by type: one table load where
/// matching on the type for each property cost a jump table apiece per
/// instruction. Built from the same functions the scalar reference calls.
#[derive(Clone, Copy)]
pub(super) struct TypeInfo {
    pub(super) bits: u32,
    pub(super) kind: TypeKind,
    pub(super) x2: bool,
    /// As `set`'s destination: its width mask, the value for true at that
    /// width ([`set_true_value`]) and each half's from x2 sources.
    pub(super) dm: u64,
    pub(super) tv: u64,
    pub(super) half_true: u16,
    /// As an x2 source: its halves' format, without and with flushing.
    pub(super) halves: [Fmt16; 2],
}

const TYPES: [TypeInfo; Type::ALL.len()] = {
    let none = TypeInfo {
        bits: 0,
        kind: TypeKind::Pred,
        x2: false,
        dm: 0,
        tv: 0,
        half_true: 0,
        halves: [Fmt16 { inf: 0, zlim: 0 }; 2],
    };
    let mut t = [none; Type::ALL.len()];
    let mut i = 0;
    while i < Type::ALL.len() {
        let ty = Type::ALL[i];
        let dm = width_mask(ty.bits());
        t[ty as usize] = TypeInfo {
            bits: ty.bits(),
            kind: ty.kind(),
            x2: is_x2(ty),
            dm,
            tv: set_true_value(ty) & dm,
            half_true: half_true_value(ty),
            halves: [Fmt16::new(ty, false), Fmt16::new(ty, true)],
        };
        i += 1;
    }
    t
};

#[inline(always)]
pub(super) fn info(ty: Type) -> TypeInfo {
    TYPES[ty as usize]
}

/// A comparison operator's readings ([`int_cmp_kind`] with
/// [`is_unsigned_op`], [`float_cmp_kind`]), by operator, as [`TYPES`].
#[derive(Clone, Copy)]
pub(super) struct CmpInfo {
    pub(super) int: Base,
    pub(super) unsigned: bool,
    pub(super) float: Base,
    pub(super) unordered: bool,
}

const CMPS: [CmpInfo; CmpOp::ALL.len()] = {
    let none = CmpInfo {
        int: Base::False,
        unsigned: false,
        float: Base::False,
        unordered: false,
    };
    let mut t = [none; CmpOp::ALL.len()];
    let mut i = 0;
    while i < CmpOp::ALL.len() {
        let c = CmpOp::ALL[i];
        let (float, unordered) = float_cmp_kind(c);
        t[c as usize] = CmpInfo {
            int: int_cmp_kind(c),
            unsigned: is_unsigned_op(c),
            float,
            unordered,
        };
        i += 1;
    }
    t
};

#[inline(always)]
pub(super) fn cmp_info(cmp: CmpOp) -> CmpInfo {
    CMPS[cmp as usize]
}

/// A float format of at most 32 bits, decoded for key building.
#[derive(Clone, Copy, Debug)]
pub(super) struct Fmt32 {
    /// `32 - bits`: shifting a value to the top puts its sign at bit 31.
    top: u32,
    /// All bits but the sign.
    abs_mask: u32,
    /// Magnitude of +infinity; above it is NaN.
    inf: u32,
    /// Magnitudes below this are zero (1), or zero or subnormal when flushing.
    zlim: u32,
}

impl Fmt32 {
    pub(super) fn new(ty: Type, flush: bool) -> Self {
        // Only formats of at most 32 bits come here; f32's fields otherwise.
        let (e, m) = float_fields(ty).unwrap_or((8, 23));
        Fmt32 {
            top: 31 - e - m,
            abs_mask: (1u32 << (e + m)) - 1,
            inf: ((1u32 << e) - 1) << m,
            zlim: if flush { 1 << m } else { 1 },
        }
    }

    /// A signed key whose order is the value's (both zeros, and flushed
    /// subnormals, give 0) and whether the value is NaN. Magnitudes fit in
    /// 31 bits, so signed compares (which SSE2 has) serve throughout.
    #[inline(always)]
    fn key(&self, x: u32) -> (i32, bool) {
        let abs = (x & self.abs_mask) as i32;
        let abs = if abs < self.zlim as i32 { 0 } else { abs };
        let s = ((x << self.top) as i32) >> 31;
        ((abs ^ s) - s, abs > self.inf as i32)
    }
}

#[inline(always)]
pub(super) fn float_loop32<O>(
    f: impl Fn(i32, i32) -> bool,
    u: u32,
    fmt: &Fmt32,
    a: &Lanes,
    b: &Lanes,
    (g, out): (impl Fn(u32) -> O, &mut [O; WARP_SIZE]),
) {
    let fmt = *fmt;
    for l in 0..WARP_SIZE {
        let (ka, na) = fmt.key(a[l] as u32);
        let (kb, nb) = fmt.key(b[l] as u32);
        out[l] = g(if na | nb { u } else { u32::from(f(ka, kb)) });
    }
}

/// [`Fmt32`] for the halves of x2 types, on 16-bit lanes (twice as many
/// per vector step): keys fit i16 since magnitudes are 15 bits.
#[derive(Clone, Copy, Debug)]
pub(super) struct Fmt16 {
    inf: i16,
    zlim: i16,
}

impl Fmt16 {
    /// For `ty`'s halves, as [`TYPES`] holds it.
    const fn new(ty: Type, flush: bool) -> Self {
        // Only the x2 types' halves (10 or 7 mantissa bits) are read; the
        // wider formats' entries stay in range (an i16 shift by 23 or 52
        // would overflow the table's evaluation).
        let m = match float_fields(ty) {
            Some((_, m)) if m < 15 => m,
            _ => 10,
        };
        Fmt16 {
            inf: (0x7FFF >> m) << m,
            zlim: if flush { 1 << m } else { 1 },
        }
    }

    #[inline(always)]
    fn key<const FLUSH: bool>(&self, v: u16) -> (i16, bool) {
        let abs = (v & 0x7FFF) as i16;
        // Without flushing only zero is below the limit (1): nothing to do.
        let abs = if FLUSH && abs < self.zlim { 0 } else { abs };
        let s = (v as i16) >> 15;
        ((abs ^ s) - s, abs > self.inf)
    }
}

#[inline(always)]
pub(super) fn float_loop16<const FLUSH: bool>(
    f: impl Fn(i16, i16) -> bool,
    u: u16,
    fmt: &Fmt16,
    a: &[u16; 2 * WARP_SIZE],
    b: &[u16; 2 * WARP_SIZE],
    (g, out): (impl Fn(u16) -> u16, &mut [u16; 2 * WARP_SIZE]),
) {
    let fmt = *fmt;
    for h in 0..2 * WARP_SIZE {
        let (ka, na) = fmt.key::<FLUSH>(a[h]);
        let (kb, nb) = fmt.key::<FLUSH>(b[h]);
        // As masks (all ones for true): what the vector compare gives.
        out[h] = g(if na | nb {
            u
        } else {
            0u16.wrapping_sub(f(ka, kb).into())
        });
    }
}

#[inline(always)]
fn f64_key(v: u64, zlim: u64) -> (i64, bool) {
    let abs = v & (u64::MAX >> 1);
    let abs = if abs < zlim { 0 } else { abs };
    let s = (v as i64) >> 63;
    ((abs as i64 ^ s) - s, abs > 0x7FF0_0000_0000_0000)
}

#[inline(always)]
pub(super) fn float_loop64<O>(
    f: impl Fn(i64, i64) -> bool,
    u: u32,
    zlim: u64,
    a: &Lanes,
    b: &Lanes,
    (g, out): (impl Fn(u32) -> O, &mut [O; WARP_SIZE]),
) {
    for l in 0..WARP_SIZE {
        let (ka, na) = f64_key(a[l], zlim);
        let (kb, nb) = f64_key(b[l], zlim);
        out[l] = g(if na | nb { u } else { u32::from(f(ka, kb)) });
    }
}

/// Integers: `key = ((v << sh) as i64) ^ flip` with `sh = 64 - bits`. The
/// shift drops whatever lies above the type's bits and puts its sign at
/// bit 63, so signed values keep their order as keys; `flip = i64::MIN`
/// biases unsigned ones, so one signed compare orders both. Keys are built
/// on the 64-bit lanes as they are: no packing to 32 bits, and the compare
/// gives masks of the lanes' own width.
#[inline(always)]
pub(super) fn int_loop<O>(
    f: impl Fn(i64, i64) -> bool,
    sh: u32,
    flip: i64,
    a: &Lanes,
    b: &Lanes,
    (g, out): (impl Fn(u32) -> O, &mut [O; WARP_SIZE]),
) {
    for l in 0..WARP_SIZE {
        let ka = ((a[l] << sh) as i64) ^ flip;
        let kb = ((b[l] << sh) as i64) ^ flip;
        out[l] = g(u32::from(f(ka, kb)));
    }
}

/// A comparison decoded for its lane loops: the ordering test, the key
/// format and the value for unordered inputs, looked up by type and
/// operator (per call by `set` and `setp` here, once by a prepared `set`).
#[derive(Clone, Copy, Debug)]
pub(super) enum CmpForm {
    /// An x2 type's halves; `u` all ones where unordered is true.
    Halves {
        base: Base,
        u: u16,
        fmt: Fmt16,
        flush: bool,
    },
    /// f64: magnitudes below `zlim` are zero.
    F64 { base: Base, u: u32, zlim: u64 },
    /// Floats of at most 32 bits.
    F32 { base: Base, u: u32, fmt: Fmt32 },
    /// Integers: keys `((v << sh) as i64) ^ flip` (see [`int_loop`]).
    Int { base: Base, sh: u32, flip: i64 },
}

impl CmpForm {
    /// `cmp` on `ty`; `flush` asked only by the float forms.
    #[inline(always)]
    pub(super) fn new(cmp: CmpOp, ty: Type, flush: impl Fn() -> bool) -> Self {
        let TypeInfo { bits, kind, x2, .. } = info(ty);
        let c = cmp_info(cmp);
        if x2 {
            let flush = flush();
            return CmpForm::Halves {
                base: c.float,
                u: 0u16.wrapping_sub(c.unordered.into()),
                fmt: info(ty).halves[usize::from(flush)],
                flush,
            };
        }
        match kind {
            TypeKind::Float | TypeKind::BFloat => {
                let (base, u) = (c.float, u32::from(c.unordered));
                if bits == 64 {
                    let zlim = if flush() { 1u64 << 52 } else { 1 };
                    CmpForm::F64 { base, u, zlim }
                } else {
                    let fmt = Fmt32::new(ty, flush());
                    CmpForm::F32 { base, u, fmt }
                }
            }
            kind => {
                let signed = kind == TypeKind::Signed && !c.unsigned;
                CmpForm::Int {
                    base: c.int,
                    sh: 64 - bits,
                    flip: if signed { 0 } else { i64::MIN },
                }
            }
        }
    }
}

/// Compare results per 16-bit half (low half of lane `l` at `2l`) for an
/// x2 form ([`CmpForm::Halves`]), as masks (all ones for true) each mapped
/// by `g` (to 0/1, or straight to what `set` writes).
// Inlined: the result array then stays in registers instead of going
// through memory in pieces that a wide reload cannot forward.
#[inline(always)]
pub(super) fn form_halves(
    form: &CmpForm,
    a: &Lanes,
    b: &Lanes,
    g: impl Fn(u16) -> u16 + Copy,
) -> [u16; 2 * WARP_SIZE] {
    let mut r = [0u16; 2 * WARP_SIZE];
    // Only x2 forms come here.
    let CmpForm::Halves {
        base,
        u,
        fmt,
        flush,
    } = *form
    else {
        return r;
    };
    let (a, b) = (&halves(a), &halves(b));
    if flush {
        with_base!(
            base,
            i16,
            float_loop16::<true>,
            (u, &fmt, a, b, (g, &mut r))
        );
    } else {
        with_base!(
            base,
            i16,
            float_loop16::<false>,
            (u, &fmt, a, b, (g, &mut r))
        );
    }
    r
}

/// Compare results per lane for a form that is not x2, each mapped by `g`
/// (0/1, or straight to what `set` writes, so one loop does it all).
// Inlined: the result array then stays in registers instead of going
// through memory in pieces that a wide reload cannot forward.
#[inline(always)]
pub(super) fn form_lanes<O: Copy + Default>(
    form: &CmpForm,
    a: &Lanes,
    b: &Lanes,
    g: impl Fn(u32) -> O + Copy,
) -> [O; WARP_SIZE] {
    let mut t = [O::default(); WARP_SIZE];
    let out = (g, &mut t);
    match *form {
        CmpForm::F64 { base, u, zlim } => {
            with_base!(base, i64, float_loop64, (u, zlim, a, b, out))
        }
        CmpForm::F32 { base, u, fmt } => {
            with_base!(base, i32, float_loop32, (u, &fmt, a, b, out))
        }
        CmpForm::Int { base, sh, flip } => {
            // The common widths on their own: shifts by a constant fold
            // into the loads' instructions.
            match sh {
                32 => with_base!(base, i64, int_loop, (32, flip, a, b, out)),
                0 => with_base!(base, i64, int_loop, (0, flip, a, b, out)),
                _ => with_base!(base, i64, int_loop, (sh, flip, a, b, out)),
            }
        }
        // Only forms that are not x2 come here.
        CmpForm::Halves { .. } => {}
    }
    t
}

/// `BoolOp(t, c)` per lane on 0/1 arrays (lanes or halves), in place.
#[inline]
pub(super) fn combine01<T>(op: BoolOp, t: &mut [T], c: &[T])
where
    T: Copy + std::ops::BitAndAssign + std::ops::BitOrAssign + std::ops::BitXorAssign,
{
    match op {
        BoolOp::And => t.iter_mut().zip(c).for_each(|(t, c)| *t &= *c),
        BoolOp::Or => t.iter_mut().zip(c).for_each(|(t, c)| *t |= *c),
        BoolOp::Xor => t.iter_mut().zip(c).for_each(|(t, c)| *t ^= *c),
    }
}
