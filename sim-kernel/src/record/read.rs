//! Reading a recording as a replay runs, record by record, each checked as
//! it is read (see the format in `record.rs`).

use super::flow::Flow;
use super::{
    config, is_recording, validate_warp, RecHeader, RecTrailer, RecWarp, RecordError, HEADER,
    MAX_RECORD_BYTES, TRAILER, VERSION, WARP,
};
use std::io::Read;

/// Reads a recording as a replay runs: the header when opened, then each
/// warp in grid order when asked, then the trailer. Holds one record's
/// bytes at a time (at most [`MAX_RECORD_BYTES`]).
pub struct RecordReader<R: Read> {
    r: R,
    name: String,
    header: RecHeader,
    total: u64,
    per_block: u64,
    threads: u64,
    /// The next warp to read.
    next: u64,
    /// The kernel's control flow, when known: warps' steps are checked
    /// against it.
    flow: Option<Flow>,
    /// Bytes read so far.
    offset: u64,
}

impl<R: Read> RecordReader<R> {
    /// Opens the recording `name` on `r`: reads and validates its header.
    pub fn open(name: &str, mut r: R) -> Result<RecordReader<R>, RecordError> {
        let name_s = || name.to_string();
        let mut head = [0u8; 12];
        let got = read_full(&mut r, &mut head).map_err(|source| RecordError::Io {
            name: name_s(),
            source,
        })?;
        if !is_recording(&head[..got]) {
            return Err(RecordError::NotRecording { name: name_s() });
        }
        if got < 12 {
            return Err(RecordError::Decode {
                name: name_s(),
                msg: "the version is cut off".into(),
            });
        }
        let found = u32::from_le_bytes([head[8], head[9], head[10], head[11]]);
        if found != VERSION {
            return Err(RecordError::Version {
                name: name_s(),
                found,
            });
        }
        let mut me = RecordReader {
            r,
            name: name_s(),
            header: placeholder_header(),
            total: 0,
            per_block: 1,
            threads: 1,
            next: 0,
            flow: None,
            offset: 12,
        };
        let header: RecHeader = me.read_record("header", HEADER)?;
        header.validate().map_err(|msg| me.invalid(msg))?;
        me.total = header.warps();
        me.per_block = header.warps_per_block();
        me.threads = header.threads();
        me.header = header;
        Ok(me)
    }

    /// The file's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The header.
    pub fn header(&self) -> &RecHeader {
        &self.header
    }

    /// Each buffer's initial bytes (zeros where not recorded), moved out of
    /// the header (whose outputs then hold empty initial contents).
    pub(crate) fn take_initial(&mut self) -> Vec<Vec<u8>> {
        self.header
            .buffers
            .iter_mut()
            .map(|b| match &mut b.initial {
                Some(initial) => std::mem::take(initial),
                None => vec![0u8; b.bytes as usize],
            })
            .collect()
    }

    /// Warps the file holds (the grid's).
    pub fn warps(&self) -> u64 {
        self.total
    }

    /// From now on, checks each warp's steps against the kernel's
    /// control flow ([`Flow::check`]).
    pub fn check_flow(&mut self, flow: Flow) {
        self.flow = Some(flow);
    }

    fn invalid(&self, msg: String) -> RecordError {
        RecordError::Invalid {
            name: self.name.clone(),
            msg,
        }
    }

    fn corrupt(&self, msg: String) -> RecordError {
        RecordError::Decode {
            name: self.name.clone(),
            msg,
        }
    }

    fn count_error(&self, found: u64) -> RecordError {
        self.invalid(format!(
            "{found} warps, but a grid of {} blocks of {} threads has {}",
            self.header.blocks(),
            self.threads,
            self.total
        ))
    }

    /// Reads the kind byte of the next record (`None` at the file's end).
    fn read_kind(&mut self) -> Result<Option<u8>, RecordError> {
        let mut k = [0u8; 1];
        let got = read_full(&mut self.r, &mut k).map_err(|source| RecordError::Io {
            name: self.name.clone(),
            source,
        })?;
        Ok((got == 1).then_some(k[0]))
    }

    /// Reads the next record, which must be of kind `want`, and decodes it.
    fn read_record<T: serde::de::DeserializeOwned>(
        &mut self,
        part: &str,
        want: u8,
    ) -> Result<T, RecordError> {
        let at = self.offset;
        let kind = self.read_kind()?;
        let Some(kind) = kind else {
            return Err(self.corrupt(format!(
                "{part}: the file ends at byte {at}, before the record"
            )));
        };
        self.read_body(part, want, kind, at)
    }

    fn read_body<T: serde::de::DeserializeOwned>(
        &mut self,
        part: &str,
        want: u8,
        kind: u8,
        at: u64,
    ) -> Result<T, RecordError> {
        if kind != want {
            return Err(self.corrupt(format!(
                "{part}: record kind {} at byte {at}, expected {}",
                kind_name(kind),
                kind_name(want)
            )));
        }
        let mut len = [0u8; 8];
        let io = |source| RecordError::Io {
            name: self.name.clone(),
            source,
        };
        let got = read_full(&mut self.r, &mut len).map_err(io)?;
        if got < 8 {
            return Err(self.corrupt(format!(
                "{part}: the file ends inside the record's length (byte {})",
                at + 1 + got as u64
            )));
        }
        let len = u64::from_le_bytes(len);
        if len > MAX_RECORD_BYTES {
            return Err(RecordError::TooLarge {
                name: self.name.clone(),
                part: format!("{part} (at byte {at})"),
                bytes: len,
            });
        }
        // Grows as bytes arrive: a corrupt length costs no more than the
        // bytes the file has.
        let mut body = Vec::new();
        (&mut self.r)
            .take(len)
            .read_to_end(&mut body)
            .map_err(|source| RecordError::Io {
                name: self.name.clone(),
                source,
            })?;
        if (body.len() as u64) < len {
            return Err(self.corrupt(format!(
                "{part}: the file ends inside the record at byte {at} ({} of its {len} bytes)",
                body.len()
            )));
        }
        let mut sum = [0u8; 8];
        let got = read_full(&mut self.r, &mut sum).map_err(|source| RecordError::Io {
            name: self.name.clone(),
            source,
        })?;
        if got < 8 {
            return Err(self.corrupt(format!(
                "{part}: the file ends inside the record's checksum (byte {})",
                at + 9 + len + got as u64
            )));
        }
        let (found, want) = (u64::from_le_bytes(sum), checksum(kind, &body));
        if found != want {
            return Err(self.corrupt(format!(
                "{part} (record at byte {at}): checksum {found:#018x} where its bytes give {want:#018x}: the record is damaged"
            )));
        }
        self.offset = at + 17 + len;
        let (v, used): (T, usize) = bincode::serde::decode_from_slice(&body, config())
            .map_err(|e| self.corrupt(format!("{part} (record at byte {at}): {e}")))?;
        if used as u64 != len {
            return Err(self.corrupt(format!(
                "{part} (record at byte {at}): {} bytes after its end inside the record",
                len - used as u64
            )));
        }
        Ok(v)
    }

    /// The next warp in grid order, checked.
    pub fn next_warp(&mut self) -> Result<RecWarp, RecordError> {
        let i = self.next;
        let part = format!("warps[{i}]");
        if i >= self.total {
            // Asked past the grid (a defect of the caller).
            return Err(self.count_error(i + 1));
        }
        let at = self.offset;
        let kind = self.read_kind()?;
        if kind == Some(TRAILER) {
            // The trailer came early: fewer warps than the grid's.
            return Err(self.count_error(i));
        }
        let Some(kind) = kind else {
            return Err(self.corrupt(format!(
                "{part}: the file ends at byte {at}, before the record"
            )));
        };
        let w: RecWarp = self.read_body(&part, WARP, kind, at)?;
        validate_warp(i, &w, self.per_block, self.threads).map_err(|m| self.invalid(m))?;
        if let Some(flow) = &self.flow {
            flow.check(&w)
                .map_err(|m| self.invalid(format!("{part}.{m}")))?;
        }
        self.next += 1;
        Ok(w)
    }

    /// After the last warp: the trailer, checked, and the file's end.
    /// Returns the header and the trailer.
    pub fn finish(mut self) -> Result<(RecHeader, RecTrailer), RecordError> {
        if self.next != self.total {
            return Err(self.count_error(self.next));
        }
        let at = self.offset;
        let kind = self.read_kind()?;
        let t: RecTrailer = match kind {
            Some(WARP) => {
                // One warp record more: count them all for the message.
                let mut extra = 0u64;
                let mut kind = kind;
                while kind == Some(WARP) {
                    let (at, part) = (self.offset, format!("warps[{}]", self.total + extra));
                    let _: RecWarp = self.read_body(&part, WARP, WARP, at)?;
                    extra += 1;
                    kind = self.read_kind()?;
                }
                return Err(self.count_error(self.total + extra));
            }
            None => {
                return Err(self.corrupt(format!(
                    "trailer: the file ends at byte {at}, before the record"
                )))
            }
            Some(k) => self.read_body("trailer", TRAILER, k, at)?,
        };
        self.header
            .validate_trailer(&t)
            .map_err(|m| self.invalid(m))?;
        let rest =
            std::io::copy(&mut self.r, &mut std::io::sink()).map_err(|source| RecordError::Io {
                name: self.name.clone(),
                source,
            })?;
        if rest > 0 {
            return Err(self.corrupt(format!("{rest} bytes after the recording's end")));
        }
        Ok((self.header, t))
    }
}

/// A record's checksum: FNV-1a (64-bit) over its kind byte, its length
/// (little-endian `u64`) and its payload. Each byte's step is a bijection
/// of the state, so any one damaged byte always changes it; for more,
/// it differs but for a chance of 2^-64.
pub(super) fn checksum(kind: u8, body: &[u8]) -> u64 {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let len = (body.len() as u64).to_le_bytes();
    let bytes = std::iter::once(&kind).chain(&len).chain(body);
    bytes.fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(PRIME)
    })
}

fn kind_name(k: u8) -> String {
    match k {
        HEADER => "H (header)".into(),
        WARP => "W (warp)".into(),
        TRAILER => "T (trailer)".into(),
        k => format!("{k:#04x} (none of H, W, T)"),
    }
}

/// A header that holds nothing (before the file's is read).
fn placeholder_header() -> RecHeader {
    RecHeader {
        module_name: String::new(),
        module: String::new(),
        entry: String::new(),
        grid: [1; 3],
        block: [1; 3],
        target: String::new(),
        sms: 1,
        buffers: Vec::new(),
        params: Vec::new(),
        registers: None,
        dynamic_shared: 0,
        h100: None,
    }
}

// sim-trace's `binfmt::read_full` again: sim-kernel does not depend on
// sim-trace (ARCHITECTURE.md's crate graph), and ten lines earn no edge.
/// Reads into `buf` until it is full or the input ends; returns the bytes
/// read.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}
