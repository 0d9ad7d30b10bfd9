//! The per-program instruction table: everything the hot loop needs about each
//! instruction, computed once per program and configuration and shared,
//! immutable, by every SM that runs them.

use crate::config::{SmConfig, UnitClass};
use crate::error::SimError;
use crate::facts::{is_video, mnemonic, native_class};
use crate::lowering;
use crate::program::Program;
use sim_isa::WARP_SIZE;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Marks "no register" / "no instruction".
pub(super) const NONE: u32 = u32::MAX;

/// Most registers one instruction names (guard, `p|q`, `a`, `b`, `c`).
pub(super) const MAX_USES: usize = 6;

/// Everything the hot loop needs about one program instruction, computed once.
#[derive(Clone, Copy, Debug)]
pub(super) struct InstInfo {
    /// Unit of the first micro-op (the native operation).
    pub first_class: u8,
    /// Unit of the remaining micro-ops of an expansion.
    pub rest_class: u8,
    pub uops: u16,
    /// Unit ticks the first micro-op, and the rest together, occupy their units.
    pub first_ticks: u64,
    pub rest_ticks: u64,
    /// Unit classes the instruction needs: the first micro-op's, and the
    /// rest's (the first's again when there is no rest).
    pub need: [u8; 2],
    /// Clocks from the first micro-op until the result is ready (see `Sm::issue`).
    pub delay: u64,
    /// Clocks the scheduler spends issuing the micro-ops (0 unless expanded).
    pub busy: u64,
    pub op_id: u16,
    /// Registers read or written (the scoreboard checks both), padded with
    /// the sentinel `nregs`, whose `ready_at` entry stays 0: the fetch takes
    /// a fixed-length, branch-free maximum.
    pub uses: [u32; MAX_USES],
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
    /// Report mnemonics, indexed by `InstInfo::op_id`.
    pub(super) op_names: Arc<[String]>,
}

impl ProgramTables {
    /// Checks `config` and `program` together and builds their tables. Fails
    /// if the configuration is unusable, or an instruction uses a register at
    /// or above [`Program::nregs`] or a unit the configuration lacks.
    pub fn new(config: SmConfig, program: Arc<Program>) -> Result<Arc<Self>, SimError> {
        check_config(&config)?;
        if program.nregs >= NONE as usize {
            // `nregs` is the scoreboard's sentinel register, a u32.
            return Err(SimError::BadConfig(format!(
                "{} registers per warp is too many",
                program.nregs
            )));
        }
        let mut names: BTreeMap<String, u16> = BTreeMap::new();
        let mut op_names = Vec::new();
        let mut info = Vec::with_capacity(program.insts.len());
        for (index, inst) in program.insts.iter().enumerate() {
            let name = mnemonic(inst);
            let op_id = match names.get(&name) {
                Some(&id) => id,
                None => {
                    // Mnemonics are a short fixed list, far below u16::MAX.
                    let id = u16::try_from(op_names.len()).map_err(|_| {
                        SimError::BadConfig("more than 65535 distinct mnemonics".into())
                    })?;
                    names.insert(name.clone(), id);
                    op_names.push(name);
                    id
                }
            };
            info.push(inst_info(&config, &program, index, op_id)?);
        }
        Ok(Arc::new(ProgramTables {
            cfg: config,
            prog: program,
            info: info.into(),
            op_names: op_names.into(),
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
        std::mem::size_of::<Self>()
            + std::mem::size_of_val(&*self.info)
            + self
                .op_names
                .iter()
                .map(|n| std::mem::size_of::<String>() + n.capacity())
                .sum::<usize>()
    }
}

fn check_config(config: &SmConfig) -> Result<(), SimError> {
    if config.schedulers == 0 || config.issue_width == 0 || config.issue_interval == 0 {
        return Err(SimError::BadConfig(
            "schedulers, issue_width and issue_interval must be at least 1".into(),
        ));
    }
    if config.resident_warps == 0 {
        return Err(SimError::BadConfig(
            "resident_warps must be at least 1".into(),
        ));
    }
    Ok(())
}

/// Unit ticks one warp micro-op occupies its partition's unit: time runs in
/// ticks of 1/`lanes_per_sm` clock, and a partition gets `lanes / schedulers`
/// lanes per clock, so a 32-lane warp op takes `32 * schedulers` ticks.
pub(super) fn unit_occupancy(config: &SmConfig) -> u64 {
    WARP_SIZE as u64 * config.schedulers as u64
}

fn inst_info(
    config: &SmConfig,
    program: &Program,
    index: usize,
    op_id: u16,
) -> Result<InstInfo, SimError> {
    let inst = &program.insts[index];
    let cost = lowering::cost(config.lowering, inst);
    let emulated_video = is_video(inst) && cost.uops > 1;
    let first = if emulated_video {
        UnitClass::Expansion
    } else {
        native_class(inst)
    };
    let rest = UnitClass::Expansion;
    for c in [first, rest] {
        if config.units.get(c).lanes_per_sm == 0 {
            return Err(SimError::MissingUnit {
                index,
                unit: c.name(),
                config: config.name(),
            });
        }
    }
    let latency = if cost.uops == 1 {
        config.units.get(first).latency
    } else {
        config.units.get(rest).latency
    };
    let occ = unit_occupancy(config);
    // A table entry always has at least one micro-op and one step; the
    // `max(1)` keeps a malformed one from underflowing.
    let (uops, steps) = (cost.uops.max(1), cost.steps.max(1));
    let mut ii = InstInfo {
        first_class: first as u8,
        rest_class: rest as u8,
        uops,
        first_ticks: occ,
        rest_ticks: (uops as u64 - 1) * occ,
        need: [first as u8, if uops > 1 { rest } else { first } as u8],
        delay: {
            let (lat, uops) = (latency.max(1) as u64, uops as u64);
            ((steps as u64 - 1) * lat).max(uops - 1) + lat
        },
        busy: if uops > 1 {
            (uops as u64).div_ceil(config.issue_width as u64) * config.issue_interval as u64
        } else {
            0
        },
        op_id,
        uses: [program.nregs as u32; MAX_USES],
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
}
