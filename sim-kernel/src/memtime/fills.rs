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
///
/// Bounded: a block holds at most [`NOTES_PER_WARP`] notes a warp, each a
/// run of consecutive sectors noted at one count (a coalesced access is
/// one note), so the notes of every resident block together stay within
/// the SMs' warp slots times that (an H100: 132 x 64 x 1,024 notes of 24
/// bytes, 208 MB at the very most) whatever the number of instructions
/// a block executes. A block that touches more drops the later ones, and
/// they never reach L2 through it: the timed blocks then miss where it
/// would have brought a line in.
#[derive(Default)]
pub(crate) struct L2Notes {
    /// In the order noted: by count.
    notes: Vec<Note>,
    /// At most this many notes (`NOTES_PER_WARP` times the block's warps).
    cap: usize,
    /// Added to the SM's count of the epoch to make the block's while one
    /// of its warps runs (`Block::run_warp`).
    pub base: u64,
    /// The notes brought into L2 so far (a prefix).
    released: usize,
    /// At most the count of the first note not brought in yet, if any:
    /// [`L2Notes::release`] is asked after every epoch for every block
    /// held, and most have nothing to bring in; this answers without
    /// reading the notes, which are out of the cache by then.
    next: u64,
}

/// A run of `len` consecutive sectors from `first`, noted when the block's
/// count was `at`.
#[derive(Clone, Copy)]
struct Note {
    at: u64,
    first: u64,
    len: u32,
}

/// Notes a block may hold for each of its warps ([`L2Notes`]): the SGEMMs
/// of `workloads/` note about 2,048 (1024^3) and 4,096 (2048^3) runs of
/// four sectors a block of eight warps, a quarter and a half of it.
pub(crate) const NOTES_PER_WARP: usize = 1024;

impl L2Notes {
    /// No notes, room for those of a block of `warps` warps.
    pub fn for_warps(warps: usize) -> L2Notes {
        L2Notes {
            cap: warps.saturating_mul(NOTES_PER_WARP),
            next: u64::MAX,
            ..L2Notes::default()
        }
    }

    /// A warp of the block accessed `acc` when the SM's epoch count was
    /// `count`: notes its global sectors (not shared, local, param or
    /// constant ones).
    #[inline]
    pub fn note(&mut self, acc: &Accesses, count: u64) {
        if !global(acc) {
            return;
        }
        if let Some((first, last)) = sector_run(acc) {
            self.note_run(first, last, count);
            return;
        }
        let span = u64::from(acc.bytes).max(1) - 1;
        let mut on = acc.lanes;
        while on != 0 {
            let a = acc.addrs[on.trailing_zeros() as usize];
            on &= on - 1;
            let (first, last) = (a / SECTOR, a.saturating_add(span) / SECTOR);
            self.note_run(first, last, count);
        }
    }

    /// [`Self::note`] of a global access of the `bytes` from `a` (one
    /// word, or a warp's 32 consecutive ones), its addresses not made.
    #[inline]
    pub fn note_words(&mut self, a: u64, bytes: u64, count: u64) {
        let last = a.saturating_add(bytes.max(1) - 1) / SECTOR;
        self.note_run(a / SECTOR, last, count);
    }

    /// Notes sectors `first` to `last`, touched at `count`: the last note
    /// grows where they join or overlap it at the same count (a coalesced
    /// access's lanes go through its sectors in order), else a note of
    /// their own while there is room.
    #[inline]
    fn note_run(&mut self, first: u64, last: u64, count: u64) {
        let at = count.wrapping_add(self.base);
        if let Some(n) = self.notes.last_mut() {
            let k = first.wrapping_sub(n.first);
            if n.at == at && k <= u64::from(n.len) {
                let len = (last - n.first).saturating_add(1);
                n.len = n.len.max(u32::try_from(len).unwrap_or(u32::MAX));
                return;
            }
        }
        if self.notes.len() < self.cap {
            if self.notes.len() == self.released {
                self.next = at;
            }
            let len = (last - first).saturating_add(1);
            self.notes.push(Note {
                at,
                first,
                len: u32::try_from(len).unwrap_or(u32::MAX),
            });
        }
    }

    /// Notes held.
    pub fn noted(&self) -> usize {
        self.notes.len()
    }

    /// Makes room for `n` notes in all (at most the cap) at once.
    pub fn reserve(&mut self, n: usize) {
        let n = n.min(self.cap);
        if self.notes.capacity() < n {
            self.notes.reserve_exact(n - self.notes.len());
        }
    }

    /// Drops every note (a block leaving, or reused). The memory stays
    /// for the block that reuses it (at most `cap` notes).
    pub fn clear(&mut self) {
        self.notes.clear();
        self.base = 0;
        self.released = 0;
        self.next = u64::MAX;
    }

    /// Brings into L2 the sectors noted at a count of at most `upto`.
    #[inline]
    pub(crate) fn release(&mut self, gpu: &mut Gpu, upto: u64) {
        if self.next > upto {
            return;
        }
        while let Some(n) = self.notes.get(self.released) {
            if n.at > upto {
                self.next = n.at;
                return;
            }
            gpu.bring_in_run(n.first, u64::from(n.len));
            self.released += 1;
        }
        self.next = u64::MAX;
    }
}

/// Whether `acc` (with lanes) is a global access, or a generic one whose
/// first lane is below the shared window.
#[inline]
fn global(acc: &Accesses) -> bool {
    if acc.lanes == 0 {
        return false;
    }
    let first = acc.addrs[acc.lanes.trailing_zeros().min(31) as usize];
    match acc.space {
        Space::Global => true,
        Space::Generic => first < crate::memory::SHARED_WINDOW,
        Space::Shared | Space::Local | Space::Param | Space::Const => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A warp's access of `bytes` a lane at `addr(lane)` in `space`.
    fn access(space: Space, bytes: u32, addr: impl Fn(u64) -> u64) -> Accesses {
        Accesses {
            lanes: u32::MAX,
            addrs: std::array::from_fn(|l| addr(l as u64)),
            bytes,
            space,
        }
    }

    #[test]
    fn a_coalesced_access_is_one_note_and_a_block_holds_at_most_its_cap() {
        let mut n = L2Notes::for_warps(1);
        // 32 consecutive words: sectors 0..=3, one run.
        n.note(&access(Space::Global, 4, |l| 4 * l), 7);
        assert_eq!(n.notes.len(), 1);
        assert_eq!((n.notes[0].at, n.notes[0].first, n.notes[0].len), (7, 0, 4));
        // Shared memory is never noted.
        n.note(&access(Space::Shared, 4, |l| 4096 + 4 * l), 8);
        assert_eq!(n.notes.len(), 1);
        // Lanes a sector apart and out of order: a note each, then the cap.
        for i in 0..100u64 {
            n.note(
                &access(Space::Global, 4, |l| (i * 64 + (31 - l)) * 64),
                9 + i,
            );
        }
        assert_eq!(n.notes.len(), NOTES_PER_WARP);
        n.clear();
        assert!(n.notes.is_empty());
        assert_eq!(n.cap, NOTES_PER_WARP);
    }

    /// A word access noted from lane 0's address alone (`note_words`, the
    /// untimed word path) is noted as from its 32 addresses: one word or
    /// 32 consecutive ones, at counts that repeat and not, runs that
    /// join, overlap or lie apart.
    #[test]
    fn a_word_access_is_noted_as_its_addresses() {
        let (mut a, mut b) = (L2Notes::for_warps(1), L2Notes::for_warps(1));
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for i in 0..3000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let a0 = (x % 4096) * 4;
            let count = i / 3;
            if x >> 40 & 1 == 0 {
                a.note(&access(Space::Global, 4, |_| a0), count);
                b.note_words(a0, 4, count);
            } else {
                a.note(&access(Space::Global, 4, |l| a0 + 4 * l), count);
                b.note_words(a0, 128, count);
            }
        }
        let key = |n: &L2Notes| -> Vec<(u64, u64, u32)> {
            n.notes.iter().map(|n| (n.at, n.first, n.len)).collect()
        };
        assert_eq!(key(&a), key(&b));
        assert_eq!(a.notes.len(), NOTES_PER_WARP);
    }

    /// Each release brings in the notes up to its count, no more, however
    /// the notes and releases interleave (the next note's count is kept
    /// so that a release with nothing to bring in reads no note).
    #[test]
    fn a_release_brings_in_the_sectors_noted_up_to_its_count() {
        let cfg = super::super::MemConfig::preset(sim_isa::Target::SM_90);
        let mut gpu = Gpu::new(cfg, &[]);
        let mut n = L2Notes::for_warps(1);
        // One sector each: sector 10 * k at count k.
        let note = |n: &mut L2Notes, k: u64| n.note(&access(Space::Global, 4, |_| k * 320), k);
        let held = |gpu: &Gpu, ks: &[u64]| {
            ks.iter()
                .map(|k| gpu.l2.contains(k * 10))
                .collect::<Vec<_>>()
        };
        n.release(&mut gpu, 100);
        for k in [7, 9, 12] {
            note(&mut n, k);
        }
        n.release(&mut gpu, 8);
        assert_eq!(held(&gpu, &[7, 9, 12]), [true, false, false]);
        n.release(&mut gpu, 8);
        note(&mut n, 20);
        n.release(&mut gpu, 12);
        assert_eq!(held(&gpu, &[9, 12, 20]), [true, true, false]);
        n.release(&mut gpu, 19);
        assert!(!gpu.l2.contains(200));
        // All brought in: a note after that is the next.
        n.release(&mut gpu, 20);
        note(&mut n, 30);
        n.release(&mut gpu, 30);
        assert_eq!(held(&gpu, &[20, 30]), [true, true]);
        n.clear();
        note(&mut n, 5);
        n.release(&mut gpu, u64::MAX);
        assert!(gpu.l2.contains(50));
    }
}
