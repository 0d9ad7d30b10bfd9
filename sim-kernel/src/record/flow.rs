//! A recorded warp's steps checked against the kernel's control-flow
//! graph before it replays (issue 28): each step must be the statement the
//! warp's reconvergence stack reaches after the steps before it, on lanes
//! that statement can have. The stack is the engine's (`engine/warp.rs`:
//! a divergent branch runs its taken lanes first, then the fall-through,
//! both up to the branch's reconvergence point; `ret`/`exit` remove lanes
//! from every entry; falling off the body's end exits), driven by the
//! recorded lanes alone: a branch's recorded lanes are the lanes that take
//! it, so they say where the warp goes next.
//!
//! A recording the engine wrote passes; a statement index or a branch
//! outcome changed (a step the graph does not allow there), lanes that
//! are not the warp's there (an unguarded statement on other lanes than
//! the active ones, a guarded one on lanes outside them), or steps that
//! stop before every lane has exited are refused, naming the warp and the
//! step. What the graph cannot say (which of the active lanes a guarded
//! statement's guard holds in) the replay checks as it re-executes, where
//! it can: addresses against the recorded ones, loads against the count.

use crate::prepare::Prepared;
use crate::rec::RecWarp;
use crate::reconv::{diverge, exit_lanes, pop_done, Entry};
use sim_module::{ControlOp, StatementKind};

/// What a statement does to a warp's control flow.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// Goes on to the next statement (instructions, builtin calls).
    Next,
    /// `bra`: to `target` on the lanes that take it; divergent lanes meet
    /// at `reconv`.
    Bra { target: usize, reconv: usize },
    /// `ret`/`exit`: its lanes leave.
    Exit,
    /// A call the engine does not run, `trap`, or an unimplemented
    /// statement: a recording holds it only on no lanes (anything else
    /// stopped the recorded run).
    Stops,
}

/// One statement: what it does and whether a guard picks its lanes.
#[derive(Clone, Copy, Debug)]
struct Stmt {
    kind: Kind,
    guarded: bool,
}

/// The kernel's statements as the check needs them.
#[derive(Clone, Debug)]
pub struct Flow {
    stmts: Vec<Stmt>,
}

impl Flow {
    /// The flow of `prep`'s kernel body (device functions inlined).
    pub fn new(prep: &Prepared<'_>) -> Flow {
        let body = prep.body;
        let stmts = body
            .statements
            .iter()
            .enumerate()
            .map(|(i, s)| match &s.kind {
                StatementKind::Instruction(x) => Stmt {
                    kind: Kind::Next,
                    guarded: x.guard.is_some(),
                },
                StatementKind::Control(c) => Stmt {
                    kind: match &c.op {
                        ControlOp::Bra { label, .. } => Kind::Bra {
                            target: body.labels.get(*label).map_or(usize::MAX, |l| l.target),
                            reconv: prep.reconv.get(i).copied().unwrap_or(usize::MAX),
                        },
                        ControlOp::Ret { .. } | ControlOp::Exit => Kind::Exit,
                        ControlOp::Call {
                            builtin: Some(_), ..
                        } => Kind::Next,
                        ControlOp::Call { builtin: None, .. } | ControlOp::Trap => Kind::Stops,
                    },
                    guarded: c.guard.is_some(),
                },
                StatementKind::Unimplemented(_) => Stmt {
                    kind: Kind::Stops,
                    guarded: false,
                },
            })
            .collect();
        Flow { stmts }
    }

    /// Checks warp `w`'s steps; the error names the step
    /// (`steps[K]: ...`).
    pub fn check(&self, w: &RecWarp) -> Result<(), String> {
        let n = self.stmts.len();
        let mut stack = vec![Entry {
            pc: 0,
            rpc: usize::MAX,
            mask: w.lanes,
        }];
        for (k, &(stmt, lanes)) in w.steps.iter().enumerate() {
            let Some(top) = running(&mut stack, n) else {
                return Err(format!(
                    "steps[{k}]: statement {stmt} after every lane of the warp has exited"
                ));
            };
            let pc = stmt as usize;
            let Some(s) = self.stmts.get(pc) else {
                return Err(format!(
                    "steps[{k}]: statement {stmt} is past the kernel's {n} statements"
                ));
            };
            if pc != top.pc {
                return Err(format!(
                    "steps[{k}]: statement {stmt}, but the control-flow graph leads to statement {} there (lanes {:#x})",
                    top.pc, top.mask
                ));
            }
            if lanes & !top.mask != 0 || (!s.guarded && lanes != top.mask) {
                let rule = if s.guarded {
                    "some of"
                } else {
                    "(unguarded) all of"
                };
                return Err(format!(
                    "steps[{k}]: statement {stmt} on lanes {lanes:#x}, but it runs on {rule} the active lanes {:#x} there",
                    top.mask
                ));
            }
            step(&mut stack, top, s.kind, lanes).map_err(|why| {
                format!("steps[{k}]: statement {stmt} on lanes {lanes:#x}: {why}")
            })?;
        }
        match running(&mut stack, n) {
            None => Ok(()),
            Some(top) => Err(format!(
                "steps[{}]: the steps end before statement {}, which lanes {:#x} have still to run",
                w.steps.len(),
                top.pc,
                top.mask
            )),
        }
    }
}

/// The top entry once entries past the body's end have exited (their
/// lanes fall off the end); `None` when every lane has exited.
fn running(stack: &mut Vec<Entry>, n: usize) -> Option<Entry> {
    loop {
        let top = *stack.last()?;
        if top.pc < n {
            return Some(top);
        }
        exit_lanes(stack, top.mask);
    }
}

/// The stack after `top`'s statement of kind `kind` ran on `lanes`.
fn step(stack: &mut Vec<Entry>, top: Entry, kind: Kind, lanes: u32) -> Result<(), &'static str> {
    let next = top.pc + 1;
    match kind {
        Kind::Next => advance(stack, next),
        Kind::Bra { target, reconv } => {
            if lanes == top.mask {
                advance(stack, target);
            } else if lanes == 0 {
                advance(stack, next);
            } else {
                diverge(stack, top, target, lanes, reconv);
                pop_done(stack);
            }
        }
        Kind::Exit => {
            exit_lanes(stack, lanes);
            if let Some(t) = stack.last_mut() {
                if t.pc == top.pc {
                    t.pc = next;
                }
            }
            pop_done(stack);
        }
        Kind::Stops if lanes != 0 => {
            return Err("a call, trap or unimplemented statement that would have stopped the run");
        }
        Kind::Stops => advance(stack, next),
    }
    Ok(())
}

fn advance(stack: &mut Vec<Entry>, next: usize) {
    if let Some(t) = stack.last_mut() {
        t.pc = next;
    }
    pop_done(stack);
}
