#![allow(missing_docs)] // criterion's macros generate undocumented items
//! Launch throughput: warp-instructions per second of whole launches
//! (execution, timing and memory model together) through
//! `sim_kernel::run_launch`, with the options `simcli run X.json --arch sm_90`
//! builds. `cargo bench -p sim-cli --bench launch`.

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use sim_core::config_file;
use sim_core::SchedPolicy;
use sim_isa::Target;
use sim_kernel::RunOptions;
use std::path::PathBuf;
use std::time::Duration;

/// The launches (in `workloads/`), each with its sample count: a few
/// seconds of measurement each at today's speed.
const LAUNCHES: [(&str, usize); 3] = [("sgemm_256", 10), ("reduce", 10), ("histogram", 10)];

/// What `simcli run --arch sm_90` runs a launch file with: the sm_90 preset,
/// no configuration layers, lrr scheduling, one SM.
fn sm90_options() -> RunOptions {
    let (config, policy) = config_file::build(&[], Target::SM_90, SchedPolicy::Lrr);
    RunOptions::new(config, policy, 1)
}

fn benches(c: &mut Criterion) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../workloads");
    let opts = sm90_options();
    for (name, samples) in LAUNCHES {
        let path = root.join(format!("{name}.json"));
        // One run first: its warp-instruction count is the throughput's unit,
        // and its outputs must match the expected bytes.
        let run = sim_kernel::run_launch(&path, &opts).unwrap();
        assert!(run.mismatches.is_empty(), "{name}: outputs differ");
        let mut g = c.benchmark_group("launch");
        g.throughput(Throughput::Elements(run.instructions));
        // Flat: one run per sample (linear sampling would run 55).
        g.sampling_mode(SamplingMode::Flat)
            .sample_size(samples)
            .warm_up_time(Duration::from_millis(1))
            .measurement_time(Duration::from_secs(1));
        g.bench_function(name, |b| {
            b.iter(|| sim_kernel::run_launch(&path, &opts).unwrap())
        });
        g.finish();
    }
}

criterion_group!(launch, benches);
criterion_main!(launch);
