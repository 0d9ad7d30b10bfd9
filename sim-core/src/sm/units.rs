//! Functional-unit occupancy of one SM: per scheduler partition and unit
//! class, the tick at which the unit is next free.

use crate::config::{SmConfig, UnitClass};

/// Number of unit classes.
pub(super) const NCLASS: usize = UnitClass::COUNT;

/// What the SM's units share: the tick rate of each class. Time runs in
/// ticks of 1/`lanes_per_sm` clock per class, so fractional rates (Kepler's
/// 40 lanes per partition) stay exact.
pub(super) struct UnitState {
    /// Per class: ticks per clock (`lanes_per_sm`).
    pub scale: [u64; NCLASS],
}

/// The units of one scheduler partition (kept in its `Sched`, beside its
/// warps, so a slot finds both behind one index).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Pipes {
    /// Per class: tick at which the unit is free.
    pub free: [u64; NCLASS],
    /// Per class: the first clock during which the unit accepts a micro-op,
    /// `free / scale` (a unit accepts during clock `t` once
    /// `free < (t + 1) * scale`, that is once `t >= free / scale`); `u64::MAX` for a class
    /// the configuration lacks. Kept so that a slot compares clocks instead
    /// of multiplying.
    pub accept: [u64; NCLASS],
}

impl UnitState {
    /// All units free, for `config`'s schedulers.
    pub fn new(config: &SmConfig) -> Self {
        let mut scale = [0u64; NCLASS];
        for c in UnitClass::ALL {
            scale[c.index()] = config.units.get(c).lanes_per_sm as u64;
        }
        UnitState { scale }
    }

    /// A partition's units, all free.
    pub fn pipes(&self) -> Pipes {
        let mut accept = [0u64; NCLASS];
        for (a, &k) in accept.iter_mut().zip(&self.scale) {
            if k == 0 {
                *a = u64::MAX;
            }
        }
        Pipes {
            free: [0; NCLASS],
            accept,
        }
    }

    /// Occupies unit `class` of `pipes` for `ticks` from clock `now` on
    /// (micro-ops per class are counted from the tables when statistics are
    /// asked for).
    #[inline]
    pub fn take(&self, pipes: &mut Pipes, class: usize, ticks: u64, now: u64) {
        // Classes are below NCLASS: the modulo only drops the bounds checks.
        let class = class % NCLASS;
        let k = self.scale[class];
        let slot = &mut pipes.free[class];
        *slot = (*slot).max(now * k) + ticks;
        if let Some(a) = slot.checked_div(k) {
            pipes.accept[class] = a;
        }
    }
}

impl UnitState {
    /// Occupies the pipes of one instruction: `pipe[i]` for `ticks[i]`,
    /// busiest first, the first unused entry (0 ticks) ending the list.
    #[inline(always)]
    pub fn occupy(&self, pipes: &mut Pipes, pipe: &[u8], ticks: &[u64], now: u64) {
        for (&c, &t) in pipe.iter().zip(ticks) {
            if t == 0 {
                break;
            }
            self.take(pipes, c as usize, t, now);
        }
    }
}

impl Pipes {
    /// Whether unit `class` can accept a micro-op during clock `now`: free
    /// at some point during it, which lets fractional rates (40 lanes per
    /// partition = 1.25 ops/clock) come out exact on average.
    #[inline]
    pub fn is_free(&self, class: usize, now: u64) -> bool {
        self.accept[class % NCLASS] <= now
    }
}
