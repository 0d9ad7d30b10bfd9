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

/// The machine code `code` gives the kernel of `prep` as the engine times
/// it (`program`; `dead` says which statements issue nothing); none
/// without `code`.
pub(crate) fn rows(
    code: Option<&MachineCode>,
    prep: &Prepared<'_>,
    program: &Program,
    dead: &dyn Fn(usize) -> bool,
) -> Result<Vec<Option<Row>>, crate::KernelError> {
    match code {
        Some(m) => {
            (m.0)(&kernel_code(prep, program, dead)).map_err(crate::KernelError::MachineCode)
        }
        None => Ok(Vec::new()),
    }
}

/// The kernel of `prep` as the engine times it: `program`, with `dead`
/// per statement.
fn kernel_code<'a>(
    prep: &'a Prepared<'a>,
    program: &'a Program,
    dead: &dyn Fn(usize) -> bool,
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
                if !dead(i) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RunOptions;
    use sim_core::sass_table::{MachineInst, SassArch, Src};
    use std::sync::Mutex;

    fn reduce() -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../workloads/reduce.json")
    }

    fn opts(code: Option<MachineCode>) -> RunOptions {
        let cfg = sim_core::preset(sim_isa::Target::SM_90);
        let mut o = RunOptions::new(cfg, sim_core::SchedPolicy::Lrr, 4);
        o.machine_code = code;
        o
    }

    /// The engine hands over `reduce_sum` (workloads/reduce.ptx) cut where
    /// control enters or leaves: before the first branch, the loop's
    /// preheader, the loop body up to its back-edge, the code after it up to
    /// the next branch; and times with the rows it gets back (eight chained
    /// FADDs for the loop's `add.f32` make the launch slower; none, as the
    /// table).
    #[test]
    fn stretches_and_rows_reach_the_engine() {
        let seen: Arc<Mutex<Vec<Vec<u32>>>> = Arc::default();
        let keep = seen.clone();
        let plain = crate::run_launch(&reduce(), &opts(None)).unwrap();
        let none = MachineCode(Arc::new(move |k: &KernelCode<'_>| {
            *keep.lock().unwrap() = k.stretches.clone();
            Ok(Vec::new())
        }));
        let same = crate::run_launch(&reduce(), &opts(Some(none))).unwrap();
        assert_eq!(same.timed.cycles, plain.timed.cycles);
        let got = seen.lock().unwrap().clone();
        assert_eq!(
            got[..4],
            [
                (0..=8).collect::<Vec<u32>>(),
                (10..=13).collect(),
                (14..=19).collect(),
                (21..=26).collect(),
            ]
        );
        let chain = MachineCode(Arc::new(|k: &KernelCode<'_>| {
            let mut insts = vec![MachineInst::new("FADD", "", &[Src::A, Src::B]).unwrap()];
            for j in 0..7u8 {
                insts.push(MachineInst::new("FADD", "", &[Src::Inst(j), Src::B]).unwrap());
            }
            let row =
                sim_core::sass_table::Row::compiled(SassArch::Sm90, "test", insts, &[Src::Inst(7)]);
            let mut rows = vec![None; k.program.insts.len()];
            rows[17] = row;
            Ok(rows)
        }));
        let slow = crate::run_launch(&reduce(), &opts(Some(chain))).unwrap();
        assert!(slow.mismatches.is_empty());
        assert!(
            slow.timed.cycles > plain.timed.cycles,
            "{} vs {}",
            slow.timed.cycles,
            plain.timed.cycles
        );
        let fails = MachineCode(Arc::new(|_: &KernelCode<'_>| Err("no ptxas".into())));
        let e = crate::run_launch(&reduce(), &opts(Some(fails)))
            .err()
            .unwrap();
        assert_eq!(e.to_string(), "no ptxas");
    }
}
