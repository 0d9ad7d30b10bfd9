//! The simulation behind the C handle, in safe Rust: the build phase, the
//! run phase, and the C host's external-instruction callback.

use crate::guard::{Guarded, Held};
use crate::types::{
    PssCompletion, PssExtRequest, PssExternalFn, PSS_MAX_INSTS, PSS_MAX_QUEUED, PSS_MAX_REGS,
    PSS_MAX_SOURCES, PSS_MAX_WARPS, PSS_MAX_WARP_REGS,
};
use sim_core::config_file::{self, ConfigLayer};
use sim_core::{
    preset, Completion, Deferred, External, ExternalRequest, Program, Progress, SchedPolicy,
    Simulation, SmConfig,
};
use sim_isa::{Instruction, RegId, Symbols, Target};
use std::ffi::c_void;
use std::sync::Arc;

/// A simulation handle (opaque to C).
///
/// Preconditions the library cannot check, and what it checks instead:
/// - Lifetimes: a handle is valid from `pss_sim_new`/`pss_sim_from_config`
///   until `pss_sim_free`; using it after that is undefined. Strings are
///   NUL-terminated and UTF-8 (checked), read during the call only. The
///   `pss_last_error` text is valid until the next failing call on the same
///   thread. A callback's `req` and `out` are valid during the callback
///   only; its `user` pointer must stay valid until the handle is freed or
///   another callback is set.
/// - Lengths: register lanes are 32 `uint64_t` (`pss_sim_read_reg`,
///   `pss_sim_write_reg`); `out` of `pss_sim_hungry_warps` holds `cap`
///   `uint32_t` (at most `cap` are written; the count may be larger).
/// - Counts: SMs 1 to `PSS_MAX_SMS`; at most `PSS_MAX_INSTS` instructions
///   and marks, `PSS_MAX_REGS` registers, `PSS_MAX_WARPS` warps and
///   `PSS_MAX_WARP_REGS` warps x registers per handle (checked: -1). The
///   instructions a host queues with `pss_sim_push` (and the other pushes)
///   are held until they issue: at most `PSS_MAX_QUEUED` of them on a
///   handle's warps at once (checked: -1 until the simulation runs).
/// - Re-entrancy and threads: one call at a time per handle. A call made
///   while another is in progress on the same handle (from inside its
///   external-instruction callback, or from a second thread) is refused
///   with the call's failure value, and `pss_sim_free` then frees nothing;
///   the callback runs on the thread that steps the simulation. Freeing a
///   handle while another thread may still use it is undefined. Different
///   handles are independent; `pss_last_error` is per thread.
pub struct PssSim(Guarded<SimState>);

/// Exclusive use of a handle's state for one call; clears the flag when
/// the call ends (a panic caught at the boundary included).
pub(crate) type Busy<'a> = Held<'a, SimState>;

impl PssSim {
    fn wrap(state: SimState) -> PssSim {
        PssSim(Guarded::new(state))
    }

    /// The state for one call, or an error when a call is in progress.
    pub(crate) fn enter(&self) -> Res<Busy<'_>> {
        self.0.enter("the handle is in use: a call on it is in progress (the handle's external-instruction callback may not call back into it, and two threads may not use it at once)")
    }
}

/// The simulation behind a handle.
pub(crate) struct SimState {
    target: Target,
    config: SmConfig,
    policy: SchedPolicy,
    sms: usize,
    syms: Symbols,
    phase: Phase,
    ext: Option<CExternal>,
    /// Warps added so far (bounded by `PSS_MAX_WARPS`, `PSS_MAX_WARP_REGS`).
    warps: u32,
    /// At least the instructions queued on host warps and not yet issued:
    /// the last exact count plus the pushes since ([`SimState::admit_push`]).
    queued: u64,
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

// The constructors live on the handle type they return, so `new` returns `Self`.
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
        // sim_core's bound, which PSS_MAX_SMS states (a test checks they agree).
        config_file::check_sms(u64::from(sms))?;
        config_file::check(&config)?;
        Ok(PssSim::wrap(SimState {
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
            warps: 0,
            queued: 0,
        }))
    }
}

impl SimState {
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
            if insts.len() >= PSS_MAX_INSTS as usize {
                return Err(format!(
                    "the program has {} instructions, the most a program may have",
                    insts.len()
                ));
            }
            let inst = Program::parse_one(target, ptx, &mut syms, insts.len()).map_err(err)?;
            insts.push(inst);
            u32::try_from(insts.len() - 1).map_err(err)
        });
        self.syms = syms;
        if self.syms.len() > PSS_MAX_REGS as usize {
            return Err(format!(
                "the program names {} registers, more than the limit of {PSS_MAX_REGS}",
                self.syms.len()
            ));
        }
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
        if marks.len() >= PSS_MAX_INSTS as usize {
            return Err(format!("more than {PSS_MAX_INSTS} marks"));
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

    /// Adds a warp fed by the host, within the handle's warp bounds.
    pub(crate) fn add_host_warp(&mut self, warp: u32, active: u32) -> Res<()> {
        let nregs = self.syms.len().max(1) as u64;
        let n = u64::from(self.warps) + 1;
        if n > u64::from(PSS_MAX_WARPS) || n * nregs > u64::from(PSS_MAX_WARP_REGS) {
            return Err(format!(
                "warp {warp}: a handle holds at most {PSS_MAX_WARPS} warps and {PSS_MAX_WARP_REGS} warps x registers ({} warps of {nregs} registers so far)",
                self.warps
            ));
        }
        let sm = self.sim()?.sm_of(warp);
        sm.add_host_warp(warp, active).map_err(err)?;
        self.warps += 1;
        Ok(())
    }

    /// The running simulation, starting it if the program is still being built.
    /// Admits one push onto a host warp while fewer than `PSS_MAX_QUEUED`
    /// instructions are queued on the handle's warps. The count is kept
    /// from above (pushes since the last exact count, which issues only
    /// lower), so the warps are counted again only when it reaches the
    /// limit.
    pub(crate) fn admit_push(&mut self) -> Res<()> {
        if self.queued >= PSS_MAX_QUEUED {
            let exact = self
                .sim()?
                .sms_mut()
                .iter()
                .map(|sm| sm.queued() as u64)
                .sum();
            self.queued = exact;
            if exact >= PSS_MAX_QUEUED {
                return Err(format!(
                    "{exact} instructions are queued on the handle's host warps and not yet issued, the limit (PSS_MAX_QUEUED); run the simulation (pss_sim_run_until, pss_sim_step) before pushing more"
                ));
            }
        }
        self.queued += 1;
        Ok(())
    }

    pub(crate) fn sim(&mut self) -> Res<&mut Simulation> {
        if self.syms.len() > PSS_MAX_REGS as usize {
            return Err(format!(
                "the program names {} registers, more than the limit of {PSS_MAX_REGS}",
                self.syms.len()
            ));
        }
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
