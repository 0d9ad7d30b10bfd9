//! What a launch's `--timeline` draws, recorded as it runs: per SM, each
//! block's residency, each warp's life, and each memory access from issue
//! to completion. Recording is off unless [`crate::RunOptions::timeline`]
//! asks for it, and bounded: an SM keeps at most that many events (blocks,
//! warps and accesses together) and counts the rest.

/// A block resident on an SM, from when it was dealt to its last warp's
/// retirement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockSpan {
    /// Its linear index in the grid.
    pub cta: u32,
    /// Clock it became resident.
    pub start: u64,
    /// Clock its last warp retired.
    pub end: u64,
}

/// A warp, from its block's start to its retirement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WarpSpan {
    /// Its block's linear index.
    pub cta: u32,
    /// The warp within the block.
    pub warp: u32,
    /// Clock its block became resident.
    pub start: u64,
    /// Clock it retired.
    pub end: u64,
}

/// One memory instruction of one warp, from issue to completion (the
/// latency the memory model gave it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemEvent {
    /// Its block's linear index.
    pub cta: u32,
    /// The warp within the block.
    pub warp: u32,
    /// The statement (index into the kernel's body).
    pub stmt: u32,
    /// Clock of issue.
    pub issue: u64,
    /// Clock its result (or completion) was ready.
    pub done: u64,
}

/// One SM's recorded events.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SmTimeline {
    /// Blocks, in retirement order.
    pub blocks: Vec<BlockSpan>,
    /// Warps, in retirement order.
    pub warps: Vec<WarpSpan>,
    /// Memory accesses, in issue order.
    pub memory: Vec<MemEvent>,
    /// Events past the bound, not kept.
    pub dropped: u64,
    /// The most events kept.
    limit: usize,
}

impl SmTimeline {
    /// An empty log keeping at most `limit` events.
    pub fn new(limit: usize) -> SmTimeline {
        SmTimeline {
            limit,
            ..SmTimeline::default()
        }
    }

    /// Events kept.
    pub fn len(&self) -> usize {
        self.blocks.len() + self.warps.len() + self.memory.len()
    }

    /// Whether nothing was kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether one more event fits; counts it as dropped when not.
    fn room(&mut self) -> bool {
        let ok = self.len() < self.limit;
        if !ok {
            self.dropped += 1;
        }
        ok
    }

    pub(crate) fn block(&mut self, s: BlockSpan) {
        if self.room() {
            self.blocks.push(s);
        }
    }

    pub(crate) fn warp(&mut self, s: WarpSpan) {
        if self.room() {
            self.warps.push(s);
        }
    }

    pub(crate) fn access(&mut self, e: MemEvent) {
        if self.room() {
            self.memory.push(e);
        }
    }
}

/// What a launch recorded for `--timeline`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LaunchSpans {
    /// Per SM (all SMs, in order), its events.
    pub sms: Vec<SmTimeline>,
    /// The kernel's statements as written, by index ([`MemEvent::stmt`]).
    pub statements: Vec<String>,
}

/// `--dump-regs` of a launch: one block's warps' final registers.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockRegs {
    /// The block's linear index in the grid.
    pub cta: u32,
    /// Its warps' registers, by warp (each as the warp retired).
    pub warps: Vec<sim_isa::WarpRegs>,
    /// Each register's name and declared width in bits, by register id.
    pub regs: Vec<(String, u32)>,
}
