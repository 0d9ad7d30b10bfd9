//! Instructions decoded once for repeated execution. The SM model runs the
//! same static instruction millions of times; [`execute_fitted`] decodes
//! its fields on every call (operand types, table lookups, the flush
//! decision, the video form). [`Prepared::new`] does that decoding once and
//! [`execute_prepared`] runs the families' own warp loops on the result, so
//! the semantics stay those of the warp forms (and of the scalar
//! reference they are tested against), bit for bit.

use super::alu::{AluKernel, AluPlan};
use super::cmp_prepared::{setp_form, setp_kernel_for, SetKernel, SetPlan, SetpKernel};
use super::cmp_warp::CmpForm;
use super::float::{Fast32Kernel, Fast32Plan};
use super::int::{has_wrap_kernel, IntWrapKernel, IntWrapPlan};
use super::lanes::{blend, exec_mask};
use super::select::{selp_run, slct_run, SelpPlan, SlctPlan};
use super::video_warp::{video_run, NarrowKernel, VideoForm};
use super::{execute_fitted, ExecCtx, WarpRegs};
use crate::inst::{Guard, Instruction, Op, Set, Setp, Video};
use crate::target::Target;

/// An instruction decoded for [`execute_prepared`]: built once per static
/// instruction by [`Prepared::new`] and reused for every execution (on
/// any warp of a program for the target it was built for). Specialised:
/// `set` (kernels compiled per ordering test and key width for the
/// integer and x2 forms without a `BoolOp`), `setp` (the comparison
/// decided; kernels as `set`'s for the integer forms), video (the form decided; the
/// narrow forms with kernels compiled per operation), `selp`, `slct`,
/// `mov and or xor shl shr` (kernels per operation but for the shifts),
/// wrapping `add sub mul.lo mad.lo`, `mul.wide` (kernels per operation), `.f32` `add sub mul
/// fma` rounding to nearest without `.sat` (kernels per operation and
/// `.ftz`). Everything else keeps the instruction and runs it through
/// [`execute_fitted`].
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The guard, applied before the kernel (`None` for
    /// [`Kernel::Other`], which applies the instruction's own).
    guard: Option<Guard>,
    kernel: Kernel,
}

/// The decoded body: one variant per specialised form, its constants
/// resolved; anything else runs through [`execute_fitted`]. A plain tag
/// (`repr(u8)`): with the fields' niches the compiler encoded the variant
/// in them, and dispatching first decoded it with several compares.
#[derive(Clone, Debug)]
#[repr(u8)]
enum Kernel {
    /// With the kernel compiled for its comparison.
    Set(Set, SetPlan, SetKernel),
    /// With its comparison decoded and the kernel compiled for it.
    Setp(Setp, CmpForm, SetpKernel),
    /// The narrow forms: a kernel compiled for the operation, with `sval`.
    VideoNarrow(Video, NarrowKernel, bool),
    Video(Video, VideoForm),
    Selp(SelpPlan),
    Slct(SlctPlan),
    /// With the kernel compiled for its operation (as `IntWrap`).
    Alu(AluPlan, AluKernel),
    /// `add`, `sub`, `mul.lo`, `mad.lo` without `.sat`, `mul.wide`.
    IntWrap(IntWrapPlan, IntWrapKernel),
    /// `.f32` `add sub mul fma`, `.rn` (or none), no `.sat`: a kernel
    /// compiled for the operation and `.ftz`.
    Float32(Fast32Plan, Fast32Kernel),
    Other(Box<Instruction>),
}

impl Prepared {
    /// Decodes `inst` for programs running on `target` (the only part of
    /// [`ExecCtx`] that decoding reads: it decides float flushing; the
    /// per-warp parts are read at execution).
    pub fn new(inst: &Instruction, target: Target) -> Self {
        let kernel = match &inst.op {
            Op::Set(s) => {
                let plan = SetPlan::new(s, target);
                Kernel::Set(*s, plan, plan.kernel(s))
            }
            Op::Setp(s) => {
                let form = setp_form(s, target);
                Kernel::Setp(*s, form, setp_kernel_for(s, &form))
            }
            Op::Video(v) => {
                let form = VideoForm::new(v);
                match form.narrow_kernel() {
                    Some((k, sval)) => Kernel::VideoNarrow(*v, k, sval),
                    None => Kernel::Video(*v, form),
                }
            }
            Op::Selp(s) => Kernel::Selp(SelpPlan::new(s)),
            Op::Slct(s) => Kernel::Slct(SlctPlan::new(s, target)),
            Op::Alu(x) => {
                let plan = AluPlan::new(x);
                Kernel::Alu(plan, plan.kernel())
            }
            Op::Int(x) if has_wrap_kernel(x) => {
                let plan = IntWrapPlan::new(x);
                Kernel::IntWrap(plan, plan.kernel())
            }
            Op::Float(x) => match Fast32Plan::new(x) {
                Some(plan) => Kernel::Float32(plan, plan.kernel()),
                None => return Self::other(inst),
            },
            // Through `execute_fitted`: no lane kernel of their own.
            Op::Int(_)
            | Op::Bit(_)
            | Op::Cvt(_)
            | Op::Mem(_)
            | Op::Warp(_)
            | Op::Async(_)
            | Op::Mma(_) => return Self::other(inst),
        };
        Prepared {
            guard: inst.guard,
            kernel,
        }
    }

    /// `inst` run through [`execute_fitted`], its own guard applied there.
    fn other(inst: &Instruction) -> Self {
        Prepared {
            guard: None,
            kernel: Kernel::Other(Box::new(*inst)),
        }
    }

    /// Whether the instruction runs a specialised kernel (else it runs
    /// through [`execute_fitted`]).
    pub fn is_specialised(&self) -> bool {
        !matches!(self.kernel, Kernel::Other(_))
    }
}

/// [`execute_fitted`] for a prepared instruction: the same writes, bit for
/// bit (property-tested), without decoding its fields. `regs` must hold
/// every register the instruction names, as for [`execute_fitted`]; `ctx`
/// must be for the target it was prepared for.
#[inline]
pub fn execute_prepared(p: &Prepared, ctx: &ExecCtx, regs: &mut WarpRegs, active: u32) {
    execute_prepared_inline(p, ctx, regs, active);
}

/// [`execute_prepared`], always in line: for the one loop that runs most
/// of `--sample`'s functional work (sim-kernel's bare loop), where the call
/// and its frame cost about as much as the dispatch.
#[inline(always)]
pub fn execute_prepared_inline(p: &Prepared, ctx: &ExecCtx, regs: &mut WarpRegs, active: u32) {
    let exec = exec_mask(p.guard, regs, active);
    if exec == 0 {
        return;
    }
    // Every arm is one call (a tail call): the dispatch needs no frame.
    match &p.kernel {
        Kernel::Set(s, plan, k) => k(s, plan, ctx, regs, exec),
        Kernel::Setp(s, form, k) => k(s, form, ctx, regs, exec),
        Kernel::VideoNarrow(v, k, sval) => k(v, *sval, regs, exec),
        Kernel::Video(v, f) => run_video(v, *f, regs, exec),
        Kernel::Selp(s) => run_selp(s, ctx, regs, exec),
        Kernel::Slct(s) => run_slct(s, ctx, regs, exec),
        Kernel::Alu(x, k) => k(x, ctx, regs, exec),
        Kernel::IntWrap(x, k) => k(x, ctx, regs, exec),
        Kernel::Float32(x, k) => k(x, ctx, regs, exec),
        // `exec` is `active` here (no guard taken): the instruction's own
        // guard applies inside.
        Kernel::Other(inst) => run_other(inst, ctx, regs, exec),
    }
}

/// [`execute_fitted`], called from one place: inlined into
/// `execute_prepared`'s callers it would be a second copy there, and its
/// callers' own call to it would no longer be inlined.
#[inline(never)]
fn run_other(inst: &Instruction, ctx: &ExecCtx, regs: &mut WarpRegs, exec: u32) {
    execute_fitted(inst, ctx, regs, exec);
}

// The kernels, each a function of its own so that `execute_prepared`
// (inlined into its caller) stays a dispatcher.

super::simd::wide_kernel! {
fn run_video [] [] (v: &Video, form: VideoForm, regs: &mut WarpRegs, exec: u32) {
    video_run(v, form, regs, exec);
}
}

super::simd::wide_kernel! {
fn run_selp [] [] (s: &SelpPlan, ctx: &ExecCtx, regs: &mut WarpRegs, exec: u32) {
    let out = selp_run(s, ctx, regs);
    blend(regs.get_mut(s.d), exec, &out);
}
}

super::simd::wide_kernel! {
fn run_slct [] [] (s: &SlctPlan, ctx: &ExecCtx, regs: &mut WarpRegs, exec: u32) {
    let out = slct_run(s, ctx, regs);
    blend(regs.get_mut(s.d), exec, &out);
}
}
