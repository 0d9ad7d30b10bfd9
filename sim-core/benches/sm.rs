//! Criterion bench: a synthetic mixed workload (compares, selects, native and
//! emulated video) on each preset, 64 warps on one SM, execution included.
//! Throughput is reported in warp instructions.

#![allow(missing_docs)] // criterion_group! generates undocumented items
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sim_core::*;
use sim_isa::*;
use std::sync::Arc;

fn r(n: u32) -> RegId {
    RegId(n)
}

fn setp(p: u32, a: u32, b: u32) -> Instruction {
    Instruction {
        guard: None,
        op: Op::Setp(Setp {
            cmp: CmpOp::Lt,
            bool_op: None,
            ftz: false,
            ty: Type::U32,
            p: Some(r(p)),
            q: None,
            a: Operand::Reg(r(a)),
            b: Operand::Reg(r(b)),
        }),
    }
}

fn selp(d: u32, a: u32, b: u32, c: u32) -> Instruction {
    Instruction {
        guard: Some(Guard {
            reg: r(1),
            negate: false,
        }),
        op: Op::Selp(Selp {
            ty: Type::B32,
            d: r(d),
            a: Operand::Reg(r(a)),
            b: Operand::Reg(r(b)),
            c: PredSrc::Reg {
                reg: r(c),
                negate: false,
            },
        }),
    }
}

fn video(op: VideoOp, d: u32, a: u32, b: u32) -> Instruction {
    Instruction {
        guard: None,
        op: Op::Video(Video {
            op,
            simd: Simd::X4,
            dsigned: false,
            asigned: false,
            bsigned: false,
            sat: false,
            add: false,
            mask: 0b1111,
            mask_explicit: false,
            asel: [0, 1, 2, 3],
            bsel: [4, 5, 6, 7],
            asel_explicit: false,
            bsel_explicit: false,
            sat_first: false,
            d: r(d),
            a: r(a),
            b: r(b),
            c: r(d),
        }),
    }
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("sm_mixed");
    const WARPS: u32 = 64;
    const REPS: u64 = 200;
    for t in [Target::SM_13, Target::SM_30, Target::SM_53, Target::SM_90] {
        let mut insts = vec![
            setp(1, 10, 11),
            selp(12, 10, 11, 1),
            setp(2, 12, 10),
            selp(13, 12, 11, 2),
        ];
        if t.supports(Feature::Video) {
            insts.push(video(VideoOp::Absdiff, 14, 10, 11));
            insts.push(video(VideoOp::Max, 15, 14, 11));
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
                for w in 0..WARPS {
                    let stream = Box::new(RepeatStream::new(body.clone(), REPS));
                    sm.add_warp(WarpLaunch {
                        warp_id: w,
                        active: u32::MAX,
                        stream,
                    })
                    .unwrap();
                }
                sm.run_to_completion().unwrap();
                sm.stats().cycles
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
