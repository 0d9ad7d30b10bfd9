//! Kernels that go wrong end with a clear error: out-of-bounds and
//! misaligned accesses name the instruction, block, warp, lane and address;
//! a barrier some warps never reach is a deadlock; a loop that never ends
//! stops at the instruction limit.

use sim_kernel::*;

/// Runs `body` as kernel `k(.param .u64 p)` over a 64-byte buffer with `threads` threads.
fn run(body: &str, threads: u32, limit: u64) -> Result<GridRun, KernelError> {
    let (module, launch) = crate::kernel(body, threads);
    let prep = Prepared::new(&module, &launch, launch.load_buffers().unwrap()).unwrap();
    let cfg = sim_core::preset(sim_isa::Target::SM_90);
    let mut opts = RunOptions::new(cfg, sim_core::SchedPolicy::Lrr, 1);
    opts.max_instructions = limit;
    // Keep each warp's record (the tests read the steps it took).
    opts.log_loads = true;
    run_grid(&prep, &launch, &opts)
}

#[test]
fn out_of_bounds_store_names_lane_and_address() {
    // Lane 16 stores at byte 64: one past the buffer.
    let e = run(
        "mul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], %r1;",
        32,
        1000,
    )
    .err()
    .unwrap();
    let msg = e.to_string();
    assert!(
        matches!(
            e,
            KernelError::Fault {
                at: sim_kernel::Site {
                    warp: 0,
                    thread: 16,
                    ..
                },
                ..
            }
        ),
        "{msg}"
    );
    assert!(
        msg.contains("out-of-bounds 4-byte global access at 0x7f0000000040 by lane 16"),
        "{msg}"
    );
    assert!(
        msg.contains("st.global.u32 [%rd4], %r1") && msg.contains("k.ptx:12:1"),
        "{msg}"
    );
}

#[test]
fn misaligned_load_is_an_error() {
    let e = run("ld.global.u32 %r2, [%rd2+2];", 1, 1000).err().unwrap();
    assert!(
        e.to_string()
            .contains("misaligned 4-byte global access at 0x7f0000000002 by lane 0"),
        "{e}"
    );
}

#[test]
fn barrier_that_a_warp_never_reaches_ends_at_the_limit_naming_the_waiters() {
    // A warp that has exited no longer counts (as on sm_70 and later):
    // warp 1 exits, warp 0's barrier opens.
    let exits = "setp.ge.u32 %p1, %r1, 32;\n@%p1 bra B;\nbar.sync 0;\nB: ret;";
    assert!(run(exits, 64, 1000).is_ok());
    // Warp 1 spins forever: warp 0 waits at the barrier until the limit.
    let spin = "setp.lt.u32 %p1, %r1, 32;\n@%p1 bra A;\nL: bra L;\nA: bar.sync 0;";
    let e = run(spin, 64, 10_000).err().unwrap();
    assert!(
        matches!(&e, KernelError::InstructionLimit { limit: 10_000, waiting } if waiting == &[0]),
        "{e}"
    );
    let msg = e.to_string();
    assert!(
        msg.contains("--max-instructions")
            && msg.contains("warps [0] of the block were waiting at a barrier"),
        "{msg}"
    );
}

#[test]
fn infinite_loop_stops_at_the_instruction_limit() {
    let e = run("L: add.u32 %r2, %r2, 1;\nbra L;", 32, 5000)
        .err()
        .unwrap();
    assert!(matches!(
        e,
        KernelError::InstructionLimit { limit: 5000, .. }
    ));
}

#[test]
fn divergent_lanes_reconverge_and_each_computes_its_own_value() {
    // Odd lanes add 100, even lanes 7; all store after reconverging.
    let body = "and.b32 %r2, %r1, 1;\nsetp.eq.u32 %p1, %r2, 1;\n@%p1 bra ODD;\nadd.u32 %r3, %r1, 7;\nbra J;\n\
                ODD: add.u32 %r3, %r1, 100;\nJ: mul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], %r3;";
    let run = run(body, 16, 1000).unwrap();
    let b = &run.global.regions[0].bytes;
    for t in 0..16u32 {
        let v = u32::from_le_bytes(b[4 * t as usize..4 * t as usize + 4].try_into().unwrap());
        assert_eq!(v, if t % 2 == 1 { t + 100 } else { t + 7 }, "thread {t}");
    }
    // The store ran once for the whole warp: the paths reconverged at J.
    let w = &run.recorded[0];
    let stores = w
        .accesses
        .iter()
        .filter(|a| a.space == sim_kernel::record::RecSpace::Global)
        .filter(|a| w.steps[a.step as usize].1 == 0xffff)
        .count();
    assert_eq!(stores, 1);
}
