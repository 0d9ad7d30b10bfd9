//! Launch files: which kernel of which module to run, on what grid, with which
//! buffers and parameters, and what the outputs should be (`docs/launch-format.md`).

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use sim_isa::bounded::{self, ReadError};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Component, Path, PathBuf};

mod param;

use param::param;
pub use param::{declared, ParamValue, MAX_PARAM_BYTES};

/// Largest launch file accepted, in bytes.
pub const MAX_LAUNCH_BYTES: usize = 1 << 20;
/// Largest buffer, in bytes.
pub const MAX_BUFFER_BYTES: u64 = 1 << 30;
/// Largest sum of all buffers, in bytes.
pub const MAX_TOTAL_BYTES: u64 = 4 << 30;
/// Most buffers, parameters or outputs in one launch.
pub const MAX_ENTRIES: usize = 1024;
/// Most threads in one block (CUDA's limit).
pub const MAX_BLOCK_THREADS: u64 = 1024;
/// Most blocks in one grid.
pub const MAX_GRID_BLOCKS: u64 = 1 << 24;
/// Most registers a thread may have (`registers`): ptxas's 255.
pub const MAX_REGISTERS: u32 = 255;

/// A launch file that could not be read or does not hold together.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// The file (or a file it names) could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The launch file is past its limit or not UTF-8 (read through
    /// [`sim_isa::bounded`], which names the file and the limit).
    #[error(transparent)]
    Read(ReadError),
    /// The launch text is larger than [`MAX_LAUNCH_BYTES`].
    #[error("launch file is {len} bytes, more than the limit of {max}")]
    TooLarge {
        /// Its length.
        len: u64,
        /// The limit.
        max: usize,
    },
    /// Not JSON of the launch shape (serde names the field, line and column).
    #[error("line {line}, column {col}: {msg}")]
    Json {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        col: usize,
        /// serde's message (names unknown or missing fields).
        msg: String,
    },
    /// A field whose value is out of range or refers to nothing.
    #[error("{field}: {msg}")]
    Field {
        /// Where: `grid[1]`, `buffers.a.file`, `params[4]`.
        field: String,
        /// What is wrong.
        msg: String,
    },
}

/// serde_json's error position as a place in `text` (1-based line and
/// column in characters). serde counts columns in bytes, and a line break
/// as the start of the next line at column 0 (an error on the break itself,
/// or in empty text): that is the end of the line before.
fn json_pos(text: &str, line: usize, col: usize) -> (usize, usize) {
    let lines: Vec<&str> = text.split('\n').collect();
    let (line, col) = match (line, col) {
        (l, 0) if l > 1 => (l - 1, lines.get(l - 2).map_or(1, |t| t.len() + 1)),
        (l, c) => (l.max(1), c.max(1)),
    };
    let l = lines.get(line - 1).copied().unwrap_or("");
    let mut b = (col - 1).min(l.len());
    while !l.is_char_boundary(b) {
        b -= 1;
    }
    (line, l[..b].chars().count() + 1)
}

fn field(field: impl Into<String>, msg: impl Into<String>) -> LaunchError {
    LaunchError::Field {
        field: field.into(),
        msg: msg.into(),
    }
}

/// How a buffer starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BufferInit {
    /// The bytes of a file (resolved against the launch file's folder).
    File(PathBuf),
    /// Every byte this value.
    Fill(u8),
    /// Deterministic pseudo-random values ([`Random::bytes`]).
    Random(Random),
}

/// A buffer of pseudo-random values: `Xoshiro256PlusPlus::seed_from_u64(seed)`
/// draws one `u64` per element, which [`RandomValues`] maps into its range
/// (the exact rule is in docs/launch-format.md, "Random buffers").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Random {
    /// The generator's seed.
    pub seed: u64,
    /// The element type and range.
    pub values: RandomValues,
}

/// The element type of a random buffer and its range.
#[derive(Clone, Copy, Debug)]
pub enum RandomValues {
    /// Uniform in `[min, max)` (every value `min` when they are equal).
    F32 {
        /// Least value.
        min: f32,
        /// Bound (excluded unless equal to `min`).
        max: f32,
    },
    /// Uniform in `[min, max]`.
    U32 {
        /// Least value.
        min: u32,
        /// Greatest value.
        max: u32,
    },
    /// Uniform in `[min, max]`.
    S32 {
        /// Least value.
        min: i32,
        /// Greatest value.
        max: i32,
    },
    /// Uniform in `[min, max]`.
    U8 {
        /// Least value.
        min: u8,
        /// Greatest value.
        max: u8,
    },
}

/// Compares the bounds' bits, so that `Eq` holds (`-0.0` differs from `0.0`).
impl PartialEq for RandomValues {
    fn eq(&self, other: &Self) -> bool {
        use RandomValues::*;
        match (*self, *other) {
            (F32 { min: a, max: b }, F32 { min: c, max: d }) => {
                (a.to_bits(), b.to_bits()) == (c.to_bits(), d.to_bits())
            }
            (U32 { min: a, max: b }, U32 { min: c, max: d }) => (a, b) == (c, d),
            (S32 { min: a, max: b }, S32 { min: c, max: d }) => (a, b) == (c, d),
            (U8 { min: a, max: b }, U8 { min: c, max: d }) => (a, b) == (c, d),
            _ => false,
        }
    }
}

impl Eq for RandomValues {}

impl RandomValues {
    /// Bytes per element.
    pub fn size(&self) -> u64 {
        match self {
            RandomValues::U8 { .. } => 1,
            _ => 4,
        }
    }

    /// The type's name in launch files.
    pub fn type_name(&self) -> &'static str {
        match self {
            RandomValues::F32 { .. } => "f32",
            RandomValues::U32 { .. } => "u32",
            RandomValues::S32 { .. } => "s32",
            RandomValues::U8 { .. } => "u8",
        }
    }
}

/// `((x >> 32) * span) >> 32`: a draw's top 32 bits scaled to `0..span`
/// (`1 <= span <= 2^32`).
fn scaled(x: u64, span: u64) -> u64 {
    ((x >> 32) * span) >> 32
}

impl Random {
    /// The buffer's `bytes` bytes (a multiple of the element size): element
    /// `i` is the `i`-th draw of the generator mapped into the range, stored
    /// little-endian.
    pub fn bytes(&self, bytes: u64) -> Vec<u8> {
        use rand_core::{Rng as _, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(self.seed);
        let size = self.values.size();
        // Written in place: an `extend` per element checked the capacity
        // each time (about a third of the work).
        let mut out = vec![0u8; (bytes / size * size) as usize];
        let words = out.as_chunks_mut::<4>().0;
        match self.values {
            RandomValues::F32 { min, max } => {
                let (lo, hi) = (f64::from(min), f64::from(max));
                // The largest f32 below `max` (`max > min`, so it is finite).
                let below = if max > 0.0 {
                    f32::from_bits(max.to_bits() - 1)
                } else if max == 0.0 {
                    -f32::from_bits(1)
                } else {
                    f32::from_bits(max.to_bits() + 1)
                };
                for w in words {
                    let u = (rng.next_u64() >> 40) as f64 * (1.0 / (1u64 << 24) as f64);
                    let mut v = (lo + (hi - lo) * u) as f32;
                    if min < max && v >= max {
                        v = below;
                    }
                    *w = v.to_le_bytes();
                }
            }
            RandomValues::U32 { min, max } => {
                let span = u64::from(max - min) + 1;
                for w in words {
                    let v = min + scaled(rng.next_u64(), span) as u32;
                    *w = v.to_le_bytes();
                }
            }
            RandomValues::S32 { min, max } => {
                let span = (i64::from(max) - i64::from(min) + 1) as u64;
                for w in words {
                    let v = (i64::from(min) + scaled(rng.next_u64(), span) as i64) as i32;
                    *w = v.to_le_bytes();
                }
            }
            RandomValues::U8 { min, max } => {
                let span = u64::from(max - min) + 1;
                for b in out.iter_mut() {
                    *b = min + scaled(rng.next_u64(), span) as u8;
                }
            }
        }
        out
    }
}

/// A global-memory allocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buffer {
    /// Its name in the launch file.
    pub name: String,
    /// Size in bytes.
    pub bytes: u64,
    /// Initial contents.
    pub init: BufferInit,
}

/// What the H100 measured for the launch (informational).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct H100 {
    /// Cycles of a first launch on fresh buffers (one-block launches).
    pub cycles_cold: Option<u64>,
    /// Cycles of a second launch right after the first.
    pub cycles_warm: Option<u64>,
    /// Warps in the whole launch (all blocks).
    pub warps: Option<u32>,
    /// How the figures were taken.
    pub note: Option<String>,
}

/// A validated launch file.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    /// The PTX module (resolved against the launch file's folder).
    pub ptx: PathBuf,
    /// The `.entry` to launch.
    pub entry: String,
    /// Blocks per grid, x/y/z.
    pub grid: [u32; 3],
    /// Threads per block, x/y/z.
    pub block: [u32; 3],
    /// Buffers in file order (each at its own address).
    pub buffers: Vec<Buffer>,
    /// Kernel arguments in `.param` order.
    pub params: Vec<ParamValue>,
    /// Indices into `buffers` of the buffers whose final contents matter.
    pub outputs: Vec<usize>,
    /// Expected final contents: buffer index and file (resolved).
    pub expected: Vec<(usize, PathBuf)>,
    /// Registers a thread, as ptxas allocated them (`ptxas -v`, `cuobjdump
    /// --dump-resource-usage`), if stated: the register file then limits
    /// the blocks an SM holds. PTX does not say it.
    pub registers: Option<u32>,
    /// Bytes of dynamic shared memory per block (`dynamic_shared_bytes`,
    /// the third `<<<...>>>` argument): what a kernel's `.extern .shared`
    /// unsized arrays name.
    pub dynamic_shared: u32,
    /// The H100's figures, if recorded.
    pub h100: Option<H100>,
}

/// A JSON object read in file order, refusing repeated keys.
struct Ordered<T>(Vec<(String, T)>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Ordered<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Ordered<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                let mut v: Vec<(String, T)> = Vec::new();
                while let Some(k) = a.next_key::<String>()? {
                    if v.iter().any(|(n, _)| *n == k) {
                        return Err(de::Error::custom(format!("duplicate key `{k}`")));
                    }
                    if v.len() >= MAX_ENTRIES {
                        return Err(de::Error::custom("too many entries"));
                    }
                    v.push((k, a.next_value()?));
                }
                Ok(Ordered(v))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLaunch {
    ptx: String,
    entry: String,
    grid: [u32; 3],
    block: [u32; 3],
    buffers: Ordered<RawBuffer>,
    params: Vec<BTreeMap<String, serde_json::Value>>,
    #[serde(default)]
    outputs: Vec<String>,
    #[serde(default)]
    expected: Option<Ordered<String>>,
    #[serde(default)]
    registers: Option<u32>,
    #[serde(default)]
    dynamic_shared_bytes: u32,
    #[serde(default)]
    h100: Option<H100>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBuffer {
    bytes: u64,
    file: Option<String>,
    fill: Option<u8>,
    random: Option<RawRandom>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRandom {
    seed: u64,
    #[serde(rename = "type")]
    ty: String,
    min: Option<serde_json::Value>,
    max: Option<serde_json::Value>,
}

impl Launch {
    /// Reads and validates the launch file at `path`; relative file names in it
    /// are resolved against its folder. Buffer files are not opened here.
    pub fn read(path: &Path) -> Result<Launch, LaunchError> {
        let text =
            bounded::read_file_string(path, MAX_LAUNCH_BYTES as u64).map_err(|e| match e {
                ReadError::Io { path, source } => LaunchError::Io { path, source },
                e => LaunchError::Read(e),
            })?;
        Launch::parse(&text, path.parent().unwrap_or(Path::new("")))
    }

    /// Parses and validates launch-file text; file names resolve against `base`.
    pub fn parse(text: &str, base: &Path) -> Result<Launch, LaunchError> {
        if text.len() > MAX_LAUNCH_BYTES {
            return Err(LaunchError::TooLarge {
                len: text.len() as u64,
                max: MAX_LAUNCH_BYTES,
            });
        }
        let raw: RawLaunch = serde_json::from_str(text).map_err(|e| {
            let (line, col) = json_pos(text, e.line(), e.column());
            LaunchError::Json {
                line,
                col,
                msg: e.to_string(),
            }
        })?;
        validate(raw, base)
    }

    /// The index of buffer `name`.
    pub fn buffer(&self, name: &str) -> Option<usize> {
        self.buffers.iter().position(|b| b.name == name)
    }

    /// Threads per block.
    pub fn block_threads(&self) -> u64 {
        self.block
            .iter()
            .fold(1u64, |n, &d| n.saturating_mul(u64::from(d)))
    }

    /// Blocks in the grid.
    pub fn grid_blocks(&self) -> u64 {
        self.grid
            .iter()
            .fold(1u64, |n, &d| n.saturating_mul(u64::from(d)))
    }

    /// The initial contents of every buffer, in order; a file must hold exactly
    /// the buffer's size.
    pub fn load_buffers(&self) -> Result<Vec<Vec<u8>>, LaunchError> {
        self.buffers
            .iter()
            .map(|b| match &b.init {
                BufferInit::Fill(v) => Ok(vec![*v; b.bytes as usize]),
                BufferInit::File(p) => read_exact(p, b.bytes, &format!("buffers.{}.file", b.name)),
                BufferInit::Random(r) => Ok(r.bytes(b.bytes)),
            })
            .collect()
    }

    /// The expected contents of each output that has an `expected` file:
    /// buffer index and bytes (exactly the buffer's size).
    pub fn load_expected(&self) -> Result<Vec<(usize, Vec<u8>)>, LaunchError> {
        self.expected
            .iter()
            .map(|(i, p)| {
                let b = &self.buffers[*i];
                Ok((*i, read_exact(p, b.bytes, &format!("expected.{}", b.name))?))
            })
            .collect()
    }
}

/// Reads `path`, which must be exactly `bytes` long: counted while reading,
/// so `/dev/zero` or a FIFO named with `bytes: 0` costs one byte.
fn read_exact(path: &Path, bytes: u64, what: &str) -> Result<Vec<u8>, LaunchError> {
    let held = match bounded::read_file_exact(path, bytes) {
        Ok(b) => return Ok(b),
        Err(ReadError::Io { path, source }) => return Err(LaunchError::Io { path, source }),
        Err(ReadError::Short { len, .. }) => len.to_string(),
        // The read stopped a byte past the buffer. The size on disk only
        // words the message, for a regular file that has one.
        Err(ReadError::TooLarge { .. }) => match std::fs::metadata(path) {
            Ok(m) if m.is_file() && m.len() > bytes => m.len().to_string(),
            _ => format!("more than {bytes}"),
        },
        Err(e @ (ReadError::NotUtf8 { .. } | ReadError::NotAFile { .. })) => {
            return Err(LaunchError::Read(e))
        }
    };
    Err(field(
        what,
        format!("{} holds {held} bytes, the buffer {bytes}", path.display()),
    ))
}

/// A file name from the launch file: relative, resolved against `base`.
fn relative(base: &Path, name: &str, what: &str) -> Result<PathBuf, LaunchError> {
    let p = Path::new(name);
    let plain = p.components().all(|c| {
        matches!(
            c,
            Component::Normal(_) | Component::CurDir | Component::ParentDir
        )
    });
    if name.is_empty() || !plain {
        return Err(field(
            what,
            format!("'{name}' must be a relative file name"),
        ));
    }
    Ok(base.join(p))
}

fn dims(d: [u32; 3], name: &str, max: u64) -> Result<(), LaunchError> {
    if let Some(k) = d.iter().position(|&x| x == 0) {
        return Err(field(format!("{name}[{k}]"), "must be at least 1"));
    }
    // Three u32 can overflow a u64: saturate (anything that large is refused).
    let n: u64 = d.iter().fold(1u64, |n, &x| n.saturating_mul(u64::from(x)));
    if n > max {
        return Err(field(
            name,
            format!("{n} in all, more than the limit of {max}"),
        ));
    }
    Ok(())
}

fn validate(raw: RawLaunch, base: &Path) -> Result<Launch, LaunchError> {
    dims(raw.grid, "grid", MAX_GRID_BLOCKS)?;
    dims(raw.block, "block", MAX_BLOCK_THREADS)?;
    if raw.entry.is_empty() {
        return Err(field("entry", "must name a kernel"));
    }
    if raw
        .registers
        .is_some_and(|r| !(1..=MAX_REGISTERS).contains(&r))
    {
        return Err(field(
            "registers",
            format!("a thread has 1 to {MAX_REGISTERS} registers"),
        ));
    }
    let ptx = relative(base, &raw.ptx, "ptx")?;
    let mut buffers = Vec::new();
    let mut total = 0u64;
    for (name, b) in raw.buffers.0 {
        let f = format!("buffers.{name}");
        if b.bytes > MAX_BUFFER_BYTES {
            return Err(field(
                format!("{f}.bytes"),
                format!("{} is more than the limit of {MAX_BUFFER_BYTES}", b.bytes),
            ));
        }
        total += b.bytes;
        if total > MAX_TOTAL_BYTES {
            return Err(field(
                f,
                format!("buffers exceed {MAX_TOTAL_BYTES} bytes in all"),
            ));
        }
        let init = match (b.file, b.fill, b.random) {
            (Some(file), None, None) => {
                BufferInit::File(relative(base, &file, &format!("{f}.file"))?)
            }
            (None, Some(v), None) => BufferInit::Fill(v),
            (None, None, Some(r)) => BufferInit::Random(random(&r, b.bytes, &f)?),
            _ => return Err(field(f, "needs exactly one of `file`, `fill` and `random`")),
        };
        buffers.push(Buffer {
            name,
            bytes: b.bytes,
            init,
        });
    }
    let find = |name: &str, what: String| {
        buffers
            .iter()
            .position(|b| b.name == name)
            .ok_or_else(|| field(what, format!("no buffer named '{name}'")))
    };
    if raw.params.len() > MAX_ENTRIES || raw.outputs.len() > MAX_ENTRIES {
        return Err(field("params", "too many entries"));
    }
    let mut params = Vec::new();
    for (k, p) in raw.params.iter().enumerate() {
        params.push(param(p, &format!("params[{k}]"), &find)?);
    }
    let mut outputs = Vec::new();
    for (k, name) in raw.outputs.iter().enumerate() {
        let i = find(name, format!("outputs[{k}]"))?;
        if outputs.contains(&i) {
            return Err(field(
                format!("outputs[{k}]"),
                format!("'{name}' listed twice"),
            ));
        }
        outputs.push(i);
    }
    let mut expected = Vec::new();
    for (name, file) in raw.expected.map_or(Vec::new(), |o| o.0) {
        let f = format!("expected.{name}");
        let i = find(&name, f.clone())?;
        if !outputs.contains(&i) {
            return Err(field(f, format!("'{name}' is not in `outputs`")));
        }
        expected.push((i, relative(base, &file, &f)?));
    }
    Ok(Launch {
        ptx,
        entry: raw.entry,
        grid: raw.grid,
        block: raw.block,
        buffers,
        params,
        outputs,
        expected,
        registers: raw.registers,
        dynamic_shared: raw.dynamic_shared_bytes,
        h100: raw.h100,
    })
}

/// A JSON integer in `lo..=hi`.
fn int_in(v: &serde_json::Value, lo: i128, hi: i128) -> Option<i128> {
    let n = v
        .as_i64()
        .map(i128::from)
        .or_else(|| v.as_u64().map(i128::from))?;
    (lo..=hi).contains(&n).then_some(n)
}

/// A `random` object of buffer `f` (`buffers.NAME`) of `bytes` bytes.
fn random(r: &RawRandom, bytes: u64, f: &str) -> Result<Random, LaunchError> {
    let f = format!("{f}.random");
    let ty = r.ty.as_str();
    let bound = |v: &Option<serde_json::Value>, key: &str, lo: i128, hi: i128, dflt: i128| {
        v.as_ref().map_or(Ok(dflt), |v| {
            int_in(v, lo, hi)
                .ok_or_else(|| field(format!("{f}.{key}"), format!("{v} is not a {ty}")))
        })
    };
    let ints = |lo: i128, hi: i128| -> Result<(i128, i128), LaunchError> {
        let min = bound(&r.min, "min", lo, hi, lo)?;
        let max = bound(&r.max, "max", lo, hi, hi)?;
        if min > max {
            return Err(field(&f, format!("min {min} is more than max {max}")));
        }
        Ok((min, max))
    };
    let values = match ty {
        "f32" => {
            let b = |v: &Option<serde_json::Value>, key: &str, dflt: f32| {
                let Some(v) = v else { return Ok(dflt) };
                match v.as_f64().map(|x| x as f32) {
                    Some(x) if x.is_finite() => Ok(x),
                    _ => Err(field(
                        format!("{f}.{key}"),
                        format!("{v} is not a finite f32"),
                    )),
                }
            };
            let (min, max) = (b(&r.min, "min", 0.0)?, b(&r.max, "max", 1.0)?);
            if min > max {
                return Err(field(&f, format!("min {min} is more than max {max}")));
            }
            RandomValues::F32 { min, max }
        }
        "u32" => {
            let (min, max) = ints(0, u32::MAX.into())?;
            RandomValues::U32 {
                min: min as u32,
                max: max as u32,
            }
        }
        "s32" => {
            let (min, max) = ints(i32::MIN.into(), i32::MAX.into())?;
            RandomValues::S32 {
                min: min as i32,
                max: max as i32,
            }
        }
        "u8" => {
            let (min, max) = ints(0, u8::MAX.into())?;
            RandomValues::U8 {
                min: min as u8,
                max: max as u8,
            }
        }
        _ => {
            return Err(field(
                format!("{f}.type"),
                format!("unknown type '{ty}' (f32, u32, s32 or u8)"),
            ))
        }
    };
    if !bytes.is_multiple_of(values.size()) {
        return Err(field(
            format!("{f}.type"),
            format!(
                "the buffer's {bytes} bytes are not a whole number of {ty} ({} bytes each)",
                values.size()
            ),
        ));
    }
    Ok(Random {
        seed: r.seed,
        values,
    })
}
