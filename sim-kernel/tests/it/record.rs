//! Kernel recordings stream: written as the warps finish, read as their
//! blocks are dealt, and replayed with the direct run's cycles and outputs;
//! damaged files are refused with errors naming the file and the part.

use sim_kernel::record::{
    record_launch, replay_stream, RecHeader, RecTrailer, RecordReader, Recording, MAX_RECORD_BYTES,
};
use sim_kernel::{run_grid, run_launch, Prepared, RunOptions};
use sim_module::{parse_module, Launch};
use std::path::{Path, PathBuf};

pub(crate) fn opts(sms: u32) -> RunOptions {
    let cfg = sim_core::preset(sim_isa::Target::SM_90);
    RunOptions::new(cfg, sim_core::SchedPolicy::Lrr, sms)
}

fn workload(name: &str) -> PathBuf {
    crate::in_crate("../workloads", name)
}

#[test]
fn a_multi_block_launch_records_and_replays_with_the_direct_cycles() {
    record_and_replay("reduce.json");
}

#[test]
fn global_atomics_on_several_sms_replay_in_the_direct_order() {
    // Held to the epoch's end in both runs: the same order, the same sums.
    record_and_replay("histogram.json");
}

fn record_and_replay(name: &str) {
    let path = workload(name);
    let o = opts(8);
    let direct = run_launch(&path, &o).unwrap();
    let mut bytes = Vec::new();
    let rec = record_launch(&path, &o, &mut bytes, "r.bin").unwrap();
    assert_eq!(rec.run.timed.cycles, direct.timed.cycles);
    assert_eq!(rec.run.buffers, direct.buffers);
    assert!(rec.run.recorded.is_empty(), "the warps went to the file");
    let total = direct.warps;
    assert_eq!(rec.stats.warps, total);
    assert_eq!(rec.stats.bytes, bytes.len() as u64);
    // What the writer held waiting for an earlier warp: about the resident
    // warps (8 SMs of 64 warp slots), never the launch's (8192, 2048).
    let resident = 8 * o.config.resident_warps as usize;
    assert!(
        rec.stats.max_pending <= resident,
        "{} warps pending at most; {resident} resident",
        rec.stats.max_pending
    );
    assert!((rec.stats.max_pending as u64) < total / 2);

    let reader = RecordReader::open("r.bin", &bytes[..]).unwrap();
    assert_eq!(reader.warps(), total);
    let rep = replay_stream(reader, &o).unwrap();
    assert_eq!(rep.recorded_cycles, direct.timed.cycles);
    assert_eq!(rep.run.timed.cycles, direct.timed.cycles);
    assert_eq!(rep.run.timed.stats, direct.timed.stats);
    assert_eq!(rep.run.timed.clock_span, direct.timed.clock_span);
    assert_eq!(rep.run.instructions, direct.instructions);
    assert!(rep.run.mismatches.is_empty(), "{:?}", rep.run.mismatches);
    for &i in &direct.launch.outputs {
        assert_eq!(rep.run.buffers[i], direct.buffers[i]);
    }
    // The whole file in memory says the same, byte for byte.
    let whole = Recording::from_bytes("r.bin", &bytes).unwrap();
    assert_eq!(whole.warps.len() as u64, total);
    assert_eq!(whole.to_bytes().unwrap(), bytes);
}

/// A launch of 6 blocks of 2 warps, each thread storing a value of its
/// block and thread: its recording's bytes.
pub(crate) fn small_recording() -> (Vec<u8>, u64) {
    let src =
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n\
         .reg .b32 %r<8>; .reg .b64 %rd<8>;\n\
         ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r1, %tid.x;\n\
         mov.u32 %r2, %ctaid.x;\nmad.lo.u32 %r3, %r2, 64, %r1;\nmul.wide.u32 %rd3, %r3, 4;\n\
         add.s64 %rd4, %rd2, %rd3;\nld.global.u32 %r4, [%rd4];\nadd.u32 %r5, %r4, %r3;\n\
         st.global.u32 [%rd4], %r5;\nret;\n}\n";
    let rec = recording_of(src);
    assert_eq!(rec.warps.len(), 12);
    (rec.to_bytes().unwrap(), rec.trailer.cycles)
}

/// The recording of `src`'s kernel `k(.param .u64 p)` run on 6 blocks of
/// 64 threads, `p` a buffer of 1536 bytes of 1 (its output).
pub(crate) fn recording_of(src: &str) -> Recording {
    let module = parse_module(src, "k.ptx").unwrap();
    let launch = Launch::parse(
        r#"{"ptx": "k.ptx", "entry": "k", "grid": [6,1,1], "block": [64,1,1],
            "buffers": {"b": {"bytes": 1536, "fill": 1}}, "params": [{"buffer": "b"}],
            "outputs": ["b"]}"#,
        Path::new("."),
    )
    .unwrap();
    let data = launch.load_buffers().unwrap();
    let mut o = opts(2);
    o.log_loads = true;
    let header = RecHeader::new(&launch, "k.ptx", src, &data, &o);
    let prep = Prepared::new(&module, &launch, data).unwrap();
    let run = run_grid(&prep, &launch, &o).unwrap();
    let cycles = run.timed.cycles;
    let outputs = vec![run.global.buffer_bytes(&prep.buffers)[0].clone()];
    Recording {
        header,
        warps: run.recorded,
        trailer: RecTrailer { cycles, outputs },
    }
}

/// Each record's kind, offset and payload length.
fn records(b: &[u8]) -> Vec<(u8, usize, u64)> {
    let mut out = Vec::new();
    let mut at = 12;
    while at < b.len() {
        let len = u64::from_le_bytes(b[at + 1..at + 9].try_into().unwrap());
        out.push((b[at], at, len));
        // Kind, length, payload, checksum.
        at += 17 + len as usize;
    }
    out
}

/// Reads and replays `b` as far as it goes: the first error's message.
fn refusal(b: &[u8]) -> String {
    let r = RecordReader::open("bad.bin", b).and_then(|rd| replay_stream(rd, &opts(2)));
    match r {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_small_recording_replays_with_its_cycles() {
    let (b, cycles) = small_recording();
    let rep = replay_stream(RecordReader::open("k.bin", &b[..]).unwrap(), &opts(2)).unwrap();
    assert_eq!(rep.run.timed.cycles, cycles);
    assert!(rep.run.mismatches.is_empty());
    let recs = records(&b);
    assert_eq!(recs.len(), 14, "header, 12 warps, trailer");
    assert_eq!(recs[0].0, b'H');
    assert!(recs[1..13].iter().all(|r| r.0 == b'W'));
    assert_eq!(recs[13].0, b'T');
}

#[test]
fn truncated_and_corrupt_recordings_are_refused_clearly() {
    let (b, _) = small_recording();
    let recs = records(&b);
    // Every cut: refused, never a panic, naming the file.
    for cut in 0..b.len() {
        let e = refusal(&b[..cut]);
        assert!(e.starts_with("bad.bin: "), "cut {cut}: {e}");
    }
    // Inside the third warp's record.
    let (_, at, len) = recs[3];
    let e = refusal(&b[..at + 9 + len as usize / 2]);
    assert!(
        e.contains(
            "corrupt or truncated kernel recording: warps[2]: the file ends inside the record"
        ),
        "{e}"
    );
    // Before the trailer.
    let e = refusal(&b[..recs[13].1]);
    assert!(e.contains("trailer: the file ends at byte"), "{e}");
    // A length past the limit, and one past the file's end.
    let set_len = |rec: usize, len: u64| {
        let mut x = b.clone();
        let at = recs[rec].1;
        x[at + 1..at + 9].copy_from_slice(&len.to_le_bytes());
        x
    };
    let e = refusal(&set_len(4, u64::MAX));
    assert!(
        e.contains("warps[3] (at byte")
            && e.contains(&format!("more than the limit of {MAX_RECORD_BYTES}")),
        "{e}"
    );
    let e = refusal(&set_len(4, MAX_RECORD_BYTES));
    assert!(
        e.contains("warps[3]: the file ends inside the record"),
        "{e}"
    );
    // A length one short: the payload does not decode or leaves bytes.
    let e = refusal(&set_len(4, recs[4].2 - 1));
    assert!(
        e.contains("corrupt or truncated kernel recording: warps[3]"),
        "{e}"
    );
    // Another kind byte.
    let mut x = b.clone();
    x[recs[5].1] = b'Q';
    let e = refusal(&x);
    assert!(
        e.contains("warps[4]: record kind 0x51 (none of H, W, T)"),
        "{e}"
    );
    // A warp too many, one too few, bytes after the end.
    let (_, at, len) = recs[12];
    let mut x = b[..at + 17 + len as usize].to_vec();
    x.extend_from_slice(&b[at..]);
    let e = refusal(&x);
    assert!(
        e.contains(
            "invalid kernel recording: 13 warps, but a grid of 6 blocks of 64 threads has 12"
        ),
        "{e}"
    );
    let mut x = b[..at].to_vec();
    x.extend_from_slice(&b[recs[13].1..]);
    let e = refusal(&x);
    assert!(
        e.contains(
            "invalid kernel recording: 11 warps, but a grid of 6 blocks of 64 threads has 12"
        ),
        "{e}"
    );
    let mut x = b.clone();
    x.extend_from_slice(b"abc");
    let e = refusal(&x);
    assert!(e.contains("3 bytes after the recording's end"), "{e}");
    // Warps out of order.
    let mut x = b[..recs[1].1].to_vec();
    x.extend_from_slice(&b[recs[2].1..recs[3].1]);
    x.extend_from_slice(&b[recs[1].1..recs[2].1]);
    x.extend_from_slice(&b[recs[3].1..]);
    let e = refusal(&x);
    assert!(
        e.contains("warps[0] is block 0 warp 1; expected block 0 warp 0"),
        "{e}"
    );
}

/// Issue 28: a recording carries a checksum per record, checked on read.
/// One byte of a recorded load value flipped (the payload still decodes,
/// and the replay would compute other outputs) is refused, naming the
/// record; so is a damaged checksum.
#[test]
fn a_flipped_load_value_fails_its_records_checksum() {
    let (b, _) = small_recording();
    let rec = Recording::from_bytes("k.bin", &b).unwrap();
    let (i, k) = rec
        .warps
        .iter()
        .enumerate()
        .find_map(|(i, w)| w.loads.iter().position(|&v| v % 256 < 250).map(|k| (i, k)))
        .expect("a warp with a load value");
    let mut edited = rec;
    edited.warps[i].loads[k] ^= 1;
    let e = edited.to_bytes().unwrap();
    assert_eq!(e.len(), b.len(), "the flip keeps every length");
    let (_, at, len) = records(&b)[1 + i];
    let payload = at + 9..at + 9 + len as usize;
    // The edited payload under the original checksum: one byte differs.
    let mut x = b.clone();
    x[payload.clone()].copy_from_slice(&e[payload.clone()]);
    assert_eq!(x.iter().zip(&b).filter(|(p, q)| p != q).count(), 1);
    let msg = refusal(&x);
    assert!(
        msg.contains(&format!(
            "corrupt or truncated kernel recording: warps[{i}] (record at byte {at}): checksum"
        )),
        "{msg}"
    );
    // The checksum itself damaged.
    let mut x = b.clone();
    x[payload.end + 3] ^= 0x10;
    let msg = refusal(&x);
    assert!(
        msg.contains(&format!("warps[{i}] (record at byte {at}): checksum")),
        "{msg}"
    );
    // Cut inside the checksum.
    let msg = refusal(&b[..payload.end + 4]);
    assert!(
        msg.contains(&format!(
            "warps[{i}]: the file ends inside the record's checksum"
        )),
        "{msg}"
    );
}

/// Issue 28: a replay checks each warp's steps against the kernel's
/// control-flow graph. Edits that keep every checksum (the recording
/// written again) and every address were accepted before, replaying with
/// other statistics and outputs: a statement index swapped for another
/// `add`'s, a branch's outcome changed, steps cut or added. Each is refused
/// naming the warp and the step.
#[test]
fn steps_the_control_flow_graph_does_not_allow_are_refused() {
    // Lanes 0..16 branch to L1 (statement 6), the others fall through
    // (statement 4) and jump over it; both meet at L2 (statement 7).
    let src =
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n\
         .reg .pred %p<2>; .reg .b32 %r<8>; .reg .b64 %rd<8>;\n\
         ld.param.u64 %rd1, [p];\n\
         mov.u32 %r1, %tid.x;\n\
         setp.lt.u32 %p1, %r1, 16;\n\
         @%p1 bra L1;\n\
         add.u32 %r2, %r1, 100;\n\
         bra L2;\n\
         L1: add.u32 %r2, %r1, 200;\n\
         L2: mul.wide.u32 %rd3, %r1, 4;\n\
         add.s64 %rd4, %rd1, %rd3;\n\
         st.global.u32 [%rd4], %r2;\n\
         ret;\n}\n";
    let rec = recording_of(src);
    let steps: Vec<u32> = rec.warps[0].steps.iter().map(|s| s.0).collect();
    assert_eq!(
        steps,
        [0, 1, 2, 3, 6, 4, 5, 7, 8, 9, 10],
        "taken lanes first"
    );
    assert_eq!(
        rec.warps[0].steps[3].1, 0xffff,
        "lanes 0..16 take the branch"
    );
    // As recorded: replays, outputs as recorded.
    let rep = replay_stream(
        RecordReader::open("k.bin", &rec.to_bytes().unwrap()[..]).unwrap(),
        &opts(2),
    )
    .unwrap();
    assert!(rep.run.mismatches.is_empty(), "{:?}", rep.run.mismatches);
    let refused = |f: &dyn Fn(&mut Recording)| {
        let mut r = rec.clone();
        f(&mut r);
        refusal(&r.to_bytes().unwrap())
    };
    // The taken path's `add` run as the fall-through's (same lanes, no
    // memory): accepted before, with outputs 100 less.
    let e = refused(&|r| r.warps[0].steps[4].0 = 4);
    assert!(
        e.contains("bad.bin: invalid kernel recording: warps[0].steps[4]: statement 4, but the control-flow graph leads to statement 6 there (lanes 0xffff)"),
        "{e}"
    );
    // The branch taken by every lane: L1 runs on all of them, not on the
    // recorded 16; in warp 1 (no lane takes it) the fall-through does not
    // come next.
    let e = refused(&|r| r.warps[0].steps[3].1 = u32::MAX);
    assert!(
        e.contains("warps[0].steps[4]: statement 6 on lanes 0xffff, but it runs on (unguarded) all of the active lanes 0xffffffff there"),
        "{e}"
    );
    assert_eq!(rec.warps[1].steps[3].1, 0);
    let e = refused(&|r| r.warps[1].steps[3].1 = u32::MAX);
    assert!(
        e.contains("warps[1].steps[4]: statement 4, but the control-flow graph leads to statement 6 there (lanes 0xffffffff)"),
        "{e}"
    );
    // By none: statement 4 comes next, not 6.
    let e = refused(&|r| r.warps[0].steps[3].1 = 0);
    assert!(
        e.contains(
            "warps[0].steps[4]: statement 6, but the control-flow graph leads to statement 4 there"
        ),
        "{e}"
    );
    // Cut before `ret`, or a step after it.
    let e = refused(&|r| {
        r.warps[2].steps.pop();
    });
    assert!(
        e.contains("warps[2].steps[10]: the steps end before statement 10, which lanes 0xffffffff have still to run"),
        "{e}"
    );
    let e = refused(&|r| r.warps[2].steps.push((10, u32::MAX)));
    assert!(
        e.contains("warps[2].steps[11]: statement 10 after every lane of the warp has exited"),
        "{e}"
    );
    // Every other statement index at every step, and every lane flipped
    // at every step: each refused at that step (or, for a branch's lanes,
    // at the step its new outcome contradicts; a memory step's lanes by
    // its accesses).
    let n = rec.warps[0].steps.len();
    for k in 0..n {
        for stmt in (0..11).filter(|&x| x != rec.warps[0].steps[k].0) {
            let e = refused(&|r| r.warps[0].steps[k].0 = stmt);
            assert!(
                e.contains(&format!("warps[0].steps[{k}]: statement {stmt}")),
                "{e}"
            );
        }
        for bit in 0..32 {
            let e = refused(&|r| r.warps[0].steps[k].1 ^= 1 << bit);
            assert!(
                e.contains("invalid kernel recording: warps[0]."),
                "step {k} lane {bit}: {e}"
            );
        }
    }
    // Past the kernel.
    let e = refused(&|r| r.warps[0].steps[1].0 = 99);
    assert!(
        e.contains("warps[0].steps[1]: statement 99 is past the kernel's 11 statements"),
        "{e}"
    );
}
