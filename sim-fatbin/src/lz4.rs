//! LZ4, written here: the block format (fatbinary flag 0x2000, what
//! `nvcc -compress-mode=speed` stores) and the frame format around it (flag
//! 0x4000, fatbinary's `--compress-algorithm=3`, and what it falls back to
//! for an image too large for one block).
//!
//! The block format (lz4's `lz4_Block_format.md`): sequences of a token
//! (high nibble: literal count, low nibble: match length - 4; 15 means more
//! length bytes follow, each added, until one is not 255), the literals, a
//! 2-byte little-endian match offset back into the output, and more match
//! length bytes. The last sequence has literals only. Checked here against
//! every fixture (`tests/data`): the PTX and cubins that nvcc 13.0.88
//! compressed with it decode to the bytes of the `-no-compress` build.
//!
//! Every read is bounded by the input, every write by `limit`: a corrupt or
//! hostile block ends in a [`Fault`], never a panic or an unbounded buffer.

/// Why decoding stopped.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Fault {
    /// Malformed data at byte `at` of the compressed input.
    Bad { at: u64, detail: String },
    /// The output would grow past the limit (the declared size).
    Overflow,
    /// A frame declares a content size.
    ContentSize(u64),
}

fn bad(at: usize, detail: impl Into<String>) -> Fault {
    Fault::Bad {
        at: at as u64,
        detail: detail.into(),
    }
}

/// A length continued by bytes of 255 (the token's nibble was 15).
fn extended_len(src: &[u8], i: &mut usize, mut len: usize) -> Result<usize, Fault> {
    loop {
        let b = *src
            .get(*i)
            .ok_or_else(|| bad(*i, "length bytes run past the end"))?;
        *i += 1;
        len = len
            .checked_add(usize::from(b))
            .ok_or_else(|| bad(*i, "length overflows"))?;
        if b != 255 {
            return Ok(len);
        }
    }
}

/// Decodes one LZ4 block from `src`, appending to `out` (which may hold
/// earlier blocks of a frame: matches may reach back into them), never
/// letting `out` grow past `limit` bytes. Offsets in faults count from the
/// start of `src` plus `base`.
pub(crate) fn block(src: &[u8], out: &mut Vec<u8>, limit: usize, base: usize) -> Result<(), Fault> {
    let at = |i: usize| base.saturating_add(i);
    let mut i = 0usize;
    loop {
        let token = *src
            .get(i)
            .ok_or_else(|| bad(at(i), "block ends without a sequence"))?;
        i += 1;
        let mut lits = usize::from(token >> 4);
        if lits == 15 {
            lits = extended_len(src, &mut i, lits).map_err(|f| rebase(f, base))?;
        }
        let end = i
            .checked_add(lits)
            .filter(|&e| e <= src.len())
            .ok_or_else(|| bad(at(i), format!("{lits} literals run past the end")))?;
        if out.len().saturating_add(lits) > limit {
            return Err(Fault::Overflow);
        }
        out.extend_from_slice(&src[i..end]);
        i = end;
        if i == src.len() {
            // The last sequence: literals and no match.
            return Ok(());
        }
        let (Some(&lo), Some(&hi)) = (src.get(i), src.get(i + 1)) else {
            return Err(bad(at(i), "match offset cut off"));
        };
        let offset = usize::from(u16::from_le_bytes([lo, hi]));
        if offset == 0 || offset > out.len() {
            return Err(bad(
                at(i),
                format!("match offset {offset} with {} bytes of output", out.len()),
            ));
        }
        i += 2;
        let mut len = usize::from(token & 15);
        if len == 15 {
            len = extended_len(src, &mut i, len).map_err(|f| rebase(f, base))?;
        }
        let len = len.saturating_add(4);
        if out.len().saturating_add(len) > limit {
            return Err(Fault::Overflow);
        }
        copy_match(out, offset, len);
    }
}

fn rebase(f: Fault, base: usize) -> Fault {
    match f {
        Fault::Bad { at, detail } => Fault::Bad {
            at: at.saturating_add(base as u64),
            detail,
        },
        other => other,
    }
}

/// Appends `len` bytes copied from `offset` back (1 <= offset <= out.len()).
/// An overlapping match repeats the last `offset` bytes, so it is copied in
/// pieces of at most `offset` bytes, each wholly inside what is there.
fn copy_match(out: &mut Vec<u8>, offset: usize, len: usize) {
    let mut left = len;
    while left > 0 {
        let n = left.min(offset);
        let start = out.len() - offset;
        out.extend_from_within(start..start + n);
        left -= n;
    }
}

const FRAME_MAGIC: u32 = 0x184D_2204;

/// Decodes one LZ4 frame (lz4's `lz4_Frame_format.md`) into at most `limit`
/// bytes. The header checksum and the optional block and content checksums
/// are skipped, not verified: the structure is still checked, and the
/// entry's declared size must match the output.
pub(crate) fn frame(src: &[u8], limit: usize) -> Result<Vec<u8>, Fault> {
    let magic = src
        .get(..4)
        .and_then(|m| <[u8; 4]>::try_from(m).ok())
        .map(u32::from_le_bytes)
        .ok_or_else(|| bad(0, "frame shorter than its magic"))?;
    if magic != FRAME_MAGIC {
        return Err(bad(
            0,
            format!("frame magic {magic:#x}, expected {FRAME_MAGIC:#x}"),
        ));
    }
    let (&flg, &bd) = src
        .get(4)
        .zip(src.get(5))
        .ok_or_else(|| bad(4, "frame descriptor cut off"))?;
    if flg >> 6 != 1 || flg & 0b10 != 0 || bd & 0x8F != 0 {
        return Err(bad(4, format!("frame descriptor FLG {flg:#x} BD {bd:#x} (version 01 and reserved bits 0 required)")));
    }
    if flg & 1 != 0 {
        return Err(bad(4, "frame needs a dictionary"));
    }
    let block_checksum = flg & 0x10 != 0;
    let content_checksum = flg & 0x04 != 0;
    let max_block = 1usize << (8 + 2 * usize::from((bd >> 4) & 7));
    if (bd >> 4) & 7 < 4 {
        return Err(bad(5, format!("block maximum size code {}", (bd >> 4) & 7)));
    }
    let mut i = 6usize;
    if flg & 0x08 != 0 {
        let size = src
            .get(i..i + 8)
            .and_then(|s| <[u8; 8]>::try_from(s).ok())
            .map(u64::from_le_bytes)
            .ok_or_else(|| bad(i, "content size cut off"))?;
        if size > limit as u64 {
            return Err(Fault::ContentSize(size));
        }
        i += 8;
    }
    i += 1; // the header checksum
    let mut out = Vec::with_capacity(limit.min(crate::PREALLOC));
    loop {
        let word = src
            .get(i..i + 4)
            .and_then(|s| <[u8; 4]>::try_from(s).ok())
            .map(u32::from_le_bytes)
            .ok_or_else(|| bad(i, "block size cut off"))?;
        i += 4;
        if word == 0 {
            break;
        }
        let size = (word & 0x7FFF_FFFF) as usize;
        if size > max_block {
            return Err(bad(
                i - 4,
                format!("block of {size} bytes, maximum {max_block}"),
            ));
        }
        let data = src
            .get(i..i.saturating_add(size))
            .ok_or_else(|| bad(i, format!("block of {size} bytes runs past the end")))?;
        if word & 0x8000_0000 != 0 {
            if out.len().saturating_add(size) > limit {
                return Err(Fault::Overflow);
            }
            out.extend_from_slice(data);
        } else {
            block(data, &mut out, limit, i)?;
        }
        i += size + if block_checksum { 4 } else { 0 };
    }
    i += if content_checksum { 4 } else { 0 };
    if i != src.len() {
        return Err(bad(
            i.min(src.len()),
            format!("{} bytes after the frame", src.len().saturating_sub(i)),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_literals_matches_and_overlaps() {
        // "a" then a match of 7 at offset 1: eight a's; then literals "bc".
        let src = [0x13, b'a', 1, 0, 0x20, b'b', b'c'];
        let mut out = Vec::new();
        assert_eq!(block(&src, &mut out, 100, 0), Ok(()));
        assert_eq!(out, b"aaaaaaaabc");
        // The same with a limit one short: refused before writing past it.
        let mut out = Vec::new();
        assert_eq!(block(&src, &mut out, 9, 0), Err(Fault::Overflow));
        assert!(out.len() <= 9);
    }

    #[test]
    fn refuses_offsets_before_the_output() {
        let src = [0x10, b'a', 2, 0, 0x10, b'x'];
        let mut out = Vec::new();
        assert!(matches!(
            block(&src, &mut out, 100, 0),
            Err(Fault::Bad { at: 2, .. })
        ));
        let zero = [0x10, b'a', 0, 0, 0x10, b'x'];
        assert!(matches!(
            block(&zero, &mut Vec::new(), 100, 0),
            Err(Fault::Bad { .. })
        ));
    }

    #[test]
    fn refuses_cut_sequences() {
        for src in [
            &[][..],
            &[0xF0][..],
            &[0x30, b'a'][..],
            &[0x10, b'a', 1][..],
        ] {
            assert!(
                matches!(block(src, &mut Vec::new(), 100, 0), Err(Fault::Bad { .. })),
                "{src:?}"
            );
        }
    }

    #[test]
    fn long_lengths_continue_over_bytes_of_255() {
        // 15 + 255 + 3 = 273 literals.
        let mut src = vec![0xF0, 255, 3];
        src.extend(std::iter::repeat_n(b'z', 273));
        let mut out = Vec::new();
        assert_eq!(block(&src, &mut out, 273, 0), Ok(()));
        assert_eq!(out.len(), 273);
    }

    #[test]
    fn frames_of_compressed_and_stored_blocks() {
        let mut f = vec![0x04, 0x22, 0x4D, 0x18, 0x60, 0x40, 0x82];
        f.extend_from_slice(&5u32.to_le_bytes());
        // A block ends with a sequence of literals only (here none).
        f.extend_from_slice(&[0x13, b'a', 1, 0, 0x00]);
        f.extend_from_slice(&(0x8000_0002u32).to_le_bytes());
        f.extend_from_slice(b"bc");
        f.extend_from_slice(&0u32.to_le_bytes());
        assert_eq!(frame(&f, 100), Ok(b"aaaaaaaabc".to_vec()));
        assert_eq!(frame(&f, 9), Err(Fault::Overflow));
        let mut trailing = f.clone();
        trailing.push(0);
        assert!(matches!(frame(&trailing, 100), Err(Fault::Bad { .. })));
        for cut in 0..f.len() {
            assert!(frame(&f[..cut], 100).is_err(), "cut at {cut}");
        }
    }
}
