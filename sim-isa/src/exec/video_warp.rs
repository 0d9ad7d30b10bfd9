//! `vop2`/`vop4` over a warp. Plain forms (default selectors, every
//! element on) whose element results fit the element width run on the low
//! words viewed as u8/u16 arrays (`video4_narrow`, `video2_narrow`), where
//! the compiler uses the machine's saturating, averaging and min/max
//! instructions; other plain forms take exact i16/i32 loops on 16-bit halves;
//! the rest one fused loop per lane doing every element position
//! (`video_n`). All follow [`super::video::VideoPlan::lane`], the
//! definition, bit for bit (property-tested).

// Index loops over fixed 32-lane arrays read as what they are (one lane per
// step, several arrays in step) and vectorise without bounds checks.
#![allow(clippy::needless_range_loop)]

use super::cmp::{int_cmp_kind, Base};
use super::lanes::{blend, blend32, blend_low32, halves, low32, Lanes, U32s, WarpRegs};
use super::WARP_SIZE;
use crate::inst::{Simd, Video, VideoOp};

/// A video instruction decoded for the fused lane loop: per element
/// position `i`, where its `a` and `b` elements come from and how to place
/// the result.
struct VPlan<'a, const N: usize> {
    /// Element i's `a` (resp. `b`) input.
    x: Gather<'a, N>,
    y: Gather<'a, N>,
    /// The right shift that brings an element from the top of the register
    /// to the bottom, sign-extending it ([`Gather::elem`]).
    r: u32,
    /// Bits of d that element i fills (0 when the mask skips it).
    field: [u32; N],
    /// All ones when element i is accumulated (`.add`), else 0.
    take: [u32; N],
    place: [u32; N],
    lo: i32,
    hi: i32,
}

/// Where one source operand's elements come from, per element position.
struct Gather<'a, const N: usize> {
    /// Register holding element i.
    reg: [&'a U32s; N],
    /// `((reg << shl) as i32 >> r) & mask`: the left shift drops the higher
    /// elements, the arithmetic right shift sign-extends, and `mask` (all
    /// ones when signed, the element mask when unsigned) undoes it for
    /// unsigned.
    shl: [u32; N],
    mask: i32,
}

impl<const N: usize> Gather<'_, N> {
    /// Element `i` of lane `l`, exact (sign- or zero-extended).
    #[inline(always)]
    fn elem(&self, i: usize, l: usize, r: u32) -> i32 {
        ((self.reg[i][l] << self.shl[i]) as i32 >> r) & self.mask
    }
}

/// Element arithmetic type of the video loop: i16 where the exact values
/// fit (vop4: 8-bit elements, sums within ±511), so SSE2 works on eight
/// lanes at a time with native 16-bit min/max; i32 for vop2 and `.add`.
trait Elem: Copy + Ord + std::ops::Add<Output = Self> + std::ops::Sub<Output = Self> {
    const ZERO: Self;
    fn from_i32(x: i32) -> Self;
    fn from_bool(b: bool) -> Self;
    /// Sign-extended to 32 bits.
    fn to_u32(self) -> u32;
    fn abs(self) -> Self;
    fn half(self) -> Self;
}

macro_rules! elem_impl {
    ($t:ty) => {
        impl Elem for $t {
            const ZERO: Self = 0;
            #[inline(always)]
            fn from_i32(x: i32) -> Self {
                x as $t
            }
            #[inline(always)]
            fn from_bool(b: bool) -> Self {
                <$t>::from(b)
            }
            #[inline(always)]
            fn to_u32(self) -> u32 {
                self as i32 as u32
            }
            #[inline(always)]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            #[inline(always)]
            fn half(self) -> Self {
                self >> 1
            }
        }
    };
}
elem_impl!(i16);
elem_impl!(i32);

#[inline(always)]
fn video_loop<T: Elem, const N: usize, const SAT: bool, const ADD: bool>(
    f: impl Fn(T, T) -> T,
    p: &VPlan<'_, N>,
    out: &mut U32s,
) {
    let (lo, hi) = (T::from_i32(p.lo), T::from_i32(p.hi));
    for l in 0..WARP_SIZE {
        let mut acc = out[l];
        for i in 0..N {
            let x = T::from_i32(p.x.elem(i, l, p.r));
            let y = T::from_i32(p.y.elem(i, l, p.r));
            let mut t = f(x, y);
            if SAT {
                t = t.max(lo).min(hi);
            }
            if ADD {
                acc = acc.wrapping_add(t.to_u32() & p.take[i]);
            } else {
                acc |= (t.to_u32() << p.place[i]) & p.field[i];
            }
        }
        out[l] = acc;
    }
}

/// Instantiates [`video_loop`] for `.sat`/`.add`, once per operation.
macro_rules! video_run {
    ($f:expr, $sat:expr, $add:expr, $p:expr, $o:expr) => {{
        let f = $f;
        match ($sat, $add) {
            (false, false) => video_loop::<T, N, false, false>(f, $p, $o),
            (false, true) => video_loop::<T, N, false, true>(f, $p, $o),
            (true, false) => video_loop::<T, N, true, false>(f, $p, $o),
            (true, true) => video_loop::<T, N, true, true>(f, $p, $o),
        }
    }};
}

/// Expands `$run!(closure, args..)` with the element function of `$op`
/// (closures over `T`, which the caller names).
macro_rules! for_video_op {
    ($op:expr, $run:ident!($($arg:tt)*)) => {
        match $op {
            VideoOp::Add => $run!(|x: T, y: T| x + y, $($arg)*),
            VideoOp::Sub => $run!(|x: T, y: T| x - y, $($arg)*),
            // Errata 7: half away from zero.
            VideoOp::Avrg => $run!(
                |x: T, y: T| {
                    let s = x + y;
                    (s + T::from_bool(s >= T::ZERO)).half()
                },
                $($arg)*
            ),
            VideoOp::Absdiff => $run!(|x: T, y: T| (x - y).abs(), $($arg)*),
            VideoOp::Min => $run!(|x: T, y: T| x.min(y), $($arg)*),
            VideoOp::Max => $run!(|x: T, y: T| x.max(y), $($arg)*),
            VideoOp::Set(cmp) => match int_cmp_kind(cmp) {
                Base::Eq => $run!(|x: T, y: T| T::from_bool(x == y), $($arg)*),
                Base::Ne => $run!(|x: T, y: T| T::from_bool(x != y), $($arg)*),
                Base::Lt => $run!(|x: T, y: T| T::from_bool(x < y), $($arg)*),
                Base::Le => $run!(|x: T, y: T| T::from_bool(x <= y), $($arg)*),
                Base::Gt => $run!(|x: T, y: T| T::from_bool(x > y), $($arg)*),
                Base::Ge => $run!(|x: T, y: T| T::from_bool(x >= y), $($arg)*),
                Base::True => $run!(|_: T, _: T| T::from_bool(true), $($arg)*),
                Base::False => $run!(|_: T, _: T| T::ZERO, $($arg)*),
            },
        }
    };
}

fn video_ops<T: Elem, const N: usize>(
    op: VideoOp,
    sat: bool,
    add: bool,
    p: &VPlan<'_, N>,
    o: &mut U32s,
) {
    for_video_op!(op, video_run!(sat, add, p, o))
}

/// Plain `vop4` (default selectors, every element on) on 16-bit halves:
/// each half holds an even element (low byte) and an odd one (high byte)
/// whose positions are the same in `a`, `b` and `d`, so one i16 vector step
/// does eight elements with no gathering. A merge leaves each half's result
/// bytes in place; `.add` leaves the half's two element values summed (each
/// is within ±511, so the sum fits i16).
#[inline(always)]
fn video4_loop<const SAT: bool, const ADD: bool>(
    f: impl Fn(i16, i16) -> i16,
    [xm, ym, lo, hi]: [i16; 4],
    a: &[u16; 2 * WARP_SIZE],
    b: &[u16; 2 * WARP_SIZE],
    out: &mut [u16; 2 * WARP_SIZE],
) {
    for h in 0..2 * WARP_SIZE {
        let (x, y) = (a[h], b[h]);
        let xe = (((x << 8) as i16) >> 8) & xm;
        let xo = ((x as i16) >> 8) & xm;
        let ye = (((y << 8) as i16) >> 8) & ym;
        let yo = ((y as i16) >> 8) & ym;
        let (mut te, mut to) = (f(xe, ye), f(xo, yo));
        if SAT {
            te = te.max(lo).min(hi);
            to = to.max(lo).min(hi);
        }
        out[h] = if ADD {
            (te + to) as u16
        } else {
            (te as u16 & 0xFF) | ((to as u16) << 8)
        };
    }
}

macro_rules! video4_run {
    ($f:expr, $sat:expr, $add:expr, $k:expr, $a:expr, $b:expr, $o:expr) => {{
        let f = $f;
        match ($sat, $add) {
            (false, false) => video4_loop::<false, false>(f, $k, $a, $b, $o),
            (false, true) => video4_loop::<false, true>(f, $k, $a, $b, $o),
            (true, false) => video4_loop::<true, false>(f, $k, $a, $b, $o),
            (true, true) => video4_loop::<true, true>(f, $k, $a, $b, $o),
        }
    }};
}

/// [`video4_loop`] for `v`, which must be a plain `vop4`. Not inlined
/// (nor `video2_plain`, `video_n`): in `video` their frames and registers
/// were set up for the narrow forms too.
#[inline(never)]
fn video4_plain(v: &Video, regs: &WarpRegs) -> U32s {
    type T = i16;
    let a = halves(regs.get(v.a));
    let b = if v.b == v.a { a } else { halves(regs.get(v.b)) };
    let k: [i16; 4] = [
        if v.asigned { -1 } else { 0xFF },
        if v.bsigned { -1 } else { 0xFF },
        if v.dsigned { -128 } else { 0 },
        if v.dsigned { 127 } else { 0xFF },
    ];
    let mut o = [0u16; 2 * WARP_SIZE];
    for_video_op!(v.op, video4_run!(v.sat, v.add, k, &a, &b, &mut o));
    let mut out = [0u32; WARP_SIZE];
    if v.add {
        let c = regs.get(v.c);
        for l in 0..WARP_SIZE {
            let sum = i32::from(o[2 * l] as i16) + i32::from(o[2 * l + 1] as i16);
            out[l] = (c[l] as u32).wrapping_add(sum as u32);
        }
    } else {
        for l in 0..WARP_SIZE {
            out[l] = u32::from(o[2 * l]) | (u32::from(o[2 * l + 1]) << 16);
        }
    }
    out
}

/// Plain `vop2` (default selectors, both elements on): each 16-bit half is
/// one element, in the same place in `a`, `b` and `d`; exact i32 results.
#[inline(always)]
fn video2_loop<const SAT: bool>(
    f: impl Fn(i32, i32) -> i32,
    [xm, ym, lo, hi]: [i32; 4],
    a: &[u16; 2 * WARP_SIZE],
    b: &[u16; 2 * WARP_SIZE],
    out: &mut [i32; 2 * WARP_SIZE],
) {
    for h in 0..2 * WARP_SIZE {
        let x = i32::from(a[h] as i16) & xm;
        let y = i32::from(b[h] as i16) & ym;
        let mut t = f(x, y);
        if SAT {
            t = t.max(lo).min(hi);
        }
        out[h] = t;
    }
}

macro_rules! video2_run {
    ($f:expr, $sat:expr, $k:expr, $a:expr, $b:expr, $o:expr) => {{
        let f = $f;
        if $sat {
            video2_loop::<true>(f, $k, $a, $b, $o)
        } else {
            video2_loop::<false>(f, $k, $a, $b, $o)
        }
    }};
}

/// [`video2_loop`] for `v`, which must be a plain `vop2`.
#[inline(never)]
fn video2_plain(v: &Video, regs: &WarpRegs) -> U32s {
    type T = i32;
    let a = halves(regs.get(v.a));
    let b = if v.b == v.a { a } else { halves(regs.get(v.b)) };
    let k: [i32; 4] = [
        if v.asigned { -1 } else { 0xFFFF },
        if v.bsigned { -1 } else { 0xFFFF },
        if v.dsigned { -0x8000 } else { 0 },
        if v.dsigned { 0x7FFF } else { 0xFFFF },
    ];
    let mut o = [0i32; 2 * WARP_SIZE];
    for_video_op!(v.op, video2_run!(v.sat, k, &a, &b, &mut o));
    let mut out = [0u32; WARP_SIZE];
    if v.add {
        let c = regs.get(v.c);
        for l in 0..WARP_SIZE {
            out[l] = (c[l] as u32).wrapping_add(o[2 * l].wrapping_add(o[2 * l + 1]) as u32);
        }
    } else {
        for l in 0..WARP_SIZE {
            out[l] = (o[2 * l] as u32 & 0xFFFF) | ((o[2 * l + 1] as u32) << 16);
        }
    }
    out
}

macro_rules! narrow_ops {
    ($($op:ident),* $(,)?) => {
        /// A narrow form's element operation with its signedness and
        /// saturation resolved ([`NarrowOp::new`]): one value to dispatch
        /// on, or to compile a kernel for ([`NarrowOp::kernel4`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(u8)]
        pub(super) enum NarrowOp {
            $($op),*
        }

        impl NarrowOp {
            const ALL: [NarrowOp; [$(NarrowOp::$op),*].len()] = [$(NarrowOp::$op),*];

            /// The kernel for this operation on 8-bit elements.
            pub(super) fn kernel4(self) -> NarrowKernel {
                match self {
                    $(NarrowOp::$op => narrow4_kernel::<{ NarrowOp::$op as u8 }>),*
                }
            }

            /// The kernel for this operation on 16-bit elements.
            pub(super) fn kernel2(self) -> NarrowKernel {
                match self {
                    $(NarrowOp::$op => narrow2_kernel::<{ NarrowOp::$op as u8 }>),*
                }
            }
        }
    };
}
narrow_ops!(
    AddWrap, AddSatU, AddSatS, SubWrap, SubSatU, SubSatS, MinU, MinS, MaxU, MaxS, AbsdiffU,
    AbsdiffS, Avrg, Eq, Ne, LtU, LtS, LeU, LeS, GtU, GtS, GeU, GeS, True, False,
);

impl NarrowOp {
    /// The operation of `v`, a narrow form ([`narrow_form`]).
    #[inline(always)]
    fn new(v: &Video) -> Self {
        use NarrowOp as N;
        match (v.op, v.asigned, v.sat) {
            (VideoOp::Add, _, false) => N::AddWrap,
            (VideoOp::Add, false, true) => N::AddSatU,
            (VideoOp::Add, true, true) => N::AddSatS,
            (VideoOp::Sub, _, false) => N::SubWrap,
            (VideoOp::Sub, false, true) => N::SubSatU,
            (VideoOp::Sub, true, true) => N::SubSatS,
            (VideoOp::Min, false, _) => N::MinU,
            (VideoOp::Min, true, _) => N::MinS,
            (VideoOp::Max, false, _) => N::MaxU,
            (VideoOp::Max, true, _) => N::MaxS,
            (VideoOp::Absdiff, false, _) => N::AbsdiffU,
            (VideoOp::Absdiff, true, _) => N::AbsdiffS,
            (VideoOp::Avrg, _, _) => N::Avrg,
            (VideoOp::Set(c), signed, _) => match (int_cmp_kind(c), signed) {
                (Base::Eq, _) => N::Eq,
                (Base::Ne, _) => N::Ne,
                (Base::Lt, false) => N::LtU,
                (Base::Lt, true) => N::LtS,
                (Base::Le, false) => N::LeU,
                (Base::Le, true) => N::LeS,
                (Base::Gt, false) => N::GtU,
                (Base::Gt, true) => N::GtS,
                (Base::Ge, false) => N::GeU,
                (Base::Ge, true) => N::GeS,
                (Base::True, _) => N::True,
                (Base::False, _) => N::False,
            },
        }
    }
}

/// A narrow form compiled for one operation: the instruction, its `sval`
/// ([`narrow_form`]), the registers and the lanes to write.
pub(super) type NarrowKernel = fn(&Video, bool, &mut WarpRegs, u32);

crate::exec::simd::wide_kernel! {
fn narrow4_kernel [const OP: u8] [OP] (v: &Video, sval: bool, regs: &mut WarpRegs, exec: u32) {
    video4_narrow(v, NarrowOp::ALL[OP as usize], sval, regs, exec);
}
}

crate::exec::simd::wide_kernel! {
fn narrow2_kernel [const OP: u8] [OP] (v: &Video, sval: bool, regs: &mut WarpRegs, exec: u32) {
    video2_narrow(v, NarrowOp::ALL[OP as usize], sval, regs, exec);
}
}

#[inline(always)]
fn narrow_loop<T: Copy, const L: usize>(
    f: impl Fn(T, T) -> T,
    a: &[T; L],
    b: &[T; L],
    o: &mut [T; L],
) {
    for i in 0..L {
        o[i] = f(a[i], b[i]);
    }
}

/// Sum of the four bytes of a lane's low word, unsigned (`signed`: as i8),
/// modulo 2^32 (the bits above are left over). On the 64-bit lane as it
/// is: no packing to 32 bits and back.
#[inline(always)]
fn sum_bytes(w: u64, signed: bool) -> u64 {
    let t = (w & 0x00FF_00FF) + ((w >> 8) & 0x00FF_00FF);
    let u = (t & 0xFFFF) + (t >> 16);
    if signed {
        // Each negative byte counted 256 too high: their count is the top
        // byte of the low word of this product.
        let negs = ((((w >> 7) & 0x0101_0101) * 0x0101_0101) >> 24) & 0xFF;
        u.wrapping_sub(negs << 8)
    } else {
        u
    }
}

/// Sum of the two halves of a lane's low word, unsigned (`signed`: as
/// i16), modulo 2^32 as [`sum_bytes`].
#[inline(always)]
fn sum_halves(w: u64, signed: bool) -> u64 {
    if signed {
        (i64::from(w as u16 as i16) + i64::from((w as u32 as i32) >> 16)) as u64
    } else {
        (w & 0xFFFF) + ((w >> 16) & 0xFFFF)
    }
}

/// Plain `vop4`/`vop2` whose every element result fits the element width
/// (see `narrow_form`), computed at that width: the registers' 64-bit lanes
/// viewed as u8 or u16 elements (no copy, no packing of low words), with
/// the machine's own saturating, averaging and min/max instructions, 32 or
/// 16 elements per vector step. The high words' elements, whatever the
/// registers hold there, are computed too and then dropped: the operation
/// is element-wise, so they never touch the low words' results. Element
/// order within a word does not matter: `.add` sums them. Writes `d` and
/// returns true, or returns false (writing nothing) where an element can
/// leave the width.
macro_rules! narrow_video {
    ($name:ident, $u:ty, $s:ty, $sum:ident) => {
        #[inline(always)]
        fn $name(v: &Video, op: NarrowOp, sval: bool, regs: &mut WarpRegs, exec: u32) {
            const LEN: usize = (64 / <$u>::BITS) as usize * WARP_SIZE;
            let a: &[$u; LEN] = bytemuck::cast_ref(regs.get(v.a));
            let b: &[$u; LEN] = bytemuck::cast_ref(regs.get(v.b));
            let mut o = [0 as $u; LEN];
            macro_rules! run {
                ($f:expr) => {
                    narrow_loop($f, a, b, &mut o)
                };
            }
            macro_rules! cmp {
                ($t:ty, $c:tt) => {
                    run!(|x: $u, y: $u| <$u>::from((x as $t) $c (y as $t)))
                };
            }
            match op {
                NarrowOp::AddWrap => run!(|x: $u, y: $u| x.wrapping_add(y)),
                NarrowOp::AddSatU => run!(|x: $u, y: $u| x.saturating_add(y)),
                NarrowOp::AddSatS => run!(|x: $u, y: $u| (x as $s).saturating_add(y as $s) as $u),
                NarrowOp::SubWrap => run!(|x: $u, y: $u| x.wrapping_sub(y)),
                NarrowOp::SubSatU => run!(|x: $u, y: $u| x.saturating_sub(y)),
                NarrowOp::SubSatS => run!(|x: $u, y: $u| (x as $s).saturating_sub(y as $s) as $u),
                NarrowOp::MinU => run!(|x: $u, y: $u| x.min(y)),
                NarrowOp::MinS => run!(|x: $u, y: $u| (x as $s).min(y as $s) as $u),
                NarrowOp::MaxU => run!(|x: $u, y: $u| x.max(y)),
                NarrowOp::MaxS => run!(|x: $u, y: $u| (x as $s).max(y as $s) as $u),
                NarrowOp::AbsdiffU => run!(|x: $u, y: $u| x.abs_diff(y)),
                NarrowOp::AbsdiffS => run!(|x: $u, y: $u| (x as $s).abs_diff(y as $s)),
                // Unsigned only (`narrow_form`): half away from zero is half up.
                NarrowOp::Avrg => {
                    run!(|x: $u, y: $u| ((u32::from(x) + u32::from(y) + 1) >> 1) as $u)
                }
                NarrowOp::Eq => cmp!($u, ==),
                NarrowOp::Ne => cmp!($u, !=),
                NarrowOp::LtU => cmp!($u, <),
                NarrowOp::LtS => cmp!($s, <),
                NarrowOp::LeU => cmp!($u, <=),
                NarrowOp::LeS => cmp!($s, <=),
                NarrowOp::GtU => cmp!($u, >),
                NarrowOp::GtS => cmp!($s, >),
                NarrowOp::GeU => cmp!($u, >=),
                NarrowOp::GeS => cmp!($s, >=),
                NarrowOp::True => run!(|_: $u, _: $u| 1),
                NarrowOp::False => run!(|_: $u, _: $u| 0),
            }
            let o: Lanes = bytemuck::cast(o);
            if v.add {
                // c plus the element values, sign-extended where signed:
                // one loop per signedness (tested per lane, the loop does
                // not vectorise).
                let c = regs.get(v.c);
                let mut out = [0u64; WARP_SIZE];
                if sval {
                    for l in 0..WARP_SIZE {
                        out[l] = c[l].wrapping_add($sum(o[l], true)) & 0xFFFF_FFFF;
                    }
                } else {
                    for l in 0..WARP_SIZE {
                        out[l] = c[l].wrapping_add($sum(o[l], false)) & 0xFFFF_FFFF;
                    }
                }
                blend(regs.get_mut(v.d), exec, &out);
            } else {
                // The low words' results, zero-extended as they are
                // written (a pass over `o` first sent it through memory).
                blend_low32(regs.get_mut(v.d), exec, &o);
            }
        }
    };
}
narrow_video!(video4_narrow, u8, i8, sum_bytes);
narrow_video!(video2_narrow, u16, i16, sum_halves);

/// Whether a plain video instruction's element results all fit its element
/// width, so computing at that width is exact, and if so whether `.add`
/// reads them as signed. It needs `a` and `b` of one signedness, then:
/// `add`/`sub` either wrap (no `.sat`; not with `.add`, which sums the
/// exact values) or saturate to their own type (`d` of that signedness);
/// `min`/`max` stay in the type unless `.sat` clamps to another; `absdiff`
/// and unsigned `avrg` lie in the unsigned range, which `.sat` to a signed
/// `d` would cut; `vset` gives 0 or 1.
fn narrow_form(v: &Video) -> Option<bool> {
    let s = v.asigned;
    if v.bsigned != s {
        return None;
    }
    let ok = match v.op {
        VideoOp::Add | VideoOp::Sub => {
            if v.sat {
                v.dsigned == s
            } else {
                !v.add
            }
        }
        VideoOp::Min | VideoOp::Max => !v.sat || v.dsigned == s,
        VideoOp::Absdiff => !(v.sat && v.dsigned),
        VideoOp::Avrg => !(s || v.sat && v.dsigned),
        VideoOp::Set(_) => true,
    };
    let sval = matches!(
        v.op,
        VideoOp::Add | VideoOp::Sub | VideoOp::Min | VideoOp::Max
    ) && s;
    ok.then_some(sval)
}

/// Which warp form runs a video instruction, decided by its fields alone
/// (so a prepared instruction decides it once): the narrow forms (with
/// [`narrow_form`]'s `sval`), the other plain ones, or the general loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum VideoForm {
    Narrow4 { sval: bool, op: NarrowOp },
    Narrow2 { sval: bool, op: NarrowOp },
    Plain4,
    Plain2,
    N4,
    N2,
}

impl VideoForm {
    /// The form for `v`. Inlined: [`video`] decides it per call.
    #[inline(always)]
    pub(super) fn new(v: &Video) -> Self {
        // Selector bytes, lane 0 lowest, tested for the defaults all at once
        // (only the bits below the pool size count, as in `video_n`).
        match v.simd {
            Simd::X2
                if v.mask & 3 == 3
                    && u32::from_le_bytes(v.asel) & 0x0303 == 0x0100
                    && u32::from_le_bytes(v.bsel) & 0x0303 == 0x0302 =>
            {
                narrow_form(v).map_or(VideoForm::Plain2, |sval| VideoForm::Narrow2 {
                    sval,
                    op: NarrowOp::new(v),
                })
            }
            Simd::X2 => VideoForm::N2,
            Simd::X4
                if v.mask & 0xF == 0xF
                    && u32::from_le_bytes(v.asel) & 0x0707_0707 == 0x0302_0100
                    && u32::from_le_bytes(v.bsel) & 0x0707_0707 == 0x0706_0504 =>
            {
                narrow_form(v).map_or(VideoForm::Plain4, |sval| VideoForm::Narrow4 {
                    sval,
                    op: NarrowOp::new(v),
                })
            }
            Simd::X4 => VideoForm::N4,
        }
    }
}

impl VideoForm {
    /// For a narrow form, its kernel compiled for the operation and its
    /// `sval` ([`narrow_form`]).
    pub(super) fn narrow_kernel(self) -> Option<(NarrowKernel, bool)> {
        match self {
            VideoForm::Narrow4 { sval, op } => Some((op.kernel4(), sval)),
            VideoForm::Narrow2 { sval, op } => Some((op.kernel2(), sval)),
            _ => None,
        }
    }
}

/// `vop2`/`vop4` over a warp, written into the lanes of `d` selected by
/// `exec`: the narrow and plain forms above, or one fused loop per lane
/// doing every element position, specialised for the operation, `.sat` and
/// `.add` (the arithmetic of [`super::video::VideoPlan::lane`]: exact i32
/// elements, clamp, then merge into `c` or accumulate onto it).
pub(super) fn video(v: &Video, regs: &mut WarpRegs, exec: u32) {
    video_run(v, VideoForm::new(v), regs, exec);
}

/// [`video`] with its form decided (`form` must be `VideoForm::new(v)`).
#[inline(always)]
pub(super) fn video_run(v: &Video, form: VideoForm, regs: &mut WarpRegs, exec: u32) {
    let out = match form {
        VideoForm::Narrow4 { sval, op } => return video4_narrow(v, op, sval, regs, exec),
        VideoForm::Narrow2 { sval, op } => return video2_narrow(v, op, sval, regs, exec),
        VideoForm::Plain4 => video4_plain(v, regs),
        VideoForm::Plain2 => video2_plain(v, regs),
        VideoForm::N4 => video_n::<4>(v, regs),
        VideoForm::N2 => video_n::<2>(v, regs),
    };
    blend32(regs.get_mut(v.d), exec, &out);
}

#[inline(never)]
fn video_n<const N: usize>(v: &Video, regs: &WarpRegs) -> U32s {
    let n = N as u32;
    let w = 32 / n;
    let lane_mask = (1u32 << w) - 1;
    let sel_mask = (2 * N - 1) as u8;
    let mask = u32::from(v.mask) & ((1 << n) - 1);
    let mut keep_c = 0u32;
    for i in 0..n {
        if mask >> i & 1 == 0 {
            keep_c |= lane_mask << (w * i);
        }
    }
    let mut out = if v.add || keep_c != 0 {
        low32(regs.get(v.c))
    } else {
        [0; WARP_SIZE]
    };
    if !v.add && keep_c != 0 && keep_c != u32::MAX {
        for o in out.iter_mut() {
            *o &= keep_c;
        }
    }
    if mask == 0 {
        return out;
    }
    let a = low32(regs.get(v.a));
    let b = if v.b == v.a { a } else { low32(regs.get(v.b)) };
    // Element k of the pool b:a is in a for k < n, else in b.
    let pick = |sel: u8| {
        let k = u32::from(sel & sel_mask);
        if k < n {
            (&a, 32 - w - k * w)
        } else {
            (&b, 32 - w - (k - n) * w)
        }
    };
    let (lo, hi) = if v.dsigned {
        (-(1i32 << (w - 1)), (1i32 << (w - 1)) - 1)
    } else {
        (0, lane_mask as i32)
    };
    // Every element from `a`'s top until the selectors below say otherwise.
    let gather = |signed: bool| Gather {
        reg: [&a; N],
        shl: [0; N],
        mask: if signed { -1 } else { lane_mask as i32 },
    };
    let mut p = VPlan::<N> {
        x: gather(v.asigned),
        y: gather(v.bsigned),
        r: 32 - w,
        field: [0; N],
        take: [0; N],
        place: [0; N],
        lo,
        hi,
    };
    for i in 0..N {
        (p.x.reg[i], p.x.shl[i]) = pick(v.asel[i]);
        (p.y.reg[i], p.y.shl[i]) = pick(v.bsel[i]);
        let on = mask >> i & 1 == 1;
        p.place[i] = w * i as u32;
        p.field[i] = if on { lane_mask << p.place[i] } else { 0 };
        p.take[i] = if on { u32::MAX } else { 0 };
    }
    // Accumulating needs each element widened back to 32 bits, which costs
    // more shuffles than i16 saves: only merges use it.
    if N == 4 && !v.add {
        video_ops::<i16, N>(v.op, v.sat, v.add, &p, &mut out);
    } else {
        video_ops::<i32, N>(v.op, v.sat, v.add, &p, &mut out);
    }
    out
}
