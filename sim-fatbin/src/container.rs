//! The fatbinary container and its entries (layout in the crate docs).

use std::borrow::Cow;

use crate::bytes::{slice, u16_at, u32_at, u64_at};
use crate::compression::{Compression, COMPRESSION_BITS};
use crate::decompress::{decompress, Place};
use crate::error::{FatbinError, Result};

/// The fatbinary's magic number (its first 4 bytes, little-endian).
pub const FATBIN_MAGIC: u32 = 0xBA55_ED50;
/// The container header's size in bytes (what [`fatbin_len`] reads).
pub const HEADER_LEN: usize = 16;
/// The smallest entry header: the fixed fields (nvcc writes 64, 80 or 112).
pub const ENTRY_HEADER_MIN: u32 = 64;

/// The total size in bytes of the fatbinary whose first 16 (or more) bytes
/// are given: its header size plus its payload size. A runtime handed only
/// a pointer reads 16 bytes, asks this, then reads that many.
pub fn fatbin_len(first_bytes: &[u8]) -> Result<u64> {
    let (header_size, payload) = header(first_bytes)?;
    u64::from(header_size)
        .checked_add(payload)
        .ok_or_else(|| FatbinError::Unsupported {
            what: "fatbinary header",
            offset: 8,
            detail: format!("payload size {payload} overflows"),
        })
}

/// (header size, payload size) from a checked container header.
fn header(b: &[u8]) -> Result<(u16, u64)> {
    let magic = u32_at(b, 0, "fatbinary header")?;
    if magic != FATBIN_MAGIC {
        return Err(FatbinError::BadMagic {
            what: "fatbinary",
            offset: 0,
            found: magic,
            expected: FATBIN_MAGIC,
        });
    }
    let version = u16_at(b, 4, "fatbinary header")?;
    let header_size = u16_at(b, 6, "fatbinary header")?;
    let payload = u64_at(b, 8, "fatbinary header")?;
    if version != 1 {
        return Err(FatbinError::Unsupported {
            what: "fatbinary header",
            offset: 4,
            detail: format!("version {version} (nvcc 11 to 13 write 1)"),
        });
    }
    if usize::from(header_size) < HEADER_LEN {
        return Err(FatbinError::Unsupported {
            what: "fatbinary header",
            offset: 6,
            detail: format!("header size {header_size}, at least {HEADER_LEN}"),
        });
    }
    Ok((header_size, payload))
}

/// What an entry holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EntryKind {
    /// PTX text (kind 1).
    Ptx,
    /// A cubin: machine code in an ELF file (kind 2).
    Elf,
    /// Another kind number (nvcc 13 writes only 1 and 2 for these programs).
    Other(u16),
}

/// Which devices an entry's target admits, from its flags (nvcc 13.0.88:
/// `-arch=sm_90a` sets 0x100000 on its `sm_90a` entries, `compute_100f`
/// sets 0x200000).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Variant {
    /// `sm_90`: this compute capability and (PTX) every later one.
    Generic = 0,
    /// `sm_100f`: the devices of its family (same major version) at or above it.
    FamilySpecific = 1,
    /// `sm_90a`: exactly this compute capability.
    ArchSpecific = 2,
}

impl Variant {
    /// What follows `sm_90` in the target's name: "", "f" or "a".
    pub fn suffix(self) -> &'static str {
        match self {
            Variant::Generic => "",
            Variant::FamilySpecific => "f",
            Variant::ArchSpecific => "a",
        }
    }
}

/// The flag of arch-specific (`a`) targets.
const ARCH_SPECIFIC: u64 = 0x10_0000;
/// The flag of family-specific (`f`) targets.
const FAMILY_SPECIFIC: u64 = 0x20_0000;

/// One entry: its header's fields and its stored payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry<'a> {
    /// Its position in the container (0 for the first).
    pub index: usize,
    /// Where its header starts, in bytes from the fatbinary's start.
    pub offset: u64,
    /// PTX or cubin.
    pub kind: EntryKind,
    /// The target: 90 for `sm_90`/`compute_90` (for PTX, its `.target`).
    pub sm: u32,
    /// (major, minor): for PTX the ISA version (9.0 for `.version 9.0`);
    /// for a cubin nvcc 13 writes 1.8.
    pub version: (u16, u16),
    /// The flag bits: 0x1 64-bit, 0x2 debug, 0x10 Linux host, 0x1000/0x2000/
    /// 0x4000/0x8000 the compression ([`Compression`]); others kept as read.
    pub flags: u64,
    /// The header's size (the payload follows it).
    pub header_size: u32,
    /// The stored payload's size, padding to 8 bytes included.
    pub payload_size: u64,
    /// The compressed data's size within the payload (0 when stored as is).
    pub compressed_size: u32,
    /// The size once decompressed (0 when stored as is).
    pub uncompressed_size: u64,
    /// The identifier string (fatbinary `--ident`; nvcc writes none), raw bytes.
    pub name: Option<&'a [u8]>,
    /// The options string (ptxas options for PTX, `-Xptxas`), raw bytes:
    /// for sm_100 cubins nvcc stores binary data there.
    pub options: Option<&'a [u8]>,
    /// The stored payload (`payload_size` bytes, compressed or not).
    pub payload: &'a [u8],
}

impl Entry<'_> {
    /// Its target's kind (`sm_90`, `sm_90a`, `sm_100f`) from its flags.
    pub fn variant(&self) -> Variant {
        if self.flags & ARCH_SPECIFIC != 0 {
            Variant::ArchSpecific
        } else if self.flags & FAMILY_SPECIFIC != 0 {
            Variant::FamilySpecific
        } else {
            Variant::Generic
        }
    }

    /// Whether a device of compute capability `sm` may use it: for PTX, what
    /// the driver may JIT (a cubin, by contrast, runs only on its own major
    /// version; this reader has no use for that).
    pub fn runs_on(&self, sm: u32) -> bool {
        match self.variant() {
            Variant::Generic => self.sm <= sm,
            Variant::FamilySpecific => self.sm <= sm && self.sm / 10 == sm / 10,
            Variant::ArchSpecific => self.sm == sm,
        }
    }

    /// The compression format its flags name.
    pub fn compression(&self) -> Result<Compression> {
        Compression::from_flags(self.flags).ok_or(FatbinError::UnknownCompression {
            index: self.index,
            offset: self.offset,
            flags: self.flags,
        })
    }

    /// The payload decompressed (borrowed when stored as is): exactly the
    /// declared uncompressed size, or an error. PTX ends in NUL padding.
    pub fn contents(&self) -> Result<Cow<'_, [u8]>> {
        let format = self.compression()?;
        if format == Compression::None {
            return Ok(Cow::Borrowed(self.payload));
        }
        let data = self
            .payload
            .get(..self.compressed_size as usize)
            .ok_or_else(|| {
                self.bad(format!(
                    "compressed size {} exceeds the payload ({} bytes)",
                    self.compressed_size, self.payload_size
                ))
            })?;
        let place = Place {
            index: self.index,
            offset: self.offset,
        };
        decompress(format, data, self.uncompressed_size, place).map(Cow::Owned)
    }

    /// The PTX text (the contents up to the first NUL), for a PTX entry.
    pub fn ptx(&self) -> Result<Ptx> {
        if self.kind != EntryKind::Ptx {
            return Err(self.bad(format!("is {:?}, not PTX", self.kind)));
        }
        let contents = self.contents()?;
        let text = contents.split(|&b| b == 0).next().unwrap_or_default();
        let text = std::str::from_utf8(text).map_err(|e| FatbinError::NotUtf8 {
            index: self.index,
            offset: self.offset,
            valid_up_to: e.valid_up_to() as u64,
        })?;
        Ok(Ptx {
            text: text.to_string(),
            sm: self.sm,
            variant: self.variant(),
            version: self.version,
            index: self.index,
            options: self
                .options
                .map(|o| String::from_utf8_lossy(o).into_owned()),
        })
    }

    fn bad(&self, detail: String) -> FatbinError {
        FatbinError::BadEntry {
            index: self.index,
            offset: self.offset,
            detail,
        }
    }
}

/// The PTX the driver would JIT, as [`Fatbin::ptx_for`] picks it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ptx {
    /// The module's text as stored (nvcc stores `nvcc -ptx`'s text with
    /// comments and indentation removed, so line numbers match but columns
    /// and comments do not).
    pub text: String,
    /// The target it was built for (90 for `.target sm_90` and `sm_90a`).
    pub sm: u32,
    /// Whether that target is `sm_90`, `sm_90a` or `sm_100f`-like.
    pub variant: Variant,
    /// The PTX ISA version (major, minor) from the entry header.
    pub version: (u16, u16),
    /// Which entry it came from.
    pub index: usize,
    /// The entry's ptxas options (`-Xptxas`), if any.
    pub options: Option<String>,
}

/// A parsed fatbinary: its header and its entries, borrowing the bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fatbin<'a> {
    len: u64,
    entries: Vec<Entry<'a>>,
}

impl<'a> Fatbin<'a> {
    /// Reads the container at the start of `bytes` (bytes after its end, as
    /// [`fatbin_len`] gives it, are ignored) and every entry header. Payloads
    /// are not decompressed until asked for.
    pub fn parse(bytes: &'a [u8]) -> Result<Fatbin<'a>> {
        let (header_size, _) = header(bytes)?;
        let len = fatbin_len(bytes)?;
        let body = slice(bytes, 0, len, "fatbinary payload").map_err(|e| match e {
            FatbinError::Truncated { available, .. } => FatbinError::Truncated {
                what: "fatbinary (header size + payload size)",
                offset: 0,
                needed: len,
                available,
            },
            other => other,
        })?;
        let mut entries = Vec::new();
        let mut at = u64::from(header_size);
        while at < len {
            let e = entry(body, at, entries.len())?;
            at = at + u64::from(e.header_size) + e.payload_size;
            entries.push(e);
        }
        Ok(Fatbin { len, entries })
    }

    /// The container's size in bytes (header and payload).
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether it has no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries in container order.
    pub fn entries(&self) -> &[Entry<'a>] {
        &self.entries
    }

    /// The PTX the CUDA driver would JIT for a device of compute capability
    /// `sm` (90 for sm_90): of the PTX entries that can run there (generic
    /// ones built for `sm` or below, `sm_90a`-style ones for exactly `sm`,
    /// `sm_100f`-style ones for `sm`'s family at or below it), the highest;
    /// of equals, the most specific (`a`, then `f`, then generic), then the
    /// first. An error names what the fatbinary holds when none fits
    /// (machine code only, or PTX for other targets only).
    pub fn ptx_for(&self, sm: u32) -> Result<Ptx> {
        let rank = |e: &Entry| (e.sm, e.variant() as u8);
        let best = self
            .entries
            .iter()
            .filter(|e| e.kind == EntryKind::Ptx && e.runs_on(sm))
            .fold(None::<&Entry>, |best, e| match best {
                Some(b) if rank(b) >= rank(e) => Some(b),
                _ => Some(e),
            });
        match best {
            Some(e) => e.ptx(),
            None => Err(FatbinError::NoPtx {
                sm,
                held: self.held(),
            }),
        }
    }

    /// What the entries are, in words, for `NoPtx`.
    fn held(&self) -> String {
        if self.entries.is_empty() {
            return "no entries".to_string();
        }
        let words: Vec<String> = self
            .entries
            .iter()
            .map(|e| match e.kind {
                EntryKind::Ptx => format!("PTX for sm_{}{}", e.sm, e.variant().suffix()),
                EntryKind::Elf => format!("sm_{}{} machine code", e.sm, e.variant().suffix()),
                EntryKind::Other(k) => {
                    format!(
                        "an entry of kind {k} for sm_{}{}",
                        e.sm,
                        e.variant().suffix()
                    )
                }
            })
            .collect();
        words.join(", ")
    }
}

/// The entry whose header starts at `at` in `body` (the whole container).
fn entry(body: &[u8], at: u64, index: usize) -> Result<Entry<'_>> {
    let bad = |detail: String| FatbinError::BadEntry {
        index,
        offset: at,
        detail,
    };
    let what = "fatbinary entry header";
    let fixed = slice(body, at, u64::from(ENTRY_HEADER_MIN), what)?;
    let kind = match u16_at(fixed, 0, what)? {
        1 => EntryKind::Ptx,
        2 => EntryKind::Elf,
        k => EntryKind::Other(k),
    };
    let header_size = u32_at(fixed, 4, what)?;
    let payload_size = u64_at(fixed, 8, what)?;
    let compressed_size = u32_at(fixed, 16, what)?;
    let options_at = u32_at(fixed, 20, what)?;
    let minor = u16_at(fixed, 24, what)?;
    let major = u16_at(fixed, 26, what)?;
    let sm = u32_at(fixed, 28, what)?;
    let name_at = u32_at(fixed, 32, what)?;
    let name_len = u32_at(fixed, 36, what)?;
    let flags = u64_at(fixed, 40, what)?;
    let uncompressed_size = u64_at(fixed, 56, what)?;
    if header_size < ENTRY_HEADER_MIN {
        return Err(bad(format!(
            "header size {header_size}, at least {ENTRY_HEADER_MIN}"
        )));
    }
    let head = slice(body, at, u64::from(header_size), what)?;
    let payload_at = at + u64::from(header_size);
    let payload = slice(body, payload_at, payload_size, "fatbinary entry payload").map_err(|_| {
        bad(format!(
            "payload of {payload_size} bytes at byte {payload_at} runs past the container's end ({})",
            body.len()
        ))
    })?;
    let is_compressed = flags & COMPRESSION_BITS != 0;
    if is_compressed && u64::from(compressed_size) > payload_size {
        return Err(bad(format!(
            "compressed size {compressed_size} exceeds the payload ({payload_size} bytes)"
        )));
    }
    let name = (name_len > 0)
        .then(|| {
            string_in(head, name_at, name_len).ok_or_else(|| {
                bad(format!(
            "name ({name_len} bytes at {name_at}) lies outside the {header_size}-byte header"
        ))
            })
        })
        .transpose()?;
    let options = options(head, options_at).map_err(bad)?;
    Ok(Entry {
        index,
        offset: at,
        kind,
        sm,
        version: (major, minor),
        flags,
        header_size,
        payload_size,
        compressed_size,
        uncompressed_size,
        name,
        options,
        payload,
    })
}

/// `len` bytes at `at` inside an entry header, past its fixed fields.
fn string_in(head: &[u8], at: u32, len: u32) -> Option<&[u8]> {
    if at < ENTRY_HEADER_MIN {
        return None;
    }
    let start = at as usize;
    head.get(start..start.checked_add(len as usize)?)
}

/// The options string: `options_at` (0 for none) points, inside the header,
/// to a (u32 offset, u32 length) pair locating the string in the header.
fn options(head: &[u8], options_at: u32) -> std::result::Result<Option<&[u8]>, String> {
    if options_at == 0 {
        return Ok(None);
    }
    let outside = || {
        format!(
            "options at {options_at} lie outside the {}-byte header",
            head.len()
        )
    };
    if options_at < ENTRY_HEADER_MIN {
        return Err(outside());
    }
    let at = u32_at(head, u64::from(options_at), "options").map_err(|_| outside())?;
    let len = u32_at(head, u64::from(options_at) + 4, "options").map_err(|_| outside())?;
    if len == 0 {
        return Ok(None);
    }
    string_in(head, at, len).map(Some).ok_or_else(outside)
}
