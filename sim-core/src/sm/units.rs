//! Functional-unit occupancy of one SM: per scheduler partition and unit
//! class, the tick at which the unit is next free.

use crate::config::{SmConfig, UnitClass};

/// Number of unit classes.
pub(super) const NCLASS: usize = UnitClass::COUNT;

/// Occupancy of every unit of an SM. Time runs in ticks of 1/`lanes_per_sm`
/// clock per class, so fractional rates (Kepler's 40 lanes per partition)
/// stay exact.
pub(super) struct UnitState {
    /// Per (scheduler, class): tick at which the unit is free.
    pub free: Vec<[u64; NCLASS]>,
    /// Per class: ticks per clock (`lanes_per_sm`).
    pub scale: [u64; NCLASS],
    /// Per class: `(cycle + 1) * scale`, the tick a unit must be free
    /// before to accept a micro-op this clock (set by `set_clock`).
    pub lim: [u64; NCLASS],
    /// Per class: `cycle * scale`, the tick this clock starts at.
    pub now: [u64; NCLASS],
}

impl UnitState {
    /// All units free, for `config`'s schedulers.
    pub fn new(config: &SmConfig) -> Self {
        let mut scale = [0u64; NCLASS];
        for c in UnitClass::ALL {
            scale[c.index()] = config.units.get(c).lanes_per_sm as u64;
        }
        UnitState {
            free: vec![[0; NCLASS]; config.schedulers as usize],
            scale,
            lim: [0; NCLASS],
            now: [0; NCLASS],
        }
    }

    /// Sets the clock that `take` and the schedulers' scans refer to.
    #[inline]
    pub fn set_clock(&mut self, now: u64) {
        for c in 0..NCLASS {
            self.now[c] = now * self.scale[c];
            self.lim[c] = self.now[c] + self.scale[c];
        }
    }

    /// Whether the unit can accept a micro-op during clock `now`: free at
    /// some point during it, which lets fractional rates (40 lanes per
    /// partition = 1.25 ops/clock) come out exact on average.
    #[inline]
    pub fn is_free(&self, sched: usize, class: usize, now: u64) -> bool {
        self.free[sched][class] < (now + 1) * self.scale[class]
    }

    /// Occupies the unit for `ticks` from this clock on (micro-ops per class
    /// are counted from the tables when statistics are asked for).
    #[inline]
    pub fn take(&mut self, sched: usize, class: usize, ticks: u64) {
        // Classes are below NCLASS: the modulo only drops the bounds checks.
        let class = class % NCLASS;
        let slot = &mut self.free[sched][class];
        *slot = (*slot).max(self.now[class]) + ticks;
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.free.capacity() * std::mem::size_of::<[u64; NCLASS]>()
    }
}
