//! Cooperative groups' grid-wide sync (`tests/data/gridsync`): given a
//! grid workspace in `%envreg1`/`%envreg2`, as CUDA's runtime gives a
//! cooperative launch, every block of a resident grid waits at each
//! `this_grid().sync()` until all the others arrive (another SM's atomics
//! and writes reach it at the engine's epoch ends), with the same values
//! and cycles for any number of host threads; without one the kernel
//! traps, as on a GPU.

use crate::device::ints;
use sim_kernel::device::LaunchShape;
use sim_kernel::{Device, DeviceError, KernelError, LaunchExtras, Launched, RunOptions};

const PTX: &str = include_str!("../data/gridsync/gridsync.ptx");

/// What a launch of `twice` left: `out`, `buf`, the workspace's barrier
/// word, and the launch.
struct Ran {
    out: Vec<i32>,
    buf: Vec<i32>,
    barrier: u32,
    launched: Launched,
}

/// `twice` on `blocks` blocks of 256 threads over `sms` SMs and `threads`
/// host threads, `n` elements; with a workspace where `cooperative`.
fn run(
    sms: u32,
    threads: usize,
    blocks: u32,
    n: i32,
    cooperative: bool,
) -> Result<Ran, DeviceError> {
    let cfg = sim_core::preset(sim_isa::Target::SM_90);
    let mut opts = RunOptions::new(cfg, sim_core::SchedPolicy::Lrr, sms);
    opts.threads = threads;
    opts.max_instructions = 20_000_000;
    let mut d = Device::new(opts);
    let m = d.load_module("gridsync.ptx", PTX).unwrap();
    let (buf, out) = (
        d.malloc(4 * n as u64).unwrap(),
        d.malloc(4 * n as u64).unwrap(),
    );
    let ws = d.malloc(8).unwrap();
    let slots = d.params(m, "twice").unwrap();
    let mut params = vec![0u8; 20];
    for (s, v) in slots.iter().zip([
        buf.to_le_bytes().to_vec(),
        out.to_le_bytes().to_vec(),
        n.to_le_bytes().to_vec(),
    ]) {
        params[s.offset as usize..][..v.len()].copy_from_slice(&v);
    }
    let mut extras = LaunchExtras::default();
    if cooperative {
        (extras.envreg[1], extras.envreg[2]) = ((ws >> 32) as u32, ws as u32);
    }
    let shape = LaunchShape {
        grid: [blocks, 1, 1],
        block: [256, 1, 1],
        dynamic_shared: 0,
    };
    let launched = d.launch_with(m, "twice", shape, &params, &extras)?;
    Ok(Ran {
        out: ints(&d, out, n as usize),
        buf: ints(&d, buf, n as usize),
        barrier: ints(&d, ws + 4, 1)[0] as u32,
        launched,
    })
}

/// Each block reads, after each sync, what blocks on other SMs wrote
/// before it: the values are the kernel's own arithmetic for every
/// element, the same on 1 and 3 host threads, cycles included.
#[test]
fn every_block_reads_every_other_blocks_writes() {
    // 16 registers a thread (ptxas -v): 8 blocks of 256 threads a SM,
    // so 4 SMs hold all 32 blocks at once.
    let (blocks, n) = (32, 32 * 256 - 5);
    let one = run(4, 1, blocks, n, true).unwrap();
    for i in 0..n as usize {
        let o = |i: usize| 3 * (n - 1 - i as i32) + 1;
        assert_eq!(one.out[i], o(i), "out[{i}]");
        assert_eq!(one.buf[i], o((i + 7919) % n as usize) - o(i), "buf[{i}]");
    }
    // Each sync adds 2^31 to the barrier word (block 0 adds 2^31 + 1 - 32,
    // the others 1 each): twice, and it is back to 0.
    assert_eq!(one.barrier, 0);
    let three = run(4, 3, blocks, n, true).unwrap();
    assert_eq!((three.out, three.buf), (one.out, one.buf));
    assert_eq!(three.launched.timed.cycles, one.launched.timed.cycles);
    assert_eq!(three.launched.instructions, one.launched.instructions);
}

/// Launched without a workspace, `this_grid()` finds a null pointer and
/// traps: the launch fails naming the `trap`.
#[test]
fn without_a_workspace_the_kernel_traps() {
    let e = run(4, 1, 2, 512, false).err().expect("a trap");
    let DeviceError::Kernel(k) = &e else {
        panic!("{e}")
    };
    assert!(matches!(**k, KernelError::Trap { .. }), "{e}");
    assert!(
        e.to_string()
            .contains("`trap` stopped the kernel: block [0, 0, 0]"),
        "{e}"
    );
}
