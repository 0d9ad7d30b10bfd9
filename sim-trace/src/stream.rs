//! Dynamic instruction streams: a compact loop structure over static
//! instruction indices, replayed lazily with a small fixed stack.

use serde::{Deserialize, Serialize};

/// One element of a stream. A stream is a flat list of these; a
/// [`StreamOp::Repeat`] owns the `body_len` ops that follow it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StreamOp {
    /// One static instruction.
    Inst(u32),
    /// Static instructions `start .. start + len`, in order (straight-line code).
    Run {
        /// First index.
        start: u32,
        /// How many (at least 1).
        len: u32,
    },
    /// Repeat the next `body_len` ops `count` times (`.repeat count { ... }`).
    Repeat {
        /// Iterations (at least 1).
        count: u64,
        /// Ops in the body, nested ones included (at least 1).
        body_len: u32,
    },
}

/// `ops` with consecutive places merged into runs (a cursor copies a run
/// without decoding each op), unless a repeat counts ops (then they stay
/// as they are). Places saturate at `u32::MAX`: a merge needs the next place
/// to be one past the run's end.
fn coalesce(ops: Vec<StreamOp>) -> Vec<StreamOp> {
    if ops.iter().any(|op| matches!(op, StreamOp::Repeat { .. })) {
        return ops;
    }
    let mut out: Vec<StreamOp> = Vec::with_capacity(ops.len().min(1024));
    for op in ops {
        let (start, len) = match op {
            StreamOp::Inst(i) => (i, 1),
            StreamOp::Run { start, len } => (start, len),
            StreamOp::Repeat { .. } => {
                out.push(op);
                continue;
            }
        };
        let merged = match out.last_mut() {
            // The merged run ends within `u32` (a cursor adds its length).
            Some(StreamOp::Inst(p))
                if p.checked_add(1) == Some(start) && start.checked_add(len).is_some() =>
            {
                Some(StreamOp::Run {
                    start: *p,
                    len: 1 + len,
                })
            }
            Some(StreamOp::Run { start: s, len: l })
                if s.checked_add(*l) == Some(start) && start.checked_add(len).is_some() =>
            {
                Some(StreamOp::Run {
                    start: *s,
                    len: *l + len,
                })
            }
            _ => None,
        };
        match (merged, out.last_mut()) {
            (Some(m), Some(last)) => *last = m,
            _ => out.push(op),
        }
    }
    out
}

/// Why a stream is malformed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StreamError {
    /// An index past the program.
    #[error("op {op}: instruction index {index} is out of range (program has {len})")]
    Index {
        /// Op position.
        op: usize,
        /// The index.
        index: u64,
        /// Program length.
        len: usize,
    },
    /// Zero count / empty body / empty run, or a body running past its parent.
    #[error("op {op}: {msg}")]
    Shape {
        /// Op position.
        op: usize,
        /// What is wrong.
        msg: &'static str,
    },
    /// Nested deeper than [`crate::limits::MAX_DEPTH`].
    #[error("loops nested deeper than {max}")]
    TooDeep {
        /// The limit.
        max: usize,
    },
    /// More dynamic instructions than [`crate::limits::MAX_DYNAMIC_PER_WARP`].
    #[error("op {op}: stream expands to more than {max} dynamic instructions")]
    TooLong {
        /// The op (a repeat, when one overflows) where the count passed the limit.
        op: usize,
        /// The limit.
        max: u64,
    },
}

/// A validated stream with its precomputed dynamic length and nesting depth.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stream {
    ops: Vec<StreamOp>,
    dynamic_len: u64,
    depth: usize,
}

impl Stream {
    /// The static code the stream walks, in order: each `Inst` once and each
    /// `Run`'s indices (a repeat loops over its body, it does not copy it).
    /// This is the stream's machine-code layout for the instruction cache.
    pub fn layout(&self) -> impl Iterator<Item = u32> + '_ {
        self.ops.iter().flat_map(|op| match *op {
            StreamOp::Inst(i) => i..i + 1,
            StreamOp::Run { start, len } => start..start + len,
            StreamOp::Repeat { .. } => 0..0,
        })
    }

    /// The same walk over places in a layout instead of instruction indices:
    /// the stream's code placed from `base` on, each instruction replaced by
    /// its place (so a cursor over it yields, step for step, where the
    /// instruction a cursor over `self` yields lies). Places past `u32::MAX`
    /// saturate.
    pub fn places(&self, base: u32) -> Stream {
        let mut at = base;
        let ops = self
            .ops
            .iter()
            .map(|op| match *op {
                StreamOp::Inst(_) => {
                    let p = StreamOp::Inst(at);
                    at = at.saturating_add(1);
                    p
                }
                StreamOp::Run { len, .. } => {
                    let p = StreamOp::Run { start: at, len };
                    at = at.saturating_add(len);
                    p
                }
                r @ StreamOp::Repeat { .. } => r,
            })
            .collect();
        Stream {
            ops: coalesce(ops),
            dynamic_len: self.dynamic_len,
            depth: self.depth,
        }
    }

    /// Validates `ops` against a program of `ninsts` instructions.
    pub fn new(ops: Vec<StreamOp>, ninsts: usize) -> Result<Stream, StreamError> {
        let (dynamic_len, depth) = analyse(&ops, ninsts)?;
        Ok(Stream {
            ops,
            dynamic_len,
            depth,
        })
    }

    /// The ops.
    pub fn ops(&self) -> &[StreamOp] {
        &self.ops
    }

    /// Total dynamic instructions the stream yields.
    pub fn dynamic_len(&self) -> u64 {
        self.dynamic_len
    }

    /// Deepest loop nesting.
    pub fn depth(&self) -> usize {
        self.depth
    }
}

/// Computes (dynamic length, depth) with checked arithmetic, rejecting shapes the
/// replay cursor could not handle.
fn analyse(ops: &[StreamOp], ninsts: usize) -> Result<(u64, usize), StreamError> {
    use crate::limits::{MAX_DEPTH, MAX_DYNAMIC_PER_WARP};
    let too_long = |op| StreamError::TooLong {
        op,
        max: MAX_DYNAMIC_PER_WARP,
    };
    // Frames: (repeat op, end op, repeat count, dynamic length accumulated in the body).
    let mut stack: Vec<(usize, usize, u64, u64)> = Vec::new();
    let mut total: u64 = 0;
    let mut depth = 0;
    let add = |stack: &mut Vec<(usize, usize, u64, u64)>, total: &mut u64, n: u64, op: usize| {
        let slot = match stack.last_mut() {
            Some(f) => &mut f.3,
            None => total,
        };
        *slot = slot
            .checked_add(n)
            .filter(|&v| v <= MAX_DYNAMIC_PER_WARP)
            .ok_or(too_long(op))?;
        Ok::<(), StreamError>(())
    };
    let mut pc = 0;
    loop {
        while let Some(&(start, end, count, body)) = stack.last() {
            if pc < end {
                break;
            }
            stack.pop();
            if body == 0 {
                return Err(StreamError::Shape {
                    op: start,
                    msg: "repeat body yields no instructions",
                });
            }
            let n = body.checked_mul(count).ok_or(too_long(start))?;
            add(&mut stack, &mut total, n, start)?;
        }
        let Some(&op) = ops.get(pc) else { break };
        match op {
            StreamOp::Inst(i) => {
                if i as usize >= ninsts {
                    return Err(StreamError::Index {
                        op: pc,
                        index: i.into(),
                        len: ninsts,
                    });
                }
                add(&mut stack, &mut total, 1, pc)?;
            }
            StreamOp::Run { start, len } => {
                let last = u64::from(start) + u64::from(len);
                if len == 0 {
                    return Err(StreamError::Shape {
                        op: pc,
                        msg: "empty run",
                    });
                }
                if last > ninsts as u64 {
                    return Err(StreamError::Index {
                        op: pc,
                        index: last - 1,
                        len: ninsts,
                    });
                }
                add(&mut stack, &mut total, len.into(), pc)?;
            }
            StreamOp::Repeat { count, body_len } => {
                if count == 0 || body_len == 0 {
                    return Err(StreamError::Shape {
                        op: pc,
                        msg: "repeat with zero count or empty body",
                    });
                }
                let end = pc + 1 + body_len as usize;
                let parent_end = stack.last().map_or(ops.len(), |f| f.1);
                if end > parent_end {
                    return Err(StreamError::Shape {
                        op: pc,
                        msg: "repeat body runs past its enclosing block",
                    });
                }
                stack.push((pc, end, count, 0));
                depth = depth.max(stack.len());
                if depth > MAX_DEPTH {
                    return Err(StreamError::TooDeep { max: MAX_DEPTH });
                }
            }
        }
        pc += 1;
    }
    Ok((total, depth))
}

#[derive(Clone, Copy, Debug)]
struct Frame {
    start: u32,
    end: u32,
    remaining: u64,
}

/// Lazy replay of a [`Stream`]: yields static instruction indices one at a time
/// with a stack sized once to the stream's depth, so stepping never allocates.
#[derive(Clone, Debug)]
pub struct Cursor {
    stream: std::sync::Arc<Stream>,
    pc: usize,
    /// Rest of the current run, `run_next..run_end` (`pc` is already past it),
    /// so most steps are one compare and an increment.
    run_next: u32,
    run_end: u32,
    stack: Vec<Frame>,
}

impl Cursor {
    /// A cursor at the start of `stream`.
    pub fn new(stream: std::sync::Arc<Stream>) -> Cursor {
        let depth = stream.depth;
        Cursor {
            stream,
            pc: 0,
            run_next: 0,
            run_end: 0,
            stack: Vec::with_capacity(depth),
        }
    }

    /// The next static instruction index, or `None` at the end.
    #[inline]
    pub fn next_index(&mut self) -> Option<u32> {
        if self.run_next != self.run_end {
            let i = self.run_next;
            self.run_next += 1;
            return Some(i);
        }
        let ops = &self.stream.ops;
        loop {
            if let Some(top) = self.stack.last_mut() {
                if self.pc == top.end as usize {
                    top.remaining -= 1;
                    if top.remaining > 0 {
                        self.pc = top.start as usize;
                    } else {
                        self.stack.pop();
                    }
                    continue;
                }
            }
            match *ops.get(self.pc)? {
                StreamOp::Inst(i) => {
                    self.pc += 1;
                    return Some(i);
                }
                StreamOp::Run { start, len } => {
                    // Validation guarantees len >= 1 and start + len within the program.
                    self.pc += 1;
                    self.run_next = start + 1;
                    self.run_end = start + len;
                    return Some(start);
                }
                StreamOp::Repeat { count, body_len } => {
                    // Validation guarantees count >= 1 and a non-empty body within bounds.
                    self.pc += 1;
                    let start = self.pc as u32;
                    self.stack.push(Frame {
                        start,
                        end: start + body_len,
                        remaining: count,
                    });
                }
            }
        }
    }
}

/// Builds a stream in canonical form: consecutive indices merge into runs.
/// Kernel text, `gen` and the trace reader all go through this, so text
/// printed by `dump` re-assembles to identical ops.
#[derive(Clone, Debug, Default)]
pub struct StreamBuilder {
    ops: Vec<StreamOp>,
    open: Vec<usize>,
    // Ops before this index belong to a repeat header or a closed body: never merge into them.
    sealed: usize,
}

impl StreamBuilder {
    /// Empty.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends one instruction index.
    pub fn push(&mut self, i: u32) {
        if self.ops.len() > self.sealed {
            if let Some(last) = self.ops.last_mut() {
                match *last {
                    StreamOp::Inst(j) if j.checked_add(1) == Some(i) => {
                        *last = StreamOp::Run { start: j, len: 2 };
                        return;
                    }
                    StreamOp::Run { start, len }
                        if start.checked_add(len) == Some(i) && len < u32::MAX =>
                    {
                        *last = StreamOp::Run {
                            start,
                            len: len + 1,
                        };
                        return;
                    }
                    _ => {}
                }
            }
        }
        self.ops.push(StreamOp::Inst(i));
    }

    /// Opens `.repeat count {`.
    pub fn open_repeat(&mut self, count: u64) {
        self.open.push(self.ops.len());
        self.ops.push(StreamOp::Repeat { count, body_len: 0 });
        self.sealed = self.ops.len();
    }

    /// Closes the innermost repeat; returns false if none is open.
    pub fn close_repeat(&mut self) -> bool {
        let Some(p) = self.open.pop() else {
            return false;
        };
        let body = (self.ops.len() - p - 1) as u32;
        if let StreamOp::Repeat { body_len, .. } = &mut self.ops[p] {
            *body_len = body;
        }
        self.sealed = self.ops.len();
        true
    }

    /// Open repeat blocks.
    pub fn depth(&self) -> usize {
        self.open.len()
    }

    /// Ops so far.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// No ops yet.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// The ops (callers validate with [`Stream::new`]).
    pub fn finish(self) -> Vec<StreamOp> {
        self.ops
    }
}

/// A cursor that also says where each instruction lies in the code layout:
/// it walks the stream's places ([`Stream::places`]) and reads each place's
/// instruction from the layout.
#[derive(Clone, Debug)]
pub struct PlacedCursor {
    place: Cursor,
    layout: std::sync::Arc<[u32]>,
}

impl PlacedCursor {
    /// Walks `places` (from [`Stream::places`]) over `layout` (the trace's,
    /// [`crate::Trace::layout`]: instruction index per place).
    pub fn new(places: std::sync::Arc<Stream>, layout: std::sync::Arc<[u32]>) -> PlacedCursor {
        PlacedCursor {
            place: Cursor::new(places),
            layout,
        }
    }
}

impl sim_core::WarpStream for PlacedCursor {
    fn next_index(&mut self) -> Option<u32> {
        let p = self.place.next_index()?;
        self.layout.get(p as usize).copied()
    }

    fn next_batch(&mut self, out: &mut [u32]) -> usize {
        let n = sim_core::WarpStream::next_batch(&mut self.place, out);
        for o in &mut out[..n] {
            // Places come from `Stream::places` over this layout: in range.
            *o = self.layout.get(*o as usize).copied().unwrap_or(0);
        }
        n
    }

    fn next_batch_at(&mut self, out: &mut [u32], at: &mut [u32]) -> usize {
        let k = out.len().min(at.len());
        // Places from a run (a straight-line stream is one): their
        // instructions are one stretch of the layout, copied whole instead
        // of looked up place by place. The batch then ends with the run.
        let c = &mut self.place;
        if c.run_next != c.run_end {
            let n = ((c.run_end - c.run_next) as usize).min(k);
            let first = c.run_next as usize;
            if let Some(code) = self.layout.get(first..first + n) {
                out[..n].copy_from_slice(code);
                for (a, p) in at[..n].iter_mut().zip(c.run_next..) {
                    *a = p;
                }
                c.run_next += n as u32;
                return n;
            }
        }
        let n = sim_core::WarpStream::next_batch(&mut self.place, &mut at[..k]);
        for (o, &p) in out[..n].iter_mut().zip(&at[..n]) {
            *o = self.layout.get(p as usize).copied().unwrap_or(0);
        }
        n
    }
}

impl sim_core::WarpStream for Cursor {
    #[inline]
    fn next_index(&mut self) -> Option<u32> {
        Cursor::next_index(self)
    }

    #[inline]
    fn next_batch(&mut self, out: &mut [u32]) -> usize {
        let mut n = 0;
        while n < out.len() {
            // Most indices come from runs: copy a stretch without re-entering the walk.
            if self.run_next != self.run_end {
                let k = ((self.run_end - self.run_next) as usize).min(out.len() - n);
                for (o, i) in out[n..n + k].iter_mut().zip(self.run_next..) {
                    *o = i;
                }
                self.run_next += k as u32;
                n += k;
                continue;
            }
            // Then single instructions up to the end of the current block.
            let ops = &self.stream.ops;
            let end = self.stack.last().map_or(ops.len(), |f| f.end as usize);
            // Over zipped slices of the stretch that fits: one bound per
            // step instead of two, and no index checks.
            let from = self.pc;
            let mut k = 0;
            for (o, op) in out[n..].iter_mut().zip(ops.get(from..end).unwrap_or(&[])) {
                let StreamOp::Inst(i) = *op else {
                    break;
                };
                *o = i;
                k += 1;
            }
            n += k;
            self.pc = from + k;
            if n == out.len() {
                break;
            }
            match Cursor::next_index(self) {
                Some(i) => {
                    out[n] = i;
                    n += 1;
                }
                None => break,
            }
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(s: Stream) -> Vec<u32> {
        let mut c = Cursor::new(std::sync::Arc::new(s));
        std::iter::from_fn(|| c.next_index()).collect()
    }

    #[test]
    fn straight_line_places_become_one_run() {
        let s = Stream::new(
            vec![
                StreamOp::Inst(5),
                StreamOp::Inst(9),
                StreamOp::Run { start: 2, len: 3 },
                StreamOp::Inst(0),
            ],
            10,
        )
        .unwrap();
        let p = s.places(10);
        assert_eq!(p.ops(), &[StreamOp::Run { start: 10, len: 6 }]);
        assert_eq!(walk(p), (10..16).collect::<Vec<_>>());
        // A run never grows past `u32::MAX`.
        let s = Stream::new(vec![StreamOp::Inst(0), StreamOp::Inst(1)], 2).unwrap();
        let p = s.places(u32::MAX - 1);
        assert_eq!(
            p.ops(),
            &[StreamOp::Inst(u32::MAX - 1), StreamOp::Inst(u32::MAX)]
        );
        assert_eq!(walk(p), vec![u32::MAX - 1, u32::MAX]);
    }

    /// A placed cursor hands out a run's places and their instructions a
    /// stretch at a time, batches ending mid-run and at its end alike, as
    /// the one-at-a-time walk does.
    #[test]
    fn placed_batches_follow_the_walk() {
        use sim_core::WarpStream;
        // Places 0..100 in one run, then a repeat that keeps its ops.
        let mut ops = vec![StreamOp::Run { start: 0, len: 100 }];
        ops.extend([
            StreamOp::Repeat {
                count: 3,
                body_len: 2,
            },
            StreamOp::Inst(100),
            StreamOp::Inst(101),
        ]);
        let places = std::sync::Arc::new(Stream::new(ops, 102).unwrap());
        let layout: std::sync::Arc<[u32]> = (0..102u32).map(|p| p * 7 % 13).collect();
        let mut one = PlacedCursor::new(places.clone(), layout.clone());
        let want: Vec<u32> = std::iter::from_fn(|| one.next_index()).collect();
        assert_eq!(want.len(), 106);
        for batch in [1, 7, 64, 200] {
            let mut c = PlacedCursor::new(places.clone(), layout.clone());
            let (mut got, mut got_at) = (Vec::new(), Vec::new());
            let (mut out, mut at) = (vec![0; batch], vec![0; batch]);
            loop {
                let n = c.next_batch_at(&mut out, &mut at);
                if n == 0 {
                    break;
                }
                got.extend_from_slice(&out[..n]);
                got_at.extend_from_slice(&at[..n]);
            }
            assert_eq!(got, want, "batch {batch}");
            assert!(got
                .iter()
                .zip(&got_at)
                .all(|(&i, &p)| layout[p as usize] == i));
        }
    }

    #[test]
    fn places_under_a_repeat_keep_their_ops() {
        // The repeat counts ops: merging would change what it repeats.
        let ops = vec![
            StreamOp::Repeat {
                count: 2,
                body_len: 2,
            },
            StreamOp::Inst(1),
            StreamOp::Inst(2),
        ];
        let s = Stream::new(ops, 4).unwrap();
        let p = s.places(0);
        assert_eq!(p.ops().len(), 3);
        assert_eq!(walk(p), vec![0, 1, 0, 1]);
    }
}
