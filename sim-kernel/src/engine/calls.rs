//! What a warp's calls that stay calls do: a builtin (`vprintf`,
//! `__assertfail`; `malloc` and `free`, served at the epoch's end), and
//! the error of an indirect call the inliner left in place. Apart from
//! `warp.rs`'s step loop, which reaches them rarely.

use super::code::Code;
use crate::error::{KernelError, Site};
use crate::memory::{GlobalView, WarpMem};
use sim_isa::{ExecCtx, WarpRegs};
use sim_module::ControlOp;

/// What `op`, a call the inliner left or a `trap`, does in `lanes` (not
/// none): a builtin runs; anything else stops the launch with its error.
pub(super) fn call_or_trap(
    regs: &mut WarpRegs,
    ctx: &ExecCtx,
    parts: (&Code<'_>, &mut WarpMem<'_>, &mut crate::printf::Sink),
    op: &ControlOp,
    lanes: u32,
    s: &sim_module::Statement,
) -> Result<(), KernelError> {
    let code = parts.0;
    let at = || {
        site(
            ctx,
            code,
            ctx.thread.first_thread + lanes.trailing_zeros(),
            s,
        )
    };
    match op {
        ControlOp::Call {
            builtin: Some(b), ..
        } => builtin(regs, ctx, parts, b, lanes, s),
        ControlOp::Call {
            callee,
            prototype: Some(_),
            address,
            rets,
            args,
            ..
        } if code.prep.module.function(callee).is_none() => {
            let site = (
                s,
                (callee.as_str(), *address),
                (args.len(), rets.len()),
                lanes,
            );
            Err(bad_call_target(regs, ctx, code, site))
        }
        ControlOp::Call { callee, .. } => Err(KernelError::CallDepth {
            callee: callee.clone(),
            depth: sim_module::MAX_CALL_DEPTH,
            at: at(),
        }),
        ControlOp::Trap => Err(KernelError::Trap {
            text: s.text.trim().to_string(),
            at: at(),
        }),
        ControlOp::Bra { .. } | ControlOp::Ret { .. } | ControlOp::Exit => Ok(()),
    }
}

/// Whether `s` calls `malloc` or `free`: a warp stops there and the call
/// is served at the epoch's end ([`serve_heap`]; why in `crate::heap`).
pub(super) fn is_heap_call(s: &sim_module::Statement) -> bool {
    crate::heap::heap_call(&s.kind).is_some()
}

/// Serves the `malloc` or `free` of statement `pc` in the lanes of `mask`
/// whose guard holds, on the global space itself (`mem` is the epoch's
/// end's); a bad `free` names its first thread and the call.
pub(super) fn serve_heap(
    regs: &mut WarpRegs,
    ctx: &ExecCtx,
    code: &Code<'_>,
    mem: &mut WarpMem<'_>,
    (pc, mask): (usize, u32),
) -> Result<(), KernelError> {
    let s = &code.prep.body.statements[pc];
    let Some(b) = crate::heap::heap_call(&s.kind) else {
        return Ok(());
    };
    let GlobalView::Direct(global) = &mut mem.global else {
        // `SmState::run_atomics` serves calls on the space itself.
        return Err(unsupported(
            code,
            "malloc/free during an epoch".into(),
            s.pos,
        ));
    };
    let lanes = code.at[pc].lanes(regs, mask);
    crate::heap::serve(b, lanes, regs, global.heap.as_mut()).map_err(|bad| KernelError::BadFree {
        addr: bad.addr,
        text: s.text.trim().to_string(),
        at: site(ctx, code, ctx.thread.first_thread + bad.lane, s),
    })
}

/// A builtin call in `lanes` ([`crate::printf::call`],
/// [`crate::assertfail::lines`]); a fault names the thread and the call.
fn builtin(
    regs: &mut WarpRegs,
    ctx: &ExecCtx,
    (code, mem, printf): (&Code<'_>, &mut WarpMem<'_>, &mut crate::printf::Sink),
    b: &sim_module::Builtin,
    lanes: u32,
    s: &sim_module::Statement,
) -> Result<(), KernelError> {
    let t = &ctx.thread;
    let r = match b.kind {
        sim_module::BuiltinKind::Vprintf => crate::printf::call(b, lanes, regs, mem, printf),
        // The step loop stops at these (`is_heap_call`): never reached.
        sim_module::BuiltinKind::Malloc | sim_module::BuiltinKind::Free => Ok(()),
        sim_module::BuiltinKind::AssertFail => {
            let at = (t.ctaid, t.ntid, t.first_thread);
            match crate::assertfail::lines(b, lanes, regs, mem, at) {
                Ok(lines) => {
                    return Err(KernelError::Assert {
                        lines,
                        at: site(ctx, code, t.first_thread + lanes.trailing_zeros(), s),
                    })
                }
                Err(e) => Err(e),
            }
        }
    };
    r.map_err(|e| match e {
        crate::printf::CallError::Fault(fault) => KernelError::Fault {
            fault,
            text: s.text.trim().to_string(),
            at: site(ctx, code, ctx.warp_id * 32 + fault.lane, s),
        },
        crate::printf::CallError::Operands => unsupported(
            code,
            format!(
                "call {} with arguments that are not registers",
                b.kind.name()
            ),
            s.pos,
        ),
    })
}

/// An indirect call the inliner left: the statement, the callee's name and
/// the register holding its address, (arguments, results), the lanes.
type CallSite<'a> = (
    &'a sim_module::Statement,
    (&'a str, Option<sim_isa::RegId>),
    (usize, usize),
    u32,
);

/// The error of lanes `lanes` reaching an indirect call the inliner left
/// in place (their address is no candidate's): the first lane's.
#[cold]
fn bad_call_target(
    regs: &WarpRegs,
    ctx: &ExecCtx,
    code: &Code<'_>,
    (s, (callee, address), arity, lanes): CallSite<'_>,
) -> KernelError {
    let lane = lanes.trailing_zeros();
    let value = address.map_or(0, |r| regs.get(code.regs.reg(r))[lane as usize]);
    let at = site(ctx, code, ctx.thread.first_thread + lane, s);
    let module = code.prep.module;
    // A function the call could reach (its parameters and results
    // counted): the inliner left the call as written past its
    // statement budget.
    if let Some(f) = module
        .function_at(value)
        .filter(|f| (f.params.len(), f.returns.len()) == arity)
    {
        return KernelError::CallDepth {
            callee: f.name.clone(),
            depth: sim_module::MAX_CALL_DEPTH,
            at,
        };
    }
    KernelError::BadCallTarget {
        callee: callee.to_string(),
        value,
        at,
    }
}

/// Where thread `thread` of `ctx`'s warp stopped the launch: at `s`.
pub(super) fn site(ctx: &ExecCtx, code: &Code<'_>, thread: u32, s: &sim_module::Statement) -> Site {
    Site {
        cta: ctx.thread.ctaid,
        warp: ctx.warp_id,
        thread,
        file: code.prep.module.file.clone(),
        pos: s.pos,
    }
}

/// The error of a statement simcli does not run.
pub(super) fn unsupported(code: &Code<'_>, what: String, pos: sim_module::Pos) -> KernelError {
    KernelError::Unsupported {
        what,
        file: code.prep.module.file.clone(),
        pos,
    }
}
