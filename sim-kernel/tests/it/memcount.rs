//! The memory model's counters (`sim_kernel::memstats`) and the occupancy
//! against hand-computed figures. `tests/data/memcount/memcount.ptx` is
//! written by hand (ptxas 13.0.88 accepts it for sm_90); its launch files
//! run one block on one SM, so every line and sector starts cold (the
//! model's L1 and L2 are empty at launch, memtime.rs), and the buffers'
//! bases are 256-byte aligned (`memory::Global`), so a warp's 128
//! consecutive bytes are one line of four 32-byte sectors.

use sim_kernel::memstats::{Limiter, MemStats, RegSource};
use sim_kernel::*;
use std::path::PathBuf;

fn data(name: &str) -> PathBuf {
    crate::in_crate("tests/data/memcount", name)
}

fn run(name: &str, registers: Option<u32>) -> LaunchRun {
    let cfg = sim_core::preset(sim_isa::Target::SM_90);
    let mut o = RunOptions::new(cfg, sim_core::SchedPolicy::Lrr, 1);
    o.registers = registers;
    let r = run_launch(&data(name), &o).unwrap();
    assert!(r.mismatches.is_empty(), "{name}: {:?}", r.mismatches);
    r
}

/// The counters every SM reported add up to the launch's.
fn check_sum(r: &LaunchRun) {
    assert_eq!(r.timed.per_sm.len(), 1);
    assert_eq!(
        MemStats::sum(r.timed.per_sm.iter().map(|p| &p.2)),
        r.timed.memory
    );
}

/// The sectors each memory statement touched (`lines`' `sectors`), in
/// program order, leaving out the statements with none; they add up to
/// the L1's count.
fn stmt_sectors(r: &LaunchRun) -> Vec<u64> {
    let per: Vec<u64> = (r.timed.stats.per_inst.iter())
        .map(|p| p.sectors)
        .filter(|&n| n > 0)
        .collect();
    assert_eq!(per.iter().sum::<u64>(), r.timed.memory.l1.sectors);
    per
}

/// A coalesced stream: 4 warps of 32 lanes, each lane one 4-byte word.
/// Each warp's load is one request for one line: 4 sectors. The first
/// load misses all 4x4 = 16 sectors in L1 and in L2 (16 from DRAM, 4 L2
/// requests); the second load of the same words hits all 16 in L1 (they
/// are being filled: ready then). The store is 4 requests of 4 sectors,
/// written through to L2 (16 more L2 misses, 4 requests), neither hit
/// nor miss in L1. L1: 12 requests, 48 sectors, 16 hits, 16 misses,
/// 48 x 32 = 1,536 bytes, 48 / 12 = 4 sectors a request; L2: 8 requests,
/// 32 sectors, 32 misses; DRAM: 32 sectors.
#[test]
fn a_coalesced_stream_takes_four_sectors_a_request() {
    let r = run("coalesced.json", None);
    check_sum(&r);
    let m = r.timed.memory;
    assert_eq!(
        (m.l1.requests, m.l1.sectors, m.l1.hits, m.l1.misses),
        (12, 48, 16, 16)
    );
    assert_eq!(m.l1_bytes(), 1536);
    assert_eq!(m.l1_hit_rate(), 0.5);
    assert_eq!(m.sectors_per_request(), 4.0);
    assert_eq!(
        (
            m.l2.requests,
            m.l2.sectors,
            m.l2.hits,
            m.l2.misses,
            m.l2.atomics
        ),
        (8, 32, 0, 32, 0)
    );
    assert_eq!(m.dram.sectors, 32);
    assert_eq!(m.shared, Default::default());
    assert_eq!(m.constant, Default::default());
    // Per statement: the two loads and the store, 4 warps x 4 sectors each.
    assert_eq!(stmt_sectors(&r), [16, 16, 16]);
}

/// A strided stream: lane i loads word 32 i, each lane in a line of its
/// own. Each warp's load is one request for 32 sectors in 32 lines: the
/// first load misses 4 x 32 = 128 sectors in L1 and in L2 (128 L2
/// requests, one a line); the second hits the 128 in L1. The store is
/// coalesced as before: 4 requests, 16 sectors, 4 L2 requests. L1: 12
/// requests, 128 + 128 + 16 = 272 sectors (272 / 12 a request), 128 hits,
/// 128 misses; L2: 132 requests, 144 sectors, 144 misses; DRAM: 144.
#[test]
fn a_strided_stream_takes_a_sector_a_lane() {
    let r = run("strided.json", None);
    check_sum(&r);
    let m = r.timed.memory;
    assert_eq!(
        (m.l1.requests, m.l1.sectors, m.l1.hits, m.l1.misses),
        (12, 272, 128, 128)
    );
    assert_eq!(m.sectors_per_request(), 272.0 / 12.0);
    assert_eq!(
        (m.l2.requests, m.l2.sectors, m.l2.hits, m.l2.misses),
        (132, 144, 0, 144)
    );
    // Per statement: each load 4 warps x 32 sectors, the store 4 x 4.
    assert_eq!(stmt_sectors(&r), [128, 128, 16]);
    assert_eq!((m.dram.sectors, m.dram_bytes()), (144, 144 * 32));
}

/// 32 lanes in one bank: lane l at byte 128 l of shared memory. The store
/// and the load back take 32 wavefronts each (31 bank conflicts each);
/// the load of word l, one wavefront. 3 requests, 65 wavefronts, 62
/// conflicts, 3 x 32 x 4 = 384 bytes. The atomic (32 lanes on one word)
/// is one L1 request of one sector, one L2 request that misses (DRAM: 1)
/// and 32 atomics at L2; the store of out[l] one request of 4 sectors
/// (4 L2 misses). L1: 2 requests, 5 sectors, no load (no hit or miss);
/// L2: 2 requests, 5 sectors, 5 misses.
#[test]
fn thirty_two_lanes_in_one_bank_take_thirty_two_wavefronts() {
    let r = run("banks.json", None);
    check_sum(&r);
    let m = r.timed.memory;
    let s = m.shared;
    assert_eq!(
        (s.requests, s.wavefronts, s.bank_conflicts, s.bytes),
        (3, 65, 62, 384)
    );
    assert_eq!(
        (m.l1.requests, m.l1.sectors, m.l1.hits, m.l1.misses),
        (2, 5, 0, 0)
    );
    assert_eq!(
        (m.l2.requests, m.l2.sectors, m.l2.misses, m.l2.atomics),
        (2, 5, 5, 32)
    );
    assert_eq!(m.dram.sectors, 5);
}

/// Occupancy: a block of 4 warps with no shared memory. sm_90 holds 64
/// warps (16 such blocks) and 32 blocks, so warps limit it; at 128
/// registers a thread (the strided launch file's `registers`) a warp takes
/// 4,096 of the 65,536: 4 blocks, registers limit it; `--regs 255` rounds
/// to 8,192 a warp (256 at a time): 2 blocks. The grid's one block is
/// resident for the whole run: 1 block achieved.
#[test]
fn occupancy_names_its_limiter() {
    let o = run("coalesced.json", None).timed.occupancy;
    assert_eq!(
        (o.theoretical_blocks_per_sm, o.theoretical_warps_per_sm),
        (16, 64)
    );
    assert_eq!(o.limiter, Limiter::Warps);
    assert_eq!(
        (o.registers_per_thread, o.registers_source),
        (None, RegSource::Unknown)
    );
    assert_eq!(o.achieved_blocks_per_sm, 1.0);
    assert!(
        o.achieved_warps_per_sm > 0.0 && o.achieved_warps_per_sm <= 4.0,
        "{o:?}"
    );
    let o = run("strided.json", None).timed.occupancy;
    assert_eq!(
        (o.theoretical_blocks_per_sm, o.limiter),
        (4, Limiter::Registers)
    );
    assert_eq!(
        (o.registers_per_thread, o.registers_source),
        (Some(128), RegSource::Launch)
    );
    let o = run("strided.json", Some(255)).timed.occupancy;
    assert_eq!(
        (o.theoretical_blocks_per_sm, o.theoretical_warps_per_sm),
        (2, 8)
    );
    assert_eq!(
        (o.registers_per_thread, o.registers_source),
        (Some(255), RegSource::Option)
    );
    // 4 KiB of shared memory a block: 57 blocks by shared memory, 32 by
    // the block slots; 64 warps of 1: 64. Block slots limit it.
    let o = run("banks.json", None).timed.occupancy;
    assert_eq!(
        (o.theoretical_blocks_per_sm, o.limiter),
        (32, Limiter::Blocks)
    );
}

/// A memory instruction's latency is the memory's: each warp's first
/// load of the coalesced stream waits on DRAM (670 cycles in the sm_90
/// preset), its second on that fill (so at least 7 x 670 between
/// them, where the table's issue latency gave 8 x 4). `ld` also counts the 3 `ld.param`s
/// of each warp (20 in all), which the SM runs itself at the table's
/// latency.
#[test]
fn memory_latency_is_what_the_memory_gave() {
    let r = run("coalesced.json", None);
    let ld = r.timed.stats.per_opcode["ld"];
    assert_eq!(ld.count, 4 * (3 + 2));
    let dram = MemConfig::preset(sim_isa::Target::SM_90).dram;
    assert!(ld.latency_max >= dram, "{ld:?}");
    assert!(ld.latency_sum >= 7 * dram, "{ld:?}");
}
