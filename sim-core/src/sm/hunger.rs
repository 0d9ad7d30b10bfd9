//! What the SM's run loop hands back to the host for: warps that ran low
//! on steps, executed warps that finished, and the scoreboard's mark of a
//! register an external instruction will write. Below the run loop's files
//! (`host`, `sched`, `warp`, `clock`), which all use it.

/// Scoreboard ready clock of a register an external instruction will write:
/// later than any real clock, below `u64::MAX` ("no instruction").
pub(super) const PENDING: u64 = u64::MAX - 1;

/// What the run loop hands back to the host for, and the host's lists.
#[derive(Default)]
pub(super) struct Hungry {
    /// Set when a host warp's queue runs low; [`Sm::run_until_idle`] returns
    /// to the host then (if some warp still is) and clears it.
    pub flag: bool,
    /// Set when an executed warp finishes; the run returns then too.
    pub retire: bool,
    /// Made with the first host warp: an SM of stream-fed warps, or none,
    /// stays small.
    pub lists: Option<Box<Lists>>,
}

/// The lists of an SM with host warps.
#[derive(Default)]
pub(super) struct Lists {
    /// Slots of host warps that ran low (or were added, or pushed to and
    /// still hungry) since [`Sm::take_hungry_into`], each once
    /// (`Warp::listed`).
    pub cands: Vec<u32>,
    /// Ids of executed warps that finished since [`Sm::take_retired_into`],
    /// in order.
    pub retired: Vec<u32>,
    /// Slots of finished executed warps, free for reuse.
    pub free: Vec<u32>,
}

impl Hungry {
    /// Host warp `wi` ran low: flag it and list it. Out of line: the issue
    /// path, where a stream's fetch is inlined, carries none of it.
    #[inline(never)]
    pub fn ran_low(&mut self, listed: &mut bool, wi: usize) {
        self.flag = true;
        self.list(listed, wi);
    }

    /// Lists slot `wi` as a hunger candidate unless it is already.
    #[inline]
    pub fn list(&mut self, listed: &mut bool, wi: usize) {
        if !*listed {
            *listed = true;
            // Slots fit u32: warps are far fewer.
            self.lists().cands.push(wi as u32);
        }
    }

    /// The lists, made if need be.
    pub fn lists(&mut self) -> &mut Lists {
        self.lists.get_or_insert_with(Box::default)
    }

    /// The hunger candidates (none before the first host warp).
    pub fn cands(&self) -> &[u32] {
        self.lists.as_ref().map_or(&[], |l| &l.cands)
    }

    /// A free slot, if any.
    pub fn pop_free(&mut self) -> Option<usize> {
        self.lists.as_mut()?.free.pop().map(|wi| wi as usize)
    }

    /// Heap bytes held (the lists).
    pub fn heap_bytes(&self) -> usize {
        self.lists.as_ref().map_or(0, |l| {
            std::mem::size_of::<Lists>()
                + (l.cands.capacity() + l.retired.capacity() + l.free.capacity())
                    * std::mem::size_of::<u32>()
        })
    }
}
