//! A scheduler's warps as bitmasks, so that picking a warp, or learning why
//! none can issue, takes a few bit operations instead of a pass over the
//! warps (`Sched::ready` and `Sched::need`, which stay the truth these masks
//! summarise). Bit `p` stands for the warp at position `p`; a scheduler with
//! more than [`MAX_WARPS`] warps does without them (`Masks::on` is false)
//! and scans its lists instead.

use super::units::NCLASS;

/// Most warps a scheduler tracks in masks (bits of a `u64`).
pub(super) const MAX_WARPS: usize = 64;

/// What [`Masks::foresee`] knows of a later slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Later {
    /// Some warp can issue then.
    Issues,
    /// No warp can issue then: whether one is ready, and the clock until
    /// which that holds at least (the first busy pipe's, or the first
    /// pending warp's when none is ready).
    Blocked(bool, u64),
    /// Not known without a look at that clock.
    Unknown,
}

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

    /// What a slot at clock `t` will find, as far as is known without
    /// bringing the masks to `t` (pipe `c` accepts from `accept[c]` on):
    /// [`Later::Issues`] when a warp ready already needs no pipe busy then
    /// (every warp in `ready` is ready by `t` too); [`Later::Blocked`] when
    /// every warp with an instruction, ready or not, needs a pipe busy
    /// then (all of `ready` is ready by `t`, and no pending warp is before
    /// `next`); [`Later::Unknown`] when it takes `advance` and `eligible`
    /// to tell.
    #[inline(always)]
    pub fn foresee(&self, t: u64, accept: &[u64; NCLASS]) -> Later {
        // `ready` holds as of `as_of`; every warp in it is ready by `t` too.
        debug_assert!(t >= self.as_of);
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
            // Not all blocked (the test the usual blocked case takes first).
            if self.ready & !excluded != 0 {
                Later::Issues
            } else {
                Later::Unknown
            }
        } else if self.ready != 0 {
            Later::Blocked(true, frees)
        } else if self.next > t {
            Later::Blocked(false, self.next)
        } else {
            Later::Unknown
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

#[cfg(test)]
mod tests {
    //! `Masks` against the lists it summarises: random runs of `set`,
    //! `advance` (now and then back in time) and `rebuild`, each query
    //! checked against a pass over the lists.

    use super::*;
    use proptest::prelude::*;

    const NEVER: u64 = u64::MAX;

    /// Per class, a pipe's first accepting clock as an offset from the clock
    /// asked about (`None`: the configuration lacks the pipe).
    type Accept = [Option<i64>; NCLASS];

    /// One step of a run. Clocks are offsets from the last `advance`'s, so
    /// that ready clocks and busy pipes fall on both sides of the clocks
    /// asked about.
    #[derive(Clone, Debug)]
    enum Op {
        /// Warp `p % n` gets ready clock `r` (`None`: nothing to issue).
        Set { p: usize, r: Option<i64>, need: u8 },
        /// `advance` by `dt` (below 0: back in time), then the queries a
        /// slot makes there.
        Advance { dt: i64, accept: Accept },
        /// Warps added or removed: the lists become `len` long.
        Rebuild { len: usize },
        /// `foresee` `dt` after the last `advance`, without advancing (as
        /// the scheduler predicts its next slot after issuing).
        Blocked { dt: u64, accept: Accept },
    }

    fn clock() -> impl Strategy<Value = Option<i64>> {
        prop_oneof![4 => (-4i64..8).prop_map(Some), 1 => Just(None)]
    }

    /// One or two pipe classes, as an instruction needs.
    fn need() -> impl Strategy<Value = u8> {
        (0..NCLASS, 0..NCLASS).prop_map(|(a, b)| (1 << a | 1 << b) as u8)
    }

    fn accept() -> impl Strategy<Value = Accept> {
        [(); NCLASS].map(|_| prop_oneof![8 => (-3i64..6).prop_map(Some), 1 => Just(None)])
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            6 => (0..MAX_WARPS, clock(), need()).prop_map(|(p, r, need)| Op::Set { p, r, need }),
            4 => (0i64..4, accept()).prop_map(|(dt, accept)| Op::Advance { dt, accept }),
            1 => (-4i64..0, accept()).prop_map(|(dt, accept)| Op::Advance { dt, accept }),
            1 => (1..=MAX_WARPS).prop_map(|len| Op::Rebuild { len }),
            4 => (0u64..6, accept()).prop_map(|(dt, accept)| Op::Blocked { dt, accept }),
        ]
    }

    fn at(t: u64, off: Option<i64>) -> u64 {
        off.map_or(NEVER, |d| t.saturating_add_signed(d))
    }

    fn accept_at(t: u64, accept: &Accept) -> [u64; NCLASS] {
        accept.map(|a| at(t, a))
    }

    /// The positions for which `f` holds, as a mask.
    fn mask_of(n: usize, f: impl Fn(usize) -> bool) -> u64 {
        (0..n).filter(|&p| f(p)).fold(0, |m, p| m | 1 << p)
    }

    /// The first clock warp `p` can issue: once it is ready and every pipe it
    /// needs accepts (`NEVER`: not at all).
    fn first_issue(ready: &[u64], need: &[u64], p: usize, accept: &[u64; NCLASS]) -> u64 {
        (0..NCLASS)
            .filter(|&c| need[p] >> c & 1 != 0)
            .fold(ready[p], |t, c| t.max(accept[c]))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1024))]

        #[test]
        fn masks_match_the_lists(
            // Few warps often, so that every warp being blocked is common.
            n in prop_oneof![1..=4usize, 1..=MAX_WARPS],
            // Entries for the first lists and for warps added later.
            pool in proptest::collection::vec((clock(), need()), MAX_WARPS),
            ops in proptest::collection::vec(op(), 1..64),
        ) {
            let entry = |k: usize, t: u64| (at(t, pool[k].0), u64::from(pool[k].1));
            let (mut ready, mut need): (Vec<u64>, Vec<u64>) = (0..n).map(|k| entry(k, 0)).unzip();
            let mut m = Masks::default();
            m.rebuild(&ready, &need);
            let mut as_of = 0u64;
            for op in ops {
                let n = ready.len();
                match op {
                    Op::Set { p, r, need: nd } => {
                        let p = p % n;
                        let r = at(as_of, r);
                        m.set(p, r, need[p] as u8, nd);
                        (ready[p], need[p]) = (r, u64::from(nd));
                    }
                    Op::Rebuild { len } => {
                        ready.truncate(len);
                        need.truncate(len);
                        for k in n..len {
                            let (r, nd) = entry(k, as_of);
                            ready.push(r);
                            need.push(nd);
                        }
                        m.rebuild(&ready, &need);
                    }
                    Op::Advance { dt, accept } => {
                        let t = as_of.saturating_add_signed(dt);
                        as_of = t;
                        let got = m.advance(t, &ready, &need);
                        prop_assert_eq!(got, mask_of(n, |p| ready[p] <= t), "ready at {}", t);
                        let pending = ready.iter().filter(|&&r| t < r && r < NEVER);
                        prop_assert_eq!(m.first_pending(), pending.copied().min().unwrap_or(NEVER));

                        let acc = accept_at(t, &accept);
                        let free = mask_of(n, |p| first_issue(&ready, &need, p, &acc) <= t);
                        let cand = got & free;
                        let blocked = (0..n).filter(|&p| got >> p & 1 != 0).fold(0, |b, p| b | need[p]);
                        let until = (0..NCLASS)
                            .filter(|&c| blocked >> c & 1 != 0)
                            .map(|c| acc[c].max(t + 1))
                            .min()
                            .unwrap_or(NEVER);
                        prop_assert_eq!(m.candidates(got, &acc, t), cand);
                        prop_assert_eq!(m.eligible(got, &acc, t), (cand, blocked as u8, until));
                    }
                    Op::Blocked { dt, accept } => {
                        let t0 = as_of + dt;
                        let acc = accept_at(t0, &accept);
                        match m.foresee(t0, &acc) {
                            // Some warp issues at `t0`.
                            Later::Issues => {
                                let first = (0..n).map(|p| first_issue(&ready, &need, p, &acc)).min();
                                prop_assert!(first.is_some_and(|f| f <= t0), "no warp issues at {}", t0);
                            }
                            // A claim is made only for a later clock: the
                            // scheduler ignores the rest.
                            Later::Blocked(any_ready, until) if until > t0 => {
                                prop_assert_eq!(any_ready, ready.iter().any(|&r| r <= t0), "at {}", t0);
                                // No warp issues in [t0, until): each can first
                                // at `until` or later.
                                for p in 0..n {
                                    let first = first_issue(&ready, &need, p, &acc);
                                    prop_assert!(first >= until, "warp {} issues at {} < {} (t0 {})", p, first, until, t0);
                                    // With none ready the slots wait on
                                    // dependencies until `until` (none ready
                                    // before it; empty for good when it is
                                    // NEVER): the outcome holds throughout.
                                    if !any_ready {
                                        prop_assert!(ready[p] >= until, "warp {} ready at {} < {}", p, ready[p], until);
                                    }
                                }
                            }
                            Later::Blocked(..) | Later::Unknown => {}
                        }
                    }
                }
            }
        }

        #[test]
        fn first_from_is_round_robin(m in any::<u64>(), start in 0..=MAX_WARPS) {
            let want = (start..MAX_WARPS).chain(0..MAX_WARPS).find(|&p| m >> p & 1 != 0);
            prop_assert_eq!(first_from(m, start), want);
        }
    }

    #[test]
    fn first_from_edges() {
        assert_eq!(first_from(0, 0), None);
        assert_eq!(first_from(0, MAX_WARPS), None);
        assert_eq!(first_from(0b1010, 0), Some(1));
        assert_eq!(first_from(1 << 63 | 1 << 5, 63), Some(63));
        // Past the last set bit, and past the last position: wraps around.
        assert_eq!(first_from(0b1010, 63), Some(1));
        assert_eq!(first_from(1 << 63 | 1 << 5, MAX_WARPS), Some(5));
    }

    /// The three claims `foresee` makes, in plain cases (so that the
    /// property above does not hold only because it returns `Unknown`).
    #[test]
    fn foresee_claims() {
        let mut accept = [0u64; NCLASS];
        (accept[0], accept[1]) = (10, 12);
        // Warp 0 ready needing pipe 0, warp 1 ready at 7 needing pipe 1:
        // pipe-busy until pipe 0 accepts.
        let (ready, need) = ([0, 7], [0b01, 0b10]);
        let mut m = Masks::default();
        m.rebuild(&ready, &need);
        m.advance(2, &ready, &need);
        assert_eq!(m.foresee(5, &accept), Later::Blocked(true, 10));
        // Nothing ready, warp 1's pipe busy: waiting on warp 1 until 7 (at
        // least; its pipe is busy longer).
        m.set(0, u64::MAX, 0b01, 0b01);
        assert_eq!(m.foresee(5, &accept), Later::Blocked(false, 7));
        // Some warp ready needing only free pipes: it issues.
        m.set(0, 1, 0b01, 0b100);
        assert_eq!(m.foresee(5, &accept), Later::Issues);
        // None ready, warp 0 pending on a free pipe: a look at 5 tells.
        m.set(0, 4, 0b100, 0b100);
        assert_eq!(m.foresee(5, &accept), Later::Unknown);
    }
}
