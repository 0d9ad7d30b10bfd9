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
//! The analysis marks what is needed, as an aggressive dead-code pass does:
//! everything with an effect (memory writes, atomics, ordered or volatile
//! loads, warp operations and barriers, clock reads, control flow), then,
//! from each needed instruction's reads backwards over the control-flow
//! graph, every instruction that may write what it reads. The rest is dead,
//! chains of it included (a load read only by an unused test; an
//! accumulator that only feeds itself around a loop).

use sim_module::{Body, ControlOp, StatementKind};

/// Most bits the per-register "already live here" sets may take (32 MiB);
/// a larger body keeps every instruction.
const MAX_BITS: usize = 1 << 28;

/// Per statement of `body`: whether it is dead (never issued). Empty when
/// the body has a statement the analysis cannot see through (a `call`
/// other than an indirect one, which stops its lanes and reads its
/// address: `ControlOp::is_indirect_call`; an unimplemented instruction) or is too large for it, so that nothing is
/// removed there.
/// `uses`: the body's registers ([`Uses::new`]).
pub(crate) fn dead_statements(body: &Body, uses: &Uses) -> Vec<bool> {
    let n = body.statements.len();
    if body.statements.iter().any(|s| {
        matches!(s.kind, StatementKind::Unimplemented(_))
            || matches!(&s.kind, StatementKind::Control(c)
                if matches!(c.op, ControlOp::Call { .. }) && !c.op.is_indirect_call())
    }) {
        return Vec::new();
    }
    // Predecessors, flat (one allocation, not one a statement): those of
    // statement `s` are `preds[pred_at[s]..pred_at[s + 1]]`, in order.
    let mut pred_at = vec![0u32; n + 1];
    for i in 0..n {
        for s in successors(body, i).into_iter().flatten() {
            if s < n {
                pred_at[s + 1] += 1;
            }
        }
    }
    for s in 0..n {
        pred_at[s + 1] += pred_at[s];
    }
    let mut preds = vec![0u32; pred_at[n] as usize];
    let mut fill: Vec<u32> = pred_at[..n].to_vec();
    for i in 0..n {
        for s in successors(body, i).into_iter().flatten() {
            if s < n {
                preds[fill[s] as usize] = i as u32;
                fill[s] += 1;
            }
        }
    }
    let preds_of = |s: usize| &preds[pred_at[s] as usize..pred_at[s + 1] as usize];
    // Everything with an effect, and every statement that is no instruction.
    let mut needed: Vec<bool> = body
        .statements
        .iter()
        .zip(&uses.effect)
        .map(|(s, &effect)| effect || !matches!(s.kind, StatementKind::Instruction(_)))
        .collect();
    // Where each statement's straight run begins: its only predecessor is
    // the statement before it back to there, so the search crosses the
    // run by its writers of the register instead of one statement a step.
    let mut run_start = vec![0u32; n];
    for s in 1..n {
        run_start[s] = if preds_of(s) == [s as u32 - 1] {
            run_start[s - 1]
        } else {
            s as u32
        };
    }
    let writers = Writers::new(uses, body.symbols.len());
    let words = n.div_ceil(64).max(1);
    let mut seen: Vec<Option<Vec<u64>>> = vec![None; body.symbols.len()];
    let mut bits = 0usize;
    let mut work: Vec<usize> = (0..n).filter(|&i| needed[i]).collect();
    let mut stack: Vec<u32> = Vec::new();
    while let Some(i) = work.pop() {
        for &r in uses.reads(i) {
            let Some(slot) = seen.get_mut(r as usize) else {
                continue;
            };
            let set = match slot {
                Some(set) => set,
                None => {
                    bits += words * 64;
                    if bits > MAX_BITS {
                        return Vec::new();
                    }
                    slot.insert(vec![0u64; words])
                }
            };
            // `set`: statements entered, after which `r` is already known
            // needed (the rest of their run is searched on entry).
            let of_r = writers.of(r);
            stack.clear();
            stack.extend_from_slice(preds_of(i));
            'entry: while let Some(p) = stack.pop() {
                let p = p as usize;
                if set[p / 64] >> (p % 64) & 1 == 1 {
                    continue;
                }
                set[p / 64] |= 1 << (p % 64);
                let start = run_start[p] as usize;
                let below = of_r.partition_point(|&w| w as usize <= p);
                for &w in of_r[..below].iter().rev() {
                    let w = w as usize;
                    if w < start {
                        break;
                    }
                    if !needed[w] {
                        needed[w] = true;
                        work.push(w);
                    }
                    if !uses.guarded[w] {
                        continue 'entry;
                    }
                }
                stack.extend_from_slice(preds_of(start));
            }
        }
    }
    needed.iter().map(|&x| !x).collect()
}

/// Each statement's registers read and written (original ids), flat: those
/// of statement `i` are `reads[reads_at[i]..reads_at[i + 1]]` (and the same
/// for writes), in `reg_uses` order. Asked of `reg_uses` once a statement for
/// every set-up pass that needs them (this one, `regalloc`, `vectorise` and
/// `preload`): each call costs a few hundred host instructions.
pub(crate) struct Uses {
    reads: Vec<u32>,
    reads_at: Vec<u32>,
    writes: Vec<u32>,
    writes_at: Vec<u32>,
    /// Whether the statement's writes are guarded.
    pub guarded: Vec<bool>,
    /// An instruction with an effect (`db::has_effect`); false for every
    /// other statement.
    pub effect: Vec<bool>,
}

impl Uses {
    pub fn new(body: &Body) -> Uses {
        let n = body.statements.len();
        let mut u = Uses {
            reads: Vec::with_capacity(n * 2),
            reads_at: Vec::with_capacity(n + 1),
            writes: Vec::with_capacity(n),
            writes_at: Vec::with_capacity(n + 1),
            guarded: Vec::with_capacity(n),
            effect: Vec::with_capacity(n),
        };
        u.reads_at.push(0);
        u.writes_at.push(0);
        for s in &body.statements {
            let (guarded, effect) = match &s.kind {
                StatementKind::Instruction(inst) => {
                    let r = inst.reg_uses();
                    u.reads.extend(r.reads().map(|r| r.reg.0));
                    u.writes.extend(r.writes().map(|r| r.reg.0));
                    (inst.guard.is_some(), sim_isa::db::has_effect(inst))
                }
                StatementKind::Control(c) => {
                    u.reads.extend(c.reads().map(|r| r.0));
                    (false, false)
                }
                StatementKind::Unimplemented(_) => (false, false),
            };
            u.guarded.push(guarded);
            u.effect.push(effect);
            u.reads_at.push(u.reads.len() as u32);
            u.writes_at.push(u.writes.len() as u32);
        }
        u
    }
    /// The registers statement `i` reads (its guard's included).
    pub fn reads(&self, i: usize) -> &[u32] {
        &self.reads[self.reads_at[i] as usize..self.reads_at[i + 1] as usize]
    }
    /// The registers statement `i` writes.
    pub fn writes(&self, i: usize) -> &[u32] {
        &self.writes[self.writes_at[i] as usize..self.writes_at[i + 1] as usize]
    }
}

/// Each register's writing statements, ascending and flat: those of
/// register `r` are `stmts[at[r]..at[r + 1]]`.
struct Writers {
    stmts: Vec<u32>,
    at: Vec<u32>,
}

impl Writers {
    fn new(uses: &Uses, nregs: usize) -> Writers {
        let mut at = vec![0u32; nregs + 1];
        for &r in &uses.writes {
            if let Some(c) = at.get_mut(r as usize + 1) {
                *c += 1;
            }
        }
        for r in 0..nregs {
            at[r + 1] += at[r];
        }
        let mut stmts = vec![0u32; at[nregs] as usize];
        let mut fill: Vec<u32> = at[..nregs].to_vec();
        for i in 0..uses.guarded.len() {
            for &r in uses.writes(i) {
                if let Some(f) = fill.get_mut(r as usize) {
                    stmts[*f as usize] = i as u32;
                    *f += 1;
                }
            }
        }
        Writers { stmts, at }
    }
    fn of(&self, r: u32) -> &[u32] {
        &self.stmts[self.at[r as usize] as usize..self.at[r as usize + 1] as usize]
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
                ControlOp::Ret { .. } | ControlOp::Exit | ControlOp::Trap => [fall, None],
                ControlOp::Call { .. } => [next, None],
            }
        }
        StatementKind::Instruction(_) => [next, None],
        StatementKind::Unimplemented(_) => [None, None],
    }
}

#[cfg(test)]
mod tests {
    use super::{dead_statements, Uses};
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
        let flags = dead_statements(body, &Uses::new(body));
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

    /// An indirect call (as the inliner leaves it, reached by lanes whose
    /// address is no function's) reads its address: what computes it stays,
    /// and the analysis sees through the call instead of giving up on the
    /// body (a value nothing reads is still dead).
    #[test]
    fn an_indirect_call_reads_its_address() {
        let d = dead(
            "cvt.u64.u32 %rd3, %r1;\nadd.u32 %r2, %r1, 1;\nst.global.u32 [%rd2], %r1;\n\
             proto: .callprototype _ ();\ncall %rd3, proto;",
        );
        assert_eq!(d, ["add.u32 %r2, %r1, 1"]);
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
        // An accumulator that only feeds itself around the loop is dead; the
        // counter the branch tests is not.
        let d = dead(
            "mov.u32 %r2, 0;\nmov.u32 %r4, 0;\nLOOP:\nadd.u32 %r4, %r4, %r1;\nadd.u32 %r2, %r2, 1;\n\
             setp.lt.u32 %p1, %r2, 16;\n@%p1 bra LOOP;",
        );
        assert_eq!(
            &d[3..],
            ["mov.u32 %r4, 0", "add.u32 %r4, %r4, %r1"],
            "{d:?}"
        );
        // (Nothing stored: the prelude's parameter load and index are dead too.)
        assert_eq!(
            d[..3],
            [
                "ld.param.u64 %rd1, [p]",
                "cvta.to.global.u64 %rd2, %rd1",
                "mov.u32 %r1, %tid.x"
            ]
        );
        // Past a guarded return, and before it, what the store reads is needed;
        // an unused volatile load is kept, a plain one is not.
        let d = dead(
            "add.u32 %r3, %r1, 1;\nsetp.eq.u32 %p1, %r1, 3;\n@%p1 ret;\n\
             ld.volatile.global.u32 %r5, [%rd2];\nld.global.u32 %r6, [%rd2+4];\nst.global.u32 [%rd2], %r3;",
        );
        assert_eq!(d, ["ld.global.u32 %r6, [%rd2+4]"]);
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
