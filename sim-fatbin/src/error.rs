//! The one error type of the crate: each variant names what was being read
//! and where (a byte offset from the start of the buffer handed in).

use crate::compression::Compression;

/// Why a fatbinary, one of its entries or an ELF file could not be read.
///
/// Offsets are in bytes from the start of the buffer given to the function
/// that failed (the fatbinary for [`crate::Fatbin::parse`], the ELF file
/// for [`crate::elf_section`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FatbinError {
    /// The buffer ends before a field or a region it must hold.
    #[error("truncated {what} at byte {offset}: {needed} bytes needed, {available} present")]
    Truncated {
        /// What was being read ("fatbinary header", "entry payload", ...).
        what: &'static str,
        /// Where it starts.
        offset: u64,
        /// How many bytes it needs.
        needed: u64,
        /// How many bytes the buffer has from `offset` on.
        available: u64,
    },
    /// A magic number is not the one expected.
    #[error("bad {what} magic at byte {offset}: {found:#x}, expected {expected:#x}")]
    BadMagic {
        /// Which structure ("fatbinary", "fatbinary wrapper", "ELF").
        what: &'static str,
        /// Where the magic starts.
        offset: u64,
        /// The value read.
        found: u32,
        /// The value required.
        expected: u32,
    },
    /// A structure whose version or layout this reader does not know.
    #[error("unsupported {what} at byte {offset}: {detail}")]
    Unsupported {
        /// Which structure.
        what: &'static str,
        /// Where it starts.
        offset: u64,
        /// What is not supported.
        detail: String,
    },
    /// An entry header whose fields contradict each other or the container.
    #[error("fatbinary entry {index} at byte {offset}: {detail}")]
    BadEntry {
        /// The entry's position in the container (0 for the first).
        index: usize,
        /// Where its header starts.
        offset: u64,
        /// What is wrong.
        detail: String,
    },
    /// The entry's flags name no compression format this reader knows.
    #[error(
        "fatbinary entry {index} at byte {offset}: unknown compression (flags {flags:#x}); known: \
         zlib 0x1000, LZ4 block 0x2000, LZ4 frame 0x4000, zstd 0x8000, one at a time"
    )]
    UnknownCompression {
        /// The entry's position.
        index: usize,
        /// Where its header starts.
        offset: u64,
        /// The entry's flags.
        flags: u64,
    },
    /// A compressed payload is malformed.
    #[error("fatbinary entry {index} at byte {offset}: bad {format} data at byte {at} of the compressed payload: {detail}")]
    Decompress {
        /// The entry's position.
        index: usize,
        /// Where its header starts.
        offset: u64,
        /// The format being decoded.
        format: Compression,
        /// Where in the compressed payload (from its first byte) the fault lies,
        /// as far as the decoder tells.
        at: u64,
        /// What is wrong.
        detail: String,
    },
    /// Decompression gave a size other than the one the entry declares
    /// (decoding stops as soon as the declared size would be exceeded).
    #[error("fatbinary entry {index} at byte {offset}: {format} data decompress to {produced} bytes, the entry declares {declared}")]
    SizeMismatch {
        /// The entry's position.
        index: usize,
        /// Where its header starts.
        offset: u64,
        /// The format.
        format: Compression,
        /// The uncompressed size in the entry header.
        declared: u64,
        /// What decoding produced (`declared + 1` when it ran past it).
        produced: u64,
    },
    /// A declared uncompressed size above [`crate::MAX_UNCOMPRESSED`].
    #[error("fatbinary entry {index} at byte {offset}: declared uncompressed size {declared} exceeds the limit {limit}")]
    TooLarge {
        /// The entry's position.
        index: usize,
        /// Where its header starts.
        offset: u64,
        /// The declared size.
        declared: u64,
        /// The limit.
        limit: u64,
    },
    /// A PTX payload that is not UTF-8 text.
    #[error("fatbinary entry {index} at byte {offset}: PTX is not UTF-8 (byte {valid_up_to} of the text)")]
    NotUtf8 {
        /// The entry's position.
        index: usize,
        /// Where its header starts.
        offset: u64,
        /// How many leading bytes are valid.
        valid_up_to: u64,
    },
    /// No PTX entry the CUDA driver could JIT for the requested target.
    #[error(
        "no PTX for sm_{sm} in the fatbinary (it holds: {held}); the driver JIT-compiles only PTX \
         for a compute capability at or below the device's, and never runs machine code built for \
         another one. Build the program with PTX for this target, e.g. `nvcc -arch=sm_{sm}` or \
         `-gencode arch=compute_{sm},code=compute_{sm}`"
    )]
    NoPtx {
        /// The requested compute capability (90 for sm_90).
        sm: u32,
        /// What the fatbinary holds, in words ("sm_90 machine code, PTX for sm_100").
        held: String,
    },
    /// An ELF file this reader cannot read.
    #[error("ELF file, byte {offset}: {detail}")]
    Elf {
        /// Where the fault lies.
        offset: u64,
        /// What is wrong.
        detail: String,
    },
}

/// `Result` with [`FatbinError`].
pub type Result<T> = std::result::Result<T, FatbinError>;
