//! Warp-wide fast paths for [`super::execute`]: each instruction's fields are
//! decoded once, then every family runs as straight-line loops over 32-lane
//! arrays (gather → compute → masked blend) that the compiler vectorises,
//! specialised per operation through generics so no per-lane `match` remains.
//!
//! The scalar lane functions stay the definition of the semantics:
//! [`super::execute_scalar`] lifts them lane by lane, and the integration
//! tests (`tests/it/fastpath.rs`) check `execute` against it bit for bit over
//! random instructions, registers, masks and guards. Float `add`/`sub` (not a
//! hot path) calls [`alu_lane`] per lane.

// Index loops over fixed 32-lane arrays read as what they are (one lane per
// step, several arrays in step) and vectorise without bounds checks.
#![allow(clippy::needless_range_loop)]

use super::{read_operand, set_true_value, width_mask, ExecCtx, Lanes, WarpRegs, WARP_SIZE};
use crate::inst::{
    AluOp, BoolOp, CmpOp, Operand, PredSrc, Set, Setp, Slct, Type, TypeKind, Video, VideoOp,
};
use crate::target::Target;

type U32s = [u32; WARP_SIZE];

/// `BIT[l] = 1 << l`: testing a lane's bit against a table keeps the lane
/// loops free of per-lane variable shifts, which SSE2 cannot vectorise.
pub(super) const BIT: [u32; WARP_SIZE] = {
    let mut t = [0u32; WARP_SIZE];
    let mut l = 0;
    while l < WARP_SIZE {
        t[l] = 1 << l;
        l += 1;
    }
    t
};

/// Writes `vals` to the lanes of `dst` selected by `exec`, branch-free.
#[inline]
pub(super) fn blend(dst: &mut Lanes, exec: u32, vals: &Lanes) {
    if exec == u32::MAX {
        *dst = *vals;
        return;
    }
    for l in 0..WARP_SIZE {
        let m = 0u64.wrapping_sub(u64::from(exec & BIT[l] != 0));
        dst[l] = (dst[l] & !m) | (vals[l] & m);
    }
}

/// As [`blend`] with lane `l`'s value computed by `val(l)`, so results go
/// straight into the register with no intermediate array.
#[inline(always)]
fn blend_with(dst: &mut Lanes, exec: u32, val: impl Fn(usize) -> u64) {
    if exec == u32::MAX {
        for l in 0..WARP_SIZE {
            dst[l] = val(l);
        }
        return;
    }
    for l in 0..WARP_SIZE {
        let m = 0u64.wrapping_sub(u64::from(exec & BIT[l] != 0));
        dst[l] = (dst[l] & !m) | (val(l) & m);
    }
}

/// As [`blend`] for 32-bit results, zero-extended.
#[inline(always)]
pub(super) fn blend32(dst: &mut Lanes, exec: u32, vals: &U32s) {
    if exec == u32::MAX {
        for l in 0..WARP_SIZE {
            dst[l] = u64::from(vals[l]);
        }
        return;
    }
    for l in 0..WARP_SIZE {
        let m = 0u64.wrapping_sub(u64::from(exec & BIT[l] != 0));
        dst[l] = (dst[l] & !m) | (u64::from(vals[l]) & m);
    }
}

/// Binds `$name: &Lanes` to a source operand's 32 lanes, unmasked: the
/// register's own array (no copy), or, for immediates and special
/// registers, a local filled only on that path (no zeroing up front).
macro_rules! src {
    ($name:ident, $op:expr, $ctx:expr, $regs:expr) => {
        let buf;
        let $name: &Lanes = match $op {
            Operand::Reg(r) => $regs.get(r),
            other => {
                buf = read_operand(other, 64, $ctx, $regs);
                &buf
            }
        };
    };
}

/// Low 32 bits of every lane.
#[inline(always)]
pub(super) fn low32(r: &Lanes) -> U32s {
    let mut o = [0u32; WARP_SIZE];
    for l in 0..WARP_SIZE {
        o[l] = r[l] as u32;
    }
    o
}

/// 0/1 per lane of a predicate source, `!` applied.
#[inline(always)]
fn pred01(p: PredSrc, regs: &WarpRegs) -> U32s {
    match p {
        PredSrc::Imm(b) => [u32::from(b); WARP_SIZE],
        PredSrc::Reg { reg, negate } => {
            let r = regs.get(reg);
            let n = u32::from(negate);
            let mut o = [0u32; WARP_SIZE];
            for l in 0..WARP_SIZE {
                o[l] = (r[l] as u32 & 1) ^ n;
            }
            o
        }
    }
}

// ------------------------------------------------------------------- video

/// A video instruction decoded for the fused lane loop: per element
/// position `i`, where its `a` and `b` elements come from and how to place
/// the result.
struct VPlan<'a, const N: usize> {
    /// Register holding element i's `a` (resp. `b`) input.
    xr: [&'a U32s; N],
    yr: [&'a U32s; N],
    /// `x = ((src << xl) as i32 >> r) & xm`: the left shift drops the higher
    /// elements, the arithmetic right shift sign-extends, and `xm` (all ones
    /// when signed, the element mask when unsigned) undoes it for unsigned.
    xl: [u32; N],
    yl: [u32; N],
    r: u32,
    xm: i32,
    ym: i32,
    /// Bits of d that element i fills (0 when the mask skips it).
    field: [u32; N],
    /// All ones when element i is accumulated (`.add`), else 0.
    take: [u32; N],
    place: [u32; N],
    lo: i32,
    hi: i32,
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
            let x = T::from_i32(((p.xr[i][l] << p.xl[i]) as i32 >> p.r) & p.xm);
            let y = T::from_i32(((p.yr[i][l] << p.yl[i]) as i32 >> p.r) & p.ym);
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

/// The 64 16-bit halves of the lanes' low words, low half first.
#[inline]
fn halves(r: &Lanes) -> [u16; 2 * WARP_SIZE] {
    // The low words viewed as halves: a cast, then in order on big-endian.
    let mut o: [u16; 2 * WARP_SIZE] = bytemuck::cast(low32(r));
    if cfg!(target_endian = "big") {
        for p in o.chunks_exact_mut(2) {
            p.swap(0, 1);
        }
    }
    o
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

/// [`video4_loop`] for `v`, which must be a plain `vop4`.
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

/// Sum of a word's four bytes, unsigned (`signed`: as i8).
#[inline(always)]
fn sum_bytes(w: u32, signed: bool) -> u32 {
    let t = (w & 0x00FF_00FF) + ((w >> 8) & 0x00FF_00FF);
    let u = (t & 0xFFFF) + (t >> 16);
    if signed {
        // Each negative byte counted 256 too high.
        let negs = (((w >> 7) & 0x0101_0101).wrapping_mul(0x0101_0101)) >> 24;
        u.wrapping_sub(negs << 8)
    } else {
        u
    }
}

/// Sum of a word's two halves, unsigned (`signed`: as i16).
#[inline(always)]
fn sum_halves(w: u32, signed: bool) -> u32 {
    if signed {
        (i32::from(w as u16 as i16) + ((w as i32) >> 16)) as u32
    } else {
        (w & 0xFFFF) + (w >> 16)
    }
}

/// Plain `vop4`/`vop2` whose every element result fits the element width
/// (see `narrow_form`), computed at that width: the low words viewed as u8
/// or u16 elements (a cast, no copy), with the machine's own saturating,
/// averaging and min/max instructions, 16 or 8 elements per vector step.
/// Element order within a word does not matter: the operation is
/// element-wise and `.add` sums them. Writes `d` and returns true, or
/// returns false (writing nothing) where an element can leave the width.
macro_rules! narrow_video {
    ($name:ident, $u:ty, $s:ty, $sum:ident) => {
        #[inline(always)]
        fn $name(v: &Video, regs: &mut WarpRegs, exec: u32) -> bool {
            const LEN: usize = (32 / <$u>::BITS) as usize * WARP_SIZE;
            let Some(sval) = narrow_form(v) else {
                return false;
            };
            let a: [$u; LEN] = bytemuck::cast(low32(regs.get(v.a)));
            let b: [$u; LEN] = if v.b == v.a {
                a
            } else {
                bytemuck::cast(low32(regs.get(v.b)))
            };
            let mut o = [0 as $u; LEN];
            macro_rules! run {
                ($f:expr) => {
                    narrow_loop($f, &a, &b, &mut o)
                };
            }
            macro_rules! cmp {
                ($t:ty, $c:tt) => {
                    run!(|x: $u, y: $u| <$u>::from((x as $t) $c (y as $t)))
                };
            }
            match (v.op, v.asigned, v.sat) {
                (VideoOp::Add, _, false) => run!(|x: $u, y: $u| x.wrapping_add(y)),
                (VideoOp::Add, false, true) => run!(|x: $u, y: $u| x.saturating_add(y)),
                (VideoOp::Add, true, true) => {
                    run!(|x: $u, y: $u| (x as $s).saturating_add(y as $s) as $u)
                }
                (VideoOp::Sub, _, false) => run!(|x: $u, y: $u| x.wrapping_sub(y)),
                (VideoOp::Sub, false, true) => run!(|x: $u, y: $u| x.saturating_sub(y)),
                (VideoOp::Sub, true, true) => {
                    run!(|x: $u, y: $u| (x as $s).saturating_sub(y as $s) as $u)
                }
                (VideoOp::Min, false, _) => run!(|x: $u, y: $u| x.min(y)),
                (VideoOp::Min, true, _) => run!(|x: $u, y: $u| (x as $s).min(y as $s) as $u),
                (VideoOp::Max, false, _) => run!(|x: $u, y: $u| x.max(y)),
                (VideoOp::Max, true, _) => run!(|x: $u, y: $u| (x as $s).max(y as $s) as $u),
                (VideoOp::Absdiff, false, _) => run!(|x: $u, y: $u| x.abs_diff(y)),
                (VideoOp::Absdiff, true, _) => run!(|x: $u, y: $u| (x as $s).abs_diff(y as $s)),
                // Unsigned only (`narrow_form`): half away from zero is half up.
                (VideoOp::Avrg, _, _) => {
                    run!(|x: $u, y: $u| ((u32::from(x) + u32::from(y) + 1) >> 1) as $u)
                }
                (VideoOp::Set(c), signed, _) => match (int_cmp_kind(c), signed) {
                    (Base::Eq, _) => cmp!($u, ==),
                    (Base::Ne, _) => cmp!($u, !=),
                    (Base::Lt, false) => cmp!($u, <),
                    (Base::Lt, true) => cmp!($s, <),
                    (Base::Le, false) => cmp!($u, <=),
                    (Base::Le, true) => cmp!($s, <=),
                    (Base::Gt, false) => cmp!($u, >),
                    (Base::Gt, true) => cmp!($s, >),
                    (Base::Ge, false) => cmp!($u, >=),
                    (Base::Ge, true) => cmp!($s, >=),
                    (Base::True, _) => run!(|_: $u, _: $u| 1),
                    (Base::False, _) => run!(|_: $u, _: $u| 0),
                },
            }
            let mut out: U32s = bytemuck::cast(o);
            if v.add {
                // c plus the element values, sign-extended where signed.
                let c = regs.get(v.c);
                for l in 0..WARP_SIZE {
                    out[l] = (c[l] as u32).wrapping_add($sum(out[l], sval));
                }
            }
            // Written here, while `out` is still in registers.
            blend32(regs.get_mut(v.d), exec, &out);
            true
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

/// `vop2`/`vop4` over a warp: one fused loop over lanes doing every element
/// position, specialised for the operation, `.sat` and `.add` (the
/// arithmetic of [`super::video::VideoPlan::lane`]: exact i32 elements,
/// clamp, then merge into `c` or accumulate onto it), written into the
/// lanes of `d` selected by `exec`.
pub(super) fn video(v: &Video, regs: &mut WarpRegs, exec: u32) {
    // Selector bytes, lane 0 lowest, tested for the defaults all at once
    // (only the bits below the pool size count, as in `video_n`).
    let out = match v.simd {
        crate::inst::Simd::X2
            if v.mask & 3 == 3
                && u32::from_le_bytes(v.asel) & 0x0303 == 0x0100
                && u32::from_le_bytes(v.bsel) & 0x0303 == 0x0302 =>
        {
            if video2_narrow(v, regs, exec) {
                return;
            }
            video2_plain(v, regs)
        }
        crate::inst::Simd::X2 => video_n::<2>(v, regs),
        crate::inst::Simd::X4
            if v.mask & 0xF == 0xF
                && u32::from_le_bytes(v.asel) & 0x0707_0707 == 0x0302_0100
                && u32::from_le_bytes(v.bsel) & 0x0707_0707 == 0x0706_0504 =>
        {
            if video4_narrow(v, regs, exec) {
                return;
            }
            video4_plain(v, regs)
        }
        crate::inst::Simd::X4 => video_n::<4>(v, regs),
    };
    blend32(regs.get_mut(v.d), exec, &out);
}

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
    let mut p = VPlan::<N> {
        xr: [&a; N],
        yr: [&a; N],
        xl: [0; N],
        yl: [0; N],
        r: 32 - w,
        xm: if v.asigned { -1 } else { lane_mask as i32 },
        ym: if v.bsigned { -1 } else { lane_mask as i32 },
        field: [0; N],
        take: [0; N],
        place: [0; N],
        lo,
        hi,
    };
    for i in 0..N {
        (p.xr[i], p.xl[i]) = pick(v.asel[i]);
        (p.yr[i], p.yl[i]) = pick(v.bsel[i]);
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

// ------------------------------------------------------------ set / setp

/// An ordering test on compare keys.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Base {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    True,
    False,
}

/// Integer (and `vset`) reading of a comparison operator: the unordered
/// forms act as the ordered ones, `num` is true, `nan` false (as `compare`).
fn int_cmp_kind(cmp: CmpOp) -> Base {
    match cmp {
        CmpOp::Eq | CmpOp::Equ => Base::Eq,
        CmpOp::Ne | CmpOp::Neu => Base::Ne,
        CmpOp::Lt | CmpOp::Ltu | CmpOp::Lo => Base::Lt,
        CmpOp::Le | CmpOp::Leu | CmpOp::Ls => Base::Le,
        CmpOp::Gt | CmpOp::Gtu | CmpOp::Hi => Base::Gt,
        CmpOp::Ge | CmpOp::Geu | CmpOp::Hs => Base::Ge,
        CmpOp::Num => Base::True,
        CmpOp::Nan => Base::False,
    }
}

/// A float comparison as `unordered ? U : base(key_a, key_b)`.
fn float_cmp_kind(cmp: CmpOp) -> (Base, bool) {
    match cmp {
        CmpOp::Eq => (Base::Eq, false),
        CmpOp::Ne => (Base::Ne, false),
        CmpOp::Lt | CmpOp::Lo => (Base::Lt, false),
        CmpOp::Le | CmpOp::Ls => (Base::Le, false),
        CmpOp::Gt | CmpOp::Hi => (Base::Gt, false),
        CmpOp::Ge | CmpOp::Hs => (Base::Ge, false),
        CmpOp::Equ => (Base::Eq, true),
        CmpOp::Neu => (Base::Ne, true),
        CmpOp::Ltu => (Base::Lt, true),
        CmpOp::Leu => (Base::Le, true),
        CmpOp::Gtu => (Base::Gt, true),
        CmpOp::Geu => (Base::Ge, true),
        CmpOp::Num => (Base::True, false),
        CmpOp::Nan => (Base::False, true),
    }
}

/// Calls `$run` with a closure for `$base` over keys of type `$t`.
macro_rules! with_base {
    ($base:expr, $t:ty, $run:path, ( $($arg:expr),* )) => {
        match $base {
            Base::Eq => $run(|x: $t, y: $t| x == y, $($arg),*),
            Base::Ne => $run(|x: $t, y: $t| x != y, $($arg),*),
            Base::Lt => $run(|x: $t, y: $t| x < y, $($arg),*),
            Base::Le => $run(|x: $t, y: $t| x <= y, $($arg),*),
            Base::Gt => $run(|x: $t, y: $t| x > y, $($arg),*),
            Base::Ge => $run(|x: $t, y: $t| x >= y, $($arg),*),
            Base::True => $run(|_: $t, _: $t| true, $($arg),*),
            Base::False => $run(|_: $t, _: $t| false, $($arg),*),
        }
    };
}

/// A float format of at most 32 bits, decoded for key building.
#[derive(Clone, Copy)]
struct Fmt32 {
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
    fn new(ty: Type, flush: bool) -> Self {
        let (e, m) = match ty {
            Type::F16 | Type::F16x2 => (5, 10),
            Type::Bf16 | Type::Bf16x2 => (8, 7),
            _ => (8, 23),
        };
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
fn float_loop32(
    f: impl Fn(i32, i32) -> bool,
    u: u32,
    fmt: &Fmt32,
    a: &Lanes,
    b: &Lanes,
    out: &mut U32s,
) {
    let fmt = *fmt;
    for l in 0..WARP_SIZE {
        let (ka, na) = fmt.key(a[l] as u32);
        let (kb, nb) = fmt.key(b[l] as u32);
        out[l] = if na | nb { u } else { u32::from(f(ka, kb)) };
    }
}

/// [`Fmt32`] for the halves of x2 types, on 16-bit lanes (twice as many
/// per vector step): keys fit i16 since magnitudes are 15 bits.
#[derive(Clone, Copy)]
struct Fmt16 {
    inf: i16,
    zlim: i16,
}

impl Fmt16 {
    fn new(ty: Type, flush: bool) -> Self {
        let m = if matches!(ty, Type::Bf16x2) { 7 } else { 10 };
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
fn float_loop16<const FLUSH: bool>(
    f: impl Fn(i16, i16) -> bool,
    u: u16,
    fmt: &Fmt16,
    a: &[u16; 2 * WARP_SIZE],
    b: &[u16; 2 * WARP_SIZE],
    out: &mut [u16; 2 * WARP_SIZE],
) {
    let fmt = *fmt;
    for h in 0..2 * WARP_SIZE {
        let (ka, na) = fmt.key::<FLUSH>(a[h]);
        let (kb, nb) = fmt.key::<FLUSH>(b[h]);
        out[h] = if na | nb { u } else { u16::from(f(ka, kb)) };
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
fn float_loop64(
    f: impl Fn(i64, i64) -> bool,
    u: u32,
    zlim: u64,
    a: &Lanes,
    b: &Lanes,
    out: &mut U32s,
) {
    for l in 0..WARP_SIZE {
        let (ka, na) = f64_key(a[l], zlim);
        let (kb, nb) = f64_key(b[l], zlim);
        out[l] = if na | nb { u } else { u32::from(f(ka, kb)) };
    }
}

/// Integers of at most 32 bits: `key = ((v << top) as i32 >> r) ^ flip`
/// sign-extends signed values (`r = top`) or biases unsigned ones
/// (`r = 0`, `flip = i32::MIN`) so one signed compare orders both.
#[inline(always)]
fn int_loop32(
    f: impl Fn(i32, i32) -> bool,
    top: u32,
    r: u32,
    flip: i32,
    a: &Lanes,
    b: &Lanes,
    out: &mut U32s,
) {
    for l in 0..WARP_SIZE {
        let ka = (((a[l] as u32) << top) as i32 >> r) ^ flip;
        let kb = (((b[l] as u32) << top) as i32 >> r) ^ flip;
        out[l] = u32::from(f(ka, kb));
    }
}

#[inline(always)]
fn int_loop64(f: impl Fn(i64, i64) -> bool, flip: i64, a: &Lanes, b: &Lanes, out: &mut U32s) {
    for l in 0..WARP_SIZE {
        out[l] = u32::from(f(a[l] as i64 ^ flip, b[l] as i64 ^ flip));
    }
}

/// Whether `ty` packs two 16-bit floats, compared half by half.
fn is_x2(ty: Type) -> bool {
    matches!(ty, Type::F16x2 | Type::Bf16x2)
}

/// 0/1 compare results per 16-bit half (low half of lane `l` at `2l`) for
/// an x2 type.
// Inlined: the result array then stays in registers instead of going
// through memory in pieces that a wide reload cannot forward.
#[inline(always)]
fn compare_halves(cmp: CmpOp, ty: Type, flush: bool, a: &Lanes, b: &Lanes) -> [u16; 2 * WARP_SIZE] {
    let (base, u) = float_cmp_kind(cmp);
    let (a, b) = (&halves(a), &halves(b));
    let fmt = Fmt16::new(ty, flush);
    let mut r = [0u16; 2 * WARP_SIZE];
    let u = u16::from(u);
    if flush {
        with_base!(base, i16, float_loop16::<true>, (u, &fmt, a, b, &mut r));
    } else {
        with_base!(base, i16, float_loop16::<false>, (u, &fmt, a, b, &mut r));
    }
    r
}

/// 0/1 compare results per lane for a type that is not x2.
// Inlined: the result array then stays in registers instead of going
// through memory in pieces that a wide reload cannot forward.
#[inline(always)]
fn compare_lanes(cmp: CmpOp, ty: Type, flush: bool, a: &Lanes, b: &Lanes) -> U32s {
    let bits = ty.bits();
    let mut t = [0u32; WARP_SIZE];
    match ty.kind() {
        TypeKind::Float | TypeKind::BFloat => {
            let (base, u) = float_cmp_kind(cmp);
            let u = u32::from(u);
            if bits == 64 {
                let zlim = if flush { 1u64 << 52 } else { 1 };
                with_base!(base, i64, float_loop64, (u, zlim, a, b, &mut t));
            } else {
                let fmt = Fmt32::new(ty, flush);
                with_base!(base, i32, float_loop32, (u, &fmt, a, b, &mut t));
            }
        }
        kind => {
            let base = int_cmp_kind(cmp);
            // lo/ls/hi/hs are unsigned on every integer type; the rest follow the type.
            let unsigned_op = matches!(cmp, CmpOp::Lo | CmpOp::Ls | CmpOp::Hi | CmpOp::Hs);
            let signed = kind == TypeKind::Signed && !unsigned_op;
            if bits == 64 {
                let flip = if signed { 0 } else { i64::MIN };
                with_base!(base, i64, int_loop64, (flip, a, b, &mut t));
            } else {
                let top = 32 - bits;
                let (r, flip) = if signed { (top, 0) } else { (0, i32::MIN) };
                with_base!(base, i32, int_loop32, (top, r, flip, a, b, &mut t));
            }
        }
    }
    t
}

/// A predicate's 0/1 lanes repeated for both halves of each lane.
#[inline]
fn pred01_halves(p: PredSrc, regs: &WarpRegs) -> [u16; 2 * WARP_SIZE] {
    let c = pred01(p, regs);
    let mut o = [0u16; 2 * WARP_SIZE];
    for l in 0..WARP_SIZE {
        o[2 * l] = c[l] as u16;
        o[2 * l + 1] = c[l] as u16;
    }
    o
}

/// [`combine01`] on 16-bit halves.
#[inline]
fn combine01_halves(op: BoolOp, t: &mut [u16; 2 * WARP_SIZE], c: &[u16; 2 * WARP_SIZE]) {
    match op {
        BoolOp::And => t.iter_mut().zip(c).for_each(|(t, c)| *t &= c),
        BoolOp::Or => t.iter_mut().zip(c).for_each(|(t, c)| *t |= c),
        BoolOp::Xor => t.iter_mut().zip(c).for_each(|(t, c)| *t ^= c),
    }
}

/// `BoolOp(t, c)` per lane on 0/1 arrays, in place.
#[inline]
fn combine01(op: Option<BoolOp>, t: &mut U32s, c: &U32s) {
    match op {
        None => {}
        Some(BoolOp::And) => t.iter_mut().zip(c).for_each(|(t, c)| *t &= c),
        Some(BoolOp::Or) => t.iter_mut().zip(c).for_each(|(t, c)| *t |= c),
        Some(BoolOp::Xor) => t.iter_mut().zip(c).for_each(|(t, c)| *t ^= c),
    }
}

/// Whether compares of `ty` flush subnormal inputs (as in `cmp.rs`).
fn flushes(ftz: bool, ty: Type, target: Target) -> bool {
    ftz || (ty == Type::F32 && target.flushes_f32_subnormals())
}

/// `set` over a warp, written straight into `d`'s lanes selected by `exec`
/// (no result array to copy).
pub(super) fn set(s: &Set, ctx: &ExecCtx, regs: &mut WarpRegs, exec: u32) {
    let flush = flushes(s.ftz, s.stype, ctx.target);
    let dm = width_mask(s.dtype.bits());
    src!(a, s.a, ctx, regs);
    src!(b, s.b, ctx, regs);
    // x2: each lane's 32-bit result word; otherwise 0/1 per lane.
    let (word, tv) = if is_x2(s.stype) {
        let mut r = compare_halves(s.cmp, s.stype, flush, a, b);
        if let Some((op, p)) = s.bool_op {
            combine01_halves(op, &mut r, &pred01_halves(p, regs));
        }
        // Each half's true value (at most 16 bits), in its half.
        let half_true = match s.dtype {
            Type::F16x2 | Type::Bf16x2 => set_true_value(s.dtype) as u16,
            _ => 0xFFFF,
        };
        for h in r.iter_mut() {
            *h = half_true & 0u16.wrapping_sub(*h);
        }
        // Halves back into words (as `halves` split them): a cast.
        let mut w: U32s = bytemuck::cast(r);
        if cfg!(target_endian = "big") {
            w.iter_mut().for_each(|x| *x = x.rotate_left(16));
        }
        // The word's bits at the destination width.
        (w, dm)
    } else {
        let mut t = compare_lanes(s.cmp, s.stype, flush, a, b);
        if let Some((op, p)) = s.bool_op {
            combine01(Some(op), &mut t, &pred01(p, regs));
        }
        // All ones where true, then the true value's bits.
        t.iter_mut().for_each(|x| *x = 0u32.wrapping_sub(*x));
        (t, set_true_value(s.dtype) & dm)
    };
    let d = regs.get_mut(s.d);
    if is_x2(s.stype) {
        blend_with(d, exec, |l| u64::from(word[l]) & tv);
    } else {
        // Sign-extended, the all-ones words keep a 64-bit true value whole.
        blend_with(d, exec, |l| (word[l] as i32 as u64) & tv);
    }
}

/// `setp` over a warp: `(p, q)` as 0/1 lanes.
pub(super) fn setp(s: &Setp, ctx: &ExecCtx, regs: &WarpRegs) -> (U32s, U32s) {
    let flush = flushes(s.ftz, s.ty, ctx.target);
    src!(a, s.a, ctx, regs);
    src!(b, s.b, ctx, regs);
    let (mut p, mut q);
    if is_x2(s.ty) {
        let r = compare_halves(s.cmp, s.ty, flush, a, b);
        (p, q) = ([0u32; WARP_SIZE], [0u32; WARP_SIZE]);
        for l in 0..WARP_SIZE {
            p[l] = r[2 * l].into();
            q[l] = r[2 * l + 1].into();
        }
    } else {
        p = compare_lanes(s.cmp, s.ty, flush, a, b);
        q = p;
        q.iter_mut().for_each(|x| *x ^= 1);
    }
    if let Some((op, c)) = s.bool_op {
        let c = pred01(c, regs);
        combine01(Some(op), &mut p, &c);
        combine01(Some(op), &mut q, &c);
    }
    (p, q)
}

// --------------------------------------------------------- selp / slct

/// `selp` over a warp: `c ? a : b` at the type width.
pub(super) fn selp(
    ty: Type,
    a: Operand,
    b: Operand,
    c: PredSrc,
    ctx: &ExecCtx,
    regs: &WarpRegs,
) -> Lanes {
    let m = width_mask(ty.bits());
    src!(a, a, ctx, regs);
    src!(b, b, ctx, regs);
    let c = pred01(c, regs);
    {
        let mut o = [0u64; WARP_SIZE];
        for l in 0..WARP_SIZE {
            let s = 0u64.wrapping_sub(c[l].into());
            o[l] = ((a[l] & s) | (b[l] & !s)) & m;
        }
        o
    }
}

/// `slct` over a warp: `c >= 0 ? a : b` at the destination width.
pub(super) fn slct(s: &Slct, ctx: &ExecCtx, regs: &WarpRegs) -> Lanes {
    let m = width_mask(s.dtype.bits());
    src!(a, s.a, ctx, regs);
    src!(b, s.b, ctx, regs);
    src!(c, s.c, ctx, regs);
    let c = low32(c);
    // All ones where b is taken: computed on 32-bit lanes, then widened.
    let mut take_b = [0u32; WARP_SIZE];
    if s.ctype == Type::F32 {
        // c >= 0.0: not NaN, and not negative unless it is (or flushes to) zero.
        let lim: i32 = if flushes(s.ftz, Type::F32, ctx.target) {
            0x0080_0000
        } else {
            1
        };
        for l in 0..WARP_SIZE {
            let abs = (c[l] & 0x7FFF_FFFF) as i32;
            let neg = (c[l] as i32) < 0;
            take_b[l] = 0u32.wrapping_sub(u32::from((abs > 0x7F80_0000) | (neg & (abs >= lim))));
        }
    } else {
        for l in 0..WARP_SIZE {
            take_b[l] = ((c[l] as i32) >> 31) as u32;
        }
    }
    let mut o = [0u64; WARP_SIZE];
    for l in 0..WARP_SIZE {
        let s = take_b[l] as i32 as i64 as u64;
        o[l] = ((a[l] & !s) | (b[l] & s)) & m;
    }
    o
}

// ------------------------------------------------------------------ alu

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
    let wide = u64::from(bits);
    match op {
        AluOp::Mov => alu_loop(|x, _| x, m, mb, a, b),
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
