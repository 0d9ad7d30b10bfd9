//! Ready-made [`WarpStream`]s.

use crate::WarpStream;
use std::sync::Arc;

/// Replays a fixed list of instruction indices.
#[derive(Clone, Debug)]
pub struct VecStream {
    indices: Arc<[u32]>,
    pos: usize,
}

impl VecStream {
    /// A stream over `indices` (shared, so many warps can replay one list).
    pub fn new(indices: impl Into<Arc<[u32]>>) -> Self {
        VecStream {
            indices: indices.into(),
            pos: 0,
        }
    }
}

impl WarpStream for VecStream {
    fn next_index(&mut self) -> Option<u32> {
        let i = self.indices.get(self.pos).copied();
        self.pos += 1;
        i
    }
}

/// Runs `body` (a list of instruction indices) `times` times: a straight-line loop.
#[derive(Clone, Debug)]
pub struct RepeatStream {
    body: Arc<[u32]>,
    times: u64,
    pos: usize,
}

impl RepeatStream {
    /// `body` repeated `times` times.
    pub fn new(body: impl Into<Arc<[u32]>>, times: u64) -> Self {
        let body = body.into();
        let times = if body.is_empty() { 0 } else { times };
        RepeatStream {
            body,
            times,
            pos: 0,
        }
    }
}

impl WarpStream for RepeatStream {
    fn next_index(&mut self) -> Option<u32> {
        if self.times == 0 {
            return None;
        }
        let i = self.body[self.pos];
        self.pos += 1;
        if self.pos == self.body.len() {
            self.pos = 0;
            self.times -= 1;
        }
        Some(i)
    }
}

/// Runs `body` once per element of an iterator-like closure: wraps any `FnMut`.
pub struct FnStream<F: FnMut() -> Option<u32> + Send>(pub F);

impl<F: FnMut() -> Option<u32> + Send> WarpStream for FnStream<F> {
    fn next_index(&mut self) -> Option<u32> {
        (self.0)()
    }
}
