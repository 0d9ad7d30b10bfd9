//! `simcli gen`: deterministic synthetic traces for scaling studies.

use crate::limits;
use crate::program::ProgramBuilder;
use crate::stream::{Stream, StreamBuilder};
use crate::trace::{Trace, WarpRec};
use sim_isa::{Target, Type};
use std::collections::HashMap;
use std::sync::Arc;

/// Instruction mix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mix {
    /// SIMD video instructions.
    Video,
    /// `set`/`selp`/`slct` on 32-bit integers.
    Compare,
    /// Half-precision `set` (f16x2 sources; needs sm_53).
    Half,
    /// All of the above plus supporting ALU instructions.
    Mixed,
}

/// `gen` parameters.
#[derive(Clone, Copy, Debug)]
pub struct GenParams {
    /// Target recorded in the trace.
    pub target: Target,
    /// Warps launched.
    pub warps: u32,
    /// Mix instructions per warp (after a fixed 5-instruction prologue).
    pub instructions: u64,
    /// Which instructions.
    pub mix: Mix,
    /// Each instruction reads the register written `dep_distance` instructions earlier.
    pub dep_distance: u32,
    /// PRNG seed.
    pub seed: u64,
}

/// Bad `gen` parameters, or a generated trace that fails validation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GenError {
    /// `warps` outside 1 to [`limits::MAX_WARPS`].
    #[error("--warps must be 1 to {}", limits::MAX_WARPS)]
    Warps,
    /// `dep_distance` outside 1 to [`MAX_DEP_DISTANCE`].
    #[error("--dep-distance must be 1 to {MAX_DEP_DISTANCE}")]
    DepDistance,
    /// `instructions` outside 1 to [`limits::MAX_STREAM_OPS`].
    #[error("--instructions must be 1 to {}", limits::MAX_STREAM_OPS)]
    Instructions,
    /// The launch would exceed [`limits::MAX_DYNAMIC_TOTAL`].
    #[error("warps x instructions exceeds {}", limits::MAX_DYNAMIC_TOTAL)]
    Total,
    /// A generated instruction or trace was refused: a defect of the generator.
    #[error("internal: {0}")]
    Internal(String),
}

/// Largest `--dep-distance`.
pub const MAX_DEP_DISTANCE: u32 = 1024;

const VIDEO: &[&str] = &[
    "vadd4.u32.u32.u32.sat {d}, {d}, %k0, %k1;",
    "vsub4.s32.s32.s32.sat {d}, {d}, %k0, %k1;",
    "vabsdiff4.u32.u32.u32.add {d}, {d}, %k0, {d};",
    "vmin4.u32.u32.u32 {d}, {d}, %k0, %k1;",
    "vmax4.s32.s32.s32 {d}, {d}, %k1, %k0;",
    "vavrg2.u32.u32.u32 {d}, {d}, %k0, %k1;",
    "vadd2.s32.s32.s32.sat {d}, {d}, %k1, %k0;",
    "vset4.u32.u32.lt {d}, {d}, %k0, %k1;",
];
const COMPARE: &[&str] = &[
    "set.lt.u32.u32 {d}, {d}, %k0;",
    "set.gt.s32.s32 {d}, {d}, %k1;",
    "selp.b32 {d}, {d}, %k0, %q;",
    "slct.u32.s32 {d}, {d}, %k0, %k1;",
    "set.ne.u32.u32 {d}, {d}, %k1;",
];
const HALF: &[&str] = &[
    "set.lt.u32.f16x2 {d}, {d}, %k0;",
    "set.gtu.f16x2.f16x2 {d}, {d}, %k1;",
    "set.eq.s32.f16x2 {d}, {d}, %k0;",
];
const ALU: &[&str] = &["add.u32 {d}, {d}, %k0;", "xor.b32 {d}, {d}, %k1;"];

const PROLOGUE: &[&str] = &[
    "mov.u32 %k0, %laneid;",
    "mul.lo.u32 %k0, %k0, 0x01030507;",
    "mov.u32 %k1, %warpid;",
    "xor.b32 %k1, %k1, 0x5a3c0f81;",
    "setp.lt.u32 %q, %k0, 0x10000000;",
];

/// SplitMix64: small, fast, and the same on every platform.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// Seeded generator.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (n > 0), by multiply-shift.
    pub fn below(&mut self, n: u32) -> u32 {
        (((self.next_u64() >> 32) * u64::from(n)) >> 32) as u32
    }
}

/// Builds the trace. Every warp shares one stream (no loop structure, so this
/// also exercises the uncompressed stream encoding).
pub fn generate(p: &GenParams) -> Result<Trace, GenError> {
    if p.warps == 0 || p.warps as usize > limits::MAX_WARPS {
        return Err(GenError::Warps);
    }
    if p.dep_distance == 0 || p.dep_distance > MAX_DEP_DISTANCE {
        return Err(GenError::DepDistance);
    }
    let per_warp = p.instructions + PROLOGUE.len() as u64;
    if p.instructions == 0
        || per_warp > limits::MAX_DYNAMIC_PER_WARP
        || p.instructions > limits::MAX_STREAM_OPS as u64
    {
        return Err(GenError::Instructions);
    }
    if per_warp
        .checked_mul(p.warps.into())
        .is_none_or(|t| t > limits::MAX_DYNAMIC_TOTAL)
    {
        return Err(GenError::Total);
    }
    let pool: Vec<&str> = match p.mix {
        Mix::Video => VIDEO.to_vec(),
        Mix::Compare => COMPARE.to_vec(),
        Mix::Half => HALF.to_vec(),
        Mix::Mixed => [VIDEO, COMPARE, HALF, ALU].concat(),
    };
    let d = p.dep_distance;
    let mut prog = ProgramBuilder::new();
    let syms = prog.syms_mut();
    for s in 0..d {
        syms.declare(&format!("%r{s}"), Type::B32);
    }
    syms.declare("%k0", Type::B32);
    syms.declare("%k1", Type::B32);
    syms.declare("%q", Type::Pred);

    // (pool entry, register slot) -> instruction index, so each distinct
    // text is parsed once however many times it is drawn.
    let mut index: HashMap<(usize, u32), u32> = HashMap::new();
    let mut b = StreamBuilder::new();
    let mut add = |key: (usize, u32), text: &str, b: &mut StreamBuilder| -> Result<(), GenError> {
        let i = match index.get(&key) {
            Some(&i) => i,
            None => {
                let i = prog.intern_text(text, 0).map_err(|e| {
                    GenError::Internal(format!("generated '{text}' is refused: {e}"))
                })?;
                index.insert(key, i);
                i
            }
        };
        b.push(i);
        Ok(())
    };
    for (k, t) in PROLOGUE.iter().enumerate() {
        add((usize::MAX - k, 0), t, &mut b)?;
    }
    let mut rng = Rng::new(p.seed);
    for i in 0..p.instructions {
        let v = rng.below(pool.len() as u32) as usize;
        let slot = (i % u64::from(d)) as u32;
        let text = pool[v].replace("{d}", &format!("%r{slot}"));
        add((v, slot), &text, &mut b)?;
    }
    let prog = prog.finish();
    let n = prog.insts.len();
    let stream = Stream::new(b.finish(), n).map_err(|e| GenError::Internal(e.to_string()))?;
    let mut trace = Trace::new(p.target, None, prog);
    trace.streams = vec![Arc::new(stream)];
    trace.warps = vec![
        WarpRec {
            mask: u32::MAX,
            stream: 0
        };
        p.warps as usize
    ];
    trace.validate().map_err(GenError::Internal)?;
    Ok(trace)
}
