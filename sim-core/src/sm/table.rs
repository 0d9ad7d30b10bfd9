//! The per-program instruction table: everything the hot loop needs about each
//! instruction, computed once per program and configuration and shared,
//! immutable, by every SM that runs them.

use super::board::{self, ROW};
use super::facts;
use crate::config::{SmConfig, UnitClass};
use crate::error::SimError;
use crate::facts::{mnemonic, native_class};
use crate::pipes::{self, OpTiming, Side};
use crate::program::Program;
use crate::sass_table::{Row, SassArch, Src};
use rustc_hash::FxHashMap as HashMap;
use sim_isa::Instruction;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Marks "no register" / "no instruction".
pub(super) const NONE: u32 = u32::MAX;

/// Most registers one instruction names (guard, `p|q`, `a`, `b`, `c`;
/// `wmma.mma`'s guard and 24 fragment registers: sim-isa's `RegUses`).
pub(super) const MAX_USES: usize = sim_isa::inst::MAX_REG_USES;

/// The scoreboard column of a consumer on side `side` (`None`: it reads no
/// operand that a result can be pending on, so any column).
fn column(side: Option<Side>) -> u8 {
    side.map_or(0, |s| {
        Side::ALL.iter().position(|&x| x == s).unwrap_or(0) as u8
    })
}

/// A row of the scoreboard: per column, `ready` plus the crossing from
/// `from` to the column's side (the spares repeat the first column).
fn ready_row(arch: Option<SassArch>, ready: impl Fn(Side) -> (u64, Option<Side>)) -> [u64; ROW] {
    std::array::from_fn(|col| {
        let to = Side::ALL.get(col).copied().unwrap_or(Side::ALL[0]);
        let (ready, from) = ready(to);
        ready
            + match (arch, from) {
                (Some(a), Some(from)) => pipes::crossing(a, from, to),
                _ => 0,
            }
    })
}

/// Most pipes one instruction's machine code occupies (more are folded into
/// the busiest: `lowering_pipes_fit` in the tests counts where that happens).
pub(super) const MAX_PIPES: usize = 3;

/// Everything the hot loop needs about one program instruction, computed once.
#[derive(Clone, Copy, Debug)]
pub(super) struct InstInfo {
    /// Pipes its machine instructions occupy, and for how many ticks in all
    /// (busiest first; unused entries: 0 ticks, after the used ones).
    pub pipe: [u8; MAX_PIPES],
    pub ticks: [u64; MAX_PIPES],
    /// Machine instructions (issue slots).
    pub uops: u16,
    /// Pipes the instruction needs free to start, one bit per class: its
    /// first machine instruction's and its busiest.
    pub need: u8,
    /// Clocks from the first micro-op until the result is ready for a
    /// consumer on the side that produced it, and written (see `Sm::issue`).
    pub delay: u64,
    /// Per scoreboard column (a side of `pipes::Side::ALL`, then spares):
    /// clocks from the first micro-op until the result is ready for a
    /// consumer there (`delay` plus the crossing, `pipes::crossing`).
    pub delay_to: [u64; ROW],
    /// The side of the pipe that receives the instruction's operands (its
    /// first machine instruction reading one); `uses` names its column, for
    /// every register the instruction names (an approximation where its
    /// machine code reads operands on more than one pipe).
    pub side: u8,
    /// Clocks the scheduler spends issuing the micro-ops (0 unless expanded).
    pub busy: u64,
    pub op_id: u16,
    /// Registers read or written (the scoreboard checks both, in column
    /// `side`), padded with the sentinel `nregs`, whose entry stays 0 (a
    /// fixed-length maximum over them is exact, as the host path takes it).
    pub uses: [u32; MAX_USES],
    /// `delay_to`'s index in [`ProgramTables::rows`] (what the scoreboard
    /// keeps of a write, `board::Board`).
    pub delay_row: u16,
    /// How many of `uses` are registers: the fetch reads past the first
    /// four only when there are more (usually there are one to four).
    pub nuses: u8,
    /// Its stall classes (`stall_acc::Class`): the reason of a warp whose pipe
    /// is busy when it is ready to issue it, and of a warp held after it.
    pub throttle: u8,
    pub after: u8,
    /// The all-zero row tagged with the reason of a wait on its result
    /// (an external completion's row, `states`).
    pub flat_row: u16,
    pub writes: [u32; 2],
    pub nwrites: u8,
    /// Guard register and negation; `NONE` when unguarded.
    pub guard: u32,
    pub guard_neg: bool,
}

/// The immutable tables of one program on one configuration, built once and
/// shared by every SM that runs it ([`crate::Sm::from_tables`]): an SM's own
/// memory then does not grow with the program, only with its warps.
#[derive(Debug)]
pub struct ProgramTables {
    pub(super) cfg: SmConfig,
    pub(super) prog: Arc<Program>,
    pub(super) info: Arc<[InstInfo]>,
    /// The distinct `InstInfo::delay_to` rows, `board::FLAT` (all zeros)
    /// first: a write's row in the scoreboard.
    pub(super) rows: Arc<[[u64; ROW]]>,
    /// Per row, the stall reason of a wait on it (rows are interned with
    /// it, so the scoreboard tells a load's result from an add's for free).
    pub(super) rows_why: Arc<[u8]>,
    /// Per program instruction, decoded once for execution
    /// (`sim_isa::exec::execute_prepared`).
    pub(super) prepared: Arc<[sim_isa::exec::Prepared]>,
    /// Report mnemonics, indexed by `InstInfo::op_id`.
    pub(super) op_names: Arc<[String]>,
    /// Per program instruction: its machine instructions as (index into
    /// `mach_names`, count), and per pipe how many (for the statistics only).
    pub(super) mach: Vec<Lowered>,
    /// Machine opcode names (`IMAD.IADD`, `PRMT`), as the pipe rules name them.
    pub(super) mach_names: Vec<String>,
    /// Per program instruction, the instruction-cache lines of its machine
    /// code; empty when the program fits the cache (`icache::code_lines`).
    pub(super) code_lines: Arc<[(u32, u32)]>,
}

/// One instruction's machine code, summarised for the statistics.
#[derive(Clone, Debug, Default)]
pub(super) struct Lowered {
    pub opcodes: Vec<(u16, u16)>,
    pub pipe_ops: [u16; UnitClass::COUNT],
    /// Machine instructions hoisted out (they read only fixed operands).
    pub hoisted: u16,
}

/// How a lowering row is timed in its program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Variant {
    /// PTX sources `a`..`d` that are fixed (hoisted work, `pipes::schedule`).
    fixed: [bool; 4],
    /// Two-input IADD3s run as IMAD.IADD on the FMA pipe.
    to_fma: bool,
    /// ptxas packs two of these into one machine instruction (`pipes::pairs`).
    paired: bool,
}

/// The timing of one lowering key (or one native instruction).
#[derive(Clone, Debug)]
struct KeyTiming {
    /// Ticks per pipe, in the pipe's own ticks (for `balance`).
    pipe_ticks: [u64; UnitClass::COUNT],
    /// Two-input IADD3s that could move to the FMA pipe: their ALU ticks,
    /// and the FMA ticks they would take there.
    movable: (u64, u64),
    pipe: [u8; MAX_PIPES],
    ticks: [u64; MAX_PIPES],
    uops: u16,
    need: u8,
    delay: u64,
    delay_to: [u64; ROW],
    /// The side that receives the operands (of the first machine instruction
    /// reading one): the scoreboard column `InstInfo::uses` names.
    side: u8,
    lowered: Lowered,
}

impl ProgramTables {
    /// Checks `config` and `program` together and builds their tables. Fails
    /// if the configuration is unusable, or an instruction uses a register at
    /// or above [`Program::nregs`] or a unit the configuration lacks.
    pub fn new(config: SmConfig, program: Arc<Program>) -> Result<Arc<Self>, SimError> {
        Self::build(config, program, Vec::new(), None, None)
    }

    /// As [`ProgramTables::new`], for a program with control flow (a
    /// host's): each `(first, last)` of `loops` names the program
    /// instructions of one loop, whose back-edge is at `last` (ranges with
    /// one first instruction, a loop with several back-edges, count as the
    /// largest); `targets` are the instructions a branch leads to. An
    /// instruction's operands are then fixed, and the work on them hoisted as
    /// ptxas hoists loop-invariant work, where no instruction of its
    /// innermost loop writes them (sim-kernel: operands loaded before the
    /// loop); outside loops nothing is hoisted. A compare-select pair is not
    /// fused where the select is a target (control may reach it from
    /// elsewhere). Fails as `new` does, or if a loop or target names an
    /// instruction the program lacks.
    pub fn with_loops(
        config: SmConfig,
        program: Arc<Program>,
        loops: &[(u32, u32)],
        targets: &[u32],
    ) -> Result<Arc<Self>, SimError> {
        Self::with_loops_and_code(config, program, loops, targets, Vec::new())
    }

    /// As [`ProgramTables::with_loops`], with machine code given per program
    /// instruction as [`ProgramTables::with_machine_code`] takes it (a
    /// launch under `simcli run --lowering compiler`). Fails as both do.
    pub fn with_loops_and_code(
        config: SmConfig,
        program: Arc<Program>,
        loops: &[(u32, u32)],
        targets: &[u32],
        code: Vec<Option<Row>>,
    ) -> Result<Arc<Self>, SimError> {
        let len = program.insts.len();
        if let Some(&(a, b)) = loops.iter().find(|&&(a, b)| a > b || b as usize >= len) {
            return Err(SimError::BadConfig(format!(
                "loop {a}..={b} is not a range of the program's {len} instructions"
            )));
        }
        if let Some(&t) = targets.iter().find(|&&t| t as usize >= len) {
            return Err(SimError::BadConfig(format!(
                "branch target {t} is not one of the program's {len} instructions"
            )));
        }
        no_code_without_table(&config, &code)?;
        let control = facts::Control::new(loops, targets);
        Self::build(config, program, code, None, Some(&control))
    }

    /// As [`ProgramTables::new`], but program instruction `i` runs the
    /// machine code `code[i]` where that is `Some` (read from the compiler
    /// by a front end: `simcli run --lowering compiler`) instead of its
    /// table row; the rest (and every instruction past `code`'s end) keep the
    /// table's. Given code is timed as it is: ptxas already chose `IMAD.IADD`
    /// or `IADD3` and packed what it packs, so neither the ALU/FMA balance
    /// nor the pairing of half compares is applied to it; loop-invariant
    /// hoisting is (the compiler saw one straight-line region, not the loop).
    /// Fails as `new` does, or if the configuration has no lowering table
    /// (GT200 runs native instructions) while some code is given.
    pub fn with_machine_code(
        config: SmConfig,
        program: Arc<Program>,
        code: Vec<Option<Row>>,
    ) -> Result<Arc<Self>, SimError> {
        Self::with_machine_code_at(config, program, code, None)
    }

    /// As [`ProgramTables::with_machine_code`], with the machine code laid
    /// out in memory as `layout` says: program instruction indices in code
    /// order, an instruction once per place it occupies (kernel text names
    /// equal instructions once, however often they appear). Streams then
    /// give each instruction's place ([`crate::WarpStream::next_batch_at`]),
    /// and the instruction cache ([`crate::ICache`]) follows it. Without a
    /// layout the program is laid out in order. Fails as `with_machine_code`
    /// does, or if `layout` names an instruction the program lacks.
    pub fn with_layout(
        config: SmConfig,
        program: Arc<Program>,
        code: Vec<Option<Row>>,
        layout: &[u32],
    ) -> Result<Arc<Self>, SimError> {
        let len = program.insts.len();
        if let Some(&bad) = layout.iter().find(|&&i| i as usize >= len) {
            return Err(SimError::BadConfig(format!(
                "code layout names instruction {bad} of a program of {len}"
            )));
        }
        Self::with_machine_code_at(config, program, code, Some(layout))
    }

    fn with_machine_code_at(
        config: SmConfig,
        program: Arc<Program>,
        code: Vec<Option<Row>>,
        layout: Option<&[u32]>,
    ) -> Result<Arc<Self>, SimError> {
        no_code_without_table(&config, &code)?;
        Self::build(config, program, code, layout, None)
    }

    /// Whether the program's machine code, laid out as given, is larger than
    /// the instruction cache, so that fetching it can miss.
    pub fn exceeds_icache(&self) -> bool {
        !self.code_lines.is_empty()
    }

    fn build(
        config: SmConfig,
        program: Arc<Program>,
        code: Vec<Option<Row>>,
        layout: Option<&[u32]>,
        control: Option<&facts::Control>,
    ) -> Result<Arc<Self>, SimError> {
        check_config(&config)?;
        if program.nregs >= NONE as usize / ROW {
            // `nregs` is the scoreboard's sentinel register, and its row
            // (`ROW x nregs`) a u32.
            return Err(SimError::BadConfig(format!(
                "{} registers per warp is too many",
                program.nregs
            )));
        }
        let arch = SassArch::from_lowering(config.lowering);
        let (keys, rows) = match arch {
            Some(a) => facts::table_rows(a, &program),
            None => (Vec::new(), Vec::new()),
        };
        // The table's rows, with the pairs ptxas fuses across instructions
        // given as their fused code; code read from the compiler is ptxas's
        // own and stays as it is.
        let code = match arch {
            Some(a) if code.is_empty() => {
                let none = Default::default();
                let targets = control.map_or(&none, |c| &c.targets);
                facts::fused_rows(a, &program, &keys, &rows, targets)
            }
            _ => code,
        };
        let mut fixed = match control {
            Some(c) => facts::loop_fixed_sources(&program, &c.loops),
            None => facts::fixed_sources(&program),
        };
        facts::unhoist_interleaved(&program, &keys, &mut fixed);
        let mut names: BTreeMap<&'static str, u16> = BTreeMap::new();
        let mut op_names = Vec::new();
        let mut mach_names = Vec::new();
        // Fx hashing: SipHash of these keys (and of the delay rows below,
        // 72 bytes each) was about 0.5M host instructions of one small
        // kernel's set-up; nothing iterates these maps, so order is moot.
        let mut by_key: HashMap<(&str, Variant), KeyTiming> = HashMap::default();
        let mut timings = Vec::with_capacity(program.insts.len());
        let mut op_ids = Vec::with_capacity(program.insts.len());
        // Two passes: the machine code as tabled, then with two-input IADD3s
        // moved to the FMA pipe while the program's ALU pipe is the busier
        // one (`pipes::balance`).
        let mut to_fma = vec![false; program.insts.len()];
        for pass in 0..2 {
            timings.clear();
            for (index, inst) in program.insts.iter().enumerate() {
                if pass == 0 {
                    op_ids.push(intern(&mut names, &mut op_names, mnemonic(inst))?);
                }
                let given = code.get(index).and_then(Option::as_ref);
                let row = rows.get(index).and_then(Option::as_ref);
                let timing = match (arch, given, row, keys.get(index)) {
                    (Some(a), Some(row), _, _) => {
                        let v = Variant {
                            fixed: fixed[index],
                            to_fma: false,
                            paired: false,
                        };
                        let mut t = lowered_timing(&config, a, row, v, index, &mut mach_names)?;
                        t.movable = (0, 0);
                        t
                    }
                    (Some(a), None, Some(row), Some(k)) => {
                        let v = Variant {
                            fixed: fixed[index],
                            to_fma: to_fma[index],
                            paired: pipes::pairs(k),
                        };
                        match by_key.get(&(k.as_str(), v)) {
                            Some(t) => t.clone(),
                            None => {
                                let t = lowered_timing(&config, a, row, v, index, &mut mach_names)?;
                                by_key.insert((k.as_str(), v), t.clone());
                                t
                            }
                        }
                    }
                    // No table (GT200), or a key the table lacks (the database
                    // test makes that impossible for every declared form): one
                    // native machine instruction on the instruction's class.
                    _ => native_timing(&config, arch, inst, index)?,
                };
                timings.push(timing);
            }
            if pass == 0 && !balance(&config, &timings, &mut to_fma) {
                break;
            }
        }
        let mut info = Vec::with_capacity(program.insts.len());
        let mut mach = Vec::with_capacity(program.insts.len());
        // The distinct delay rows with their stall reasons, interned
        // (`board::FLAT`, all zeros, a fixed-latency wait, first).
        let mut delays = vec![[0u64; ROW]];
        let mut whys = vec![super::stall_acc::FLAT_WHY];
        let mut delay_ids: HashMap<([u64; ROW], u8), u16> =
            HashMap::from_iter([(([0; ROW], super::stall_acc::FLAT_WHY), board::FLAT)]);
        let mut intern_row = |row: [u64; ROW], why: u8| -> Result<u16, SimError> {
            if let Some(&k) = delay_ids.get(&(row, why)) {
                return Ok(k);
            }
            let k = u16::try_from(delays.len()).map_err(|_| {
                SimError::BadConfig("more than 65536 distinct result delays".into())
            })?;
            delays.push(row);
            whys.push(why);
            delay_ids.insert((row, why), k);
            Ok(k)
        };
        for (index, (t, &op_id)) in timings.into_iter().zip(&op_ids).enumerate() {
            let mut ii = inst_info(&program, index, op_id, &config, &t)?;
            let class = super::stall_acc::classify(&program.insts[index], &ii.pipe, &ii.ticks);
            ii.delay_row = intern_row(ii.delay_to, class.result)?;
            ii.flat_row = intern_row([0; ROW], class.result)?;
            ii.throttle = class.throttle;
            ii.after = class.after;
            info.push(ii);
            mach.push(t.lowered);
        }
        // Only names some instruction uses are reported; unused ones (from a
        // pass whose timing was replaced) have no counts.
        let uops: Vec<u16> = info.iter().map(|i| i.uops).collect();
        let code_lines = super::icache::code_lines(&config.icache, &uops, layout)
            .map_err(|bytes| {
                SimError::BadConfig(format!(
                    "icache: {bytes} bytes of machine code in lines of {} bytes is more than {} lines",
                    config.icache.line_bytes,
                    super::icache::MAX_LINES
                ))
            })?
            .into();
        let prepared = program
            .insts
            .iter()
            .map(|i| sim_isa::exec::Prepared::new(i, program.target))
            .collect();
        Ok(Arc::new(ProgramTables {
            code_lines,
            prepared,
            cfg: config,
            prog: program,
            info: info.into(),
            rows: delays.into(),
            rows_why: whys.into(),
            op_names: op_names.into(),
            mach,
            mach_names,
        }))
    }

    /// The configuration the tables were built for.
    pub fn config(&self) -> &SmConfig {
        &self.cfg
    }

    /// The program.
    pub fn program(&self) -> &Arc<Program> {
        &self.prog
    }

    /// Approximate bytes the tables occupy (not counting the program itself).
    pub fn heap_bytes(&self) -> usize {
        let strings = |v: &[String]| {
            v.iter()
                .map(|n| std::mem::size_of::<String>() + n.capacity())
                .sum::<usize>()
        };
        // (`Prepared` instructions that fall back to the plain form hold
        // a boxed copy, not counted.)
        std::mem::size_of::<Self>()
            + std::mem::size_of_val(&*self.info)
            + std::mem::size_of_val(&*self.prepared)
            + strings(&self.op_names)
            + strings(&self.mach_names)
            + self
                .mach
                .iter()
                .map(|l| std::mem::size_of::<Lowered>() + l.opcodes.capacity() * 4)
                .sum::<usize>()
    }
}

/// The id of `name` in `names`/`list`, adding it if new (a string is made
/// once a mnemonic, not once an instruction).
fn intern(
    names: &mut BTreeMap<&'static str, u16>,
    list: &mut Vec<String>,
    name: &'static str,
) -> Result<u16, SimError> {
    if let Some(&id) = names.get(name) {
        return Ok(id);
    }
    // Mnemonics are a short fixed list, far below u16::MAX.
    let id = u16::try_from(list.len())
        .map_err(|_| SimError::BadConfig("more than 65535 distinct mnemonics".into()))?;
    names.insert(name, id);
    list.push(name.to_owned());
    Ok(id)
}

/// Refuses machine code for a configuration without a lowering table
/// (GT200 runs native instructions).
fn no_code_without_table(config: &SmConfig, code: &[Option<Row>]) -> Result<(), SimError> {
    if SassArch::from_lowering(config.lowering).is_none() && code.iter().any(Option::is_some) {
        return Err(SimError::BadConfig(format!(
            "{} runs native instructions: it has no machine code to replace",
            config.name()
        )));
    }
    Ok(())
}

fn check_config(config: &SmConfig) -> Result<(), SimError> {
    // Every range and consistency rule lives with the configuration keys.
    crate::config_file::check(config).map_err(SimError::BadConfig)
}

fn missing(index: usize, pipe: UnitClass, config: &SmConfig) -> SimError {
    SimError::MissingUnit {
        index,
        unit: pipe.name(),
        config: config.name(),
    }
}

/// One native machine instruction on `inst`'s class.
fn native_timing(
    config: &SmConfig,
    arch: Option<SassArch>,
    inst: &Instruction,
    index: usize,
) -> Result<KeyTiming, SimError> {
    let class = native_class(inst);
    // A warp-wide operation runs as its machine opcode's rule where the
    // arch has one (sm_90: shuffles, votes, reductions, matches).
    let warp = arch.and_then(|a| {
        let (opcode, mods) = sim_isa::db::warp_machine_opcode(inst)?;
        pipes::warp_rule(a, opcode, mods)
    });
    let op = match warp {
        Some(rule) => OpTiming::of(rule, config),
        None => OpTiming::native(class, config),
    }
    .ok_or_else(|| missing(index, class, config))?;
    let mut lowered = Lowered::default();
    lowered.pipe_ops[class.index()] = 1;
    let mut pipe_ticks = [0; UnitClass::COUNT];
    pipe_ticks[class.index()] = op.ticks;
    Ok(KeyTiming {
        pipe_ticks,
        movable: (0, 0),
        pipe: [class as u8; MAX_PIPES],
        ticks: [op.ticks, 0, 0],
        uops: 1,
        need: 1 << class.index(),
        delay: op.latency,
        // On sm_90 the pipe's side crosses as a table row's would (a pipe
        // with no side of its own, which no sm_90 rule uses, counts as the
        // XU's).
        delay_to: ready_row(arch, |_| (op.latency, Some(op.side))),
        side: column(Some(op.side)),
        lowered,
    })
}

/// The timing of a lowering row: its machine instructions on their pipes.
fn lowered_timing(
    config: &SmConfig,
    arch: SassArch,
    row: &Row,
    v: Variant,
    index: usize,
    mach_names: &mut Vec<String>,
) -> Result<KeyTiming, SimError> {
    let mut ops = Vec::with_capacity(row.insts.len());
    let mut rules = Vec::with_capacity(row.insts.len());
    let mut movable = (0, 0);
    for inst in &row.insts {
        // Every opcode of the table has a rule (tested); an unknown one
        // would run on the ALU pipe.
        let two_input_add =
            inst.opcode.name() == "IADD3" && inst.modifiers.is_empty() && inst.deps().count() == 2;
        let rule = match pipes::fma_add(arch) {
            Some(r) if v.to_fma && two_input_add => Some(r),
            _ => pipes::rule(arch, inst),
        };
        let pipe = rule.map_or(UnitClass::IntAlu, |r| r.pipe);
        let mut op = match rule {
            Some(r) => OpTiming::of(r, config),
            None => OpTiming::native(pipe, config),
        }
        .ok_or_else(|| missing(index, pipe, config))?;
        if v.paired {
            op.ticks = op.ticks.div_ceil(2);
        }
        if let Some(r) = pipes::fma_add(arch).filter(|_| two_input_add && !v.to_fma) {
            if let Some(f) = OpTiming::of(r, config) {
                movable.0 += op.ticks;
                movable.1 += f.ticks;
            }
        }
        rules.push(rule);
        ops.push(op);
    }
    let outs: Vec<Src> = row.outs().collect();
    let sched = pipes::schedule(&row.insts, &ops, &outs, config, v.fixed, arch);
    let mut lowered = Lowered::default();
    let mut pipe_ticks = [0u64; UnitClass::COUNT];
    let mut uops = 0u16;
    for (((inst, op), rule), &runs) in row.insts.iter().zip(&ops).zip(&rules).zip(&sched.runs) {
        // `schedule` marks hoisted instructions; they cost nothing here.
        if !runs {
            lowered.hoisted += 1;
            continue;
        }
        uops += 1;
        let name = match rule {
            Some(r) => format!("{}{}", r.opcode, r.modifiers),
            None => inst.opcode.name().to_string(),
        };
        let id = match mach_names.iter().position(|n| *n == name) {
            Some(i) => i,
            None => {
                mach_names.push(name);
                mach_names.len() - 1
            }
        } as u16;
        match lowered.opcodes.iter_mut().find(|(i, _)| *i == id) {
            Some(e) => e.1 += 1,
            None => lowered.opcodes.push((id, 1)),
        }
        lowered.pipe_ops[op.pipe.index()] += 1;
        pipe_ticks[op.pipe.index()] += op.ticks;
    }
    // The busiest pipes, busiest first; the rest fold into the busiest.
    let mut order: Vec<usize> = (0..UnitClass::COUNT)
        .filter(|&c| pipe_ticks[c] > 0)
        .collect();
    order.sort_by_key(|&c| std::cmp::Reverse(pipe_ticks[c]));
    let mut pipe = [UnitClass::IntAlu as u8; MAX_PIPES];
    let mut ticks = [0u64; MAX_PIPES];
    for (k, &c) in order.iter().enumerate() {
        if k < MAX_PIPES {
            pipe[k] = c as u8;
            ticks[k] += pipe_ticks[c];
        } else {
            ticks[0] += pipe_ticks[c];
        }
    }
    let first = sched
        .runs
        .iter()
        .zip(&ops)
        .find(|(r, _)| **r)
        .map_or(UnitClass::IntAlu, |(_, o)| o.pipe) as u8;
    Ok(KeyTiming {
        pipe_ticks,
        movable,
        pipe,
        ticks,
        uops,
        need: (1 << first) | (1 << pipe[0]),
        delay: sched.delay,
        // FP64 reads a register pair at once; the others its low half first.
        delay_to: ready_row(Some(arch), |to| match to {
            Side::Fp64 => (sched.pair, sched.pair_side),
            _ => (sched.delay, sched.out_side),
        }),
        side: column(sched.in_side),
        lowered,
    })
}

/// Marks the instructions whose two-input IADD3s move to the FMA pipe:
/// ptxas emits an integer add as `IMAD.IADD` (FMA pipe) instead of `IADD3`
/// (ALU pipe) where the ALU pipe is the busier (H100: `add.u32` beside `xor`
/// in `b0` runs as IMAD.IADD, while the three-input IADD3s of `vabsdiff2`
/// stay). The program's static load per pipe (each instruction counted once)
/// decides; instructions move in program order while that reduces the
/// difference. Returns whether any moved.
fn balance(config: &SmConfig, timings: &[KeyTiming], to_fma: &mut [bool]) -> bool {
    let clocks = |c: UnitClass, ticks: u64| {
        ticks as f64 / f64::from(config.units.get(c).lanes_per_sm.max(1))
    };
    let (alu, fma) = (UnitClass::IntAlu, UnitClass::Fp32);
    let load = |c: UnitClass| -> f64 {
        timings
            .iter()
            .map(|t| clocks(c, t.pipe_ticks[c.index()]))
            .sum()
    };
    let (mut a, mut f) = (load(alu), load(fma));
    let mut moved = false;
    for (t, m) in timings.iter().zip(to_fma.iter_mut()) {
        let (da, df) = (clocks(alu, t.movable.0), clocks(fma, t.movable.1));
        if da > 0.0 && (a - da - (f + df)).abs() < (a - f).abs() {
            a -= da;
            f += df;
            *m = true;
            moved = true;
        }
    }
    moved
}

fn inst_info(
    program: &Program,
    index: usize,
    op_id: u16,
    config: &SmConfig,
    t: &KeyTiming,
) -> Result<InstInfo, SimError> {
    let inst = &program.insts[index];
    let mut ii = InstInfo {
        pipe: t.pipe,
        ticks: t.ticks,
        uops: t.uops,
        need: t.need,
        delay: t.delay,
        delay_to: t.delay_to,
        side: t.side,
        busy: if t.uops > 1 {
            (t.uops as u64).div_ceil(config.issue_width as u64) * config.issue_interval as u64
        } else {
            0
        },
        op_id,
        uses: [program.nregs as u32; MAX_USES],
        delay_row: board::FLAT,
        nuses: 0,
        throttle: 0,
        after: 0,
        flat_row: board::FLAT,
        writes: [0; 2],
        nwrites: 0,
        guard: NONE,
        guard_neg: false,
    };
    for (k, u) in inst.reg_uses().iter().enumerate() {
        if u.reg.0 as usize >= program.nregs {
            return Err(SimError::BadRegister {
                index,
                reg: u.reg.0,
                nregs: program.nregs,
            });
        }
        let Some(slot) = ii.uses.get_mut(k) else {
            // sim-isa's instructions name at most MAX_USES registers.
            return Err(SimError::BadConfig(format!(
                "instruction {index} names more than {MAX_USES} registers"
            )));
        };
        *slot = u.reg.0;
        ii.nuses += 1;
        if u.write && (ii.nwrites as usize) < 2 {
            ii.writes[ii.nwrites as usize] = u.reg.0;
            ii.nwrites += 1;
        }
    }
    if let Some(g) = inst.guard {
        ii.guard = g.reg.0;
        ii.guard_neg = g.negate;
    }
    Ok(ii)
}

impl ProgramTables {
    /// Program instruction `inst`'s micro-ops and the clocks from its first
    /// micro-op until its result is ready (timelines draw completions with it).
    pub fn issue_timing(&self, inst: usize) -> Option<(u32, u64)> {
        self.info.get(inst).map(|i| (i.uops as u32, i.delay))
    }

    /// Clocks from program instruction `producer`'s first micro-op until its
    /// result is ready for program instruction `consumer`: the issue timing's
    /// delay, and the clocks the result takes to cross from the producer's
    /// side to the consumer's (`pipes::crossing`: 0 to 2 on sm_90).
    pub fn result_ready(&self, producer: usize, consumer: usize) -> Option<u64> {
        let side = self.info.get(consumer)?.side;
        self.info
            .get(producer)?
            .delay_to
            .get(usize::from(side))
            .copied()
    }

    /// Clocks program instruction `inst` occupies its busiest pipe in its
    /// sub-partition: with its machine instructions, the bound on how often
    /// a scheduler can start it.
    pub fn pipe_clocks(&self, inst: usize) -> Option<f64> {
        let i = self.info.get(inst)?;
        let scale = |c: u8| {
            UnitClass::ALL
                .get(usize::from(c))
                .map_or(1, |&c| self.cfg.units.get(c).lanes_per_sm.max(1))
        };
        Some(
            i.pipe
                .iter()
                .zip(&i.ticks)
                .map(|(&c, &t)| t as f64 / f64::from(scale(c)))
                .fold(0.0, f64::max),
        )
    }
}
