//! The host threads that run SMs besides the calling one, kept for the
//! whole launch.
//!
//! An epoch after a sampled launch's first holds a few timed SMs' work
//! (about a millisecond): threads started for each epoch cost a share of
//! it, and so does waking a thread that went to sleep while the calling
//! one merged the epoch's results. So between epochs each helper spins,
//! yielding to any other thread that could run, for at most [`WARM`],
//! until the next epoch begins. No value depends on any of it.

use crate::error::KernelError;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Longest a helper spins between two epochs (a sampled launch's are
/// about a millisecond apart; the full launch's merge takes longer than
/// this, and its helpers then sleep until woken).
const WARM: Duration = Duration::from_millis(2);

/// The helpers, and the flag that ends their spinning.
pub(super) struct Hosts {
    pub pool: rayon::ThreadPool,
    warm: Option<Arc<AtomicBool>>,
}

impl Hosts {
    /// `threads` host threads in all, for a launch on `sms` SMs: `None`
    /// for one.
    pub fn new(threads: usize, sms: usize) -> Result<Option<Hosts>, KernelError> {
        let extra = threads.clamp(1, sms.max(1)) - 1;
        if extra == 0 {
            return Ok(None);
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(extra)
            .thread_name(|i| format!("sm-host-{}", i + 1))
            .build()
            .map_err(|e| KernelError::Limit(format!("cannot start {extra} host threads: {e}")))?;
        Ok(Some(Hosts { pool, warm: None }))
    }

    /// An epoch begins: the helpers stop spinning and take its SMs.
    pub fn wake(&mut self) {
        if let Some(w) = self.warm.take() {
            w.store(true, Ordering::Release);
        }
    }

    /// An epoch ended: each helper spins until [`Hosts::wake`] (or
    /// [`WARM`] has passed), awake for the next.
    pub fn keep_warm(&mut self) {
        self.wake();
        let flag = Arc::new(AtomicBool::new(false));
        for _ in 0..self.pool.current_num_threads() {
            let f = Arc::clone(&flag);
            self.pool.spawn(move || {
                let until = Instant::now() + WARM;
                while !f.load(Ordering::Acquire) && Instant::now() < until {
                    for _ in 0..64 {
                        std::hint::spin_loop();
                    }
                    // Any other thread that could run goes first (a busy
                    // machine, or more threads than cores).
                    std::thread::yield_now();
                }
            });
        }
        self.warm = Some(flag);
    }
}

impl Drop for Hosts {
    fn drop(&mut self) {
        self.wake();
    }
}
