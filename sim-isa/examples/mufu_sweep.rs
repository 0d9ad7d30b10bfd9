//! Exhaustive check of the one-source approximate forms against the H100
//! (`tools/mufu/README.md`): for every 32-bit source, in chunks of 2^20
//! consecutive sources, the hash `sum of out[i] * (2 i + 1)` (modulo 2^64,
//! `i` the index in the chunk) of the model's results. `tools/mufu/sweep.py`
//! computes the same hashes from the GPU's results; any one differing result
//! changes its chunk's hash.
//!
//! Usage: `cargo run --release -p sim-isa --example mufu_sweep -- FORM [THREADS]
//! [FIRST_CHUNK] [CHUNKS]` (`FORM` as `sin.approx.f32`); prints one hash per
//! chunk in hex. For the two-source forms (`div.approx.f32`, `div.full.f32`,
//! ...), `FORM STREAM [THREADS]` hashes 2^26 source pairs (64 chunks) drawn by
//! [`pair`] from stream 0, 1 or 2.

use sim_isa::exec::float_lane;
use sim_isa::parse::parse_instruction;
use sim_isa::{FloatArith, Instruction, Op, Symbols};

const CHUNK: u64 = 1 << 20;

fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Exponents at the edges the division sequences test.
const EDGE_EXP: [u32; 11] = [0, 1, 2, 125, 126, 127, 128, 129, 252, 253, 254];

/// Pair `n` of `stream`: 0, random bits; 1, both exponents moved into
/// [64, 190]; 2, like 1 with the divisor's exponent one of [`EDGE_EXP`].
fn pair(stream: u64, n: u64) -> (u32, u32) {
    let z = splitmix(n + (stream << 40));
    let (lo, hi) = (z as u32, (z >> 32) as u32);
    let mid = |v: u32| (v & 0x807f_ffff) | ((64 + ((v >> 23) & 0xff) % 127) << 23);
    match stream {
        0 => (lo, hi),
        1 => (mid(lo), mid(hi)),
        _ => (
            mid(lo),
            (hi & 0x807f_ffff) | (EDGE_EXP[(((hi >> 23) & 0xff) % 11) as usize] << 23),
        ),
    }
}

fn pair_hash(x: &FloatArith, stream: u64, c: u64) -> u64 {
    let mut h = 0u64;
    for i in 0..CHUNK {
        let (a, b) = pair(stream, c * CHUNK + i);
        let out = float_lane(x, u64::from(a), u64::from(b), 0);
        h = h.wrapping_add(out.wrapping_mul(2 * i + 1));
    }
    h
}

fn chunk_hash(x: &FloatArith, c: u64) -> u64 {
    let mut h = 0u64;
    for i in 0..CHUNK {
        let out = float_lane(x, c * CHUNK + i, 0, 0);
        h = h.wrapping_add(out.wrapping_mul(2 * i + 1));
    }
    h
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(form) = args.get(1) else {
        eprintln!("usage: mufu_sweep FORM [THREADS] [FIRST_CHUNK] [CHUNKS]");
        std::process::exit(2);
    };
    let arg = |k: usize, d: u64| args.get(k).and_then(|s| s.parse().ok()).unwrap_or(d);
    let two = form.starts_with("div");
    let (threads, first, n) = if two {
        (arg(3, 2), 0, 64)
    } else {
        (arg(2, 2), arg(3, 0), arg(4, 4096))
    };
    let stream = arg(2, 0);
    let text = if two {
        format!("{form} %f1, %f2, %f3;")
    } else {
        format!("{form} %f1, %f2;")
    };
    let mut syms = Symbols::new();
    let x = match parse_instruction(&text, &mut syms) {
        Ok(Instruction {
            op: Op::Float(x), ..
        }) => x,
        other => {
            eprintln!("{text}: {other:?}");
            std::process::exit(2);
        }
    };
    let mut hashes = vec![0u64; n as usize];
    std::thread::scope(|s| {
        for (t, part) in hashes.chunks_mut(n.div_ceil(threads) as usize).enumerate() {
            let base = first + t as u64 * n.div_ceil(threads);
            s.spawn(move || {
                for (k, h) in part.iter_mut().enumerate() {
                    *h = if two {
                        pair_hash(&x, stream, base + k as u64)
                    } else {
                        chunk_hash(&x, base + k as u64)
                    };
                }
            });
        }
    });
    for h in hashes {
        println!("{h:016x}");
    }
}
