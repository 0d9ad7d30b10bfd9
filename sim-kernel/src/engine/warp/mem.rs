//! A warp's memory statements: the word path (`shload`), the general way
//! through [`execute_mem_into`] (with a replay's or recording's load tap),
//! and global atomics deferred to the epoch's end.

use super::{Env, State, Warp};
use crate::engine::calls;
use crate::engine::code::{Code, Stmt};
use crate::error::KernelError;
use crate::memory::WarpMem;
use crate::tap::{LoadTap, Loads};
use sim_isa::exec::{execute_mem_into, Access, Memory};
use sim_isa::{Op, Space};

impl Warp {
    /// [`Self::exec_mem`] of statement `pc` (its record `st`; a member of
    /// a merged group that its leader read does not come here: `step`); a
    /// leader whose lanes all read one word reads its members too.
    // Always: in line in both step loops (a call of its own cost the
    // timed one's memory steps).
    #[inline(always)]
    pub(super) fn exec_or_preloaded(
        &mut self,
        env: &mut Env<'_, '_, '_>,
        st: &Stmt,
        pc: usize,
        mask: u32,
    ) -> Result<Option<u32>, KernelError> {
        let (code, mem) = (env.code, &mut *env.mem);
        let acc = match self.exec_word(st, mask, mem) {
            Some(acc) => acc,
            None => self.exec_mem(code, pc, mask, mem)?,
        };
        if !self.timed && acc.is_some() {
            // An SM that `--sample` runs functionally: its block's L2
            // sectors (`memtime::L2Notes`).
            env.notes.note(&self.slab.scratch, *env.count);
        }
        if st.widen != 0 {
            // A leader: what an earlier pass read is stale. Recordings log
            // each load; `broadcast` says every lane read the first lane's
            // address.
            let read = (acc.is_some() && mem.broadcast && self.log.is_none())
                .then(|| (self.slab.scratch.addrs[0], &*mem.shared));
            self.pre.lead(code.preload_tables(), pc, read);
        }
        Ok(acc)
    }

    /// A memory statement on its word path (`shload`), when it has one and
    /// the warp neither replays nor records (both go the general way):
    /// what [`Self::exec_mem`] would return, or `None` where the path
    /// declines (nothing changed; then the general way runs it). Apart from
    /// `exec_mem`, whose frame (the load tap, the fault) the commonest
    /// memory statements then do not pay for.
    #[inline(always)]
    pub(super) fn exec_word(
        &mut self,
        st: &Stmt,
        mask: u32,
        mem: &mut WarpMem<'_>,
    ) -> Option<Option<u32>> {
        let l = st.word.as_ref()?;
        if self.follow.is_some() || self.log.is_some() {
            return None;
        }
        (mem.one_word, mem.broadcast) = (false, false);
        if !(l.run)(l, &mut self.regs, mask, mem, &mut self.slab.scratch) {
            return None;
        }
        // One wavefront (`memtime::one_wave_shared`: every lane, one word
        // or consecutive words) unless a merged group's leader times the
        // vector of other words each lane reads.
        if l.shared() && (st.widen == 0 || mem.broadcast) {
            let bytes = if st.widen == 0 {
                4
            } else {
                u32::from(st.widen)
            };
            return Some(Some(self.slab.keep_one_wave(
                u32::MAX,
                bytes,
                Space::Shared,
            )));
        }
        if st.widen != 0 {
            // The vector load ptxas merged this group into (`vectorise`).
            self.slab.scratch.bytes = u32::from(st.widen);
        }
        Some(Some(self.slab.keep(true, mem.one_word, mem.broadcast)))
    }

    /// A memory statement: its values now, its addresses for timing (in
    /// the slot returned, if it accessed memory). The general way: a word
    /// access goes [`Self::exec_word`]'s first.
    pub(super) fn exec_mem(
        &mut self,
        code: &Code<'_>,
        pc: usize,
        mask: u32,
        mem: &mut WarpMem<'_>,
    ) -> Result<Option<u32>, KernelError> {
        let s = &code.prep.body.statements[pc];
        let Some(inst) = &code.inst[pc] else {
            return Ok(None);
        };
        let Warp {
            regs,
            ctx,
            follow,
            log,
            slab,
            ..
        } = self;
        (mem.one_word, mem.broadcast) = (false, false);
        let mut tap;
        let m: &mut dyn Memory = match (follow.as_mut(), log.as_mut()) {
            (Some(f), _) => {
                let (values, next) = f.loads();
                tap = LoadTap {
                    mem: &mut *mem,
                    loads: Loads::Answer { values, next },
                };
                &mut tap
            }
            (None, Some(l)) => {
                tap = LoadTap {
                    mem: &mut *mem,
                    loads: Loads::Log(&mut l.loads),
                };
                &mut tap
            }
            (None, None) => &mut *mem,
        };
        let r = execute_mem_into(inst, ctx, regs, mask, m, &mut slab.scratch);
        // A recording keeps every access's addresses (`record`).
        let compact = log.is_none();
        let (one_word, broadcast) = (mem.one_word, mem.broadcast);
        if code.at[pc].widen != 0 {
            // The vector load ptxas merged this group into (`vectorise`).
            slab.scratch.bytes = u32::from(code.at[pc].widen);
        }
        r.map(|accessed| accessed.then(|| slab.keep(compact, one_word, broadcast)))
            .map_err(|fault| {
                if let Some(f) = follow.as_ref() {
                    return f.diverged(&format!(
                        "`{}`: {fault} (load values or addresses do not match the module)",
                        s.text
                    ));
                }
                KernelError::Fault {
                    fault,
                    text: s.text.clone(),
                    at: calls::site(ctx, code, ctx.warp_id * 32 + fault.lane, s),
                }
            })
    }

    /// A global atomic while other SMs run too: what it returns depends
    /// on theirs, which this SM may not see before the epoch ends. Its
    /// addresses are taken now (for timing), without touching memory or
    /// its destinations, and it runs at the epoch's end ([`Self::run_atomic`]).
    /// `None` when it reaches shared memory, which no other SM sees: it
    /// runs at once. `inst`: the statement's renamed instruction (its
    /// registers are the warp's slots), if it is one.
    pub(super) fn defer_atomic(
        &mut self,
        inst: Option<&sim_isa::Instruction>,
        mask: u32,
        mem: &mut WarpMem<'_>,
    ) -> Result<Option<u32>, KernelError> {
        let Some(inst) = inst else {
            return Ok(None);
        };
        let Op::Mem(m) = &inst.op else {
            return Ok(None);
        };
        let dests = &m.d[..m.dests()];
        let mut saved = [[0u64; sim_isa::WARP_SIZE]; 4];
        for (k, &r) in dests.iter().enumerate() {
            self.regs.ensure(r.0 as usize + 1);
            saved[k] = *self.regs.get(r);
        }
        let mut dry = DryRun { mem };
        let acc = &mut self.slab.scratch;
        let r = execute_mem_into(inst, &self.ctx, &mut self.regs, mask, &mut dry, acc);
        for (d, &r) in dests.iter().enumerate() {
            *self.regs.get_mut(r) = saved[d];
        }
        let acc = &self.slab.scratch;
        // A fault is the real run's to report.
        let shared = r != Ok(true)
            || acc.space == sim_isa::Space::Shared
            || (acc.space == sim_isa::Space::Generic
                && acc.addrs.iter().enumerate().all(|(l, &a)| {
                    acc.lanes >> l & 1 == 0
                        || (crate::memory::SHARED_WINDOW..crate::memory::LOCAL_WINDOW).contains(&a)
                }));
        if shared {
            return Ok(None);
        }
        Ok(Some(self.slab.keep(false, false, false)))
    }

    /// Runs the global atomic the warp stopped at (see
    /// [`Self::defer_atomic`]) against `mem`, and lets it go on.
    pub fn run_atomic(
        &mut self,
        code: &Code<'_>,
        mem: &mut WarpMem<'_>,
    ) -> Result<(), KernelError> {
        if self.state != State::Atomic {
            return Ok(());
        }
        // A replay's load is answered from the record.
        let Some((pc, lanes)) = self.stopped_at() else {
            self.state = State::Exited;
            return Ok(());
        };
        if calls::is_heap_call(&code.prep.body.statements[pc]) {
            let (regs, ctx) = (&mut self.regs, &self.ctx);
            calls::serve_heap(regs, ctx, code, mem, (pc, lanes))?;
        } else if let Some(k) = self.exec_mem(code, pc, lanes, mem)? {
            // Its addresses were timed at the address pass.
            self.slab.free(k);
        }
        self.pass_stop(pc);
        self.state = if self.done() {
            State::Exited
        } else {
            State::Run
        };
        Ok(())
    }
}

/// The memory of an atomic's address pass: loads read, stores do nothing.
struct DryRun<'a, 'm> {
    mem: &'a mut WarpMem<'m>,
}

impl Memory for DryRun<'_, '_> {
    fn load(&mut self, a: Access) -> Result<u64, sim_isa::exec::FaultKind> {
        self.mem.load(a)
    }
    fn store(&mut self, _: Access, _: u64) -> Result<(), sim_isa::exec::FaultKind> {
        Ok(())
    }
    fn var(&self, id: u32) -> Result<(sim_isa::Space, u64), sim_isa::exec::FaultKind> {
        self.mem.var(id)
    }
    fn to_generic(&self, space: sim_isa::Space, addr: u64) -> u64 {
        self.mem.to_generic(space, addr)
    }
    fn generic_to_space(&self, space: sim_isa::Space, addr: u64) -> u64 {
        self.mem.generic_to_space(space, addr)
    }
}
