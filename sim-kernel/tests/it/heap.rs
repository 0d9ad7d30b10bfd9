//! Device `malloc` and `free` (and C++ `new`/`delete`: `sim_kernel::heap`):
//! `tests/data/heap` is CUDA C++ (`heap.cu`) compiled by nvcc 13.0.88 to
//! `heap.ptx`; the expected outputs are computed from the source's meaning
//! by `reference.py`, not by the simulator.

use crate::device::ints;
use crate::{in_crate, records_and_replays, same_on_any_threads};
use sim_kernel::heap::{DEFAULT_HEAP_BYTES, HEAP_NAME};
use sim_kernel::{run_launch, Device, DeviceError, KernelError, RunOptions};

const PTX: &str = include_str!("../data/heap/heap.ptx");

fn data(name: &str) -> std::path::PathBuf {
    in_crate("tests/data/heap", name)
}

/// The pointers `alloc_rw` left in `ptrs`: one a thread, 8 bytes each.
fn pointers(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// 256 threads on 4 SMs: each allocates, fills, reads its neighbour's
/// block, frees and allocates again (the reference's sums and flags); on
/// 1, 2 and 3 host threads every buffer is the same, the pointers too
/// (`same_on_any_threads`), on 1 SM as well. The pointers are 16-byte
/// aligned, distinct, inside the heap.
#[test]
fn malloc_write_read_free_the_same_on_any_threads() {
    for sms in [4, 1] {
        let one = same_on_any_threads(&data("heap.json"), sms);
        let ptrs = pointers(&one.buffers[0]);
        assert!(ptrs.iter().all(|&p| p != 0 && p % 16 == 0), "{ptrs:x?}");
        let mut sorted = ptrs.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 256, "{sms} SMs: distinct blocks");
        let span = sorted[255] - sorted[0];
        assert!(span < DEFAULT_HEAP_BYTES, "{span}");
    }
}

/// A recording replays: its `malloc`s give the recorded run's addresses
/// (the heap starts afresh and is served in the same order), so every
/// address and output matches and the cycles are the same.
#[test]
fn a_recording_with_malloc_replays() {
    records_and_replays(&data("heap.json"));
}

/// One thread on a fresh 8 MiB heap: a 4 MiB block, NULL for 6 MiB more,
/// a 2 MiB block, NULL for 3 MiB more, the freed 4 MiB reused for 3 MiB
/// (inside the old block), what it wrote read back, `new` and `delete`.
#[test]
fn null_when_exhausted_and_freed_memory_is_reused() {
    let r = run_launch(&data("exhaust.json"), &crate::opts(1, 1)).unwrap();
    assert!(r.mismatches.is_empty(), "{:?}", r.buffers[0]);
}

fn device() -> Device {
    let cfg = sim_core::preset(sim_isa::Target::SM_90);
    let mut opts = RunOptions::new(cfg, sim_core::SchedPolicy::Lrr, 4);
    opts.max_instructions = 10_000_000;
    Device::new(opts)
}

fn expected(name: &str) -> Vec<i32> {
    std::fs::read(data(name))
        .unwrap()
        .chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// On a device: the blocks `alloc_rw` allocated are read and freed by a
/// later kernel (`read_free`: each thread's last word holds its index);
/// the heap is then empty again, so `exhaust`'s 4 MiB and 2 MiB blocks
/// fit; the heap is counted once in the device's memory and its size
/// fixed once a kernel used it.
#[test]
fn a_later_kernel_reads_and_frees_what_one_allocated() {
    let mut d = device();
    assert!(d.set_heap_bytes(DEFAULT_HEAP_BYTES));
    let m = d.load_module("heap.ptx", PTX).unwrap();
    let ptrs = d.malloc(256 * 8).unwrap();
    let sums = d.malloc(256 * 4).unwrap();
    let again = d.malloc(256 * 4).unwrap();
    let seen = d.malloc(256 * 4).unwrap();
    let held = d.memory_held();
    let mut p = Vec::new();
    for a in [ptrs, sums, again] {
        p.extend_from_slice(&a.to_le_bytes());
    }
    d.launch(m, "_Z8alloc_rwPPiS_S_", [4, 1, 1], [64, 1, 1], 0, &p)
        .unwrap();
    assert_eq!(d.memory_held(), held + DEFAULT_HEAP_BYTES);
    assert!(
        !d.set_heap_bytes(1 << 20),
        "set after a kernel used the heap"
    );
    assert_eq!(ints(&d, sums, 256), expected("sums.expected.bin"));
    assert_eq!(ints(&d, again, 256), expected("again.expected.bin"));
    let p: Vec<u8> = [ptrs, seen].iter().flat_map(|a| a.to_le_bytes()).collect();
    d.launch(m, "_Z9read_freePPiS_", [4, 1, 1], [64, 1, 1], 0, &p)
        .unwrap();
    assert_eq!(ints(&d, seen, 256), (0..256).collect::<Vec<i32>>());
    let out = d.malloc(64).unwrap();
    d.launch(
        m,
        "_Z7exhaustPx",
        [1, 1, 1],
        [1, 1, 1],
        0,
        &out.to_le_bytes(),
    )
    .unwrap();
    let want = std::fs::read(data("exhaust.expected.bin")).unwrap();
    let mut got = vec![0u8; 64];
    d.read(out, &mut got).unwrap();
    assert_eq!(got, want);
    assert_eq!(d.memory_held(), held + 64 + DEFAULT_HEAP_BYTES);
}

/// A smaller heap set before the first kernel: `exhaust`'s first 4 MiB
/// block is NULL on a 2 MiB heap (its stores then fault, as on a GPU).
#[test]
fn the_heap_size_is_the_one_set() {
    let mut d = device();
    assert!(d.set_heap_bytes(2 << 20));
    let m = d.load_module("heap.ptx", PTX).unwrap();
    let out = d.malloc(64).unwrap();
    let e = d
        .launch(
            m,
            "_Z7exhaustPx",
            [1, 1, 1],
            [1, 1, 1],
            0,
            &out.to_le_bytes(),
        )
        .unwrap_err();
    let DeviceError::Kernel(k) = &e else {
        panic!("{e}");
    };
    assert!(matches!(**k, KernelError::Fault { .. }), "{e}");
    assert!(e.to_string().contains("at 0x3fffff"), "{e}");
    assert_eq!(HEAP_NAME, "(device malloc heap)");
}

/// `free` of an address inside a buffer (not from `malloc`): the launch
/// stops with an error naming the thread (3), the address and the call's
/// line in heap.ptx.
#[test]
fn freeing_what_malloc_did_not_give_is_an_error() {
    let mut d = device();
    let m = d.load_module("heap.ptx", PTX).unwrap();
    let buf = d.malloc(64).unwrap();
    let e = d
        .launch(
            m,
            "_Z8bad_freePi",
            [1, 1, 1],
            [32, 1, 1],
            0,
            &buf.to_le_bytes(),
        )
        .unwrap_err();
    let DeviceError::Kernel(k) = &e else {
        panic!("{e}");
    };
    let KernelError::BadFree { addr, at, .. } = &**k else {
        panic!("{e}");
    };
    let (thread, pos) = (&at.thread, &at.pos);
    assert_eq!((*addr, *thread), (buf + 4, 3));
    // The call statement starts at `call.uni`, the line (1-based) before
    // its callee's: the first `free,` after bad_free's `.entry`.
    let lines: Vec<&str> = PTX.lines().collect();
    let entry = lines
        .iter()
        .position(|l| l.contains("_Z8bad_freePi("))
        .unwrap();
    let callee = (entry
        + lines[entry..]
            .iter()
            .position(|l| l.trim() == "free,")
            .unwrap()) as u32;
    assert_eq!(pos.line, callee, "{e}");
    let text = e.to_string();
    assert!(
        text.contains("thread 3") && text.contains("heap.ptx:"),
        "{text}"
    );
}

/// The timing model's price of a call (docs/validation.md, "Device malloc
/// and free"): one warp making 64 malloc/free pairs between two clock
/// reads waits at each call for the epoch's end, so a call costs about
/// one epoch (`EPOCH`, 256 cycles) when nothing else runs.
#[test]
fn a_call_waits_for_the_epochs_end() {
    let mut d = device();
    let m = d.load_module("heap.ptx", PTX).unwrap();
    let out = d.malloc(16).unwrap();
    let mut p = out.to_le_bytes().to_vec();
    p.extend_from_slice(&64i32.to_le_bytes());
    d.launch(m, "_Z5churnPxi", [1, 1, 1], [1, 1, 1], 0, &p)
        .unwrap();
    let mut b = [0u8; 16];
    d.read(out, &mut b).unwrap();
    let cycles = i64::from_le_bytes(b[..8].try_into().unwrap());
    let per_call = cycles as f64 / 128.0;
    assert!(
        (0.9 * sim_kernel::EPOCH as f64..1.1 * sim_kernel::EPOCH as f64).contains(&per_call),
        "{cycles} cycles for 128 calls"
    );
}
