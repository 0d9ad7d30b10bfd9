//! The 8x8 matrices of 16-bit elements that `ldmatrix`, `stmatrix` and
//! `movmatrix` move (PTX ISA 9.7.14.5.15-17). A matrix's fragment: lane
//! `l` holds row `l / 4`, columns `2 (l % 4)` (low half) and `2 (l % 4) +
//! 1` (high half) in one 32-bit register. `ldmatrix`/`stmatrix` name each
//! matrix `j`'s rows by address: lane `8j + r` gives row `r`'s (16 bytes,
//! 16-byte aligned); with `.trans` the fragment is of the transpose (lane
//! `l`'s half `h` is the element at row `2 (l % 4) + h`, column `l / 4`).
//! The memory half of `ldmatrix`/`stmatrix` is `mem.rs`'s `matrix_access`.

use super::WARP_SIZE;

/// For lane `l`'s half `h` of matrix `j`'s fragment: the lane whose row
/// address holds the element, and the element's byte offset in that row.
pub fn matrix_element(j: usize, l: usize, h: usize, trans: bool) -> (usize, u64) {
    let (row, col) = (l / 4, 2 * (l % 4) + h);
    if trans {
        (8 * j + col, 2 * row as u64)
    } else {
        (8 * j + row, 2 * col as u64)
    }
}

/// The lanes whose addresses an `ldmatrix`/`stmatrix` of `n` matrices reads.
pub fn row_lanes(n: u8) -> u32 {
    match n {
        1 => 0xff,
        2 => 0xffff,
        _ => u32::MAX,
    }
}

/// `movmatrix.sync.aligned.m8n8.trans.b16`: the fragments in `a` of the
/// matrix, transposed (lane `l`'s half `h` is the element at row `2 (l %
/// 4) + h`, column `l / 4`, which lane `4 (2 (l % 4) + h) + l / 8` holds in
/// half `(l / 4) % 2`).
pub fn movmatrix(a: &[u64; WARP_SIZE]) -> [u64; WARP_SIZE] {
    let mut out = [0u64; WARP_SIZE];
    for (l, o) in out.iter_mut().enumerate() {
        for h in 0..2 {
            let (row, col) = (2 * (l % 4) + h, l / 4);
            let v = a[4 * row + col / 2] >> (16 * (col % 2)) & 0xffff;
            *o |= v << (16 * h);
        }
    }
    out
}
