//! The constant cache: `ld.const` (an `LDC` with a register index on sm_90,
//! ptxas 13.0.88).
//!
//! CUDA C++ Programming Guide, "Constant Memory": a warp's request is split
//! into as many separate requests as there are different addresses in it,
//! which lowers throughput by that factor. So the cache serves one address
//! a clock for the whole SM, and a request's addresses go one after the
//! other: one whose line is not in the cache holds the next until the line
//! arrives (the misses of a gather over several lines do not overlap). The cache's
//! lines are 64 bytes (Jia et al., "Dissecting the NVIDIA Volta GPU
//! Architecture via Microbenchmarking", 2018: the L1 constant cache's
//! line), so a gather over a 128-byte `__constant__` table waits for two
//! fills one after the other. The H100's `const_lookup.t` (sim-kernel's
//! tests/data/h100-extra) says the same: cold it takes 2,452 cycles, run
//! again (its table in L2) 1,653, and the 799 between them are two DRAM
//! fills less two L2 hits (2 x (670 - 291) = 758); one fill would leave 379.

use super::{Gpu, Kind, SmMem, CONST_TAG};
use sim_isa::exec::Accesses;
use sim_isa::WARP_SIZE;

/// The constant cache's line, bytes (Jia et al. 2018, above).
pub(super) const CONST_LINE: u64 = 64;

impl SmMem {
    /// Constant memory: when a warp's `ld.const` has its data.
    pub(super) fn constant(&mut self, gpu: &Gpu, start: u64, acc: &Accesses) -> u64 {
        // The distinct addresses, and the lanes of each distinct line in
        // the order the lanes first name them.
        let mut distinct = [0u64; WARP_SIZE];
        let mut nd = 0;
        let mut lines = [(0u64, 0u32); WARP_SIZE];
        let mut nl = 0;
        for l in 0..WARP_SIZE {
            if acc.lanes >> l & 1 == 0 {
                continue;
            }
            let a = acc.addrs[l];
            if !distinct[..nd].contains(&a) {
                distinct[nd] = a;
                nd += 1;
            }
            let line = a / CONST_LINE;
            match lines[..nl].iter_mut().find(|(x, _)| *x == line) {
                Some(e) => e.1 |= 1 << l,
                None => {
                    lines[nl] = (line, 1 << l);
                    nl += 1;
                }
            }
        }
        let mut shifted = *acc;
        for a in shifted.addrs.iter_mut() {
            *a = a.wrapping_add(CONST_TAG);
        }
        let hit = gpu.cfg.l1_hit;
        let mut t = start;
        let mut ready = start;
        let lsu = self.lsu_free;
        for (k, &(_, mask)) in lines[..nl.max(1)].iter().enumerate() {
            if nl > 0 {
                shifted.lanes = mask;
            }
            // Each line is looked up with the load/store pipeline as the
            // request found it (it takes the request once, below).
            self.lsu_free = lsu;
            let r = self.global(gpu, t, &shifted, Kind::Load, true);
            if k > 0 {
                // One warp-instruction, however many lines it touched.
                self.stats.constant.requests -= 1;
            }
            ready = ready.max(r);
            // A miss holds the request's next address until its fill
            // arrives.
            t = t.max(r.saturating_sub(hit));
        }
        // The pipeline took the request when it issued: a line looked up
        // behind a miss does not hold the global loads issued meanwhile.
        self.lsu_free = start.max(lsu) + 1;
        // Its addresses, one a clock, once its lines are there, behind
        // (or before) the other requests' addresses.
        let nd = nd.max(1) as u64;
        let begin = self.const_port(t, nd);
        ready.max(begin + hit) + nd - 1
    }

    /// When the cache starts serving `n` addresses of a request whose
    /// lines are there at `at`, and books them. It remembers one busy
    /// stretch: a request that fits before it goes first (requests are
    /// timed as they issue, and a later one may have its lines sooner).
    fn const_port(&mut self, at: u64, n: u64) -> u64 {
        let (from, to) = self.const_busy;
        if at + n <= from || at >= to {
            if at >= to {
                self.const_busy = (at, at + n);
            }
            return at;
        }
        self.const_busy = (from, to + n);
        to
    }
}

#[cfg(test)]
mod tests {
    use super::super::MemConfig;
    use super::*;
    use sim_isa::{Space, Target};

    /// A warp reading `addr(lane)` from constant memory.
    fn gather(addr: impl Fn(u64) -> u64) -> Accesses {
        Accesses {
            lanes: u32::MAX,
            addrs: std::array::from_fn(|l| addr(l as u64)),
            bytes: 4,
            space: Space::Const,
        }
    }

    /// A gather over two 64-byte lines waits for two DRAM fills one after
    /// the other (670 + 670 - 42, then its 32 addresses a clock each); over
    /// one line, for one; a broadcast of a cached word takes an L1 hit.
    #[test]
    fn a_gather_waits_for_its_lines_one_after_the_other() {
        let gpu = Gpu::new(MemConfig::preset(Target::SM_90), &[]);
        let two = gather(|l| 4 * l);
        let one = gather(|l| 4 * (l % 16));
        assert_eq!(SmMem::default().constant(&gpu, 0, &two), 670 + 628 + 31);
        assert_eq!(SmMem::default().constant(&gpu, 0, &one), 670 + 15);
        let mut sm = SmMem::default();
        sm.constant(&gpu, 0, &two);
        let warm = sm.constant(&gpu, 2000, &gather(|_| 8));
        assert_eq!(warm, 2000 + 42);
        assert_eq!(sm.stats().constant.requests, 2);
    }

    /// The cache serves one address a clock for the whole SM: a second
    /// warp's 32-address gather of cached lines, issued a clock after the
    /// first's, is served after the first's 32 addresses; a broadcast whose
    /// line is there before a gather's goes first.
    #[test]
    fn warps_share_the_constant_cache_one_address_a_clock() {
        let gpu = Gpu::new(MemConfig::preset(Target::SM_90), &[]);
        let mut sm = SmMem::default();
        sm.constant(&gpu, 0, &gather(|l| 4 * l));
        let a = sm.constant(&gpu, 5000, &gather(|l| 4 * l));
        let b = sm.constant(&gpu, 5001, &gather(|l| 4 * l));
        assert_eq!(a, 5000 + 42 + 31);
        assert_eq!(b, 5000 + 32 + 42 + 31);
        // A gather waiting for a new line books the cache from its fill on.
        let c = sm.constant(&gpu, 6000, &gather(|l| 4096 + 4 * l));
        assert_eq!(c, 6000 + 670 + 628 + 31);
        assert_eq!(sm.constant(&gpu, 6001, &gather(|_| 0)), 6001 + 42);
    }
}
