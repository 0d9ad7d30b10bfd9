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
        if let (Some(a), Some(k)) = (self.at.get_mut(r as usize), self.row.get_mut(r as usize)) {
            *a = base;
            *k = row;
        }
    }

    /// When register `r` is ready for a consumer in `column` (`rows`: the
    /// program's distinct delay rows; row `FLAT` adds nothing, so `PENDING`
    /// stays `PENDING`).
    #[inline(always)]
    pub fn ready(&self, rows: &[[u64; ROW]], r: u32, column: usize) -> u64 {
        let at = self.at.get(r as usize).copied().unwrap_or(0);
        let k = self.row.get(r as usize).copied().unwrap_or(FLAT);
        at + rows
            .get(usize::from(k))
            .and_then(|row| row.get(column))
            .copied()
            .unwrap_or(0)
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
