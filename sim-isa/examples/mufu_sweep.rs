//! Exhaustive check of the one-source approximate forms against the H100
//! (`tools/mufu/README.md`): for every 32-bit source, in chunks of 2^20
//! consecutive sources, the hash `sum of out[i] * (2 i + 1)` (modulo 2^64,
//! `i` the index in the chunk) of the model's results. `tools/mufu/sweep.py`
//! computes the same hashes from the GPU's results; any one differing result
//! changes its chunk's hash.
//!
//! Usage: `cargo run --release -p sim-isa --example mufu_sweep -- FORM [THREADS]
//! [FIRST_CHUNK] [CHUNKS]` (`FORM` as `sin.approx.f32`); prints one hash per
//! chunk in hex.

use sim_isa::exec::float_lane;
use sim_isa::parse::parse_instruction;
use sim_isa::{FloatArith, Instruction, Op, Symbols};

const CHUNK: u64 = 1 << 20;

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
    let (threads, first, n) = (arg(2, 2), arg(3, 0), arg(4, 4096));
    let text = format!("{form} %f1, %f2;");
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
                    *h = chunk_hash(&x, base + k as u64);
                }
            });
        }
    });
    for h in hashes {
        println!("{h:016x}");
    }
}
