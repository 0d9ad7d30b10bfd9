//! `--sample`'s L2 fills: the sectors a block run functionally touched,
//! brought into the L2 model as its timed partner's block reaches the
//! same point (docs/sampling.md).

use super::{sector_run, Gpu, SECTOR};
use sim_isa::exec::Accesses;
use sim_isa::Space;

/// The L2 sectors a block run functionally touched, for the L2 model.
/// Such a block runs to its end within the epoch it is dealt in, so its
/// sectors are noted with the block's count of executed
/// warp-instructions at the access and brought into L2 as its timed
/// partner's corresponding block reaches the same point (`engine::sample::release`):
/// timed blocks then find in L2 what other SMs' blocks would have
/// brought in by then, as in the full run, and no more.
#[derive(Default)]
pub(crate) struct L2Notes {
    /// (the block's count when noted, sector), in the order noted: by
    /// count.
    notes: Vec<(u64, u64)>,
    /// The last sector noted (a coalesced access's lanes repeat it).
    last: Option<u64>,
    /// Added to the SM's count of the epoch to make the block's while one
    /// of its warps runs (`Block::run_warp`).
    pub base: u64,
    /// The notes brought into L2 so far (a prefix).
    released: usize,
}

impl L2Notes {
    /// A warp of the block accessed `acc` when the SM's epoch count was
    /// `count`: notes its global sectors (not shared, local, param or
    /// constant ones).
    #[inline]
    pub fn note(&mut self, acc: &Accesses, count: u64) {
        let at = count.wrapping_add(self.base);
        let (notes, last) = (&mut self.notes, &mut self.last);
        each_global_sector(acc, |s| {
            if *last != Some(s) {
                *last = Some(s);
                notes.push((at, s));
            }
        });
    }

    /// Drops every note (a block leaving, or reused), with its memory.
    pub fn clear(&mut self) {
        *self = L2Notes::default();
    }

    /// Brings into L2 the sectors noted at a count of at most `upto`.
    pub(crate) fn release(&mut self, gpu: &mut Gpu, upto: u64) {
        while let Some(&(at, s)) = self.notes.get(self.released) {
            if at > upto {
                break;
            }
            gpu.bring_in(s);
            self.released += 1;
        }
    }
}

/// Calls `f` with each sector a global access `acc` (or a generic one
/// whose first lane is below the shared window) touches, in lane order,
/// repeats included.
#[inline]
fn each_global_sector(acc: &Accesses, mut f: impl FnMut(u64)) {
    let first = acc.addrs[acc.lanes.trailing_zeros().min(31) as usize];
    let global = match acc.space {
        Space::Global => true,
        Space::Generic => first < crate::memory::SHARED_WINDOW,
        Space::Shared | Space::Local | Space::Param | Space::Const => false,
    };
    if !global || acc.lanes == 0 {
        return;
    }
    if let Some((first, last)) = sector_run(acc) {
        (first..=last).for_each(f);
        return;
    }
    let span = u64::from(acc.bytes).max(1) - 1;
    let mut on = acc.lanes;
    while on != 0 {
        let a = acc.addrs[on.trailing_zeros() as usize];
        on &= on - 1;
        (a / SECTOR..=a.saturating_add(span) / SECTOR).for_each(&mut f);
    }
}
