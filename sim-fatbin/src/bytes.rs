//! Little-endian fields read at an offset, every read checked against the
//! buffer's end (a short buffer is an error naming the field, never a panic).

use crate::error::{FatbinError, Result};

/// `len` bytes at `offset`, or `Truncated` naming `what`.
pub(crate) fn slice<'a>(
    buf: &'a [u8],
    offset: u64,
    len: u64,
    what: &'static str,
) -> Result<&'a [u8]> {
    let truncated = || FatbinError::Truncated {
        what,
        offset,
        needed: len,
        available: (buf.len() as u64).saturating_sub(offset),
    };
    let start = usize::try_from(offset).map_err(|_| truncated())?;
    let n = usize::try_from(len).map_err(|_| truncated())?;
    let end = start.checked_add(n).ok_or_else(truncated)?;
    buf.get(start..end).ok_or_else(truncated)
}

/// A fixed-size array at `offset`.
fn array<const N: usize>(buf: &[u8], offset: u64, what: &'static str) -> Result<[u8; N]> {
    let s = slice(buf, offset, N as u64, what)?;
    let mut out = [0u8; N];
    out.copy_from_slice(s);
    Ok(out)
}

pub(crate) fn u16_at(buf: &[u8], offset: u64, what: &'static str) -> Result<u16> {
    array(buf, offset, what).map(u16::from_le_bytes)
}

pub(crate) fn u32_at(buf: &[u8], offset: u64, what: &'static str) -> Result<u32> {
    array(buf, offset, what).map(u32::from_le_bytes)
}

pub(crate) fn u64_at(buf: &[u8], offset: u64, what: &'static str) -> Result<u64> {
    array(buf, offset, what).map(u64::from_le_bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_little_endian_and_refuses_short_buffers() {
        let b = [1u8, 2, 3, 4, 5, 6, 7, 8];
        assert_eq!(u16_at(&b, 0, "x"), Ok(0x0201));
        assert_eq!(u32_at(&b, 4, "x"), Ok(0x0807_0605));
        assert_eq!(
            u32_at(&b, 6, "field"),
            Err(FatbinError::Truncated {
                what: "field",
                offset: 6,
                needed: 4,
                available: 2
            })
        );
        assert!(u64_at(&b, u64::MAX, "x").is_err());
        assert!(slice(&b, 1, u64::MAX, "x").is_err());
    }
}
