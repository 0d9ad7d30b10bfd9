//! Warp collectives and block reductions in a launch: `tests/data/warp-coll`
//! is CUDA C++ (`warp_coll.cu`: `__reduce_*_sync`, `__match_any/all_sync`,
//! `__syncwarp`, `__nanosleep`, `__syncthreads_count/and/or`) compiled by
//! nvcc 13.0.88, with expected outputs from `reference.py`, which follows
//! the source's meaning lane by lane (no H100 was at hand). Partial member
//! masks (a divergent branch's ballot, narrowed to lanes 0-15), a 16-lane
//! last warp and divergent predicates all change the result.

use crate::{opts, same_on_any_threads};
use sim_kernel::record::{record_launch, replay_stream, RecordReader};
use sim_kernel::*;
use std::path::PathBuf;

fn launch() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/warp-coll/warp_coll.json")
}

/// Cooperative-groups tiles of 8 (each lane passes its own tile's member
/// mask to `bar.warp.sync`, `shfl.sync` and `match.any.sync`) and
/// `elect.sync` (one leader per warp whose odd lanes elect: `warp_tile.cu`),
/// against `reference.py`.
#[test]
fn tiles_and_elect_match_the_reference() {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/warp-coll/warp_tile.json");
    for sms in [1, 2] {
        let r = run_launch(&path, &opts(sms, 2)).unwrap();
        assert_eq!(r.launch.expected.len(), 2);
        assert!(r.mismatches.is_empty(), "{sms} SMs: {:?}", r.mismatches);
    }
}

/// The reference's bytes on every SM count and host-thread count, and for
/// one SM count the same cycles and statistics on any number of threads.
#[test]
fn collectives_match_the_reference_on_any_sms_and_threads() {
    let mut first: Option<Vec<Vec<u8>>> = None;
    for sms in [1, 2, 3, 132] {
        let one = same_on_any_threads(&launch(), sms);
        assert_eq!(one.launch.expected.len(), 1);
        if let Some(f) = &first {
            assert_eq!(&one.buffers, f, "{sms} SMs");
        }
        first = Some(one.buffers);
    }
}

/// A recording of the launch replays to the same outputs and cycles (the
/// replayed warps compute their `bar.red` shares again).
#[test]
fn collectives_record_and_replay() {
    let o = opts(2, 2);
    let direct = run_launch(&launch(), &o).unwrap();
    let mut bytes = Vec::new();
    let rec = record_launch(&launch(), &o, &mut bytes, "r.bin").unwrap();
    assert_eq!(rec.run.buffers, direct.buffers);
    let rep = replay_stream(RecordReader::open("r.bin", &bytes[..]).unwrap(), &o).unwrap();
    assert!(rep.run.mismatches.is_empty(), "{:?}", rep.run.mismatches);
    assert_eq!(rep.run.timed.cycles, direct.timed.cycles);
}

/// Runs `body` (see `crate::kernel`) with `threads` threads.
fn run(body: &str, threads: u32, limit: u64) -> Result<GridRun, KernelError> {
    let (module, launch) = crate::kernel(body, threads);
    let prep = Prepared::new(&module, &launch, launch.load_buffers().unwrap()).unwrap();
    let mut o = opts(1, 1);
    o.max_instructions = limit;
    run_grid(&prep, &launch, &o)
}

fn word(r: &GridRun, i: usize) -> u32 {
    let b = &r.global.regions[0].bytes;
    u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap())
}

/// `bar.red` counts the threads that arrive: a warp that exited before the
/// barrier no longer takes part (as `bar.sync`, sm_70 and later), and a
/// warp's guarded-off lanes do not count.
#[test]
fn bar_red_counts_the_threads_that_arrive() {
    // Threads 0..95 exist; threads >= 40 exit (warp 2 whole, warp 1 from
    // lane 8); %p2 = tid odd. Arriving: 0..39, predicate true for 20.
    let body = "setp.ge.u32 %p1, %r1, 40;\n@%p1 bra X;\n\
                and.b32 %r2, %r1, 1;\nsetp.eq.u32 %p2, %r2, 1;\n\
                bar.red.popc.u32 %r3, 0, %p2;\n\
                bar.red.and.pred %p3, 0, %p2;\nselp.u32 %r4, 1, 0, %p3;\n\
                bar.red.or.pred %p3, 1, !%p2;\nselp.u32 %r5, 1, 0, %p3;\n\
                setp.eq.u32 %p1, %r1, 3;\n@%p1 st.global.v2.u32 [%rd2], {%r3, %r4};\n\
                @%p1 st.global.u32 [%rd2+8], %r5;\nX: ret;";
    let r = run(body, 96, 10_000).unwrap();
    assert_eq!([word(&r, 0), word(&r, 1), word(&r, 2)], [20, 0, 1]);
}

/// A `bar.red` that a warp never reaches (it spins) ends at the instruction
/// limit naming the warps waiting there, as `bar.sync` does, never hangs.
#[test]
fn a_bar_red_some_warp_never_reaches_is_reported() {
    let spin = "setp.lt.u32 %p1, %r1, 32;\n@%p1 bra A;\nL: bra L;\n\
                A: bar.red.popc.u32 %r3, 0, %p1;";
    let e = run(spin, 64, 10_000).err().unwrap();
    assert!(
        matches!(&e, KernelError::InstructionLimit { limit: 10_000, waiting } if waiting == &[0]),
        "{e}"
    );
    assert!(
        e.to_string()
            .contains("warps [0] of the block were waiting at a barrier"),
        "{e}"
    );
}

/// `--sample` runs most SMs' blocks functionally: their `bar.red` results
/// and collectives are the fully timed run's, byte for byte (300 blocks of
/// random inputs).
#[test]
fn a_sampled_launch_reduces_as_the_full_one() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/warp-coll");
    let launch = sim_module::Launch::parse(
        r#"{"ptx": "warp_coll.ptx", "entry": "warp_coll", "grid": [300,1,1], "block": [80,1,1],
            "buffers": {"in": {"bytes": 96000, "random": {"seed": 5, "type": "u32", "min": 0, "max": 4294967295}},
                        "out": {"bytes": 1440000, "fill": 0}},
            "params": [{"buffer": "in"}, {"buffer": "out"}]}"#,
        &dir,
    )
    .unwrap();
    let src = std::fs::read_to_string(dir.join("warp_coll.ptx")).unwrap();
    let module = sim_module::parse_module(&src, "warp_coll.ptx").unwrap();
    let prep = Prepared::new(&module, &launch, launch.load_buffers().unwrap()).unwrap();
    let run = |sample: bool| {
        let mut o = opts(132, 2);
        o.sample = sample;
        run_grid(&prep, &launch, &o).unwrap()
    };
    let (full, sampled) = (run(false), run(true));
    assert!(sampled.timed.sampled.is_some());
    let out = |r: &GridRun| r.global.regions[1].bytes.clone();
    assert_eq!(out(&sampled), out(&full));
    // Some block's `__syncthreads_count` is non-zero (the reductions ran).
    let b = out(&full);
    assert!((0..300).any(|k| b[(k * 80 * 15 + 12) * 4] != 0));
}
