//! Criterion bench: a synthetic mixed workload (compares, selects, native and
//! emulated video) on each preset, 64 warps on one SM, execution included.
//! Throughput is reported in warp instructions.

#![allow(missing_docs)] // criterion_group! generates undocumented items
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sim_core::*;
use sim_isa::*;
use std::sync::Arc;

#[path = "../tests/it/insts.rs"]
#[allow(dead_code)] // what the tests use and this bench does not
mod insts;

use insts::{r, run_repeating, setp, video};

/// `selp.b32 d, a, b, c`, guarded by register 1.
fn selp(d: u32, a: u32, b: u32, c: u32) -> Instruction {
    Instruction {
        guard: Some(Guard {
            reg: r(1),
            negate: false,
        }),
        ..insts::selp(d, a, b, c)
    }
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("sm_mixed");
    const WARPS: u32 = 64;
    const REPS: u64 = 200;
    for t in [Target::SM_13, Target::SM_30, Target::SM_53, Target::SM_90] {
        let mut insts = vec![
            setp(1, 10, 11, None),
            selp(12, 10, 11, 1),
            setp(2, 12, 10, None),
            selp(13, 12, 11, 2),
        ];
        if t.supports(Feature::Video) {
            insts.push(video(VideoOp::Absdiff, Simd::X4, false, 14, 10, 11, 14));
            insts.push(video(VideoOp::Max, Simd::X4, false, 15, 14, 11, 15));
        }
        let body: Vec<u32> = (0..insts.len() as u32).collect();
        let prog = Arc::new(Program {
            target: t,
            insts,
            nregs: 16,
        });
        g.throughput(Throughput::Elements(
            WARPS as u64 * REPS * body.len() as u64,
        ));
        g.bench_function(t.to_string(), |b| {
            b.iter(|| {
                let mut sm = Sm::new(preset(t), prog.clone(), SchedPolicy::Gto).unwrap();
                run_repeating(&mut sm, WARPS, &body, REPS);
                sm.stats().cycles
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
