//! `mbarrier` in a launch: `tests/data/mbarrier/prodcons.cu` is CUDA C++
//! (`cuda::barrier<thread_scope_block>`: `init`, `arrive_and_wait`,
//! `arrive` + `wait`), which nvcc 13.0.88 compiles to `mbarrier.init`,
//! `mbarrier.arrive.shared::cta.b64` and a `mbarrier.try_wait` loop backing
//! off on `%globaltimer` with `nanosleep`. Warp 0 produces a tile per round
//! into shared memory, warps 1-3 consume it; expected outputs from
//! `reference.py` (the source's meaning; no H100 was at hand). The warps
//! spin on `try_wait` until the others arrive: the engine must run them in
//! turn and end.

use sim_kernel::record::{record_launch, replay_stream, RecordReader};
use sim_kernel::*;
use std::path::PathBuf;

fn launch() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/mbarrier/prodcons.json")
}

fn opts(sms: u32, threads: usize) -> RunOptions {
    let cfg = sim_core::preset(sim_isa::Target::SM_90);
    let mut o = RunOptions::new(cfg, sim_core::SchedPolicy::Lrr, sms);
    o.threads = threads;
    o
}

/// The reference's bytes on 1-3 SMs and 1-2 host threads, the cycles the
/// same on any number of threads.
#[test]
fn producer_consumer_matches_the_reference() {
    for sms in [1, 2, 3] {
        let one = run_launch(&launch(), &opts(sms, 1)).unwrap();
        assert_eq!(one.launch.expected.len(), 1);
        assert!(one.mismatches.is_empty(), "{sms} SMs: {:?}", one.mismatches);
        let two = run_launch(&launch(), &opts(sms, 2)).unwrap();
        assert_eq!(two.buffers, one.buffers, "{sms} SMs");
        assert_eq!(two.timed.cycles, one.timed.cycles, "{sms} SMs");
    }
}

/// A recording replays to the same outputs and cycles (each lane's
/// `mbarrier` loads answered from the record).
#[test]
fn producer_consumer_records_and_replays() {
    let o = opts(2, 2);
    let direct = run_launch(&launch(), &o).unwrap();
    let mut bytes = Vec::new();
    let rec = record_launch(&launch(), &o, &mut bytes, "r.bin").unwrap();
    assert_eq!(rec.run.buffers, direct.buffers);
    let rep = replay_stream(RecordReader::open("r.bin", &bytes[..]).unwrap(), &o).unwrap();
    assert!(rep.run.mismatches.is_empty(), "{:?}", rep.run.mismatches);
    assert_eq!(rep.run.timed.cycles, direct.timed.cycles);
}
