//! The ten public launches (`tests/data/h100`, copied from the project's
//! reference shelf: five kernels of `public.cu` compiled by nvcc 13.0 for
//! sm_90, with the bytes an H100 left in each output buffer) run here and
//! must leave exactly those bytes.

use sim_kernel::*;
use sim_module::{parse_module, Launch};
use std::path::PathBuf;

fn data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../sim-module/tests/data/h100")
}

/// The ten public launches, in `launches.txt`'s order (the list sim-kernel's
/// and sim-cli's tests share).
fn launches() -> Vec<String> {
    let list = std::fs::read_to_string(data().join("launches.txt")).unwrap();
    let names: Vec<String> = list.lines().map(str::to_string).collect();
    assert_eq!(names.len(), 10, "{list}");
    names
}

#[test]
fn public_launches_match_the_h100_byte_for_byte() {
    let mut failed = Vec::new();
    let mut compared = 0;
    for name in launches() {
        let launch = Launch::read(&data().join(format!("{name}.json"))).unwrap();
        let src = std::fs::read_to_string(&launch.ptx).unwrap();
        let module = parse_module(&src, "public.ptx").unwrap();
        let prep = Prepared::new(&module, &launch, launch.load_buffers().unwrap()).unwrap();
        let cfg = sim_core::preset(sim_isa::Target::SM_90);
        let opts = RunOptions::new(cfg, sim_core::SchedPolicy::Lrr, 132);
        let run = match run_grid(&prep, &launch, &opts) {
            Ok(r) => r,
            Err(e) => {
                failed.push(format!("{name}: {e}"));
                continue;
            }
        };
        for (b, want) in launch.load_expected().unwrap() {
            let region = run
                .global
                .regions
                .iter()
                .find(|r| r.base == prep.buffers[b])
                .unwrap();
            compared += 1;
            assert!(
                want.iter().any(|&b| b != 0),
                "{name}: expected bytes all zero"
            );
            if let Some(m) = compare(&launch.buffers[b].name, &region.bytes, &want) {
                failed.push(format!("{name}: {m}"));
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    // Every output buffer of the ten launches was compared.
    assert_eq!(compared, 16);
}

/// Simulated cycles of the one-block launches against the H100's
/// (`h100.cycles_cold`: max(end) - min(start) of the warps' `%clock64`
/// reads, the same window the simulated clock reads give).
#[test]
fn one_block_launch_cycles_against_the_h100() {
    let extra = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/h100-extra");
    let mut paths: Vec<PathBuf> = launches()
        .iter()
        .filter(|n| n.ends_with(".t"))
        .map(|n| data().join(format!("{n}.json")))
        .collect();
    let mut more: Vec<PathBuf> = std::fs::read_dir(&extra)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".t.json"))
        .collect();
    more.sort();
    paths.extend(more);
    let mut rows = Vec::new();
    for path in &paths {
        let name = path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .trim_end_matches(".json")
            .to_string();
        let cfg = sim_core::preset(sim_isa::Target::SM_90);
        let opts = RunOptions::new(cfg, sim_core::SchedPolicy::Lrr, 1);
        let run = run_launch(path, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(run.mismatches.is_empty(), "{name}: {:?}", run.mismatches);
        let sim = run.timed.clock_window().unwrap();
        let hw = run.launch.h100.as_ref().unwrap().cycles_cold.unwrap();
        rows.push((name, sim, hw));
    }
    let geo = |rows: &[(String, u64, u64)]| {
        let log: f64 = rows
            .iter()
            .map(|(_, s, h)| (*s as f64 / *h as f64).ln().abs())
            .sum();
        (log / rows.len() as f64).exp()
    };
    for (name, sim, hw) in &rows {
        let f = *sim as f64 / *hw as f64;
        println!("{name:22} simulated {sim:6}  H100 {hw:6}  ratio {f:.3}");
    }
    let (public, extra) = rows.split_at(5);
    let (gp, ge) = (geo(public), geo(extra));
    println!("geometric-mean error factor: public {gp:.3}, extra {ge:.3}");
    // Issue 11's goal for the public launches: each within 25%,
    // geometric-mean error at most 1.15.
    for (name, sim, hw) in public {
        let f = *sim as f64 / *hw as f64;
        assert!((0.75..=1.25).contains(&f), "{name}: {sim} vs H100 {hw}");
    }
    assert!(gp <= 1.15, "geometric-mean error {gp:.3}");
    // The extra kernels were measured after the model was fitted, to see
    // how it generalises (docs/validation.md lists where it does not:
    // global atomics, integer division, float division and square root,
    // and streaming first touches). A regression guard at today's figure
    // (1.275; 1.279 before IMAD.HI/IMAD.WIDE took their measured rate;
    // 1.345 before the constant cache took its gathers' lines one
    // after the other and one address a clock for the whole SM).
    assert!(ge <= 1.28, "extra kernels: geometric-mean error {ge:.3}");
    // The constant cache's gathers: `const_lookup.t` within 5% (0.963;
    // 0.585 while a gather's lines came at once and its addresses did not
    // queue behind other warps').
    let (_, sim, hw) = extra.iter().find(|r| r.0 == "const_lookup.t").unwrap();
    let f = *sim as f64 / *hw as f64;
    assert!(
        (0.95..=1.05).contains(&f),
        "const_lookup.t: {sim} vs H100 {hw}"
    );
}

/// The extra kernels (tests/data/h100-extra: tools/gpu/kernels/extra.cu,
/// nvcc 13.0.88 -O3 for sm_90; outputs and cycles observed on an H100 through
/// tools/gpu/launch.py) leave exactly the H100's bytes.
#[test]
fn extra_launches_match_the_h100_byte_for_byte() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/h100-extra");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 20);
    let mut failed = Vec::new();
    let mut compared = 0;
    for path in &names {
        let cfg = sim_core::preset(sim_isa::Target::SM_90);
        let opts = RunOptions::new(cfg, sim_core::SchedPolicy::Lrr, 4);
        match run_launch(path, &opts) {
            Ok(run) => {
                compared += run.launch.expected.len();
                failed.extend(
                    run.mismatches
                        .iter()
                        .map(|m| format!("{}: {m}", path.display())),
                );
            }
            Err(e) => failed.push(format!("{}: {e}", path.display())),
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    assert!(compared >= 30, "{compared} buffers compared");
}

/// Resident blocks per SM on the sm_90 preset: warp slots (64), shared
/// memory (228 KiB) and the block limit (32), whichever binds first.
#[test]
fn blocks_per_sm_follow_the_binding_limit() {
    let cfg = sim_core::preset(sim_isa::Target::SM_90);
    let mem = MemConfig::preset(sim_isa::Target::SM_90);
    use sim_kernel::timing::blocks_per_sm;
    assert_eq!(cfg.resident_warps, 64);
    assert_eq!(blocks_per_sm(&cfg, &mem, 8, 0, None), 8);
    assert_eq!(blocks_per_sm(&cfg, &mem, 8, 100 * 1024, None), 2);
    assert_eq!(blocks_per_sm(&cfg, &mem, 1, 0, None), 32);
    assert_eq!(blocks_per_sm(&cfg, &mem, 64, 0, None), 1);
    // A block larger than the SM still runs, alone.
    assert_eq!(blocks_per_sm(&cfg, &mem, 8, 300 * 1024, None), 1);
    // Registers, where the launch states them: the SGEMM's 40 a thread
    // (ptxas 13.0.88 -v) are 1,280 a warp, 10,240 a block of 8 warps, 6
    // blocks of the 65,536, as the H200 kept (docs/validation.md); 32 a
    // thread would fit the 8 the warp slots allow; 33 rounds up to 1,280.
    assert_eq!(blocks_per_sm(&cfg, &mem, 8, 8192, Some(40)), 6);
    assert_eq!(blocks_per_sm(&cfg, &mem, 8, 8192, Some(32)), 8);
    assert_eq!(blocks_per_sm(&cfg, &mem, 8, 8192, Some(33)), 6);
    assert_eq!(blocks_per_sm(&cfg, &mem, 32, 0, Some(255)), 1);
}

/// Mixed-instruction loops (tests/data/h100-mixed: tools/gpu/make_mixed.py,
/// forms drawn with a fixed seed from the microbenchmark bodies, 2 to 5 per
/// kernel; run on the H100 by tools/gpu/launch.py after the sm_90 pipe model
/// was fitted, to see how it generalises): values byte for byte, and cycles
/// within issue 10's bound for unseen mixes (geometric-mean error at most
/// 1.10, none off by more than 25%; measured: each within 6%, 1.015). The
/// throughput loops hold within 3% (0.983-1.001), once their windows hold
/// the wait for the inputs as the H100's do (the dead `setp` and its load
/// issue nothing); they were 3-5% fast before (0.946 at worst).
#[test]
fn mixed_loops_values_and_cycles_against_the_h100() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/h100-mixed");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name().unwrap().to_string_lossy().starts_with("mix")
                && p.to_string_lossy().ends_with("t.json")
        })
        .collect();
    paths.sort();
    assert_eq!(paths.len(), 10);
    let mut log = 0.0f64;
    for path in &paths {
        let cfg = sim_core::preset(sim_isa::Target::SM_90);
        let run = run_launch(path, &RunOptions::new(cfg, sim_core::SchedPolicy::Lrr, 1)).unwrap();
        assert!(
            run.mismatches.is_empty(),
            "{}: {:?}",
            path.display(),
            run.mismatches
        );
        let sim = run.timed.clock_window().unwrap() as f64;
        let hw = run.launch.h100.as_ref().unwrap().cycles_cold.unwrap() as f64;
        println!(
            "{:24} simulated {sim:8} H100 {hw:8} ratio {:.3}",
            path.file_name().unwrap().to_string_lossy(),
            sim / hw
        );
        assert!(
            (0.90..=1.10).contains(&(sim / hw)),
            "{}: {sim} vs {hw}",
            path.display()
        );
        if path.to_string_lossy().ends_with("_tput.json") {
            assert!(
                (0.97..=1.03).contains(&(sim / hw)),
                "{}: {sim} vs {hw}",
                path.display()
            );
        }
        log += (sim / hw).ln().abs();
    }
    let geo = (log / paths.len() as f64).exp();
    println!("geometric-mean error factor {geo:.3}");
    assert!(geo <= 1.10, "{geo}");
}

/// Only a loop's taken back-edges wait for a configured fetch redirect:
/// `mix0_lat` (16 iterations, so 15 taken back-edges, and no other branch
/// in its loop) runs 15 x 20 cycles longer with `taken_branch_cycles` 22
/// than with the preset's 0 (each target would otherwise issue 2 clocks
/// after the branch, for its operand).
#[test]
fn loop_back_edges_cost_a_configured_redirect() {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/h100-mixed/mix0_lat.json");
    let cycles = |taken: u32| {
        let mut cfg = sim_core::preset(sim_isa::Target::SM_90);
        cfg.taken_branch_cycles = taken;
        let run = run_launch(&path, &RunOptions::new(cfg, sim_core::SchedPolicy::Lrr, 1)).unwrap();
        run.timed.clock_window().unwrap()
    };
    assert_eq!(
        sim_core::preset(sim_isa::Target::SM_90).taken_branch_cycles,
        0
    );
    assert_eq!(cycles(22) - cycles(0), 15 * 20);
    assert_eq!(cycles(30) - cycles(0), 15 * 28);
}

/// Float atomics on boundary values (tests/data/h100-atomics:
/// tools/gpu/kernels/atomf.cu and atom2.cu, each thread on its own slots,
/// run on the H100 by tools/gpu/launch.py): `atom`/`red.global.add.f32`
/// flush subnormals and give 0x7fffffff for NaN; `.f64` passes a NaN operand
/// through; `atom.shared.add.f32` keeps subnormals; every 64-bit integer
/// atomic.
#[test]
fn float_atomics_match_the_h100() {
    for name in ["atom_float.json", "atom_more.json"] {
        matches_the_h100("tests/data/h100-atomics", name, 2, 3);
    }
}

/// Runs launch file `name` of folder `dir` on `sms` SMs: its `outputs`
/// expected buffers, each with the bytes the H100 left.
fn matches_the_h100(dir: &str, name: &str, sms: u32, outputs: usize) {
    let cfg = sim_core::preset(sim_isa::Target::SM_90);
    let opts = RunOptions::new(cfg, sim_core::SchedPolicy::Lrr, sms);
    let run = run_launch(&crate::in_crate(dir, name), &opts).unwrap();
    assert_eq!(run.launch.expected.len(), outputs, "{name}");
    assert!(run.mismatches.is_empty(), "{name}: {:?}", run.mismatches);
}

/// Segmented shuffles (widths 4, 8, 16, every mode, with the in-range
/// predicate), and `vote.sync` uni/ballot/all/any with `activemask` inside a
/// divergent branch (tests/data/h100-warp: tools/gpu/kernels/shfl.cu, run on
/// the H100 by tools/gpu/launch.py). The first run caught the member mask
/// read from lane 0, which was on the other side of the branch.
#[test]
fn shuffles_and_votes_match_the_h100() {
    matches_the_h100("tests/data/h100-warp", "shfl_seg.json", 2, 1);
}

/// Control flow as CUDA code writes it: nested data-dependent branches,
/// loops with per-lane trip counts, `break`/`continue`, early returns, a
/// switch, byte/half/double stores (tests/data/h100-control:
/// tools/gpu/kernels/ctl.cu, three blocks of 100 threads, run on the H100 by
/// tools/gpu/launch.py).
#[test]
fn control_flow_matches_the_h100() {
    matches_the_h100("tests/data/h100-control", "control.json", 3, 4);
}
