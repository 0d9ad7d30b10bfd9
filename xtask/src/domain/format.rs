//! The record files of tools/gpu/domain (README.md there): `PTXDOM1\0`, then
//! records of (index, form text, kind, element bytes, count, zlib data).
//! The extract for the committed test uses the same records, with the
//! sampled bit (0x80) on the kind: its data are (a, value) pairs.

use anyhow::{bail, Context, Result};
use std::io::{Read, Write};
use std::path::Path;

pub const MAGIC: &[u8; 8] = b"PTXDOM1\0";
/// Entries of a full array: one per 16-bit value.
pub const N: usize = 65536;
/// Kind flag: the data are (a, value) pairs, not a full array.
const SAMPLED: u8 = 0x80;

/// How a form's sources cover its domain (tools/gpu/domain/gen.py).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// One 16-bit source: the result for every a.
    One16,
    /// Two 16-bit sources: per a, the checksum over every b.
    Two16,
    /// One 32-bit source: per high half, the checksum over the low half.
    One32,
}

impl Kind {
    fn code(self) -> u8 {
        match self {
            Kind::One16 => 0,
            Kind::Two16 => 1,
            Kind::One32 => 2,
        }
    }
    fn from_code(c: u8) -> Option<Kind> {
        match c {
            0 => Some(Kind::One16),
            1 => Some(Kind::Two16),
            2 => Some(Kind::One32),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Kind::One16 => "one16",
            Kind::Two16 => "two16",
            Kind::One32 => "one32",
        }
    }
}

/// One form's output: `values[i]` belongs to input (or high half) `keys[i]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub index: u32,
    pub text: String,
    pub kind: Kind,
    /// 2 or 4: the bytes of one value in the GPU file.
    pub elem: u8,
    /// The a of each value (0..65536 for a full array).
    pub keys: Vec<u32>,
    pub values: Vec<u32>,
}

impl Record {
    pub fn full(index: u32, text: &str, kind: Kind, elem: u8, values: Vec<u32>) -> Record {
        Record {
            index,
            text: text.to_string(),
            kind,
            elem,
            keys: (0..values.len() as u32).collect(),
            values,
        }
    }
    fn is_full(&self) -> bool {
        self.keys.len() == N && self.keys.iter().enumerate().all(|(i, &k)| k as usize == i)
    }
}

struct Cursor<'a>(&'a [u8]);

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.0.len() < n {
            bail!("truncated record");
        }
        let (h, t) = self.0.split_at(n);
        self.0 = t;
        Ok(h)
    }
    fn u32(&mut self) -> Result<u32> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}

fn le_values(raw: &[u8], elem: usize) -> Vec<u32> {
    raw.chunks_exact(elem)
        .map(|c| match c {
            [a, b] => u32::from(u16::from_le_bytes([*a, *b])),
            [a, b, c, d] => u32::from_le_bytes([*a, *b, *c, *d]),
            _ => 0,
        })
        .collect()
}

/// Every record of a file.
pub fn read(path: &Path) -> Result<Vec<Record>> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let mut c = Cursor(&bytes);
    if c.take(8)? != MAGIC {
        bail!("{}: not a tools/gpu/domain file", path.display());
    }
    let mut out = Vec::new();
    while !c.0.is_empty() {
        let index = c.u32()?;
        let len = c.take(2)?;
        let len = usize::from(u16::from_le_bytes([len[0], len[1]]));
        let text = String::from_utf8(c.take(len)?.to_vec()).context("form text")?;
        let head = c.take(2)?;
        let (code, elem) = (head[0], head[1]);
        let kind = Kind::from_code(code & !SAMPLED).context("unknown kind")?;
        let count = c.u32()? as usize;
        let zlen = c.u32()? as usize;
        let mut raw = Vec::new();
        flate2::read::ZlibDecoder::new(c.take(zlen)?)
            .read_to_end(&mut raw)
            .with_context(|| format!("record {index}: zlib"))?;
        if elem != 2 && elem != 4 {
            bail!("record {index}: element size {elem}");
        }
        let (keys, values) = if code & SAMPLED != 0 {
            let pairs = le_values(&raw, 4);
            if pairs.len() != 2 * count {
                bail!("record {index}: {} values for {count} pairs", pairs.len());
            }
            let keys = pairs.iter().step_by(2).copied().collect();
            (keys, pairs.iter().skip(1).step_by(2).copied().collect())
        } else {
            let values = le_values(&raw, usize::from(elem));
            if values.len() != count {
                bail!(
                    "record {index}: {} values, header says {count}",
                    values.len()
                );
            }
            ((0..count as u32).collect(), values)
        };
        out.push(Record {
            index,
            text,
            kind,
            elem,
            keys,
            values,
        });
    }
    Ok(out)
}

/// Writes `records` (full arrays as the GPU writes them, others sampled).
pub fn write(path: &Path, records: &[Record]) -> Result<()> {
    let mut buf = MAGIC.to_vec();
    for r in records {
        let full = r.is_full();
        let mut raw = Vec::new();
        for (k, v) in r.keys.iter().zip(&r.values) {
            if !full {
                raw.extend_from_slice(&k.to_le_bytes());
                raw.extend_from_slice(&v.to_le_bytes());
            } else if r.elem == 2 {
                raw.extend_from_slice(&(*v as u16).to_le_bytes());
            } else {
                raw.extend_from_slice(&v.to_le_bytes());
            }
        }
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(6));
        z.write_all(&raw)?;
        let z = z.finish()?;
        let text = r.text.as_bytes();
        buf.extend_from_slice(&r.index.to_le_bytes());
        buf.extend_from_slice(&(text.len() as u16).to_le_bytes());
        buf.extend_from_slice(text);
        buf.push(r.kind.code() | if full { 0 } else { SAMPLED });
        buf.push(if full { r.elem } else { 4 });
        buf.extend_from_slice(&(r.values.len() as u32).to_le_bytes());
        buf.extend_from_slice(&(z.len() as u32).to_le_bytes());
        buf.extend_from_slice(&z);
    }
    std::fs::write(path, buf).with_context(|| format!("writing {}", path.display()))
}
