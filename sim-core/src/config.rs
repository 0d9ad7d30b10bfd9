//! SM configuration and the per-architecture presets.
//!
//! Every preset figure carries its source. Presets are derived, not copied:
//! `sm_30` is `sm_13` plus the Kepler differences, `sm_53` is `sm_30` plus the
//! Maxwell differences, `sm_90` is `sm_53` plus the Hopper differences, and any
//! other `sm_XY` is its generation's preset plus stated differences.
//!
//! Sources, abbreviated in the comments:
//! - **Guide**: CUDA C Programming Guide, "Arithmetic Instructions" throughput
//!   table (results per clock per SM) and "Technical Specifications per Compute
//!   Capability" table (resident warps).
//! - **Tesla**: Lindholm et al., "NVIDIA Tesla: A Unified Graphics and Computing
//!   Architecture", IEEE Micro 28(2), 2008 (GT200: 8 SPs, 1 warp-instr / 4 clocks).
//! - **Kepler WP**: NVIDIA GeForce GTX 680 (GK104) whitepaper, 2012 (4 warp
//!   schedulers x 2 dispatch units per SMX).
//! - **Maxwell WP**: NVIDIA GeForce GTX 980 (GM204) whitepaper, 2014 (4 processing
//!   blocks, one scheduler each); GM20B (Tegra X1) uses the same SMM.
//! - **Hopper WP**: NVIDIA H100 Tensor Core GPU Architecture whitepaper, 2022
//!   (4 SM sub-partitions, 16 INT32 lanes each).
//! - **Volkov**: V. Volkov, "Understanding Latency Hiding on GPUs", PhD thesis,
//!   UC Berkeley, 2016 (dependent arithmetic latency: GT200 24, Fermi 18,
//!   Kepler 9, Maxwell/Pascal 6 cycles).
//! - **Jia**: Jia et al., "Dissecting the NVIDIA Volta GPU Architecture via
//!   Microbenchmarking", 2018 (4-cycle dependent ALU latency from Volta on).
//! - **Wong**: Wong et al., "Demystifying GPU Microarchitecture through
//!   Microbenchmarking", ISPASS 2010 (GT200 double precision ~2x single latency).
//! - **research**: the project's research notes, which collect the above and
//!   ptxas/nvdisasm listings of the instructions on sm_35, sm_53 and sm_90.

use serde::Serialize;
use sim_isa::Target;

/// A functional unit (pipe) class: sim-isa's, the one vocabulary of the
/// database's native classes and the SM model's pipes (each scheduler
/// partition has one pipe per class). Where a machine-code table exists,
/// each machine opcode maps to one of these pipes ([`crate::pipes`]).
pub use sim_isa::db::UnitClass;

/// One functional-unit class of an SM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct UnitConfig {
    /// 32-bit lanes per clock per SM (split evenly over the schedulers); 0 = absent.
    /// A warp instruction occupies a partition's unit for `32 * schedulers / lanes` clocks.
    pub lanes_per_sm: u32,
    /// Cycles from issue until a dependent instruction may issue.
    pub latency: u32,
}

impl UnitConfig {
    /// A unit with `lanes_per_sm` lanes and `latency`.
    pub const fn new(lanes_per_sm: u32, latency: u32) -> Self {
        UnitConfig {
            lanes_per_sm,
            latency,
        }
    }
    /// The absent unit.
    pub const NONE: UnitConfig = UnitConfig {
        lanes_per_sm: 0,
        latency: 0,
    };
}

/// Functional units of an SM, one field per [`UnitClass`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Units {
    /// [`UnitClass::IntAlu`]
    pub int_alu: UnitConfig,
    /// [`UnitClass::IntCmp`]
    pub int_cmp: UnitConfig,
    /// [`UnitClass::Fp32`]
    pub fp32: UnitConfig,
    /// [`UnitClass::Fp16`]
    pub fp16: UnitConfig,
    /// [`UnitClass::Fp64`]
    pub fp64: UnitConfig,
    /// [`UnitClass::Video`]
    pub video: UnitConfig,
    /// [`UnitClass::VideoAbsdiff`]
    pub video_absdiff: UnitConfig,
    /// [`UnitClass::Xu`]
    pub xu: UnitConfig,
}

impl Units {
    /// The unit of `class`.
    pub const fn get(&self, class: UnitClass) -> UnitConfig {
        match class {
            UnitClass::IntAlu => self.int_alu,
            UnitClass::IntCmp => self.int_cmp,
            UnitClass::Fp32 => self.fp32,
            UnitClass::Fp16 => self.fp16,
            UnitClass::Fp64 => self.fp64,
            UnitClass::Video => self.video,
            UnitClass::VideoAbsdiff => self.video_absdiff,
            UnitClass::Xu => self.xu,
        }
    }
}

/// Which machine-code expansion table an SM uses ([`crate::lowering`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum LoweringArch {
    /// Every PTX instruction is one machine instruction (GT200: no video, no f16).
    Native,
    /// Kepler (`sm_35` listings; every video instruction native).
    Kepler,
    /// Maxwell (`sm_53` counts; only `vabsdiff4.u32` native).
    Maxwell,
    /// Hopper (`sm_90` listings).
    Hopper,
}

impl LoweringArch {
    /// The table's architecture column (`sm_35`, `sm_53`, `sm_90`), or `None` for [`LoweringArch::Native`].
    pub const fn table_arch(self) -> Option<&'static str> {
        match self {
            LoweringArch::Native => None,
            LoweringArch::Kepler => Some("sm_35"),
            LoweringArch::Maxwell => Some("sm_53"),
            LoweringArch::Hopper => Some("sm_90"),
        }
    }
}

/// The four measured presets every configuration derives from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Preset {
    /// `sm_13`, GT200 (Tesla).
    Gt200,
    /// `sm_30`, GK104 (Kepler).
    Gk104,
    /// `sm_53`, GM20B (Maxwell).
    Gm20b,
    /// `sm_90`, GH100 (Hopper).
    Gh100,
}

impl Preset {
    /// Every preset, oldest first.
    pub const ALL: [Preset; 4] = [Preset::Gt200, Preset::Gk104, Preset::Gm20b, Preset::Gh100];

    /// The target the preset models.
    pub const fn target(self) -> Target {
        match self {
            Preset::Gt200 => Target::SM_13,
            Preset::Gk104 => Target::SM_30,
            Preset::Gm20b => Target::SM_53,
            Preset::Gh100 => Target::SM_90,
        }
    }

    /// The chip's name, for display (`GM20B`).
    pub const fn chip(self) -> &'static str {
        match self {
            Preset::Gt200 => "GT200",
            Preset::Gk104 => "GK104",
            Preset::Gm20b => "GM20B",
            Preset::Gh100 => "GH100",
        }
    }
}

/// Bounds on one SM's run, so that no input runs unbounded. A run that
/// reaches one stops with [`crate::SimError::LimitExceeded`], which carries
/// the statistics so far. Checked by [`crate::Sm::run_to_completion`] (and so
/// by [`crate::Simulation::run`], per SM) between clocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Limits {
    /// The clock a run may reach with work left. Skipped idle stretches stop
    /// at it exactly; results still draining past it are not a stop.
    pub max_cycles: u64,
    /// Warp instructions an SM may issue with work left. Checked after each
    /// clock, so a stopped run may have issued up to one clock's
    /// instructions (`schedulers x issue_width`) more.
    pub max_instructions: u64,
}

impl Limits {
    /// The defaults: 10^12 cycles and 10^10 warp instructions per SM. Real
    /// work stays far below (a full H100 launch of a long kernel is about
    /// 10^9 warp instructions per SM); a run at the default instruction limit
    /// takes minutes at tens of millions of instructions per second, where an
    /// unbounded loop would take hours.
    pub const DEFAULT: Limits = Limits {
        max_cycles: 1_000_000_000_000,
        max_instructions: 10_000_000_000,
    };
    /// No limit.
    pub const NONE: Limits = Limits {
        max_cycles: u64::MAX,
        max_instructions: u64::MAX,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

/// Every parameter of one SM. Plain data: build one from [`preset`] and edit fields.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SmConfig {
    /// Target the SM models (its compute capability).
    #[serde(serialize_with = "target_name")]
    pub target: Target,
    /// The measured preset this configuration derives from.
    pub base: Preset,
    /// Maximum resident warps; further warps wait until one finishes.
    pub resident_warps: u32,
    /// Warp schedulers (partitions); warps are assigned round-robin.
    pub schedulers: u32,
    /// Micro-ops each scheduler may issue per issue slot (dual issue = 2).
    pub issue_width: u32,
    /// Clocks between a scheduler's issue slots (GT200: 4).
    pub issue_interval: u32,
    /// Functional units.
    pub units: Units,
    /// Expansion table for instructions without a native machine instruction.
    pub lowering: LoweringArch,
    /// Instruction cache ([`ICache::NONE`]: not modelled, every fetch hits).
    pub icache: ICache,
    /// Clocks from a taken branch's issue until the warp may issue its
    /// target (the fetch redirect; a dependency wait overlaps it), for the
    /// branches a host marks ([`crate::Sm::push_branch_target`]). 0: free.
    pub taken_branch_cycles: u32,
    /// Bounds on a run ([`Limits::DEFAULT`] in every preset).
    pub limits: Limits,
}

/// The instruction cache, as it matters to a warm kernel: the microbenchmarks
/// are timed as the fastest of several runs, so machine code that fits stays
/// resident from run to run and only a program larger than the cache pays
/// for fetching. Lines are resident in the order first fetched until the
/// cache is full; a line fetched after that is not resident, and the warp
/// that fetches it loses `miss_cycles` (one loop pass over code larger than
/// the cache then misses on exactly the lines that do not fit).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ICache {
    /// Bytes of machine code the cache holds (0: not modelled).
    pub bytes: u32,
    /// Bytes per line.
    pub line_bytes: u32,
    /// Bytes per machine instruction.
    pub inst_bytes: u32,
    /// Clocks a warp loses per line it fetches that is not resident.
    pub miss_cycles: u32,
}

impl ICache {
    /// Not modelled: every fetch hits.
    pub const NONE: ICache = ICache {
        bytes: 0,
        line_bytes: 128,
        inst_bytes: 16,
        miss_cycles: 0,
    };

    /// Whether the cache is modelled.
    pub const fn modelled(&self) -> bool {
        self.bytes != 0
    }
}

fn target_name<S: serde::Serializer>(t: &Target, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(t)
}

impl SmConfig {
    /// The name reports show: `sm_53 (GM20B)` for a preset's own target,
    /// `sm_35 (from sm_30 (GK104))` for one derived from it.
    pub fn name(&self) -> String {
        let (sm, base) = (self.target.sm, self.base);
        if sm == base.target().sm {
            format!("sm_{sm} ({})", base.chip())
        } else {
            format!("sm_{sm} (from sm_{} ({}))", base.target().sm, base.chip())
        }
    }
}

/// Dependent integer ALU latency per generation (Volkov; Jia for sm_70+).
const LAT_GT200: u32 = 24;
const LAT_FERMI: u32 = 18;
const LAT_KEPLER: u32 = 9;
const LAT_MAXWELL: u32 = 6;
const LAT_VOLTA_ON: u32 = 4;

fn sm_13() -> SmConfig {
    SmConfig {
        target: Preset::Gt200.target(),
        base: Preset::Gt200,
        // Guide, resident warps per SM for 1.2/1.3: 32.
        resident_warps: 32,
        // Tesla: one instruction unit per SM.
        schedulers: 1,
        issue_width: 1,
        // Tesla: a warp instruction is issued over 4 clocks to the 8 SPs.
        issue_interval: 4,
        units: Units {
            // Guide 1.x: 32-bit int add/logic 8 per clock; Volkov: 24 cycles.
            int_alu: UnitConfig::new(8, LAT_GT200),
            // Guide 1.x: compare/min/max 8 per clock.
            int_cmp: UnitConfig::new(8, LAT_GT200),
            // Guide 1.x: f32 8 per clock.
            fp32: UnitConfig::new(8, LAT_GT200),
            // No half precision before sm_53 (PTX: f16 set needs sm_53).
            fp16: UnitConfig::NONE,
            // Guide 1.3: f64 1 per clock (one DP unit per SM); Wong: ~2x SP latency.
            fp64: UnitConfig::new(1, 2 * LAT_GT200),
            // No SIMD video instructions before sm_30 (PTX ISA).
            video: UnitConfig::NONE,
            video_absdiff: UnitConfig::NONE,
            // No machine-code table here (every instruction native on its class):
            // no PTX form the simulator runs uses this pipe; kept at the ALU's
            // rate and latency.
            xu: UnitConfig::new(8, LAT_GT200),
        },
        lowering: LoweringArch::Native,
        // No instruction-cache measurement before sm_90: not modelled.
        icache: ICache::NONE,
        // No branch measurement before sm_90: free.
        taken_branch_cycles: 0,
        limits: Limits::DEFAULT,
    }
}

fn sm_30() -> SmConfig {
    let base = sm_13();
    SmConfig {
        target: Preset::Gk104.target(),
        base: Preset::Gk104,
        // Guide, 3.0: 64 resident warps.
        resident_warps: 64,
        // Kepler WP: 4 warp schedulers, 2 dispatch units each.
        schedulers: 4,
        issue_width: 2,
        issue_interval: 1,
        units: Units {
            // Guide 3.0: 32-bit int add 160 per clock; Volkov: 9 cycles.
            int_alu: UnitConfig::new(160, LAT_KEPLER),
            // Guide 3.0: compare/min/max 160.
            int_cmp: UnitConfig::new(160, LAT_KEPLER),
            // Guide 3.0: f32 192; latency assumed equal to the ALU's (Volkov).
            fp32: UnitConfig::new(192, LAT_KEPLER),
            // Guide 3.0: f64 8 per clock (GK104); latency assumed equal to the ALU's.
            fp64: UnitConfig::new(8, LAT_KEPLER),
            // Guide 3.0: SIMD video 32 per clock, vabsdiff2/4 160.
            video: UnitConfig::new(32, LAT_KEPLER),
            video_absdiff: UnitConfig::new(160, LAT_KEPLER),
            // Guide 3.0: MUFU and most conversions 32 per clock; latency
            // assumed equal to the ALU's (no published per-opcode figure).
            xu: UnitConfig::new(32, LAT_KEPLER),
            ..base.units
        },
        // research: on sm_35 every video variant is one machine instruction.
        lowering: LoweringArch::Kepler,
        ..base
    }
}

fn sm_53() -> SmConfig {
    let base = sm_30();
    SmConfig {
        target: Preset::Gm20b.target(),
        base: Preset::Gm20b,
        // Maxwell WP: 4 processing blocks, one scheduler each, one issue per clock
        // counted here (research: "GM20B 4 partitions x 1 issue").
        issue_width: 1,
        units: Units {
            // Guide 5.x: 32-bit int add 128; Volkov: 6 cycles.
            int_alu: UnitConfig::new(128, LAT_MAXWELL),
            // Guide 5.x: compare/min/max 64.
            int_cmp: UnitConfig::new(64, LAT_MAXWELL),
            // Guide 5.x: f32 128.
            fp32: UnitConfig::new(128, LAT_MAXWELL),
            // Guide 5.3: half2 256 results per clock = 128 32-bit lanes of HSET2.
            fp16: UnitConfig::new(256 / 2, LAT_MAXWELL),
            // Guide 5.3: f64 4 per clock.
            fp64: UnitConfig::new(4, LAT_MAXWELL),
            // Guide 5.x: SIMD video is "multiple instructions": emulated (lowering table).
            video: UnitConfig::NONE,
            // Native VABSDIFF4; no published rate: assumed the compare/min/max rate (64).
            video_absdiff: UnitConfig::new(64, LAT_MAXWELL),
            // Guide 5.x: MUFU, popc, clz and conversions 32 per clock; latency
            // assumed equal to the ALU's (no published per-opcode figure).
            xu: UnitConfig::new(32, LAT_MAXWELL),
        },
        // sm_53 machine code (ptxas 12.4, tools/lowering/derive_sass.py).
        lowering: LoweringArch::Maxwell,
        ..base
    }
}

fn sm_90() -> SmConfig {
    let base = sm_53();
    SmConfig {
        target: Preset::Gh100.target(),
        base: Preset::Gh100,
        units: Units {
            // Guide 9.0: 32-bit int add 64 per clock (Hopper WP: 16 INT32 lanes per
            // partition); Jia: 4-cycle dependent latency from Volta on.
            int_alu: UnitConfig::new(64, LAT_VOLTA_ON),
            // Guide 9.0: compare/min/max 64.
            int_cmp: UnitConfig::new(64, LAT_VOLTA_ON),
            // Guide 9.0: f32 128 (the FMA pipe); H100: FFMA/FADD/FMUL 4 cycles.
            fp32: UnitConfig::new(128, LAT_VOLTA_ON),
            // Guide 9.0: half2 256 results = 128 lanes of HSET2.
            fp16: UnitConfig::new(256 / 2, LAT_VOLTA_ON),
            // Guide 9.0: f64 64 per clock; H100: DADD/DFMA 8 cycles, 2 per clock.
            fp64: UnitConfig::new(64, 8),
            // Native VABSDIFF4 at the integer rate 64 (issue 3 table).
            video_absdiff: UnitConfig::new(64, LAT_VOLTA_ON),
            // Guide 9.0: MUFU and conversions 16 per clock; H100: MUFU.EX2,
            // POPC, FLO, BREV, F2I 0.5 warp-instructions per clock, MUFU.EX2
            // 17.25 cycles after MUFU.EX2 (POPC/BREV/F2I 23.3 with a dependent
            // LOP3: 4, 2 into the XU, `pipes::crossing`, and 17).
            xu: UnitConfig::new(16, 17),
            ..base.units
        },
        lowering: LoweringArch::Hopper,
        // H100 (microbench.json, machine code in its kernel texts): loops of
        // 31.8 KiB (b8_lat) run at their static schedule, one of 44 KiB
        // (b3_lat) loses 1,506 clocks per pass over the 88 lines of 128 B
        // beyond 32 KiB: 17 each. 16-byte instructions from Volta on (Jia
        // et al. 2018); 128-byte lines assumed.
        icache: ICache {
            bytes: 32 * 1024,
            line_bytes: 128,
            inst_bytes: 16,
            miss_cycles: 17,
        },
        // H100: no fetch redirect to add. `b21` (`selp`) and `b25`
        // (`set.f16`) are the latency loops whose window holds the loop alone
        // (ptxas waits for their loaded inputs before the first clock read,
        // `microbench-sm90.sass.gz`: ISETP or PRMT on the load's barrier
        // ahead of the CS2R): 7.2-7.4 cycles per iteration beyond their 64
        // links of 4, which the loop's own VIADD, ISETP and BRA already take
        // in the model (a launch of the same loop: 8.25 with 0 here, `b21`
        // within 0.3%). The 16 cycles more per iteration of `b4`, `b5`,
        // `b17`, `b23`, `b24` are one wait of about 260 for their inputs,
        // which their first link reads after the clock read.
        taken_branch_cycles: 0,
        ..base
    }
}

/// The preset for `target`: `sm_13`, `sm_30`, `sm_53`, `sm_90`, or for any other
/// `sm_XY` its generation's preset with the stated differences.
pub fn preset(target: Target) -> SmConfig {
    let sm = target.sm;
    let mut c = match sm {
        0..=19 => sm_13(),
        20..=29 => {
            // Fermi: nearest preset is Kepler; differences from the Guide (2.x:
            // 48 resident warps, int add 32 per clock) and Fermi WP (2 schedulers,
            // single issue); Volkov: 18 cycles. No video before sm_30.
            let mut c = sm_30();
            c.resident_warps = 48;
            c.schedulers = 2;
            c.issue_width = 1;
            c.units = Units {
                int_alu: UnitConfig::new(32, LAT_FERMI),
                xu: UnitConfig::new(32, LAT_FERMI),
                int_cmp: UnitConfig::new(32, LAT_FERMI),
                fp32: UnitConfig::new(32, LAT_FERMI),
                fp64: UnitConfig::new(16, LAT_FERMI),
                video: UnitConfig::NONE,
                video_absdiff: UnitConfig::NONE,
                ..c.units
            };
            c
        }
        30..=39 => sm_30(),
        40..=69 => sm_53(),
        _ => sm_90(),
    };
    match sm {
        // Guide 1.0/1.1: 24 resident warps, no f64.
        10 | 11 => {
            c.resident_warps = 24;
            c.units.fp64 = UnitConfig::NONE;
        }
        12 => c.units.fp64 = UnitConfig::NONE,
        // Guide 3.5/3.7: f64 64 per clock (GK110/GK210).
        35 | 37 => c.units.fp64.lanes_per_sm = 64,
        // Guide 5.0/5.2: no f16 arithmetic.
        50 | 52 => c.units.fp16 = UnitConfig::NONE,
        // Guide 6.0: f64 32 per clock; 6.1: f16x2 2 per clock (1 lane of HSET2).
        60 => c.units.fp64.lanes_per_sm = 32,
        61 => c.units.fp16.lanes_per_sm = 1,
        _ => {}
    }
    c.target = target;
    c
}

/// Warp scheduling policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Default)]
pub enum SchedPolicy {
    /// Loose round-robin: start after the warp that issued last.
    #[default]
    Lrr,
    /// Greedy-then-oldest: keep the last warp while it can issue, else the oldest.
    Gto,
    /// Always the oldest ready warp.
    Oldest,
}

impl SchedPolicy {
    /// Parses `lrr`, `gto`, `oldest`.
    pub fn parse(s: &str) -> Option<SchedPolicy> {
        match s {
            "lrr" => Some(SchedPolicy::Lrr),
            "gto" => Some(SchedPolicy::Gto),
            "oldest" => Some(SchedPolicy::Oldest),
            _ => None,
        }
    }
    /// Name as accepted by [`SchedPolicy::parse`].
    pub const fn name(self) -> &'static str {
        match self {
            SchedPolicy::Lrr => "lrr",
            SchedPolicy::Gto => "gto",
            SchedPolicy::Oldest => "oldest",
        }
    }
}
