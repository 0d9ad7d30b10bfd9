//! sim-kernel: the H100 launches, values byte for byte.

// Many tests open alike (a launch file run on some SMs, its outputs and
// counters asserted), and `duplicates` pairs them by shape: the shared steps
// are the helpers below (`in_crate`, `matches_on_sms`, `records_and_replays`,
// `opts`); what repeats is each test's own launch and expected values
// (issue 27).

mod async_copy;
mod branches;
mod bulk_copy;
mod calls;
mod carry;
mod clock;
mod dead;
mod declarations;
mod device;
mod engine;
mod errors;
mod fuzz;
mod gate;
mod gridsync;
mod heap;
mod indirect;
mod launches;
mod mbarrier;
mod memcount;
mod params;
mod prefetch;
mod printf;
mod record;
mod stalls;
mod tanh;
mod warp_coll;
mod wmma;
mod wmma_more;

use sim_kernel::{run_grid, run_launch, timing, LaunchRun, Prepared, RunOptions};
use sim_module::{parse_module, Launch, Module};
use std::path::{Path, PathBuf};

/// File `name` in folder `dir` of this crate (`tests/data/calls`,
/// `../workloads`).
fn in_crate(dir: &str, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(dir).join(name)
}

/// `body` as kernel `k(.param .u64 p)` over a 64-byte buffer (`%rd2` points
/// at it, `%r1` is the thread's index) with `threads` threads: its module and
/// launch.
fn kernel(body: &str, threads: u32) -> (Module, Launch) {
    let src = kernel_text(&format!("{body}\nret;"));
    let module = parse_module(&src, "k.ptx").unwrap();
    (module, buffer_launch(threads))
}

/// The text of kernel `k(.param .u64 p)` running `body` (which returns)
/// with `%rd2` pointing at its buffer and `%r1` the thread's index.
fn kernel_text(body: &str) -> String {
    format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\
         .reg .pred %p<4>; .reg .b32 %r<8>; .reg .b64 %rd<8>;\n\
         ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r1, %tid.x;\n{body}\n}}\n"
    )
}

/// One block of `threads` threads running `k.ptx`'s `k` over a 64-byte
/// buffer `b` of zeros.
fn buffer_launch(threads: u32) -> Launch {
    Launch::parse(
        &format!(
            r#"{{"ptx": "k.ptx", "entry": "k", "grid": [1,1,1], "block": [{threads},1,1],
               "buffers": {{"b": {{"bytes": 64, "fill": 0}}}}, "params": [{{"buffer": "b"}}]}}"#
        ),
        Path::new("."),
    )
    .unwrap()
}

/// Options for an H100 (sm_90 preset, loose round robin) of `sms` SMs on
/// `threads` host threads.
fn opts(sms: u32, threads: usize) -> RunOptions {
    let cfg = sim_core::preset(sim_isa::Target::SM_90);
    let mut o = RunOptions::new(cfg, sim_core::SchedPolicy::Lrr, sms);
    o.threads = threads;
    o
}

/// `same_on_any_threads` of `path` on each SM count of `sms`, each run
/// with `outputs` expected buffers.
fn matches_on_sms(path: &Path, sms: &[u32], outputs: usize) {
    for &n in sms {
        let one = same_on_any_threads(path, n);
        assert_eq!(one.launch.expected.len(), outputs, "{n} SMs");
    }
}

/// Runs the launch file `path` on `sms` SMs and one host thread, which
/// must match its `expected` outputs; on 2 and 3 host threads the same
/// bytes, cycles, clock span and statistics. The one-thread run.
fn same_on_any_threads(path: &Path, sms: u32) -> LaunchRun {
    let run = |threads: usize| {
        run_launch(path, &opts(sms, threads)).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    let one = run(1);
    assert!(one.mismatches.is_empty(), "{sms} SMs: {:?}", one.mismatches);
    for threads in [2, 3] {
        let r = run(threads);
        assert_eq!(r.buffers, one.buffers, "{sms} SMs, {threads} threads");
        assert_eq!(
            r.timed.cycles, one.timed.cycles,
            "{sms} SMs, {threads} threads"
        );
        assert_eq!(
            r.timed.stats, one.timed.stats,
            "{sms} SMs, {threads} threads"
        );
        assert_eq!(r.timed.clock_span, one.timed.clock_span, "{sms} SMs");
    }
    one
}

/// Records the launch file `path` on 2 SMs and 2 host threads and replays
/// the recording (its loads answered from the record): the same outputs as
/// the direct run, none differing from the expected ones, the same cycles.
fn records_and_replays(path: &Path) {
    use sim_kernel::record::{record_launch, replay_stream, RecordReader};
    let o = opts(2, 2);
    let direct = run_launch(path, &o).unwrap();
    let mut bytes = Vec::new();
    let rec = record_launch(path, &o, &mut bytes, "r.bin").unwrap();
    assert_eq!(rec.run.buffers, direct.buffers);
    let rep = replay_stream(RecordReader::open("r.bin", &bytes[..]).unwrap(), &o).unwrap();
    assert!(rep.run.mismatches.is_empty(), "{:?}", rep.run.mismatches);
    assert_eq!(rep.run.timed.cycles, direct.timed.cycles);
}

/// Cycles of a one-warp kernel running `body` over a 64-byte buffer, with a
/// redirect of `taken` clocks.
fn cycles(body: &str, taken: u32) -> u64 {
    timed(body, taken).cycles
}

/// The timing of a one-warp kernel running `body` over a 64-byte buffer,
/// with a redirect of `taken` clocks.
fn timed(body: &str, taken: u32) -> timing::Timed {
    let (module, launch) = kernel(body, 32);
    let prep = Prepared::new(&module, &launch, launch.load_buffers().unwrap()).unwrap();
    let mut cfg = sim_core::preset(sim_isa::Target::SM_90);
    cfg.taken_branch_cycles = taken;
    let mut opts = RunOptions::new(cfg, sim_core::SchedPolicy::Lrr, 1);
    opts.max_instructions = 100_000;
    run_grid(&prep, &launch, &opts).unwrap().timed
}
