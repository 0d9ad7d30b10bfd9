//! A launch file's kernel arguments: how each is written, its bytes in the
//! parameter buffer, and which `.param` declarations it may bind to.

use super::{field, int_in, LaunchError};
use crate::types::{Param, PtxType};
use std::collections::BTreeMap;

/// Most bytes of a by-value argument (`bytes`): CUDA 12.1 raised a
/// kernel's parameters from 4,096 to 32,764 bytes on Volta and later
/// (NVIDIA's "CUDA 12.1 Supports Large Kernel Parameters").
pub const MAX_PARAM_BYTES: usize = 32_764;

/// The kinds a `params` entry may have, as errors list them.
const KINDS: &str =
    "buffer, u8, s8, u16, s16, u32, s32, u64, s64, f32, f64, b8, b16, b32, b64 or bytes";

/// One kernel argument, in `.param` order.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    /// The address of buffer number `.0` (an index into
    /// [`super::Launch::buffers`]).
    Buffer(usize),
    /// `.u8`.
    U8(u8),
    /// `.s8`.
    S8(i8),
    /// `.u16`.
    U16(u16),
    /// `.s16`.
    S16(i16),
    /// `.u32`.
    U32(u32),
    /// `.s32`.
    S32(i32),
    /// `.u64`.
    U64(u64),
    /// `.s64`.
    S64(i64),
    /// `.f32`.
    F32(f32),
    /// `.f64`.
    F64(f64),
    /// Untyped bits of `.1` bytes (1, 2, 4 or 8): `b8` ... `b64`.
    Bits(u64, u8),
    /// Bytes as they are, for a by-value struct (an array parameter
    /// `.param .align 8 .b8 p[16]`).
    Bytes(Vec<u8>),
}

/// What a parameter's type is, for binding.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    /// `.uN`/`.sN`.
    Int,
    /// `.bN`.
    Bits,
    /// `.f32`/`.f64`.
    Float,
    /// Anything else (`.f16`, `.pred`, ...): only bits or bytes bind.
    Other,
}

fn class(t: PtxType) -> Class {
    use PtxType::*;
    match t {
        U8 | U16 | U32 | U64 | S8 | S16 | S32 | S64 => Class::Int,
        B8 | B16 | B32 | B64 | B128 => Class::Bits,
        F32 | F64 => Class::Float,
        F16 | F16x2 | Bf16 | Bf16x2 | Tf32 | Pred => Class::Other,
    }
}

impl ParamValue {
    /// Its kind's name in launch files (`u32`, `buffer`, `bytes`).
    pub fn kind(&self) -> String {
        match self {
            ParamValue::Buffer(_) => "buffer".into(),
            ParamValue::U8(_) => "u8".into(),
            ParamValue::S8(_) => "s8".into(),
            ParamValue::U16(_) => "u16".into(),
            ParamValue::S16(_) => "s16".into(),
            ParamValue::U32(_) => "u32".into(),
            ParamValue::S32(_) => "s32".into(),
            ParamValue::U64(_) => "u64".into(),
            ParamValue::S64(_) => "s64".into(),
            ParamValue::F32(_) => "f32".into(),
            ParamValue::F64(_) => "f64".into(),
            ParamValue::Bits(_, n) => format!("b{}", 8 * u32::from(*n)),
            ParamValue::Bytes(b) => format!("{} bytes", b.len()),
        }
    }

    /// Its bytes in the parameter buffer (`buffers`: each buffer's address).
    pub fn bytes(&self, buffers: &[u64]) -> Vec<u8> {
        let le = |x: u64, n: usize| x.to_le_bytes()[..n].to_vec();
        match self {
            ParamValue::Buffer(b) => le(buffers.get(*b).copied().unwrap_or(0), 8),
            ParamValue::U8(x) => vec![*x],
            ParamValue::S8(x) => x.to_le_bytes().to_vec(),
            ParamValue::U16(x) => x.to_le_bytes().to_vec(),
            ParamValue::S16(x) => x.to_le_bytes().to_vec(),
            ParamValue::U32(x) => x.to_le_bytes().to_vec(),
            ParamValue::S32(x) => x.to_le_bytes().to_vec(),
            ParamValue::U64(x) => x.to_le_bytes().to_vec(),
            ParamValue::S64(x) => x.to_le_bytes().to_vec(),
            ParamValue::F32(x) => x.to_le_bytes().to_vec(),
            ParamValue::F64(x) => x.to_le_bytes().to_vec(),
            ParamValue::Bits(x, n) => le(*x, usize::from(*n).min(8)),
            ParamValue::Bytes(b) => b.clone(),
        }
    }

    /// Why it may not bind to `p`, if it may not. An integer binds to an
    /// integer or bit type of its size whatever the signedness (nvcc
    /// declares an `int` parameter `.u32` and a `char` `.u8`); a float to
    /// its float or bit type; a buffer's address only to a 64-bit
    /// `.u64`/`.s64`/`.b64`; bits to any scalar of their size; bytes to an
    /// array parameter (a struct) or a bit type of their length.
    pub fn binds_to(&self, p: &Param) -> Result<(), String> {
        let (c, size) = (class(p.ty), p.size);
        let scalar = p.array.is_none();
        let sized = |n: u64| size == n && scalar;
        let ok = match self {
            ParamValue::Buffer(_) => sized(8) && matches!(c, Class::Int | Class::Bits),
            ParamValue::U8(_) | ParamValue::S8(_) => {
                sized(1) && matches!(c, Class::Int | Class::Bits)
            }
            ParamValue::U16(_) | ParamValue::S16(_) => {
                sized(2) && matches!(c, Class::Int | Class::Bits)
            }
            ParamValue::U32(_) | ParamValue::S32(_) => {
                sized(4) && matches!(c, Class::Int | Class::Bits)
            }
            ParamValue::U64(_) | ParamValue::S64(_) => {
                sized(8) && matches!(c, Class::Int | Class::Bits)
            }
            ParamValue::F32(_) => sized(4) && matches!(c, Class::Float | Class::Bits),
            ParamValue::F64(_) => sized(8) && matches!(c, Class::Float | Class::Bits),
            ParamValue::Bits(_, n) => sized(u64::from(*n)),
            ParamValue::Bytes(b) => size == b.len() as u64 && (!scalar || c == Class::Bits),
        };
        if ok {
            return Ok(());
        }
        let why = match self {
            ParamValue::Buffer(_) => "a buffer's address binds only to a 64-bit .u64, .s64 or .b64",
            ParamValue::Bytes(_) if scalar && c != Class::Bits => {
                "bytes bind to an array parameter (a struct) or a .bN of their length"
            }
            ParamValue::Bytes(_) => "the lengths differ",
            _ if !scalar => "an array parameter (a struct) takes `bytes`",
            _ => "the types differ",
        };
        Err(why.to_string())
    }
}

/// A parameter's declared type as errors name it: `.s32`, `.b8[16]`.
pub fn declared(p: &Param) -> String {
    match p.array {
        Some(n) => format!(".{}[{n}]", p.ty.name()),
        None => format!(".{}", p.ty.name()),
    }
}

/// The bytes of a `bytes` entry: an array of 0-255 or a string of hex
/// digit pairs.
fn bytes_of(v: &serde_json::Value, f: &str) -> Result<Vec<u8>, LaunchError> {
    let bad = |m: String| field(format!("{f}.bytes"), m);
    let out: Vec<u8> = match v {
        serde_json::Value::Array(a) => a
            .iter()
            .map(|x| {
                int_in(x, 0, 255)
                    .map(|n| n as u8)
                    .ok_or_else(|| bad(format!("{x} is not a byte (0 to 255)")))
            })
            .collect::<Result<_, _>>()?,
        serde_json::Value::String(s) => {
            let d = s.as_bytes();
            if d.len() % 2 != 0 || !d.iter().all(u8::is_ascii_hexdigit) {
                return Err(bad("a hex string has pairs of hex digits".into()));
            }
            d.chunks(2)
                .map(|p| {
                    let h = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
                    h(p[0]) << 4 | h(p[1])
                })
                .collect()
        }
        _ => return Err(bad("an array of bytes or a hex string".into())),
    };
    if out.is_empty() || out.len() > MAX_PARAM_BYTES {
        return Err(bad(format!(
            "{} bytes; a parameter has 1 to {MAX_PARAM_BYTES}",
            out.len()
        )));
    }
    Ok(out)
}

/// One `params` entry: `{"buffer": "a"}`, `{"u32": 5}`, `{"f64": 0.5}`,
/// `{"b16": 65535}`, `{"bytes": [1, 2]}` or `{"bytes": "0102"}`.
pub(super) fn param(
    p: &BTreeMap<String, serde_json::Value>,
    f: &str,
    find: &dyn Fn(&str, String) -> Result<usize, LaunchError>,
) -> Result<ParamValue, LaunchError> {
    let mut it = p.iter();
    let (Some((kind, v)), None) = (it.next(), it.next()) else {
        return Err(field(f, format!("needs exactly one key: {KINDS}")));
    };
    let bad = || field(format!("{f}.{kind}"), format!("{v} is not a {kind}"));
    let int = |lo: i128, hi: i128| int_in(v, lo, hi).ok_or_else(bad);
    let float = || v.as_f64().ok_or_else(bad);
    Ok(match kind.as_str() {
        "buffer" => ParamValue::Buffer(find(v.as_str().ok_or_else(bad)?, format!("{f}.buffer"))?),
        "u8" => ParamValue::U8(int(0, u8::MAX.into())? as u8),
        "s8" => ParamValue::S8(int(i8::MIN.into(), i8::MAX.into())? as i8),
        "u16" => ParamValue::U16(int(0, u16::MAX.into())? as u16),
        "s16" => ParamValue::S16(int(i16::MIN.into(), i16::MAX.into())? as i16),
        "u32" => ParamValue::U32(int(0, u32::MAX.into())? as u32),
        "s32" => ParamValue::S32(int(i32::MIN.into(), i32::MAX.into())? as i32),
        "u64" => ParamValue::U64(int(0, u64::MAX.into())? as u64),
        "s64" => ParamValue::S64(int(i64::MIN.into(), i64::MAX.into())? as i64),
        "f32" => ParamValue::F32(float()? as f32),
        "f64" => ParamValue::F64(float()?),
        "b8" => ParamValue::Bits(int(0, u8::MAX.into())? as u64, 1),
        "b16" => ParamValue::Bits(int(0, u16::MAX.into())? as u64, 2),
        "b32" => ParamValue::Bits(int(0, u32::MAX.into())? as u64, 4),
        "b64" => ParamValue::Bits(int(0, u64::MAX.into())? as u64, 8),
        "bytes" => ParamValue::Bytes(bytes_of(v, f)?),
        _ => return Err(field(f, format!("unknown kind '{kind}' ({KINDS})"))),
    })
}
