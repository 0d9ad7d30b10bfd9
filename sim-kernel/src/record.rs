//! Kernel recordings (`simcli record`, docs/kernel-trace.md): what a launch
//! executed, in a file a host simulator or `simcli run` can consume without
//! the launch's memory image. A recording holds the module text, the entry,
//! the geometry and arguments, each warp's dynamic steps (statement and
//! lanes), each memory instruction's per-lane addresses, the values its
//! loads returned, the clock values it read, and the initial and final bytes
//! of the output buffers.
//!
//! Recordings stream: [`record_launch`] writes each warp as soon as it and
//! every warp before it in grid order have finished ([`RecordWriter`]), and
//! [`replay_stream`] reads each warp as the engine makes its block resident
//! ([`RecordReader`]), so neither holds more than the warps of about the
//! resident blocks (plus the launch's buffers), however long the launch.
//! [`Recording`] is the whole file in memory, for tools and tests.
//!
//! [`replay_stream`] runs a recording on the engine ([`crate::engine`]) as
//! a launch runs: each warp follows its recorded steps, with every load
//! answered from the record (the outputs are computed again, not copied),
//! and the addresses checked against the recorded ones; the timing is the
//! direct run's.
//!
//! File layout (version 4): [`MAGIC`], the format version as a
//! little-endian `u32` ([`VERSION`]), then records, each a kind byte
//! (`H`, `W`, `T`), its payload's length as a little-endian `u64` (at most
//! [`MAX_RECORD_BYTES`]), the payload encoded with bincode 2 (standard
//! configuration: variable-length integers) and a checksum of the three (a
//! little-endian `u64`, `read::checksum`): one header ([`RecHeader`]),
//! one [`RecWarp`] per warp of the grid in grid order (block by block, warps
//! in block order), one trailer ([`RecTrailer`]), and nothing after it.
//! Reading refuses other magics and versions, records over the limit,
//! truncated, corrupt or trailing bytes, and recordings that do not hold
//! together (checked by [`RecHeader::validate`], per warp as it is read,
//! and during replay), each with a message naming the file and the part.
//! Versions 1 (one bincode body), 2 (no checksums) and 3 (no dynamic
//! shared memory, fewer parameter types) are no longer read.

use crate::engine::Warps;
use crate::error::KernelError;
pub use crate::rec::{RecAccess, RecSpace, RecWarp};
use crate::run::{LaunchRun, RunError, RunOptions};
use crate::Mismatch;
use serde::{Deserialize, Serialize};

use sim_isa::{Target, WARP_SIZE};
use sim_module::launch::{
    Buffer, BufferInit, ParamValue, H100, MAX_BLOCK_THREADS, MAX_BUFFER_BYTES, MAX_ENTRIES,
    MAX_GRID_BLOCKS, MAX_PARAM_BYTES, MAX_TOTAL_BYTES,
};
use sim_module::{Launch, LaunchError, ModuleError};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// First bytes of a recording.
pub const MAGIC: [u8; 8] = *b"SIMKREC\n";
/// Format version this build writes and reads.
pub const VERSION: u32 = 4;
/// Largest record payload (header, warp or trailer) written or read, in
/// bytes: a reader never holds more than one record's bytes at a time.
pub const MAX_RECORD_BYTES: u64 = 1 << 30;
/// Bincode's decode limit: most bytes a decoded record may claim.
const DECODE_LIMIT: usize = 8 << 30;

/// The kind byte of the header record.
const HEADER: u8 = b'H';
/// The kind byte of a warp record.
const WARP: u8 = b'W';
/// The kind byte of the trailer record.
const TRAILER: u8 = b'T';

fn config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<DECODE_LIMIT>()
}

/// A recording that could not be written, read or replayed.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The file could not be read or written.
    #[error("{name}: {source}")]
    Io {
        /// The file.
        name: String,
        /// Why.
        source: std::io::Error,
    },
    /// A record is longer than [`MAX_RECORD_BYTES`].
    #[error("{name}: {part}: a record of {bytes} bytes, more than the limit of {MAX_RECORD_BYTES}; refusing to read it")]
    TooLarge {
        /// The file.
        name: String,
        /// The record (`header`, `warps[N]`, `trailer`).
        part: String,
        /// Its length as the file states it.
        bytes: u64,
    },
    /// The file does not start with [`MAGIC`].
    #[error("{name}: not a kernel recording (no SIMKREC header)")]
    NotRecording {
        /// The file.
        name: String,
    },
    /// Another format version.
    #[error("{name}: kernel recording version {found}; this simcli reads version {VERSION}")]
    Version {
        /// The file.
        name: String,
        /// Its version.
        found: u32,
    },
    /// A record does not decode (truncated or corrupt).
    #[error("{name}: corrupt or truncated kernel recording: {msg}")]
    Decode {
        /// The file.
        name: String,
        /// The part and what is wrong (bincode's message).
        msg: String,
    },
    /// The recording decodes but does not hold together.
    #[error("{name}: invalid kernel recording: {msg}")]
    Invalid {
        /// The file.
        name: String,
        /// What is wrong, naming the part.
        msg: String,
    },
    /// The launch's buffers could not be read (when recording).
    #[error("{0}")]
    Launch(#[from] LaunchError),
    /// The module could not be read (when recording).
    #[error("{path}: {source}")]
    Module {
        /// The module file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The launch file could not be read (when recording).
    #[error(transparent)]
    Run(#[from] RunError),
    /// The recorded module does not parse.
    #[error(transparent)]
    Parse(#[from] ModuleError),
    /// Preparing, timing or executing stopped.
    #[error(transparent)]
    Kernel(#[from] KernelError),
    /// Encoding failed.
    #[error("encoding the recording: {0}")]
    Encode(String),
}

// A field list alike in shape to other records' (issue 27): the
// recording's own format, nothing to share.
/// What a recording states before its warps: everything but the warps,
/// the cycles and the outputs' final bytes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecHeader {
    /// The module's file name as errors name it.
    pub module_name: String,
    /// The module text.
    pub module: String,
    /// The `.entry` launched.
    pub entry: String,
    /// Blocks per grid, x/y/z.
    pub grid: [u32; 3],
    /// Threads per block, x/y/z.
    pub block: [u32; 3],
    /// The target whose semantics executed (`sm_90`).
    pub target: String,
    /// SMs of the recorded run (`%smid`/`%nsmid` values).
    pub sms: u32,
    /// Global buffers in launch-file order.
    pub buffers: Vec<RecBuffer>,
    /// Kernel arguments in `.param` order.
    pub params: Vec<RecParam>,
    /// Registers a thread, if the launch file stated them.
    pub registers: Option<u32>,
    /// Bytes of dynamic shared memory per block.
    pub dynamic_shared: u32,
    /// The launch file's H100 figures, if any.
    pub h100: Option<RecH100>,
}

/// A global buffer: its size, and for an output its initial bytes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecBuffer {
    /// Its name in the launch file.
    pub name: String,
    /// Size in bytes.
    pub bytes: u64,
    /// For an output: the bytes before the kernel (its final bytes are in
    /// the trailer).
    pub initial: Option<Vec<u8>>,
}

/// What a recording states after its warps.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecTrailer {
    /// Cycles of the recorded run (informational).
    pub cycles: u64,
    /// The final bytes of each output buffer (those with initial bytes in
    /// the header), in buffer order.
    pub outputs: Vec<Vec<u8>>,
}

// `ParamValue`'s variants again, as `RecSpace` repeats `Space`'s: the
// recording's format stays put when the launch file's changes. The two
// conversions below list every variant each way (exhaustive, no wildcard).
/// A kernel argument.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RecParam {
    /// The address of buffer `.0`.
    Buffer(u32),
    /// `.u32`.
    U32(u32),
    /// `.s32`.
    S32(i32),
    /// `.u64`.
    U64(u64),
    /// `.s64`.
    S64(i64),
    /// `.f32`, as its bits.
    F32(u32),
    /// `.u8`.
    U8(u8),
    /// `.s8`.
    S8(i8),
    /// `.u16`.
    U16(u16),
    /// `.s16`.
    S16(i16),
    /// `.f64`, as its bits.
    F64(u64),
    /// Untyped bits and their bytes (`b8` ... `b64`).
    Bits(u64, u8),
    /// Bytes as they are (a by-value struct).
    Bytes(Vec<u8>),
}

/// The H100's figures of the launch file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecH100 {
    /// `cycles_cold`.
    pub cycles_cold: Option<u64>,
    /// `cycles_warm`.
    pub cycles_warm: Option<u64>,
    /// `warps`.
    pub warps: Option<u32>,
}

/// One recorded launch, whole in memory (tools and tests: memory grows
/// with the launch; [`RecordReader`] and [`RecordWriter`] stream).
#[derive(Clone, Debug, PartialEq)]
pub struct Recording {
    /// Everything before the warps.
    pub header: RecHeader,
    /// Every warp, block by block, warps in block order.
    pub warps: Vec<RecWarp>,
    /// Cycles and the outputs' final bytes.
    pub trailer: RecTrailer,
}

impl RecHeader {
    /// The header of `launch` (its module `module_name` holding `module`,
    /// its buffers' initial bytes `initial`) run with `opts`.
    pub fn new(
        launch: &Launch,
        module_name: &str,
        module: &str,
        initial: &[Vec<u8>],
        opts: &RunOptions,
    ) -> RecHeader {
        let buffers = launch
            .buffers
            .iter()
            .enumerate()
            .map(|(i, b)| RecBuffer {
                name: b.name.clone(),
                bytes: b.bytes,
                initial: launch
                    .outputs
                    .contains(&i)
                    .then(|| initial.get(i).cloned().unwrap_or_default()),
            })
            .collect();
        let params = launch
            .params
            .iter()
            .map(|p| match p {
                ParamValue::Buffer(b) => RecParam::Buffer(*b as u32),
                ParamValue::U8(x) => RecParam::U8(*x),
                ParamValue::S8(x) => RecParam::S8(*x),
                ParamValue::U16(x) => RecParam::U16(*x),
                ParamValue::S16(x) => RecParam::S16(*x),
                ParamValue::U32(x) => RecParam::U32(*x),
                ParamValue::S32(x) => RecParam::S32(*x),
                ParamValue::U64(x) => RecParam::U64(*x),
                ParamValue::S64(x) => RecParam::S64(*x),
                ParamValue::F32(x) => RecParam::F32(x.to_bits()),
                ParamValue::F64(x) => RecParam::F64(x.to_bits()),
                ParamValue::Bits(x, n) => RecParam::Bits(*x, *n),
                ParamValue::Bytes(b) => RecParam::Bytes(b.clone()),
            })
            .collect();
        RecHeader {
            module_name: module_name.to_string(),
            module: module.to_string(),
            entry: launch.entry.clone(),
            grid: launch.grid,
            block: launch.block,
            target: opts.config.target.to_string(),
            sms: opts.sms,
            buffers,
            params,
            registers: launch.registers,
            dynamic_shared: launch.dynamic_shared,
            h100: launch.h100.as_ref().map(|h| RecH100 {
                cycles_cold: h.cycles_cold,
                cycles_warm: h.cycles_warm,
                warps: h.warps,
            }),
        }
    }

    /// Blocks in the grid.
    pub fn blocks(&self) -> u64 {
        self.grid.iter().map(|&d| u64::from(d)).product()
    }

    /// Threads per block.
    pub fn threads(&self) -> u64 {
        self.block.iter().map(|&d| u64::from(d)).product()
    }

    /// Warps per block.
    pub fn warps_per_block(&self) -> u64 {
        self.threads().div_ceil(WARP_SIZE as u64)
    }

    /// Warps in the grid: the warp records the file holds.
    pub fn warps(&self) -> u64 {
        self.blocks() * self.warps_per_block()
    }

    /// Indices of the output buffers.
    pub fn outputs(&self) -> Vec<usize> {
        (0..self.buffers.len())
            .filter(|&i| self.buffers[i].initial.is_some())
            .collect()
    }

    /// Checks what can be checked without the module: target, geometry,
    /// buffers and arguments. Warps are checked as they are read
    /// (statement indices against the module when replaying).
    pub fn validate(&self) -> Result<(), String> {
        Target::parse(&self.target).map_err(|e| format!("target: {e}"))?;
        if self.sms == 0 || self.sms > 4096 {
            return Err(format!("sms: {} is not 1 to 4096", self.sms));
        }
        let (blocks, threads) = (self.blocks(), self.threads());
        if self.grid.contains(&0) || blocks > MAX_GRID_BLOCKS {
            return Err(format!(
                "grid {:?}: each at least 1, at most {MAX_GRID_BLOCKS} blocks",
                self.grid
            ));
        }
        if self.block.contains(&0) || threads > MAX_BLOCK_THREADS {
            return Err(format!(
                "block {:?}: each at least 1, at most {MAX_BLOCK_THREADS} threads",
                self.block
            ));
        }
        if self.buffers.len() > MAX_ENTRIES || self.params.len() > MAX_ENTRIES {
            return Err(format!("more than {MAX_ENTRIES} buffers or parameters"));
        }
        let mut total = 0u64;
        for b in &self.buffers {
            if b.bytes > MAX_BUFFER_BYTES {
                return Err(format!(
                    "buffer '{}': {} bytes, more than {MAX_BUFFER_BYTES}",
                    b.name, b.bytes
                ));
            }
            total += b.bytes;
            if let Some(i) = &b.initial {
                if i.len() as u64 != b.bytes {
                    return Err(format!(
                        "buffer '{}': {} bytes, but its recorded initial contents are {} bytes",
                        b.name,
                        b.bytes,
                        i.len()
                    ));
                }
            }
        }
        if total > MAX_TOTAL_BYTES {
            return Err(format!("buffers exceed {MAX_TOTAL_BYTES} bytes in all"));
        }
        for (k, p) in self.params.iter().enumerate() {
            match p {
                RecParam::Buffer(b) if *b as usize >= self.buffers.len() => {
                    return Err(format!("params[{k}]: buffer {b} does not exist"));
                }
                RecParam::Bits(_, n) if ![1, 2, 4, 8].contains(n) => {
                    return Err(format!("params[{k}]: bits of {n} bytes (1, 2, 4 or 8)"));
                }
                RecParam::Bytes(b) if b.is_empty() || b.len() > MAX_PARAM_BYTES => {
                    return Err(format!(
                        "params[{k}]: {} bytes (1 to {MAX_PARAM_BYTES})",
                        b.len()
                    ));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Checks a trailer against this header: one final content per output
    /// buffer, each of the buffer's size.
    pub fn validate_trailer(&self, t: &RecTrailer) -> Result<(), String> {
        let outs = self.outputs();
        if t.outputs.len() != outs.len() {
            return Err(format!(
                "trailer: {} final buffer contents, but the header names {} output buffers",
                t.outputs.len(),
                outs.len()
            ));
        }
        for (&i, f) in outs.iter().zip(&t.outputs) {
            let b = &self.buffers[i];
            if f.len() as u64 != b.bytes {
                return Err(format!(
                    "trailer: buffer '{}': {} bytes, but its recorded final contents are {} bytes",
                    b.name,
                    b.bytes,
                    f.len()
                ));
            }
        }
        Ok(())
    }

    /// The launch this recording ran (buffers zero-filled: their contents
    /// are not recorded).
    pub fn launch(&self) -> Launch {
        Launch {
            ptx: PathBuf::from(&self.module_name),
            entry: self.entry.clone(),
            grid: self.grid,
            block: self.block,
            buffers: self
                .buffers
                .iter()
                .map(|b| Buffer {
                    name: b.name.clone(),
                    bytes: b.bytes,
                    init: BufferInit::Fill(0),
                })
                .collect(),
            params: self
                .params
                .iter()
                .map(|p| match p {
                    RecParam::Buffer(b) => ParamValue::Buffer(*b as usize),
                    RecParam::U8(x) => ParamValue::U8(*x),
                    RecParam::S8(x) => ParamValue::S8(*x),
                    RecParam::U16(x) => ParamValue::U16(*x),
                    RecParam::S16(x) => ParamValue::S16(*x),
                    RecParam::U32(x) => ParamValue::U32(*x),
                    RecParam::S32(x) => ParamValue::S32(*x),
                    RecParam::U64(x) => ParamValue::U64(*x),
                    RecParam::S64(x) => ParamValue::S64(*x),
                    RecParam::F32(x) => ParamValue::F32(f32::from_bits(*x)),
                    RecParam::F64(x) => ParamValue::F64(f64::from_bits(*x)),
                    RecParam::Bits(x, n) => ParamValue::Bits(*x, *n),
                    RecParam::Bytes(b) => ParamValue::Bytes(b.clone()),
                })
                .collect(),
            outputs: self.outputs(),
            expected: Vec::new(),
            registers: self.registers,
            dynamic_shared: self.dynamic_shared,
            h100: self.h100.as_ref().map(|h| H100 {
                cycles_cold: h.cycles_cold,
                cycles_warm: h.cycles_warm,
                warps: h.warps,
                note: None,
            }),
        }
    }
}

/// Whether `bytes` start like a recording.
pub fn is_recording(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

/// What a [`RecordWriter`] wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WriteStats {
    /// Warps written.
    pub warps: u64,
    /// Load values in them.
    pub loads: u64,
    /// Bytes of the file.
    pub bytes: u64,
    /// Most warps held at once, waiting for an earlier one to finish.
    pub max_pending: usize,
}

/// Writes a recording as the launch runs: the header first, each warp once
/// it and every warp before it in grid order are done (warps finish in any
/// order; a finished warp waits, encoded, until the earlier ones come), and
/// the trailer at the end.
pub struct RecordWriter<W: Write> {
    w: W,
    name: String,
    total: u64,
    per_block: u64,
    threads: u64,
    /// The next warp (grid order) to write.
    next: u64,
    /// Finished warps after `next`, encoded.
    pending: BTreeMap<u64, Vec<u8>>,
    stats: WriteStats,
}

impl<W: Write> RecordWriter<W> {
    /// Starts the recording `name` on `w`: magic, version and `header`
    /// (validated first).
    pub fn new(mut w: W, name: &str, header: &RecHeader) -> Result<RecordWriter<W>, RecordError> {
        header.validate().map_err(|msg| RecordError::Invalid {
            name: name.to_string(),
            msg,
        })?;
        let io = |source| RecordError::Io {
            name: name.to_string(),
            source,
        };
        w.write_all(&MAGIC).map_err(io)?;
        w.write_all(&VERSION.to_le_bytes()).map_err(io)?;
        let mut me = RecordWriter {
            w,
            name: name.to_string(),
            total: header.warps(),
            per_block: header.warps_per_block(),
            threads: header.threads(),
            next: 0,
            pending: BTreeMap::new(),
            stats: WriteStats {
                bytes: 12,
                ..WriteStats::default()
            },
        };
        let body = me.encode("header", header)?;
        me.write_record(HEADER, &body)?;
        Ok(me)
    }

    fn encode(&self, part: &str, v: &impl Serialize) -> Result<Vec<u8>, RecordError> {
        let b = bincode::serde::encode_to_vec(v, config())
            .map_err(|e| RecordError::Encode(format!("{}: {part}: {e}", self.name)))?;
        if b.len() as u64 > MAX_RECORD_BYTES {
            return Err(RecordError::Encode(format!(
                "{}: {part}: {} bytes, more than the limit of {MAX_RECORD_BYTES} per record",
                self.name,
                b.len()
            )));
        }
        Ok(b)
    }

    fn write_record(&mut self, kind: u8, body: &[u8]) -> Result<(), RecordError> {
        let io = |source| RecordError::Io {
            name: self.name.clone(),
            source,
        };
        self.w.write_all(&[kind]).map_err(io)?;
        self.w
            .write_all(&(body.len() as u64).to_le_bytes())
            .map_err(io)?;
        self.w.write_all(body).map_err(io)?;
        let sum = read::checksum(kind, body);
        self.w.write_all(&sum.to_le_bytes()).map_err(io)?;
        self.stats.bytes += 17 + body.len() as u64;
        Ok(())
    }

    /// Takes a finished warp (in any order): writes it if every warp before
    /// it is written, else holds it until they are.
    pub fn push(&mut self, warp: &RecWarp) -> Result<(), RecordError> {
        let i = u64::from(warp.cta) * self.per_block + u64::from(warp.warp);
        let bad = |msg: String| RecordError::Encode(format!("{}: {msg}", self.name));
        if u64::from(warp.warp) >= self.per_block || i >= self.total {
            return Err(bad(format!(
                "block {} warp {} is not a warp of the grid",
                warp.cta, warp.warp
            )));
        }
        if i < self.next || self.pending.contains_key(&i) {
            return Err(bad(format!(
                "block {} warp {} finished twice",
                warp.cta, warp.warp
            )));
        }
        validate_warp(i, warp, self.per_block, self.threads).map_err(bad)?;
        let body = self.encode(&format!("warps[{i}]"), warp)?;
        self.stats.loads += warp.loads.len() as u64;
        if i != self.next {
            self.pending.insert(i, body);
            self.stats.max_pending = self.stats.max_pending.max(self.pending.len());
            return Ok(());
        }
        self.write_record(WARP, &body)?;
        self.next += 1;
        while let Some(b) = self.pending.remove(&self.next) {
            self.write_record(WARP, &b)?;
            self.next += 1;
        }
        self.stats.warps = self.next;
        Ok(())
    }

    /// Warps held now, waiting for an earlier one.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Writes the trailer once every warp is written; returns the writer
    /// (flushed) and what was written.
    pub fn finish(mut self, trailer: &RecTrailer) -> Result<(W, WriteStats), RecordError> {
        if self.next != self.total {
            return Err(RecordError::Encode(format!(
                "{}: {} of the grid's {} warps finished",
                self.name,
                self.next + self.pending.len() as u64,
                self.total
            )));
        }
        let body = self.encode("trailer", trailer)?;
        self.write_record(TRAILER, &body)?;
        self.w.flush().map_err(|source| RecordError::Io {
            name: self.name.clone(),
            source,
        })?;
        Ok((self.w, self.stats))
    }
}

impl Recording {
    /// The file's bytes, as the recording stands (nothing checked but each
    /// record's size: tools and tests can write what a reader must refuse).
    pub fn to_bytes(&self) -> Result<Vec<u8>, RecordError> {
        let mut out = Vec::new();
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        put(&mut out, HEADER, "header", &self.header)?;
        for (i, w) in self.warps.iter().enumerate() {
            put(&mut out, WARP, &format!("warps[{i}]"), w)?;
        }
        put(&mut out, TRAILER, "trailer", &self.trailer)?;
        Ok(out)
    }

    /// Reads a whole recording from `r`, named `name` in errors, checking
    /// it as [`RecordReader`] does.
    pub fn read(name: &str, r: impl Read) -> Result<Recording, RecordError> {
        let mut rd = RecordReader::open(name, r)?;
        let mut warps = Vec::new();
        for _ in 0..rd.warps() {
            warps.push(rd.next_warp()?);
        }
        let (header, trailer) = rd.finish()?;
        Ok(Recording {
            header,
            warps,
            trailer,
        })
    }

    /// Decodes and checks a recording's bytes.
    pub fn from_bytes(name: &str, bytes: &[u8]) -> Result<Recording, RecordError> {
        Recording::read(name, bytes)
    }
}

/// Appends a record to `out`: kind, length, payload.
fn put(out: &mut Vec<u8>, kind: u8, part: &str, v: &impl Serialize) -> Result<(), RecordError> {
    let body = bincode::serde::encode_to_vec(v, config())
        .map_err(|e| RecordError::Encode(format!("{part}: {e}")))?;
    if body.len() as u64 > MAX_RECORD_BYTES {
        return Err(RecordError::Encode(format!(
            "{part}: {} bytes, more than the limit of {MAX_RECORD_BYTES} per record",
            body.len()
        )));
    }
    out.push(kind);
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&body);
    out.extend_from_slice(&read::checksum(kind, &body).to_le_bytes());
    Ok(())
}

/// What [`record_launch`] did.
pub struct Recorded {
    /// The run (`recorded` empty: the warps went to the file).
    pub run: LaunchRun,
    /// What was written.
    pub stats: WriteStats,
}

/// Runs the launch file at `path` with `opts` and writes its recording to
/// `w` (named `name` in errors) as it runs: each warp once it and the
/// warps before it have finished, so memory holds the finished warps
/// waiting for an earlier one, not the launch's.
pub fn record_launch(
    path: &Path,
    opts: &RunOptions,
    w: impl Write,
    name: &str,
) -> Result<Recorded, RecordError> {
    let l = crate::run::load(path)?;
    let module = crate::prepare::load_module(&l.src, &l.module_name, &l.launch.entry)?;
    let data = l.launch.load_buffers().map_err(|source| RunError::Launch {
        path: path.display().to_string(),
        source,
    })?;
    let mut writer = {
        let header = RecHeader::new(&l.launch, &l.module_name, &l.src, &data, opts);
        RecordWriter::new(w, name, &header)?
    };
    let mut prep = crate::prepare::Prepared::new(&module, &l.launch, data)?;
    let global = std::mem::take(&mut prep.global);
    let mut failed = None;
    let mut sink = |x: RecWarp| {
        writer.push(&x).map_err(|e| {
            let msg = e.to_string();
            failed = Some(e);
            KernelError::Limit(msg)
        })
    };
    let grid = crate::run::run_engine(&prep, global, &l.launch, opts, Warps::Log(&mut sink));
    let grid = match (grid, failed) {
        (_, Some(e)) => return Err(e),
        (g, None) => g?,
    };
    let run = crate::run::finish_launch(path, l, &prep, grid)?;
    let outputs = run
        .launch
        .outputs
        .iter()
        .map(|&i| run.buffers.get(i).cloned().unwrap_or_default())
        .collect();
    let trailer = RecTrailer {
        cycles: run.timed.cycles,
        outputs,
    };
    let (_, stats) = writer.finish(&trailer)?;
    Ok(Recorded { run, stats })
}

fn validate_warp(i: u64, w: &RecWarp, per_block: u64, threads: u64) -> Result<(), String> {
    let (cta, warp) = (i / per_block, i % per_block);
    if u64::from(w.cta) != cta || u64::from(w.warp) != warp {
        return Err(format!(
            "warps[{i}] is block {} warp {}; expected block {cta} warp {warp}",
            w.cta, w.warp
        ));
    }
    let n = (threads - warp * 32).min(32) as u32;
    let lanes = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
    if w.lanes != lanes {
        return Err(format!(
            "warps[{i}]: lanes {:#x}, expected {lanes:#x}",
            w.lanes
        ));
    }
    if w.accesses.len() > crate::exec::MAX_ACCESSES {
        return Err(format!(
            "warps[{i}]: more than {} memory instructions",
            crate::exec::MAX_ACCESSES
        ));
    }
    let mut last = None;
    for (k, a) in w.accesses.iter().enumerate() {
        let at = format!("warps[{i}].accesses[{k}]");
        if last.is_some_and(|l| a.step <= l) {
            return Err(format!("{at}: steps out of order"));
        }
        last = Some(a.step);
        let Some(&(_, lanes)) = w.steps.get(a.step as usize) else {
            return Err(format!(
                "{at}: step {} past the warp's {} steps",
                a.step,
                w.steps.len()
            ));
        };
        if a.lanes & !lanes != 0 || a.addrs.len() != a.lanes.count_ones() as usize {
            return Err(format!(
                "{at}: lanes {:#x} and {} addresses do not fit step lanes {lanes:#x}",
                a.lanes,
                a.addrs.len()
            ));
        }
    }
    if let Some((k, _)) = w.steps.iter().enumerate().find(|(_, s)| s.1 & !lanes != 0) {
        return Err(format!(
            "warps[{i}].steps[{k}]: lanes outside the warp's {lanes:#x}"
        ));
    }
    Ok(())
}

mod flow;
mod read;
mod replay;
pub use self::flow::Flow;
pub use self::read::RecordReader;
pub use self::replay::{replay, replay_stream, Replayed};

/// Where a replayed output first differs from its recorded final bytes.
pub fn compare_outputs(
    header: &RecHeader,
    trailer: &RecTrailer,
    buffers: &[Vec<u8>],
) -> Vec<Mismatch> {
    header
        .outputs()
        .into_iter()
        .zip(&trailer.outputs)
        .filter_map(|(i, want)| {
            let got = buffers.get(i)?;
            crate::compare(&header.buffers[i].name, got, want)
        })
        .collect()
}
