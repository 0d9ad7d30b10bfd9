//! Warp-wide fast paths for [`super::execute`]: each instruction's fields are
//! decoded once, then every family runs as straight-line loops over 32-lane
//! arrays (gather → compute → masked blend) that the compiler vectorises.
//!
//! The scalar lane functions stay the definition of the semantics:
//! [`super::execute_scalar`] lifts them lane by lane, and the integration
//! tests (`tests/it/fastpath.rs`) check `execute` against it bit for bit over
//! random instructions, registers, masks and guards. Anything not covered
//! here (float `add`/`sub`) runs through the scalar functions directly.

use super::{
    alu_lane, pred_src_bits, read_operand, set_true_value, width_mask, Lanes, WarpRegs, WARP_SIZE,
};
use crate::inst::{AluOp, BoolOp, CmpOp, Operand, PredSrc, Set, Setp, Slct, Type, TypeKind, Video, VideoOp};
use crate::target::Target;
use super::ExecCtx;

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

/// A lane mask expanded to 0/1 per lane.
#[inline]
fn unpack_bits(m: u32) -> U32s {
    let mut o = [0u32; WARP_SIZE];
    for l in 0..WARP_SIZE {
        o[l] = u32::from(m & BIT[l] != 0);
    }
    o
}

/// Writes `vals` to the lanes of `d` selected by `exec`, branch-free.
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

/// Low 32 bits of every lane of a register.
#[inline]
pub(super) fn low32(r: &Lanes) -> U32s {
    let mut o = [0u32; WARP_SIZE];
    for l in 0..WARP_SIZE {
        o[l] = r[l] as u32;
    }
    o
}

/// Low 32 bits of every lane of an operand.
#[inline]
fn read32(op: Operand, ctx: &ExecCtx, regs: &WarpRegs) -> U32s {
    let v = read_operand(op, 32, ctx, regs);
    let mut o = [0u32; WARP_SIZE];
    for l in 0..WARP_SIZE {
        o[l] = v[l] as u32;
    }
    o
}

/// 0/1 per lane of a predicate source, `!` applied.
#[inline]
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

/// One element position of a video instruction, decoded.
#[derive(Clone, Copy)]
struct ElemPass {
    xsh: u32,
    ysh: u32,
    /// Sign bit of the element when the operand is signed, else 0:
    /// `(e ^ flip) - flip` sign-extends without a branch.
    xflip: u32,
    yflip: u32,
    lane_mask: u32,
    lo: i32,
    hi: i32,
    place: u32,
}

#[inline(always)]
fn elem_loop<const SAT: bool, const ADD: bool>(
    f: impl Fn(i32, i32) -> i32,
    p: &ElemPass,
    xs: &U32s,
    ys: &U32s,
    out: &mut U32s,
) {
    for l in 0..WARP_SIZE {
        let x = (((xs[l] >> p.xsh) & p.lane_mask) ^ p.xflip) as i32 - p.xflip as i32;
        let y = (((ys[l] >> p.ysh) & p.lane_mask) ^ p.yflip) as i32 - p.yflip as i32;
        let mut t = f(x, y);
        if SAT {
            t = t.max(p.lo).min(p.hi);
        }
        if ADD {
            out[l] = out[l].wrapping_add(t as u32);
        } else {
            out[l] |= ((t as u32) & p.lane_mask) << p.place;
        }
    }
}

#[inline(always)]
fn elem_run(
    f: impl Fn(i32, i32) -> i32,
    sat: bool,
    add: bool,
    p: &ElemPass,
    xs: &U32s,
    ys: &U32s,
    out: &mut U32s,
) {
    match (sat, add) {
        (false, false) => elem_loop::<false, false>(f, p, xs, ys, out),
        (false, true) => elem_loop::<false, true>(f, p, xs, ys, out),
        (true, false) => elem_loop::<true, false>(f, p, xs, ys, out),
        (true, true) => elem_loop::<true, true>(f, p, xs, ys, out),
    }
}

/// `vop2`/`vop4` over a warp: one pass per written element position, each a
/// loop specialised for the operation, `.sat` and `.add` (same arithmetic as
/// [`super::video::VideoPlan::lane`]: exact i32 elements, clamp, merge or
/// accumulate).
pub(super) fn video(v: &Video, a: &U32s, b: &U32s, c: &U32s) -> U32s {
    let n = v.simd.lanes();
    let w = v.simd.lane_bits();
    let lane_mask = (1u32 << w) - 1;
    let sel_mask = (2 * n - 1) as u8;
    let mask = v.mask & ((1 << n) - 1);
    let mut keep_c = 0u32;
    for i in 0..n {
        if mask >> i & 1 == 0 {
            keep_c |= lane_mask << (w * i as u32);
        }
    }
    let (lo, hi) = if v.dsigned {
        (-(1i32 << (w - 1)), (1i32 << (w - 1)) - 1)
    } else {
        (0, lane_mask as i32)
    };
    let mut out = *c;
    if !v.add {
        for o in out.iter_mut() {
            *o &= keep_c;
        }
    }
    let sign = 1u32 << (w - 1);
    for i in 0..n {
        if mask >> i & 1 == 0 {
            continue;
        }
        // Element k of the pool b:a is in a for k < n, else in b.
        let pick = |sel: u8| {
            let k = u32::from(sel & sel_mask);
            if (k as usize) < n {
                (a, k * w)
            } else {
                (b, (k - n as u32) * w)
            }
        };
        let (xs, xsh) = pick(v.asel[i]);
        let (ys, ysh) = pick(v.bsel[i]);
        let p = ElemPass {
            xsh,
            ysh,
            xflip: if v.asigned { sign } else { 0 },
            yflip: if v.bsigned { sign } else { 0 },
            lane_mask,
            lo,
            hi,
            place: w * i as u32,
        };
        let (sat, add) = (v.sat, v.add);
        let o = &mut out;
        match v.op {
            VideoOp::Add => elem_run(|x, y| x + y, sat, add, &p, xs, ys, o),
            VideoOp::Sub => elem_run(|x, y| x - y, sat, add, &p, xs, ys, o),
            // Errata 7: half away from zero.
            VideoOp::Avrg => elem_run(
                |x, y| {
                    let s = x + y;
                    (s + i32::from(s >= 0)) >> 1
                },
                sat,
                add,
                &p,
                xs,
                ys,
                o,
            ),
            VideoOp::Absdiff => elem_run(|x, y| (x - y).abs(), sat, add, &p, xs, ys, o),
            VideoOp::Min => elem_run(|x, y| x.min(y), sat, add, &p, xs, ys, o),
            VideoOp::Max => elem_run(|x, y| x.max(y), sat, add, &p, xs, ys, o),
            VideoOp::Set(cmp) => match int_cmp_kind(cmp) {
                Base::Eq => elem_run(|x, y| i32::from(x == y), sat, add, &p, xs, ys, o),
                Base::Ne => elem_run(|x, y| i32::from(x != y), sat, add, &p, xs, ys, o),
                Base::Lt => elem_run(|x, y| i32::from(x < y), sat, add, &p, xs, ys, o),
                Base::Le => elem_run(|x, y| i32::from(x <= y), sat, add, &p, xs, ys, o),
                Base::Gt => elem_run(|x, y| i32::from(x > y), sat, add, &p, xs, ys, o),
                Base::Ge => elem_run(|x, y| i32::from(x >= y), sat, add, &p, xs, ys, o),
                Base::True => elem_run(|_, _| 1, sat, add, &p, xs, ys, o),
                Base::False => elem_run(|_, _| 0, sat, add, &p, xs, ys, o),
            },
        }
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

/// `vset`'s (and integer `set`'s) reading of a comparison operator.
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

/// Compare keys: unsigned integers whose order is the operands' order, plus
/// a 0/1 "unordered" flag per lane for floats.
macro_rules! keyed {
    ($name:ident, $t:ty) => {
        /// `unord ? u : base(ka, kb)` per lane, as 0/1.
        #[inline]
        fn $name(base: Base, u: bool, ka: &[$t; WARP_SIZE], kb: &[$t; WARP_SIZE], nan: &U32s) -> U32s {
            #[inline(always)]
            fn run(f: impl Fn($t, $t) -> bool, u: u32, ka: &[$t; WARP_SIZE], kb: &[$t; WARP_SIZE], nan: &U32s) -> U32s {
                let mut o = [0u32; WARP_SIZE];
                for l in 0..WARP_SIZE {
                    let t = u32::from(f(ka[l], kb[l]));
                    // nan is 0 or 1: pick u where set.
                    let m = 0u32.wrapping_sub(nan[l]);
                    o[l] = (t & !m) | (u & m);
                }
                o
            }
            let u = u32::from(u);
            match base {
                Base::Eq => run(|x, y| x == y, u, ka, kb, nan),
                Base::Ne => run(|x, y| x != y, u, ka, kb, nan),
                Base::Lt => run(|x, y| x < y, u, ka, kb, nan),
                Base::Le => run(|x, y| x <= y, u, ka, kb, nan),
                Base::Gt => run(|x, y| x > y, u, ka, kb, nan),
                Base::Ge => run(|x, y| x >= y, u, ka, kb, nan),
                Base::True => run(|_, _| true, u, ka, kb, nan),
                Base::False => run(|_, _| false, u, ka, kb, nan),
            }
        }
    };
}
keyed!(cmp_keys32, u32);
keyed!(cmp_keys64, u64);

/// Float compare keys for one format of `1 + e + m <= 32` bits held in the
/// low bits of each lane (after `shift` right): flush subnormals if asked,
/// fold -0 onto +0, then map sign-magnitude to an unsigned order. Also
/// returns 0/1 NaN flags.
#[inline]
fn float_keys32(v: &U32s, shift: u32, e: u32, m: u32, flush: bool) -> (U32s, U32s) {
    let nbits = 1 + e + m;
    let wm = if nbits == 32 { u32::MAX } else { (1u32 << nbits) - 1 };
    let sign = 1u32 << (e + m);
    let inf = ((1u32 << e) - 1) << m;
    let man_lim = 1u32 << m; // abs below this: zero or subnormal
    let fl = u32::from(flush);
    let mut k = [0u32; WARP_SIZE];
    let mut nan = [0u32; WARP_SIZE];
    for l in 0..WARP_SIZE {
        let x = (v[l] >> shift) & wm;
        let mut abs = x & !sign;
        // Flushed subnormals and both zeros are all +0.
        let zero = abs == 0 || (fl == 1 && abs < man_lim);
        abs = if zero { 0 } else { abs };
        let neg = x & sign != 0 && !zero;
        nan[l] = u32::from(abs > inf);
        k[l] = if neg { (sign - 1) - abs } else { sign | abs };
    }
    (k, nan)
}

/// As [`float_keys32`] for f64.
#[inline]
fn float_keys64(v: &Lanes, flush: bool) -> ([u64; WARP_SIZE], U32s) {
    let sign = 1u64 << 63;
    let inf = 0x7FFu64 << 52;
    let man_lim = 1u64 << 52;
    let mut k = [0u64; WARP_SIZE];
    let mut nan = [0u32; WARP_SIZE];
    for l in 0..WARP_SIZE {
        let x = v[l];
        let mut abs = x & !sign;
        let zero = abs == 0 || (flush && abs < man_lim);
        abs = if zero { 0 } else { abs };
        let neg = x & sign != 0 && !zero;
        nan[l] = u32::from(abs > inf);
        k[l] = if neg { (sign - 1) - abs } else { sign | abs };
    }
    (k, nan)
}

/// Exponent and mantissa widths of the float formats compared here.
fn fields(ty: Type) -> (u32, u32) {
    match ty {
        Type::F16 | Type::F16x2 => (5, 10),
        Type::Bf16 | Type::Bf16x2 => (8, 7),
        Type::F32 => (8, 23),
        _ => (11, 52),
    }
}

/// 0/1 compare results per lane: `(t, t_high)`; `t_high` is only meaningful
/// for x2 types (the high halves).
fn compare_lanes(
    cmp: CmpOp,
    ty: Type,
    flush: bool,
    a: Operand,
    b: Operand,
    ctx: &ExecCtx,
    regs: &WarpRegs,
) -> (U32s, U32s) {
    let bits = ty.bits();
    let zero = [0u32; WARP_SIZE];
    match ty.kind() {
        TypeKind::Float | TypeKind::BFloat => {
            let (base, u) = float_cmp_kind(cmp);
            let (e, m) = fields(ty);
            if bits == 64 {
                let av = read_operand(a, 64, ctx, regs);
                let bv = read_operand(b, 64, ctx, regs);
                let (ka, na) = float_keys64(&av, flush);
                let (kb, nb) = float_keys64(&bv, flush);
                let nan = or01(&na, &nb);
                return (cmp_keys64(base, u, &ka, &kb, &nan), zero);
            }
            let av = read32(a, ctx, regs);
            let bv = read32(b, ctx, regs);
            let x2 = matches!(ty, Type::F16x2 | Type::Bf16x2);
            let (ka, na) = float_keys32(&av, 0, e, m, flush);
            let (kb, nb) = float_keys32(&bv, 0, e, m, flush);
            let lo = cmp_keys32(base, u, &ka, &kb, &or01(&na, &nb));
            if !x2 {
                return (lo, zero);
            }
            let (ka, na) = float_keys32(&av, 16, e, m, flush);
            let (kb, nb) = float_keys32(&bv, 16, e, m, flush);
            (lo, cmp_keys32(base, u, &ka, &kb, &or01(&na, &nb)))
        }
        kind => {
            let base = int_cmp_kind(cmp);
            // lo/ls/hi/hs are unsigned on every integer type; the rest follow the type.
            let unsigned_op = matches!(cmp, CmpOp::Lo | CmpOp::Ls | CmpOp::Hi | CmpOp::Hs);
            let signed = kind == TypeKind::Signed && !unsigned_op;
            let none = [0u32; WARP_SIZE];
            if bits == 64 {
                let flip = if signed { 1u64 << 63 } else { 0 };
                let mut ka = read_operand(a, 64, ctx, regs);
                let mut kb = read_operand(b, 64, ctx, regs);
                for l in 0..WARP_SIZE {
                    ka[l] ^= flip;
                    kb[l] ^= flip;
                }
                return (cmp_keys64(base, false, &ka, &kb, &none), zero);
            }
            let flip = if signed { 1u32 << (bits - 1) } else { 0 };
            let mut ka = read_operand32(a, bits, ctx, regs);
            let mut kb = read_operand32(b, bits, ctx, regs);
            for l in 0..WARP_SIZE {
                ka[l] ^= flip;
                kb[l] ^= flip;
            }
            (cmp_keys32(base, false, &ka, &kb, &none), zero)
        }
    }
}

/// An operand of at most 32 bits, masked at `bits`.
#[inline]
fn read_operand32(op: Operand, bits: u32, ctx: &ExecCtx, regs: &WarpRegs) -> U32s {
    let mut v = read32(op, ctx, regs);
    let m = width_mask(bits) as u32;
    for x in v.iter_mut() {
        *x &= m;
    }
    v
}

#[inline]
fn or01(a: &U32s, b: &U32s) -> U32s {
    let mut o = [0u32; WARP_SIZE];
    for l in 0..WARP_SIZE {
        o[l] = a[l] | b[l];
    }
    o
}

/// `BoolOp(t, c)` per lane on 0/1 arrays.
#[inline]
fn combine01(op: Option<BoolOp>, t: &U32s, c: &U32s) -> U32s {
    let mut o = *t;
    match op {
        None => {}
        Some(BoolOp::And) => o.iter_mut().zip(c).for_each(|(o, c)| *o &= c),
        Some(BoolOp::Or) => o.iter_mut().zip(c).for_each(|(o, c)| *o |= c),
        Some(BoolOp::Xor) => o.iter_mut().zip(c).for_each(|(o, c)| *o ^= c),
    }
    o
}

/// Whether compares of `ty` flush subnormal inputs (as in `cmp.rs`).
fn flushes(ftz: bool, ty: Type, target: Target) -> bool {
    ftz || (ty == Type::F32 && target.flushes_f32_subnormals())
}

/// `set` over a warp.
pub(super) fn set(s: &Set, ctx: &ExecCtx, regs: &WarpRegs) -> Lanes {
    let flush = flushes(s.ftz, s.stype, ctx.target);
    let (t, th) = compare_lanes(s.cmp, s.stype, flush, s.a, s.b, ctx, regs);
    let op = s.bool_op.map(|(o, _)| o);
    let c = s.bool_op.map_or([0; WARP_SIZE], |(_, p)| pred01(p, regs));
    let dm = width_mask(s.dtype.bits());
    let mut out = [0u64; WARP_SIZE];
    if matches!(s.stype, Type::F16x2 | Type::Bf16x2) {
        let half_true = match s.dtype {
            Type::F16x2 | Type::Bf16x2 => set_true_value(s.dtype),
            _ => 0xFFFF,
        };
        let lo = combine01(op, &t, &c);
        let hi = combine01(op, &th, &c);
        let (vl, vh) = (half_true & dm, (half_true << 16) & dm);
        for l in 0..WARP_SIZE {
            out[l] = (vl & 0u64.wrapping_sub(lo[l].into())) | (vh & 0u64.wrapping_sub(hi[l].into()));
        }
    } else {
        let r = combine01(op, &t, &c);
        let tv = set_true_value(s.dtype) & dm;
        for l in 0..WARP_SIZE {
            out[l] = tv & 0u64.wrapping_sub(r[l].into());
        }
    }
    out
}

/// `setp` over a warp: `(p, q)` as 0/1 lanes.
pub(super) fn setp(s: &Setp, ctx: &ExecCtx, regs: &WarpRegs) -> (Lanes, Lanes) {
    let flush = flushes(s.ftz, s.ty, ctx.target);
    let (t, th) = compare_lanes(s.cmp, s.ty, flush, s.a, s.b, ctx, regs);
    let op = s.bool_op.map(|(o, _)| o);
    let c = s.bool_op.map_or([0; WARP_SIZE], |(_, p)| pred01(p, regs));
    let p = combine01(op, &t, &c);
    let q = if matches!(s.ty, Type::F16x2 | Type::Bf16x2) {
        combine01(op, &th, &c)
    } else {
        let mut nt = t;
        nt.iter_mut().for_each(|x| *x ^= 1);
        combine01(op, &nt, &c)
    };
    let mut po = [0u64; WARP_SIZE];
    let mut qo = [0u64; WARP_SIZE];
    for l in 0..WARP_SIZE {
        po[l] = p[l].into();
        qo[l] = q[l].into();
    }
    (po, qo)
}

// --------------------------------------------------------- selp / slct

/// `c ? a : b` per lane with `c` a 0/1 array.
#[inline]
fn select(c: &U32s, a: &Lanes, b: &Lanes) -> Lanes {
    let mut o = [0u64; WARP_SIZE];
    for l in 0..WARP_SIZE {
        let m = 0u64.wrapping_sub(c[l].into());
        o[l] = (a[l] & m) | (b[l] & !m);
    }
    o
}

/// `selp` over a warp.
pub(super) fn selp(ty: Type, a: Operand, b: Operand, c: PredSrc, ctx: &ExecCtx, regs: &WarpRegs) -> Lanes {
    let bits = ty.bits();
    let av = read_operand(a, bits, ctx, regs);
    let bv = read_operand(b, bits, ctx, regs);
    let cm = pred_src_bits(c, regs);
    select(&unpack_bits(cm), &av, &bv)
}

/// `slct` over a warp.
pub(super) fn slct(s: &Slct, ctx: &ExecCtx, regs: &WarpRegs) -> Lanes {
    let bits = s.dtype.bits();
    let av = read_operand(s.a, bits, ctx, regs);
    let bv = read_operand(s.b, bits, ctx, regs);
    let c = read32(s.c, ctx, regs);
    let mut take = [0u32; WARP_SIZE];
    if s.ctype == Type::F32 {
        // c >= 0.0: not NaN, and not negative unless it is (or flushes to) zero.
        let lim = if flushes(s.ftz, Type::F32, ctx.target) { 0x0080_0000 } else { 1 };
        for l in 0..WARP_SIZE {
            let abs = c[l] & 0x7FFF_FFFF;
            let nan = abs > 0x7F80_0000;
            let neg = c[l] >> 31 == 1 && abs >= lim;
            take[l] = u32::from(!nan && !neg);
        }
    } else {
        for l in 0..WARP_SIZE {
            take[l] = (c[l] >> 31) ^ 1;
        }
    }
    select(&take, &av, &bv)
}

// ------------------------------------------------------------------ alu

#[inline(always)]
fn alu_loop(f: impl Fn(u64, u64) -> u64, m: u64, a: &Lanes, b: &Lanes) -> Lanes {
    let mut o = [0u64; WARP_SIZE];
    for l in 0..WARP_SIZE {
        o[l] = f(a[l], b[l]) & m;
    }
    o
}

/// Integer ALU over a warp (`a` at the type width, `b` at the width
/// [`super::execute`] reads it); float types go lane by lane through
/// [`alu_lane`].
pub(super) fn alu(op: AluOp, ty: Type, a: &Lanes, b: &Lanes) -> Lanes {
    let bits = ty.bits();
    let m = width_mask(bits);
    let float = matches!(ty.kind(), TypeKind::Float | TypeKind::BFloat);
    if float && matches!(op, AluOp::Add | AluOp::Sub) {
        let mut o = [0u64; WARP_SIZE];
        for l in 0..WARP_SIZE {
            o[l] = alu_lane(op, ty, a[l], b[l]);
        }
        return o;
    }
    match op {
        AluOp::Mov => alu_loop(|x, _| x, m, a, b),
        AluOp::Add => alu_loop(|x, y| x.wrapping_add(y), m, a, b),
        AluOp::Sub => alu_loop(|x, y| x.wrapping_sub(y), m, a, b),
        AluOp::MulLo => alu_loop(|x, y| x.wrapping_mul(y), m, a, b),
        AluOp::And => alu_loop(|x, y| x & y, m, a, b),
        AluOp::Or => alu_loop(|x, y| x | y, m, a, b),
        AluOp::Xor => alu_loop(|x, y| x ^ y, m, a, b),
        AluOp::Shl => alu_loop(
            |x, y| if y >= u64::from(bits) { 0 } else { x << (y & 63) },
            m,
            a,
            b,
        ),
        AluOp::Shr if ty.kind() == TypeKind::Signed => {
            let sh = 64 - bits;
            alu_loop(
                move |x, y| ((((x << sh) as i64) >> sh) >> y.min(63)) as u64,
                m,
                a,
                b,
            )
        }
        AluOp::Shr => alu_loop(
            |x, y| if y >= u64::from(bits) { 0 } else { x >> (y & 63) },
            m,
            a,
            b,
        ),
    }
}
