//! The PTX inside NVIDIA fatbinaries, as `nvcc -arch=sm_90 -cudart shared
//! app.cu` embeds them in a program: the container, its entries, nvcc's
//! compressed payloads, and the `.nv_fatbin` section of an ELF file.
//!
//! ```no_run
//! # fn demo(bytes: &[u8]) -> Result<(), sim_fatbin::FatbinError> {
//! let len = sim_fatbin::fatbin_len(&bytes[..16])?; // how much to read
//! let fatbin = sim_fatbin::Fatbin::parse(&bytes[..len as usize])?;
//! let ptx = fatbin.ptx_for(90)?; // what the driver would JIT on sm_90
//! println!("{}", ptx.text);
//! # Ok(()) }
//! ```
//!
//! # What a program hands the runtime
//!
//! `__cudaRegisterFatBinary(void *wrapper)` receives a pointer to a
//! `__fatBinC_Wrapper_t` (section `.nvFatBinSegment`), 24 bytes, read by
//! [`FatbinWrapper::parse`]:
//!
//! | offset | type | field |
//! | --- | --- | --- |
//! | 0 | u32 | magic 0x466243B1 ([`WRAPPER_MAGIC`]) |
//! | 4 | u32 | version: 1 (a translation unit's fatbinary) or 2 (the device-link step's) |
//! | 8 | u64 | pointer to the fatbinary (in `.nv_fatbin`) |
//! | 16 | u64 | version 1: file name pointer (0); version 2: pointer to `__cudaPrelinkedFatbins` |
//!
//! A program built with nvcc 13.0.88 `-arch=sm_90 -cudart shared` registers
//! two: version 2 for the device-link step's fatbinary (one sm_90 cubin, no
//! PTX, no kernels of the program) and version 1 for `app.cu`'s (its sm_90
//! cubin and its PTX). Only the second has PTX; [`Fatbin::ptx_for`] on the
//! first is a `NoPtx` error that a runtime should treat as "no kernels here"
//! (it registers its functions only against the second).
//!
//! A program built with `-rdc=true` differs: `.nv_fatbin` holds only the
//! device-link step's fatbinary (the linked cubin, version 2 wrapper), and
//! `app.cu`'s own, with its PTX, sits in the `__nv_relfatbin` section, where
//! the version 1 wrapper points ([`elf_section`] with that name and
//! [`fatbins_in_section`] read it).
//!
//! # The container
//!
//! Little-endian. A 16-byte header, then the entries back to back, each a
//! header and its payload; no terminator ([`fatbin_len`] = header size +
//! payload size):
//!
//! | offset | type | header field |
//! | --- | --- | --- |
//! | 0 | u32 | magic 0xBA55ED50 ([`FATBIN_MAGIC`]) |
//! | 4 | u16 | version (1) |
//! | 6 | u16 | header size (16) |
//! | 8 | u64 | payload size: the entries' bytes after the header |
//!
//! Each entry header (64 bytes of fixed fields, then the name and options
//! strings; nvcc 13 writes 64 for sm_90 cubins, 80 for PTX, 112 for sm_100
//! cubins):
//!
//! | offset | type | entry field ([`Entry`]) |
//! | --- | --- | --- |
//! | 0 | u16 | kind: 1 PTX, 2 ELF (cubin) |
//! | 2 | u16 | 0x0101 (unknown) |
//! | 4 | u32 | header size; the payload follows the header |
//! | 8 | u64 | payload size (a multiple of 8; padding is zeros) |
//! | 16 | u32 | compressed size (0 when stored as is) |
//! | 20 | u32 | options: 0, or the offset in the header of a (u32 offset, u32 length) pair locating the options string in the header |
//! | 24 | u16, u16 | minor, major version (PTX ISA version; 1.8 for cubins) |
//! | 28 | u32 | sm (90) |
//! | 32 | u32, u32 | name (fatbinary `--ident`): offset in the header, length |
//! | 40 | u64 | flags: 0x1 64-bit, 0x2 debug, 0x10 Linux, 0x1000/0x2000/0x4000/0x8000 compression, 0x100000 `sm_90a`-style target, 0x200000 `sm_100f`-style target |
//! | 48 | u64 | 0 |
//! | 56 | u64 | uncompressed size (0 when stored as is) |
//!
//! The field offsets and the name and options strings were read off
//! fixtures built with fatbinary 13.0.88 `--ident` and `--cmdline`
//! (`tests/data/README.md`); the 16-byte header and the 64 fixed bytes agree
//! with the public reverse-engineering of n-eiling/cuda-fatbin-decompression
//! (its `fat_text_header`).
//!
//! # Compression (nvcc 13.0.88)
//!
//! One flag bit names the format of a compressed payload ([`Compression`]).
//! Found by building one kernel every way and reading the flags and the
//! payloads' magic numbers (`tests/data/README.md` lists the commands):
//!
//! | nvcc | entries compressed | format | flag |
//! | --- | --- | --- | --- |
//! | (default) = `-compress-mode=default` = `balance` (byte-identical output) | PTX | zstd frame (magic 28 B5 2F FD) | 0x8000 |
//! | `-compress-mode=size` | PTX and cubins | zstd | 0x8000 |
//! | `-compress-mode=speed` | PTX | LZ4 block (raw, no frame) | 0x2000 |
//! | `-compress-mode=none`, `-no-compress` | none | | 0 |
//! | fatbinary `--compress-algorithm=1` (hidden option) | | zlib (78 9C) | 0x1000 |
//! | fatbinary `--compress-algorithm=2`, `4` | | LZ4 block | 0x2000 |
//! | fatbinary `--compress-algorithm=3` | | LZ4 frame (04 22 4D 18) | 0x4000 |
//!
//! fatbinary also says "Compression algorithm swapped to lz4 frame as size
//! exceeds maximum for specified algorithm" (a string in the binary), so a
//! large image may come as an LZ4 frame whatever the mode. The "NVIDIA
//! LZ-style" format of older CUDA (flag 0x2000, studied in
//! n-eiling/cuda-fatbin-decompression and lz4/lz4 issue #1015) is plain LZ4
//! block format: this crate's own decoder (`lz4.rs`) turns every 0x2000
//! fixture into the bytes of the `-no-compress` build. Every decoder stops
//! at the declared uncompressed size, which must be met exactly and is at
//! most [`MAX_UNCOMPRESSED`].
//!
//! zstd is decoded by `ruzstd` (pure Rust), zlib by `miniz_oxide` (pure
//! Rust, with an output limit), both well kept and without C code. The ELF
//! reader is our own ~100 lines (`elf.rs`): it needs three tables, and a
//! hand reader keeps the crate free of `object`'s feature surface for them.
//!
//! # The PTX stored
//!
//! A fatbinary stores `nvcc -ptx`'s text with comments replaced by empty
//! lines and every line's leading whitespace and tabs turned into single
//! spaces (so line numbers match, text differs), followed by NUL padding.
//! [`Ptx::text`] is that text up to the first NUL.

#![forbid(unsafe_code)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

mod bytes;
mod compression;
mod container;
mod decompress;
mod elf;
mod error;
mod lz4;
mod nvinfo;
mod wrapper;

pub use compression::Compression;
pub use container::{
    fatbin_len, Entry, EntryKind, Fatbin, Ptx, Variant, ENTRY_HEADER_MIN, FATBIN_MAGIC, HEADER_LEN,
};
pub use elf::{elf_section, fatbins_in_section, nv_fatbin_section, Section};
pub use error::{FatbinError, Result};
pub use nvinfo::{registers, registers_for};
pub use wrapper::{FatbinWrapper, WRAPPER_LEN, WRAPPER_MAGIC};

/// The largest uncompressed size an entry may declare (1 GiB): decoders
/// never hold more than the declared size, and a declared size above this
/// is refused before anything is allocated.
pub const MAX_UNCOMPRESSED: u64 = 1 << 30;

/// What a decoder reserves up front at most; it grows beyond as data comes.
const PREALLOC: usize = 1 << 24;
