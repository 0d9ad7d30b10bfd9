//! What warp-state accounting (`states.rs`) keeps and decides ahead of
//! the run: each instruction's stall classes, made once with the program's
//! timing table, and the SM's accumulators. Below the warp and the table
//! (both use it), so that they do not import the accounting itself.

use crate::config::UnitClass;
use crate::warp_states::{reason as r, Activity, MAX_BUCKETS, NREASONS};
use sim_isa::{db, Instruction, Space};

/// The reason of a wait on the all-zero row `board::FLAT`.
pub(super) const FLAT_WHY: u8 = r::WAIT;

/// An instruction's stall classes.
pub(super) struct Class {
    /// A wait on its result.
    pub result: u8,
    /// Its pipe busy when the warp is ready to issue it.
    pub throttle: u8,
    /// A warp held after it (starved: waiting for the host to feed it).
    pub after: u8,
}

/// The stall classes of `inst`, whose pipes are `pipe` for `ticks` clocks
/// each (`InstInfo`'s).
pub(super) fn classify(inst: &Instruction, pipe: &[u8], ticks: &[u64]) -> Class {
    let xu = pipe
        .iter()
        .zip(ticks)
        .any(|(&p, &t)| t > 0 && usize::from(p) == UnitClass::Xu.index());
    let (result, throttle) = match db::memory(inst).map(|m| m.space) {
        Some(Space::Global | Space::Local | Space::Generic) => (r::LONG_SCOREBOARD, r::LG_THROTTLE),
        Some(Space::Shared) => (r::SHORT_SCOREBOARD, r::MIO_THROTTLE),
        // Constant and parameter loads: the constant cache's fixed latency.
        Some(Space::Const | Space::Param) => (r::WAIT, r::MIO_THROTTLE),
        None if xu => (r::SHORT_SCOREBOARD, r::MIO_THROTTLE),
        None => (r::WAIT, r::MATH_PIPE_THROTTLE),
    };
    let name = db::mnemonic(inst);
    let after = if db::barrier(inst).is_some() {
        r::BARRIER
    } else if name.starts_with("membar") || name.starts_with("fence") {
        r::MEMBAR
    } else if name.starts_with("nanosleep") {
        r::SLEEPING
    } else {
        r::NO_INSTRUCTION
    };
    Class {
        result,
        throttle,
        after,
    }
}

/// Instructions per page of per-instruction counters.
const PAGE: usize = 16;

/// The counters of `PAGE` consecutive program instructions.
type Page = [[u64; NREASONS]; PAGE];

/// The SM's accumulators.
pub(super) struct Acc {
    /// Per program instruction, in pages made when an instruction of theirs
    /// first issues: memory follows the code that runs, not the program's
    /// size (a big module with a small hot kernel).
    pub per_inst: Vec<Option<Box<Page>>>,
    /// Spans no instruction can take (a warp starved before its first issue).
    pub loose: [u64; NREASONS],
    /// Resident warp-cycles of retired warps.
    pub resident: u64,
    /// Issue activity.
    pub act: ActivityRec,
    /// `ProgramTables::rows_why`, held here so that an issue's accounting
    /// takes it with the counters (fewer arguments to pass).
    pub why: std::sync::Arc<[u8]>,
}

impl Acc {
    /// Accumulators for a program of `n` instructions whose delay rows
    /// have the stall reasons `why` (`ProgramTables::rows_why`).
    pub fn new(n: usize, why: std::sync::Arc<[u8]>) -> Box<Acc> {
        Box::new(Acc {
            per_inst: vec![None; n.div_ceil(PAGE)],
            loose: [0; NREASONS],
            resident: 0,
            act: ActivityRec::default(),
            why,
        })
    }

    /// Bytes held (the box and its vectors).
    pub fn heap_bytes(&self) -> usize {
        std::mem::size_of::<Acc>()
            + self.per_inst.capacity() * std::mem::size_of::<Option<Box<Page>>>()
            + self.per_inst.iter().flatten().count() * std::mem::size_of::<Page>()
            + self.act.counts.capacity() * std::mem::size_of::<u64>()
    }

    /// Instruction `idx`'s counters (`loose` for an index past the program).
    #[inline(always)]
    pub fn row(&mut self, idx: u32) -> &mut [u64; NREASONS] {
        let (p, k) = (idx as usize / PAGE, idx as usize % PAGE);
        match self.per_inst.get_mut(p) {
            Some(page) => &mut page.get_or_insert_with(new_page)[k],
            None => &mut self.loose,
        }
    }

    /// The delay rows' stall reasons and instruction `idx`'s counters (as
    /// `row`), borrowed together; `None` while the counters' page is not
    /// made (`make_page`: kept out of the issue path, so that its
    /// accounting calls nothing).
    #[inline(always)]
    pub fn why_and_row(&mut self, idx: u32) -> Option<(&[u8], &mut [u64; NREASONS])> {
        let (p, k) = (idx as usize / PAGE, idx as usize % PAGE);
        let row = match self.per_inst.get_mut(p) {
            Some(Some(page)) => &mut page[k],
            Some(None) => return None,
            None => &mut self.loose,
        };
        Some((&self.why, row))
    }

    /// Makes the counters' page of instruction `idx` (if in the program).
    #[cold]
    #[inline(never)]
    pub fn make_page(&mut self, idx: u32) {
        if let Some(page) = self.per_inst.get_mut(idx as usize / PAGE) {
            page.get_or_insert_with(new_page);
        }
    }

    /// Instruction `idx`'s counters so far (zeros where none issued).
    pub fn counts(&self, idx: usize) -> [u64; NREASONS] {
        self.per_inst
            .get(idx / PAGE)
            .and_then(Option::as_deref)
            .map_or([0; NREASONS], |p| p[idx % PAGE])
    }
}

#[cold]
#[inline(never)]
fn new_page() -> Box<Page> {
    Box::new([[0; NREASONS]; PAGE])
}

/// Issues per bucket of `1 << shift` clocks, counted once per clock with
/// an issue (`Sm::slot`: one add; exact, and the same however a run is
/// split).
pub(super) struct ActivityRec {
    pub shift: u32,
    /// Up to the last bucket an issue fell in (at most `MAX_BUCKETS`).
    pub counts: Vec<u64>,
}

/// Clocks of the first bucket width (`1 << FIRST_SHIFT`).
const FIRST_SHIFT: u32 = 6;

impl Default for ActivityRec {
    fn default() -> Self {
        ActivityRec {
            shift: FIRST_SHIFT,
            counts: Vec::new(),
        }
    }
}

impl ActivityRec {
    /// Counts `n` issues at clock `now`.
    #[inline(always)]
    pub fn issue(&mut self, now: u64, n: u64) {
        match self.counts.get_mut((now >> self.shift) as usize) {
            Some(c) => *c += n,
            None => self.grow(now, n),
        }
    }

    /// Clock `now` is past the last bucket: adds buckets up to it (the
    /// vector grows as the run does, a few times in all) or, past
    /// `MAX_BUCKETS`, merges pairs until it falls in one; and counts its
    /// `n` issues.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, now: u64, n: u64) {
        while (now >> self.shift) as usize >= MAX_BUCKETS {
            self.counts = self.counts.chunks(2).map(|c| c.iter().sum()).collect();
            self.shift += 1;
        }
        let b = (now >> self.shift) as usize;
        if self.counts.len() <= b {
            self.counts.resize(b + 1, 0);
        }
        self.counts[b] += n;
    }

    /// The series, up to its last bucket with an issue (an SM idling
    /// after its last warp, as stepping in lockstep makes it, adds none).
    pub fn series(&self) -> Activity {
        let used = self
            .counts
            .iter()
            .rposition(|&n| n > 0)
            .map_or(0, |k| k + 1);
        Activity {
            bucket_cycles: 1 << self.shift,
            per_sm: vec![self.counts[..used].to_vec()],
        }
    }
}
