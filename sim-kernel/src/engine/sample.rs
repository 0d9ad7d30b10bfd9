//! `--sample`: a few SMs spread over the GPU are timed (by default
//! [`SAMPLE_SMS`] of them: SMs 0, 33, 66 and 99 of 132); the others run
//! their blocks functionally and model each block's residency on their
//! timed partner's.
//!
//! An untimed SM's partner is the nearest timed SM below it. Blocks are
//! dealt breadth-first in SM order, so the partner is dealt each of its
//! blocks no later than the SM is dealt its corresponding one, and an SM
//! whose blocks end when the partner's do is dealt new ones in the same
//! epochs as the partner: the two go through the same waves. So the SM's
//! k-th block is held for the residency of the partner's k-th block, block
//! by block: a crowded first wave's blocks for a crowded wave's residency,
//! a thin last wave's for a thin one's. (A mean over all timed blocks
//! would hold every block for the mean of the waves so far: too long in a
//! thin last wave.)
//!
//! Residencies are matched after each epoch, in SM order, once every timed
//! SM's blocks of the epoch have ended: an SM's block whose partner's block
//! ended in the epoch ends in it too, and both SMs are dealt their next
//! blocks at the same boundary, whatever the host threads. While the
//! partner's block still runs, its residency is unknown and the SM's block
//! stays resident: it is, as far as the partner shows, still running.

use super::host::{Block, Shared, SmState};
use super::warp::Warp;
use super::Slot;
use crate::error::KernelError;
use crate::memtime::Gpu;
use crate::timing::Sampled;
use std::sync::atomic::Ordering;

/// `--sample` times this many SMs unless told otherwise (`--sample-sms`).
/// Timing an SM costs about seven times what running it functionally
/// does, so four of the H100's 132 cost 3% of the full run; fewer
/// estimates too few blocks (docs/sampling.md, "Error and speed").
pub const SAMPLE_SMS: u32 = 4;

/// `--sample` times every block of a launch of at most this many blocks.
pub const SAMPLE_MIN_BLOCKS: u64 = 256;

/// Each SM's timed partner under `--sample`, timing `timed` of `sms` SMs
/// (at least one, fewer than `sms`): SM `i * sms / timed` for each `i`
/// below `timed`, spread evenly over the GPU from SM 0, and each SM's
/// partner is the nearest timed one at or below it (SMs are dealt blocks
/// in SM order, so it is dealt each of its blocks first). A timed SM is
/// its own partner.
pub(super) fn partners(sms: u32, timed: u32) -> Vec<u32> {
    let timed = timed.clamp(1, sms.max(1));
    let mut partner = vec![0; sms as usize];
    for i in 0..timed {
        let first = (u64::from(i) * u64::from(sms) / u64::from(timed)) as usize;
        for p in &mut partner[first..] {
            *p = first as u32;
        }
    }
    partner
}

/// Running mean and variance of timed blocks' residency (Welford).
#[derive(Default)]
struct Durations {
    n: u64,
    mean: f64,
    m2: f64,
}

impl Durations {
    fn add(&mut self, x: u64) {
        self.n += 1;
        let d = x as f64 - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x as f64 - self.mean);
    }

    fn ci95(&self) -> f64 {
        if self.n < 2 {
            return f64::INFINITY;
        }
        1.96 * (self.m2 / (self.n - 1) as f64).sqrt() / (self.n as f64).sqrt()
    }
}

/// The residencies of the timed SMs' blocks.
#[derive(Default)]
pub(super) struct Residencies {
    /// By SM, its timed partner ([`partners`]).
    partner: Vec<u32>,
    /// By SM, by the order its blocks were dealt to it: the cycles each
    /// was resident (`None` while it runs).
    by_sm: Vec<Vec<Option<u64>>>,
    all: Durations,
    /// Blocks of untimed SMs modelled with `all`'s mean, their partner
    /// having no corresponding block.
    by_mean: u64,
}

impl Residencies {
    /// Before a launch whose SMs follow `partner` ([`partners`]).
    pub fn new(partner: Vec<u32>) -> Residencies {
        Residencies {
            partner,
            ..Residencies::default()
        }
    }

    /// Whether SM `sm` is timed: its own partner.
    pub fn timed(&self, sm: usize) -> bool {
        self.partner.get(sm).is_some_and(|&p| p as usize == sm)
    }

    /// The SM whose blocks SM `sm`'s follow.
    fn partner(&self, sm: usize) -> usize {
        self.partner[sm] as usize
    }

    /// Timed SM `sm`'s block `seq` (in its dealing order) was resident
    /// `cycles`.
    pub fn add(&mut self, sm: usize, seq: u32, cycles: u64) {
        if self.by_sm.len() <= sm {
            self.by_sm.resize_with(sm + 1, Vec::new);
        }
        let v = &mut self.by_sm[sm];
        if v.len() <= seq as usize {
            v.resize(seq as usize + 1, None);
        }
        v[seq as usize] = Some(cycles);
        self.all.add(cycles);
    }

    /// What the report gives: the timed SMs that ran blocks (`used`),
    /// the blocks they timed.
    pub fn report(&self, used: impl Fn(usize) -> bool) -> Sampled {
        let timed: Vec<u32> = (0..self.partner.len())
            .filter(|&s| self.timed(s) && used(s))
            .map(|s| s as u32)
            .collect();
        Sampled {
            timed_sms: timed.len() as u32,
            timed,
            timed_blocks: self.all.n,
            block_cycles: self.all.mean,
            ci95: self.all.ci95(),
            modelled_by_mean: self.by_mean,
        }
    }

    /// The cycles SM `sm`'s block `seq` is resident, if known now:
    /// its partner's block `seq`'s, once ended. A partner that has no such
    /// block and will get none (`partner_dealt` blocks, none left to deal)
    /// gives none to follow: then the mean of the timed blocks so far.
    fn of(&mut self, sm: usize, seq: u32, partner_dealt: u32, exhausted: bool) -> Option<u64> {
        let p = self.partner(sm);
        if let Some(d) = self
            .by_sm
            .get(p)
            .and_then(|v| v.get(seq as usize).copied().flatten())
        {
            return Some(d);
        }
        if seq < partner_dealt || !exhausted || self.all.n == 0 {
            return None;
        }
        self.by_mean += 1;
        Some(self.all.mean.round() as u64)
    }
}

/// How far the partner's corresponding block (SM `p`'s block `seq`) is,
/// in the untimed block's count: its own count of executed
/// warp-instructions (its share of the untimed block's total, both
/// blocks running the same code); all of it once the partner's block has
/// run to its end; `None` before it is dealt.
fn partner_point(p: &Points, seq: u32) -> Option<u64> {
    if seq >= p.dealt {
        return None;
    }
    match p.running.iter().find(|r| r.0 == seq) {
        Some(&(_, exec)) => Some(exec),
        None => Some(u64::MAX),
    }
}

/// A timed SM's blocks as [`partner_point`] reads them, gathered once for
/// the untimed SMs that follow it: how many it has been dealt, and the
/// sequence number and count of each that has not run to its end (its
/// blocks lie far apart in memory, and each untimed block looked for its
/// partner's among them every epoch).
#[derive(Default)]
struct Points {
    sm: Option<usize>,
    dealt: u32,
    running: Vec<(u32, u64)>,
}

impl Points {
    /// For timed SM `sm` (`st`), unless it is already.
    fn gather(&mut self, sm: usize, st: &SmState) {
        if self.sm == Some(sm) {
            return;
        }
        self.sm = Some(sm);
        self.dealt = st.dealt;
        self.running.clear();
        let running = st.blocks.iter().flatten().filter(|b| !b.fn_done());
        self.running.extend(running.map(|b| (b.seq, b.exec)));
    }
}

/// How far an untimed SM's block `b` has come in its partner's terms
/// (SM `partner`, if any: [`partner_point`]): the count its L2 notes are
/// brought in up to after the epoch ending at `end`. A block whose
/// partner has none to follow follows its modelled residency's elapsed
/// share; `None` while that is not known either.
fn reached(partner: Option<&Points>, b: &Block, end: u64) -> Option<u64> {
    match (partner.and_then(|p| partner_point(p, b.seq)), b.done_at) {
        (Some(u), _) => Some(u),
        (None, Some(t)) if t > b.start => {
            let share = u128::from(end.min(t) - b.start.min(end));
            let u = u128::from(b.exec) * share / u128::from(t - b.start);
            Some(u64::try_from(u).unwrap_or(u64::MAX))
        }
        (None, _) => None,
    }
}

/// Makes the warps and shared memory of the block in `slot` of `st` if
/// it is [`Block::new_unmade`], in the storage of one that ended if there
/// is one, its notes sized for as many as the blocks before held.
fn make(sh: &Shared<'_, '_>, st: &mut SmState, slot: usize) {
    let Some(b) = st.blocks.get_mut(slot).and_then(Option::as_mut) else {
        return;
    };
    if !b.unmade {
        return;
    }
    let f = sh.fresh;
    let (mut warps, mut shared) = st.bodies.pop().unwrap_or_default();
    if warps.len() == f.wpb as usize {
        for (w, wp) in warps.iter_mut().enumerate() {
            let w = w as u32;
            wp.reset(f.local, f.lanes(w), f.ctx(b.cta, b.sm, w), false);
        }
    } else {
        warps = (0..f.wpb)
            .map(|w| Warp::new(f.nregs, f.local, f.lanes(w), f.ctx(b.cta, b.sm, w), false))
            .collect();
    }
    for wp in &mut warps {
        wp.timed = false;
    }
    let prep = sh.code.prep;
    shared.clear();
    shared.extend_from_slice(&prep.shared_init);
    shared.resize(prep.shared as usize, 0);
    b.warps = warps;
    b.shared = shared;
    b.unmade = false;
    let hint = sh.notes_hint.load(Ordering::Relaxed);
    // A little over: another block may note a few more.
    b.notes.reserve(hint.saturating_add(hint / 16));
}

/// Gives the storage of the block in `slot` of `st` back for the next
/// block to run, if it was made ([`make`]) and has run to its end: no one
/// reads its warps or shared memory after that (`--dump-regs` takes its
/// block's registers here). Returns the L2 notes the block holds at its
/// end (0 if it gave nothing back).
fn give_back(st: &mut SmState, slot: usize) -> usize {
    let Some(b) = st.blocks.get_mut(slot).and_then(Option::as_mut) else {
        return 0;
    };
    if !st.lazy || !b.fn_done() || b.warps.is_empty() {
        return 0;
    }
    if st.dump_block == Some(b.cta) {
        for (w, x) in b.warps.iter().enumerate() {
            st.dumped.push((w as u32, x.regs.clone()));
        }
    }
    let body = (std::mem::take(&mut b.warps), std::mem::take(&mut b.shared));
    if st.bodies.len() < st.keep {
        st.bodies.push(body);
    }
    b.notes.noted()
}

/// Runs the blocks of an SM that `--sample` runs functionally, for one
/// epoch: each as far as it can go (until it ends or waits for a deferred
/// atomic). Whether it leaves the SM is decided after the epoch
/// ([`release`]). A block's warps are made as it first runs and given
/// back as it ends, for the next block to run in.
pub(super) fn run(sh: &Shared<'_, '_>, st: &mut SmState) -> Result<(), KernelError> {
    st.pending.clear();
    for slot in 0..st.blocks.len() {
        make(sh, st, slot);
        st.run_functional(sh, slot)?;
        let noted = give_back(st, slot);
        // Not every slot: the hint is one word all threads share.
        if noted > 0 {
            sh.notes_hint.fetch_max(noted, Ordering::Relaxed);
        }
    }
    Ok(())
}

/// After the epoch `[now, end)`, with every timed block that ended in it
/// added to `res`, in SM order: each untimed block held brings into L2
/// its sectors up to the point its partner's block has reached
/// ([`crate::memtime::L2Notes`]), and those that have run to their end
/// (functionally) and whose modelled residency ends before `end` leave
/// their SM, their last sectors brought in. `exhausted`: every block has
/// been dealt. Returns the blocks that left. (L2 holds a set of sectors:
/// which SM's come first changes nothing.)
pub(super) fn release(
    slots: &mut [Slot],
    res: &mut Residencies,
    gpu: &mut Gpu,
    (now, end): (u64, u64),
    exhausted: bool,
) -> u64 {
    let mut left = 0;
    let mut points = Points::default();
    for s in 0..slots.len() {
        if slots[s].st.detail || slots[s].st.live == 0 {
            continue;
        }
        let p = res.partner(s);
        let (lo, hi) = slots.split_at_mut(s);
        let Some(me) = hi.first_mut() else {
            continue;
        };
        // Below it: the nearest timed SM at or below an untimed one.
        let partner = lo.get(p).map(|x| {
            points.gather(p, &x.st);
            &points
        });
        let partner_dealt = partner.map_or(0, |x| x.dealt);
        let st = &mut me.st;
        for slot in 0..st.blocks.len() {
            let Some(b) = st.blocks[slot].as_mut() else {
                continue;
            };
            if let Some(upto) = reached(partner, b, end) {
                b.notes.release(gpu, upto);
            }
            if !b.fn_done() {
                continue;
            }
            // It ran to its end in this epoch (or earlier): it cannot have
            // left before.
            let ran = *b.fn_end.get_or_insert(now);
            if b.done_at.is_none() {
                b.done_at = res
                    .of(s, b.seq, partner_dealt, exhausted)
                    .map(|d| (b.start + d).max(ran));
            }
            let Some(t) = b.done_at.filter(|&t| t < end) else {
                continue;
            };
            st.last_end = st.last_end.max(t);
            b.notes.release(gpu, u64::MAX);
            b.notes.clear();
            give_back(st, slot);
            if let Some(done) = st.blocks[slot].take() {
                if st.spare.len() < st.keep {
                    st.spare.push(done);
                }
            }
            st.free_slots.push(slot as u32);
            st.live -= 1;
            left += 1;
        }
    }
    left
}

#[cfg(test)]
mod tests {
    use super::partners;

    /// The H100's 132 SMs, four timed: SMs 0, 33, 66 and 99, each
    /// followed by the SMs up to the next.
    #[test]
    fn timed_sms_spread_over_the_gpu_and_lead_the_sms_above() {
        let p = partners(132, 4);
        let timed: Vec<usize> = (0..132).filter(|&s| p[s] as usize == s).collect();
        assert_eq!(timed, [0, 33, 66, 99]);
        assert_eq!((p[32], p[33], p[65], p[98], p[131]), (0, 33, 33, 66, 99));
        // Two of 16 SMs: 0 and 8, as one in eight.
        let p = partners(16, 2);
        assert_eq!(p, [0, 0, 0, 0, 0, 0, 0, 0, 8, 8, 8, 8, 8, 8, 8, 8]);
    }
}
