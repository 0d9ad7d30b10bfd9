//! An entry's payload, decompressed by the format its flags name, into at
//! most its declared uncompressed size.

use std::io::Read;

use crate::compression::Compression;
use crate::error::{FatbinError, Result};
use crate::lz4::{self, Fault};

/// Where an entry is, for its errors.
#[derive(Clone, Copy)]
pub(crate) struct Place {
    pub index: usize,
    pub offset: u64,
}

/// Decompresses `data` (the compressed bytes, `compressed_size` of them)
/// into exactly `declared` bytes.
pub(crate) fn decompress(
    format: Compression,
    data: &[u8],
    declared: u64,
    place: Place,
) -> Result<Vec<u8>> {
    let limit = usize::try_from(declared)
        .ok()
        .filter(|&d| d as u64 <= crate::MAX_UNCOMPRESSED)
        .ok_or(FatbinError::TooLarge {
            index: place.index,
            offset: place.offset,
            declared,
            limit: crate::MAX_UNCOMPRESSED,
        })?;
    let fault = |f: Fault, produced: u64| match f {
        Fault::Bad { at, detail } => FatbinError::Decompress {
            index: place.index,
            offset: place.offset,
            format,
            at,
            detail,
        },
        Fault::Overflow => mismatch(format, place, declared, produced),
        Fault::ContentSize(size) => mismatch(format, place, declared, size),
    };
    let out = match format {
        Compression::None => data.to_vec(),
        Compression::Lz4Block => {
            let mut out = Vec::with_capacity(limit.min(crate::PREALLOC));
            lz4::block(data, &mut out, limit, 0).map_err(|f| fault(f, declared + 1))?;
            out
        }
        Compression::Lz4Frame => lz4::frame(data, limit).map_err(|f| fault(f, declared + 1))?,
        Compression::Zlib => zlib(data, limit).map_err(|f| fault(f, declared + 1))?,
        Compression::Zstd => zstd(data, limit).map_err(|f| fault(f, declared + 1))?,
    };
    if out.len() as u64 != declared {
        return Err(mismatch(format, place, declared, out.len() as u64));
    }
    Ok(out)
}

fn mismatch(format: Compression, place: Place, declared: u64, produced: u64) -> FatbinError {
    FatbinError::SizeMismatch {
        index: place.index,
        offset: place.offset,
        format,
        declared,
        produced,
    }
}

fn zlib(data: &[u8], limit: usize) -> std::result::Result<Vec<u8>, Fault> {
    use miniz_oxide::inflate::TINFLStatus;
    miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(data, limit).map_err(|e| {
        match e.status {
            TINFLStatus::HasMoreOutput => Fault::Overflow,
            status => Fault::Bad {
                // miniz does not say where; the output so far is the best hint.
                at: 0,
                detail: format!("{status:?} after {} bytes of output", e.output.len()),
            },
        }
    })
}

/// One zstd frame, read through ruzstd's streaming decoder with the output
/// capped at `limit + 1` bytes (the one past tells an overflow).
fn zstd(data: &[u8], limit: usize) -> std::result::Result<Vec<u8>, Fault> {
    let mut src = data;
    let consumed = |src: &[u8]| (data.len() - src.len()) as u64;
    let mut out = Vec::with_capacity(limit.min(crate::PREALLOC));
    {
        let decoder =
            ruzstd::decoding::StreamingDecoder::new(&mut src).map_err(|e| Fault::Bad {
                at: 0,
                detail: format!("frame header: {e}"),
            })?;
        let cap = (limit as u64).saturating_add(1);
        decoder
            .take(cap)
            .read_to_end(&mut out)
            .map_err(|e| Fault::Bad {
                at: 0,
                detail: e.to_string(),
            })?;
    }
    if out.len() > limit {
        return Err(Fault::Overflow);
    }
    if !src.is_empty() {
        return Err(Fault::Bad {
            at: consumed(src),
            detail: format!("{} bytes after the zstd frame", src.len()),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_name_one_format_each() {
        assert_eq!(Compression::from_flags(0x11), Some(Compression::None));
        assert_eq!(Compression::from_flags(0x1011), Some(Compression::Zlib));
        assert_eq!(Compression::from_flags(0x2011), Some(Compression::Lz4Block));
        assert_eq!(Compression::from_flags(0x4011), Some(Compression::Lz4Frame));
        assert_eq!(Compression::from_flags(0x8011), Some(Compression::Zstd));
        assert_eq!(Compression::from_flags(0xA011), None);
        // sm_100 cubins carry 0x1000000: not a compression bit.
        assert_eq!(Compression::from_flags(0x100_0011), Some(Compression::None));
    }

    #[test]
    fn huge_declared_sizes_are_refused_before_allocating() {
        let place = Place {
            index: 0,
            offset: 16,
        };
        let e = decompress(Compression::Lz4Block, &[0x00], u64::MAX, place);
        assert!(matches!(e, Err(FatbinError::TooLarge { .. })), "{e:?}");
    }
}
