//! What ptxas allocated for each kernel of a cubin: the registers a thread,
//! from the cubin's `.nv.info` section, so that a simulated launch is
//! resident as the GPU would hold it (PTX does not say).
//!
//! `.nv.info` is a list of attribute records, each 4-byte aligned: a format
//! byte and an attribute byte, then for the format `EIFMT_SVAL` (4) a
//! 16-bit size and that many bytes, and for the others (`EIFMT_NVAL` 1,
//! `EIFMT_BVAL` 2, `EIFMT_HVAL` 3) two more bytes. `EIATTR_REGCOUNT`
//! (0x2f) is an `SVAL` of a symbol index (into `.symtab`) and the count.
//! Read off nvcc 13.0.88's sm_90 cubin of `workloads/sgemm.cu` (40
//! registers, as `ptxas -v` reports), and the committed fixture `app`.

use crate::bytes::{slice, u16_at, u32_at};
use crate::container::{EntryKind, Fatbin};
use crate::elf::{elf_err as bad, elf_section};
use crate::error::Result;

/// `EIFMT_SVAL`: a record with a 16-bit size and that many bytes.
const EIFMT_SVAL: u8 = 4;
/// `EIATTR_REGCOUNT`: registers a thread of the function a symbol names.
const EIATTR_REGCOUNT: u8 = 0x2f;
/// An ELF64 symbol table entry's size.
const SYM_LEN: u64 = 24;

/// Each kernel's registers a thread in the cubin `elf`, by function name
/// (empty when it has no `.nv.info`). Errors: a record or symbol outside
/// its table.
pub fn registers(elf: &[u8]) -> Result<Vec<(String, u32)>> {
    let Some(info) = elf_section(elf, ".nv.info")? else {
        return Ok(Vec::new());
    };
    let mut counts = Vec::new();
    let d = info.data;
    let mut at = 0u64;
    while at < d.len() as u64 {
        let head = slice(d, at, 2, ".nv.info record")?;
        let (fmt, attr) = (head[0], head[1]);
        if fmt != EIFMT_SVAL {
            at += 4;
            continue;
        }
        let size = u64::from(u16_at(d, at + 2, ".nv.info record size")?);
        if attr == EIATTR_REGCOUNT && size >= 8 {
            let sym = u32_at(d, at + 4, "EIATTR_REGCOUNT symbol")?;
            let n = u32_at(d, at + 8, "EIATTR_REGCOUNT count")?;
            counts.push((sym, n));
        }
        at += 4 + size;
    }
    if counts.is_empty() {
        return Ok(Vec::new());
    }
    let symtab = elf_section(elf, ".symtab")?
        .ok_or_else(|| bad(0, ".nv.info names symbols but the cubin has no .symtab"))?;
    let strtab = elf_section(elf, ".strtab")?
        .ok_or_else(|| bad(0, ".nv.info names symbols but the cubin has no .strtab"))?;
    counts
        .into_iter()
        .map(|(sym, n)| {
            let e = u64::from(sym) * SYM_LEN;
            let name_at = u32_at(symtab.data, e, "symbol table entry")?;
            let name = strtab
                .data
                .get(name_at as usize..)
                .and_then(|s| s.split(|&b| b == 0).next())
                .ok_or_else(|| {
                    bad(
                        symtab.offset + e,
                        format!("symbol {sym}'s name at {name_at} is outside .strtab"),
                    )
                })?;
            Ok((String::from_utf8_lossy(name).into_owned(), n))
        })
        .collect()
}

/// The registers a thread that ptxas allocated for each kernel of fatbinary
/// `f`, by name, from the machine code a device of compute capability `sm`
/// would load: the cubin built for exactly `sm` (a cubin runs only on its
/// own target here; the driver would JIT the PTX otherwise, with counts
/// nobody can know ahead). Empty when there is none.
pub fn registers_for(f: &Fatbin<'_>, sm: u32) -> Result<Vec<(String, u32)>> {
    match f
        .entries()
        .iter()
        .find(|e| e.kind == EntryKind::Elf && e.sm == sm)
    {
        Some(e) => registers(&e.contents()?),
        None => Ok(Vec::new()),
    }
}
