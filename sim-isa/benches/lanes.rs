//! Warp-instructions per second for each instruction family, executed over
//! all 32 lanes (acceptance 7). Criterion's `elem/s` is warp-instructions
//! per second: one element = one `execute` of one instruction on a warp.
//!
//! `cargo bench -p sim-isa --bench lanes -- --quick` for a short run.

// criterion_group!/criterion_main! generate undocumented items.
#![allow(missing_docs)]

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use sim_isa::parse::parse_for_target;
use sim_isa::{execute, ExecCtx, Symbols, Target, WarpRegs, WARP_SIZE};
use std::time::Duration;

/// (benchmark name, instruction text). Register names carry no types, so one
/// set of pseudo-random values serves every family; predicates are 0/1.
const CASES: &[(&str, &str)] = &[
    ("vadd2", "vadd2.s32.s32.u32.sat %d, %a, %b, %c;"),
    ("vsub2", "vsub2.u32.s32.s32 %d.h10, %a.h21, %b.h03, %c;"),
    ("vavrg2", "vavrg2.s32.s32.s32 %d, %a, %b, %c;"),
    ("vabsdiff2", "vabsdiff2.u32.u32.u32.add %d, %a, %b, %c;"),
    ("vmin2", "vmin2.s32.u32.s32.sat %d.h1, %a, %b, %c;"),
    ("vmax2", "vmax2.u32.u32.u32 %d, %a, %b, %c;"),
    ("vset2", "vset2.s32.u32.lt %d, %a, %b, %c;"),
    ("vadd4", "vadd4.s32.s32.u32.sat %d, %a, %b, %c;"),
    (
        "vsub4",
        "vsub4.u32.s32.s32 %d.b310, %a.b7320, %b.b0145, %c;",
    ),
    ("vavrg4", "vavrg4.s32.s32.s32 %d, %a, %b, %c;"),
    ("vabsdiff4", "vabsdiff4.u32.u32.u32.add %d, %a, %b, %c;"),
    ("vmin4", "vmin4.s32.u32.s32.sat %d, %a, %b, %c;"),
    ("vmax4", "vmax4.u32.u32.u32 %d, %a, %b, %c;"),
    ("vset4", "vset4.u32.s32.ge.add %d, %a, %b, %c;"),
    ("set.s32", "set.lt.and.u32.s32 %d, %a, %b, %p;"),
    ("set.f32", "set.ltu.ftz.f32.f32 %d, %a, %b;"),
    ("set.f64", "set.num.xor.s32.f64 %d, %x, %y, !%p;"),
    ("setp.u32", "setp.hi.u32 %p|%q, %a, %b;"),
    ("setp.f32", "setp.geu.or.f32 %p|%q, %a, %b, %g;"),
    ("selp.b32", "selp.b32 %d, %a, %b, %p;"),
    ("selp.f64", "selp.f64 %x, %y, %z, !%p;"),
    ("slct.s32", "slct.u32.s32 %d, %a, %b, %c;"),
    ("slct.f32", "slct.ftz.f32.f32 %d, %a, %b, %c;"),
    ("hset.f16", "set.lt.and.f16.f16 %h, %i, %j, %p;"),
    ("hset.f16x2", "set.gtu.ftz.f16x2.f16x2 %d, %a, %b;"),
    ("hset.u32.bf16x2", "set.le.u32.bf16x2 %d, %a, %b;"),
    ("hset.bf16", "set.num.xor.s32.bf16 %d, %i, %j, %p;"),
    // A supporting integer op, as a floor for the per-warp overhead.
    ("alu.add", "add.u32 %d, %a, %b;"),
];

fn lanes(c: &mut Criterion) {
    let mut group = c.benchmark_group("warp");
    group.throughput(Throughput::Elements(1));
    let ctx = ExecCtx::new(Target::SM_90, 0);
    for (name, text) in CASES {
        let mut syms = Symbols::new();
        let inst = parse_for_target(text, &mut syms, Target::SM_90, None)
            .unwrap_or_else(|e| panic!("`{text}`: {e}"));
        let mut regs = filled(&syms);
        group.bench_function(*name, |b| {
            b.iter(|| {
                execute(
                    black_box(&inst),
                    &ctx,
                    black_box(&mut regs),
                    black_box(u32::MAX),
                )
            })
        });
    }
    // Every case above back to back: the average cost in a mixed stream.
    let mut syms = Symbols::new();
    let all: Vec<_> = CASES
        .iter()
        .map(|(_, t)| parse_for_target(t, &mut syms, Target::SM_90, None).expect("bench text"))
        .collect();
    let mut regs = filled(&syms);
    group.throughput(Throughput::Elements(all.len() as u64));
    group.bench_function("mixed (all above, round robin)", |b| {
        b.iter(|| {
            for inst in &all {
                execute(
                    black_box(inst),
                    &ctx,
                    black_box(&mut regs),
                    black_box(u32::MAX),
                )
            }
        })
    });
    group.finish();
}

/// A register file with pseudo-random values at each register's width.
fn filled(syms: &Symbols) -> WarpRegs {
    let mut regs = WarpRegs::new(syms.len());
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    for id in syms.ids() {
        let pred = syms.name(id).starts_with("%p")
            || syms.name(id).starts_with("%q")
            || syms.name(id) == "%g";
        for lane in 0..WARP_SIZE {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let w = if syms.name(id).starts_with("%h")
                || syms.name(id) == "%i"
                || syms.name(id) == "%j"
            {
                x & 0xFFFF
            } else if matches!(syms.name(id), "%x" | "%y" | "%z") {
                x
            } else {
                x & 0xFFFF_FFFF
            };
            regs.set_lane(id, lane, if pred { x & 1 } else { w });
        }
    }
    regs
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .sample_size(30);
    targets = lanes
}
criterion_main!(benches);
