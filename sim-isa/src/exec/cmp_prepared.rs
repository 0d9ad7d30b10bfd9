//! `set` over a warp: the comparison resolved to a [`CmpForm`] (key
//! format, ordering test, flush decision for the target), once for a
//! prepared instruction ([`super::Prepared`], with kernels compiled per
//! ordering test and key width, chosen by function pointer:
//! [`SetPlan::kernel`]) or per call (`set`); `setp` likewise (its
//! [`CmpForm`] kept by a prepared instruction, [`setp_kernel_for`]). All
//! run `cmp_warp`'s lane loops; the property tests hold them to the scalar
//! reference.

// Index loops over fixed 32-lane arrays read as what they are (one lane per
// step, several arrays in step) and vectorise without bounds checks.
#![allow(clippy::needless_range_loop)]

use super::cmp::{flushes, with_base_type, BaseTest};
use super::cmp_warp::{
    combine01, float_loop16, form_halves, form_lanes, info, int_loop, CmpForm, TypeInfo,
};
use super::lanes::{blend, blend32, halves, pred01, pred01_halves, src, Lanes, U32s, WarpRegs};
use super::{ExecCtx, WARP_SIZE};
use crate::inst::{Set, Setp};

/// What a `set` decodes beyond its fields: its comparison ([`CmpForm`],
/// with the flush decision for the target) and the destination's width
/// mask and true values, kept by a prepared instruction with the
/// instruction (whose operands are read from it).
#[derive(Clone, Copy, Debug)]
pub(super) struct SetPlan {
    form: CmpForm,
    dm: u64,
    tv: u64,
    half_true: u16,
}

impl SetPlan {
    /// `s` on `target` (which decides flushing).
    #[inline(always)]
    pub(super) fn new(s: &Set, target: crate::target::Target) -> Self {
        let TypeInfo {
            dm, tv, half_true, ..
        } = info(s.dtype);
        SetPlan {
            form: CmpForm::new(s.cmp, s.stype, || flushes(s.ftz, s.stype, target)),
            dm,
            tv,
            half_true,
        }
    }
}

/// A `set` kernel: [`set_run`] for one [`Compare`], called with the
/// instruction and its plan.
pub(super) type SetKernel = fn(&Set, &SetPlan, &ExecCtx, &mut WarpRegs, u32);

impl SetPlan {
    /// The kernel for this plan of `s`: without a `BoolOp`, compiled for
    /// its ordering test and key width where it is an integer form of 32
    /// or 64 bits or an x2 form, so its compare loop runs with no dispatch
    /// (and holds no code for the other forms); else the decoding one.
    pub(super) fn kernel(&self, s: &Set) -> SetKernel {
        if s.bool_op.is_some() {
            return set_kernel::<Decoded>;
        }
        match self.form {
            CmpForm::Int { base, sh: 32, .. } => {
                with_base_type!(base, B => set_kernel::<IntKeys<B, 32>> as SetKernel)
            }
            CmpForm::Int { base, sh: 0, .. } => {
                with_base_type!(base, B => set_kernel::<IntKeys<B, 0>> as SetKernel)
            }
            CmpForm::Halves {
                base, flush: true, ..
            } => with_base_type!(base, B => set_kernel::<HalfKeys<B, true>> as SetKernel),
            CmpForm::Halves {
                base, flush: false, ..
            } => with_base_type!(base, B => set_kernel::<HalfKeys<B, false>> as SetKernel),
            _ => set_kernel::<Decoded>,
        }
    }
}

/// `set` over a warp, decoded per call (`execute_fitted`): the kernel a
/// prepared `set` falls back to, with its plan made now.
pub(super) fn set(s: &Set, ctx: &ExecCtx, regs: &mut WarpRegs, exec: u32) {
    set_run::<Decoded>(s, &SetPlan::new(s, ctx.target), ctx, regs, exec);
}

crate::exec::simd::wide_kernel! {
fn set_kernel [C: Compare] [C] (s: &Set, p: &SetPlan, ctx: &ExecCtx, regs: &mut WarpRegs, exec: u32) {
    set_run::<C>(s, p, ctx, regs, exec);
}
}

/// A `setp` kernel: [`setp_run`] for one [`Compare`], called with the
/// instruction and its comparison (`CmpForm::new` for the target).
pub(super) type SetpKernel = fn(&Setp, &CmpForm, &ExecCtx, &mut WarpRegs, u32);

/// `s`'s comparison on `target`, decoded once for a prepared `setp`.
pub(super) fn setp_form(s: &Setp, target: crate::target::Target) -> CmpForm {
    CmpForm::new(s.cmp, s.ty, || flushes(s.ftz, s.ty, target))
}

/// The kernel for a prepared `setp` with comparison `form`: without a
/// `BoolOp`, compiled for its ordering test where it is an integer form of
/// 32 or 64 bits (as [`SetPlan::kernel`]); else the decoding one.
pub(super) fn setp_kernel_for(s: &Setp, form: &CmpForm) -> SetpKernel {
    if s.bool_op.is_some() {
        return setp_kernel::<Decoded>;
    }
    match *form {
        CmpForm::Int { base, sh: 32, .. } => {
            with_base_type!(base, B => setp_kernel::<IntKeys<B, 32>> as SetpKernel)
        }
        CmpForm::Int { base, sh: 0, .. } => {
            with_base_type!(base, B => setp_kernel::<IntKeys<B, 0>> as SetpKernel)
        }
        _ => setp_kernel::<Decoded>,
    }
}

/// `setp` over a warp, decoded per call (`execute_fitted`).
pub(super) fn setp(s: &Setp, ctx: &ExecCtx, regs: &mut WarpRegs, exec: u32) {
    setp_run::<Decoded>(s, &setp_form(s, ctx.target), ctx, regs, exec);
}

crate::exec::simd::wide_kernel! {
fn setp_kernel [C: Compare] [C] (s: &Setp, form: &CmpForm, ctx: &ExecCtx, regs: &mut WarpRegs, exec: u32) {
    setp_run::<C>(s, form, ctx, regs, exec);
}
}

/// `s` over a warp with its comparison `form`, compares run by `C`: `p`
/// and `q` as 0/1 lanes, combined with the `BoolOp`'s predicate if any,
/// written where they go.
#[inline(always)]
fn setp_run<C: Compare>(s: &Setp, form: &CmpForm, ctx: &ExecCtx, regs: &mut WarpRegs, exec: u32) {
    src!(a, s.a, ctx, regs);
    src!(b, s.b, ctx, regs);
    let (mut p, mut q);
    if C::X2.unwrap_or(matches!(form, CmpForm::Halves { .. })) {
        let r = cmp_halves::<C>(form, a, b, |m| m & 1);
        (p, q) = ([0u32; WARP_SIZE], [0u32; WARP_SIZE]);
        for l in 0..WARP_SIZE {
            p[l] = r[2 * l].into();
            q[l] = r[2 * l + 1].into();
        }
    } else {
        p = cmp_lanes::<C, _>(form, a, b, |t| t);
        q = p;
        q.iter_mut().for_each(|x| *x ^= 1);
    }
    let bool_op = if C::PLAIN { None } else { s.bool_op };
    if let Some((op, c)) = bool_op {
        let c = pred01(c, regs);
        combine01(op, &mut p, &c);
        combine01(op, &mut q, &c);
    }
    if let Some(pr) = s.p {
        blend32(regs.get_mut(pr), exec, &p);
    }
    if let Some(Some(qr)) = s.q {
        blend32(regs.get_mut(qr), exec, &q);
    }
}

/// How [`set_run`] (and [`setp_run`]) runs its compares: [`Decoded`] reads the test and
/// format from the plan's [`CmpForm`] per call; [`IntKeys`] and
/// [`HalfKeys`] have them (but the form's constants) fixed by type. All
/// run the same lane loops ([`cmp_lanes`], [`cmp_halves`]).
trait Compare {
    /// Known to run without a `BoolOp`.
    const PLAIN: bool;
    /// Known to run an x2 form (`Some(true)`) or one that is not.
    const X2: Option<bool>;
    /// The ordering test compiled in (read where `INT_SH` or `FLUSH` is set).
    type Test: BaseTest;
    /// Integer keys shifted by this many bits, compiled in ([`CmpForm::Int`]).
    const INT_SH: Option<u32> = None;
    /// x2 halves, flushing or not, compiled in ([`CmpForm::Halves`]).
    const FLUSH: Option<bool> = None;
}

/// Compares decoded from the form per call.
struct Decoded;

impl Compare for Decoded {
    const PLAIN: bool = false;
    const X2: Option<bool> = None;
    // Not read: neither loop is compiled in.
    type Test = super::cmp::TestEq;
}

/// Integer keys shifted by `SH`, test `B` ([`CmpForm::Int`]).
struct IntKeys<B, const SH: u32>(B);

impl<B: BaseTest, const SH: u32> Compare for IntKeys<B, SH> {
    const PLAIN: bool = true;
    const X2: Option<bool> = Some(false);
    type Test = B;
    const INT_SH: Option<u32> = Some(SH);
}

/// x2 halves, test `B`, flushing or not ([`CmpForm::Halves`]).
struct HalfKeys<B, const FLUSH: bool>(B);

impl<B: BaseTest, const FLUSH: bool> Compare for HalfKeys<B, FLUSH> {
    const PLAIN: bool = true;
    const X2: Option<bool> = Some(true);
    type Test = B;
    const FLUSH: Option<bool> = Some(FLUSH);
}

/// [`form_lanes`], or the integer loop `C` is compiled for (chosen for
/// integer forms only: [`SetPlan::kernel`]).
#[inline(always)]
fn cmp_lanes<C: Compare, O: Copy + Default>(
    form: &CmpForm,
    a: &Lanes,
    b: &Lanes,
    g: impl Fn(u32) -> O + Copy,
) -> [O; WARP_SIZE] {
    let (Some(sh), CmpForm::Int { flip, .. }) = (C::INT_SH, *form) else {
        return form_lanes(form, a, b, g);
    };
    let mut t = [O::default(); WARP_SIZE];
    int_loop(C::Test::holds::<i64>, sh, flip, a, b, (g, &mut t));
    t
}

/// [`form_halves`], or the x2 loop `C` is compiled for (chosen for x2
/// forms only: [`SetPlan::kernel`]).
#[inline(always)]
fn cmp_halves<C: Compare>(
    form: &CmpForm,
    a: &Lanes,
    b: &Lanes,
    g: impl Fn(u16) -> u16 + Copy,
) -> [u16; 2 * WARP_SIZE] {
    let (Some(flush), CmpForm::Halves { u, fmt, .. }) = (C::FLUSH, *form) else {
        return form_halves(form, a, b, g);
    };
    let (a, b) = (&halves(a), &halves(b));
    let mut r = [0u16; 2 * WARP_SIZE];
    let out = (g, &mut r);
    if flush {
        float_loop16::<true>(C::Test::holds::<i16>, u, &fmt, a, b, out);
    } else {
        float_loop16::<false>(C::Test::holds::<i16>, u, &fmt, a, b, out);
    }
    r
}

/// `s` over a warp with its decoding `p` (`SetPlan::new(s, ctx.target)`),
/// compares run by `C`. Without a `BoolOp` each compare maps straight to
/// the lane's value inside the compare loop (one pass, no 0/1 array); with
/// one, the 0/1 results are combined with the predicate first.
#[inline(always)]
fn set_run<C: Compare>(s: &Set, p: &SetPlan, ctx: &ExecCtx, regs: &mut WarpRegs, exec: u32) {
    let SetPlan {
        dm, tv, half_true, ..
    } = *p;
    src!(a, s.a, ctx, regs);
    src!(b, s.b, ctx, regs);
    // What the kernel knows, as constants: the other paths compile away.
    let bool_op = if C::PLAIN { None } else { s.bool_op };
    let x2 = C::X2.unwrap_or(matches!(p.form, CmpForm::Halves { .. }));
    let vals = if x2 {
        // Each half's true value (at most 16 bits), in its half.
        let r = match bool_op {
            None => cmp_halves::<C>(&p.form, a, b, |m| m & half_true),
            Some((op, c)) => {
                let mut r = cmp_halves::<C>(&p.form, a, b, |m| m & 1);
                combine01(op, &mut r, &pred01_halves(c, regs));
                r.iter_mut()
                    .for_each(|h| *h = half_true & 0u16.wrapping_sub(*h));
                r
            }
        };
        // Halves back into words (as `halves` split them): a cast.
        let mut w: U32s = bytemuck::cast(r);
        if cfg!(target_endian = "big") {
            w.iter_mut().for_each(|x| *x = x.rotate_left(16));
        }
        // The word's bits at the destination width (a loop: `array::map`
        // is not inlined).
        let mut vals = [0u64; WARP_SIZE];
        for l in 0..WARP_SIZE {
            vals[l] = u64::from(w[l]) & dm;
        }
        vals
    } else {
        // All ones where true, then the true value's bits.
        let value = move |t: u32| 0u64.wrapping_sub(t.into()) & tv;
        match bool_op {
            None => cmp_lanes::<C, _>(&p.form, a, b, value),
            Some((op, c)) => {
                let mut t = cmp_lanes::<C, _>(&p.form, a, b, |t| t);
                combine01(op, &mut t, &pred01(c, regs));
                let mut vals = [0u64; WARP_SIZE];
                for l in 0..WARP_SIZE {
                    vals[l] = value(t[l]);
                }
                vals
            }
        }
    };
    blend(regs.get_mut(s.d), exec, &vals);
}
