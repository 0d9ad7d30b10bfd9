#![allow(missing_docs)] // criterion's macros generate undocumented items
//! Replay throughput: warp-instructions per second for each sample kernel and
//! a mixed `gen` trace, per preset. `cargo bench -p sim-cli --bench replay`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sim_isa::{execute, ExecCtx, Target, WarpRegs};
use sim_trace::gen::{generate, GenParams, Mix};
use sim_trace::replay::{simulate, RunOptions};
use sim_trace::trace::Trace;
use std::time::Duration;

fn bench_trace(c: &mut Criterion, name: &str, trace: &Trace) {
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Elements(trace.dynamic_total()));
    g.measurement_time(Duration::from_secs(3)).sample_size(10);
    for arch in ["sm_13", "sm_30", "sm_53", "sm_90"] {
        let target = Target::parse(arch).unwrap();
        if trace.check_target(target, trace.version).is_err() {
            continue;
        }
        let opts = RunOptions::new(target);
        if simulate(trace, &opts).is_err() {
            continue;
        }
        g.bench_function(arch, |b| b.iter(|| simulate(trace, &opts).unwrap()));
    }
    g.finish();
}

/// sim-isa's share alone: the same dynamic instructions executed warp after
/// warp with no timing model (what sim-core adds is the difference).
fn bench_execute_only(c: &mut Criterion, name: &str, trace: &Trace) {
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Elements(trace.dynamic_total()));
    g.measurement_time(Duration::from_secs(3)).sample_size(10);
    for arch in ["sm_53", "sm_90"] {
        let target = Target::parse(arch).unwrap();
        g.bench_function(arch, |b| {
            b.iter(|| {
                let mut last = WarpRegs::new(0);
                for (w, rec) in trace.warps.iter().enumerate() {
                    let mut regs = WarpRegs::new(trace.nregs());
                    let ctx = ExecCtx::new(target, w as u32);
                    let mut cur = trace.cursor(w);
                    while let Some(i) = cur.next_index() {
                        execute(&trace.insts[i as usize], &ctx, &mut regs, rec.mask);
                    }
                    last = regs;
                }
                last
            })
        });
    }
    g.finish();
}

fn benches(c: &mut Criterion) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../traces");
    let mut files: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    files.sort();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let t = sim_trace::kernel::parse_kernel(&f.display().to_string(), &text).unwrap();
        bench_trace(c, f.file_stem().unwrap().to_str().unwrap(), &t);
    }
    let g = generate(&GenParams {
        target: Target::SM_53,
        warps: 64,
        instructions: 20_000,
        mix: Mix::Mixed,
        dep_distance: 4,
        seed: 1,
    })
    .unwrap();
    bench_trace(c, "gen_mixed_64x20000", &g);
    bench_execute_only(c, "gen_mixed_64x20000_execute_only", &g);
}

criterion_group!(replay, benches);
criterion_main!(replay);
