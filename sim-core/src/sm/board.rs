//! A warp's scoreboard: per register, when its pending write is ready for a
//! consumer on each side (`pipes::Side::ALL`).
//!
//! A write makes every column ready at `issue + stall + delay_to[column]`,
//! where `delay_to` is the writing instruction's row (`InstInfo::delay_to`).
//! A program has few distinct rows, so the board keeps, per register, the
//! clock `issue + stall` and the index of its row among the program's
//! distinct ones (`ProgramTables::rows`), and adds the column's delay when a
//! consumer reads it. That is the same clock as a full row per register,
//! in 10 bytes instead of `ROW` x 8: a full GPU holds tens of thousands of
//! resident warps, and a kernel may name hundreds of registers.

/// Columns of a delay row (`InstInfo::delay_to`): one per consumer side
/// (`pipes::Side::ALL`, in that order: a result is ready at one clock for
/// each, `pipes::crossing`) and spares up to a power of two (they repeat
/// the first column).
pub(super) const ROW: usize = 8;

/// The row of a write that is ready at one clock on every side (external
/// completions, and `PENDING`): all zeros.
pub(super) const FLAT: u16 = 0;

/// Per register (plus the sentinel `nregs`, which stays 0): the write's base
/// clock and its delay row.
#[derive(Debug, Default)]
pub(crate) struct Board {
    at: Vec<u64>,
    row: Vec<u16>,
}

impl Board {
    /// A board for `n` registers, all ready at clock 0.
    pub fn new(n: usize) -> Board {
        Board {
            at: vec![0; n + 1],
            row: vec![FLAT; n + 1],
        }
    }

    /// Register `r`'s write: ready at `base + rows[row][column]`.
    #[inline(always)]
    pub fn set(&mut self, r: u32, base: u64, row: u16) {
        // Both vectors re-sliced to their common length: one bounds check
        // for the two.
        let n = self.at.len().min(self.row.len());
        let (at, rows) = (&mut self.at[..n], &mut self.row[..n]);
        if let (Some(a), Some(k)) = (at.get_mut(r as usize), rows.get_mut(r as usize)) {
            *a = base;
            *k = row;
        }
    }

    /// A reader of the board for consumers in `column` (`rows`: the
    /// program's distinct delay rows), for the registers of one
    /// instruction: the slices and the column are checked once, not per
    /// register.
    #[inline(always)]
    pub fn reader<'a>(&'a self, rows: &'a [[u64; ROW]], column: usize) -> Reader<'a> {
        let n = self.at.len().min(self.row.len());
        Reader {
            at: &self.at[..n],
            row: &self.row[..n],
            rows,
            // Columns are below `ROW` (`table::column`): the modulo only
            // drops the bounds check.
            column: column % ROW,
        }
    }

    /// Register `r`'s row index (`FLAT` for a register it lacks).
    #[inline]
    pub fn row(&self, r: u32) -> u16 {
        self.row.get(r as usize).copied().unwrap_or(FLAT)
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.at.capacity() * std::mem::size_of::<u64>()
            + self.row.capacity() * std::mem::size_of::<u16>()
    }
}

/// [`Board::reader`]: the board's vectors at one length, and one column.
pub(crate) struct Reader<'a> {
    at: &'a [u64],
    row: &'a [u16],
    rows: &'a [[u64; ROW]],
    column: usize,
}

impl Reader<'_> {
    /// When register `r` is ready for a consumer in the reader's column
    /// (row `FLAT` adds nothing, so `PENDING` stays `PENDING`; a register
    /// the board lacks reads as ready at 0).
    #[inline(always)]
    pub fn ready(&self, r: u32) -> u64 {
        let r = r as usize;
        let (at, k) = match (self.at.get(r), self.row.get(r)) {
            (Some(&a), Some(&k)) => (a, k),
            _ => (0, FLAT),
        };
        at + self
            .rows
            .get(usize::from(k))
            .map_or(0, |row| row[self.column % ROW])
    }
}
