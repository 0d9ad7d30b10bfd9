//! Timing model tests (programs built in code; figures from the presets' sources).

use crate::insts::{inst, r, run_repeating, selp, setp, video};
use sim_core::*;
use sim_isa::*;
use std::sync::Arc;

/// `set.lt.u32.u32 d, a, b`.
pub(crate) fn set_u32(d: u32, a: u32, b: u32) -> Instruction {
    inst(Op::Set(Set {
        cmp: CmpOp::Lt,
        bool_op: None,
        ftz: false,
        dtype: Type::U32,
        stype: Type::U32,
        d: r(d),
        a: Operand::Reg(r(a)),
        b: Operand::Reg(r(b)),
    }))
}

const TARGETS: [(Target, f64, f64); 4] = [
    // (target, ALU latency, independent compares per clock per SM)
    (Target::SM_13, 24.0, 0.25),
    (Target::SM_30, 9.0, 5.0),
    (Target::SM_53, 6.0, 2.0),
    (Target::SM_90, 4.0, 2.0),
];

fn program(target: Target, insts: Vec<Instruction>) -> Arc<Program> {
    Arc::new(Program {
        target,
        insts,
        nregs: 32,
    })
}

/// Runs `warps` warps, each replaying `body` `times` times, on one SM.
/// The sm_90 program of kernel-text `lines`.
fn sm90_program(lines: &[&str]) -> Arc<Program> {
    Arc::new(Program::from_ptx(Target::SM_90, lines).expect("program").0)
}

fn run(
    cfg: SmConfig,
    prog: Arc<Program>,
    warps: u32,
    body: &[u32],
    times: u64,
    policy: SchedPolicy,
) -> Stats {
    let mut sm = Sm::new(cfg, prog, policy).unwrap();
    run_repeating(&mut sm, warps, body, times);
    assert!(sm.is_done());
    sm.stats()
}

fn within(actual: f64, expected: f64, tol: f64) -> bool {
    (actual - expected).abs() <= expected * tol
}

/// Cycles per instruction of a dependent chain, and the machine instructions
/// of its lowering (1 where there is no table): these chains are serial.
fn chain_cpi(t: Target, i: Instruction) -> (f64, f64) {
    let p = program(t, vec![i]);
    let steps = sass_table::SassArch::from_lowering(preset(t).lowering)
        .and_then(|a| sass_table::sequence(a, &lowering::key(&p.insts[0])))
        .map_or(1, |s| s.insts.len()) as f64;
    let s = run(preset(t), p, 1, &[0], 1000, SchedPolicy::Gto);
    (s.cycles as f64 / 1000.0, steps)
}

#[test]
fn dependent_chain_costs_alu_latency() {
    for (t, lat, _) in TARGETS {
        // selp chained through its destination: one SEL on every target.
        let (cpi, steps) = chain_cpi(t, selp(4, 4, 5, 1));
        assert_eq!(steps, 1.0);
        assert!(
            within(cpi, lat, 0.05),
            "{t}: selp chain {cpi} cycles/instr, want {lat}"
        );
        // set.lt.u32.u32 chained through its destination: one ISET up to sm_53,
        // ISETP + SEL (2 dependent steps, from the lowering table) on sm_90.
        let (cpi, steps) = chain_cpi(t, set_u32(4, 4, 5));
        let want_steps = if t == Target::SM_90 { 2.0 } else { 1.0 };
        assert_eq!(steps, want_steps, "{t}: set.lt.u32.u32 steps");
        assert!(
            within(cpi, lat * steps, 0.05),
            "{t}: set chain {cpi}, want {lat} x {steps}"
        );
        // setp chained through its BoolOp predicate: one ISETP on every
        // table arch (ptxas 11.8, 12.4, 13.0 listings).
        let (cpi, steps) = chain_cpi(t, setp(1, 2, 3, Some(1)));
        assert_eq!(steps, 1.0, "{t}: setp.bool is one ISETP");
        assert!(
            within(cpi, lat * steps, 0.05),
            "{t}: setp chain {cpi}, want {lat} x {steps}"
        );
    }
}

#[test]
fn independent_compares_fill_the_compare_units() {
    for (t, _, rate) in TARGETS {
        let cfg = preset(t);
        let warps = cfg.resident_warps;
        let insts: Vec<_> = (0..8).map(|k| setp(k + 1, 10, 11, None)).collect();
        let body: Vec<u32> = (0..8).collect();
        let s = run(cfg, program(t, insts), warps, &body, 50, SchedPolicy::Lrr);
        let ipc = s.warp_instructions as f64 / s.cycles as f64;
        assert_eq!(s.warp_instructions, warps as u64 * 400);
        assert!(
            within(ipc, rate, 0.05),
            "{t}: {ipc} compares/clock, want {rate}"
        );
    }
}

/// 64 warps replaying 8 independent `op` instructions `times` times (LRR).
fn independent_video(t: Target, cfg: &SmConfig, op: VideoOp, sat: bool, times: u64) -> Stats {
    let insts: Vec<_> = (0..8)
        .map(|k| video(op, Simd::X4, sat, k + 10, 1, 2, 3))
        .collect();
    let body: Vec<u32> = (0..8).collect();
    run(
        cfg.clone(),
        program(t, insts),
        64,
        &body,
        times,
        SchedPolicy::Lrr,
    )
}

#[test]
fn kepler_video_rates() {
    let t = Target::SM_30;
    let cfg = preset(t);
    for (op, rate) in [(VideoOp::Add, 1.0), (VideoOp::Absdiff, 5.0)] {
        let s = independent_video(t, &cfg, op, false, 20);
        let ipc = s.warp_instructions as f64 / s.cycles as f64;
        assert!(within(ipc, rate, 0.05), "{op:?}: {ipc}/clock, want {rate}");
        assert_eq!(
            s.micro_ops, s.warp_instructions,
            "every video instruction is native on Kepler"
        );
    }
}

#[test]
fn emulated_video_costs_its_machine_code() {
    for t in [Target::SM_53, Target::SM_90] {
        let cfg = preset(t);
        let arch = sass_table::SassArch::from_lowering(cfg.lowering).expect("table arch");
        for (op, sat) in [
            (VideoOp::Add, true),
            (VideoOp::Max, false),
            (VideoOp::Avrg, false),
            (VideoOp::Add, false),
        ] {
            let one = video(op, Simd::X4, sat, 4, 4, 2, 3);
            let seq = sass_table::sequence(arch, &lowering::key(&one)).expect("row");
            assert!(seq.insts.len() > 1, "{t} {op:?}: expected an emulated row");
            // Independent instructions (every source fixed: nothing hoisted):
            // issue slots per instruction are its machine instructions, or
            // the busiest pipe's clocks where that is more.
            let indep = ProgramTables::new(
                cfg.clone(),
                program(t, vec![video(op, Simd::X4, sat, 10, 1, 2, 3)]),
            )
            .expect("tables");
            let (uops, _) = indep.issue_timing(0).expect("inst");
            assert_eq!(uops as usize, seq.insts.len(), "{t} {op:?}");
            let bound = (uops as f64).max(indep.pipe_clocks(0).expect("inst"));
            let s = independent_video(t, &cfg, op, sat, 5);
            let per_instr_slots =
                s.cycles as f64 * cfg.schedulers as f64 / s.warp_instructions as f64;
            assert!(
                within(per_instr_slots, bound, 0.10),
                "{t} {op:?}: {per_instr_slots} slots, want {bound}: {s:#?}"
            );
            // Dependent chain through `a` (b and c fixed, their work hoisted):
            // the schedule of the machine code, per instruction.
            let p = program(t, vec![one]);
            let chain = ProgramTables::new(cfg.clone(), p.clone()).expect("tables");
            let (_, delay) = chain.issue_timing(0).expect("inst");
            let s = run(cfg.clone(), p, 1, &[0], 200, SchedPolicy::Gto);
            let cpi = s.cycles as f64 / 200.0;
            assert!(
                within(cpi, delay as f64, 0.05),
                "{t} {op:?}: chain {cpi}/instr, want {delay}"
            );
        }
        // The one native form: vabsdiff4.u32.u32.u32.
        let native = video(VideoOp::Absdiff, Simd::X4, false, 4, 4, 2, 3);
        let seq = sass_table::sequence(arch, &lowering::key(&native)).expect("row");
        assert_eq!(seq.insts.len(), 1, "{t}");
    }
}

/// A one-scheduler SM with a 1-per-clock compare unit of latency 4.
fn simple_cfg() -> SmConfig {
    let mut c = preset(Target::SM_90);
    c.schedulers = 1;
    c.units.int_cmp = UnitConfig::new(32, 4);
    c.units.int_alu = UnitConfig::new(32, 4);
    c
}

fn cycles_of(insts: Vec<Instruction>) -> u64 {
    let n = insts.len() as u32;
    let body: Vec<u32> = (0..n).collect();
    run(
        simple_cfg(),
        program(Target::SM_90, insts),
        1,
        &body,
        1,
        SchedPolicy::Gto,
    )
    .cycles
}

#[test]
fn scoreboard_raw_waw_guard_pq() {
    let indep = cycles_of(vec![setp(1, 10, 11, None), setp(2, 10, 11, None)]);
    assert_eq!(indep, 5, "independent: issue at 0 and 1, last ready at 5");
    // RAW through a predicate source.
    assert_eq!(
        cycles_of(vec![setp(1, 10, 11, None), setp(2, 10, 11, Some(1))]),
        8
    );
    // WAW: the same destination, nothing read.
    assert_eq!(
        cycles_of(vec![setp(1, 10, 11, None), setp(1, 12, 13, None)]),
        8
    );
    // Guard predicate.
    let mut g = setp(2, 10, 11, None);
    g.guard = Some(Guard {
        reg: r(1),
        negate: true,
    });
    assert_eq!(cycles_of(vec![setp(1, 10, 11, None), g]), 8);
    // p|q: both destinations are pending.
    let mut pq = setp(1, 10, 11, None);
    if let Op::Setp(s) = &mut pq.op {
        s.q = Some(Some(r(2)));
    }
    assert_eq!(cycles_of(vec![pq, setp(3, 10, 11, Some(2))]), 8, "reads q");
    assert_eq!(cycles_of(vec![pq, setp(3, 10, 11, Some(1))]), 8, "reads p");
    assert_eq!(
        cycles_of(vec![pq, setp(3, 10, 11, None)]),
        5,
        "independent of p|q"
    );
}

#[test]
fn unit_initiation_interval() {
    // sm_90: 64 compare lanes per SM over 4 partitions = 16 lanes: one warp
    // instruction per 2 clocks per scheduler.
    let cfg = preset(Target::SM_90);
    let insts: Vec<_> = (0..8).map(|k| setp(k + 1, 10, 11, None)).collect();
    let body: Vec<u32> = (0..8).collect();
    let s = run(
        cfg,
        program(Target::SM_90, insts.clone()),
        1,
        &body,
        100,
        SchedPolicy::Gto,
    );
    assert_eq!(
        s.cycles,
        2 * 799 + 4 + 1 - 1,
        "800 instructions at 2 clocks each, plus latency"
    );
    assert!(s.stalls.unit_busy > 0);
    // sm_13 f64 compares: 1 lane per SM, 32 clocks per warp instruction.
    let f64s: Vec<_> = (0..8)
        .map(|k| {
            let mut f = setp(k + 1, 10, 11, None);
            if let Op::Setp(x) = &mut f.op {
                x.ty = Type::F64;
            }
            f
        })
        .collect();
    let s = run(
        preset(Target::SM_13),
        program(Target::SM_13, f64s),
        1,
        &body,
        2,
        SchedPolicy::Gto,
    );
    // 16 instructions, one per 32 clocks; the last result after its 48-clock latency.
    assert_eq!(s.cycles, 15 * 32 + 48);
}

fn order(policy: SchedPolicy, warps: &[Vec<Instruction>]) -> Vec<(u64, u32)> {
    let mut insts = Vec::new();
    let mut streams = Vec::new();
    for w in warps {
        let start = insts.len() as u32;
        insts.extend_from_slice(w);
        streams.push((start..insts.len() as u32).collect::<Vec<_>>());
    }
    let mut sm = Sm::new(simple_cfg(), program(Target::SM_90, insts), policy).unwrap();
    sm.record_issues(64);
    for (i, s) in streams.into_iter().enumerate() {
        sm.add_warp(WarpLaunch {
            warp_id: i as u32,
            active: 1,
            stream: Box::new(VecStream::new(s)),
        })
        .unwrap();
    }
    sm.run_to_completion().unwrap();
    sm.issue_log()
        .iter()
        .map(|e| (e.cycle, e.warp_id))
        .collect()
}

#[test]
fn scheduler_policies() {
    let ind = |p| setp(p, 10, 11, None);
    let three = vec![
        vec![ind(1), ind(2)],
        vec![ind(1), ind(2)],
        vec![ind(1), ind(2)],
    ];
    let ws = |v: Vec<(u64, u32)>| v.into_iter().map(|x| x.1).collect::<Vec<_>>();
    assert_eq!(ws(order(SchedPolicy::Lrr, &three)), [0, 1, 2, 0, 1, 2]);
    assert_eq!(ws(order(SchedPolicy::Oldest, &three)), [0, 0, 1, 1, 2, 2]);
    assert_eq!(ws(order(SchedPolicy::Gto, &three)), [0, 0, 1, 1, 2, 2]);
    // Warp 0 stalls on a dependency (latency 4); warp 1 has independent work.
    let stall = vec![
        vec![ind(1), setp(2, 10, 11, Some(1)), ind(3)],
        vec![ind(1), ind(2), ind(3), ind(4), ind(5)],
    ];
    assert_eq!(
        order(SchedPolicy::Oldest, &stall),
        [
            (0, 0),
            (1, 1),
            (2, 1),
            (3, 1),
            (4, 0),
            (5, 0),
            (6, 1),
            (7, 1)
        ]
    );
    assert_eq!(
        order(SchedPolicy::Gto, &stall),
        [
            (0, 0),
            (1, 1),
            (2, 1),
            (3, 1),
            (4, 1),
            (5, 1),
            (6, 0),
            (7, 0)
        ]
    );
}

fn mixed(sms: usize, threads: usize) -> Report {
    let t = Target::SM_53;
    let insts = vec![
        setp(1, 10, 11, None),
        set_u32(4, 4, 5),
        video(VideoOp::Add, Simd::X4, true, 6, 6, 7, 8),
        video(VideoOp::Absdiff, Simd::X4, false, 9, 6, 7, 8),
        video(VideoOp::Max, Simd::X4, false, 13, 9, 7, 8),
        video(VideoOp::Min, Simd::X2, false, 12, 9, 7, 8),
        setp(2, 12, 4, Some(1)),
    ];
    let n = insts.len() as u32;
    let mut sim = Simulation::new(preset(t), program(t, insts), SchedPolicy::Gto, sms).unwrap();
    for w in 0..200u32 {
        let body: Vec<u32> = (0..n).map(|k| (k + w) % n).collect();
        let stream = Box::new(RepeatStream::new(body, 20 + (w % 7) as u64));
        sim.add_warp(WarpLaunch {
            warp_id: w,
            active: u32::MAX >> (w % 5),
            stream,
        })
        .unwrap();
    }
    sim.run(threads).unwrap()
}

#[test]
fn same_stats_for_any_thread_count() {
    let one = mixed(6, 1);
    assert!(one.stats.warp_instructions > 0);
    for th in [2, 4] {
        assert_eq!(mixed(6, th), one, "{th} threads");
    }
    // Warps beyond the resident limit wait and still all run.
    let total: u64 = (0..200u64).map(|w| 7 * (20 + w % 7)).sum();
    assert_eq!(one.stats.warp_instructions, total);
}

#[test]
fn host_fed_warp() {
    let t = Target::SM_90;
    let mut sm = Sm::new(
        preset(t),
        program(t, vec![setp(1, 2, 3, Some(1))]),
        SchedPolicy::Gto,
    )
    .unwrap();
    sm.add_host_warp(7, u32::MAX).unwrap();
    for _ in 0..10 {
        assert!(sm.warp_waiting(7));
        sm.push_instruction(7, 0).unwrap();
        sm.run_to_completion().unwrap();
    }
    sm.close_warp(7).unwrap();
    sm.run_to_completion().unwrap();
    assert!(sm.is_done());
    assert_eq!(sm.stats().warp_instructions, 10);
    assert_eq!(
        sm.push_instruction(7, 5),
        Err(SimError::BadIndex {
            warp_id: 7,
            index: 5,
            len: 1
        })
    );
}

#[test]
fn lowering_table_matches_research_listings() {
    use sim_core::lowering::parse_table;
    let t = parse_table(lowering::TABLE_TSV);
    let get = |a: &str, k: &str| t.get(&(a.to_string(), k.to_string())).copied();
    for a in lowering::TableArch::ALL {
        assert!(
            lowering::rows_for(a) > 900,
            "{a:?}: {} rows",
            lowering::rows_for(a)
        );
    }
    // (target, row, instructions, and where asserted the second column)
    #[rustfmt::skip]
    let listed = [
        // Counts read off ptxas 11.8 + nvdisasm listings of these kernels for sm_90
        // (the machine code between the loads and the store), independently of derive.py.
        ("sm_90", "vadd4.uuu.plain.def", 5, None),
        ("sm_90", "vadd4.uuu.add.def", 14, None),
        ("sm_90", "vadd2.uuu.plain.def", 4, None),
        ("sm_90", "vavrg2.uuu.plain.def", 4, None),
        ("sm_90", "vset4.ord.ss.plain.def", 38, None),
        ("sm_90", "vavrg4.sss.plain.def", 42, None),
        ("sm_90", "vabsdiff4.uuu.plain.def", 1, Some(1)),
        ("sm_90", "vabsdiff4.uuu.add.def", 1, Some(1)),
        // Half set into f16/bf16 from f32: FSETP, SEL, IABS, I2F (the listing's 5th is the pack).
        ("sm_90", "set.f16.f32.nobool", 4, None),
        ("sm_90", "set.bf16.f32.nobool", 4, None),
        // lowering-sm53-counts.txt (approximate there): vadd4 .add 15, vabsdiff4.s 32, vmin4.s 28, vset4.s.gt 32.
        ("sm_53", "vadd4.uuu.add.def", 15, None),
        ("sm_53", "vabsdiff4.sss.plain.def", 32, None),
        ("sm_53", "vmin4.sss.plain.def", 28, None),
        ("sm_53", "vset4.ord.ss.plain.def", 32, None),
    ];
    for (arch, key, n, second) in listed {
        match second {
            Some(v) => assert_eq!(get(arch, key), Some((n, v)), "{arch} {key}"),
            None => assert_eq!(get(arch, key).map(|x| x.0), Some(n), "{arch} {key}"),
        }
    }
    // Kepler: every video instruction native.
    for ((a, k), (n, _)) in &t {
        if a == "sm_35" && k.starts_with('v') && k.ends_with(".def") {
            assert_eq!(*n, 1, "{k}");
        }
    }
}

/// Machine code given per instruction (`simcli run --lowering compiler`)
/// replaces the table's row and is timed by the same pipe rules.
#[test]
fn machine_code_given_per_instruction() {
    use sim_core::sass_table::{MachineInst, Row, SassArch, Src};
    let (p, _) = Program::from_ptx(
        Target::SM_90,
        &["add.u32 %r1, %r2, %r3;", "add.u32 %r4, %r1, %r3;"],
    )
    .expect("program");
    let p = Arc::new(p);
    let cfg = preset(Target::SM_90);
    let table = ProgramTables::new(cfg.clone(), p.clone()).expect("tables");
    assert_eq!(table.issue_timing(0).map(|x| x.0), Some(1), "one IADD3");
    // Two dependent machine instructions: an IMAD (FMA pipe at 64 lanes,
    // latency 4) and an opcode the table does not know (it runs on the ALU
    // pipe, latency 4), which receives the IMAD's result a clock late
    // (`pipes::crossing`).
    let row = Row::compiled(
        SassArch::Sm90,
        "compiler",
        vec![
            MachineInst::new("IMAD", "", &[Src::A, Src::B]).expect("inst"),
            MachineInst::new("SIMCLI_TEST_OP", ".X", &[Src::Inst(0)]).expect("inst"),
        ],
        &[Src::Inst(1)],
    )
    .expect("row");
    assert_eq!(row.insts[1].mnemonic(), "SIMCLI_TEST_OP.X");
    // A result read from a later instruction is refused.
    assert!(Row::compiled(SassArch::Sm90, "x", vec![], &[Src::Inst(0)]).is_none());
    let given = ProgramTables::with_machine_code(cfg.clone(), p.clone(), vec![Some(row.clone())])
        .expect("tables");
    assert_eq!(given.issue_timing(0), Some((2, 9)));
    // Its result, from the ALU pipe, reaches its own IMAD (the FMA pipe) in
    // a later instance a clock later still: the scoreboard keeps a ready
    // clock per side.
    assert_eq!(given.result_ready(0, 0), Some(10));
    // Past the given code's end, the table's.
    assert_eq!(given.issue_timing(1), table.issue_timing(1));
    // An IMAD's result (FMA pipe) reaches an IMAD at once, a LOP3 (ALU pipe)
    // a clock later and a POPC (XU pipe) and a DADD (FP64 pipe) two later
    // (ptxas 13.0.88: 4, 5, 6 and 6 clocks, `data/forwarding-sm90.tsv`):
    // each side has its column.
    let one = |op: &str| {
        Row::compiled(
            SassArch::Sm90,
            "compiler",
            vec![MachineInst::new(op, "", &[Src::A]).expect("inst")],
            &[Src::Inst(0)],
        )
    };
    for (consumer, extra) in [("IMAD", 0), ("LOP3", 1), ("POPC", 2), ("DADD", 2)] {
        let t = ProgramTables::with_machine_code(
            cfg.clone(),
            p.clone(),
            vec![one("IMAD"), one(consumer)],
        )
        .expect("tables");
        let own = t.issue_timing(0).expect("timing").1;
        assert_eq!(
            t.result_ready(0, 1),
            Some(own + extra),
            "IMAD -> {consumer}"
        );
    }
    // A result forwarded from an operand: no machine instruction.
    let fwd = Row::compiled(SassArch::Sm90, "compiler", vec![], &[Src::A]).expect("row");
    let t = ProgramTables::with_machine_code(cfg, p.clone(), vec![None, Some(fwd)]).expect("t");
    assert_eq!(t.issue_timing(1).map(|x| x.0), Some(0));
    // GT200 has no machine code to replace.
    let gt200 = ProgramTables::with_machine_code(preset(Target::SM_13), p, vec![Some(row)]);
    assert!(matches!(gt200, Err(SimError::BadConfig(_))));
}

/// A host's loops (`ProgramTables::with_loops`): an operand no instruction of
/// the loop writes is fixed there, so its share of the machine code is
/// hoisted (ptxas's loop-invariant code motion: `vmin2`'s extraction of `b`
/// runs once, before the H100 loops, `microbench-sm90.sass.gz`), even where
/// it was loaded (here read from the clock, which the program-wide analysis
/// cannot call invariant); outside every loop nothing is hoisted.
#[test]
fn loops_hoist_work_on_what_they_do_not_write() {
    let t = Target::SM_90;
    let prog = sm90_program(&[
        "mov.u32 %r2, %clock;",
        "vmin2.s32.s32.s32 %r1, %r1, %r2, %r3;",
        "vmin2.s32.s32.s32 %r4, %r4, %r5, %r6;",
    ]);
    let cfg = preset(t);
    let plain = ProgramTables::new(cfg.clone(), prog.clone()).unwrap();
    let looped = ProgramTables::with_loops(cfg.clone(), prog.clone(), &[(1, 2)], &[1]).unwrap();
    let uops = |t: &ProgramTables, i| t.issue_timing(i).unwrap().0;
    // Instruction 1: `%r2` varies (a clock read) for the program-wide
    // analysis; the loop does not write it.
    assert!(
        uops(&looped, 1) < uops(&plain, 1),
        "{} vs {}",
        uops(&looped, 1),
        uops(&plain, 1)
    );
    // Instruction 2: `%r5`, `%r6` are never written: fixed either way.
    assert_eq!(uops(&looped, 2), uops(&plain, 2));
    // Outside loops nothing is hoisted: the same vmin2 keeps all its code.
    let outside = ProgramTables::with_loops(cfg.clone(), prog.clone(), &[], &[]).unwrap();
    assert!(uops(&outside, 2) > uops(&plain, 2));
    // A second back-edge to the same first instruction (a `continue`) makes
    // one loop, the largest: `%r4`, written in it, is not fixed in its first
    // part.
    let both =
        ProgramTables::with_loops(cfg.clone(), prog.clone(), &[(1, 1), (1, 2)], &[1]).unwrap();
    assert_eq!(uops(&both, 1), uops(&looped, 1));
    let prog2 = sm90_program(&[
        "mov.u32 %r2, %clock;",
        "vmin2.s32.s32.s32 %r1, %r1, %r4, %r3;",
        "add.u32 %r4, %r4, 1;",
    ]);
    let short = ProgramTables::with_loops(cfg.clone(), prog2.clone(), &[(1, 1)], &[1]).unwrap();
    let whole =
        ProgramTables::with_loops(cfg.clone(), prog2.clone(), &[(1, 1), (1, 2)], &[1]).unwrap();
    assert!(uops(&whole, 1) > uops(&short, 1));
    // A loop must be a range of the program, a target one of its instructions.
    for bad in [(2, 1), (1, 3)] {
        assert!(ProgramTables::with_loops(cfg.clone(), prog.clone(), &[bad], &[]).is_err());
    }
    assert!(ProgramTables::with_loops(cfg.clone(), prog.clone(), &[], &[3]).is_err());
}

/// An instruction whose `c` is its `a` takes ptxas's code for it in a chain
/// (the `.ca` rows): `vabsdiff2 .add` then has no `IMAD.MOV` copy, as the
/// H100's `b13_lat` loop has none (9 machine instructions per link, the
/// second operand's extraction hoisted), where the isolated lowering has one.
#[test]
fn an_accumulator_that_is_the_first_operand_takes_the_chained_code() {
    let t = Target::SM_90;
    let timing = |text: &str| {
        let tables = ProgramTables::new(preset(t), sm90_program(&[text])).unwrap();
        tables.issue_timing(0).unwrap()
    };
    let aliased = timing("vabsdiff2.u32.u32.u32.add %r1, %r1, %r2, %r1;");
    let plain = timing("vabsdiff2.u32.u32.u32.add %r1, %r1, %r2, %r3;");
    assert_eq!(aliased.0, 9, "machine instructions per link");
    assert_eq!(plain.0, 10);
    // A link in 22 clocks, as the H100 runs them (`b13_lat`: 22.5 cycles
    // per link with the loop's 0.37); the copy costs the isolated code 4.
    assert_eq!(aliased.1, 22);
    assert_eq!(plain.1, 26);
}

/// Interleaved with an independent instance of itself (another chain), a
/// `.ca` instruction keeps its fixed operand's extraction: ptxas recomputes
/// it there (`vabsdiff2 .add` in two or four interleaved chains: 10.3-11
/// machine instructions per instance against 9 in one chain; the H100's
/// `b13_tput` runs 11, all ALU but the IMAD.IADD and a copy). One chain, a
/// neighbour of another form, or one that continues this chain: hoisted.
#[test]
fn an_accumulator_interleaved_with_another_chain_keeps_its_extraction() {
    let counts = |insts: &[&str]| {
        let tables = ProgramTables::new(preset(Target::SM_90), sm90_program(insts)).unwrap();
        (0..insts.len())
            .map(|i| tables.issue_timing(i).unwrap().0)
            .collect::<Vec<_>>()
    };
    let x1 = "vabsdiff2.u32.u32.u32.add %r1, %r1, %r2, %r1;";
    let x3 = "vabsdiff2.u32.u32.u32.add %r3, %r3, %r2, %r3;";
    assert_eq!(counts(&[x1, x3]), [10, 10]);
    assert_eq!(counts(&[x1, x1]), [9, 9]);
    assert_eq!(counts(&[x1, "add.u32 %r3, %r3, %r2;", x3]), [9, 1, 9]);
    // A four-lane form keeps its hoisting, as ptxas does (`vadd4 .add`: 2
    // per instance in one, two and four chains).
    let v1 = "vadd4.u32.u32.u32.add %r1, %r1, %r2, %r1;";
    let v3 = "vadd4.u32.u32.u32.add %r3, %r3, %r2, %r3;";
    assert_eq!(counts(&[v1, v3]), [2, 2]);
    // Reading the other chain's result makes it one chain.
    assert_eq!(
        counts(&[x1, "vabsdiff2.u32.u32.u32.add %r3, %r3, %r1, %r3;"])[0],
        9
    );
    // (The first reads the second's register as its `b`: nothing of it is
    // fixed, so nothing hoisted in any case.)
    assert_eq!(
        counts(&["vabsdiff2.u32.u32.u32.add %r1, %r1, %r3, %r1;", x3]),
        [10, 9]
    );
}

/// A `set` with an integer result that a `slct` then tests and overwrites
/// runs as ptxas fuses it: the compare, and one `SEL` of its predicate
/// (4 + 4 clocks instead of 8 + 8; `tools/gpu/ptxas_schedule.py` found mixes
/// of `set.u32.u32` and `slct` 30% slow without it). Not where the mask
/// lives on, nor where a float `set` (1.0 or 0) feeds the select.
#[test]
fn a_set_then_slct_of_its_mask_is_one_compare_and_one_select() {
    let t = Target::SM_90;
    let timing = |insts: &[&str]| {
        let tables = ProgramTables::new(preset(t), sm90_program(insts)).unwrap();
        (
            tables.issue_timing(0).unwrap(),
            tables.issue_timing(1).unwrap(),
        )
    };
    let fused = timing(&[
        "set.lt.u32.u32 %r1, %r1, %r2;",
        "slct.s32.s32 %r1, %r2, %r3, %r1;",
    ]);
    assert_eq!(fused, ((1, 4), (1, 4)));
    let gtu = timing(&[
        "set.gtu.s32.f32 %r1, %r1, %r2;",
        "slct.s32.s32 %r1, %r2, %r3, %r1;",
    ]);
    assert_eq!(gtu, ((1, 4), (1, 4)));
    // The mask is read again later (the select writes elsewhere): both whole.
    let kept = timing(&[
        "set.lt.u32.u32 %r1, %r1, %r2;",
        "slct.s32.s32 %r4, %r2, %r3, %r1;",
    ]);
    assert_eq!(kept, ((2, 8), (2, 8)));
    let float = timing(&[
        "set.lt.f32.f32 %r1, %r1, %r2;",
        "slct.s32.s32 %r1, %r2, %r3, %r1;",
    ]);
    assert_eq!(float.1, (2, 8));
    // Not where a branch leads to the select: control may come from
    // elsewhere, with another mask.
    let prog = sm90_program(&[
        "set.lt.u32.u32 %r1, %r1, %r2;",
        "slct.s32.s32 %r1, %r2, %r3, %r1;",
    ]);
    let at_target = ProgramTables::with_loops(preset(t), prog.clone(), &[(1, 1)], &[1]).unwrap();
    assert_eq!(at_target.issue_timing(1), Some((2, 8)));
    let elsewhere = ProgramTables::with_loops(preset(t), prog, &[], &[0]).unwrap();
    assert_eq!(elsewhere.issue_timing(1), Some((1, 4)));
}
