//! The streaming engine: blocks resident as SMs have room, on the whole
//! GPU, communicating through global memory as on a GPU.

use crate::{buffer_launch, kernel_text, same_on_any_threads};
use sim_kernel::*;
use sim_module::{parse_module, Launch};
use std::path::Path;

/// Block 0 spins until block 1 sets a flag; block 1 sets it. Run one block
/// after the other, block 0 would never end.
const SPIN: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
.visible .entry k(.param .u64 p)\n{\n\
.reg .pred %p<4>; .reg .b32 %r<8>; .reg .b64 %rd<8>;\n\
ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r1, %ctaid.x;\n\
setp.ne.u32 %p1, %r1, 0;\n@%p1 bra SET;\n\
WAIT: ld.volatile.global.u32 %r2, [%rd2];\nsetp.eq.u32 %p2, %r2, 0;\n@%p2 bra WAIT;\n\
st.global.u32 [%rd2+4], %r2;\nret;\n\
SET: mov.u32 %r3, 7;\nst.volatile.global.u32 [%rd2], %r3;\nret;\n}\n";

fn spin_launch(blocks: u32) -> Launch {
    Launch::parse(
        &format!(
            r#"{{"ptx": "k.ptx", "entry": "k", "grid": [{blocks},1,1], "block": [32,1,1],
               "buffers": {{"b": {{"bytes": 64, "fill": 0}}}}, "params": [{{"buffer": "b"}}]}}"#
        ),
        Path::new("."),
    )
    .unwrap()
}

/// Kernel `k(.param .u64 p)`: `%rd2` its buffer, `%r1` the block's index,
/// then `$rest` (its body and closing brace).
macro_rules! block_kernel {
    ($rest:literal) => {
        concat!(
            ".version 8.0\n.target sm_90\n.address_size 64\n\
             .visible .entry k(.param .u64 p)\n{\n\
             .reg .b32 %r<8>; .reg .b64 %rd<8>;\n\
             ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r1, %ctaid.x;\n",
            $rest
        )
    };
}

/// A sampled run's cycles lie within 3% of the full run's.
fn assert_within_3_percent(sampled: u64, full: u64) {
    let err = sampled as f64 / full as f64 - 1.0;
    assert!(err.abs() < 0.03, "{sampled} vs {full}");
}

fn run(src: &str, launch: &Launch, sms: u32) -> Result<GridRun, KernelError> {
    let module = parse_module(src, "k.ptx").unwrap();
    let prep = Prepared::new(&module, launch, launch.load_buffers().unwrap()).unwrap();
    let cfg = sim_core::preset(sim_isa::Target::SM_90);
    let mut opts = RunOptions::new(cfg, sim_core::SchedPolicy::Lrr, sms);
    opts.max_instructions = 1_000_000;
    run_grid(&prep, launch, &opts)
}

#[test]
fn a_block_spinning_on_a_later_blocks_flag_finishes() {
    for sms in [1, 2, 132] {
        let r = run(SPIN, &spin_launch(2), sms).unwrap_or_else(|e| panic!("{sms} SMs: {e}"));
        let b = &r.global.regions[0].bytes;
        assert_eq!(&b[..8], &[7, 0, 0, 0, 7, 0, 0, 0], "{sms} SMs");
        assert_eq!(r.timed.sms_used, sms.min(2), "{sms} SMs");
    }
}

/// `%smid` reads the SM a block runs on: blocks go breadth-first over the
/// SMs, one each while they last.
#[test]
fn blocks_are_dealt_breadth_first_over_the_sms() {
    let src = block_kernel!(
        "mov.u32 %r2, %smid;\nmul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\n\
         st.global.u32 [%rd4], %r2;\nret;\n}\n"
    );
    let launch = Launch::parse(
        r#"{"ptx": "k.ptx", "entry": "k", "grid": [16,1,1], "block": [32,1,1],
           "buffers": {"b": {"bytes": 64, "fill": 0}}, "params": [{"buffer": "b"}]}"#,
        Path::new("."),
    )
    .unwrap();
    let r = run(src, &launch, 5).unwrap();
    let b = &r.global.regions[0].bytes;
    let smid: Vec<u32> = b
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(smid, (0..16).map(|c| c % 5).collect::<Vec<u32>>());
    assert_eq!(r.timed.sms_used, 5);
}

/// A grid far larger than the GPU holds runs in bounded memory and time:
/// every block ends, and the count of warp-instructions is exact.
#[test]
fn a_large_grid_of_short_blocks_runs() {
    let src = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n";
    let launch = Launch::parse(
        r#"{"ptx": "k.ptx", "entry": "k", "grid": [64,64,1], "block": [64,1,1],
           "buffers": {}, "params": []}"#,
        Path::new("."),
    )
    .unwrap();
    let r = run(src, &launch, 132).unwrap();
    assert_eq!(r.warps, 64 * 64 * 2);
    assert_eq!(r.instructions, 64 * 64 * 2);
    assert_eq!(r.timed.sms_used, 132);
}

/// `body` as kernel `k(.param .u64 p)` (`%rd2` the buffer, `%r1` the
/// thread) on one block of `threads`: its final first word and cycles on
/// one SM.
fn one_block(body: &str, threads: u32) -> (u32, u64) {
    let src = kernel_text(body);
    let launch = buffer_launch(threads);
    let r = run(&src, &launch, 1).unwrap();
    let b = &r.global.regions[0].bytes;
    (
        u32::from_le_bytes(b[..4].try_into().unwrap()),
        r.timed.cycles,
    )
}

/// Warp 0 waits at a barrier whose other warp exits after a long loop:
/// the exit opens the barrier, and timing releases it (the old engine:
/// 2019 cycles).
#[test]
fn a_barrier_opened_by_an_exit_is_released() {
    let body = "setp.lt.u32 %p1, %r1, 32;\n@%p1 bra BAR;\nmov.u32 %r2, 0;\n\
                LOOP: add.u32 %r2, %r2, 1;\nsetp.lt.u32 %p2, %r2, 200;\n@%p2 bra LOOP;\nret;\n\
                BAR: bar.sync 0;\nmov.u32 %r3, 7;\nst.global.u32 [%rd2], %r3;\nret;";
    let (v, cycles) = one_block(body, 64);
    assert_eq!(v, 7);
    assert!((1900..2200).contains(&cycles), "{cycles}");
}

/// A `bar.sync` whose guard is false in every lane is no barrier, in
/// execution and in timing alike (the old engine: 20 cycles).
#[test]
fn a_barrier_guarded_off_in_every_lane_holds_nothing() {
    let body = "setp.gt.u32 %p1, %r1, 100;\n@%p1 bar.sync 0;\nmov.u32 %r3, 7;\n\
                st.global.u32 [%rd2], %r3;\nret;";
    assert_eq!(one_block(body, 32), (7, 20));
}

/// Thread 0 of every block takes a ticket (`atom.add` on a counter, its
/// result used); the block that draws the last ticket counts itself in
/// word 1. Blocks on many SMs at once must still draw distinct tickets.
const TICKETS: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
.visible .entry k(.param .u64 p)\n{\n\
.reg .pred %p<4>; .reg .b32 %r<8>; .reg .b64 %rd<8>;\n\
ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r1, %tid.x;\n\
setp.ne.u32 %p1, %r1, 0;\n@%p1 bra END;\n\
atom.global.add.u32 %r2, [%rd2], 1;\nmov.u32 %r3, %nctaid.x;\nsub.u32 %r4, %r3, 1;\n\
setp.ne.u32 %p2, %r2, %r4;\n@%p2 bra END;\natom.global.add.u32 %r5, [%rd2+4], 1;\n\
END: ret;\n}\n";

#[test]
fn blocks_on_many_sms_draw_distinct_tickets() {
    for sms in [1, 8, 132] {
        for threads in [1, 3] {
            let module = parse_module(TICKETS, "k.ptx").unwrap();
            let launch = spin_launch(200);
            let prep = Prepared::new(&module, &launch, launch.load_buffers().unwrap()).unwrap();
            let cfg = sim_core::preset(sim_isa::Target::SM_90);
            let mut opts = RunOptions::new(cfg, sim_core::SchedPolicy::Lrr, sms);
            opts.threads = threads;
            let r = run_grid(&prep, &launch, &opts).unwrap();
            let b = &r.global.regions[0].bytes;
            assert_eq!(
                &b[..8],
                &[200, 0, 0, 0, 1, 0, 0, 0],
                "{sms} SMs, {threads} threads"
            );
        }
    }
}

/// The committed workloads (and the warp collectives' launch) give the same report, cycle for cycle, and the
/// same outputs on any number of host threads.
#[test]
fn results_do_not_depend_on_host_threads() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../workloads");
    for (file, sms) in [
        ("histogram.json", 132),
        ("reduce.json", 132),
        ("sgemm_128.json", 7),
        // Block reductions (`bar.red`) and warp collectives.
        ("../sim-kernel/tests/data/warp-coll/warp_coll.json", 3),
    ] {
        same_on_any_threads(&root.join(file), sms);
    }
}

/// `--sample` on a launch of more than `SAMPLE_MIN_BLOCKS` blocks: the
/// outputs are exactly the full run's, the cycles an estimate within 3%
/// of its cycles, and it says what it timed.
#[test]
fn a_sampled_launch_keeps_its_values_and_estimates_its_cycles() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../workloads");
    let run = |sample: bool| {
        let cfg = sim_core::preset(sim_isa::Target::SM_90);
        let mut opts = RunOptions::new(cfg, sim_core::SchedPolicy::Lrr, 132);
        opts.sample = sample;
        opts.threads = 2;
        run_launch(&root.join("reduce.json"), &opts).unwrap()
    };
    let (full, sampled) = (run(false), run(true));
    assert!(full.timed.sampled.is_none());
    assert!(full.mismatches.is_empty() && sampled.mismatches.is_empty());
    assert_eq!(sampled.buffers, full.buffers);
    assert_eq!(sampled.instructions, full.instructions);
    let s = sampled.timed.sampled.expect("1024 blocks are sampled");
    // SAMPLE_SMS of them, spread over the GPU, and the report says which.
    assert_eq!(
        (s.timed_sms, &s.timed[..]),
        (SAMPLE_SMS, &[0, 33, 66, 99][..])
    );
    // Eight blocks each: 1,024 blocks give SMs 0-99 eight, the rest seven.
    assert_eq!(s.timed_blocks, 32, "{s:?}");
    assert!(s.ci95.is_finite(), "{s:?}");
    assert_within_3_percent(sampled.timed.cycles, full.timed.cycles);
}

/// A bare warp (one on an SM that `--sample` runs functionally, whose
/// straight lines `warp/bare.rs` runs in a loop of its own) counts what
/// it executes as a timed warp does: 300 blocks of one warp through a
/// loop of plain and shared-memory statements execute 212 statements
/// each, sampled or not, and write the loop's last value; one block that
/// never ends stops at the instruction limit either way.
#[test]
fn a_sampled_launch_counts_and_limits_statements_as_the_full_run() {
    // 3 + 4 statements, 40 passes of 5, 4 and `ret`: 212 a warp.
    let body = ".shared .align 4 .b32 s[32];\n\
        mov.u32 %r4, s;\nshl.b32 %r5, %r1, 2;\nadd.u32 %r4, %r4, %r5;\nmov.u32 %r3, 0;\n\
        L: add.u32 %r3, %r3, 1;\nst.shared.u32 [%r4], %r3;\nld.shared.u32 %r2, [%r4];\n\
        setp.lt.u32 %p1, %r2, 40;\n@%p1 bra L;\n\
        and.b32 %r6, %r1, 15;\nmul.wide.u32 %rd3, %r6, 4;\nadd.s64 %rd4, %rd2, %rd3;\n\
        st.global.u32 [%rd4], %r2;\nret;";
    // Block 1 (on SM 1, run functionally) loops for ever.
    let forever = format!(
        "mov.u32 %r7, %ctaid.x;\nsetp.eq.u32 %p2, %r7, 1;\n@%p2 bra F;\n{body}\n\
         F: add.u32 %r3, %r3, 1;\nst.shared.u32 [s], %r3;\nld.shared.u32 %r2, [s];\nbra F;"
    );
    let launch = spin_launch(300);
    let run = |body: &str, sample: bool, limit: u64| {
        let module = parse_module(&kernel_text(body), "k.ptx").unwrap();
        let prep = Prepared::new(&module, &launch, launch.load_buffers().unwrap()).unwrap();
        let mut o = crate::opts(132, 1);
        o.sample = sample;
        o.max_instructions = limit;
        run_grid(&prep, &launch, &o)
    };
    let (full, sampled) = (run(body, false, 1 << 40), run(body, true, 1 << 40));
    let (full, sampled) = (full.unwrap(), sampled.unwrap());
    assert!(sampled.timed.sampled.is_some());
    assert_eq!(
        (full.instructions, sampled.instructions),
        (300 * 212, 300 * 212)
    );
    let last = |r: &GridRun| r.global.regions[0].bytes[..4].to_vec();
    assert_eq!(
        (last(&full), last(&sampled)),
        (vec![40, 0, 0, 0], vec![40, 0, 0, 0])
    );
    for sample in [false, true] {
        let e = run(&forever, sample, 1_000_000).err();
        assert!(
            matches!(
                e,
                Some(KernelError::InstructionLimit {
                    limit: 1_000_000,
                    ..
                })
            ),
            "{e:?}"
        );
    }
}

/// A block the register file cannot hold is refused, as the CUDA runtime
/// refuses it: a warp's registers are allocated 256 at a time, so 64 a
/// thread over 32 warps is exactly the 65,536 and 65 (2,304 a warp) is
/// more. (How they limit the blocks an SM holds: `launches.rs`.)
#[test]
fn registers_limit_residency_and_refuse_a_block_too_large() {
    let src = block_kernel!("ret;\n}\n");
    let launch = |threads: u32, regs: u32| {
        Launch::parse(
            &format!(
                r#"{{"ptx": "k.ptx", "entry": "k", "grid": [4,1,1], "block": [{threads},1,1],
                   "buffers": {{"b": {{"bytes": 64, "fill": 0}}}}, "params": [{{"buffer": "b"}}],
                   "registers": {regs}}}"#
            ),
            Path::new("."),
        )
        .unwrap()
    };
    // 32 warps of 255 registers a thread: 8,192 a warp, four times the file.
    let e = run(src, &launch(1024, 255), 1).map(|_| ()).unwrap_err();
    assert!(
        e.to_string()
            .contains("needs 262144 registers; an SM has 65536"),
        "{e}"
    );
    assert!(run(src, &launch(1024, 64), 1).is_ok());
    let e = run(src, &launch(1024, 65), 1).map(|_| ()).unwrap_err();
    assert!(e.to_string().contains("needs 73728 registers"), "{e}");
}

/// Each thread runs four independent chains of `fma` (issue-bound when an
/// SM holds many warps) and stores their sum.
const CHAINS: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
.visible .entry k(.param .u64 p)\n{\n\
.reg .pred %p<2>; .reg .b32 %r<8>; .reg .f32 %f<8>; .reg .b64 %rd<8>;\n\
ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\n\
mov.u32 %r1, %ctaid.x;\nmov.u32 %r2, %tid.x;\nmad.lo.u32 %r3, %r1, 128, %r2;\n\
cvt.rn.f32.u32 %f1, %r3;\nmov.f32 %f2, %f1;\nmov.f32 %f3, %f1;\nmov.f32 %f4, %f1;\n\
mov.f32 %f5, 0f3F7FF000;\nmov.f32 %f6, 0f3F800000;\nmov.u32 %r4, 0;\n\
LOOP: fma.rn.f32 %f1, %f1, %f5, %f6;\nfma.rn.f32 %f2, %f2, %f5, %f6;\n\
fma.rn.f32 %f3, %f3, %f5, %f6;\nfma.rn.f32 %f4, %f4, %f5, %f6;\n\
add.u32 %r4, %r4, 1;\nsetp.lt.u32 %p1, %r4, 60;\n@%p1 bra LOOP;\n\
add.f32 %f1, %f1, %f2;\nadd.f32 %f3, %f3, %f4;\nadd.f32 %f1, %f1, %f3;\n\
mul.wide.u32 %rd3, %r3, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.f32 [%rd4], %f1;\nret;\n}\n";

/// `launch` of `module` on 16 SMs, sampled or not, on `threads` threads.
fn on_16_sms(
    module: &sim_module::Module,
    launch: &Launch,
    sample: bool,
    threads: usize,
) -> GridRun {
    let prep = Prepared::new(module, launch, launch.load_buffers().unwrap()).unwrap();
    let cfg = sim_core::preset(sim_isa::Target::SM_90);
    let mut opts = RunOptions::new(cfg, sim_core::SchedPolicy::Lrr, 16);
    opts.sample = sample;
    opts.threads = threads;
    run_grid(&prep, launch, &opts).unwrap()
}

/// The launch of two waves of the sampled tests below (260 blocks of 128
/// threads at 48 registers a thread) and its module.
fn two_waves() -> (Launch, sim_module::Module) {
    let launch = Launch::parse(
        r#"{"ptx": "k.ptx", "entry": "k", "grid": [260,1,1], "block": [128,1,1],
           "registers": 48,
           "buffers": {"b": {"bytes": 133120, "fill": 0}}, "params": [{"buffer": "b"}]}"#,
        Path::new("."),
    )
    .unwrap();
    (launch, parse_module(CHAINS, "k.ptx").unwrap())
}

/// `--sample` on a launch of more than one wave: 48 registers a thread
/// let an SM hold 10 blocks of 128 threads, so 16 SMs run 160 of the 260
/// blocks in a first wave and the other 100 in a thinner second one, whose
/// blocks, sharing their SM with fewer warps, end sooner. Each untimed
/// SM's blocks are held as long as its timed partner's corresponding
/// blocks, so the estimate follows the waves (held for the mean of the
/// timed blocks so far, as before, they gave 20% too many cycles).
#[test]
fn a_sampled_launch_of_two_waves_estimates_its_cycles() {
    let (launch, module) = two_waves();
    let run = |sample: bool, threads: usize| on_16_sms(&module, &launch, sample, threads);
    let full = run(false, 1);
    let sampled = run(true, 2);
    let out = |r: &GridRun| r.global.regions[0].bytes.clone();
    assert_eq!(out(&sampled), out(&full));
    assert!(
        out(&full).chunks(8).all(|c| c != [0; 8]),
        "every thread stored"
    );
    assert_eq!(sampled.instructions, full.instructions);
    let s = sampled.timed.sampled.expect("260 blocks are sampled");
    // SMs 0, 4, 8 and 12: SM 0 is dealt 17 blocks, the others 16.
    assert_eq!(s.timed, [0, 4, 8, 12], "{s:?}");
    assert_eq!(s.timed_blocks, 65, "{s:?}");
    // Every untimed SM's block had its partner's to follow.
    assert_eq!(s.modelled_by_mean, 0, "{s:?}");
    assert_within_3_percent(sampled.timed.cycles, full.timed.cycles);
    let one = run(true, 1);
    assert_eq!(one.timed.cycles, sampled.timed.cycles);
    assert_eq!(one.timed.stats, sampled.timed.stats);
}

/// Block `b` of 260 reads region `b % 157` of a table (4 KiB, a line at a
/// time) with arithmetic between the loads: the 160 blocks of the first
/// wave (16 SMs of 10, block `b` on SM `b % 16`) miss L2 on their own
/// regions, and each of the 100 of the second (dealt to the SMs as the
/// first wave's leave, block `b` to SM `b % 16`) reads block `b - 157`'s,
/// which SM `(b + 3) % 16` brought into L2.
const REGIONS: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
.visible .entry k(.param .u64 p, .param .u64 q)\n{\n\
.reg .pred %p<2>; .reg .b32 %r<8>; .reg .f32 %f<8>; .reg .b64 %rd<10>;\n\
ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\n\
ld.param.u64 %rd5, [q];\ncvta.to.global.u64 %rd6, %rd5;\n\
mov.u32 %r1, %ctaid.x;\nmov.u32 %r2, %tid.x;\nrem.u32 %r5, %r1, 157;\n\
mad.lo.u32 %r6, %r5, 1024, %r2;\nmov.f32 %f1, 0f00000000;\nmov.f32 %f5, 0f3F7FF000;\n\
mov.u32 %r4, 0;\n\
LOOP: mul.wide.u32 %rd7, %r6, 4;\nadd.s64 %rd8, %rd6, %rd7;\nld.global.f32 %f2, [%rd8];\n\
fma.rn.f32 %f1, %f1, %f5, %f2;\nfma.rn.f32 %f1, %f1, %f5, %f2;\nfma.rn.f32 %f1, %f1, %f5, %f2;\n\
fma.rn.f32 %f1, %f1, %f5, %f2;\nfma.rn.f32 %f1, %f1, %f5, %f2;\nfma.rn.f32 %f1, %f1, %f5, %f2;\n\
add.u32 %r6, %r6, 128;\nadd.u32 %r4, %r4, 1;\nsetp.lt.u32 %p1, %r4, 8;\n@%p1 bra LOOP;\n\
mad.lo.u32 %r3, %r1, 128, %r2;\nmul.wide.u32 %rd3, %r3, 4;\nadd.s64 %rd4, %rd2, %rd3;\n\
st.global.f32 [%rd4], %f1;\nret;\n}\n";

/// `--sample`'s untimed SMs bring their blocks' sectors into the L2
/// model as their partners' blocks reach the same point
/// (`memtime::L2Notes`): the timed SMs (0, 4, 8 and 12 of 16) hit
/// L2 as often as the same SMs in the full run (3,248 hits of 9,360
/// sectors; sampled 3,264), where without it their second-wave blocks,
/// whose regions untimed SMs read, miss (0 hits).
#[test]
fn a_sampled_launch_brings_untimed_blocks_lines_into_l2() {
    let launch = Launch::parse(
        r#"{"ptx": "k.ptx", "entry": "k", "grid": [260,1,1], "block": [128,1,1],
           "registers": 48,
           "buffers": {"b": {"bytes": 133120, "fill": 0}, "t": {"bytes": 655360, "fill": 0}},
           "params": [{"buffer": "b"}, {"buffer": "t"}]}"#,
        Path::new("."),
    )
    .unwrap();
    let module = parse_module(REGIONS, "k.ptx").unwrap();
    let run = |sample: bool, threads: usize| on_16_sms(&module, &launch, sample, threads);
    let (full, sampled) = (run(false, 1), run(true, 2));
    let timed = [0, 4, 8, 12];
    let hits = |r: &GridRun| -> (u64, u64) {
        let on = r.timed.per_sm.iter().filter(|p| timed.contains(&p.0));
        on.fold((0, 0), |(h, n), p| (h + p.2.l2.hits, n + p.2.l2.sectors))
    };
    let (fh, fs) = hits(&full);
    let (sh, ss) = hits(&sampled);
    let s = sampled.timed.sampled.as_ref().map(|s| &s.timed[..]);
    assert_eq!(s, Some(&timed[..]));
    // 65 blocks, eight loads of 16 sectors and a store of 16 each, less
    // the L1's hits.
    assert_eq!((fs, ss), (9_360, 9_360));
    assert!(
        fh > 0 && sh.abs_diff(fh) * 10 <= fh,
        "full {fh} sampled {sh}"
    );
    assert_within_3_percent(sampled.timed.cycles, full.timed.cycles);
    let one = run(true, 1);
    assert_eq!(one.timed.cycles, sampled.timed.cycles);
    assert_eq!(one.timed.per_sm.len(), sampled.timed.per_sm.len());
    assert_eq!(hits(&one), hits(&sampled));
}

/// `--sample`'s host threads take the timed SMs first, yet a failing
/// launch reports the error one thread meets first in SM order: blocks 1
/// (on SM 1, run functionally) and 4 (on SM 4, timed) both trap in the
/// first epoch, after a loop longer than the stretch a timed warp runs
/// ahead when its block is dealt, and block 1's is the error on one
/// thread and on two.
#[test]
fn a_sampled_launch_reports_the_first_error_in_sm_order_on_any_threads() {
    let src = ".version 8.0\n.target sm_90\n.address_size 64\n\
        .visible .entry k(.param .u64 p)\n{\n.reg .pred %p<4>; .reg .b32 %r<4>;\n\
        mov.u32 %r2, 0;\nLOOP: add.u32 %r2, %r2, 1;\nsetp.lt.u32 %p1, %r2, 12;\n@%p1 bra LOOP;\n\
        mov.u32 %r1, %ctaid.x;\nsetp.eq.u32 %p1, %r1, 1;\nsetp.eq.u32 %p2, %r1, 4;\n\
        or.pred %p3, %p1, %p2;\n@%p3 trap;\nret;\n}\n";
    let launch = Launch::parse(
        r#"{"ptx": "k.ptx", "entry": "k", "grid": [260,1,1], "block": [32,1,1],
           "buffers": {"b": {"bytes": 4, "fill": 0}}, "params": [{"buffer": "b"}]}"#,
        Path::new("."),
    )
    .unwrap();
    let module = parse_module(src, "k.ptx").unwrap();
    let prep = Prepared::new(&module, &launch, launch.load_buffers().unwrap()).unwrap();
    let cta = |threads: usize| {
        let cfg = sim_core::preset(sim_isa::Target::SM_90);
        let mut opts = RunOptions::new(cfg, sim_core::SchedPolicy::Lrr, 16);
        (opts.sample, opts.threads) = (true, threads);
        match run_grid(&prep, &launch, &opts).map(|_| ()).unwrap_err() {
            KernelError::Trap { at, .. } => at.cta,
            e => panic!("{e:?}"),
        }
    };
    assert_eq!(cta(1), [1, 0, 0]);
    assert_eq!(cta(2), [1, 0, 0]);
}

/// Two merged groups of broadcast shared loads, interleaved (as an
/// unrolled tile loop's rows): members read at their leader
/// (`engine/preload.rs`) give the values their own loads give, while the
/// loaded registers die on the way and liveness reuses their slots.
#[test]
fn members_read_at_their_leader_keep_their_values() {
    let mut body = String::new();
    for k in 0..4 {
        let (a, b) = (16 + 4 * k, 32 + 4 * k);
        body += &format!(
            "ld.shared.u32 %r{}, [S+{a}];\nld.shared.u32 %r{}, [S+{b}];\n\
             mad.lo.u32 %r20, %r20, 3, %r{};\nmad.lo.u32 %r20, %r20, 5, %r{};\n",
            10 + 2 * k,
            11 + 2 * k,
            10 + 2 * k,
            11 + 2 * k
        );
    }
    let src = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n\
         .visible .entry k(.param .u64 p)\n{{\n\
         .reg .b32 %r<24>; .reg .b64 %rd<8>;\n.shared .align 16 .b32 S[64];\n\
         ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r1, %tid.x;\n\
         shl.b32 %r2, %r1, 2;\nmov.u32 %r3, S;\nadd.s32 %r4, %r3, %r2;\n\
         mad.lo.u32 %r5, %r1, 7, 3;\nst.shared.u32 [%r4], %r5;\nst.shared.u32 [%r4+128], %r1;\n\
         bar.sync 0;\nmov.u32 %r20, %r1;\n{body}\
         mul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], %r20;\nret;\n}}\n"
    );
    let launch = Launch::parse(
        r#"{"ptx": "k.ptx", "entry": "k", "grid": [1,1,1], "block": [32,1,1],
           "buffers": {"b": {"bytes": 128, "fill": 0}}, "params": [{"buffer": "b"}]}"#,
        Path::new("."),
    )
    .unwrap();
    let r = run(&src, &launch, 1).unwrap();
    let b = &r.global.regions[0].bytes;
    let s = |i: u32| 7 * i + 3;
    for t in 0..32u32 {
        let mut acc = t;
        for k in 0..4 {
            acc = acc.wrapping_mul(3).wrapping_add(s(4 + k));
            acc = acc.wrapping_mul(5).wrapping_add(s(8 + k));
        }
        let got = u32::from_le_bytes(b[4 * t as usize..][..4].try_into().unwrap());
        assert_eq!(got, acc, "thread {t}");
    }
}

/// `--sample`'s untimed SMs make a block's warps as it first runs and
/// give them back at its end for the next block to run in: block 250,
/// dealt to untimed SM 10 in the second wave, runs in a first-wave
/// block's storage and ends with the registers the full run gives it, as
/// `--dump-regs` keeps them (before, an untimed block's were not kept).
#[test]
fn a_sampled_launch_keeps_an_untimed_blocks_registers() {
    let (launch, module) = two_waves();
    let run = |sample: bool, cta: u32| {
        let prep = Prepared::new(&module, &launch, launch.load_buffers().unwrap()).unwrap();
        let cfg = sim_core::preset(sim_isa::Target::SM_90);
        let mut opts = RunOptions::new(cfg, sim_core::SchedPolicy::Lrr, 16);
        opts.sample = sample;
        opts.threads = 2;
        opts.dump_block = Some(cta);
        let r = run_grid(&prep, &launch, &opts).unwrap();
        r.timed.regs.map(|b| (b.cta, b.warps))
    };
    for cta in [5, 250] {
        let full = run(false, cta);
        assert_eq!(full.as_ref().map(|f| f.1.len()), Some(4), "block {cta}");
        assert_eq!(run(true, cta), full, "block {cta}");
    }
}
