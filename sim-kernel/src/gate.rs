//! What a launch's target refuses before anything runs: a module whose
//! `.target` is newer than the launch's, and every statement of the kernel
//! that the target cannot run (as ptxas gates it, by target and the
//! module's `.version`) or that simcli does not implement, all named at
//! once with their lines, as an assembler lists its errors.

use crate::error::KernelError;
use crate::prepare::Prepared;
use sim_isa::Target;
use sim_module::{ControlOp, StatementKind};

/// Most statements a refusal names one by one (the rest are counted).
pub const MAX_LISTED: usize = 50;

/// Checks `prep`'s module and kernel against `target`.
pub(crate) fn check(prep: &Prepared<'_>, target: Target) -> Result<(), KernelError> {
    let module = prep.module;
    let file = &module.file;
    // The first `MAX_LISTED` problems, and how many there are: memory for
    // fifty messages, whatever the module holds.
    let mut problems: Vec<String> = Vec::new();
    let mut count = 0;
    let mut note = |p: Option<String>| {
        if let Some(p) = p {
            count += 1;
            if problems.len() < MAX_LISTED {
                problems.push(p);
            }
        }
    };
    if let Some(t) = &module.target {
        // A name ptxas knows but sim-isa does not parse is left to the
        // statements' own gates.
        if let Ok(m) = Target::parse(&t.arch) {
            if m.sm > target.sm {
                note(Some(format!(
                    "{file}: the module's .target is {m}, newer than the launch's {target} \
                     (run it with --arch {m} or later)"
                )));
            }
        }
    }
    for s in &prep.body.statements {
        let problem = match &s.kind {
            StatementKind::Instruction(inst) => {
                sim_isa::parse::check_target(inst, target, module.version)
                    .err()
                    .map(|e| {
                        format!(
                            "{file}:{}: `{}`: {e} (the launch's target is {target})",
                            s.pos,
                            s.text.trim()
                        )
                    })
            }
            StatementKind::Unimplemented(_) => s.unsupported_message(file),
            StatementKind::Control(c) => match &c.op {
                // A builtin (`vprintf`) runs in the engine.
                ControlOp::Call {
                    builtin: Some(_), ..
                } => None,
                // A call to a function with a body is left in place only
                // past the inlining limit (a deep recursion): it stops the
                // launch if a thread reaches it.
                ControlOp::Call { callee, .. } if module.function(callee).is_some() => None,
                // An indirect call as the inliner leaves it: only lanes
                // whose address is no candidate function's reach it, and
                // they stop the launch (`KernelError::BadCallTarget`).
                ControlOp::Call {
                    prototype: Some(_), ..
                } => None,
                // An `.extern` function without a body that is no builtin.
                ControlOp::Call { callee, .. } => Some(format!(
                    "unsupported by simcli: call {callee} at {file}:{}",
                    s.pos
                )),
                ControlOp::Bra { .. }
                | ControlOp::Ret { .. }
                | ControlOp::Exit
                | ControlOp::Trap => None,
            },
        };
        note(problem);
    }
    if count == 0 {
        return Ok(());
    }
    Err(KernelError::Refused {
        count,
        target: target.to_string(),
        listed: problems,
    })
}
