//! Warp lifecycle: adding warps (stream-fed, host-fed or host-executed),
//! admission to a scheduler, fetching the next instruction with its
//! scoreboard-ready clock, retirement, and reuse of finished executed warps'
//! slots.

use super::board::{Board, ROW};
use super::hunger::Hungry;
use super::table::{InstInfo, MAX_USES, NONE};
use super::Sm;
use crate::error::SimError;
use crate::program::WarpLaunch;
use crate::stream::WarpStream;
use crate::warp_states::reason::BRANCH_RESOLVING;
use sim_isa::{ExecCtx, WarpRegs};
use std::collections::VecDeque;

/// Entries a host warp's queue is made with ([`Sm::add_host_warp`],
/// [`Sm::add_executed_warp`]).
const HOST_QUEUE: usize = 64;

/// `Warp::next` reads the first four registers of `InstInfo::uses` unconditionally.
const _: () = assert!(MAX_USES >= 4);

/// Indices a stream hands over per [`WarpStream::next_batch`] call.
const BATCH: usize = 64;

/// Where a warp's instructions come from.
// The stream's batch stays inline (about 0.5 KiB a warp): boxed, every
// fetch would go through one more pointer; host-fed warps are the rare kind.
#[allow(clippy::large_enum_variant)]
pub(super) enum Source {
    /// `buf[pos..len]` are fetched but not yet started.
    Stream {
        stream: Box<dyn WarpStream>,
        buf: [u32; BATCH],
        /// Each buffered instruction's place in the code layout.
        at: [u32; BATCH],
        pos: u8,
        len: u8,
    },
    /// Pushed by the host; `closed` once it said no more will come. An entry
    /// holds the program index in its low 32 bits, with [`AFTER_BRANCH`] set
    /// for a taken branch's target: it issues no earlier than `taken_branch`
    /// (`SmConfig::taken_branch_cycles`) clocks after the warp's last issue,
    /// the branch. Its high 32 bits are the lanes that executed it (executed
    /// warps; 0 for the others).
    Host {
        queue: VecDeque<u64>,
        closed: bool,
        taken_branch: u64,
    },
}

/// Marks a host queue entry that a taken branch leads to
/// ([`Sm::push_branch_target`]); program indices stay below it.
pub(super) const AFTER_BRANCH: u32 = 1 << 31;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum WarpState {
    Pending,
    Resident,
    Done,
}

pub(super) struct Warp {
    pub id: u32,
    pub active: u32,
    /// A host-executed warp ([`Sm::add_executed_warp`]): never executed
    /// here, no registers; `cur_lanes` gives each instruction's lanes.
    pub executed: bool,
    /// The lanes that executed `cur` (executed warps: set at fetch).
    pub cur_lanes: u32,
    /// Whether the slot is in `Hungry::cands` (kept across slot reuse, so
    /// that the list names each slot once).
    pub listed: bool,
    /// External instructions issued and not yet completed: the slot of a
    /// finished executed warp is freed only once this is 0.
    pub ext_out: u32,
    /// `active.count_ones()`: the thread count of an unguarded instruction
    /// (baseline x86-64 has no popcount instruction).
    pub threads: u64,
    pub source: Source,
    /// What execution needs to know of the warp (built once, not per issue).
    pub ctx: ExecCtx,
    pub regs: WarpRegs,
    /// Per register, when its pending write is ready for a consumer on
    /// each side (`pipes::Side::ALL`).
    pub board: Board,
    pub state: WarpState,
    /// Scheduler and position in its lists while resident.
    pub sched: u32,
    pub pos: u32,
    /// Instruction waiting to start, or `NONE`.
    pub cur: u32,
    /// Cycle `cur`'s operands are all ready (scoreboard, precomputed at fetch:
    /// only the warp's own issues change its registers).
    pub cur_ready: u64,
    /// The first of `cur`'s registers whose readiness is `cur_ready`, if a
    /// register's is (and not `fetch_stall`'s): the producer whose row
    /// names the reason of the warp's wait (`states`), found with the
    /// clock itself rather than by a second pass at issue. `NONE` else.
    pub cur_arg: u32,
    /// Clock before which the warp issues nothing: it is fetching machine
    /// code that the instruction cache did not hold.
    pub fetch_stall: u64,
    /// `cur`'s place in the code layout (the instruction cache's address).
    pub cur_at: u32,
    /// The instruction-cache line the warp fetched last (it still holds it).
    pub line: u32,
    /// Clock of the warp's last issue, as its last fetch after an issue was
    /// told (host warps only: a taken branch's target waits from it).
    pub issued_at: u64,
    /// Warp states (`states`): the clock up to which its cycles are
    /// counted, the clock it became resident, its scheduler's unit-busy
    /// slots when counted last, the instruction it issued last (`NONE`
    /// before the first) and the reason of `fetch_stall`.
    pub acct: u64,
    pub admitted: u64,
    pub unit_snap: u64,
    pub last: u32,
    pub fetch_why: u8,
}

/// What [`Warp::next`] found.
pub(super) enum Next {
    /// `cur` and `cur_ready` hold the next instruction; it needs these pipes.
    Loaded(u8),
    /// An index past the program's end (`cur` is `NONE`).
    Bad(u32),
    /// The stream ended, or the host closed the warp (`cur` is `NONE`).
    End,
    /// A host warp with nothing queued yet (`cur` is `NONE`).
    Starved,
}

/// When instruction `ii`'s operands are all ready for a warp with
/// scoreboard `board` that fetches nothing before `fetch`, and the first
/// register that sets that clock (`NONE` when `fetch` does: a later one
/// only where it is strictly later, so ties go to the fetch stall, then to
/// the earlier register, as the stall reasons name them).
#[inline(always)]
pub(super) fn operands_ready(
    board: &Board,
    rows: &[[u64; ROW]],
    ii: &InstInfo,
    fetch: u64,
) -> (u64, u32) {
    let (mut r, mut arg) = (fetch, NONE);
    let board = board.reader(rows, usize::from(ii.side));
    // The first four unconditionally (the padding reads the sentinel,
    // whose clock is 0, which never wins): no branch per register for the
    // usual one to four; the rest only when named.
    let (head, tail) = ii.uses.split_at(4);
    for &u in head {
        let v = board.ready(u);
        if v > r {
            (r, arg) = (v, u);
        }
    }
    if ii.nuses > 4 {
        // Only the registers named (a `wmma.mma` names up to 25).
        let named = usize::from(ii.nuses).min(MAX_USES) - 4;
        for &u in &tail[..named] {
            let v = board.ready(u);
            if v > r {
                (r, arg) = (v, u);
            }
        }
    }
    (r, arg)
}

impl Warp {
    /// Takes the warp's next instruction from its source into `cur`, with
    /// the clock its operands are ready (`cur_ready`, from the scoreboard:
    /// only the warp's own issues change its registers). Flags `hungry`, and
    /// lists the warp's slot `wi` there, when a host warp's queue runs low
    /// (fewer than `width` left). `issued`: the clock of the issue this fetch
    /// follows (`None`: it follows none, or the warp waited for input since).
    #[inline(always)]
    pub fn next(
        &mut self,
        info: &[InstInfo],
        rows: &[[u64; ROW]],
        hungry: &mut Hungry,
        width: u32,
        issued: Option<u64>,
        wi: usize,
    ) -> Next {
        let next = match &mut self.source {
            Source::Stream {
                stream,
                buf,
                at,
                pos,
                len,
            } => {
                if *pos == *len {
                    *len = stream.next_batch_at(buf, at).min(BATCH) as u8;
                    *pos = 0;
                }
                if *pos < *len {
                    let i = buf[*pos as usize];
                    self.cur_at = at[*pos as usize];
                    *pos += 1;
                    Some(i)
                } else {
                    None
                }
            }
            Source::Host {
                queue,
                closed,
                taken_branch,
            } => {
                // Ask the host for more as soon as the queue runs low
                // (`Sm::run_until_idle`, `Sm::hungry_warps`), before the
                // warp would idle.
                let next = queue.pop_front();
                if queue.len() < width as usize && !*closed {
                    hungry.ran_low(&mut self.listed, wi);
                }
                if let Some(t) = issued {
                    self.issued_at = t;
                }
                match next {
                    Some(e) => {
                        // Low half: the index and flag; high half: the lanes.
                        let i = e as u32;
                        self.cur_lanes = (e >> 32) as u32;
                        if i & AFTER_BRANCH != 0 {
                            let after = self.issued_at.saturating_add(*taken_branch);
                            if after > self.fetch_stall {
                                self.fetch_stall = after;
                                self.fetch_why = BRANCH_RESOLVING;
                            }
                        }
                        let i = i & !AFTER_BRANCH;
                        // Host-fed code is laid out in program order.
                        self.cur_at = i;
                        Some(i)
                    }
                    None if *closed => None,
                    None => {
                        self.cur = NONE;
                        return Next::Starved;
                    }
                }
            }
        };
        let Some(i) = next else {
            self.cur = NONE;
            return Next::End;
        };
        // `info` has one entry per program instruction.
        let Some(ii) = info.get(i as usize) else {
            self.cur = NONE;
            return Next::Bad(i);
        };
        let (r, arg) = operands_ready(&self.board, rows, ii, self.fetch_stall);
        self.cur = i;
        self.cur_ready = r;
        self.cur_arg = arg;
        Next::Loaded(ii.need)
    }

    /// Heap bytes held (registers, scoreboard, host queue).
    pub fn heap_bytes(&self) -> usize {
        let queue = match &self.source {
            Source::Stream { .. } => 0,
            Source::Host { queue, .. } => queue.capacity() * std::mem::size_of::<u64>(),
        };
        self.regs.len() * std::mem::size_of::<[u64; sim_isa::WARP_SIZE]>()
            + self.board.heap_bytes()
            + queue
    }
}

impl Sm {
    /// Adds a warp of `source`; `executed`: a host-executed warp (no
    /// registers). Reuses the slot of a finished executed warp if one is free.
    fn push_warp(
        &mut self,
        warp_id: u32,
        active: u32,
        source: Source,
        executed: bool,
    ) -> Result<(), SimError> {
        if self.by_id.contains_key(&warp_id) {
            return Err(SimError::DuplicateWarp(warp_id));
        }
        if self.inst_acc.is_empty() {
            // Per-instruction counters only for SMs that run something: an
            // SM with no warps costs nothing per program instruction.
            self.inst_acc = vec![(0, 0); self.info.len()];
            self.states = Some(super::stall_acc::Acc::new(
                self.info.len(),
                self.tables.rows_why.clone(),
            ));
            self.icache =
                super::icache::ICacheState::new(&self.tables.cfg.icache, &self.tables.code_lines);
        }
        let n = self.prog.nregs;
        let host = matches!(source, Source::Host { .. });
        let warp = Warp {
            id: warp_id,
            active,
            executed,
            cur_lanes: 0,
            listed: false,
            ext_out: 0,
            threads: active.count_ones() as u64,
            source,
            ctx: ExecCtx::new(self.prog.target, warp_id),
            regs: WarpRegs::new(if executed { 0 } else { n }),
            // One register more than `nregs`: the sentinel of `InstInfo::uses`.
            board: Board::new(n),
            state: WarpState::Pending,
            sched: 0,
            pos: 0,
            cur: NONE,
            cur_ready: 0,
            cur_arg: NONE,
            fetch_stall: 0,
            cur_at: 0,
            line: u32::MAX,
            issued_at: 0,
            acct: 0,
            admitted: 0,
            unit_snap: 0,
            last: NONE,
            fetch_why: crate::warp_states::reason::NO_INSTRUCTION,
        };
        let idx = match self.hungry.pop_free() {
            Some(idx) => {
                // The slot may still be listed as a hunger candidate: the
                // new warp inherits the entry (`take_hungry_into` filters).
                let listed = self.warps[idx].listed;
                self.warps[idx] = warp;
                self.warps[idx].listed = listed;
                idx
            }
            None => {
                self.warps.push(warp);
                self.warps.len() - 1
            }
        };
        self.by_id.insert(warp_id, idx);
        self.live += 1;
        // Room for every slot in the candidate and free lists and for every
        // live executed warp's retirement: the run loop does not allocate.
        if host {
            let (slots, live) = (self.warps.len(), self.live);
            let l = self.hungry.lists();
            l.cands.reserve(slots.saturating_sub(l.cands.len()));
            l.free.reserve(slots.saturating_sub(l.free.len()));
            if executed {
                l.retired.reserve(live);
            }
            // An open host warp with nothing queued: hungry from the start.
            self.hungry.list(&mut self.warps[idx].listed, idx);
        }
        self.pending.push_back(idx);
        self.admit()
    }

    /// Adds a warp. It becomes resident at once if a slot is free, otherwise when
    /// an earlier warp finishes (in the order added).
    pub fn add_warp(&mut self, launch: WarpLaunch) -> Result<(), SimError> {
        self.push_warp(
            launch.warp_id,
            launch.active,
            Source::Stream {
                stream: launch.stream,
                buf: [0; BATCH],
                at: [0; BATCH],
                pos: 0,
                len: 0,
            },
            false,
        )
    }

    /// Adds a warp fed by the host with [`Sm::push_instruction`] and ended with
    /// [`Sm::close_warp`].
    pub fn add_host_warp(&mut self, warp_id: u32, active: u32) -> Result<(), SimError> {
        self.push_warp(warp_id, active, self.host_source(), false)
    }

    /// Adds a warp whose instructions the host has already executed: it is
    /// fed with [`Sm::push_executed`] (each instruction with the lanes that
    /// ran it) and ended with [`Sm::close_warp`]. The SM keeps no registers
    /// for it and never executes or reads them: it only times the stream,
    /// exactly as a [`Sm::add_host_warp`] warp fed the same indices. Once it
    /// has finished (and its external instructions are completed) the SM
    /// forgets it: its slot is reused, [`Sm::warp_regs`] no longer knows
    /// it, its id may be added again, and [`Sm::take_retired_into`] reports
    /// it.
    pub fn add_executed_warp(&mut self, warp_id: u32, active: u32) -> Result<(), SimError> {
        self.push_warp(warp_id, active, self.host_source(), true)
    }

    fn host_source(&self) -> Source {
        Source::Host {
            // Made for a few of the batches sim-kernel's engine pushes
            // (about 32 steps, `AHEAD`), not grown from empty: in the 128^3
            // SGEMM the executed warps' queues grew 1,280 times from empty
            // and 640 times from this (0.1M host instructions saved); a
            // queue that holds more still grows.
            queue: VecDeque::with_capacity(HOST_QUEUE),
            closed: false,
            taken_branch: u64::from(self.tables.cfg.taken_branch_cycles),
        }
    }

    /// Warp `warp_id` and its index.
    fn warp_by_id(&mut self, warp_id: u32) -> Result<(usize, &mut Warp), SimError> {
        let &wi = self
            .by_id
            .get(&warp_id)
            .ok_or(SimError::UnknownWarp(warp_id))?;
        Ok((wi, &mut self.warps[wi]))
    }

    /// Fetches for a resident host warp that was waiting for input.
    fn wake_host_warp(&mut self, wi: usize) -> Result<(), SimError> {
        let w = &self.warps[wi];
        if w.state == WarpState::Resident && w.cur == NONE {
            self.starved_until_now(wi);
            self.fetch(wi, None)?;
        }
        Ok(())
    }

    /// Appends one dynamic instruction (index into [`crate::Program::insts`]) to a host warp.
    pub fn push_instruction(&mut self, warp_id: u32, index: u32) -> Result<(), SimError> {
        self.push_entry(warp_id, index, 0, None)
    }

    /// [`Sm::push_instruction`] for the target of a branch the warp takes:
    /// it issues no earlier than `SmConfig::taken_branch_cycles` after the
    /// warp's previous instruction, the branch (the fetch redirect; a wait
    /// for its operands overlaps it). The host decides which branches the
    /// machine code keeps (sim-kernel: loop back-edges).
    pub fn push_branch_target(&mut self, warp_id: u32, index: u32) -> Result<(), SimError> {
        self.push_entry(warp_id, index, AFTER_BRANCH, None)
    }

    /// Appends one instruction the host has executed to an executed warp
    /// ([`Sm::add_executed_warp`]): `index` into [`crate::Program::insts`],
    /// `lanes` the lanes that ran it (active, guard true: its thread count in
    /// the statistics, and [`crate::ExternalRequest::lanes`] when it is
    /// external), `after_branch` as for [`Sm::push_branch_target`] (a taken
    /// branch leads to it). Timing is that of [`Sm::push_instruction`].
    pub fn push_executed(
        &mut self,
        warp_id: u32,
        index: u32,
        lanes: u32,
        after_branch: bool,
    ) -> Result<(), SimError> {
        let flag = if after_branch { AFTER_BRANCH } else { 0 };
        self.push_entry(warp_id, index, flag, Some(lanes))
    }

    /// [`Sm::push_executed`] for several instructions of one warp, in
    /// order (`(index, lanes, after_branch)` each): the same as pushing them
    /// one by one, with the warp looked up and woken once.
    pub fn push_executed_all(
        &mut self,
        warp_id: u32,
        steps: &[(u32, u32, bool)],
    ) -> Result<(), SimError> {
        self.push_executed_from(warp_id, steps.iter().copied())
    }

    /// [`Sm::push_executed_all`] from an iterator: a host that keeps its
    /// steps elsewhere hands them over as it walks them, without a copy
    /// in between. Steps taken before an error stay queued.
    pub fn push_executed_from<I>(&mut self, warp_id: u32, steps: I) -> Result<(), SimError>
    where
        I: IntoIterator<Item = (u32, u32, bool)>,
    {
        let len = self.prog.insts.len();
        let (wi, w) = self.warp_by_id(warp_id)?;
        let queue = match &mut w.source {
            Source::Host {
                queue,
                closed: false,
                ..
            } if w.executed => queue,
            Source::Host { .. } | Source::Stream { .. } => {
                return Err(SimError::NotHostWarp(warp_id))
            }
        };
        for (index, lanes, after) in steps {
            // The queue's flag bit is never an index's (no program is that long).
            if index as usize >= len || index & AFTER_BRANCH != 0 {
                return Err(SimError::BadIndex {
                    warp_id,
                    index,
                    len,
                });
            }
            let flag = if after { AFTER_BRANCH } else { 0 };
            queue.push_back(u64::from(index | flag) | u64::from(lanes) << 32);
        }
        self.wake_host_warp(wi)?;
        let w = &mut self.warps[wi];
        if w.is_hungry(self.cfg.issue_width as usize) {
            self.hungry.list(&mut w.listed, wi);
        }
        Ok(())
    }

    /// Queues `index` with `flag` for host warp `warp_id`: a host-fed warp
    /// (`lanes` `None`) or an executed one (`Some`).
    fn push_entry(
        &mut self,
        warp_id: u32,
        index: u32,
        flag: u32,
        lanes: Option<u32>,
    ) -> Result<(), SimError> {
        let len = self.prog.insts.len();
        let (wi, w) = self.warp_by_id(warp_id)?;
        // The queue's flag bit is never an index's (no program is that long).
        if index as usize >= len || index & AFTER_BRANCH != 0 {
            return Err(SimError::BadIndex {
                warp_id,
                index,
                len,
            });
        }
        if w.executed != lanes.is_some() {
            return Err(SimError::NotHostWarp(warp_id));
        }
        let entry = u64::from(index | flag) | u64::from(lanes.unwrap_or(0)) << 32;
        match &mut w.source {
            Source::Host {
                queue,
                closed: false,
                ..
            } => queue.push_back(entry),
            Source::Host { closed: true, .. } | Source::Stream { .. } => {
                return Err(SimError::NotHostWarp(warp_id))
            }
        }
        self.wake_host_warp(wi)?;
        // Still short of `issue_width` queued: the host should push more,
        // so the next `take_hungry_into` names it again.
        let w = &mut self.warps[wi];
        if w.is_hungry(self.cfg.issue_width as usize) {
            self.hungry.list(&mut w.listed, wi);
        }
        Ok(())
    }

    /// Ends a host warp: it finishes once its queued instructions have issued.
    pub fn close_warp(&mut self, warp_id: u32) -> Result<(), SimError> {
        let (wi, w) = self.warp_by_id(warp_id)?;
        match &mut w.source {
            Source::Host { closed, .. } => *closed = true,
            Source::Stream { .. } => return Err(SimError::NotHostWarp(warp_id)),
        }
        self.wake_host_warp(wi)
    }

    /// Whether a host warp has nothing queued (the host should push or close it).
    pub fn warp_waiting(&self, warp_id: u32) -> bool {
        self.by_id
            .get(&warp_id)
            .is_some_and(|&i| self.warps[i].is_hungry(1))
    }

    /// Makes pending warps resident while slots are free, round-robin over
    /// the schedulers.
    pub(super) fn admit(&mut self) -> Result<(), SimError> {
        while self.resident < self.cfg.resident_warps {
            let Some(wi) = self.pending.pop_front() else {
                break;
            };
            self.resident += 1;
            self.warps[wi].state = WarpState::Resident;
            let s = self.next_sched % self.scheds.len();
            self.next_sched += 1;
            let sc = &mut self.scheds[s];
            let w = &mut self.warps[wi];
            (w.acct, w.admitted, w.unit_snap) = (self.cycle, self.cycle, sc.slots[2]);
            self.warps[wi].sched = s as u32;
            self.warps[wi].pos = sc.warps.len() as u32;
            sc.warps.push(wi);
            sc.ready.push(u64::MAX);
            sc.need.push(0);
            sc.masks.rebuild(&sc.ready, &sc.need);
            sc.changed();
            tracing::debug!(
                cycle = self.cycle,
                warp = self.warps[wi].id,
                sched = s,
                "warp admitted"
            );
            self.fetch(wi, None)?;
        }
        Ok(())
    }

    /// Loads the warp's next instruction and its scoreboard-ready cycle, or
    /// retires the warp when its stream ends (`issued`: as for [`Warp::next`]).
    #[inline(always)]
    pub(super) fn fetch(&mut self, wi: usize, issued: Option<u64>) -> Result<(), SimError> {
        let w = &mut self.warps[wi];
        match w.next(
            &self.info,
            &self.rows,
            &mut self.hungry,
            self.cfg.issue_width,
            issued,
            wi,
        ) {
            Next::Loaded(need) => {
                // `refresh`, with the entry already at hand.
                if w.state == WarpState::Resident {
                    self.scheds[w.sched as usize].set_entry(w.pos as usize, w.cur_ready, need);
                }
                Ok(())
            }
            other => self.fetched(wi, other),
        }
    }

    /// The rest of [`Sm::fetch`] when no instruction was loaded: a bad
    /// index, the stream's end (the warp retires) or a host warp's empty queue.
    #[cold]
    pub(super) fn fetched(&mut self, wi: usize, next: Next) -> Result<(), SimError> {
        match next {
            Next::Loaded(_) => return Ok(()),
            Next::Bad(index) => {
                return Err(SimError::BadIndex {
                    warp_id: self.warps[wi].id,
                    index,
                    len: self.prog.insts.len(),
                })
            }
            Next::End => self.retire(wi)?,
            Next::Starved => {}
        }
        self.refresh(wi);
        Ok(())
    }

    /// Recomputes the warp's scan entry (ready clock, units needed) after its state changed.
    #[inline]
    pub(super) fn refresh(&mut self, wi: usize) {
        let w = &self.warps[wi];
        if w.state != WarpState::Resident {
            return;
        }
        let (r, n) = if w.cur != NONE {
            let ii = &self.info[w.cur as usize];
            (w.cur_ready, ii.need)
        } else {
            (u64::MAX, 0)
        };
        self.scheds[w.sched as usize].set_entry(w.pos as usize, r, n);
    }

    fn retire(&mut self, wi: usize) -> Result<(), SimError> {
        self.retire_states(wi);
        self.warps[wi].state = WarpState::Done;
        self.live -= 1;
        self.resident -= 1;
        tracing::debug!(
            cycle = self.cycle,
            warp = self.warps[wi].id,
            "warp finished"
        );
        let (si, p) = (self.warps[wi].sched as usize, self.warps[wi].pos as usize);
        let s = &mut self.scheds[si];
        s.warps.remove(p);
        s.ready.remove(p);
        s.need.remove(p);
        s.masks.rebuild(&s.ready, &s.need);
        s.changed();
        for &later in &s.warps[p..] {
            self.warps[later].pos -= 1;
        }
        let p = p as u32;
        if s.rr_next > p {
            s.rr_next -= 1;
        }
        s.greedy = match s.greedy {
            Some(g) if g == p => None,
            Some(g) if g > p => Some(g - 1),
            g => g,
        };
        if self.warps[wi].executed {
            self.forget(wi);
        }
        self.admit()
    }

    /// An executed warp finished: the host is told
    /// ([`Sm::take_retired_into`], and the run returns to it), its id is
    /// forgotten, and its slot freed unless an external instruction of it
    /// is outstanding (then [`Sm::complete_external`] frees it).
    fn forget(&mut self, wi: usize) {
        let id = self.warps[wi].id;
        self.by_id.remove(&id);
        self.hungry.lists().retired.push(id);
        self.hungry.retire = true;
        if self.warps[wi].ext_out == 0 {
            self.free_slot(wi);
        }
    }

    /// Frees a finished executed warp's slot for reuse, dropping its
    /// scoreboard and queue. Its state stays `Done`, so nothing treats it as
    /// a warp until a new one takes the slot.
    pub(super) fn free_slot(&mut self, wi: usize) {
        let w = &mut self.warps[wi];
        debug_assert!(w.executed && w.state == WarpState::Done && w.ext_out == 0);
        w.board = Board::default();
        w.source = Source::Host {
            queue: VecDeque::new(),
            closed: true,
            taken_branch: 0,
        };
        // Slots fit u32: warps are far fewer.
        self.hungry.lists().free.push(wi as u32);
    }
}
