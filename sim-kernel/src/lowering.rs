//! Machine code for a launch's kernel from outside the table (`simcli run
//! LAUNCH.json --lowering compiler`, docs/lowering.md): the engine hands
//! [`MachineCode`] the kernel as it times it ([`KernelCode`]) and times
//! each instruction with the row it returns, as a trace's replay does
//! (`sim_core::ProgramTables::with_loops_and_code`). This crate runs no
//! tool: the front end's function does.

use crate::prepare::Prepared;
use sim_core::sass_table::Row;
use sim_core::Program;
use sim_isa::{PtxVersion, Symbols};
use sim_module::StatementKind;
use std::sync::Arc;

/// A kernel's static instructions as the engine times them: one per
/// statement of the body (control flow stands in as warp instructions),
/// after its preparation (merged shared loads in their leader).
pub struct KernelCode<'a> {
    /// The program sim-core times, index = statement.
    pub program: &'a Program,
    /// Register names and types of the instructions' `RegId`s.
    pub symbols: &'a Symbols,
    /// The module's `.version`.
    pub version: Option<PtxVersion>,
    /// Each instruction's line in the module (its statement's).
    pub lines: Vec<u32>,
    /// The straight-line stretches control can run through without
    /// entering or leaving: statement indices in order, each stretch ended
    /// by control flow (a branch, `ret`, `exit`, `call`, a statement not
    /// run) or a branch target; dead statements (which issue nothing,
    /// `dead`) are left out.
    pub stretches: Vec<Vec<u32>>,
}

/// What gives a kernel's machine code: per program instruction, `Some`
/// row where it replaces the table's (a vector of the program's length or
/// shorter), or the error that stops the launch.
pub type LowerFn = dyn Fn(&KernelCode<'_>) -> Result<Vec<Option<Row>>, Box<dyn std::error::Error + Send + Sync>>
    + Send
    + Sync;

/// A [`LowerFn`] in [`crate::RunOptions`]: every kernel the options launch
/// is timed with the machine code it returns for it.
#[derive(Clone)]
pub struct MachineCode(pub Arc<LowerFn>);

impl std::fmt::Debug for MachineCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MachineCode(..)")
    }
}

/// The kernel of `prep` as the engine times it: `program`, with `dead`
/// per statement.
pub(crate) fn kernel_code<'a>(
    prep: &'a Prepared<'a>,
    program: &'a Program,
    dead: &[bool],
) -> KernelCode<'a> {
    let stmts = &prep.body.statements;
    let (_, targets) = crate::timing::control(prep);
    let mut starts = vec![false; stmts.len()];
    for t in targets {
        if let Some(s) = starts.get_mut(t as usize) {
            *s = true;
        }
    }
    let mut stretches = Vec::new();
    let mut cur: Vec<u32> = Vec::new();
    for (i, s) in stmts.iter().enumerate() {
        if starts[i] && !cur.is_empty() {
            stretches.push(std::mem::take(&mut cur));
        }
        match s.kind {
            StatementKind::Instruction(_) => {
                if !dead.get(i).copied().unwrap_or(false) {
                    cur.push(i as u32);
                }
            }
            StatementKind::Control(_) | StatementKind::Unimplemented(_) => {
                if !cur.is_empty() {
                    stretches.push(std::mem::take(&mut cur));
                }
            }
        }
    }
    if !cur.is_empty() {
        stretches.push(cur);
    }
    KernelCode {
        program,
        symbols: &prep.body.symbols,
        version: prep.module.version,
        lines: stmts.iter().map(|s| s.pos.line).collect(),
        stretches,
    }
}
