//! Issue 3, acceptance 1: the microbenchmark kernels in `traces/`, replayed on
//! each preset through the library API, against the issue's figures and the
//! lowering table's micro-op and dependent-step counts.

use crate::root;
use sim_core::{lowering, preset, SmConfig, Stats};
use sim_isa::{Instruction, Op, Target};
use sim_trace::kernel::parse_kernel;
use sim_trace::replay::{simulate, RunOptions};
use sim_trace::trace::Trace;

const PRESETS: [&str; 4] = ["sm_13", "sm_30", "sm_53", "sm_90"];

fn load(name: &str) -> Trace {
    let rel = format!("traces/{name}.ptx");
    let text = std::fs::read_to_string(root().join(&rel)).unwrap();
    parse_kernel(&rel, &text).unwrap()
}

/// Simulates `trace` on one SM, one thread, LRR (as `simcli run` does by default).
fn run(trace: &Trace, arch: &str) -> Stats {
    let target = Target::parse(arch).unwrap();
    trace.check_target(target, trace.version).unwrap();
    let opts = RunOptions::new(target);
    simulate(trace, &opts).unwrap().0.stats
}

fn cfg(arch: &str) -> SmConfig {
    preset(Target::parse(arch).unwrap())
}

/// The first static instruction matching `pick`; every other match must be the
/// same lowering variant (the kernels differ only in registers).
fn inst(trace: &Trace, pick: impl Fn(&Op) -> bool) -> &Instruction {
    let mut it = trace.insts.iter().filter(|i| pick(&i.op));
    let first = it.next().expect("the kernel has the instruction");
    for i in it {
        assert_eq!(lowering::key(i), lowering::key(first), "one variant");
    }
    first
}

fn assert_within(what: &str, got: f64, want: f64, tol: f64) {
    assert!(
        (got - want).abs() <= tol * want,
        "{what}: got {got:.4}, want {want:.4} within {:.0}%",
        tol * 100.0
    );
}

/// Dependent ALU latency of each preset (issue 3's table).
const ALU_LATENCY: [f64; 4] = [24.0, 9.0, 6.0, 4.0];

/// One warp, 1000 dependent `selp` (one SEL on every target): cycles per
/// instruction equals the preset's dependent ALU latency within 5%.
#[test]
fn chain_selp_cycles_per_instruction_is_alu_latency() {
    let t = load("chain_selp");
    for (arch, want) in PRESETS.into_iter().zip(ALU_LATENCY) {
        let st = run(&t, arch);
        let n = st.per_opcode["selp"].count;
        assert_eq!(n, 1000);
        // The table says selp is one machine instruction here.
        let c = lowering::cost(cfg(arch).lowering, inst(&t, |o| matches!(o, Op::Selp(_))));
        assert_eq!((c.uops, c.steps), (1, 1), "{arch}: selp lowering");
        assert_within(
            &format!("{arch} chain_selp cycles/instruction"),
            st.cycles as f64 / n as f64,
            want,
            0.05,
        );
        assert_eq!(
            cfg(arch).units.int_alu.latency as f64,
            want,
            "{arch}: preset ALU latency"
        );
    }
}

/// `set.lt.u32.u32` costs its lowering's dependent steps x latency per step
/// (ISETP+SEL on sm_90: 2 x 4; one instruction before).
#[test]
fn chain_set_costs_lowering_steps_times_latency() {
    let t = load("chain_set");
    let set = inst(&t, |o| matches!(o, Op::Set(_)));
    for (arch, lat) in PRESETS.into_iter().zip(ALU_LATENCY) {
        let st = run(&t, arch);
        let c = lowering::cost(cfg(arch).lowering, set);
        let n = st.per_opcode["set"].count;
        assert_within(
            &format!("{arch} chain_set cycles/instruction"),
            st.cycles as f64 / n as f64,
            c.steps as f64 * lat,
            0.05,
        );
    }
    assert_eq!(lowering::cost(cfg("sm_90").lowering, set).steps, 2);
}

/// All resident warps, independent compares: warp-instructions per clock per
/// SM. sm_90: `set.lt.u32.u32` is ISETP then SEL, both on the ALU pipe (2
/// warp-instructions per clock per SM): 1 per clock, as the H100 measured
/// (`data/calibration/h100/microbench.json`, `b16_tput`: 131,730 cycles for
/// 131,072, 0.995 per clock).
#[test]
fn indep_cmp_throughput_per_preset() {
    let t = load("indep_cmp");
    for (arch, want) in PRESETS.into_iter().zip([0.25, 5.0, 2.0, 1.0]) {
        let st = run(&t, arch);
        assert_eq!(st.warp_instructions, 64 * 1001);
        assert_within(&format!("{arch} indep_cmp IPC"), st.ipc, want, 0.05);
    }
}

/// sm_30: vadd4 sustains 1 warp-instruction per clock, vabsdiff4 5.
#[test]
fn sm30_video_throughput() {
    for (name, want) in [("vadd4_tput", 1.0), ("vabsdiff4_tput", 5.0)] {
        let st = run(&load(name), "sm_30");
        let video = &st.per_opcode[if name.starts_with("vadd4") {
            "vadd4"
        } else {
            "vabsdiff4"
        }];
        assert_eq!(video.micro_ops, video.count, "all native on sm_30");
        assert_within(&format!("sm_30 {name} IPC"), st.ipc, want, 0.05);
    }
}

/// The tables `trace` runs with on `arch`.
fn tables(trace: &Trace, arch: &str) -> std::sync::Arc<sim_core::ProgramTables> {
    let opts = RunOptions::new(Target::parse(arch).unwrap());
    sim_trace::replay::replay(trace, cfg(arch), &opts, 0)
        .unwrap()
        .tables
}

/// sm_53 and sm_90: an emulated vadd4 costs its machine instructions in issue
/// slots (throughput: `vadd4_tput`'s sources do not change in the loop, so
/// the work on them is hoisted), or its busiest pipe's clocks where that is
/// more, and the schedule of its machine code in a chain.
#[test]
fn emulated_vadd4_costs_its_machine_code() {
    let tput = load("vadd4_tput");
    let chain = load("chain_vadd4");
    let is_vadd = |o: &Op| matches!(o, Op::Video(_));
    for arch in ["sm_53", "sm_90"] {
        let c = cfg(arch);
        let k = tput.insts.iter().position(|i| is_vadd(&i.op)).unwrap();
        let tt = tables(&tput, arch);
        let (uops, _) = tt.issue_timing(k).unwrap();
        assert!(uops > 1, "{arch}: vadd4 is emulated");
        let per_sched = (uops as f64).max(tt.pipe_clocks(k).unwrap());

        // Throughput: the kernel is vadd4 but for 3 setup instructions per warp.
        let st = run(&tput, arch);
        let n = st.per_opcode["vadd4"].count;
        assert_eq!(n, 64 * 1000);
        assert_eq!(st.per_opcode["vadd4"].micro_ops, n * uops as u64);
        assert_within(
            &format!("{arch} vadd4 warp-instructions per clock"),
            n as f64 / st.cycles as f64,
            c.schedulers as f64 / per_sched,
            0.10,
        );

        // Dependent chain: the schedule's delay per instruction.
        let k = chain.insts.iter().position(|i| is_vadd(&i.op)).unwrap();
        let (_, delay) = tables(&chain, arch).issue_timing(k).unwrap();
        let st = run(&chain, arch);
        let n = st.per_opcode["vadd4"].count;
        assert_eq!(n, 1000);
        assert_within(
            &format!("{arch} chain_vadd4 cycles/instruction"),
            st.cycles as f64 / n as f64,
            delay as f64,
            0.05,
        );
    }
    // sm_30: native, one ALU latency per link.
    let st = run(&chain, "sm_30");
    assert_within("sm_30 chain_vadd4", st.cycles as f64 / 1000.0, 9.0, 0.05);
}
