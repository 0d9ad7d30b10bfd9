//! Memory timing: when a warp's memory instruction completes, from the
//! addresses it touched.
//!
//! The built-in model, per SM: global and local accesses coalesce into
//! 32-byte sectors of 128-byte lines; an L1 (per SM, cold at launch, filled
//! on every load miss) and one L2 shared by all SMs give the latency of the
//! slowest sector; a sector still being filled completes when its fill
//! does. The launch's buffers start in DRAM, not L2: the H100's one-block
//! launches (sim-module/tests/data/h100, `h100.cycles_cold` and `_warm`
//! alike) spend a DRAM latency on each first touch, e.g. `audio_mix.t`'s one
//! round of dependent loads takes 838 cycles where an L2 hit would give
//! about 480. A launch run warm (`RunOptions::warm`) starts them in L2,
//! as the whole-grid H200 measurements' inputs were. The SM's load/store
//! pipeline handles one 128-byte line (global) or one bank-conflict-free
//! wavefront (shared) per clock, so wide or conflicting accesses queue
//! behind each other.

use crate::l1::L1;
use crate::memstats::MemStats;

mod constant;
mod fills;
use crate::sectors::SectorSet;
pub(crate) use fills::L2Notes;
use rustc_hash::FxHashMap as HashMap;
use sim_isa::exec::Accesses;
use sim_isa::{Space, Target, WARP_SIZE};

/// Latencies and sizes of the memory hierarchy, each with its source.
#[derive(Clone, Debug, PartialEq)]
pub struct MemConfig {
    /// Dependent-load latency of an L1 hit, cycles.
    pub l1_hit: u64,
    /// Of an L2 hit.
    pub l2_hit: u64,
    /// Of a DRAM access.
    pub dram: u64,
    /// Of a conflict-free shared-memory load.
    pub shared: u64,
    /// L1 capacity per SM, bytes (lines beyond it are evicted oldest first;
    /// less than a line: no L1).
    pub l1_bytes: u64,
    /// L2 capacity, bytes.
    pub l2_bytes: u64,
    /// Shared memory one SM can give its resident blocks, bytes.
    pub smem_per_sm: u64,
    /// Most blocks resident on one SM.
    pub blocks_per_sm: u32,
    /// 32-bit registers of one SM's register file.
    pub regs_per_sm: u32,
    /// A warp's registers are allocated in units of this many.
    pub reg_unit: u32,
    /// SMs of the whole GPU (a launch's default).
    pub sms: u32,
    /// Where the figures come from.
    pub source: &'static str,
}

impl MemConfig {
    /// The figures for `target`.
    pub fn preset(target: Target) -> MemConfig {
        // Measured on the H100 (sim-core/data/calibration/h100/memory.json):
        // pointer chasing, one thread, one 128-byte line per hop. ld.global.ca
        // over 4 KiB, second launch: 41.7 cycles (L1 hit); ld.global.cg: 290.6
        // to 293.9 (L2 hit, also on a first launch over a buffer the host just
        // wrote); 256 MiB first touch: about 670 (DRAM); dependent ld.shared:
        // about 29. Capacities: H100 SXM5, 256 KiB L1/shared per SM (up to
        // 228 KiB shared, the rest L1) and 50 MiB L2 (NVIDIA H100 Tensor Core
        // GPU Architecture whitepaper, 2022).
        // Resident-block limits (warps, shared memory, blocks, registers)
        // follow the same sources; registers per thread are not known from
        // PTX (ptxas allocates them), so they limit residency only where a
        // launch file states them (`registers`).
        MemConfig {
            l1_hit: 42,
            l2_hit: 291,
            dram: 670,
            shared: 29,
            l1_bytes: 256 * 1024,
            l2_bytes: 50 * 1024 * 1024,
            // H100 whitepaper (2022), compute capability 9.0: up to 228 KiB
            // of shared memory per SM, at most 32 resident blocks per SM.
            smem_per_sm: 228 * 1024,
            blocks_per_sm: 32,
            // H100 whitepaper (2022): a 64K x 32-bit register file per SM;
            // CUDA C++ Programming Guide, occupancy (compute capability
            // 3.0 to 9.0): registers are allocated per warp, 256 at a time.
            regs_per_sm: 65536,
            reg_unit: 256,
            sms: gpu_sms(target),
            source: "H100 measurements (calibration/h100/memory.json); H100 whitepaper \
                     capacities. Other targets use the same figures until measured.",
        }
    }

    /// Registers a block of `warps` warps takes at `registers` a thread:
    /// each warp's rounded up to the allocation unit.
    pub fn block_registers(&self, registers: u32, warps: u32) -> u64 {
        let unit = u64::from(self.reg_unit.max(1));
        (u64::from(registers) * WARP_SIZE as u64).div_ceil(unit) * unit * u64::from(warps)
    }
}

/// SMs of the GPU each target's preset stands for: sm_90, the H100 SXM5
/// (132 SMs, NVIDIA H100 Tensor Core GPU Architecture whitepaper, 2022, the
/// GPU of every measurement here); sm_53, the Jetson TX1's Tegra X1 (2
/// SMMs, NVIDIA Tegra X1 whitepaper, 2015); sm_35, the Tesla K40 (15 SMX,
/// Tesla K40 board specification, 2013); sm_30, the GeForce GTX 680 (8 SMX,
/// GTX 680 whitepaper, 2012); sm_13, the GeForce GTX 280 (30 SMs, NVIDIA
/// GT200 technical brief, 2008). A target between presets takes the
/// nearest earlier preset's (the SM presets are sm_13, sm_30, sm_35, sm_53
/// and sm_90).
pub fn gpu_sms(target: Target) -> u32 {
    match target.sm {
        90.. => 132,
        53..=89 => 2,
        35..=52 => 15,
        30..=34 => 8,
        _ => 30,
    }
}

/// What a memory instruction does, for its timing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `ld`/`ldu`.
    Load,
    /// `st`.
    Store,
    /// `atom` (returns the old value) or `red`.
    Atomic,
}

/// Sector and line sizes of the caches.
const SECTOR: u64 = 32;
/// Constant-space offsets, moved apart from global addresses in the caches.
const CONST_TAG: u64 = 0x7e00_0000_0000;
const LINE: u64 = 128;
// The L1 keeps four sector clocks a line.
const _: () = assert!(LINE / SECTOR == 4);

/// What all SMs share: the L2 (which sectors it holds) and the queues of
/// atomics at each word. SMs run an epoch each against a frozen copy and
/// what they add is merged at its end ([`Gpu::merge`]), in SM order, so a
/// result never depends on which host thread ran which SM.
pub struct Gpu {
    cfg: MemConfig,
    l2: SectorSet,
    /// Per 4-byte word: when L2 may start its next atomic there.
    atom_free: HashMap<u64, u64>,
}

/// One SM's memory pipeline and L1, and what it added to the shared state
/// this epoch.
#[derive(Default)]
pub struct SmMem {
    /// `None` until the SM first fills a line (it knows its size then).
    l1: Option<L1>,
    lsu_free: u64,
    /// When the constant cache is busy serving addresses, [from, to) (it
    /// serves one a clock for the whole SM: `constant.rs`).
    const_busy: (u64, u64),
    /// Sectors this SM brought into L2 this epoch.
    l2_new: SectorSet,
    /// Words whose atomic queue this SM moved this epoch: (when its last
    /// lane is done, how many lanes it served).
    atom_new: HashMap<u64, (u64, u64)>,
    /// Per bank: the words a shared access touches (scratch).
    banks: Vec<[u64; WARP_SIZE]>,
    /// The sectors and lines of a global access (scratch, kept so that
    /// an access neither allocates nor clears arrays).
    sectors: Vec<u64>,
    lines: Vec<u64>,
    /// The lines of an access that went to L2 (scratch, as `lines`).
    l2_lines: Vec<u64>,
    /// What it counted (`memstats`): plain adds as accesses are timed.
    stats: MemStats,
}

impl Gpu {
    /// A cold GPU whose L2 holds `resident` (base, length) ranges, as many
    /// sectors as it has room for.
    pub fn new(cfg: MemConfig, resident: &[(u64, u64)]) -> Gpu {
        let mut l2 = SectorSet::default();
        let mut budget = cfg.l2_bytes / SECTOR;
        'fill: for &(base, len) in resident {
            let mut s = base / SECTOR;
            while s * SECTOR < base + len {
                if budget == 0 {
                    break 'fill;
                }
                l2.insert(s);
                budget -= 1;
                s += 1;
            }
        }
        Gpu {
            cfg,
            l2,
            atom_free: HashMap::default(),
        }
    }

    /// The figures in use.
    pub fn limits(&self) -> &MemConfig {
        &self.cfg
    }

    /// Brings sectors `first` to `first + len - 1` into L2, untimed: a
    /// block that `--sample` runs functionally (`memtime::L2Notes`).
    pub fn bring_in_run(&mut self, first: u64, len: u64) {
        self.l2.insert_run(first, len);
    }

    /// Takes in what `sm` added this epoch. Called for each SM in SM order:
    /// L2 gains its sectors; a word's atomic queue grows by what each SM
    /// queued there, so atomics from many SMs on one word serialise.
    pub fn merge(&mut self, sm: &mut SmMem) {
        self.l2.drain_into(&mut sm.l2_new);
        // Each SM queued its lanes behind the word's state at the epoch's
        // start; merged, the lanes of later SMs queue behind the earlier
        // ones'. Only the lanes served add up: adding each SM's whole span
        // (its first lane's wait included) made the queue grow with the
        // number of SMs that touched the word (the 1M histogram took
        // 640,909 cycles on 32 SMs, 551,311 on one).
        for (w, (after, served)) in sm.atom_new.drain() {
            let free = self.atom_free.entry(w).or_insert(0);
            *free = (*free + served).max(after);
        }
    }
}

impl SmMem {
    /// What this SM's accesses counted so far.
    pub fn stats(&self) -> &MemStats {
        &self.stats
    }

    /// When warp-instruction `acc` of `kind`, issued at `cycle`, is done:
    /// its data ready (stores: when the SM may consider it done).
    pub fn access(&mut self, gpu: &Gpu, cycle: u64, acc: &Accesses, kind: Kind) -> u64 {
        let first = acc.addrs[acc.lanes.trailing_zeros().min(31) as usize];
        let window = crate::memory::SHARED_WINDOW..crate::memory::LOCAL_WINDOW;
        match acc.space {
            Space::Generic if window.contains(&first) => self.shared(gpu, cycle, acc),
            Space::Shared => self.shared(gpu, cycle, acc),
            Space::Param | Space::Const => self.constant(gpu, cycle, acc),
            Space::Global | Space::Local | Space::Generic => {
                self.global(gpu, cycle, acc, kind, false)
            }
        }
    }

    /// Whether L2 misses sector `s` (and now holds it).
    fn l2_insert(&mut self, gpu: &Gpu, s: u64) -> bool {
        !gpu.l2.contains(s) && self.l2_new.insert(s)
    }

    /// A global or local access (`constant`: a constant one, counted as
    /// the constant cache's).
    fn global(&mut self, gpu: &Gpu, start: u64, acc: &Accesses, kind: Kind, constant: bool) -> u64 {
        let cfg = &gpu.cfg;
        let mut sectors = std::mem::take(&mut self.sectors);
        let mut lines = std::mem::take(&mut self.lines);
        let mut tally = Tally {
            l2_lines: std::mem::take(&mut self.l2_lines),
            ..Tally::default()
        };
        sectors.clear();
        lines.clear();
        tally.l2_lines.clear();
        match sector_run(acc) {
            Some((first, last)) => sectors.extend(first..=last),
            None => lane_sectors(acc, &mut sectors),
        }
        for s in &sectors {
            let l = s * SECTOR / LINE;
            if !lines.contains(&l) {
                lines.push(l);
            }
        }
        let nlines = lines.len() as u64;
        // One line per clock through the pipeline.
        let issue = start.max(self.lsu_free);
        self.lsu_free = issue + nlines;
        let mut ready = issue + 1;
        let local = acc.space == Space::Local;
        for &s in &sectors {
            let t = if kind == Kind::Store {
                // Global stores write through to L2; local ones stay in L1
                // (write-back). The warp does not wait for either.
                let miss = self.l2_insert(gpu, s);
                tally.went_to_l2(miss, s);
                if local {
                    self.fill(cfg, s, issue + 1);
                }
                issue + 1
            } else if kind == Kind::Atomic {
                // Atomics run at L2, never in L1.
                let miss = self.l2_insert(gpu, s);
                tally.went_to_l2(miss, s);
                issue + if miss { cfg.dram } else { cfg.l2_hit }
            } else if let Some(at) = self.l1.as_ref().and_then(|l1| l1.get(s)) {
                tally.l1_hits += 1;
                (issue + cfg.l1_hit).max(at)
            } else {
                let miss = self.l2_insert(gpu, s);
                tally.went_to_l2(miss, s);
                let lat = if miss { cfg.dram } else { cfg.l2_hit };
                let at = issue + lat;
                self.fill(cfg, s, at);
                at
            };
            ready = ready.max(t);
        }
        self.count_global(&tally, sectors.len() as u64, acc, kind, constant);
        self.l2_lines = tally.l2_lines;
        self.sectors = sectors;
        self.lines = lines;
        if kind == Kind::Atomic {
            ready = ready.max(self.serialize_atomics(gpu, ready, acc));
        }
        ready + nlines - 1
    }

    /// Adds a global access's tally (`n` sectors) to the counters.
    fn count_global(&mut self, t: &Tally, n: u64, acc: &Accesses, kind: Kind, constant: bool) {
        let st = &mut self.stats;
        if constant {
            st.constant.requests += 1;
            st.constant.misses += n - t.l1_hits;
        } else {
            st.l1.requests += 1;
            st.l1.sectors += n;
            if kind == Kind::Load {
                st.l1.hits += t.l1_hits;
                st.l1.misses += n - t.l1_hits;
            }
        }
        st.l2.requests += t.l2_lines.len() as u64;
        st.l2.sectors += t.l2_hits + t.l2_misses;
        st.l2.hits += t.l2_hits;
        st.l2.misses += t.l2_misses;
        st.dram.sectors += t.l2_misses;
        if kind == Kind::Atomic {
            st.l2.atomics += u64::from(acc.lanes.count_ones());
        }
    }

    /// L2 applies atomics to one address one lane at a time: lanes of
    /// this and earlier instructions on the same word queue behind each
    /// other. Returns when this instruction's last lane is done.
    fn serialize_atomics(&mut self, gpu: &Gpu, arrive: u64, acc: &Accesses) -> u64 {
        let mut done = arrive;
        let mut seen: [u64; WARP_SIZE] = [u64::MAX; WARP_SIZE];
        for l in 0..WARP_SIZE {
            if acc.lanes >> l & 1 == 0 {
                continue;
            }
            let w = acc.addrs[l] / 4;
            if seen.contains(&w) {
                continue;
            }
            seen[l] = w;
            let lanes = (0..WARP_SIZE)
                .filter(|&k| acc.lanes >> k & 1 == 1 && acc.addrs[k] / 4 == w)
                .count() as u64;
            let base = gpu.atom_free.get(&w).copied().unwrap_or(0);
            let q = self.atom_new.entry(w).or_insert((base, 0));
            let start = arrive.max(q.0);
            q.0 = start + lanes;
            q.1 += lanes;
            done = done.max(start + lanes - 1);
        }
        done
    }

    /// Puts sector `s` in the L1 (ready at `at`), evicting the oldest lines.
    fn fill(&mut self, cfg: &MemConfig, s: u64, at: u64) {
        self.l1
            .get_or_insert_with(|| L1::new(cfg.l1_bytes, LINE))
            .fill(s, at);
    }

    /// Shared memory: 32 banks of 4 bytes; lanes reading one word share it.
    /// An access takes as many wavefronts as the most distinct words any
    /// bank holds.
    fn shared(&mut self, gpu: &Gpu, start: u64, acc: &Accesses) -> u64 {
        let waves = if acc.bytes <= 4 {
            match one_word_waves(acc) {
                Some(w) => w,
                None => self.bank_waves(acc),
            }
        } else {
            self.bank_waves(acc)
        };
        self.count_shared(waves, acc.lanes, acc.bytes);
        self.shared_waves(gpu, start, waves)
    }

    /// A shared access that [`one_wave_shared`] said takes one wavefront
    /// (its addresses were not kept; `lanes` and `bytes` were): the time
    /// [`SmMem::access`] gives it.
    pub fn shared_one_wave(&mut self, gpu: &Gpu, start: u64, lanes: u32, bytes: u32) -> u64 {
        self.count_shared(1, lanes, bytes);
        self.shared_waves(gpu, start, 1)
    }

    /// Counts a shared access of `waves` wavefronts by `lanes`, `bytes`
    /// each: the wavefronts its bytes need are one per 128 (the 32 banks'
    /// width), the rest are bank conflicts.
    #[inline]
    fn count_shared(&mut self, waves: u64, lanes: u32, bytes: u32) {
        let asked = u64::from(lanes.count_ones()) * u64::from(bytes.max(1));
        let st = &mut self.stats.shared;
        st.requests += 1;
        st.wavefronts += waves;
        st.bank_conflicts += waves.saturating_sub(asked.div_ceil(128).max(1));
        st.bytes += asked;
    }

    /// A shared access of `waves` wavefronts issued at `start` through the
    /// SM's one shared-memory port.
    fn shared_waves(&mut self, gpu: &Gpu, start: u64, waves: u64) -> u64 {
        let issue = start.max(self.lsu_free);
        self.lsu_free = issue + waves;
        issue + gpu.cfg.shared + waves - 1
    }

    /// Wavefronts of a shared access, bank by bank.
    fn bank_waves(&mut self, acc: &Accesses) -> u64 {
        let mut count = [0u8; 32];
        if self.banks.len() < 32 {
            self.banks = vec![[0; WARP_SIZE]; 32];
        }
        let banks = &mut self.banks;
        for l in 0..WARP_SIZE {
            if acc.lanes >> l & 1 == 0 {
                continue;
            }
            let a = acc.addrs[l];
            // At most 32 words a lane (the widest access is 32 bytes, and
            // a lane's words sit in consecutive banks).
            let end = (a + u64::from(acc.bytes).max(1))
                .div_ceil(4)
                .min(a / 4 + 32);
            for w in (a / 4)..end {
                let b = (w % 32) as usize;
                let n = count[b] as usize;
                if !banks[b][..n].contains(&w) && n < WARP_SIZE {
                    banks[b][n] = w;
                    count[b] += 1;
                }
            }
        }
        u64::from(count.iter().copied().max().unwrap_or(1).max(1))
    }
}

/// One global access's counts, gathered while it is timed.
#[derive(Default)]
struct Tally {
    /// Sectors the L1 held.
    l1_hits: u64,
    l2_hits: u64,
    l2_misses: u64,
    /// The distinct lines of the sectors that went to L2: its requests.
    l2_lines: Vec<u64>,
}

impl Tally {
    /// Sector `s` went to L2, which missed it or not.
    #[inline]
    fn went_to_l2(&mut self, miss: bool, s: u64) {
        if miss {
            self.l2_misses += 1;
        } else {
            self.l2_hits += 1;
        }
        let l = s * SECTOR / LINE;
        // Sectors come in address order for most accesses: the last line first.
        if self.l2_lines.last() != Some(&l) && !self.l2_lines.contains(&l) {
            self.l2_lines.push(l);
        }
    }
}

/// Whether [`SmMem::access`] times `acc` as a shared access of one
/// wavefront (then [`SmMem::shared_one_wave`] gives its time without the
/// addresses).
/// `one_word`: the functional access found the lanes all at one address
/// or at consecutive 4-byte words (`WarpMem::one_word`), which in shared
/// memory is one wavefront: the lanes need no second look.
/// `broadcast`: every lane at one address (`WarpMem::broadcast`), one
/// wavefront at any width ([`SmMem::bank_waves`] finds at most nine
/// consecutive words, each in a bank of its own): the tile rows that a
/// merged `LDS.128` reads (`vectorise`) are these.
pub(crate) fn one_wave_shared(acc: &Accesses, one_word: bool, broadcast: bool) -> bool {
    let first = acc.addrs[acc.lanes.trailing_zeros().min(31) as usize];
    let window = crate::memory::SHARED_WINDOW..crate::memory::LOCAL_WINDOW;
    let shared = match acc.space {
        Space::Generic => window.contains(&first),
        Space::Shared => true,
        Space::Param | Space::Const | Space::Global | Space::Local => false,
    };
    shared && (broadcast || acc.bytes <= 4 && (one_word || one_wave_at_a_glance(acc)))
}

/// The common shared accesses of one word a lane, without the bank
/// walk: every lane in a word of its own bank (or sharing one word) is
/// one wavefront. `None` when some bank has two words, or an access
/// straddles words.
#[inline]
fn one_word_waves(acc: &Accesses) -> Option<u64> {
    if one_wave_at_a_glance(acc) {
        return Some(1);
    }
    one_word_walk(acc)
}

/// [`one_word_waves`] lane by lane.
fn one_word_walk(acc: &Accesses) -> Option<u64> {
    let mut word = [u64::MAX; WARP_SIZE];
    let mut used = 0u32;
    for l in 0..WARP_SIZE {
        if acc.lanes >> l & 1 == 0 {
            continue;
        }
        let a = acc.addrs[l];
        let w = a / 4;
        if (a + u64::from(acc.bytes).max(1) - 1) / 4 != w {
            return None;
        }
        let b = (w % 32) as usize;
        if used >> b & 1 == 1 {
            if word[b] != w {
                return None;
            }
        } else {
            used |= 1 << b;
            word[b] = w;
        }
    }
    Some(1)
}

/// The two shapes almost every one-word shared access has, told without
/// a branch a lane (the pass vectorises): no lane's bytes straddle a
/// word, and either every lane reads one word (a broadcast) or lane `l`'s
/// bank is the first lane's plus `l` (consecutive words, or any stride
/// that keeps the banks apart). Each is one wavefront, as
/// [`one_word_waves`]'s walk finds; `false` says only "walk the lanes".
#[inline]
fn one_wave_at_a_glance(acc: &Accesses) -> bool {
    let l0 = acc.lanes.trailing_zeros().min(31) as usize;
    let w0 = acc.addrs[l0] / 4;
    let bank0 = w0.wrapping_sub(l0 as u64);
    let span = u64::from(acc.bytes.max(1)) - 1;
    let (mut straddle, mut same, mut diagonal) = (0u64, 0u64, 0u64);
    if acc.lanes == u32::MAX {
        // Every lane (the common case): no mask to apply.
        for (l, &a) in acc.addrs.iter().enumerate() {
            let w = a / 4;
            straddle |= (a.wrapping_add(span) / 4) ^ w;
            same |= w ^ w0;
            diagonal |= (w.wrapping_sub(l as u64) ^ bank0) & 31;
        }
    } else {
        for (l, &a) in acc.addrs.iter().enumerate() {
            // All ones for a lane that accessed, zero for the others.
            let on = 0u64.wrapping_sub(u64::from(acc.lanes >> l & 1));
            let w = a / 4;
            straddle |= on & ((a.wrapping_add(span) / 4) ^ w);
            same |= on & (w ^ w0);
            diagonal |= on & (w.wrapping_sub(l as u64) ^ bank0) & 31;
        }
    }
    // As plain ORs the folds stay vector ORs (see `memory::pattern`).
    let (straddle, same, diagonal) = std::hint::black_box((straddle, same, diagonal));
    straddle == 0 && (same == 0 || diagonal == 0)
}

/// The sectors `acc` touches, in the order its lanes first touch them
/// (each lane those its bytes reach: a bulk copy's one lane spans its
/// whole size, which the four a 128-byte access reaches once capped).
fn lane_sectors(acc: &Accesses, sectors: &mut Vec<u64>) {
    let span = u64::from(acc.bytes).max(1) - 1;
    let mut on = acc.lanes;
    while on != 0 {
        let a = acc.addrs[on.trailing_zeros() as usize];
        on &= on - 1;
        let first = a / SECTOR;
        let last = (a + span) / SECTOR;
        for s in first..last + 1 {
            // Coalesced lanes repeat the last sector: check it first.
            if sectors.last() != Some(&s) && !sectors.contains(&s) {
                sectors.push(s);
            }
        }
    }
}

/// The sectors of `acc` as one ascending run `first..=last`, when
/// [`lane_sectors`] would find exactly that: every lane accesses, each at
/// or after the lane before and at most its bytes past it (so no sector
/// is skipped), elements of at most a sector (a warp's consecutive words,
/// the common global access). One pass over the addresses instead of the
/// lane walk's search per lane. A call of its own, so that the pass
/// vectorises.
#[inline(never)]
fn sector_run(acc: &Accesses) -> Option<(u64, u64)> {
    let b = u64::from(acc.bytes.max(1));
    if acc.lanes != u32::MAX || b > SECTOR {
        return None;
    }
    let a = &acc.addrs;
    let mut gap = 0u64;
    for (p, n) in a.iter().zip(&a[1..]) {
        gap |= u64::from(n.wrapping_sub(*p) > b);
    }
    if gap != 0 {
        return None;
    }
    let end = a[WARP_SIZE - 1].checked_add(b - 1)?;
    Some((a[0] / SECTOR, end / SECTOR))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift), so the test needs no crate.
    fn next(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

    /// The glance never says "one wavefront" where the walk says otherwise,
    /// and it sees the broadcasts and strides that are one.
    #[test]
    fn glance_agrees_with_the_walk() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut seen = 0;
        for i in 0..200_000u64 {
            let r = next(&mut x);
            let lanes = match i % 4 {
                0 => u32::MAX,
                1 => r as u32,
                2 => u32::MAX >> (r % 32),
                _ => 1 << (r % 32),
            };
            let bytes = [1, 2, 4, 0][(r >> 40) as usize % 4];
            let base = (next(&mut x) % 4096) & !(u64::from(bytes.max(1)) - 1);
            let stride = [0, 4, 8, 12, 128, 132, 1, 2][(r >> 44) as usize % 8];
            let mut addrs = [0u64; WARP_SIZE];
            for (l, a) in addrs.iter_mut().enumerate() {
                *a = base + stride * l as u64;
                if (r >> 50).is_multiple_of(8) && l == (r >> 56) as usize % 32 {
                    *a = next(&mut x) % 4096;
                }
                if lanes >> l & 1 == 0 {
                    *a = 0;
                }
            }
            let acc = Accesses {
                lanes,
                addrs,
                bytes,
                space: Space::Shared,
            };
            let walk = one_word_walk(&acc);
            if one_wave_at_a_glance(&acc) {
                seen += 1;
                assert_eq!(walk, Some(1), "{acc:?}");
            }
            assert_eq!(one_word_waves(&acc), walk);
        }
        assert!(seen > 50_000, "{seen}");
    }

    /// A launch that runs warm (`RunOptions::warm`) starts with its
    /// buffers in L2 as far as L2 holds them: a first touch of a resident
    /// line waits an L2 hit (291 cycles, the H100's `ld.global.cg` chase),
    /// one past L2's room a DRAM access (670), as every first touch of a
    /// cold launch does.
    #[test]
    fn resident_buffers_are_l2_hits_on_their_first_touch() {
        let mut cfg = MemConfig::preset(Target::SM_90);
        // Room for two 128-byte lines (eight sectors).
        cfg.l2_bytes = 256;
        let base = crate::global::GLOBAL_BASE;
        let line = |n: u64| Accesses {
            lanes: u32::MAX,
            addrs: std::array::from_fn(|l| base + n * LINE + 4 * l as u64),
            bytes: 4,
            space: Space::Global,
        };
        let warm = Gpu::new(cfg.clone(), &[(base, 4 * LINE)]);
        let cold = Gpu::new(cfg, &[]);
        let first = |gpu: &Gpu, n: u64| SmMem::default().access(gpu, 0, &line(n), Kind::Load);
        assert_eq!(first(&warm, 0), 291);
        assert_eq!(first(&warm, 1), 291);
        assert_eq!(first(&warm, 2), 670, "past L2's room");
        assert_eq!(first(&cold, 0), 670);
    }

    /// What `one_wave_shared` takes on trust for a broadcast: the walk
    /// finds one wavefront at every width and offset, and two lanes apart
    /// at a 16-byte width take more (the walk does count them).
    #[test]
    fn a_broadcast_is_one_wave_at_any_width() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut m = SmMem::default();
        for i in 0..20_000u64 {
            let bytes = [1, 2, 4, 8, 16, 32][i as usize % 6];
            let a = next(&mut x) % 49_152;
            let mut acc = Accesses {
                lanes: u32::MAX,
                addrs: [a; WARP_SIZE],
                bytes,
                space: Space::Shared,
            };
            assert!(one_wave_shared(&acc, false, true));
            assert_eq!(m.bank_waves(&acc), 1, "{bytes} {a:#x}");
            if bytes == 16 {
                acc.addrs[7] = (a & !15) + 128;
                assert!(m.bank_waves(&acc) > 1, "{a:#x}");
            }
        }
    }

    /// Where `sector_run` answers, it is what the lane walk finds, and it
    /// answers for a warp's consecutive elements at any offset.
    // Opens as `glance_agrees_with_the_walk` does (a xorshift stream of
    // random accesses): each test draws its own (issue 27).
    #[test]
    fn a_sector_run_is_what_the_lane_walk_finds() {
        let mut x = 0x51_7cc1_b727_220au64;
        let mut runs = 0;
        for i in 0..100_000u64 {
            let r = next(&mut x);
            let bytes = [1, 2, 4, 8, 16, 32, 0, 64][(r >> 40) as usize % 8];
            let base = next(&mut x) % (1 << 20);
            let stride = [0, 1, 2, 4, 8, 16, 32, 33][(r >> 44) as usize % 8];
            let lanes = if i % 8 == 7 { r as u32 } else { u32::MAX };
            let mut addrs: [u64; WARP_SIZE] = std::array::from_fn(|l| base + stride * l as u64);
            if (r >> 50).is_multiple_of(4) {
                addrs[(r >> 56) as usize % 32] = next(&mut x) % (1 << 20);
            }
            let acc = Accesses {
                lanes,
                addrs,
                bytes,
                space: Space::Global,
            };
            let mut walk = Vec::new();
            lane_sectors(&acc, &mut walk);
            if let Some((first, last)) = sector_run(&acc) {
                runs += 1;
                assert_eq!(walk, (first..=last).collect::<Vec<_>>(), "{acc:?}");
            } else if lanes == u32::MAX
                && stride == u64::from(bytes)
                && stride > 0
                && bytes <= 32
                && !(r >> 50).is_multiple_of(4)
            {
                panic!("consecutive elements without a run: {acc:?}");
            }
        }
        assert!(runs > 20_000, "{runs}");
    }
}
