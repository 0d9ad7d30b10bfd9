//! Bounds: run limits stop unbounded kernels with their partial statistics,
//! a refused worker thread is an error, and memory does not grow with the
//! SM count.

use crate::core_model::set_u32;
use sim_core::*;
use sim_isa::*;
use std::sync::Arc;

/// A one-instruction dependent chain (`r1 = r1 < r2`), `n` instructions long
/// per `RepeatStream`.
fn chain(t: Target) -> Arc<Program> {
    Arc::new(Program {
        target: t,
        insts: vec![set_u32(1, 1, 2)],
        nregs: 4,
    })
}

fn launch(warp_id: u32, times: u64) -> WarpLaunch {
    WarpLaunch {
        warp_id,
        active: u32::MAX,
        stream: Box::new(RepeatStream::new(vec![0u32], times)),
    }
}

fn limited(t: Target, limits: Limits) -> SmConfig {
    let mut c = preset(t);
    c.limits = limits;
    c
}

/// Runs one SM; returns the limit and partial report of its stop.
fn stop(cfg: SmConfig, warps: u32, times: u64) -> (Limit, Report) {
    let mut sm = Sm::new(cfg, chain(Target::SM_90), SchedPolicy::Lrr).unwrap();
    for w in 0..warps {
        sm.add_warp(launch(w, times)).unwrap();
    }
    match sm.run_to_completion() {
        Err(SimError::LimitExceeded { limit, partial }) => {
            assert!(!sm.is_done());
            assert_eq!(partial.stats, sm.stats(), "the partial stats are the SM's");
            (limit, *partial)
        }
        other => panic!("expected a limit stop, got {other:?}"),
    }
}

#[test]
fn endless_kernel_stops_at_the_instruction_limit() {
    let cfg = limited(
        Target::SM_90,
        Limits {
            max_cycles: u64::MAX,
            max_instructions: 1000,
        },
    );
    let (limit, r) = stop(cfg.clone(), 8, u64::MAX);
    assert_eq!(limit, Limit::Instructions(1000));
    let s = &r.stats;
    // Checked between clocks: at most one clock's issues past the limit.
    let per_clock = (cfg.schedulers * cfg.issue_width) as u64;
    assert!(
        (1000..1000 + per_clock).contains(&s.warp_instructions),
        "{}",
        s.warp_instructions
    );
    assert_eq!(s.per_opcode["set"].count, s.warp_instructions);
    assert_eq!(s.thread_instructions, 32 * s.warp_instructions);
    assert!(s.cycles > 0 && s.stalls.issued > 0);
    let msg = SimError::LimitExceeded {
        limit,
        partial: Box::new(r.clone()),
    }
    .to_string();
    assert!(msg.contains("max_instructions = 1000"), "{msg}");
}

#[test]
fn endless_kernel_stops_at_the_cycle_limit_exactly() {
    for (t, interval) in [(Target::SM_90, 1), (Target::SM_13, 4)] {
        let cfg = limited(
            t,
            Limits {
                max_cycles: 5001,
                max_instructions: u64::MAX,
            },
        );
        assert_eq!(cfg.issue_interval, interval);
        let mut sm = Sm::new(cfg.clone(), chain(t), SchedPolicy::Gto).unwrap();
        sm.add_warp(launch(0, u64::MAX)).unwrap();
        let Err(SimError::LimitExceeded { limit, partial }) = sm.run_to_completion() else {
            panic!("expected a limit stop");
        };
        assert_eq!(limit, Limit::Cycles(5001));
        let s = &partial.stats;
        assert_eq!(s.cycles, 5001);
        // Every issue slot of clocks 0..5001 is accounted, skipped ones included.
        let slots = 5001u64.div_ceil(interval as u64);
        assert_eq!(s.stalls.total(), slots * cfg.schedulers as u64, "{t}");
        // A dependent chain: one instruction per result delay, from clock 0.
        let c = lowering::cost(cfg.lowering, &chain(t).insts[0]);
        let lat = cfg.units.int_cmp.latency as u64;
        let delay = ((c.steps as u64 - 1) * lat).max(c.uops as u64 - 1) + lat;
        assert_eq!(s.warp_instructions, 5001u64.div_ceil(delay), "{t}");
    }
}

#[test]
fn limits_only_stop_runs_with_work_left() {
    let run = |max_instructions: u64| {
        let cfg = limited(
            Target::SM_53,
            Limits {
                max_cycles: u64::MAX,
                max_instructions,
            },
        );
        let mut sm = Sm::new(cfg, chain(Target::SM_53), SchedPolicy::Lrr).unwrap();
        sm.add_warp(launch(0, 50)).unwrap();
        sm.run_to_completion().map(|()| sm.stats())
    };
    let full = run(50).unwrap();
    assert_eq!(full.warp_instructions, 50);
    assert_eq!(Some(full), run(u64::MAX).ok());
    assert!(matches!(
        run(49),
        Err(SimError::LimitExceeded {
            limit: Limit::Instructions(49),
            ..
        })
    ));
    assert_eq!(preset(Target::SM_53).limits, Limits::DEFAULT);
}

/// Four SMs; the warp on SM 2 never ends.
fn endless_on_sm_2(threads: usize) -> Result<Report, SimError> {
    let cfg = limited(
        Target::SM_90,
        Limits {
            max_cycles: 20_000,
            max_instructions: u64::MAX,
        },
    );
    let mut sim = Simulation::new(cfg, chain(Target::SM_90), SchedPolicy::Gto, 4).unwrap();
    for w in 0..8u32 {
        let times = if w == 2 { u64::MAX } else { 100 + w as u64 };
        sim.add_warp(launch(w, times)).unwrap();
    }
    sim.run(threads)
}

#[test]
fn simulation_limit_carries_every_sm_and_is_thread_independent() {
    let Err(SimError::LimitExceeded { limit, partial }) = endless_on_sm_2(1) else {
        panic!("expected a limit stop");
    };
    assert_eq!(limit, Limit::Cycles(20_000));
    assert_eq!(partial.sms, 4);
    assert_eq!(partial.per_sm.len(), 4);
    assert_eq!(partial.per_sm[2].cycles, 20_000);
    for (i, s) in partial.per_sm.iter().enumerate() {
        if i != 2 {
            // The other SMs ran to their end: both their warps' instructions.
            let want = (100 + i as u64) + (100 + i as u64 + 4);
            assert_eq!(s.warp_instructions, want, "SM {i}");
            assert!(s.cycles < 20_000);
        }
    }
    assert_eq!(partial.stats, Stats::merge(&partial.per_sm));
    for threads in [2, 3, 4] {
        assert_eq!(
            endless_on_sm_2(threads),
            Err(SimError::LimitExceeded {
                limit,
                partial: partial.clone()
            }),
            "{threads} threads"
        );
    }
}

#[test]
fn refused_worker_thread_is_an_error() {
    let mut sim = Simulation::new(
        preset(Target::SM_90),
        chain(Target::SM_90),
        SchedPolicy::Lrr,
        4,
    )
    .unwrap();
    for w in 0..4 {
        sim.add_warp(launch(w, 10)).unwrap();
    }
    // 1 PiB of stack: more than any address space grants.
    sim.set_worker_stack_size(Some(1 << 50));
    match sim.run(4) {
        Err(SimError::ThreadSpawn { index, threads, .. }) => {
            assert_eq!((index, threads), (0, 4));
        }
        other => panic!("expected a spawn error, got {other:?}"),
    }
    // Nothing ran; with the default stack the same run completes.
    sim.set_worker_stack_size(None);
    let done = sim.run(4).unwrap();
    assert_eq!(done.stats.warp_instructions, 40);
}

/// `n` distinct instructions (their `b` registers differ).
fn long_program(n: usize) -> Arc<Program> {
    Arc::new(Program {
        target: Target::SM_90,
        insts: (0..n).map(|i| set_u32(1, 2, 3 + (i % 60) as u32)).collect(),
        nregs: 64,
    })
}

#[test]
fn memory_does_not_grow_with_the_sm_count() {
    let cfg = preset(Target::SM_90);
    let big = long_program(20_000);
    let empty_small = Sm::new(cfg.clone(), long_program(1), SchedPolicy::Lrr).unwrap();
    let mut sim = Simulation::new(cfg, big, SchedPolicy::Lrr, 4096).unwrap();
    let body: Vec<u32> = (0..20_000).collect();
    sim.add_warp(WarpLaunch {
        warp_id: 0,
        active: u32::MAX,
        stream: Box::new(VecStream::new(body)),
    })
    .unwrap();
    // An SM without warps holds the same whatever the program's length.
    let idle = sim.sms_mut()[1].state_bytes();
    assert_eq!(idle, empty_small.state_bytes());
    assert!(idle < 4096, "{idle} bytes per idle SM");
    // The program's tables exist once: the whole simulation stays far below
    // one table per SM (4096 x 20,000 entries of about 100 bytes = 8 GB).
    let total = sim.state_bytes();
    let tables = sim.tables().heap_bytes();
    assert!(tables > 20_000 * 64, "{tables}");
    assert!(total < tables + 4096 * idle + (1 << 20), "{total}");
    assert!(total < 64 << 20, "{total} bytes");
    let r = sim.run(2).unwrap();
    assert_eq!(r.stats.warp_instructions, 20_000);
    // The process's peak resident memory, where Linux reports it: one table
    // per SM took 6.8 GB here.
    if let Ok(status) = std::fs::read_to_string("/proc/self/status") {
        let peak_kb: u64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmHWM in /proc/self/status");
        assert!(peak_kb < 1 << 20, "peak RSS {peak_kb} kB");
    }
}
