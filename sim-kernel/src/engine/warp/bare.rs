//! A bare warp's execution: untimed, neither recorded nor replayed (an
//! SM that `--sample` runs functionally). Nothing it executes is handed
//! on, so its straight lines run in one loop of their own, which does
//! only what changes the warp's values; the rest goes [`Warp::step`]'s
//! way, shared with the timed loop.

use super::{Env, State, Warp};
use crate::engine::code::Stmt;
use crate::error::KernelError;
use crate::memtime::Kind;
use sim_isa::exec::execute_prepared_inline;
use sim_isa::exec::simd::{twice, Twice};

/// [`Warp::run_bare`]'s arguments, for [`twice`].
struct Bare<'w, 'e, 'a, 'b, 'c> {
    w: &'w mut Warp,
    env: &'e mut Env<'a, 'b, 'c>,
}

impl Twice for Bare<'_, '_, '_, '_, '_> {
    type Out = Result<(), KernelError>;
    #[inline(always)]
    fn run(self) -> Self::Out {
        self.w.run_bare(self.env)
    }
}

impl Warp {
    /// [`Warp::run`] of a bare warp (see [`Warp::run_bare`]): nothing it
    /// executes is handed on (`out` stays empty), so it runs until it
    /// stops. Out of line, apart from the timed loop, whose code it
    /// would otherwise change.
    #[inline(never)]
    pub(super) fn run_untimed(&mut self, env: &mut Env<'_, '_, '_>) -> Result<(), KernelError> {
        while self.state == State::Run {
            // The straight line's loop compiled for the baseline and for
            // AVX2, run as the second where the CPU has it: its word
            // accesses then run in line, not each through a copy of its
            // own (a call and a frame for every access).
            twice(Bare { w: self, env })?;
            self.step(env)?;
        }
        Ok(())
    }

    /// A bare warp's straight line: from the stack's top on, each plain, merged-member and memory statement
    /// (not a clock read or an atomic) to the first that is not one, to
    /// the top's reconvergence point, or to the launch's instruction limit
    /// (the statement past it goes [`Warp::step`]'s way, which fails).
    /// What `step` would do with them but run them (lanes, steps, emitting,
    /// addresses, the record) has no reader here, and none of them changes
    /// the stack: the place is written once, the count added once, and
    /// the statements walked as a slice (no bounds test a statement).
    #[inline(always)]
    fn run_bare(&mut self, env: &mut Env<'_, '_, '_>) -> Result<(), KernelError> {
        let code = env.code;
        let Some(&top) = self.stack.last() else {
            return Ok(());
        };
        let from = top.pc;
        let left = env.limit.saturating_sub(*env.count);
        let mut to = from.saturating_add(usize::try_from(left).unwrap_or(usize::MAX));
        // Where `advance` would pop the entry (its reconvergence point
        // ahead, or no lanes: after one statement), the step loop takes
        // over.
        if top.rpc > from {
            to = to.min(top.rpc);
        }
        if top.mask == 0 {
            to = to.min(from + 1);
        }
        let to = to.min(code.at.len()).min(code.exec.len()).max(from);
        let (at, exec) = match (code.at.get(from..to), code.exec.get(from..to)) {
            (Some(at), Some(exec)) => (at, exec),
            _ => return Ok(()),
        };
        let (mut pc, mut r) = (from, Ok(()));
        // A new straight line: no base register's shape is known.
        self.shapes.clear();
        for (st, p) in at.iter().zip(exec) {
            if st.plain {
                if let Some(p) = p {
                    execute_prepared_inline(p, &self.ctx, &mut self.regs, top.mask);
                }
            } else if !st.mem || st.clock || st.ext == Some(Kind::Atomic) {
                break;
            } else if let Err(e) = self.bare_mem(env, st, pc, top.mask) {
                r = Err(e);
                break;
            }
            pc += 1;
        }
        // A statement that failed counts (as `step`'s tick did); the warp
        // stays at it.
        *env.count += (pc - from + usize::from(r.is_err())) as u64;
        if pc != from {
            self.advance(pc);
        }
        r
    }

    /// [`Warp::run_bare`]'s memory statement `pc` (its record `st`), on
    /// lanes `mask`: a member read at its leader writes its word, a shared
    /// word access runs its untimed kernel ([`crate::engine::shload::WordAccess::run_bare`]), the
    /// rest run as `mem_step` runs them.
    #[inline(always)]
    fn bare_mem(
        &mut self,
        env: &mut Env<'_, '_, '_>,
        st: &Stmt,
        pc: usize,
        mask: u32,
    ) -> Result<(), KernelError> {
        if st.member {
            let taken = match (st.taken_back, st.word) {
                (1.., Some(w)) => {
                    let leader = pc.wrapping_sub(usize::from(st.taken_back)) as u32;
                    let at = (leader, st.taken_k);
                    self.pre.take_bare(at, w.reg(), mask, &mut self.regs)
                }
                _ => self
                    .pre
                    .take(env.code.preload_tables(), pc, mask, &mut self.regs),
            };
            if taken {
                return Ok(());
            }
        }
        // A group's global leader resets its group's preload: the general
        // way (`exec_or_preloaded`).
        if let Some(l) = st.word.as_ref().filter(|l| l.shared() || st.widen == 0) {
            // What `exec_or_preloaded` does with a word access that the
            // word path runs, for a warp that keeps no addresses and notes
            // no shared sectors: the kernel, a shared leader's members, a
            // global access's sectors.
            let mem = &mut *env.mem;
            let mut known = self.shapes.get(l, pc);
            let found = known.is_none();
            let ran = l.run_bare(
                &mut self.regs,
                mask,
                mem,
                (&mut self.slab.scratch, &mut known),
            );
            if let Some(k) = known.filter(|_| found) {
                self.shapes.put(l, pc, k);
            }
            if ran {
                let a0 = self.slab.scratch.addrs[0];
                if !l.shared() {
                    // Lane 0's word alone, or 32 consecutive ones.
                    let bytes = if mem.broadcast { 4 } else { 4 * 32 };
                    env.notes.note_words(a0, bytes, *env.count);
                    if l.global_load() && !mem.broadcast {
                        self.prefetch_next(l.ahead, pc, a0, mem);
                    }
                } else if st.widen != 0 {
                    if mem.broadcast && st.next_words != 0 {
                        self.pre.lead_next(pc, a0, mem.shared, st.next_words);
                    } else {
                        let read = mem.broadcast.then_some((a0, &*mem.shared));
                        self.pre.lead(env.code.preload_tables(), pc, read);
                    }
                }
                return Ok(());
            }
        }
        // No addresses were kept (`Slab::keeps`): a test.
        if let Some(k) = self.exec_or_preloaded(env, st, pc, mask)? {
            self.slab.free(k);
        }
        Ok(())
    }

    /// Asks the CPU for the words that global load `pc` (its entry `slot`
    /// of the table: `WordAccess::ahead`), which read 32 consecutive
    /// words at `a0`, reads next time if its address moves
    /// by as much again (a tile loop's loads step through rows or
    /// columns): a warp runs alone until its barrier, so the next time
    /// comes after the block's other warps ran, in time for the lines to
    /// arrive. Values are not touched. Without it each such load of the
    /// 1024^3 SGEMM waited on memory (the `--sample` runs' largest single
    /// cost, docs/speed.md).
    fn prefetch_next(&mut self, slot: u8, pc: usize, a0: u64, mem: &crate::memory::WarpMem<'_>) {
        let Some(e) = self.ahead.get_mut(usize::from(slot)) else {
            return;
        };
        if e.0 == pc as u32 {
            let next = a0.wrapping_add(a0.wrapping_sub(e.1));
            crate::engine::shload::prefetch_global(&mem.global, next);
        }
        *e = (pc as u32, a0);
    }
}
