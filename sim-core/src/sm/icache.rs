//! The instruction cache ([`crate::ICache`]): which lines of the program's
//! machine code stay resident, and what a warp loses fetching one that is not.

use crate::config::ICache;

/// Per place in the code layout (`layout`'s instruction indices in order;
/// without one, the program in order), the first and last line of its
/// machine code (`(1, 0)`, no line, for an instruction without machine
/// code). Empty when no cache is modelled or the whole code fits, so that
/// the hot loop skips the check. Indices are below `info.len()`.
/// `uops` is each program instruction's machine instructions. Fails (with
/// the code's size) when the code spans more than [`MAX_LINES`] lines.
pub(super) fn code_lines(
    ic: &ICache,
    uops: &[u16],
    layout: Option<&[u32]>,
) -> Result<Vec<(u32, u32)>, u64> {
    if !ic.modelled() {
        return Ok(Vec::new());
    }
    let (line, size) = (u64::from(ic.line_bytes), u64::from(ic.inst_bytes));
    let n = uops.len();
    let uops = |i: usize| uops.get(i).map_or(0, |&u| u64::from(u));
    let places: Box<dyn Iterator<Item = usize>> = match layout {
        Some(l) => Box::new(l.iter().map(|&i| i as usize)),
        None => Box::new(0..n),
    };
    let mut at = 0u64;
    let mut spans = Vec::with_capacity(layout.map_or(n, <[u32]>::len));
    for i in places {
        let len = uops(i) * size;
        let span = if len == 0 {
            (1, 0)
        } else {
            let first = u32::try_from(at / line).unwrap_or(u32::MAX);
            let last = u32::try_from((at + len - 1) / line).unwrap_or(u32::MAX);
            (first, last)
        };
        spans.push(span);
        at += len;
    }
    let lines = at.div_ceil(line);
    if lines > MAX_LINES {
        return Err(at);
    }
    if lines <= u64::from(ic.bytes) / line {
        return Ok(Vec::new());
    }
    Ok(spans)
}

/// Most instruction-cache lines a program's code may span: an SM's resident
/// set is a bit per line (2^26 lines: 8 MiB), so a configuration with tiny
/// lines or huge instructions cannot make it unbounded.
pub(super) const MAX_LINES: u64 = 1 << 26;

/// One SM's resident lines.
#[derive(Debug, Default)]
pub(super) struct ICacheState {
    /// The program's line spans per place ([`code_lines`]; empty when not
    /// modelled), shared with the tables and held here so that an issue
    /// reaches them without going through the tables.
    lines: std::sync::Arc<[(u32, u32)]>,
    /// A bit per line of the program (empty: not modelled for this program,
    /// or no warp added yet).
    resident: Vec<u64>,
    /// Lines that may still become resident.
    free: u64,
    /// Lines fetched that were not resident.
    pub misses: u64,
}

impl ICacheState {
    /// Sized for a program whose instructions span `lines` (from
    /// [`code_lines`]); nothing when that is empty.
    pub fn new(ic: &ICache, spans: &std::sync::Arc<[(u32, u32)]>) -> Self {
        let n = spans
            .iter()
            .map(|&(_, l)| u64::from(l) + 1)
            .max()
            .unwrap_or(0);
        if n == 0 {
            return ICacheState::default();
        }
        ICacheState {
            lines: spans.clone(),
            resident: vec![0; n.div_ceil(64) as usize],
            free: u64::from(ic.bytes / ic.line_bytes.max(1)),
            misses: 0,
        }
    }

    /// Fetches the lines of the instruction at place `at` (see `fetch`);
    /// nothing when the cache is not modelled for this program.
    #[inline(always)]
    pub fn fetch_at(&mut self, at: u32, held: &mut u32) -> u64 {
        match self.lines.get(at as usize) {
            Some(&span) => self.fetch(span, held),
            None => 0,
        }
    }

    /// Fetches the lines `first..=last` for a warp whose last fetched line
    /// is `*held` (which it still has: an instruction that starts where the
    /// previous one ended costs nothing more for that line): a line not yet
    /// resident becomes resident while the cache has room (warm from the
    /// previous run: no cost) and is a miss once it is full. Returns the
    /// misses.
    #[inline]
    pub fn fetch(&mut self, (first, last): (u32, u32), held: &mut u32) -> u64 {
        let first = if first == *held {
            first.saturating_add(1)
        } else {
            first
        };
        if first > last {
            return 0;
        }
        *held = last;
        let (w, lo, hi) = ((first / 64) as usize, first % 64, last % 64);
        if self.free == 0 && last / 64 == first / 64 {
            // The usual case once the cache is full: lines of one word,
            // each not resident a miss.
            let span = (u64::MAX >> (63 - hi)) & (u64::MAX << lo);
            let resident = self.resident.get(w).copied().unwrap_or(u64::MAX);
            let misses = u64::from((span & !resident).count_ones());
            self.misses += misses;
            return misses;
        }
        let (mut misses, mut line) = (0, first);
        // `first..=last` by hand: the inclusive range's end flag costs each
        // line (usually one or two per instruction) a few instructions.
        loop {
            let (w, bit) = ((line / 64) as usize, 1u64 << (line % 64));
            if let Some(word) = self.resident.get_mut(w) {
                if *word & bit == 0 {
                    if self.free > 0 {
                        self.free -= 1;
                        *word |= bit;
                    } else {
                        misses += 1;
                    }
                }
            }
            if line >= last {
                break;
            }
            line += 1;
        }
        self.misses += misses;
        misses
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two lines of 64 bytes, 16-byte instructions.
    const SMALL: ICache = ICache {
        bytes: 128,
        line_bytes: 64,
        inst_bytes: 16,
        miss_cycles: 17,
    };

    #[test]
    fn code_that_fits_is_never_checked() {
        assert!(code_lines(&SMALL, &[4, 4], None).unwrap().is_empty());
        assert!(code_lines(&ICache::NONE, &[400], None).unwrap().is_empty());
        // Bounded: one-byte lines of 4 GB instructions are refused.
        let huge = ICache {
            bytes: 1,
            line_bytes: 1,
            inst_bytes: u32::MAX,
            miss_cycles: 1,
        };
        assert!(code_lines(&huge, &[40], None).is_err());
    }

    #[test]
    fn a_layout_places_each_copy() {
        // Instruction 0 (3 machine instructions, 48 bytes) four times, then 1
        // (none): 192 bytes, lines 0..=2.
        let spans = code_lines(&SMALL, &[3, 0], Some(&[0, 0, 0, 0, 1])).unwrap();
        assert_eq!(spans, vec![(0, 0), (0, 1), (1, 2), (2, 2), (1, 0)]);
    }

    #[test]
    fn lines_beyond_the_cache_miss_on_every_pass() {
        let spans = code_lines(&SMALL, &[3], Some(&[0, 0, 0, 0])).unwrap();
        let mut c = ICacheState::new(&SMALL, &spans.clone().into());
        for pass in 0..3 {
            let mut held = u32::MAX;
            let misses: u64 = spans.iter().map(|&s| c.fetch(s, &mut held)).sum();
            // Lines 0 and 1 stay resident (warm); line 2 misses once a pass,
            // although two instructions lie in it.
            assert_eq!(misses, 1, "pass {pass}");
        }
        assert_eq!(c.misses, 3);
    }
}
