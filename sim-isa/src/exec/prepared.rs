//! Instructions decoded once for repeated execution. The SM model runs the
//! same static instruction millions of times; [`execute_fitted`] decodes
//! its fields on every call (operand types, table lookups, the flush
//! decision, the video form). [`Prepared::new`] does that decoding once and
//! [`execute_prepared`] runs the families' own warp loops on the result, so
//! the semantics stay those of the warp forms (and of the scalar
//! reference they are tested against), bit for bit.

use super::alu::{alu_b, alu_with};
use super::cmp_warp::{set_run, SetPlan};
use super::int::{int_wrap_into, is_wrapping};
use super::lanes::{blend, exec_mask};
use super::select::{selp_masked, slct_run, SlctPlan};
use super::video_warp::{video_run, VideoForm};
use super::{execute_fitted, width_mask, ExecCtx, WarpRegs};
use crate::inst::{AluOp, Guard, Instruction, IntOp, Op, Operand, PredSrc, RegId, Type, Video};
use crate::target::Target;

/// An instruction decoded for [`execute_prepared`]: built once per static
/// instruction by [`Prepared::new`] and reused for every execution.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The guard, applied before the kernel (`None` for
    /// [`Kernel::Other`], which applies the instruction's own).
    guard: Option<Guard>,
    kernel: Kernel,
}

/// The decoded body: one variant per specialised form, its constants
/// resolved; anything else runs through [`execute_fitted`].
#[derive(Clone, Debug)]
enum Kernel {
    Set(SetPlan),
    Video(Video, VideoForm),
    Selp {
        m: u64,
        d: RegId,
        a: Operand,
        b: Operand,
        c: PredSrc,
    },
    Slct(RegId, SlctPlan),
    Alu {
        op: AluOp,
        ty: Type,
        b_bits: u32,
        d: RegId,
        a: Operand,
        b: Operand,
    },
    /// `add`, `sub`, `mul.lo` without `.sat`.
    IntWrap {
        op: IntOp,
        m: u64,
        d: RegId,
        a: Operand,
        b: Operand,
    },
    Other(Box<Instruction>),
}

impl Prepared {
    /// Decodes `inst` for programs running on `target` (the only part of
    /// [`ExecCtx`] that decoding reads: it decides float flushing; the
    /// per-warp parts are read at execution).
    pub fn new(inst: &Instruction, target: Target) -> Self {
        let kernel = match &inst.op {
            Op::Set(s) => Kernel::Set(SetPlan::new(s, target)),
            Op::Video(v) => Kernel::Video(*v, VideoForm::new(v)),
            Op::Selp(s) => Kernel::Selp {
                m: width_mask(s.ty.bits()),
                d: s.d,
                a: s.a,
                b: s.b,
                c: s.c,
            },
            Op::Slct(s) => Kernel::Slct(s.d, SlctPlan::new(s, target)),
            Op::Alu(x) => Kernel::Alu {
                op: x.op,
                ty: x.ty,
                b_bits: x.b_bits(),
                d: x.d,
                a: x.a,
                b: alu_b(x),
            },
            Op::Int(x) if is_wrapping(x) => Kernel::IntWrap {
                op: x.op,
                m: width_mask(x.ty.bits()),
                d: x.d,
                // As `int_into` reads it.
                a: x.a,
                b: x.b.unwrap_or(Operand::Imm(0)),
            },
            _ => {
                return Prepared {
                    guard: None,
                    kernel: Kernel::Other(Box::new(*inst)),
                }
            }
        };
        Prepared {
            guard: inst.guard,
            kernel,
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
    let exec = exec_mask(p.guard, regs, active);
    if exec == 0 {
        return;
    }
    // Every arm is one call (a tail call): the dispatch needs no frame.
    match &p.kernel {
        Kernel::Set(s) => run_set(s, ctx, regs, exec),
        Kernel::Video(v, f) => run_video(v, *f, regs, exec),
        Kernel::Selp { m, d, a, b, c } => run_selp(*m, (*d, *a, *b, *c), ctx, regs, exec),
        Kernel::Slct(d, s) => run_slct(*d, s, ctx, regs, exec),
        Kernel::Alu {
            op,
            ty,
            b_bits,
            d,
            a,
            b,
        } => run_alu((*op, *ty, *b_bits), (*d, *a, *b), ctx, regs, exec),
        Kernel::IntWrap { op, m, d, a, b } => {
            run_int_wrap((*op, *m), (*d, *a, *b), ctx, regs, exec)
        }
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

#[inline(never)]
fn run_set(s: &SetPlan, ctx: &ExecCtx, regs: &mut WarpRegs, exec: u32) {
    set_run(s, ctx, regs, exec);
}

#[inline(never)]
fn run_video(v: &Video, form: VideoForm, regs: &mut WarpRegs, exec: u32) {
    video_run(v, form, regs, exec);
}

#[inline(never)]
fn run_selp(
    m: u64,
    (d, a, b, c): (RegId, Operand, Operand, PredSrc),
    ctx: &ExecCtx,
    regs: &mut WarpRegs,
    exec: u32,
) {
    let out = selp_masked(m, a, b, c, ctx, regs);
    blend(regs.get_mut(d), exec, &out);
}

#[inline(never)]
fn run_slct(d: RegId, s: &SlctPlan, ctx: &ExecCtx, regs: &mut WarpRegs, exec: u32) {
    let out = slct_run(s, ctx, regs);
    blend(regs.get_mut(d), exec, &out);
}

#[inline(never)]
fn run_alu(
    (op, ty, b_bits): (AluOp, Type, u32),
    (d, a, b): (RegId, Operand, Operand),
    ctx: &ExecCtx,
    regs: &mut WarpRegs,
    exec: u32,
) {
    let out = alu_with(op, ty, b_bits, a, b, ctx, regs);
    blend(regs.get_mut(d), exec, &out);
}

#[inline(never)]
fn run_int_wrap(
    (op, m): (IntOp, u64),
    (d, a, b): (RegId, Operand, Operand),
    ctx: &ExecCtx,
    regs: &mut WarpRegs,
    exec: u32,
) {
    int_wrap_into(op, m, (a, b), ctx, regs, (d, exec));
}
