//! Kernel recordings (`simcli record`, docs/kernel-trace.md): what a launch
//! executed, in a file a host simulator or `simcli run` can consume without
//! the launch's memory image. A recording holds the module text, the entry,
//! the geometry and arguments, each warp's dynamic steps (statement and
//! lanes), each memory instruction's per-lane addresses, the values its
//! loads returned, the clock values it read, and the initial and final bytes
//! of the output buffers.
//!
//! [`replay`] runs a recording on the engine ([`crate::engine`]) as a
//! launch runs: each warp follows its recorded steps, with every load
//! answered from the record (the outputs are computed again, not copied),
//! and the addresses checked against the recorded ones; the timing is the
//! direct run's.
//!
//! File layout: [`MAGIC`], the format version as a little-endian `u32`
//! ([`VERSION`]), then one [`Recording`] encoded with bincode 2 (standard
//! configuration: variable-length integers). Reading refuses files over
//! [`MAX_RECORDING_BYTES`], other magics and versions, truncated or trailing
//! bytes, and recordings that do not hold together (checked by
//! [`Recording::validate`] and during replay), each with a message naming
//! the file and the part.

use crate::error::KernelError;
pub use crate::rec::{RecAccess, RecSpace, RecWarp};
use crate::run::{LaunchRun, RunOptions};
use crate::Mismatch;
use serde::{Deserialize, Serialize};

use sim_isa::{Target, WARP_SIZE};
use sim_module::launch::{
    Buffer, BufferInit, ParamValue, H100, MAX_BLOCK_THREADS, MAX_BUFFER_BYTES, MAX_ENTRIES,
    MAX_GRID_BLOCKS, MAX_TOTAL_BYTES,
};
use sim_module::{Launch, LaunchError, ModuleError};
use std::io::Read;
use std::path::PathBuf;

/// First bytes of a recording.
pub const MAGIC: [u8; 8] = *b"SIMKREC\n";
/// Format version this build writes and reads.
pub const VERSION: u32 = 1;
/// Largest recording read, in bytes.
pub const MAX_RECORDING_BYTES: u64 = 1 << 30;
/// Bincode's decode limit: most bytes the decoded recording may claim.
const DECODE_LIMIT: usize = 8 << 30;

fn config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<DECODE_LIMIT>()
}

/// A recording that could not be written, read or replayed.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The file could not be read.
    #[error("{name}: {source}")]
    Io {
        /// The file.
        name: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file is larger than [`MAX_RECORDING_BYTES`].
    #[error("{name}: more than {MAX_RECORDING_BYTES} bytes; refusing to read it as a recording")]
    TooLarge {
        /// The file.
        name: String,
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
    /// The body does not decode (truncated or corrupt).
    #[error("{name}: corrupt or truncated kernel recording: {msg}")]
    Decode {
        /// The file.
        name: String,
        /// Bincode's message.
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

/// One recorded launch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Recording {
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
    /// The launch file's H100 figures, if any.
    pub h100: Option<RecH100>,
    /// Cycles of the recorded run (informational).
    pub cycles: u64,
    /// Every warp, block by block, warps in block order.
    pub warps: Vec<RecWarp>,
}

/// A global buffer: its size, and for an output its initial and final bytes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecBuffer {
    /// Its name in the launch file.
    pub name: String,
    /// Size in bytes.
    pub bytes: u64,
    /// For an output: the bytes before and after the kernel.
    pub output: Option<(Vec<u8>, Vec<u8>)>,
}

/// A kernel argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

impl Recording {
    /// The recording of `run` (executed with `opts`). Reads the module and
    /// the output buffers' initial bytes again from the launch's files.
    pub fn new(run: &LaunchRun, opts: &RunOptions) -> Result<Recording, RecordError> {
        let launch = &run.launch;
        let module = std::fs::read(&launch.ptx).map_err(|source| RecordError::Module {
            path: run.module_name.clone(),
            source,
        })?;
        let initial = launch.load_buffers()?;
        let buffers = launch
            .buffers
            .iter()
            .enumerate()
            .map(|(i, b)| RecBuffer {
                name: b.name.clone(),
                bytes: b.bytes,
                output: launch
                    .outputs
                    .contains(&i)
                    .then(|| (initial[i].clone(), run.buffers[i].clone())),
            })
            .collect();
        let params = launch
            .params
            .iter()
            .map(|p| match *p {
                ParamValue::Buffer(b) => RecParam::Buffer(b as u32),
                ParamValue::U32(x) => RecParam::U32(x),
                ParamValue::S32(x) => RecParam::S32(x),
                ParamValue::U64(x) => RecParam::U64(x),
                ParamValue::S64(x) => RecParam::S64(x),
                ParamValue::F32(x) => RecParam::F32(x.to_bits()),
            })
            .collect();
        let warps = run.recorded.clone();
        Ok(Recording {
            module_name: run.module_name.clone(),
            module: String::from_utf8_lossy(&module).into_owned(),
            entry: launch.entry.clone(),
            grid: launch.grid,
            block: launch.block,
            target: opts.config.target.to_string(),
            sms: opts.sms,
            buffers,
            params,
            h100: launch.h100.as_ref().map(|h| RecH100 {
                cycles_cold: h.cycles_cold,
                cycles_warm: h.cycles_warm,
                warps: h.warps,
            }),
            cycles: run.timed.cycles,
            warps,
        })
    }

    /// The file's bytes: magic, version, body.
    pub fn to_bytes(&self) -> Result<Vec<u8>, RecordError> {
        let body = bincode::serde::encode_to_vec(self, config())
            .map_err(|e| RecordError::Encode(e.to_string()))?;
        let mut out = Vec::with_capacity(body.len() + 12);
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&body);
        Ok(out)
    }

    /// Reads a recording (at most [`MAX_RECORDING_BYTES`]) from `r`, named
    /// `name` in errors, and validates it.
    pub fn read(name: &str, r: impl Read) -> Result<Recording, RecordError> {
        let mut bytes = Vec::new();
        r.take(MAX_RECORDING_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|source| RecordError::Io {
                name: name.to_string(),
                source,
            })?;
        if bytes.len() as u64 > MAX_RECORDING_BYTES {
            return Err(RecordError::TooLarge {
                name: name.to_string(),
            });
        }
        Recording::from_bytes(name, &bytes)
    }

    /// Decodes and validates a recording's bytes.
    pub fn from_bytes(name: &str, bytes: &[u8]) -> Result<Recording, RecordError> {
        let name_s = || name.to_string();
        if !is_recording(bytes) {
            return Err(RecordError::NotRecording { name: name_s() });
        }
        let Some(v) = bytes.get(8..12) else {
            return Err(RecordError::Decode {
                name: name_s(),
                msg: "the version is cut off".into(),
            });
        };
        let found = u32::from_le_bytes([v[0], v[1], v[2], v[3]]);
        if found != VERSION {
            return Err(RecordError::Version {
                name: name_s(),
                found,
            });
        }
        let body = &bytes[12..];
        let (rec, used): (Recording, usize) = bincode::serde::decode_from_slice(body, config())
            .map_err(|e| RecordError::Decode {
                name: name_s(),
                msg: e.to_string(),
            })?;
        if used != body.len() {
            return Err(RecordError::Decode {
                name: name_s(),
                msg: format!("{} bytes after the recording's end", body.len() - used),
            });
        }
        rec.validate().map_err(|msg| RecordError::Invalid {
            name: name_s(),
            msg,
        })?;
        Ok(rec)
    }

    /// Checks what can be checked without the module: target, geometry,
    /// buffers, arguments, and that the warps are the launch's, each with
    /// consistent accesses. Statement indices are checked against the module
    /// when replaying.
    pub fn validate(&self) -> Result<(), String> {
        Target::parse(&self.target).map_err(|e| format!("target: {e}"))?;
        if self.sms == 0 || self.sms > 4096 {
            return Err(format!("sms: {} is not 1 to 4096", self.sms));
        }
        let blocks: u64 = self.grid.iter().map(|&d| u64::from(d)).product();
        let threads: u64 = self.block.iter().map(|&d| u64::from(d)).product();
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
            if let Some((i, f)) = &b.output {
                if i.len() as u64 != b.bytes || f.len() as u64 != b.bytes {
                    return Err(format!(
                        "buffer '{}': {} bytes, but its recorded contents are {} and {} bytes",
                        b.name,
                        b.bytes,
                        i.len(),
                        f.len()
                    ));
                }
            }
        }
        if total > MAX_TOTAL_BYTES {
            return Err(format!("buffers exceed {MAX_TOTAL_BYTES} bytes in all"));
        }
        for (k, p) in self.params.iter().enumerate() {
            if let RecParam::Buffer(b) = p {
                if *b as usize >= self.buffers.len() {
                    return Err(format!("params[{k}]: buffer {b} does not exist"));
                }
            }
        }
        let per_block = threads.div_ceil(WARP_SIZE as u64);
        if self.warps.len() as u64 != blocks * per_block {
            return Err(format!(
                "{} warps, but a grid of {blocks} blocks of {threads} threads has {}",
                self.warps.len(),
                blocks * per_block
            ));
        }
        for (i, w) in self.warps.iter().enumerate() {
            validate_warp(i as u64, w, per_block, threads)?;
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
                .map(|p| match *p {
                    RecParam::Buffer(b) => ParamValue::Buffer(b as usize),
                    RecParam::U32(x) => ParamValue::U32(x),
                    RecParam::S32(x) => ParamValue::S32(x),
                    RecParam::U64(x) => ParamValue::U64(x),
                    RecParam::S64(x) => ParamValue::S64(x),
                    RecParam::F32(x) => ParamValue::F32(f32::from_bits(x)),
                })
                .collect(),
            outputs: (0..self.buffers.len())
                .filter(|&i| self.buffers[i].output.is_some())
                .collect(),
            expected: Vec::new(),
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

mod replay;
pub use self::replay::replay;

/// Where a replayed output first differs from its recorded final bytes.
pub fn compare_outputs(rec: &Recording, buffers: &[Vec<u8>]) -> Vec<Mismatch> {
    rec.buffers
        .iter()
        .zip(buffers)
        .filter_map(|(b, got)| {
            let (_, want) = b.output.as_ref()?;
            crate::compare(&b.name, got, want)
        })
        .collect()
}
