//! One SM's L1 as flat arrays: a fully associative cache of 128-byte lines
//! that evicts the oldest line first, holding for each 32-byte sector the
//! clock its fill completes.
//!
//! Flat because there is one per SM and a launch has 132: hash maps of
//! sectors took about 0.5 MB an SM once full (70 MB of a 2048^3 SGEMM's
//! peak), these take 96 KiB, allocated on the first fill.

/// Sectors per line.
const SECTORS: usize = 4;
/// A sector not (yet) in its line.
const ABSENT: u64 = u64::MAX;
/// An empty slot of the index.
const EMPTY: u32 = u32::MAX;

/// A line and the ready clock of each of its sectors.
#[derive(Clone, Copy)]
struct Entry {
    line: u64,
    ready: [u64; SECTORS],
}

/// The L1: lines in insertion order (a ring once full) and an index from
/// line to ring position (open addressing, linear probing).
#[derive(Default)]
pub(crate) struct L1 {
    /// Lines it holds at most (0: it holds none).
    cap: usize,
    ring: Vec<Entry>,
    /// The oldest line's position once the ring is full.
    head: usize,
    /// Ring positions by hash of their line; `EMPTY` where none.
    index: Vec<u32>,
}

impl L1 {
    /// An empty L1 of `bytes` (whole lines of `line_bytes`).
    pub(crate) fn new(bytes: u64, line_bytes: u64) -> L1 {
        L1 {
            cap: usize::try_from(bytes / line_bytes.max(1)).unwrap_or(usize::MAX),
            ..L1::default()
        }
    }

    /// The clock sector `s` is ready at, if the L1 holds it.
    #[inline]
    pub(crate) fn get(&self, s: u64) -> Option<u64> {
        let (line, k) = (s / SECTORS as u64, (s % SECTORS as u64) as usize);
        let at = self.find(line).map(|(_, p)| self.ring[p].ready[k])?;
        (at != ABSENT).then_some(at)
    }

    /// Puts sector `s` in the L1, ready at `at`; a new line evicts the
    /// oldest when the L1 is full.
    pub(crate) fn fill(&mut self, s: u64, at: u64) {
        if self.cap == 0 {
            return;
        }
        let (line, k) = (s / SECTORS as u64, (s % SECTORS as u64) as usize);
        if let Some((_, p)) = self.find(line) {
            self.ring[p].ready[k] = at;
            return;
        }
        if self.index.is_empty() {
            // Twice the lines, so probes stay short.
            let slots = self.cap.saturating_mul(2).next_power_of_two();
            self.index = vec![EMPTY; slots];
            self.ring.reserve_exact(self.cap);
        }
        let mut ready = [ABSENT; SECTORS];
        ready[k] = at;
        let entry = Entry { line, ready };
        let p = if self.ring.len() < self.cap {
            self.ring.push(entry);
            self.ring.len() - 1
        } else {
            let p = self.head;
            self.remove(self.ring[p].line);
            self.ring[p] = entry;
            self.head = (p + 1) % self.cap;
            p
        };
        let mut i = self.home(line);
        while self.index[i] != EMPTY {
            i = (i + 1) & (self.index.len() - 1);
        }
        self.index[i] = p as u32;
    }

    /// The index slot a line's probe starts at.
    #[inline]
    fn home(&self, line: u64) -> usize {
        // Fibonacci hashing: consecutive lines land apart.
        let h = line.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> 32) as usize & (self.index.len() - 1)
    }

    /// The index slot and ring position of `line`, if held.
    #[inline]
    fn find(&self, line: u64) -> Option<(usize, usize)> {
        if self.index.is_empty() {
            return None;
        }
        let mut i = self.home(line);
        loop {
            let p = self.index[i];
            if p == EMPTY {
                return None;
            }
            if self.ring[p as usize].line == line {
                return Some((i, p as usize));
            }
            i = (i + 1) & (self.index.len() - 1);
        }
    }

    /// Drops `line` from the index, shifting later entries of its probe
    /// run back so that every probe still finds its line.
    fn remove(&mut self, line: u64) {
        let Some((mut hole, _)) = self.find(line) else {
            return;
        };
        let mask = self.index.len() - 1;
        let mut i = hole;
        loop {
            i = (i + 1) & mask;
            let p = self.index[i];
            if p == EMPTY {
                break;
            }
            let home = self.home(self.ring[p as usize].line);
            // The entry at `i` may move to `hole` unless its home lies
            // cyclically in (hole, i].
            if (i.wrapping_sub(home) & mask) >= (i.wrapping_sub(hole) & mask) {
                self.index[hole] = p;
                hole = i;
            }
        }
        self.index[hole] = EMPTY;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{HashMap, VecDeque};

    /// The maps the L1 replaced, as the reference.
    #[derive(Default)]
    struct Model {
        sectors: HashMap<u64, u64>,
        order: VecDeque<u64>,
        cap: usize,
    }

    impl Model {
        fn fill(&mut self, s: u64, at: u64) {
            let line = s / 4;
            if !self.order.contains(&line) {
                self.order.push_back(line);
                while self.order.len() > self.cap {
                    if let Some(old) = self.order.pop_front() {
                        for k in old * 4..old * 4 + 4 {
                            self.sectors.remove(&k);
                        }
                    }
                }
            }
            self.sectors.insert(s, at);
        }
    }

    #[test]
    fn agrees_with_maps_of_sectors_under_eviction() {
        for cap in [1usize, 2, 3, 8, 64] {
            let mut l1 = L1::new(cap as u64 * 128, 128);
            let mut m = Model {
                cap,
                ..Model::default()
            };
            // A small xorshift: sectors over a few times the capacity, so
            // lines are evicted, refilled and probed across wrapped runs.
            let mut x = 0x2545_F491_4F6C_DD1Du64;
            for t in 0..20_000u64 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let s = x % (cap as u64 * 4 * 3 + 5);
                if x >> 40 & 1 == 0 {
                    l1.fill(s, t);
                    m.fill(s, t);
                }
                assert_eq!(l1.get(s), m.sectors.get(&s).copied(), "cap {cap}, step {t}");
            }
            for s in 0..cap as u64 * 4 * 3 + 5 {
                assert_eq!(
                    l1.get(s),
                    m.sectors.get(&s).copied(),
                    "cap {cap}, sector {s}"
                );
            }
        }
    }

    #[test]
    fn an_l1_of_no_lines_holds_nothing() {
        let mut l1 = L1::new(64, 128);
        l1.fill(5, 10);
        assert_eq!(l1.get(5), None);
    }
}
