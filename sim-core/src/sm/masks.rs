//! A scheduler's warps as bitmasks, so that picking a warp, or learning why
//! none can issue, takes a few bit operations instead of a pass over the
//! warps (`Sched::ready` and `Sched::need`, which stay the truth these masks
//! summarise). Bit `p` stands for the warp at position `p`; a scheduler with
//! more than [`MAX_WARPS`] warps does without them (`Masks::on` is false)
//! and scans its lists instead.

use super::units::NCLASS;

/// Most warps a scheduler tracks in masks (bits of a `u64`).
pub(super) const MAX_WARPS: usize = 64;

/// Which warps' next instructions are ready by a clock, which are pending,
/// and which need each pipe.
#[derive(Clone, Copy, Debug)]
pub(super) struct Masks {
    /// Whether the masks are maintained (at most [`MAX_WARPS`] warps).
    pub on: bool,
    /// The clock `ready` and `pending` refer to.
    as_of: u64,
    /// Warps whose next instruction's operands are ready by `as_of`.
    ready: u64,
    /// Warps with a next instruction whose operands are ready after `as_of`.
    pending: u64,
    /// The earliest ready clock among `pending` (`u64::MAX`: none). Only
    /// ever too early (then `advance` looks again), never too late.
    next: u64,
    /// Per pipe class: warps whose next instruction needs that pipe.
    by_class: [u64; NCLASS],
    /// Classes with a warp in `by_class` (a bit per class): the only pipes
    /// whose state matters to a pick, usually two or three of the eight.
    live: u8,
    /// Per position: the ready clock of `set` (`Sched::ready`'s, kept here
    /// too so that `advance` reads it without a bounds check).
    clock: [u64; MAX_WARPS],
}

impl Default for Masks {
    fn default() -> Self {
        Masks {
            on: true,
            as_of: 0,
            ready: 0,
            pending: 0,
            next: u64::MAX,
            by_class: [0; NCLASS],
            live: 0,
            clock: [u64::MAX; MAX_WARPS],
        }
    }
}

impl Masks {
    /// Rebuilds every mask from the lists (after warps were added or
    /// removed, which move positions; rare, so a pass is fine).
    pub fn rebuild(&mut self, ready: &[u64], need: &[u64]) {
        let as_of = self.as_of;
        *self = Masks {
            on: ready.len() <= MAX_WARPS,
            as_of,
            ..Masks::default()
        };
        if !self.on {
            return;
        }
        for (p, (&r, &m)) in ready.iter().zip(need).enumerate() {
            self.set(p, r, 0, m as u8);
        }
    }

    /// Warp `p`'s entry changed to ready clock `r` (`u64::MAX`: nothing to
    /// issue) and pipes `need` (from `old`).
    #[inline(always)]
    pub fn set(&mut self, p: usize, r: u64, old: u8, need: u8) {
        if !self.on {
            return;
        }
        let bit = 1u64 << (p % MAX_WARPS);
        self.clock[p % MAX_WARPS] = r;
        if old != need {
            self.set_classes(bit, old, need);
        }
        if self.pending & bit != 0 {
            // It may have been the earliest: let `advance` find the next.
            self.pending &= !bit;
            self.next = 0;
        }
        self.ready &= !bit;
        if r <= self.as_of {
            self.ready |= bit;
        } else if r != u64::MAX {
            self.pending |= bit;
            self.next = self.next.min(r);
        }
    }

    /// Moves warp `bit` from the classes of `old` to those of `need`.
    #[inline(always)]
    fn set_classes(&mut self, bit: u64, old: u8, need: u8) {
        let mut m = old;
        while m != 0 {
            let c = m.trailing_zeros() as usize % NCLASS;
            self.by_class[c] &= !bit;
            if self.by_class[c] == 0 {
                self.live &= !(1 << c);
            }
            m &= m - 1;
        }
        let mut m = need;
        while m != 0 {
            let c = m.trailing_zeros() as usize % NCLASS;
            self.by_class[c] |= bit;
            m &= m - 1;
        }
        self.live |= need;
    }

    /// Brings `ready` and `pending` to clock `t` and returns the warps ready
    /// by then. Pending warps are looked at only when one may be ready.
    #[inline(always)]
    pub fn advance(&mut self, t: u64, ready: &[u64], need: &[u64]) -> u64 {
        if t < self.as_of {
            // Back in time (never in a run's own order): start over.
            self.as_of = t;
            self.rebuild(ready, need);
        } else if t >= self.next {
            self.as_of = t;
            // The newly ready gathered in a local, moved once at the end.
            let (mut m, mut next, mut now_ready) = (self.pending, u64::MAX, 0u64);
            while m != 0 {
                let p = m.trailing_zeros() as usize;
                let r = self.clock[p % MAX_WARPS];
                if r <= t {
                    now_ready |= 1 << p;
                } else {
                    next = next.min(r);
                }
                m &= m - 1;
            }
            self.ready |= now_ready;
            self.pending &= !now_ready;
            self.next = next;
        }
        self.as_of = t;
        self.ready
    }

    /// The earliest ready clock among warps not ready by the last
    /// `advance`'s clock (`u64::MAX`: none), exact after it.
    #[inline]
    pub fn first_pending(&self) -> u64 {
        self.next
    }

    /// Whether no warp can issue at clock `t` because every warp with an
    /// instruction, ready or not, needs a pipe busy then (pipe `c` accepts
    /// from `accept[c]` on), known without bringing the masks to `t`: then
    /// whether one is ready (all of `ready` is by `t`, and no pending warp
    /// is before `next`) and the clock until which that holds at least (the
    /// first busy pipe's, or the first pending warp's when none is ready).
    /// `None` when that takes `advance` and `eligible` to tell.
    #[inline(always)]
    pub fn all_blocked(&self, t: u64, accept: &[u64; NCLASS]) -> Option<(bool, u64)> {
        let (mut m, mut excluded, mut frees) = (self.live, 0u64, u64::MAX);
        while m != 0 {
            let c = m.trailing_zeros() as usize % NCLASS;
            let a = accept[c];
            if a > t {
                excluded |= self.by_class[c];
                frees = frees.min(a);
            }
            m &= m - 1;
        }
        if (self.ready | self.pending) & !excluded != 0 {
            None
        } else if self.ready != 0 {
            Some((true, frees))
        } else if self.next > t {
            Some((false, self.next))
        } else {
            None
        }
    }

    /// The warps of `ready` that need no pipe busy at clock `t` (pipe `c`
    /// accepts from `accept[c]` on): `eligible`'s first part alone, for a
    /// slot that usually finds one (what it waits for is then not needed).
    #[inline(always)]
    pub fn candidates(&self, ready: u64, accept: &[u64; NCLASS], t: u64) -> u64 {
        let (mut m, mut excluded) = (self.live, 0u64);
        while m != 0 {
            let c = m.trailing_zeros() as usize % NCLASS;
            if accept[c] > t {
                excluded |= self.by_class[c];
            }
            m &= m - 1;
        }
        ready & !excluded
    }

    /// What a slot at clock `t` finds among the warps `ready` (pipe `c`
    /// accepts from clock `accept[c]` on), in one pass over the pipes some
    /// warp needs (usually two or three of the eight): the warps that need
    /// no busy pipe, the pipes the ready warps need (a bit per class), and
    /// the first clock after `t` at which one of those accepts (`u64::MAX`:
    /// none; `t + 1` where one is free already). One loop instead of a pass
    /// for the busy pipes, their warps, and the pipes of the ready warps.
    #[inline(always)]
    pub fn eligible(&self, ready: u64, accept: &[u64; NCLASS], t: u64) -> (u64, u8, u64) {
        let (mut m, mut excluded, mut blocked, mut until) = (self.live, 0u64, 0u8, u64::MAX);
        while m != 0 {
            let c = m.trailing_zeros() as usize % NCLASS;
            let (w, a) = (self.by_class[c], accept[c]);
            if a > t {
                excluded |= w;
            }
            if w & ready != 0 {
                blocked |= 1 << c;
                until = until.min(a.max(t + 1));
            }
            m &= m - 1;
        }
        (ready & !excluded, blocked, until)
    }
}

/// The lowest set bit's position at or after `start` in `m`, else the lowest
/// overall (round-robin from `start`); `None` if `m` is empty.
#[inline(always)]
pub(super) fn first_from(m: u64, start: usize) -> Option<usize> {
    if m == 0 {
        return None;
    }
    let hi = if start < MAX_WARPS {
        m & (!0u64 << start)
    } else {
        0
    };
    let m = if hi != 0 { hi } else { m };
    Some(m.trailing_zeros() as usize)
}
