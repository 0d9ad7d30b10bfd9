//! Dead code, as ptxas removes it: an instruction without side effects
//! whose results no later instruction reads issues nothing on the
//! hardware, so the timing model does not issue it either (values are
//! computed in full regardless).
//!
//! Evidence: every loop of `sim-kernel/tests/data/h100-mixed` loads a word
//! into `%cnt`, tests it into `%q` and loads `%cnt` again; `%q` is unused,
//! and ptxas 13.0.88 emits neither the test nor the first load
//! (`mixed.ptx.cubin`: three `LDG`s, no `ISETP` before the clock read).
//! Kept, the test waits for the first load and delays everything behind it,
//! so the window between the clock reads loses the load's latency, which
//! the H100's includes.
//!
//! The analysis is "faint" liveness over the body's control-flow graph: a
//! register is live where some path reads it before writing it, counting
//! only the reads of instructions that are themselves live, so a chain of
//! dead instructions (a load feeding only a dead test) goes at once.

use sim_isa::{MemOp, Op};
use sim_module::{Body, ControlOp, StatementKind};

/// Per statement of `body`: whether it is dead (never issued). Empty when
/// the body has a statement the analysis cannot see through (`call`, an
/// unimplemented instruction), so that nothing is removed there.
pub(crate) fn dead_statements(body: &Body) -> Vec<bool> {
    let n = body.statements.len();
    if body.statements.iter().any(|s| {
        matches!(s.kind, StatementKind::Unimplemented(_))
            || matches!(&s.kind, StatementKind::Control(c) if matches!(c.op, ControlOp::Call { .. }))
    }) {
        return Vec::new();
    }
    let words = body.symbols.len().div_ceil(64).max(1);
    let succ: Vec<[Option<usize>; 2]> = (0..n).map(|i| successors(body, i)).collect();
    let mut dead = vec![false; n];
    // Each pass either marks another statement dead or ends: at most n + 1.
    loop {
        let live_out = liveness(body, &succ, &dead, words);
        let mut changed = false;
        for (i, s) in body.statements.iter().enumerate() {
            let StatementKind::Instruction(inst) = &s.kind else {
                continue;
            };
            if dead[i] || has_effect(inst) {
                continue;
            }
            let out = &live_out[i * words..(i + 1) * words];
            let u = inst.reg_uses();
            if !u.writes().any(|w| bit(out, w.reg.0 as usize)) {
                dead[i] = true;
                changed = true;
            }
        }
        if !changed {
            return dead;
        }
    }
}

/// Registers live after each statement (`words` 64-bit words per
/// statement), reads of `dead` statements not counted.
fn liveness(body: &Body, succ: &[[Option<usize>; 2]], dead: &[bool], words: usize) -> Vec<u64> {
    let n = body.statements.len();
    let mut live_in = vec![0u64; (n + 1) * words];
    let mut live_out = vec![0u64; n * words];
    let mut changed = true;
    let mut row = vec![0u64; words];
    while changed {
        changed = false;
        for i in (0..n).rev() {
            row.fill(0);
            for s in succ[i].iter().flatten() {
                for (r, x) in row.iter_mut().zip(&live_in[s * words..(s + 1) * words]) {
                    *r |= x;
                }
            }
            live_out[i * words..(i + 1) * words].copy_from_slice(&row);
            if !dead[i] {
                transfer(&body.statements[i].kind, &mut row);
            }
            let slot = &mut live_in[i * words..(i + 1) * words];
            if slot != row.as_slice() {
                slot.copy_from_slice(&row);
                changed = true;
            }
        }
    }
    live_out
}

/// `row` (live after) becomes live before the statement.
fn transfer(kind: &StatementKind, row: &mut [u64]) {
    match kind {
        StatementKind::Instruction(inst) => {
            let u = inst.reg_uses();
            // A guarded write may leave the old value in place: it kills nothing.
            if inst.guard.is_none() {
                for w in u.writes() {
                    set(row, w.reg.0 as usize, false);
                }
            }
            for r in u.reads() {
                set(row, r.reg.0 as usize, true);
            }
        }
        StatementKind::Control(c) => {
            if let Some(g) = c.guard {
                set(row, g.reg.0 as usize, true);
            }
        }
        StatementKind::Unimplemented(_) => {}
    }
}

/// Where control goes after statement `i` (`n`: the body's end, which has
/// nothing live).
fn successors(body: &Body, i: usize) -> [Option<usize>; 2] {
    let n = body.statements.len();
    let next = Some(i + 1).filter(|&k| k <= n);
    match &body.statements[i].kind {
        StatementKind::Control(c) => {
            let fall = if c.guard.is_some() { next } else { None };
            match c.op {
                ControlOp::Bra { label, .. } => {
                    [body.labels.get(label).map(|l| l.target.min(n)), fall]
                }
                ControlOp::Ret { .. } | ControlOp::Exit => [fall, None],
                ControlOp::Call { .. } => [next, None],
            }
        }
        StatementKind::Instruction(_) => [next, None],
        StatementKind::Unimplemented(_) => [None, None],
    }
}

/// Whether the instruction does more than write its registers: memory
/// writes and atomics, warp-wide operations and barriers, clock reads.
fn has_effect(inst: &sim_isa::Instruction) -> bool {
    match &inst.op {
        Op::Mem(m) => matches!(m.op, MemOp::St | MemOp::Atom(_) | MemOp::Red(_)),
        Op::Warp(_) => true,
        _ => crate::exec::reads_clock(inst),
    }
}

fn bit(row: &[u64], r: usize) -> bool {
    row.get(r / 64).is_some_and(|w| w >> (r % 64) & 1 == 1)
}

fn set(row: &mut [u64], r: usize, on: bool) {
    if let Some(w) = row.get_mut(r / 64) {
        if on {
            *w |= 1 << (r % 64);
        } else {
            *w &= !(1 << (r % 64));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::dead_statements;
    use sim_module::parse_module;

    /// The statements of kernel `body` that the analysis finds dead, by text.
    fn dead(body: &str) -> Vec<String> {
        let src = format!(
            ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\
             .reg .pred %p<4>; .reg .b32 %r<8>; .reg .b64 %rd<8>;\n\
             ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r1, %tid.x;\n{body}\nret;\n}}\n"
        );
        let module = parse_module(&src, "k.ptx").unwrap();
        let body = module.functions[0].body.as_ref().unwrap();
        let flags = dead_statements(body);
        body.statements
            .iter()
            .zip(flags)
            .filter(|(_, d)| *d)
            .map(|(s, _)| s.text.trim().to_string())
            .collect()
    }

    /// The mixed loops' prologue: a load read only by an unused test goes
    /// with the test; the load that overwrites the register stays.
    #[test]
    fn a_load_read_only_by_a_dead_test_is_dead() {
        let d = dead(
            "ld.global.u32 %r2, [%rd2];\nsetp.ne.u32 %p1, %r2, 0;\nld.global.u32 %r2, [%rd2+4];\n\
             add.u32 %r3, %r2, %r1;\nst.global.u32 [%rd2], %r3;",
        );
        assert_eq!(d, ["ld.global.u32 %r2, [%rd2]", "setp.ne.u32 %p1, %r2, 0"]);
        // Read by a guard, the test and its load stay.
        let d = dead(
            "ld.global.u32 %r2, [%rd2];\nsetp.ne.u32 %p1, %r2, 0;\nld.global.u32 %r2, [%rd2+4];\n\
             @%p1 add.u32 %r2, %r2, %r1;\nst.global.u32 [%rd2], %r2;",
        );
        assert!(d.is_empty(), "{d:?}");
    }

    /// Loop-carried values live on through the back-edge; a guarded write
    /// kills nothing; what only feeds unused results is dead, however long
    /// the chain; stores, atomics, barriers and clock reads always stay.
    #[test]
    fn liveness_follows_the_control_flow() {
        let d = dead(
            "mov.u32 %r2, 0;\nmov.u32 %r3, 0;\nLOOP:\nadd.u32 %r3, %r3, %r1;\nxor.b32 %r4, %r3, 5;\n\
             add.u32 %r2, %r2, 1;\nsetp.lt.u32 %p1, %r2, 16;\n@%p1 bra LOOP;\nst.global.u32 [%rd2], %r3;",
        );
        assert_eq!(d, ["xor.b32 %r4, %r3, 5"]);
        let d = dead(
            "add.u32 %r3, %r1, 1;\nsetp.eq.u32 %p1, %r1, 3;\n@%p1 mov.u32 %r3, 7;\nst.global.u32 [%rd2], %r3;",
        );
        assert!(d.is_empty(), "{d:?}");
        let d = dead(
            "add.u32 %r3, %r1, 1;\nmul.lo.u32 %r4, %r3, 3;\nxor.b32 %r5, %r4, %r3;\n\
             atom.global.add.u32 %r6, [%rd2], 1;\nbar.sync 0;\nmov.u32 %r7, %clock;",
        );
        assert_eq!(
            d,
            [
                "mov.u32 %r1, %tid.x",
                "add.u32 %r3, %r1, 1",
                "mul.lo.u32 %r4, %r3, 3",
                "xor.b32 %r5, %r4, %r3"
            ]
        );
    }
}
