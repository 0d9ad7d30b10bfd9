//! A section of an ELF64 little-endian file by name: the ELF header, the
//! section header table and the section name table, nothing more. Written
//! here rather than taken from a crate (see the crate docs): these three
//! tables are all `.nv_fatbin` needs.

use crate::bytes::{slice, u16_at, u32_at, u64_at};
use crate::container::Fatbin;
use crate::error::{FatbinError, Result};

/// One section of an ELF file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Section<'a> {
    /// Its address when loaded (`sh_addr`): what pointers into it hold.
    pub addr: u64,
    /// Where its bytes start in the file (`sh_offset`).
    pub offset: u64,
    /// Its bytes (empty for a section with no file bytes, `SHT_NOBITS`).
    pub data: &'a [u8],
}

const SHT_NOBITS: u32 = 8;
const SHDR_LEN: u64 = 64;

/// An ELF error at `offset` (`.nv.info`'s reader reports through it too).
pub(crate) fn elf_err(offset: u64, detail: impl Into<String>) -> FatbinError {
    FatbinError::Elf {
        offset,
        detail: detail.into(),
    }
}

/// The fields of one section header that a lookup needs.
struct Shdr {
    name: u32,
    kind: u32,
    addr: u64,
    offset: u64,
    size: u64,
    link: u32,
}

fn shdr(elf: &[u8], at: u64) -> Result<Shdr> {
    let what = "ELF section header";
    slice(elf, at, SHDR_LEN, what)?;
    Ok(Shdr {
        name: u32_at(elf, at, what)?,
        kind: u32_at(elf, at + 4, what)?,
        addr: u64_at(elf, at + 16, what)?,
        offset: u64_at(elf, at + 24, what)?,
        size: u64_at(elf, at + 32, what)?,
        link: u32_at(elf, at + 40, what)?,
    })
}

/// The section called `name` in the ELF64 little-endian file `elf`, or
/// `None` when it has none. Errors: not ELF64 LE, or tables outside the file.
pub fn elf_section<'a>(elf: &'a [u8], name: &str) -> Result<Option<Section<'a>>> {
    let ident = slice(elf, 0, 16, "ELF identification")?;
    if ident[..4] != [0x7f, b'E', b'L', b'F'] {
        let found = u32::from_le_bytes([ident[0], ident[1], ident[2], ident[3]]);
        return Err(FatbinError::BadMagic {
            what: "ELF",
            offset: 0,
            found,
            expected: 0x464c_457f,
        });
    }
    if ident[4] != 2 || ident[5] != 1 {
        return Err(elf_err(
            4,
            format!(
                "class {} data {}: only 64-bit little-endian files are read",
                ident[4], ident[5]
            ),
        ));
    }
    let shoff = u64_at(elf, 0x28, "ELF header")?;
    let shentsize = u16_at(elf, 0x3A, "ELF header")?;
    let mut shnum = u64::from(u16_at(elf, 0x3C, "ELF header")?);
    let mut shstrndx = u32::from(u16_at(elf, 0x3E, "ELF header")?);
    if shoff == 0 {
        return Ok(None);
    }
    if u64::from(shentsize) != SHDR_LEN {
        return Err(elf_err(
            0x3A,
            format!("section header size {shentsize}, expected 64"),
        ));
    }
    // Extended numbering: counts too large for the ELF header live in section 0.
    let first = shdr(elf, shoff)?;
    if shnum == 0 {
        shnum = first.size;
    }
    if shstrndx == 0xFFFF {
        shstrndx = first.link;
    }
    let table_len = shnum
        .checked_mul(SHDR_LEN)
        .ok_or_else(|| elf_err(0x3C, format!("{shnum} sections")))?;
    slice(elf, shoff, table_len, "ELF section header table")?;
    if u64::from(shstrndx) >= shnum {
        return Err(elf_err(
            0x3E,
            format!("name table index {shstrndx} of {shnum} sections"),
        ));
    }
    let names = shdr(elf, shoff + u64::from(shstrndx) * SHDR_LEN)?;
    let names = slice(elf, names.offset, names.size, "ELF section name table")?;
    for i in 0..shnum {
        let at = shoff + i * SHDR_LEN;
        let s = shdr(elf, at)?;
        let own = names
            .get(s.name as usize..)
            .and_then(|n| n.split(|&b| b == 0).next())
            .ok_or_else(|| {
                elf_err(
                    at,
                    format!("section name offset {} outside the name table", s.name),
                )
            })?;
        if own != name.as_bytes() {
            continue;
        }
        let data = if s.kind == SHT_NOBITS {
            &[][..]
        } else {
            slice(elf, s.offset, s.size, "ELF section")?
        };
        return Ok(Some(Section {
            addr: s.addr,
            offset: s.offset,
            data,
        }));
    }
    Ok(None)
}

/// The `.nv_fatbin` section, where nvcc puts a program's fatbinaries (one
/// per translation unit, and one for the device-link step): `None` when the
/// file has no device code at all.
pub fn nv_fatbin_section(elf: &[u8]) -> Result<Option<Section<'_>>> {
    elf_section(elf, ".nv_fatbin")
}

/// Every fatbinary in a `.nv_fatbin` section, in order: they follow each
/// other, each starting at a multiple of 8 bytes; zero bytes after the last
/// are padding. Offsets in errors count from the section's start only for
/// the first fatbinary; `Fatbin::parse` on the section's data from
/// `offset` reproduces any other.
pub fn fatbins_in_section(data: &[u8]) -> Result<Vec<(u64, Fatbin<'_>)>> {
    let mut out = Vec::new();
    let mut at = 0u64;
    while let Some(rest) = usize::try_from(at).ok().and_then(|a| data.get(a..)) {
        if rest.iter().all(|&b| b == 0) {
            break;
        }
        let fb = Fatbin::parse(rest)?;
        let next = at
            .checked_add(fb.len())
            .and_then(|n| n.checked_next_multiple_of(8))
            .ok_or_else(|| elf_err(at, "fatbinary size overflows"))?;
        out.push((at, fb));
        at = next;
    }
    Ok(out)
}
