//! Little-endian bytes for the tests' hand-made memories (`mem.rs`,
//! `mem_lanes.rs`, `mma.rs`, `async_copy.rs`), as `Memory::load` and
//! `Memory::store` define them.

/// The value `b` holds, least significant byte first.
pub fn read_le(b: &[u8]) -> u64 {
    b.iter().rev().fold(0, |v, &x| v << 8 | u64::from(x))
}

/// Writes the low `b.len()` bytes of `v` into `b`, least significant first.
pub fn write_le(b: &mut [u8], v: u64) {
    for (k, x) in b.iter_mut().enumerate() {
        *x = (v >> (8 * k)) as u8;
    }
}
