//! The binary trace: a magic, a format version, then length-prefixed,
//! CRC32-checked chunks each holding one bincode-encoded [`Record`].
//! See `docs/trace-format.md` for the layout.

use crate::limits::{self, MAX_CHUNK};
use crate::program::ProgramBuilder;
use crate::stream::{Stream, StreamOp};
use crate::trace::{check_version, is_ptx_identifier, ExpectRec, Trace, ValueRec, WarpRec};
use serde::{Deserialize, Serialize};
use sim_isa::{PtxVersion, Target, Type};
use std::io::{Read, Write};
use std::sync::Arc;

/// First eight bytes of every trace.
pub const MAGIC: [u8; 8] = *b"SIMTRACE";
/// The format version this code writes and the newest it reads.
pub const FORMAT_VERSION: u32 = 1;

fn config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<MAX_CHUNK>()
}

/// One chunk's payload. Records appear in the order of the variants; lists
/// may be split over several consecutive chunks of the same kind.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Record {
    /// First record: the target and the sizes of what follows.
    Header {
        /// `sm_XY[a|f]`.
        target: String,
        /// `X.Y`, when the kernel text had `.version`.
        version: Option<String>,
        /// Registers declared.
        regs: u32,
        /// Static instructions.
        insts: u32,
        /// Distinct streams.
        streams: u32,
        /// Warps launched.
        warps: u32,
    },
    /// Register declarations `(name, type)`, in id order.
    Regs(Vec<(String, String)>),
    /// Static instructions as canonical PTX text, in index order.
    Insts(Vec<String>),
    /// Ops of stream `id`; consecutive records with the same id concatenate.
    Stream {
        /// Stream index: the previous record's, or one more.
        id: u32,
        /// The ops.
        ops: Vec<StreamOp>,
    },
    /// Warps, in warp-id order.
    Launch(Vec<WarpRec>),
    /// Recorded per-lane values of non-executed instructions.
    Values(Vec<ValueRec>),
    /// Expected final register values.
    Expects(Vec<ExpectRec>),
    /// Last record: the number of chunks before it.
    End {
        /// Chunks before this one (header chunk included).
        chunks: u64,
    },
}

impl Record {
    /// A list record with no items.
    fn is_empty_list(&self) -> bool {
        match self {
            Record::Regs(l) => l.is_empty(),
            Record::Insts(l) => l.is_empty(),
            Record::Stream { ops, .. } => ops.is_empty(),
            Record::Launch(l) => l.is_empty(),
            Record::Values(l) => l.is_empty(),
            Record::Expects(l) => l.is_empty(),
            Record::Header { .. } | Record::End { .. } => false,
        }
    }

    fn phase(&self) -> u8 {
        match self {
            Record::Header { .. } => 0,
            Record::Regs(_) => 1,
            Record::Insts(_) => 2,
            Record::Stream { .. } => 3,
            Record::Launch(_) => 4,
            Record::Values(_) => 5,
            Record::Expects(_) => 6,
            Record::End { .. } => 7,
        }
    }
}

/// Why a trace could not be read.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The OS said no.
    #[error("read error: {0}")]
    Io(#[from] std::io::Error),
    /// Not a trace at all.
    #[error("not a simcli trace: bad magic {found:02x?} (expected \"SIMTRACE\")")]
    BadMagic {
        /// The first bytes found.
        found: Vec<u8>,
    },
    /// Written by a newer simcli.
    #[error("trace format version {found} is newer than this simcli supports (version {supported}); use a newer simcli")]
    FutureVersion {
        /// Version in the file.
        found: u32,
        /// Newest this build reads.
        supported: u32,
    },
    /// The file ends early.
    #[error("truncated trace: {what} at byte {offset}")]
    Truncated {
        /// What was missing.
        what: &'static str,
        /// Where the file ended.
        offset: u64,
    },
    /// A chunk claims more bytes than any valid chunk holds.
    #[error("corrupt trace: chunk {chunk} at byte {offset} claims {len} bytes (limit {max})")]
    ChunkTooLarge {
        /// Chunk number (0 = header record).
        chunk: u64,
        /// Its offset.
        offset: u64,
        /// Claimed length.
        len: u64,
        /// The limit.
        max: usize,
    },
    /// Checksum mismatch.
    #[error("corrupt trace: checksum mismatch in chunk {chunk} at byte {offset}")]
    Checksum {
        /// Chunk number.
        chunk: u64,
        /// Its offset.
        offset: u64,
    },
    /// The payload decoded to nonsense or broke a rule of the format.
    #[error("corrupt trace: chunk {chunk} at byte {offset}: {msg}")]
    Invalid {
        /// Chunk number.
        chunk: u64,
        /// Its offset.
        offset: u64,
        /// What is wrong.
        msg: String,
    },
    /// A chunk would exceed the size limit when writing.
    #[error("cannot write trace: {0}")]
    Write(String),
}

/// Items per chunk, chosen so a chunk of worst-case items stays well under
/// [`MAX_CHUNK`]; the writer checks the encoded size anyway.
const REGS_PER_CHUNK: usize = 1024; // names <= 256 bytes
const INSTS_PER_CHUNK: usize = 1024; // canonical text is short
const OPS_PER_CHUNK: usize = 16384; // <= 21 bytes each
const WARPS_PER_CHUNK: usize = 16384; // <= 10 bytes each
const VALUES_PER_CHUNK: usize = 512; // <= 32 * 10 + 30 bytes each

/// Writes `trace` in the binary format. A trace the reader would refuse
/// ([`Trace::validate`]) is refused before anything is written.
pub fn write_trace<W: Write>(trace: &Trace, mut w: W) -> Result<(), TraceError> {
    trace.validate().map_err(TraceError::Write)?;
    w.write_all(&MAGIC)?;
    w.write_all(&FORMAT_VERSION.to_le_bytes())?;
    let mut chunks: u64 = 0;
    let mut put = |w: &mut W, r: &Record| put_chunk(w, r, &mut chunks);
    write_records(trace, &mut w, &mut put)?;
    put_chunk(&mut w, &Record::End { chunks }, &mut 0)?;
    w.flush()?;
    Ok(())
}

fn put_chunk<W: Write>(w: &mut W, r: &Record, chunks: &mut u64) -> Result<(), TraceError> {
    {
        let payload = bincode::serde::encode_to_vec(r, config())
            .map_err(|e| TraceError::Write(e.to_string()))?;
        if payload.len() > MAX_CHUNK {
            return Err(TraceError::Write(format!(
                "record of {} bytes exceeds the chunk limit",
                payload.len()
            )));
        }
        let len = (payload.len() as u32).to_le_bytes();
        let mut h = crc32fast::Hasher::new();
        h.update(&len);
        h.update(&payload);
        w.write_all(&len)?;
        w.write_all(&h.finalize().to_le_bytes())?;
        w.write_all(&payload)?;
        *chunks += 1;
        Ok(())
    }
}

fn write_records<W: Write>(
    trace: &Trace,
    w: &mut W,
    put: &mut dyn FnMut(&mut W, &Record) -> Result<(), TraceError>,
) -> Result<(), TraceError> {
    put(
        w,
        &Record::Header {
            target: trace.target.to_string(),
            version: trace.version.map(|v| v.to_string()),
            regs: trace.nregs() as u32,
            insts: trace.insts.len() as u32,
            streams: trace.streams.len() as u32,
            warps: trace.warps.len() as u32,
        },
    )?;
    let regs: Vec<(String, String)> = (0..trace.nregs() as u32)
        .map(|r| {
            (
                trace.reg_name(r).to_string(),
                trace.reg_type(r).name().to_string(),
            )
        })
        .collect();
    for c in regs.chunks(REGS_PER_CHUNK) {
        put(w, &Record::Regs(c.to_vec()))?;
    }
    for c in trace.texts.chunks(INSTS_PER_CHUNK) {
        put(w, &Record::Insts(c.to_vec()))?;
    }
    for (id, s) in trace.streams.iter().enumerate() {
        for c in s.ops().chunks(OPS_PER_CHUNK) {
            put(
                w,
                &Record::Stream {
                    id: id as u32,
                    ops: c.to_vec(),
                },
            )?;
        }
    }
    for c in trace.warps.chunks(WARPS_PER_CHUNK) {
        put(w, &Record::Launch(c.to_vec()))?;
    }
    for c in trace.values.chunks(VALUES_PER_CHUNK) {
        put(w, &Record::Values(c.to_vec()))?;
    }
    for c in trace.expects.chunks(VALUES_PER_CHUNK) {
        put(w, &Record::Expects(c.to_vec()))?;
    }
    Ok(())
}

/// Encodes `trace` into a byte vector.
pub fn to_bytes(trace: &Trace) -> Result<Vec<u8>, TraceError> {
    let mut v = Vec::new();
    write_trace(trace, &mut v)?;
    Ok(v)
}

/// Reads up to `buf.len()` bytes, fewer only at the end of input; returns
/// how many.
pub(crate) fn read_full<R: Read>(r: &mut R, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// Whether `bytes` starts like a binary trace (used to tell `.bin` from kernel text).
pub fn looks_binary(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

/// Reads a trace, chunk by chunk, in memory bounded by [`MAX_CHUNK`] plus the
/// decoded trace itself (whose parts are capped by [`crate::limits`]).
pub fn read_trace<R: Read>(mut r: R) -> Result<Trace, TraceError> {
    let mut head = [0u8; 12];
    let got = read_full(&mut r, &mut head)?;
    if got < 8 || head[..8] != MAGIC {
        if head[..got.min(8)] == MAGIC[..got.min(8)] && got > 0 {
            return Err(TraceError::Truncated {
                what: "file ends inside the magic",
                offset: got as u64,
            });
        }
        return Err(TraceError::BadMagic {
            found: head[..got.min(8)].to_vec(),
        });
    }
    if got < 12 {
        return Err(TraceError::Truncated {
            what: "file ends inside the format version",
            offset: got as u64,
        });
    }
    let version = u32::from_le_bytes([head[8], head[9], head[10], head[11]]);
    if version > FORMAT_VERSION {
        return Err(TraceError::FutureVersion {
            found: version,
            supported: FORMAT_VERSION,
        });
    }
    if version == 0 {
        return Err(TraceError::Invalid {
            chunk: 0,
            offset: 8,
            msg: "format version 0 does not exist".into(),
        });
    }
    let mut st = Builder::default();
    let mut offset: u64 = 12;
    let mut chunk: u64 = 0;
    let mut buf = Vec::new();
    loop {
        let at = offset;
        let mut hdr = [0u8; 8];
        let n = read_full(&mut r, &mut hdr)?;
        if n < 8 {
            return Err(TraceError::Truncated {
                what: if n == 0 {
                    "missing end record"
                } else {
                    "file ends inside a chunk header"
                },
                offset: at + n as u64,
            });
        }
        let len = u32::from_le_bytes([hdr[0], hdr[1], hdr[2], hdr[3]]) as u64;
        let crc = u32::from_le_bytes([hdr[4], hdr[5], hdr[6], hdr[7]]);
        if len > MAX_CHUNK as u64 {
            return Err(TraceError::ChunkTooLarge {
                chunk,
                offset: at,
                len,
                max: MAX_CHUNK,
            });
        }
        buf.resize(len as usize, 0);
        let n = read_full(&mut r, &mut buf)?;
        if n < buf.len() {
            return Err(TraceError::Truncated {
                what: "file ends inside a chunk",
                offset: at + 8 + n as u64,
            });
        }
        let mut h = crc32fast::Hasher::new();
        h.update(&hdr[..4]);
        h.update(&buf);
        if h.finalize() != crc {
            return Err(TraceError::Checksum { chunk, offset: at });
        }
        let bad = |msg: String| TraceError::Invalid {
            chunk,
            offset: at,
            msg,
        };
        let (rec, used): (Record, usize) = bincode::serde::decode_from_slice(&buf, config())
            .map_err(|e| bad(format!("undecodable record: {e}")))?;
        if used != buf.len() {
            return Err(bad(format!(
                "{} unused bytes after the record",
                buf.len() - used
            )));
        }
        offset = at + 8 + len;
        if let Record::End { chunks } = rec {
            if chunks != chunk {
                return Err(bad(format!(
                    "end record counts {chunks} chunks but {chunk} were read"
                )));
            }
            let mut extra = [0u8; 1];
            if read_full(&mut r, &mut extra)? != 0 {
                return Err(TraceError::Invalid {
                    chunk: chunk + 1,
                    offset,
                    msg: "data after the end record".into(),
                });
            }
            return st.finish().map_err(bad);
        }
        st.add(rec, chunk == 0).map_err(bad)?;
        chunk += 1;
    }
}

/// Decodes a trace from bytes.
pub fn from_bytes(bytes: &[u8]) -> Result<Trace, TraceError> {
    read_trace(bytes)
}

#[derive(Default)]
struct Builder {
    phase: u8,
    target: Option<Target>,
    version: Option<PtxVersion>,
    want: [u32; 4], // regs, insts, streams, warps
    prog: ProgramBuilder,
    streams: Vec<Vec<StreamOp>>,
    ops_total: usize,
    warps: Vec<WarpRec>,
    values: Vec<ValueRec>,
    expects: Vec<ExpectRec>,
}

impl Builder {
    fn add(&mut self, rec: Record, first: bool) -> Result<(), String> {
        let ph = rec.phase();
        if first != (ph == 0) {
            return Err(if first {
                "the first record is not a header".into()
            } else {
                "a second header record".into()
            });
        }
        if ph < self.phase {
            return Err("records out of order".into());
        }
        if ph > 1 && self.phase <= 1 && self.prog.syms().len() != self.want[0] as usize {
            return Err(format!(
                "header declares {} registers but {} were given",
                self.want[0],
                self.prog.syms().len()
            ));
        }
        if rec.is_empty_list() {
            // The writer never emits one; refusing them bounds the number of
            // chunks by the item limits.
            return Err("empty record".into());
        }
        self.phase = ph;
        match rec {
            Record::Header {
                target,
                version,
                regs,
                insts,
                streams,
                warps,
            } => {
                self.target = Some(Target::parse(&target).map_err(|e| e.to_string())?);
                self.version = match version {
                    Some(v) => {
                        let p = PtxVersion::parse(&v)
                            .ok_or_else(|| format!("invalid PTX version '{v}'"))?;
                        check_version(p)?;
                        Some(p)
                    }
                    None => None,
                };
                for (n, max, what) in [
                    (regs, limits::MAX_REGS, "registers"),
                    (insts, limits::MAX_INSTS, "instructions"),
                    (streams, limits::MAX_STREAMS, "streams"),
                    (warps, limits::MAX_WARPS, "warps"),
                ] {
                    if n as usize > max {
                        return Err(format!("{n} {what} exceed the limit of {max}"));
                    }
                }
                self.want = [regs, insts, streams, warps];
            }
            Record::Regs(list) => {
                for (name, ty) in list {
                    if self.prog.syms().len() >= self.want[0] as usize {
                        return Err("more registers than the header declares".into());
                    }
                    let t = Type::from_name(&ty)
                        .ok_or_else(|| format!("unknown register type '{ty}'"))?;
                    let token = sim_isa::carry::is_hidden_register(&name);
                    if name.len() > limits::MAX_NAME || !(is_ptx_identifier(&name) || token) {
                        return Err(format!("register name {name:?} is not a PTX identifier"));
                    }
                    self.prog
                        .syms_mut()
                        .declare(&name, t)
                        .ok_or_else(|| format!("register '{name}' declared twice"))?;
                }
            }
            Record::Insts(list) => {
                for text in list {
                    let n = self.prog.len();
                    if n >= self.want[1] as usize {
                        return Err("more instructions than the header declares".into());
                    }
                    self.prog
                        .parse(&text)
                        .and_then(|inst| self.prog.append(inst, 0))
                        .map_err(|e| format!("instruction {n} '{text}': {e}"))?;
                }
            }
            Record::Stream { id, ops } => {
                let cur = self.streams.len();
                if id as usize + 1 == cur {
                    // continuation
                } else if id as usize == cur && cur < self.want[2] as usize {
                    self.streams.push(Vec::new());
                } else {
                    return Err(format!("stream {id} out of sequence"));
                }
                self.ops_total += ops.len();
                if self.ops_total > limits::MAX_STREAM_OPS {
                    return Err(format!("more than {} stream ops", limits::MAX_STREAM_OPS));
                }
                self.streams[id as usize].extend(ops);
            }
            Record::Launch(list) => {
                if self.warps.len() + list.len() > self.want[3] as usize {
                    return Err("more warps than the header declares".into());
                }
                self.warps.extend(list);
            }
            Record::Values(list) => {
                if self.values.len() + self.expects.len() + list.len() > limits::MAX_VALUE_RECORDS {
                    return Err("too many value records".into());
                }
                self.values.extend(list);
            }
            Record::Expects(list) => {
                if self.values.len() + self.expects.len() + list.len() > limits::MAX_VALUE_RECORDS {
                    return Err("too many value records".into());
                }
                self.expects.extend(list);
            }
            // The reader stops at the End record before handing it here.
            Record::End { .. } => return Err("an end record out of place".into()),
        }
        Ok(())
    }

    fn finish(self) -> Result<Trace, String> {
        let target = self.target.ok_or("no header record")?;
        let prog = self.prog.finish();
        let counts = [
            prog.syms.len(),
            prog.insts.len(),
            self.streams.len(),
            self.warps.len(),
        ];
        for ((got, want), what) in
            counts
                .iter()
                .zip(self.want)
                .zip(["registers", "instructions", "streams", "warps"])
        {
            if *got != want as usize {
                return Err(format!(
                    "header declares {want} {what} but {got} were given"
                ));
            }
        }
        let n = prog.insts.len();
        let streams = self
            .streams
            .into_iter()
            .enumerate()
            .map(|(i, ops)| {
                Stream::new(ops, n)
                    .map(Arc::new)
                    .map_err(|e| format!("stream {i}: {e}"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut trace = Trace::new(target, self.version, prog);
        trace.streams = streams;
        trace.warps = self.warps;
        trace.values = self.values;
        trace.expects = self.expects;
        trace.validate()?;
        Ok(trace)
    }
}
