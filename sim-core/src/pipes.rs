//! The pipe model: which pipe of a sub-partition each machine opcode runs on,
//! at what rate, and how long a dependent instruction waits for its result;
//! and the timing of a whole machine-code sequence (one PTX instruction's
//! lowering, [`crate::sass_table`]) derived from it.
//!
//! Pipes are the configuration's units ([`UnitClass`]): `int_alu` is the
//! integer/ALU pipe, `fp32` the FMA pipe, `fp64` the double-precision pipe,
//! `xu` the multi-function/conversion pipe, `video` Kepler's SIMD video unit,
//! `video_absdiff` the `VABSDIFF` datapath, `int_cmp` and `fp16` Maxwell's
//! separately rated compare and half-precision paths. A unit's `lanes_per_sm`
//! gives its issue interval per sub-partition (`32 x schedulers / lanes`
//! clocks per warp instruction) and its `latency` the default dependent-issue
//! latency. An opcode rule may run an opcode at a lower rate on its pipe
//! (sm_90 `IMAD` on the FMA pipe: 64 lanes of its 128) and adjust its latency
//! (sm_90 `DSETP`: 4 less than FP64's 8), and has a side between which and
//! others a result takes longer ([`crossing`]). Every figure is cited in the
//! rule tables below; docs/timing-model.md ("The pipe model") summarises them.

use crate::config::{SmConfig, UnitClass};
use crate::sass_table::{MachineInst, SassArch, Src};
use sim_isa::WARP_SIZE;

/// How one machine opcode (with the modifiers that matter) runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The opcode (`IMAD`).
    pub opcode: &'static str,
    /// A modifier prefix that must follow it (`.IADD`), or `""` for any.
    pub modifiers: &'static str,
    /// The pipe.
    pub pipe: UnitClass,
    /// Lanes per clock per SM at which this opcode issues on its pipe (0: the
    /// pipe's own `lanes_per_sm`). Must divide `32 x schedulers x` the pipe's lanes.
    pub lanes_per_sm: u32,
    /// Clocks added to the pipe's latency (negative: fewer).
    pub extra_latency: i32,
    /// How many times longer than `lanes_per_sm` says the opcode holds its
    /// pipe (1 but for rates below one lane per clock per SM).
    pub slower: u32,
    /// Where its results come from and its operands arrive, for [`crossing`]
    /// (the pipe's side unless the rule says otherwise).
    pub side: Side,
}

/// Where a machine instruction receives its operands and delivers its
/// result, as far as the clocks a result takes to pass from one to another
/// go ([`crossing`]): a pipe's, or, for the half-precision compares, a side
/// of their own on the ALU pipe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// The integer/ALU pipe.
    Alu,
    /// The FMA pipe.
    Fma,
    /// The XU, and the pipes without a side of their own (which only run
    /// where no crossing costs: Kepler's and Maxwell's video, compare and
    /// half-precision pipes).
    Xu,
    /// The FP64 pipe.
    Fp64,
    /// `HSET2` and `HSETP2` (sm_90).
    HalfCompare,
}

impl Side {
    /// Every side, in the order of the scoreboard's columns.
    pub const ALL: [Side; 5] = [
        Side::Alu,
        Side::Fma,
        Side::Xu,
        Side::Fp64,
        Side::HalfCompare,
    ];

    /// The side of a pipe.
    pub const fn of(pipe: UnitClass) -> Side {
        match pipe {
            UnitClass::IntAlu => Side::Alu,
            UnitClass::Fp32 => Side::Fma,
            UnitClass::Fp64 => Side::Fp64,
            UnitClass::Xu
            | UnitClass::IntCmp
            | UnitClass::Fp16
            | UnitClass::Video
            | UnitClass::VideoAbsdiff => Side::Xu,
        }
    }
}

const fn r(opcode: &'static str, pipe: UnitClass) -> Rule {
    Rule {
        opcode,
        modifiers: "",
        pipe,
        lanes_per_sm: 0,
        extra_latency: 0,
        slower: 1,
        side: Side::of(pipe),
    }
}

const fn slower(mut rule: Rule, k: u32) -> Rule {
    rule.slower = k;
    rule
}

const fn half_compare(mut rule: Rule) -> Rule {
    rule.side = Side::HalfCompare;
    rule
}

const fn rate(mut rule: Rule, lanes_per_sm: u32) -> Rule {
    rule.lanes_per_sm = lanes_per_sm;
    rule
}

const fn lat(mut rule: Rule, extra: i32) -> Rule {
    rule.extra_latency = extra;
    rule
}

const fn with(mut rule: Rule, modifiers: &'static str) -> Rule {
    rule.modifiers = modifiers;
    rule
}

use UnitClass::{Fp16, Fp32, Fp64, IntAlu, IntCmp, Video, VideoAbsdiff, Xu};

/// A rule table: first the rows that say more than a pipe (a rate, a
/// latency, modifiers, a side), then each pipe with the opcodes that run on
/// it at its own rate and latency (`r(opcode, pipe)` each). The rows come
/// first in the table, so a row with modifiers is tried before a plain one.
macro_rules! rules {
    (rows: [$($row:expr),* $(,)?] $($pipe:ident: [$($op:literal),* $(,)?])*) => {
        &[$($row,)* $($(r($op, $pipe),)*)*]
    };
}

/// Kepler (`sm_35` listings, the `sm_30` preset). Rates from the CUDA C
/// Programming Guide's throughput table, compute capability 3.0 (results per
/// clock per SM): add/logic/compare/min/max 160 (the `int_alu`/`int_cmp`
/// pipes), shifts 64, 32-bit multiply/multiply-add 32, f32 192, f64 8 (3.5: 64),
/// SIMD video 32 but `vabsdiff2/4` 160, `popc` and `clz` 32, conversions from
/// 8/16-bit to 32-bit 128, other conversions and MUFU 32 (the `xu` pipe).
/// Latencies: the unit's (Volkov's 9 for all Kepler arithmetic); no published
/// per-opcode figure is used.
pub const KEPLER: &[Rule] = rules! {
    rows: [
        rate(r("I2I", Xu), 128),
        rate(r("IMAD", IntAlu), 32),
        rate(r("IMUL", IntAlu), 32),
        rate(r("SHF", IntAlu), 64),
        rate(r("SHL", IntAlu), 64),
        rate(r("SHR", IntAlu), 64),
    ]
    IntAlu: [
        "BFE", "BFI", "IADD", "IADD32I", "ISUB", "LOP", "LOP32I", "MOV", "MOV32I", "PRMT",
        // Not measured: predicate logic (`fns` sets a constant predicate with
        // it) as the logic unit's LOP.
        "PSETP",
        "SEL",
    ]
    IntCmp: [
        "CSETP", "ICMP", "IMNMX", "ISET", "ISETP",
    ]
    Fp64: [
        "DADD", "DFMA", "DMNMX", "DMUL", "DSET", "DSETP",
    ]
    Xu: [
        "F2F", "F2I", "FLO", "I2F", "MUFU", "POPC",
        // Range reduction ahead of MUFU.SIN/COS/EX2: the multi-function unit's
        // path (the Guide counts the pair as one transcendental, 32 per clock).
        "RRO",
    ]
    Fp32: [
        "FADD", "FCMP", "FFMA", "FMNMX", "FMUL", "FSET", "FSETP",
    ]
    VideoAbsdiff: [
        // Not measured: ISAD (`sad`, |a - b| + c in one instruction) as
        // VABSDIFF2/4, the absolute-difference datapath that accumulates too
        // (the Guide's `vabsdiff2/4` rate, 160, is also its add/compare rate).
        "ISAD",
        "VABSDIFF2", "VABSDIFF4",
    ]
    Video: [
        "VADD2", "VADD4", "VMNMX2", "VMNMX4", "VSET2", "VSET4",
    ]
};

/// Maxwell (`sm_53` listings, the `sm_53` preset): Kepler's rules ([`KEPLER`])
/// with these differences, which come first. Guide, compute capability
/// 5.x/5.3: add/logic 128 (`int_alu`), compare/min/max 64 (`int_cmp`), shifts
/// and bit-field 64, f32 and `XMAD` (16-bit multiply-add, how Maxwell
/// multiplies) 128, half precision 256 results = 128 lanes of `HADD2`/`HSET2`
/// (and `HMUL2`/`HFMA2`: the guide's rate is for all half arithmetic) (`fp16`), f64 4, `popc`, `clz`, all conversions and MUFU 32 (`xu`).
/// `VABSDIFF4`: no published rate, the compare rate (64) assumed. Latencies:
/// the unit's (Volkov: 6).
pub const MAXWELL: &[Rule] = rules! {
    rows: [
        rate(r("BFE", IntAlu), 64),
        rate(r("BFI", IntAlu), 64),
    ]
    Fp16: [
        "HADD2", "HFMA2", "HMUL2", "HSET2", "HSETP2",
    ]
    Xu: [
        "I2I",
    ]
    IntAlu: [
        "IADD3", "ISCADD", "LEA", "LOP3",
    ]
    Fp32: [
        "IMAD", "XMAD",
    ]
    VideoAbsdiff: [
        // Not measured: the scalar VABSDIFF (`sad.s32/u32`, its `.ACC` adding c)
        // as VABSDIFF4, the same absolute-difference datapath (Kepler's rule).
        "VABSDIFF",
    ]
};

/// Hopper (`sm_90` listings, the `sm_90` preset): Maxwell's rules with these
/// differences, which come first (what Hopper runs as Maxwell did: FFMA, FADD,
/// FMUL on the FMA pipe; DADD, DFMA, DMUL on FP64; PRMT, SEL, LOP3, IADD3, LEA,
/// MOV on the ALU; MUFU, POPC, FLO, F2I, I2F, F2F on XU). Fitted to the H100
/// microbenchmarks (`data/calibration/h100/microbench.json`, the `sass:` rows
/// isolate one opcode each; "H100" below). ALU pipe (`int_alu`, 64 lanes: one
/// warp instruction per 2 clocks per sub-partition, H100: PRMT, LOP3, SHF, SEL,
/// ISETP, FSET, HSET2, VIMNMX, IABS, I2I, I2FP each 2 per clock per SM, and
/// pairs of them share the rate), latency 4 (H100: 4.37 cycles per instance
/// including the loop). FMA pipe (`fp32`, 128 lanes, latency 4; H100 FFMA,
/// FADD, FMUL 3.9 per clock): IMAD and its forms (H100: IMAD 2 per clock,
/// overlapping LOP3: `IMAD.IADD`+`LOP3` 3.8 per clock) and `VIADD` (H100:
/// not on the ALU pipe, `vavrg4` ALU-bound) at 64 lanes. FP64 (`fp64`, 64
/// lanes, latency 8: H100 DADD/DFMA 8.3 cycles, 2 per clock). XU (`xu`, 16
/// lanes, latency 17: H100 MUFU.EX2, POPC, FLO, BREV, F2I 0.5 per clock,
/// MUFU.EX2 17.25 cycles, POPC/BREV/F2I+LOP3 23.3 with the crossing into the
/// XU). `HSET2` and `HSETP2` forward on a side of their own (`HSETP2`+`SEL`
/// 10.3: 5 each way, [`crossing`]). Per-opcode latencies: `DSETP` 4
/// (ptxas waits 6 before a SEL reads its predicate, 4 and the crossing out
/// of FP64; `setp.f64`+`selp.f64` 14.3: DSETP, two FSELs a pipe interval
/// apart, and the crossing back), `HADD2`/`HFMA2` 8 (8.3). `VABSDIFF4` on
/// the ALU pipe (H100: 2 per clock, 4 cycles). Results crossing between
/// pipes take longer ([`crossing`]): `add`+`xor` (`IMAD.IADD`+`LOP3`)
/// chains in 10.3 where `mad.lo` (`IMAD` alone) chains in 4.4.
pub const HOPPER: &[Rule] = rules! {
    rows: [
        lat(r("DSETP", Fp64), -4),
        lat(r("HADD2", Fp32), 4),
        lat(r("HFMA2", Fp32), 4),
        // Not measured: HMUL2 as HFMA2 (the same half-precision FMA datapath).
        lat(r("HMUL2", Fp32), 4),
        half_compare(r("HSET2", IntAlu)),
        half_compare(r("HSETP2", IntAlu)),
        rate(r("IDP", Fp32), 64),
        rate(with(r("IMAD", Fp32), ".IADD"), 64),
        rate(with(r("IMAD", Fp32), ".MOV"), 64),
        // The high-half and wide multiplies hold the FMA pipe twice as long
        // (H200, `data/calibration/h200/ubench-2026-11-30.json`: IMAD.HI.U32
        // one per 4.3 clocks a sub-partition, row u44; IMAD.WIDE.U32 one per
        // 4.0, row u45). Their latency stays ptxas's 4 (its stall counts,
        // `hopper_latencies_are_ptxas_stall_counts`), although a chain of
        // IMAD.HI took 9.25 cycles a link where ptxas leaves 6, and one of
        // IMAD.WIDE and LOP3 14.1 where the model gives 10: not explained.
        slower(rate(with(r("IMAD", Fp32), ".HI"), 64), 2),
        slower(rate(with(r("IMAD", Fp32), ".WIDE"), 64), 2),
        rate(r("IMAD", Fp32), 64),
        // The warp-wide opcodes ([`warp_rule`]). The model has no pipe of their
        // own (the hardware's MIO queue), so they hold the ALU pipe's issue at
        // their measured rate. Latencies and rates from the H200 run
        // (`data/calibration/h200/ubench.json`, the H100's SM): SHFL 24.0 cycles
        // (H100 b52: 24.2), 0.87 per clock per SM (H100: 0.99; modelled 1);
        // VOTE 13 (`setp`+`vote` 17.1 with ISETP's 4), at the ALU's rate;
        // REDUX 44 (44.1 with the move out of the uniform register it needs),
        // 0.5 per clock; MATCH.ALL 24 (`match.all`+`selp` 28.2), 0.5 per clock;
        // MATCH.ANY 368 (368.7), one per 64 clocks per SM.
        lat(rate(r("SHFL", IntAlu), 32), 20),
        lat(r("VOTE", IntAlu), 9),
        lat(rate(r("REDUX", IntAlu), 16), 40),
        lat(rate(with(r("MATCH", IntAlu), ".ALL"), 16), 20),
        // The tensor-core family (`sim_isa::db::warp_machine_opcode`). The
        // model has no tensor pipe, so they hold the FMA pipe (FP64 for DMMA)
        // at their measured rate. Measured on the H200 (2026-11-30,
        // `data/calibration/h200/ubench-2026-11-30.json`, rows u48-u53: one
        // chain through the accumulator, and 32 warps of 4 chains): HMMA.16816
        // (.F32, .F16, .F32.BF16) and IMMA.16832 24 cycles, one per 6 clocks a
        // sub-partition (two thirds of the dense rate NVIDIA's H100
        // whitepaper gives, which `mma.sync` does not reach); HMMA.1688 17,
        // one per 4 clocks (half that rate); DMMA.8x8x4 26, one per 16. Not
        // measured: HMMA.1684 (wmma's tf32, four timed as one), IMMA.16816
        // and BMMA (wmma's b1; `.xor.popc` is two) as HMMA.1688, the other
        // half-depth shape.
        lat(slower(rate(with(r("HMMA", Fp32), ".16816"), 64), 3), 20),
        lat(rate(with(r("HMMA", Fp32), ".1688"), 32), 13),
        lat(rate(with(r("HMMA", Fp32), ".1684"), 32), 13),
        lat(slower(rate(with(r("IMMA", Fp32), ".16832"), 64), 3), 20),
        lat(rate(with(r("IMMA", Fp32), ".16816"), 32), 13),
        lat(rate(r("DMMA", Fp64), 8), 18),
        lat(rate(r("BMMA", Fp32), 32), 13),
        // MOVM 24 cycles, one per 4.6 clocks a sub-partition (row u54), as
        // SHFL (24.0, one per 4.6: row r52).
        lat(rate(r("MOVM", IntAlu), 32), 20),
        slower(lat(rate(with(r("MATCH", IntAlu), ".ANY"), 1), 364), 2),
        rate(r("VIADD", Fp32), 64),
    ]
    IntAlu: [
        "BMSK", "F2FP", "F2IP", "FMNMX", "FSEL", "FSET", "FSETP",
        // Not measured: HMNMX2 on the ALU pipe as FMNMX.
        "HMNMX2",
        "I2FP", "I2I",
        // Not measured: I2IP (`cvt.pack`, two saturating conversions packed) as
        // I2I on the ALU pipe.
        "I2IP",
        "IABS", "ISETP", "PLOP3", "SGXT", "SHF", "UMOV",
        // Not measured: the scalar VABSDIFF (`sad`) on the ALU pipe as the
        // measured VABSDIFF4 (H100: 2 per clock, 4 cycles), its packed form.
        "VABSDIFF",
        "VABSDIFF4", "VIMNMX",
    ]
    Xu: [
        "BREV", "FRND",
    ]
};

/// The rules of `arch`, in the order they are tried: an arch's differences
/// before the rules it inherits, as the presets derive (Maxwell = Kepler +
/// differences, Hopper = Maxwell + differences).
pub fn rules(arch: SassArch) -> impl Iterator<Item = &'static Rule> {
    let chain: [&'static [Rule]; 3] = match arch {
        SassArch::Sm35 => [KEPLER, &[], &[]],
        SassArch::Sm53 => [MAXWELL, KEPLER, &[]],
        SassArch::Sm90 => [HOPPER, MAXWELL, KEPLER],
    };
    chain.into_iter().flatten()
}

/// The rule for `inst` on `arch`: the first whose opcode matches and whose
/// modifier prefix starts the instruction's modifiers.
pub fn rule(arch: SassArch, inst: &MachineInst) -> Option<&'static Rule> {
    let name = inst.opcode.name();
    rules(arch).find(|r| r.opcode == name && inst.modifiers.starts_with(r.modifiers))
}

/// The rule for a warp-wide operation that has no lowering row, by the
/// machine opcode and modifiers the database names for it
/// (`sim_isa::db::warp_machine_opcode`), on `arch`.
pub fn warp_rule(arch: SassArch, opcode: &str, modifiers: &str) -> Option<&'static Rule> {
    rules(arch).find(|r| r.opcode == opcode && modifiers.starts_with(r.modifiers))
}

/// The rule an integer add takes when ptxas moves it to the FMA pipe
/// (`IMAD.IADD`), where the arch has one.
pub fn fma_add(arch: SassArch) -> Option<&'static Rule> {
    rules(arch).find(|r| r.opcode == "IMAD" && r.modifiers == ".IADD")
}

/// Clocks a result produced on side `from` takes beyond its latency to reach
/// a consumer on side `to` on `arch`. ptxas schedules the fixed-latency pipes
/// of Volta and later by the stall count in each instruction's control bits,
/// so the distance it leaves from a producer to its consumer in a dependent
/// chain is its own figure for that latency: `data/forwarding-sm90.tsv`
/// (ptxas 13.0.88, `tools/lowering/derive_forwarding.py`; 557 opcode pairs)
/// and the H100 microbenchmarks' latency loops (`microbench-sm90.sass.gz`)
/// agree. Hopper:
/// - 4 clocks on the consumer's own side (ALU after ALU, IMAD after FFMA,
///   HSETP2 after HSET2), 5 between the ALU, the FMA pipe and the half
///   compares either way (IMAD.IADD after PRMT, 1,411 cases in the H100
///   loops; LOP3, ISETP, I2I, IABS after IMAD.IADD; HSET2 after LOP3 or
///   FFMA and before them; SEL after HSETP2): 1;
/// - 6 into the XU (MUFU, POPC, FLO, BREV, F2I after LOP3, SEL, FFMA, IMAD;
///   the H100 loops: LOP3 before F2I, BREV, FLO, POPC, 63 each) and into
///   FP64 (DADD, DFMA, DSETP after an ALU or FMA instruction): 2 from any
///   other side;
/// - 10 from FP64 to any other side where DADD feeds DADD in 8 (H100 `b43`,
///   8.3 cycles per instance): 2;
/// - nothing out of the XU: its results are waited for on a scoreboard
///   barrier, and the H100's `b45` (MUFU after MUFU, 17.25 cycles) and `b47`
///   (LOP3, POPC, LOP3: 23.3 = 6 + 17 and the loop) agree on 17 and no more.
///
/// Not modelled: HFMA2.MMA's 6 in and 10 out, which only the compiler's own
/// code (`--lowering compiler`) contains. Maxwell and Kepler: not measured, 0.
pub fn crossing(arch: SassArch, from: Side, to: Side) -> u64 {
    use Side::{Alu, Fma, Fp64, HalfCompare, Xu};
    match arch {
        SassArch::Sm90 => match (from, to) {
            _ if from == to => 0,
            (Fp64, _) | (_, Xu | Fp64) => 2,
            (Alu | Fma | HalfCompare, Alu | Fma | HalfCompare) => 1,
            (Xu, _) => 0,
        },
        SassArch::Sm35 | SassArch::Sm53 => 0,
    }
}

/// Whether ptxas packs two independent instances of lowering key `key` into
/// one machine instruction, so that each costs half of it on its pipe: the
/// scalar half-precision compares, which it runs as one packed `HSET2` (H100
/// `b25_tput`: 128 HSET2 per 256 `set.f16.f16`; each instance alone is one
/// HSET2, so a dependent chain gains nothing).
pub fn pairs(key: &str) -> bool {
    ["set.f16.f16.", "set.bf16.bf16.", "setp.f16.", "setp.bf16."]
        .iter()
        .any(|p| key.starts_with(p))
}

/// One machine instruction's timing on a configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpTiming {
    /// The pipe.
    pub pipe: UnitClass,
    /// Ticks of the pipe (1/`lanes_per_sm` clock each) one warp instruction
    /// occupies it in its sub-partition.
    pub ticks: u64,
    /// Clocks until a dependent instruction may issue (at least 1).
    pub latency: u64,
    /// Its side, for [`crossing`].
    pub side: Side,
}

impl OpTiming {
    /// `rule` on `config`; `None` when the configuration lacks the pipe.
    pub fn of(rule: &Rule, config: &SmConfig) -> Option<OpTiming> {
        let unit = config.units.get(rule.pipe);
        if unit.lanes_per_sm == 0 {
            return None;
        }
        let lanes = if rule.lanes_per_sm == 0 {
            unit.lanes_per_sm
        } else {
            rule.lanes_per_sm
        };
        let ticks = (WARP_SIZE as u64 * config.schedulers as u64 * unit.lanes_per_sm as u64)
            .div_ceil(lanes as u64)
            * u64::from(rule.slower.max(1));
        let latency = (i64::from(unit.latency) + i64::from(rule.extra_latency)).max(1) as u64;
        Some(OpTiming {
            pipe: rule.pipe,
            ticks,
            latency,
            side: rule.side,
        })
    }

    /// One native instruction on `pipe`, at the pipe's rate and latency.
    pub fn native(pipe: UnitClass, config: &SmConfig) -> Option<OpTiming> {
        OpTiming::of(&r("", pipe), config)
    }
}

/// Which machine instructions of a sequence run, and when its result is ready.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// Per machine instruction: whether it runs with the instruction (false:
    /// hoisted, it reads only fixed operands).
    pub runs: Vec<bool>,
    /// Clocks from the first machine instruction until the result is ready
    /// for a consumer on the side that produced it (`out_side`).
    pub delay: u64,
    /// The side of the machine instruction that produces the result
    /// (`None`: the result is an operand unchanged, or nothing runs).
    pub out_side: Option<Side>,
    /// Clocks until every register of the result is ready (a pair's high
    /// half too), for a consumer that reads them at once (FP64: ptxas waits
    /// for the high half's MOV before a DADD).
    pub pair: u64,
    /// The side that writes the result's last register (`None` as for
    /// `out_side`).
    pub pair_side: Option<Side>,
    /// The side of the first machine instruction that reads an operand that
    /// is not fixed (`None`: none does): where the sequence receives the
    /// results it waits for.
    pub in_side: Option<Side>,
}

/// The schedule of a sequence for one warp alone: instructions issue in
/// order, `issue_width` per clock at most, each once its sources are ready and
/// its pipe accepts it (the pipe is busy for the instruction's ticks, as in
/// the SM); the PTX operands are ready at the start. `fixed[k]` marks PTX
/// source `a`+k as fixed (an immediate, or a register the program never
/// changes once set): instructions that read only fixed operands are hoisted,
/// as ptxas hoists loop-invariant work and shares it between instructions.
/// The result is ready when the first of its registers is (a register pair's
/// high half follows its low half, and its consumer reads the low half first).
/// An instruction waits one `crossing` more for a source from another pipe.
pub fn schedule(
    insts: &[MachineInst],
    ops: &[OpTiming],
    outs: &[Src],
    config: &SmConfig,
    fixed: [bool; 4],
    arch: SassArch,
) -> Schedule {
    let n = insts.len();
    let mut runs = vec![false; n];
    let mut ready = vec![0u64; n];
    let mut in_side = None;
    let mut pipe_free = [0u64; UnitClass::COUNT];
    let (mut slot, mut used) = (0u64, 0u32);
    let letter = |s: Src| match s {
        Src::A => 0,
        Src::B => 1,
        Src::C => 2,
        Src::D => 3,
        Src::Inst(_) => 0,
    };
    for (i, (inst, op)) in insts.iter().zip(ops).enumerate() {
        let mut t = 0;
        let (mut live, mut reads_operand) = (false, false);
        for d in inst.deps() {
            match d {
                Src::Inst(j) => {
                    let j = usize::from(j);
                    if runs[j] {
                        live = true;
                        t = t.max(ready[j] + crossing(arch, ops[j].side, op.side));
                    }
                }
                s => reads_operand |= !fixed[letter(s)],
            }
        }
        live |= reads_operand;
        if !live {
            continue;
        }
        if reads_operand && in_side.is_none() {
            in_side = Some(op.side);
        }
        runs[i] = true;
        let c = op.pipe.index();
        let scale = u64::from(config.units.get(op.pipe).lanes_per_sm.max(1));
        // The pipe accepts an instruction in a clock it is free during.
        t = t.max(pipe_free[c] / scale).max(slot);
        if t == slot && used >= config.issue_width {
            t += 1;
        }
        if t > slot {
            (slot, used) = (t, 0);
        }
        used += 1;
        pipe_free[c] = pipe_free[c].max(t * scale) + op.ticks;
        ready[i] = t + op.latency;
    }
    let out = outs
        .iter()
        .filter_map(|o| match o {
            Src::Inst(k) if runs[usize::from(*k)] => Some(usize::from(*k)),
            _ => None,
        })
        .min_by_key(|&k| ready[k]);
    let (mut pair, mut pair_side) = (0, None);
    for o in outs {
        if let Src::Inst(k) = *o {
            let k = usize::from(k);
            if runs[k] && ready[k] >= pair {
                (pair, pair_side) = (ready[k], Some(ops[k].side));
            }
        }
    }
    Schedule {
        delay: out.map_or(0, |k| ready[k]).max(1),
        out_side: out.map(|k| ops[k].side),
        pair: pair.max(1),
        pair_side,
        in_side,
        runs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::preset;

    const MICROBENCH: &str = include_str!("../data/calibration/h100/microbench.json");

    /// The delay of a machine-code chain on sm_90, each instruction reading
    /// the one before: 4 clocks per link on one pipe, 5 across the ALU and
    /// FMA pipes, as ptxas's stall counts in the H100 microbenchmarks' chains
    /// give them (IMAD after IMAD 4; IMAD.IADD after PRMT, LOP3 or SHF 5;
    /// LOP3 after IMAD.IADD 5).
    fn chain_delay(ops: &[(&str, &str)]) -> u64 {
        let cfg = preset(sim_isa::Target::SM_90);
        let insts: Vec<MachineInst> = ops
            .iter()
            .enumerate()
            .map(|(i, (op, mods))| {
                let src = if i == 0 {
                    Src::A
                } else {
                    Src::Inst(i as u8 - 1)
                };
                MachineInst::new(op, mods, &[src]).expect("inst")
            })
            .collect();
        let timings: Vec<OpTiming> = insts
            .iter()
            .map(|i| OpTiming::of(rule(SassArch::Sm90, i).expect("rule"), &cfg).expect("pipe"))
            .collect();
        let outs = [Src::Inst(ops.len() as u8 - 1)];
        schedule(&insts, &timings, &outs, &cfg, [false; 4], SassArch::Sm90).delay
    }

    /// A row's cycles in a `tools/gpu/ubench` results file.
    fn ubench_cycles(json: &serde_json::Value, row: &str) -> f64 {
        json["results"]
            .as_array()
            .expect("results")
            .iter()
            .find(|r| r["name"] == row)
            .and_then(|r| r["cycles"].as_f64())
            .expect("row with cycles")
    }

    /// The warp-wide opcodes against the H200 run's one-warp chains and
    /// 32-warp throughput (`data/calibration/h200/ubench.json`, rows r52,
    /// u23, u26, u27, u28): cycles per instance, loop overhead included.
    #[test]
    fn warp_wide_opcodes_take_their_measured_latency_and_rate() {
        const UBENCH: &str = include_str!("../data/calibration/h200/ubench.json");
        let cfg = preset(sim_isa::Target::SM_90);
        let timing = |op: &str, mods: &str| {
            let r = warp_rule(SassArch::Sm90, op, mods).expect("rule");
            OpTiming::of(r, &cfg).expect("pipe")
        };
        let json: serde_json::Value = serde_json::from_str(UBENCH).expect("json");
        let measured = |row: &str| ubench_cycles(&json, row);
        // lat: 1024 dependent instances; the loop adds about 0.1 a piece.
        for (row, op, mods, others) in [
            ("r52_lat", "SHFL", "", 0.0),
            ("u23_lat", "REDUX", "", 0.0),
            ("u26_lat", "MATCH", ".ANY", 0.0),
            ("u27_lat", "MATCH", ".ALL", 4.0), // + selp
            ("u28_lat", "VOTE", "", 4.0),      // + setp
        ] {
            let per = measured(row) / 1024.0 - others;
            let lat = timing(op, mods).latency as f64;
            assert!((lat - per).abs() <= 1.0, "{row}: {lat} against {per:.2}");
        }
        // tput: 131,072 warp instructions on 4 sub-partitions; a pipe tick
        // is 1/64 clock (the ALU pipe's 64 lanes).
        for (row, op, mods) in [("u23_tput", "REDUX", ""), ("u26_tput", "MATCH", ".ANY")] {
            let per_sm = measured(row) / 131_072.0;
            let model = timing(op, mods).ticks as f64 / 64.0 / 4.0;
            assert!(
                (model / per_sm - 1.0).abs() < 0.02,
                "{row}: {model} against {per_sm:.3}"
            );
        }
    }

    /// The tensor-core opcodes against the H200's runs of 2026-11-30
    /// (`data/calibration/h200/ubench-2026-11-30.json`, rows u48-u54): a
    /// chain through the accumulator, and 32 warps of 4 chains; and the
    /// high-half and wide multiplies' rate (u44, u45).
    #[test]
    fn tensor_opcodes_take_their_measured_latency_and_rate() {
        const UBENCH: &str = include_str!("../data/calibration/h200/ubench-2026-11-30.json");
        let cfg = preset(sim_isa::Target::SM_90);
        let json: serde_json::Value = serde_json::from_str(UBENCH).expect("json");
        let measured = |row: &str| ubench_cycles(&json, row);
        for (row, op, mods) in [
            ("u48", "HMMA", ".16816.F32"),
            ("u49", "HMMA", ".16816.F16"),
            ("u50", "HMMA", ".16816.F32.BF16"),
            ("u51", "HMMA", ".1688.F32"),
            ("u52", "IMMA", ".16832.S8.S8"),
            ("u53", "DMMA", ".8x8x4"),
            ("u54", "MOVM", ".16.MT88"),
        ] {
            let t = OpTiming::of(warp_rule(SassArch::Sm90, op, mods).expect("rule"), &cfg)
                .expect("pipe");
            // lat: 1024 dependent instances; the loop adds about 0.1 a piece.
            let per = measured(&format!("{row}_lat")) / 1024.0;
            let lat = t.latency as f64;
            assert!((lat - per).abs() <= 1.0, "{row}: {lat} against {per:.2}");
            // tput: 131,072 warp instructions on 4 sub-partitions; a pipe tick
            // is 1/lanes of the pipe's clock.
            let per_sm = measured(&format!("{row}_tput")) / 131_072.0;
            let lanes = cfg.units.get(t.pipe).lanes_per_sm as f64;
            let model = t.ticks as f64 / lanes / 4.0;
            assert!(
                (model / per_sm - 1.0).abs() < 0.15,
                "{row}: {model} against {per_sm:.3}"
            );
        }
        // The high-half and wide multiplies' rate (their chains are not
        // explained: `HOPPER`).
        for (row, mods) in [("u44", ".HI.U32"), ("u45", ".WIDE.U32")] {
            let t = OpTiming::of(warp_rule(SassArch::Sm90, "IMAD", mods).expect("rule"), &cfg)
                .expect("pipe");
            let per_sm = measured(&format!("{row}_tput")) / 131_072.0;
            let model = t.ticks as f64 / 128.0 / 4.0;
            assert!(
                (model / per_sm - 1.0).abs() < 0.1,
                "{row}: {model} against {per_sm:.3}"
            );
        }
    }

    #[test]
    fn results_crossing_between_alu_and_fma_take_a_clock_more() {
        assert_eq!(chain_delay(&[("IMAD", ""), ("IMAD", "")]), 8);
        assert_eq!(chain_delay(&[("IMAD", ".MOV.U32"), ("IMAD", ".IADD")]), 8);
        assert_eq!(chain_delay(&[("PRMT", ""), ("LOP3", ".LUT")]), 8);
        assert_eq!(chain_delay(&[("PRMT", ""), ("IMAD", ".IADD")]), 9);
        assert_eq!(chain_delay(&[("IMAD", ".IADD"), ("LOP3", ".LUT")]), 9);
        assert_eq!(
            chain_delay(&[("LOP3", ".LUT"), ("IMAD", ".IADD"), ("LOP3", ".LUT")]),
            14
        );
        // Into the XU and FP64, and out of FP64: 2 (ptxas: LOP3 before POPC
        // 6, FFMA before DADD 6, DADD before LOP3 10); out of the XU: none;
        // to and from the half compares: 1 (ptxas: SEL after HSETP2 5, HSET2
        // after LOP3 5, HSETP2 after HSET2 4).
        assert_eq!(chain_delay(&[("LOP3", ".LUT"), ("POPC", "")]), 4 + 2 + 17);
        assert_eq!(chain_delay(&[("MUFU", ".EX2"), ("MUFU", ".EX2")]), 34);
        assert_eq!(chain_delay(&[("POPC", ""), ("LOP3", ".LUT")]), 17 + 4);
        assert_eq!(chain_delay(&[("DADD", ""), ("LOP3", ".LUT")]), 8 + 2 + 4);
        assert_eq!(chain_delay(&[("FFMA", ""), ("DADD", "")]), 4 + 2 + 8);
        assert_eq!(
            chain_delay(&[("HSETP2", ""), ("SEL", ""), ("HSETP2", "")]),
            14
        );
        assert_eq!(
            chain_delay(&[("LOP3", ".LUT"), ("HSET2", ""), ("HSET2", "")]),
            13
        );
        assert_eq!(crossing(SassArch::Sm90, Side::Fp64, Side::Xu), 2);
        // Not measured elsewhere: no crossing on Maxwell or Kepler.
        for arch in [SassArch::Sm35, SassArch::Sm53] {
            for from in Side::ALL {
                for to in Side::ALL {
                    assert_eq!(crossing(arch, from, to), 0, "{arch:?} {from:?} -> {to:?}");
                }
            }
        }
        // The pipes without a side of their own share the XU's: none runs on
        // sm_90, where crossings cost.
        let table = crate::sass_table::parse_table().expect("table");
        for row in table.iter().filter(|r| r.arch == SassArch::Sm90) {
            for inst in &row.insts {
                let rule = rule(SassArch::Sm90, inst).expect("rule");
                assert!(
                    rule.side != Side::Xu || rule.pipe == UnitClass::Xu,
                    "{} ({}) runs on {:?} without a side of its own",
                    inst.mnemonic(),
                    row.key,
                    rule.pipe
                );
            }
        }
    }

    /// The sm_90 rules and [`crossing`] against ptxas 13.0.88's own figures,
    /// the clocks it leaves between a fixed-latency producer and its consumer
    /// (`data/forwarding-sm90.tsv`, `tools/lowering/derive_forwarding.py`):
    /// every pair whose opcodes the rules know gives the producer's latency
    /// plus the crossing, but for the forms the model fits instead and two
    /// kinds of pair where the most common distance is not the latency (each
    /// listed with why).
    #[test]
    fn hopper_latencies_are_ptxas_stall_counts() {
        const TABLE: &str = include_str!("../data/forwarding-sm90.tsv");
        let cfg = preset(sim_isa::Target::SM_90);
        let timing = |name: &str| {
            let (op, mods) = name.split_at(name.find('.').unwrap_or(name.len()));
            let inst = MachineInst::new(op, mods, &[Src::A])?;
            OpTiming::of(rule(SassArch::Sm90, &inst)?, &cfg)
        };
        // Fitted, not ptxas's split (`HOPPER`): HADD2 and HFMA2 chain in 8
        // on the H100 because ptxas alternates them with HFMA2.MMA (5, 6
        // into it, 10 out of it: `b41`, `b42`), which a table row cannot;
        // IMAD.HI waits 6 for IMAD.HI (4 after any other FMA producer).
        let fitted = |p: &str, c: &str| {
            let half = |o: &str| o.starts_with("HADD2") || o.starts_with("HFMA2");
            half(p) || half(c) || (p.starts_with("IMAD.HI") && c.starts_with("IMAD.HI"))
        };
        let (mut checked, mut odd) = (0, Vec::new());
        for line in TABLE.lines().filter(|l| !l.starts_with('#')) {
            let f: Vec<&str> = line.split('\t').collect();
            let (p, c, clocks, least): (&str, &str, u64, u64) =
                (f[0], f[1], f[2].parse().unwrap(), f[3].parse().unwrap());
            let (Some(tp), Some(tc)) = (timing(p), timing(c)) else {
                continue;
            };
            if fitted(p, c) {
                continue;
            }
            checked += 1;
            let model = tp.latency + crossing(SassArch::Sm90, tp.side, tc.side);
            // A MOV that makes a pair's high half before DADD/DFMA is placed
            // while the other half is still on its way, so only the least
            // distance (6) is its latency.
            let clocks = if tc.pipe == UnitClass::Fp64 {
                least
            } else {
                clocks
            };
            // Into the XU ptxas leaves 6 after a producer that itself waited
            // for an XU result, and 4 after one that did not (most of these
            // flo/ex2 chains fold the abs or move it ahead; 40 of 1,017 XU
            // consumers in the derivation's chains): the model charges 6,
            // the case of every XU chain in the H100 loops (`b47`-`b50`).
            let clocks = if tc.pipe == UnitClass::Xu && least == 4 && model == 6 {
                6
            } else {
                clocks
            };
            if model != clocks {
                odd.push(format!(
                    "{p} -> {c}: ptxas {clocks} (least {least}), model {model}"
                ));
            }
        }
        assert!(checked >= 300, "{checked} pairs checked");
        assert!(
            odd.is_empty(),
            "{} of {checked}:\n{}",
            odd.len(),
            odd.join("\n")
        );
    }

    /// The sm_90 rules against the H100 rows that time one opcode alone
    /// (`sass:` rows without a partner): dependent latency per instance less
    /// the loop's share (0.37 cycles: 377 cycles per 1024 instances, the
    /// single-opcode rows' common excess over 4), and warp-instructions per
    /// clock per SM at 32 warps x 4 chains.
    #[test]
    fn hopper_rules_reproduce_the_single_opcode_rows() {
        let json: serde_json::Value = serde_json::from_str(MICROBENCH).expect("json");
        let cfg = preset(sim_isa::Target::SM_90);
        let cases = [
            ("b28", "PRMT", ""),
            ("b29", "LOP3", ""),
            ("b30", "IMAD", ""),
            ("b31", "SHF", ""),
            ("b38", "FFMA", ""),
            ("b39", "FADD", ""),
            ("b40", "FMUL", ""),
            ("b43", "DADD", ""),
            ("b44", "DFMA", ""),
            ("b45", "MUFU", ".EX2"),
        ];
        let rows = json["results"].as_array().expect("rows");
        let cycles = |name: &str| {
            rows.iter()
                .find(|r| r["name"] == name)
                .and_then(|r| r["h100_cycles"].as_f64())
                .expect("row")
        };
        for (b, op, mods) in cases {
            let rule = rules(SassArch::Sm90)
                .find(|r| r.opcode == op && mods.starts_with(r.modifiers))
                .expect("rule");
            let t = OpTiming::of(rule, &cfg).expect("pipe");
            let lat = cycles(&format!("{b}_lat")) / 1024.0 - 0.37;
            assert!(
                (lat - t.latency as f64).abs() <= 0.1 * lat,
                "{op}: H100 {lat:.2} cycles, rule {}",
                t.latency
            );
            let per_clock = 32.0 * 4.0 * 1024.0 / cycles(&format!("{b}_tput"));
            let lanes = f64::from(cfg.units.get(rule.pipe).lanes_per_sm);
            let rule_rate = lanes / t.ticks as f64 * f64::from(cfg.schedulers);
            assert!(
                (per_clock - rule_rate).abs() <= 0.1 * per_clock,
                "{op}: H100 {per_clock:.3} per clock, rule {rule_rate:.3}"
            );
        }
    }
}
