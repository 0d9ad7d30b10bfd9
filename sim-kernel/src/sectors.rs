//! A set of 32-byte sectors (the L2 model's contents) as a sparse bitmap:
//! a page of 4,096 sector bits per 128 KiB of address space touched. The
//! L2 model keeps every sector a launch has brought in, so a launch that
//! sweeps large buffers holds millions of them: as bits in pages that is
//! 1/64 of a hash set's bytes (the 2048^3 SGEMM's 48 MB of buffers: 192 KB
//! instead of tens of megabytes).

use rustc_hash::FxHashMap as HashMap;

/// Sectors per page: 64 words of 64 bits.
const PAGE_SECTORS: u64 = 64 * 64;

/// A set of sector numbers.
#[derive(Clone, Debug, Default)]
pub struct SectorSet {
    pages: HashMap<u64, Box<[u64; 64]>>,
}

impl SectorSet {
    /// Whether sector `s` is in the set.
    #[inline]
    pub fn contains(&self, s: u64) -> bool {
        let (p, w, b) = split(s);
        self.pages.get(&p).is_some_and(|page| page[w] >> b & 1 == 1)
    }

    /// Adds sector `s`; whether it was not there.
    #[inline]
    pub fn insert(&mut self, s: u64) -> bool {
        let (p, w, b) = split(s);
        let page = self.pages.entry(p).or_insert_with(|| Box::new([0; 64]));
        let was = page[w] >> b & 1 == 1;
        page[w] |= 1 << b;
        !was
    }

    /// Adds sectors `first` to `first + len - 1`: one page lookup for the
    /// run's sectors in each page, their bits set a word at a time.
    pub fn insert_run(&mut self, first: u64, len: u64) {
        let end = first.saturating_add(len);
        let mut s = first;
        while s < end {
            let (p, w, b) = split(s);
            let page = self.pages.entry(p).or_insert_with(|| Box::new([0; 64]));
            let page_end = end.min((p + 1).saturating_mul(PAGE_SECTORS));
            let (mut w, mut b) = (w, b);
            while s < page_end {
                let n = (page_end - s).min(u64::from(64 - b));
                let bits = if n == 64 {
                    u64::MAX
                } else {
                    ((1u64 << n) - 1) << b
                };
                page[w] |= bits;
                s += n;
                (w, b) = (w + 1, 0);
            }
        }
    }

    /// Adds every sector of `other`, emptying it (a page this set lacks
    /// moves over whole).
    pub fn drain_into(&mut self, other: &mut SectorSet) {
        for (p, page) in other.pages.drain() {
            match self.pages.entry(p) {
                std::collections::hash_map::Entry::Occupied(mut e) => {
                    for (m, o) in e.get_mut().iter_mut().zip(page.iter()) {
                        *m |= *o;
                    }
                }
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(page);
                }
            }
        }
    }
}

/// Sector `s`'s page, word and bit.
#[inline]
fn split(s: u64) -> (u64, usize, u32) {
    (
        s / PAGE_SECTORS,
        (s % PAGE_SECTORS / 64) as usize,
        (s % 64) as u32,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run sets the sectors inserting each would, across words and
    /// pages, and no other.
    #[test]
    fn a_run_is_its_sectors() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..200 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let first = x % (3 * PAGE_SECTORS);
            let len = (x >> 20) % (2 * PAGE_SECTORS + 70);
            let (mut a, mut b) = (SectorSet::default(), SectorSet::default());
            a.insert_run(first, len);
            (first..first + len).for_each(|s| {
                b.insert(s);
            });
            for s in 0..first + len + 130 {
                assert_eq!(
                    a.contains(s),
                    b.contains(s),
                    "run {first}+{len}, sector {s}"
                );
            }
        }
        let mut a = SectorSet::default();
        a.insert_run(u64::MAX - 3, 10);
        assert!(a.contains(u64::MAX - 3) && a.contains(u64::MAX - 1) && !a.contains(u64::MAX - 4));
    }

    #[test]
    fn sectors_are_members_once() {
        let mut a = SectorSet::default();
        assert!(a.insert(5));
        assert!(!a.insert(5));
        assert!(a.insert(PAGE_SECTORS * 7 + 63));
        assert!(a.contains(5) && a.contains(PAGE_SECTORS * 7 + 63));
        assert!(!a.contains(6) && !a.contains(PAGE_SECTORS * 7 + 64));
        let mut b = SectorSet::default();
        assert!(b.insert(u64::MAX / 32));
        a.drain_into(&mut b);
        assert!(a.contains(u64::MAX / 32) && !b.contains(u64::MAX / 32));
        assert!(b.insert(u64::MAX / 32));
    }
}
