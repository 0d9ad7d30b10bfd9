//! What the memory model counted: per SM (plain counters in [`SmMem`],
//! incremented as accesses are timed, nothing allocated) and merged over
//! SMs for a launch, and the launch's occupancy. The definitions, as the
//! JSON report carries them, are in docs/report-schema.md.
//!
//! [`SmMem`]: crate::memtime::SmMem

use serde::Serialize;

/// The L1 (global and local accesses; constant ones are counted apart).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct L1Counts {
    /// Warp-instructions that accessed global or local memory.
    pub requests: u64,
    /// 32-byte sectors they touched (each counted once an instruction).
    pub sectors: u64,
    /// Load sectors the L1 held (ready or being filled).
    pub hits: u64,
    /// Load sectors it did not (they went to L2). Stores and atomics are
    /// neither: they pass through to L2.
    pub misses: u64,
}

/// Shared memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SharedCounts {
    /// Warp-instructions that accessed shared memory.
    pub requests: u64,
    /// Wavefronts (passes through the 32 banks) they took.
    pub wavefronts: u64,
    /// Wavefronts beyond those the requested bytes need (one per 128
    /// bytes of the active lanes, at least one): 31 for 32 lanes reading
    /// 32 words of one bank.
    pub bank_conflicts: u64,
    /// Bytes the active lanes asked for.
    pub bytes: u64,
}

/// The L2 (everything that reaches it: L1 load misses, stores, atomics,
/// constant-cache misses).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct L2Counts {
    /// Requests from the SMs: per warp-instruction, one per 128-byte line
    /// with a sector going to L2.
    pub requests: u64,
    /// Sectors that went to L2.
    pub sectors: u64,
    /// Of those, sectors L2 held.
    pub hits: u64,
    /// And sectors it did not (see [`DramCounts`]).
    pub misses: u64,
    /// Atomic operations L2 applied: one per active lane of an `atom` or
    /// `red` on global memory.
    pub atomics: u64,
}

/// DRAM.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DramCounts {
    /// Sectors L2 missed: read from DRAM (loads, atomics) or allocated
    /// for a store (written back in the end; the model's L2 never evicts,
    /// so each is counted once).
    pub sectors: u64,
}

/// The constant cache (`ld.const`; the L1's lines stand in for it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ConstCounts {
    /// Warp-instructions that read constant memory.
    pub requests: u64,
    /// Sectors the cache did not hold (they went to L2).
    pub misses: u64,
}

/// One SM's memory counters, or several SMs' added together.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MemStats {
    /// The L1.
    pub l1: L1Counts,
    /// Shared memory.
    pub shared: SharedCounts,
    /// The L2.
    pub l2: L2Counts,
    /// DRAM.
    pub dram: DramCounts,
    /// The constant cache.
    pub constant: ConstCounts,
}

/// Bytes of a sector.
const SECTOR_BYTES: u64 = 32;

fn rate(hits: u64, misses: u64) -> f64 {
    let n = hits + misses;
    if n == 0 {
        0.0
    } else {
        hits as f64 / n as f64
    }
}

impl MemStats {
    /// Adds `o`'s counters to these.
    pub fn add(&mut self, o: &MemStats) {
        let (a, b) = (&mut self.l1, &o.l1);
        a.requests += b.requests;
        a.sectors += b.sectors;
        a.hits += b.hits;
        a.misses += b.misses;
        let (a, b) = (&mut self.shared, &o.shared);
        a.requests += b.requests;
        a.wavefronts += b.wavefronts;
        a.bank_conflicts += b.bank_conflicts;
        a.bytes += b.bytes;
        let (a, b) = (&mut self.l2, &o.l2);
        a.requests += b.requests;
        a.sectors += b.sectors;
        a.hits += b.hits;
        a.misses += b.misses;
        a.atomics += b.atomics;
        self.dram.sectors += o.dram.sectors;
        self.constant.requests += o.constant.requests;
        self.constant.misses += o.constant.misses;
    }

    /// The counters of `parts` added together.
    pub fn sum<'a>(parts: impl IntoIterator<Item = &'a MemStats>) -> MemStats {
        let mut m = MemStats::default();
        for p in parts {
            m.add(p);
        }
        m
    }

    /// L1 hits over load sectors (0 without loads).
    pub fn l1_hit_rate(&self) -> f64 {
        rate(self.l1.hits, self.l1.misses)
    }

    /// L2 hits over sectors that reached it (0 without any).
    pub fn l2_hit_rate(&self) -> f64 {
        rate(self.l2.hits, self.l2.misses)
    }

    /// Coalescing: L1 sectors per global/local request (4 for 32 lanes
    /// reading consecutive words, 32 for lanes 128 bytes apart).
    pub fn sectors_per_request(&self) -> f64 {
        if self.l1.requests == 0 {
            0.0
        } else {
            self.l1.sectors as f64 / self.l1.requests as f64
        }
    }

    /// Bytes moved through the L1 (whole sectors).
    pub fn l1_bytes(&self) -> u64 {
        self.l1.sectors * SECTOR_BYTES
    }

    /// Through L2.
    pub fn l2_bytes(&self) -> u64 {
        self.l2.sectors * SECTOR_BYTES
    }

    /// To or from DRAM.
    pub fn dram_bytes(&self) -> u64 {
        self.dram.sectors * SECTOR_BYTES
    }
}

/// What limits the blocks resident on one SM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Limiter {
    /// Its warp slots.
    Warps,
    /// Its register file.
    Registers,
    /// Its shared memory.
    SharedMemory,
    /// Its block slots.
    Blocks,
}

impl RegSource {
    /// The name the reports give it.
    pub fn name(self) -> &'static str {
        match self {
            RegSource::Launch => "launch",
            RegSource::Option => "option",
            RegSource::Unknown => "unknown",
        }
    }
}

impl Limiter {
    /// The name the reports give it.
    pub fn name(self) -> &'static str {
        match self {
            Limiter::Warps => "warps",
            Limiter::Registers => "registers",
            Limiter::SharedMemory => "shared_memory",
            Limiter::Blocks => "blocks",
        }
    }
}

/// Where a launch's registers per thread came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RegSource {
    /// The launch file's `registers`.
    Launch,
    /// `RunOptions::registers` (simcli's `--regs`).
    Option,
    /// Neither: registers do not limit residency.
    Unknown,
}

/// Occupancy of a launch: how many blocks and warps one SM could hold, and
/// how many it held on average while it held any.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Occupancy {
    /// Blocks one SM can hold at once ([`BlockLimits::blocks`]).
    pub theoretical_blocks_per_sm: u32,
    /// Their warps.
    pub theoretical_warps_per_sm: u32,
    /// Resident warp-cycles over the cycles SMs held a block (the timed
    /// SMs'), as Nsight Compute's achieved occupancy in warps.
    pub achieved_warps_per_sm: f64,
    /// Resident block-cycles over the same cycles.
    pub achieved_blocks_per_sm: f64,
    /// The resource that bounds the theoretical figure.
    pub limiter: Limiter,
    /// `None` where unknown ([`RegSource::Unknown`]).
    pub registers_per_thread: Option<u32>,
    /// Where the registers came from.
    pub registers_source: RegSource,
}

/// The blocks one SM could hold by each of its resources, for a block of
/// `wpb` warps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockLimits {
    /// By its warp slots.
    pub by_warps: u32,
    /// By its register file (`u32::MAX` where registers are unknown).
    pub by_registers: u32,
    /// By its shared memory (`u32::MAX` for a block that uses none).
    pub by_shared: u32,
    /// By its block slots.
    pub by_blocks: u32,
}

impl BlockLimits {
    /// Blocks resident at once (at least one: a block no SM can hold is
    /// refused before the launch runs).
    pub fn blocks(&self) -> u32 {
        self.by_warps
            .min(self.by_registers)
            .min(self.by_shared)
            .min(self.by_blocks)
            .max(1)
    }

    /// The resource that gives [`BlockLimits::blocks`] (the first of
    /// warps, registers, shared memory, blocks on a tie).
    pub fn limiter(&self) -> Limiter {
        let n = self.blocks();
        if self.by_warps <= n {
            Limiter::Warps
        } else if self.by_registers <= n {
            Limiter::Registers
        } else if self.by_shared <= n {
            Limiter::SharedMemory
        } else {
            Limiter::Blocks
        }
    }
}

/// Time-weighted residency of one SM: what achieved occupancy is made of.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Residency {
    /// Cycles the SM held at least one block.
    pub active_cycles: u64,
    /// Sum over warps of the cycles from their block's start to their retiring.
    pub warp_cycles: u64,
    /// Sum over blocks of the cycles they were resident.
    pub block_cycles: u64,
}

impl Residency {
    /// Adds `o`'s cycles to these.
    pub fn add(&mut self, o: &Residency) {
        self.active_cycles += o.active_cycles;
        self.warp_cycles += o.warp_cycles;
        self.block_cycles += o.block_cycles;
    }
}

impl Occupancy {
    /// The occupancy of blocks of `wpb` warps under `limits`, achieved as
    /// `res` (summed over the timed SMs) says.
    pub fn new(
        limits: &BlockLimits,
        wpb: u32,
        registers: (Option<u32>, RegSource),
        res: &Residency,
    ) -> Occupancy {
        let per = |n: u64| {
            if res.active_cycles == 0 {
                0.0
            } else {
                n as f64 / res.active_cycles as f64
            }
        };
        let blocks = limits.blocks();
        Occupancy {
            theoretical_blocks_per_sm: blocks,
            theoretical_warps_per_sm: blocks.saturating_mul(wpb),
            achieved_warps_per_sm: per(res.warp_cycles),
            achieved_blocks_per_sm: per(res.block_cycles),
            limiter: limits.limiter(),
            registers_per_thread: registers.0,
            registers_source: registers.1,
        }
    }
}
