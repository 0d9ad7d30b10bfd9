//! Host hooks: external instructions (issue and completion), register access,
//! and which host warps wait for input.

use super::sched::Outcome;
use super::table::InstInfo;
use super::table::NONE;
use super::warp::{Source, Warp, WarpState};
use super::Sm;
use crate::error::SimError;
use crate::external::{Completion, External, ExternalRequest};
use crate::program::Program;
use crate::stats::Measured;
use sim_isa::{RegId, WARP_SIZE};

use super::hunger::PENDING;

/// Where a run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// Every warp finished and every external instruction completed.
    Done,
    /// The host is needed: a host warp ran dry ([`Sm::hungry_warps`]), an
    /// executed warp finished ([`Sm::take_retired_into`]), or every live
    /// warp waits for input or an external completion.
    Waiting,
    /// The cycle or instruction bound of [`crate::Simulation::run_until`],
    /// or the clock bound of [`Sm::run_until_idle_before`], was reached.
    Reached,
}

/// An external instruction issued and not yet completed.
#[derive(Clone, Copy)]
pub(super) struct Outstanding {
    ticket: u64,
    wi: usize,
    /// The program instruction.
    index: u32,
    cycle: u64,
    lanes: u32,
    writes: [u32; 2],
    nwrites: u8,
    /// The all-zero scoreboard row tagged with the instruction's stall
    /// reason (`InstInfo::flat_row`): what its destinations are set with.
    row: u16,
}

/// The SM's side of the host's instructions: which it owns, the ones
/// issued and not yet completed, and the tickets that name them. Apart from
/// the rest of the SM so that an issue (`Sm::issue`), which holds the SM's
/// parts borrowed apart, hands it over whole to the host-owned step.
#[derive(Default)]
pub(super) struct HostSide {
    /// Per program instruction: whether the host owns it; empty until one
    /// is marked.
    pub mark: Vec<Mark>,
    /// External instructions issued and not yet completed.
    pub outstanding: Vec<Outstanding>,
    pub next_ticket: u64,
    /// Index in its [`crate::Simulation`] (reported to [`crate::External`]).
    pub sm_id: u32,
}

/// Whether the host owns a program instruction, and the latencies it gave
/// a memory one.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Mark {
    pub on: bool,
    pub lat: Option<Measured>,
}

impl Sm {
    /// Marks program instruction `index` as external: warps issuing it hand it
    /// to the host ([`crate::External`]) instead of executing it. Calls that
    /// take no `External` ([`Sm::step`], [`Sm::run_to_completion`],
    /// [`crate::Simulation::run`]) leave them to [`Sm::complete_external`].
    pub fn mark_external(&mut self, index: u32) -> Result<(), SimError> {
        let len = self.prog.insts.len();
        if index as usize >= len {
            return Err(SimError::BadMark { index, len });
        }
        let marks = &mut self.host.mark;
        if marks.is_empty() {
            *marks = vec![Mark::default(); len];
        }
        // A memory instruction's latency is what the host's memory gave
        // it, not the table's issue latency; a barrier's or a clock
        // read's wait comes before it issues, so theirs stays the table's.
        let mem = sim_isa::db::memory(&self.prog.insts[index as usize]).is_some();
        marks[index as usize] = Mark {
            on: true,
            lat: mem.then(Measured::default),
        };
        Ok(())
    }

    /// External instructions issued and not yet completed.
    pub fn pending_externals(&self) -> usize {
        self.host.outstanding.len()
    }

    /// Whether an executed warp finished since the last call, or a host
    /// warp's queue ran low since then and some host warp still is hungry
    /// (the host may have fed it meanwhile). The warps listed since
    /// [`Sm::take_hungry_into`] are asked first; all only if none is.
    pub(crate) fn take_hungry(&mut self) -> bool {
        let retired = std::mem::take(&mut self.hungry.retire);
        if !std::mem::take(&mut self.hungry.flag) {
            return retired;
        }
        let ahead = self.cfg.issue_width as usize;
        let listed = self.hungry.cands();
        retired
            || listed
                .iter()
                .any(|&wi| self.warps[wi as usize].is_hungry(ahead))
            || self.hungry_warps().next().is_some()
    }

    /// Appends to `out` the ids of the host warps (of either kind) that are
    /// hungry as [`Sm::hungry_warps`] defines it and ran low, were added, or
    /// were pushed to and stayed hungry since the last call: each once,
    /// ascending. Its cost is that of those warps, not of every warp on the
    /// SM. A host that pushes to (or closes) every warp named is named every
    /// hungry warp, as [`Sm::hungry_warps`] would. A warp the host leaves
    /// hungry untouched (say, held at a barrier) is not named again until it
    /// runs low again, which a warp with nothing queued does not: the host
    /// must remember it ([`Sm::hungry_warps`] still lists it).
    pub fn take_hungry_into(&mut self, out: &mut Vec<u32>) {
        let start = out.len();
        let ahead = self.cfg.issue_width as usize;
        let Sm { hungry, warps, .. } = self;
        let Some(lists) = hungry.lists.as_mut() else {
            return;
        };
        for wi in lists.cands.drain(..) {
            let w = &mut warps[wi as usize];
            w.listed = false;
            if w.is_hungry(ahead) {
                out.push(w.id);
            }
        }
        out[start..].sort_unstable();
    }

    /// Appends to `out` the ids of the executed warps
    /// ([`Sm::add_executed_warp`]) that finished since the last call, in the
    /// order they finished. (The SM keeps them until taken.)
    pub fn take_retired_into(&mut self, out: &mut Vec<u32>) {
        if let Some(lists) = self.hungry.lists.as_mut() {
            out.append(&mut lists.retired);
        }
    }

    /// Whether, after a step, nothing can happen without the host: the SM is
    /// not done, no scheduler is busy or had a ready warp, and every pending
    /// operand waits for an external completion.
    pub(crate) fn waits_for_host(&self) -> bool {
        !self.is_done()
            && self.scheds.iter().all(|s| {
                s.busy_until <= self.cycle
                    && match s.last {
                        Outcome::Empty => true,
                        Outcome::Dep => s.wake >= PENDING,
                        Outcome::Unit | Outcome::Issued => false,
                    }
            })
    }

    /// Sets the SM's index reported in [`ExternalRequest::sm`].
    pub(crate) fn set_sm_id(&mut self, id: u32) {
        self.host.sm_id = id;
    }

    /// Completes the external instruction `ticket` (from its
    /// [`ExternalRequest`]): writes its values to the request's lanes (an
    /// executed warp has no registers: only the clock counts) and makes its
    /// destinations ready at `c.cycle`.
    pub fn complete_external(&mut self, ticket: u64, c: &Completion) -> Result<(), SimError> {
        let host = &mut self.host;
        let Some(k) = host.outstanding.iter().position(|o| o.ticket == ticket) else {
            return Err(SimError::UnknownTicket(ticket));
        };
        let out = host.outstanding[k];
        let w = &mut self.warps[out.wi];
        complete(w, &out, c, &mut self.drain, &mut host.mark)?;
        host.outstanding.swap_remove(k);
        // The warp's next instruction may have waited on these registers.
        w.ext_out -= 1;
        if w.cur != NONE {
            let ii = &self.info[w.cur as usize];
            (w.cur_ready, w.cur_arg) =
                super::warp::operands_ready(&w.board, &self.rows, ii, w.fetch_stall);
        }
        if w.executed && w.state == WarpState::Done && w.ext_out == 0 {
            // Its last external: the finished warp's slot is free now.
            self.free_slot(out.wi);
        }
        self.refresh(out.wi);
        Ok(())
    }

    /// Instructions queued on this SM's host warps and not yet issued (a
    /// C host's pushes are bounded by their total: `PSS_MAX_QUEUED`).
    pub fn queued(&self) -> usize {
        self.warps
            .iter()
            .map(|w| match &w.source {
                Source::Host { queue, .. } => queue.len(),
                Source::Stream { .. } => 0,
            })
            .sum()
    }

    /// Ids of the host warps, not finished and not closed, with fewer than
    /// `issue_width` instructions queued beyond the one about to issue: the
    /// host should push their next instruction or close them. (A warp may
    /// issue `issue_width` instructions in one slot; with that many queued,
    /// it never waits for input a replayed stream would have had.)
    pub fn hungry_warps(&self) -> impl Iterator<Item = u32> + '_ {
        let ahead = self.cfg.issue_width as usize;
        self.warps
            .iter()
            .filter(move |w| w.is_hungry(ahead))
            .map(|w| w.id)
    }

    /// A warp's registers, mutably (the host writes inputs or results). The
    /// scoreboard is not consulted: writing a register a pending instruction
    /// will write is the host's affair.
    pub fn warp_regs_mut(&mut self, warp_id: u32) -> Option<&mut sim_isa::WarpRegs> {
        self.by_id.get(&warp_id).map(|&i| &mut self.warps[i].regs)
    }

    /// The 32 lanes of register (or predicate: 0/1 per lane) `reg` of a warp.
    pub fn reg(&self, warp_id: u32, reg: RegId) -> Result<&[u64; WARP_SIZE], SimError> {
        let regs = self
            .warp_regs(warp_id)
            .ok_or(SimError::UnknownWarp(warp_id))?;
        if reg.0 as usize >= regs.len() {
            return Err(bad_reg(warp_id, reg, regs.len()));
        }
        Ok(regs.get(reg))
    }

    /// Sets the 32 lanes of register (or predicate) `reg` of a warp.
    pub fn set_reg(
        &mut self,
        warp_id: u32,
        reg: RegId,
        lanes: &[u64; WARP_SIZE],
    ) -> Result<(), SimError> {
        let regs = self
            .warp_regs_mut(warp_id)
            .ok_or(SimError::UnknownWarp(warp_id))?;
        if reg.0 as usize >= regs.len() {
            return Err(bad_reg(warp_id, reg, regs.len()));
        }
        *regs.get_mut(reg) = *lanes;
        Ok(())
    }
}

fn bad_reg(warp_id: u32, reg: RegId, nregs: usize) -> SimError {
    SimError::NoSuchRegister {
        warp_id,
        reg: reg.0,
        nregs,
    }
}

impl super::warp::Warp {
    /// An open host warp, not finished, with fewer than `ahead` instructions queued.
    pub(super) fn is_hungry(&self, ahead: usize) -> bool {
        self.state != WarpState::Done
            && matches!(&self.source, Source::Host { queue, closed: false, .. } if queue.len() < ahead)
    }
}

impl HostSide {
    /// Whether the host owns program instruction `idx`.
    #[inline(always)]
    pub fn owns(&self, idx: u32) -> bool {
        self.mark.get(idx as usize).is_some_and(|m| m.on)
    }

    /// [`Sm::issue`]'s own step for an instruction the host owns, issued by
    /// warp `w` (slot `wi`, its entry `ii`) at `now`: asks the host, and
    /// either writes its completion or leaves its destinations pending. An
    /// executed warp's request asks only for the clock
    /// ([`External::issue_at`]): it has no registers to write. Returns the
    /// threads it counts.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn issue(
        &mut self,
        w: &mut Warp,
        wi: usize,
        ii: &InstInfo,
        prog: &Program,
        now: u64,
        ext: &mut dyn External,
        drain: &mut u64,
    ) -> Result<u64, SimError> {
        // The lanes the host is asked for, and the threads they count.
        let (lanes, threads) = if w.executed {
            (w.cur_lanes, u64::from(w.cur_lanes.count_ones()))
        } else if ii.guard != NONE {
            let lanes = super::sched::guard_lanes(w, ii.guard, ii.guard_neg);
            (lanes, u64::from(lanes.count_ones()))
        } else {
            (w.active, w.threads)
        };
        let idx = w.cur;
        let out = Outstanding {
            ticket: self.next_ticket,
            wi,
            index: idx,
            cycle: now,
            lanes,
            writes: ii.writes,
            nwrites: ii.nwrites,
            row: ii.flat_row,
        };
        self.next_ticket += 1;
        let req = ExternalRequest {
            ticket: out.ticket,
            sm: self.sm_id,
            cycle: now,
            warp_id: w.id,
            index: idx,
            inst: &prog.insts[idx as usize],
            lanes,
            regs: &w.regs,
        };
        let done = if w.executed {
            match ext.issue_at(&req) {
                Some(cycle) => {
                    complete_at(w, &out, cycle, drain, &mut self.mark)?;
                    return Ok(threads);
                }
                None => None,
            }
        } else {
            ext.issue(&req)
        };
        match done {
            Some(c) => complete(w, &out, &c, drain, &mut self.mark)?,
            None => {
                for &r in &out.writes[..out.nwrites as usize] {
                    w.board.set(r, PENDING, out.row);
                }
                w.ext_out += 1;
                self.outstanding.push(out);
            }
        }
        Ok(threads)
    }
}

/// Completes `out`, an external instruction of warp `w`, with `c`: its
/// values to the request's lanes (an executed warp has no registers: the
/// host holds its values), then its clock (`complete_at`).
fn complete(
    w: &mut Warp,
    out: &Outstanding,
    c: &Completion,
    drain: &mut u64,
    marks: &mut [Mark],
) -> Result<(), SimError> {
    // (An early completion writes nothing: `complete_at` refuses it.)
    if !w.executed && c.cycle >= out.cycle {
        let writes = &out.writes[..out.nwrites as usize];
        for (&r, vals) in writes.iter().zip(&c.values) {
            let dst = w.regs.get_mut(RegId(r));
            for (l, (d, &v)) in dst.iter_mut().zip(vals).enumerate() {
                if out.lanes >> l & 1 != 0 {
                    *d = v;
                }
            }
        }
    }
    complete_at(w, out, c.cycle, drain, marks)
}

/// Makes the destinations of `out`, an external instruction of warp `w`,
/// ready at `cycle` (the clock part of a completion; at most two
/// destinations, as `Completion::values`), the SM's `drain` no earlier, and
/// counts its latency in its mark.
#[inline]
fn complete_at(
    w: &mut Warp,
    out: &Outstanding,
    cycle: u64,
    drain: &mut u64,
    marks: &mut [Mark],
) -> Result<(), SimError> {
    if cycle < out.cycle {
        return Err(SimError::EarlyCompletion {
            ticket: out.ticket,
            issued: out.cycle,
            cycle,
        });
    }
    for &r in &out.writes[..out.nwrites as usize] {
        w.board.set(r, cycle, out.row);
    }
    *drain = (*drain).max(cycle);
    if let Some(m) = marks
        .get_mut(out.index as usize)
        .and_then(|m| m.lat.as_mut())
    {
        m.add(cycle - out.cycle);
    }
    Ok(())
}
