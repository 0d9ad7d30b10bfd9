//! The compression formats an entry's flags name.

/// How an entry's payload is stored: one bit of the entry's flags each.
///
/// Found by building the same kernel with nvcc 13.0.88 under every
/// `-compress-mode` and with fatbinary 13.0.88's `--compress-algorithm=1..4`
/// (see `tests/data/README.md` and the crate docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Compression {
    /// Stored as is (`-no-compress`, `-compress-mode=none`, and the cubins
    /// of every mode but `size`).
    None,
    /// zlib (RFC 1950), flag 0x1000: fatbinary `--compress-algorithm=1`.
    Zlib,
    /// An LZ4 block, flag 0x2000: `-compress-mode=speed` (and fatbinary
    /// `--compress-algorithm=2` and `4`).
    Lz4Block,
    /// An LZ4 frame, flag 0x4000: fatbinary `--compress-algorithm=3`.
    Lz4Frame,
    /// A zstd frame, flag 0x8000: nvcc 13's default, `-compress-mode=default`,
    /// `balance` and `size` (`size` compresses the cubins too).
    Zstd,
}

impl std::fmt::Display for Compression {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Compression::None => "uncompressed",
            Compression::Zlib => "zlib",
            Compression::Lz4Block => "LZ4 block",
            Compression::Lz4Frame => "LZ4 frame",
            Compression::Zstd => "zstd",
        })
    }
}

/// The flag bits that name a compression format.
pub(crate) const COMPRESSION_BITS: u64 = 0xF000;

impl Compression {
    /// The format an entry's flags name; `None` when more than one bit is set.
    pub(crate) fn from_flags(flags: u64) -> Option<Compression> {
        match flags & COMPRESSION_BITS {
            0 => Some(Compression::None),
            0x1000 => Some(Compression::Zlib),
            0x2000 => Some(Compression::Lz4Block),
            0x4000 => Some(Compression::Lz4Frame),
            0x8000 => Some(Compression::Zstd),
            _ => None,
        }
    }
}
