//! The kernel's statements, decoded once for the engine: each one's lane
//! kernel, its dependences for reordering, whether it is dead, and what
//! timing does with it. And [`Follow`], the cursor of a replayed warp.

use crate::error::KernelError;
use crate::memtime::Kind;
use crate::prepare::Prepared;
use crate::rec::RecWarp;
use crate::regalloc::RegMap;
use crate::reorder::{self, Deps};
use sim_isa::db::{self, BarrierKind};
use sim_isa::exec::Accesses;
use sim_isa::{Guard, Instruction, Target};
use sim_module::StatementKind;

/// One statement's facts that the step loop and the feed read at each
/// step: one record a statement, so that a step reads one cache line
/// rather than one per table.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Stmt {
    /// Its guard, renamed.
    pub guard: Option<Guard>,
    /// The host owns it in timing; a memory one's kind.
    pub ext: Option<Kind>,
    /// Bytes a lane's access is timed as, where not what it executed: the
    /// first load of a merged group (`vectorise`); 0 elsewhere.
    pub widen: u8,
    /// Issues nothing (see `dead`); empty statements count as live.
    pub dead: bool,
    /// Executes through a memory (`db::runs_with_memory`), asked once a
    /// statement rather than at every step.
    pub mem: bool,
    /// Reads `%clock`/`%clock64`.
    pub clock: bool,
    pub barrier: bool,
    /// A loop's back-edge (see `timing::is_back_edge`).
    pub back_edge: bool,
    /// Nothing reorders across it (`Deps::is_fence`), asked at each step.
    pub fence: bool,
    /// An instruction that needs no memory and is no clock read or
    /// barrier: the step loop runs it without asking its kind.
    pub plain: bool,
    /// A merged group's member that may be read at its leader
    /// (`member_of`, set by [`Code::merge_shared_loads`]).
    pub member: bool,
    /// A member read at its leader: how many statements back the leader
    /// is (0: none, or too far back: then the bare loop asks
    /// `member_of`), and the member's index there (what `member_of` says),
    /// in the record that the bare loop reads anyway. Two fields, not an
    /// `Option` of a pair: the record stays within 56 bytes.
    pub taken_back: u16,
    pub taken_k: u8,
    /// A leader whose members read at it are the next this many words,
    /// in order (member `k` at 4 (k + 1) bytes past it): a bare warp
    /// reads them with no table (`Preloaded::lead_next`). 0 elsewhere.
    pub next_words: u8,
    /// A `ld` or `st` (`.shared`, `.global`) of a word a lane that has a
    /// path of its own ([`super::shload`]).
    pub word: Option<super::shload::WordAccess>,
}

// A step reads the record of its statement: no larger than it was.
const _: () = assert!(std::mem::size_of::<Stmt>() <= 56);

impl Stmt {
    /// Lanes of `mask` whose guard (if any) holds (asked at every step).
    #[inline(always)]
    pub fn lanes(&self, regs: &sim_isa::WarpRegs, mask: u32) -> u32 {
        let Some(g) = self.guard else { return mask };
        let v = regs.get(g.reg);
        let mut m = 0u32;
        for (l, x) in v.iter().enumerate() {
            m |= u32::from((*x & 1 == 1) != g.negate) << l;
        }
        mask & m
    }
}

/// Per-statement facts of a kernel (index: statement).
pub(crate) struct Code<'p> {
    pub prep: &'p Prepared<'p>,
    /// Slots of a warp's register file (see [`crate::regalloc`]).
    pub nregs: usize,
    /// Each register's slot.
    pub regs: RegMap,
    /// Each instruction with its registers renamed to their slots: what
    /// executes. (Everything that times reads the original statements.)
    pub inst: Vec<Option<Instruction>>,
    /// The lane kernel of an instruction that needs no memory (renamed).
    pub exec: Vec<Option<sim_isa::exec::Prepared>>,
    pub deps: Vec<Deps>,
    /// What the step loop asks of each statement, in one record.
    pub at: Vec<Stmt>,
    /// Per leader of a merged group: the members read at it
    /// (`preload`); empty elsewhere (or nothing at all before
    /// [`Code::merge_shared_loads`]).
    pub preload: Vec<Vec<super::preload::Member>>,
    /// Per statement: the leader and the index in its `preload` list of
    /// a member read at its leader.
    pub member_of: Vec<Option<(u32, u8)>>,
    /// Each statement's registers (original ids), for
    /// [`Code::merge_shared_loads`].
    uses: crate::dead::Uses,
}

impl<'p> Code<'p> {
    /// With `every_register`, each register keeps a slot of its own (no
    /// sharing of slots between registers whose lives do not overlap), so
    /// the final register file holds every register's last value
    /// (`--dump-regs`); execution is the same either way.
    pub fn new(
        prep: &'p Prepared<'p>,
        target: Target,
        program: &sim_core::Program,
        every_register: bool,
    ) -> Code<'p> {
        let stmts = &prep.body.statements;
        let n = stmts.len();
        let inst = |i: usize| match &stmts[i].kind {
            StatementKind::Instruction(x) => Some(x),
            StatementKind::Control(_) | StatementKind::Unimplemented(_) => None,
        };
        // Each statement's registers, asked once for every pass below.
        let uses = crate::dead::Uses::new(prep.body);
        let mut dead = crate::dead::dead_statements(prep.body, &uses);
        dead.resize(n, false);
        let (regs, renamed) = if every_register {
            let regs = RegMap::identity(prep.body.symbols.len());
            let renamed = regs.rename(prep.body);
            (regs, renamed)
        } else {
            RegMap::new(prep.body, &uses)
        };
        let deps = reorder::deps(prep.body);
        let mut at: Vec<Stmt> = (0..n)
            .map(|i| Stmt {
                guard: match &stmts[i].kind {
                    StatementKind::Instruction(x) => regs.guard(x.guard),
                    StatementKind::Control(c) => regs.guard(c.guard),
                    StatementKind::Unimplemented(_) => None,
                },
                ext: program.insts.get(i).and_then(crate::timing::ext_kind),
                widen: 0,
                dead: dead[i],
                mem: renamed[i].as_ref().is_some_and(db::runs_with_memory),
                clock: inst(i).is_some_and(db::reads_clock),
                barrier: inst(i).is_some_and(is_bar_sync),
                back_edge: crate::timing::is_back_edge(prep, i as u32),
                fence: deps[i].is_fence(),
                plain: false,
                member: false,
                taken_back: 0,
                taken_k: 0,
                next_words: 0,
                word: renamed[i].as_ref().and_then(super::shload::WordAccess::of),
            })
            .collect();
        for (i, s) in at.iter_mut().enumerate() {
            s.plain = inst(i).is_some() && !s.mem && !s.clock && !s.barrier;
        }
        let mut word: Vec<_> = at.iter().map(|s| s.word).collect();
        let writes = super::preload::Writes {
            uses: &uses,
            regs: &regs,
        };
        super::shload::link_bases(
            &mut word,
            |j| renamed.get(j).is_some_and(Option::is_some),
            |j, r| writes.slot(j, r),
        );
        super::shload::number_global_loads(&mut word, super::shload::LOADS_KEPT);
        for (s, w) in at.iter_mut().zip(word) {
            s.word = w;
        }
        Code {
            prep,
            nregs: regs.slots(),
            exec: renamed
                .iter()
                .zip(&at)
                .map(|(x, s)| {
                    x.as_ref()
                        .filter(|_| !s.mem)
                        .map(|x| sim_isa::exec::Prepared::new(x, target))
                })
                .collect(),
            inst: renamed,
            deps,
            at,
            preload: Vec::new(),
            member_of: vec![None; n],
            regs,
            uses,
        }
    }

    /// Times each group of shared loads as the one vector load ptxas
    /// merges it into (`vectorise`): the first issues for all (their
    /// destinations in `program`, their bytes, their dependences), the
    /// others issue nothing.
    pub fn merge_shared_loads(&mut self, program: &mut sim_core::Program) {
        let vars = &self.prep.vars;
        let var_align = |v: u32| match vars.get(v as usize) {
            Some(Some((sim_isa::Space::Shared, a))) => a.trailing_zeros(),
            _ => 0,
        };
        let dead: Vec<bool> = self.at.iter().map(|s| s.dead).collect();
        let groups = crate::vectorise::shared_groups(self.prep.body, &self.uses, &dead, &var_align);
        for g in groups {
            let lead = g.leader as usize;
            let Some(sim_isa::Instruction {
                op: sim_isa::Op::Mem(m),
                ..
            }) = program.insts.get_mut(lead)
            else {
                continue;
            };
            let mut dests = Vec::with_capacity(g.members.len());
            for (k, &s) in g.members.iter().enumerate() {
                if let Some(StatementKind::Instruction(sim_isa::Instruction {
                    op: sim_isa::Op::Mem(f),
                    ..
                })) = self.prep.body.statements.get(s as usize).map(|x| &x.kind)
                {
                    m.d[k] = f.d[0];
                    dests.push(f.d[0].0);
                }
                if s != g.leader {
                    self.at[s as usize].dead = true;
                }
            }
            m.vec = g.members.len() as u8;
            self.at[lead].widen = 4 * m.vec;
            self.deps[lead].also_writes(dests);
            let writes = super::preload::Writes {
                uses: &self.uses,
                regs: &self.regs,
            };
            let pre = super::preload::members(&self.inst, writes, g.leader, &g.members);
            for (k, p) in pre.iter().enumerate() {
                self.member_of[p.pc as usize] = Some((g.leader, k as u8));
                self.at[p.pc as usize].member = true;
                let at = &mut self.at[p.pc as usize];
                at.taken_back = u16::try_from(p.pc - g.leader).unwrap_or(0);
                at.taken_k = k as u8;
            }
            let next = pre.iter().zip(1u64..).all(|(p, k)| p.off == 4 * k);
            self.at[lead].next_words = if next { pre.len() as u8 } else { 0 };
            if self.preload.len() <= lead {
                self.preload.resize(lead + 1, Vec::new());
            }
            self.preload[lead] = pre;
        }
    }
}

impl Code<'_> {
    /// The merged groups' preload tables.
    pub(crate) fn preload_tables(&self) -> super::preload::Tables<'_> {
        super::preload::Tables {
            preload: &self.preload,
            member_of: &self.member_of,
        }
    }
}

fn is_bar_sync(i: &Instruction) -> bool {
    db::barrier(i) == Some(BarrierKind::Sync)
}

/// A replayed warp's place in its recording.
pub(crate) struct Follow {
    /// What the warp executed (its record, read as its block was dealt).
    rec: Box<RecWarp>,
    /// Its index in the recording.
    warp: usize,
    pos: usize,
    load: usize,
    access: usize,
    /// The recording's name, for errors.
    name: std::sync::Arc<str>,
}

impl Follow {
    pub fn new(rec: RecWarp, warp: usize, name: std::sync::Arc<str>) -> Follow {
        Follow {
            rec: Box::new(rec),
            warp,
            pos: 0,
            load: 0,
            access: 0,
            name,
        }
    }

    fn me(&self) -> &RecWarp {
        &self.rec
    }

    /// The next recorded step, advancing past it.
    pub fn next_step(&mut self) -> Option<(u32, u32)> {
        let s = self.me().steps.get(self.pos).copied();
        if s.is_some() {
            self.pos += 1;
        }
        s
    }

    /// The step `next_step` gave last.
    pub fn current(&self) -> (u32, u32) {
        self.me()
            .steps
            .get(self.pos.saturating_sub(1))
            .copied()
            .unwrap_or((0, 0))
    }

    pub fn has_more(&self) -> bool {
        self.pos < self.me().steps.len()
    }

    /// The recorded load values and the next one's index.
    pub fn loads(&mut self) -> (&[u64], &mut usize) {
        let Follow { rec, load, .. } = self;
        (&rec.loads, load)
    }

    /// Checks a memory step's addresses against the recorded ones.
    pub fn check_access(&mut self, got: Option<&Accesses>, text: &str) -> Result<(), KernelError> {
        let step = self.pos - 1;
        let want = self
            .me()
            .accesses
            .get(self.access)
            .filter(|a| a.step as usize == step);
        match (got, want) {
            (Some(g), Some(w)) if *g == w.accesses() => {
                self.access += 1;
                Ok(())
            }
            (None, None) => Ok(()),
            _ => Err(self.diverged(&format!(
                "`{text}`: its addresses differ from the recorded ones"
            ))),
        }
    }

    /// The error of a recording that does not match its module.
    pub fn diverged(&self, msg: &str) -> KernelError {
        KernelError::Limit(format!(
            "{}: warps[{}].steps[{}]: {msg}",
            self.name,
            self.warp,
            self.pos.saturating_sub(1)
        ))
    }

    /// At the warp's end: every recorded load value was used.
    pub fn check_end(&self) -> Result<(), KernelError> {
        let w = self.me();
        if self.load != w.loads.len() {
            return Err(KernelError::Limit(format!(
                "{}: warps[{}]: {} load values recorded, {} used",
                self.name,
                self.warp,
                w.loads.len(),
                self.load
            )));
        }
        Ok(())
    }
}
