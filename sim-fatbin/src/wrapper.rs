//! `__fatBinC_Wrapper_t`, the 24 bytes a program hands
//! `__cudaRegisterFatBinary` (layout in the crate docs).

use crate::bytes::{u32_at, u64_at};
use crate::error::{FatbinError, Result};

/// The wrapper's magic number (its first 4 bytes, little-endian).
pub const WRAPPER_MAGIC: u32 = 0x4662_43B1;
/// The wrapper's size in bytes on a 64-bit host.
pub const WRAPPER_LEN: usize = 24;

/// The fields of a `__fatBinC_Wrapper_t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FatbinWrapper {
    /// 1 for a translation unit's fatbinary; 2 for the device-link step's
    /// (nvcc 13 registers one of each for `nvcc -cudart shared app.cu`).
    pub version: u32,
    /// The address of the fatbinary (its header, magic 0xBA55ED50).
    pub data: u64,
    /// Version 1: a file name pointer (nvcc writes 0). Version 2: the address
    /// of `__cudaPrelinkedFatbins`, a null-terminated array of pointers.
    pub filename_or_fatbins: u64,
}

impl FatbinWrapper {
    /// Reads the wrapper from its first [`WRAPPER_LEN`] bytes.
    pub fn parse(bytes: &[u8]) -> Result<FatbinWrapper> {
        let what = "fatbinary wrapper";
        let magic = u32_at(bytes, 0, what)?;
        if magic != WRAPPER_MAGIC {
            return Err(FatbinError::BadMagic {
                what,
                offset: 0,
                found: magic,
                expected: WRAPPER_MAGIC,
            });
        }
        Ok(FatbinWrapper {
            version: u32_at(bytes, 4, what)?,
            data: u64_at(bytes, 8, what)?,
            filename_or_fatbins: u64_at(bytes, 16, what)?,
        })
    }
}
