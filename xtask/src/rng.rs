//! The validation tools' random source: `rand_xoshiro`'s SplitMix64, so runs
//! are reproducible from a seed, plus the few draws the generators make.

use rand_core::{Rng as _, SeedableRng};
use rand_xoshiro::SplitMix64;

/// SplitMix64's increment (the golden ratio in 64 bits).
const PHI: u64 = 0x9E37_79B9_7F4A_7C15;

/// A seeded SplitMix64 with uniform-choice helpers.
#[derive(Clone, Debug)]
pub struct Rng(SplitMix64);

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        // The state starts at `seed ^ PHI`, as it always has: the seeds in
        // docs/validation.md name the streams this gives.
        Rng(SplitMix64::seed_from_u64(seed ^ PHI))
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `num/den`.
    pub fn chance(&mut self, num: u32, den: u32) -> bool {
        (self.next_u64() % den as u64) < num as u64
    }

    /// One element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}
