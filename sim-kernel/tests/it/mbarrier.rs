//! `mbarrier` in a launch: `tests/data/mbarrier/prodcons.cu` is CUDA C++
//! (`cuda::barrier<thread_scope_block>`: `init`, `arrive_and_wait`,
//! `arrive` + `wait`), which nvcc 13.0.88 compiles to `mbarrier.init`,
//! `mbarrier.arrive.shared::cta.b64` and a `mbarrier.try_wait` loop backing
//! off on `%globaltimer` with `nanosleep`. Warp 0 produces a tile per round
//! into shared memory, warps 1-3 consume it; expected outputs from
//! `reference.py` (the source's meaning; no H100 was at hand). The warps
//! spin on `try_wait` until the others arrive: the engine must run them in
//! turn and end.

use crate::records_and_replays;
use std::path::PathBuf;

fn launch() -> PathBuf {
    crate::in_crate("tests/data/mbarrier", "prodcons.json")
}

/// The reference's bytes on 1-3 SMs and 1-2 host threads, the cycles the
/// same on any number of threads.
#[test]
fn producer_consumer_matches_the_reference() {
    crate::matches_on_sms(&launch(), &[1, 2, 3], 1);
}

/// A recording replays to the same outputs and cycles (each lane's
/// `mbarrier` loads answered from the record).
#[test]
fn producer_consumer_records_and_replays() {
    records_and_replays(&launch());
}
