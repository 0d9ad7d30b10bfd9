//! How instructions reach a warp: the [`WarpStream`] trait and ready-made streams.

use std::sync::Arc;

/// A warp's dynamic instruction stream.
pub trait WarpStream: Send {
    /// The next dynamic instruction, as an index into [`crate::Program::insts`];
    /// `None` ends the warp.
    fn next_index(&mut self) -> Option<u32>;

    /// Fills the front of `out` with the next indices and returns how many;
    /// 0 ends the warp. The SM buffers the batch, saving a dynamic call per
    /// instruction. The default takes one index, so streams that wait for
    /// input (channels) are never read ahead; replayable streams override it.
    fn next_batch(&mut self, out: &mut [u32]) -> usize {
        let Some(slot) = out.first_mut() else {
            return 0;
        };
        match self.next_index() {
            Some(i) => {
                *slot = i;
                1
            }
            None => 0,
        }
    }

    /// As [`WarpStream::next_batch`], also giving each instruction's place
    /// in the program's machine-code layout ([`crate::ProgramTables::with_layout`]),
    /// which the instruction cache follows. The default places each
    /// instruction at its own index (the program in order, each instruction
    /// once): a stream over a layout that repeats instructions overrides it.
    fn next_batch_at(&mut self, out: &mut [u32], at: &mut [u32]) -> usize {
        let n = self.next_batch(out);
        for (a, &i) in at.iter_mut().zip(&out[..n]) {
            *a = i;
        }
        n
    }
}

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
        // `new` emptied `times` for an empty body, so `pos` is in range.
        let i = *self.body.get(self.pos)?;
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
