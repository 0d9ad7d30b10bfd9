//! The simulation behind the C handle, in safe Rust: the build phase, the
//! run phase, and the C host's external-instruction callback.

use crate::types::{PssCompletion, PssExtRequest, PssExternalFn, PSS_MAX_SOURCES};
use sim_core::config_file::{self, ConfigLayer};
use sim_core::{
    preset, Completion, Deferred, External, ExternalRequest, Program, Progress, SchedPolicy,
    Simulation, SmConfig,
};
use sim_isa::{Instruction, RegId, Symbols, Target};
use std::ffi::c_void;
use std::sync::Arc;

/// A simulation handle (opaque to C).
pub struct PssSim {
    target: Target,
    config: SmConfig,
    policy: SchedPolicy,
    sms: usize,
    syms: Symbols,
    phase: Phase,
    ext: Option<CExternal>,
}

enum Phase {
    Building {
        insts: Vec<Instruction>,
        marks: Vec<u32>,
    },
    Running(Simulation),
}

/// The C host's callback and its user pointer.
struct CExternal {
    f: PssExternalFn,
    user: *mut c_void,
}

impl External for CExternal {
    fn issue(&mut self, req: &ExternalRequest<'_>) -> Option<Completion> {
        let mut creq = PssExtRequest {
            ticket: req.ticket,
            cycle: req.cycle,
            sm: req.sm,
            warp_id: req.warp_id,
            index: req.index,
            lanes: req.lanes,
            nsrc: 0,
            ndst: req.dests().count() as u32,
            src: [[0; 32]; PSS_MAX_SOURCES],
        };
        for (slot, (_, lanes)) in creq.src.iter_mut().zip(req.sources()) {
            *slot = *lanes;
            creq.nsrc += 1;
        }
        let mut out = PssCompletion {
            cycle: req.cycle,
            values: [[0; 32]; 2],
        };
        let f = self.f?;
        // SAFETY: `f` is the C host's callback, registered with the promise
        // (documented on `pss_sim_set_external`) that it may be called with
        // its `user` pointer and pointers valid for the call.
        let done = unsafe { f(self.user, &creq, &mut out) };
        (done != 0).then_some(Completion {
            cycle: out.cycle,
            values: out.values,
        })
    }
}

/// Failures carry their message to `pss_last_error`.
pub(crate) type Res<T> = Result<T, String>;

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

impl PssSim {
    /// A simulation of `sms` SMs of preset `arch` with scheduling `policy`.
    pub(crate) fn new(arch: &str, sms: u32, policy: &str) -> Res<PssSim> {
        let target = Target::parse(arch).map_err(err)?;
        let policy = SchedPolicy::parse(policy)
            .ok_or_else(|| format!("unknown scheduling policy '{policy}' (lrr, gto, oldest)"))?;
        PssSim::with_config(preset(target), policy, sms)
    }

    /// A handle over the configuration file at `path` (`simcli config`'s
    /// TOML: its `target`, parameters and scheduler), `sms` SMs.
    pub(crate) fn from_config(path: &str, sms: u32) -> Res<PssSim> {
        let text = sim_isa::bounded::read_file_string(
            std::path::Path::new(path),
            config_file::MAX_CONFIG_BYTES,
        )
        .map_err(err)?;
        let layer = ConfigLayer::parse(&text, path).map_err(err)?;
        let target = layer
            .target()
            .ok_or_else(|| format!("{path}: no `target` (e.g. target = \"sm_90\")"))?;
        let (config, policy) = config_file::build(&[layer], target, SchedPolicy::Lrr);
        PssSim::with_config(config, policy, sms)
    }

    fn with_config(config: SmConfig, policy: SchedPolicy, sms: u32) -> Res<PssSim> {
        // simcli's bounds, before anything is built: a count of billions is
        // an error code, not an allocation that aborts the host.
        config_file::check_sms(u64::from(sms))?;
        config_file::check(&config)?;
        Ok(PssSim {
            target: config.target,
            config,
            policy,
            sms: sms as usize,
            syms: Symbols::new(),
            phase: Phase::Building {
                insts: Vec::new(),
                marks: Vec::new(),
            },
            ext: None,
        })
    }

    fn building(&mut self, what: &str) -> Res<(&mut Vec<Instruction>, &mut Vec<u32>)> {
        match &mut self.phase {
            Phase::Building { insts, marks } => Ok((insts, marks)),
            Phase::Running(_) => Err(format!(
                "{what}: the program is frozen once warps are added or the simulation runs"
            )),
        }
    }

    /// Appends a PTX instruction; returns its index.
    pub(crate) fn add_inst(&mut self, ptx: &str) -> Res<u32> {
        let target = self.target;
        let mut syms = std::mem::take(&mut self.syms);
        let built = self.building("pss_sim_add_inst").and_then(|(insts, _)| {
            let inst = Program::parse_one(target, ptx, &mut syms, insts.len()).map_err(err)?;
            insts.push(inst);
            u32::try_from(insts.len() - 1).map_err(err)
        });
        self.syms = syms;
        built
    }

    /// Marks instruction `index` as owned by the host.
    pub(crate) fn mark_external(&mut self, index: u32) -> Res<()> {
        let (insts, marks) = self.building("pss_sim_mark_external")?;
        if index as usize >= insts.len() {
            return Err(format!(
                "cannot mark instruction {index}: the program has {} instructions",
                insts.len()
            ));
        }
        marks.push(index);
        Ok(())
    }

    /// Registers the C host's external-instruction callback.
    pub(crate) fn set_external(&mut self, f: PssExternalFn, user: *mut c_void) {
        self.ext = Some(CExternal { f, user });
    }

    /// The id of register `name` (`%r1`, `%p0`).
    pub(crate) fn reg(&self, name: &str) -> Res<RegId> {
        self.syms
            .get(name)
            .ok_or_else(|| format!("no register '{name}' in the program"))
    }

    /// The running simulation, starting it if the program is still being built.
    pub(crate) fn sim(&mut self) -> Res<&mut Simulation> {
        if let Phase::Building { insts, marks } = &mut self.phase {
            let prog = Program {
                target: self.target,
                insts: std::mem::take(insts),
                nregs: self.syms.len(),
            };
            let marks = std::mem::take(marks);
            let mut sim =
                Simulation::new(self.config.clone(), Arc::new(prog), self.policy, self.sms)
                    .map_err(err)?;
            for m in marks {
                sim.mark_external(m).map_err(err)?;
            }
            self.phase = Phase::Running(sim);
        }
        match &mut self.phase {
            Phase::Running(sim) => Ok(sim),
            Phase::Building { .. } => Err("the simulation did not start".into()),
        }
    }

    /// The index of the program instruction `ptx` parses to.
    pub(crate) fn index_of(&mut self, ptx: &str) -> Res<u32> {
        // A clone: text naming registers the program lacks must not add them.
        let mut syms = self.syms.clone();
        let target = self.target;
        let sim = self.sim()?;
        let inst = Program::parse_one(target, ptx, &mut syms, 0).map_err(err)?;
        let insts = &sim.tables().program().insts;
        let pos = insts.iter().position(|i| *i == inst);
        pos.map(|p| p as u32)
            .ok_or_else(|| format!("'{ptx}' is not an instruction of the program"))
    }

    /// Steps every SM by one clock.
    pub(crate) fn step(&mut self) -> Res<()> {
        let mut ext = self.ext.take();
        let r = self.sim().and_then(|sim| match &mut ext {
            Some(e) => sim.step(e).map_err(err),
            None => sim.step(&mut Deferred).map_err(err),
        });
        self.ext = ext;
        r
    }

    /// [`Simulation::run_until`] with the C host's callback.
    pub(crate) fn run_until(&mut self, max_cycle: u64, max_inst: u64) -> Res<Progress> {
        let mut ext = self.ext.take();
        let r = self.sim().and_then(|sim| match &mut ext {
            Some(e) => sim.run_until(max_cycle, max_inst, e).map_err(err),
            None => sim
                .run_until(max_cycle, max_inst, &mut Deferred)
                .map_err(err),
        });
        self.ext = ext;
        r
    }
}
