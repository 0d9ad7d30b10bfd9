//! Fuzz targets for kernel recordings (issue 28): whatever the bytes, reading
//! and replaying a recording gives a replay or an error naming the file,
//! never a panic, in bounded memory and time. Run longer with
//! `tools/fuzz.sh 1800 20000 sim-kernel fuzz_recording_` (docs/fuzzing.md).
//!
//! The seeds are two small recordings made here (a straight-line kernel of
//! 12 warps and one whose warps branch and reconverge); the targets damage
//! them at three depths: raw bytes (the checksums refuse them), payloads
//! re-framed with a correct length and checksum (bincode's decoder, the
//! header's and warps' checks), and decoded fields written back (the
//! control-flow check and the replay itself).

use super::record::{opts, recording_of, small_recording};
use proptest::prelude::*;
use sim_kernel::record::{replay_stream, RecordError, RecordReader, Recording};
use std::sync::OnceLock;

/// Lanes 0..16 branch to L1, the others fall through; both meet at L2.
const BRANCHY: &str =
    ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n\
     .reg .pred %p<2>; .reg .b32 %r<8>; .reg .b64 %rd<8>;\n\
     ld.param.u64 %rd1, [p];\nmov.u32 %r1, %tid.x;\nsetp.lt.u32 %p1, %r1, 16;\n\
     @%p1 bra L1;\nadd.u32 %r2, %r1, 100;\nbra L2;\nL1: add.u32 %r2, %r1, 200;\n\
     L2: mul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd1, %rd3;\n\
     st.global.u32 [%rd4], %r2;\nret;\n}\n";

/// The seed recordings' bytes, made once.
fn seeds() -> &'static [Vec<u8>; 2] {
    static SEEDS: OnceLock<[Vec<u8>; 2]> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let branchy = recording_of(BRANCHY).to_bytes().unwrap();
        [small_recording().0, branchy]
    })
}

/// Reads and replays `b` (and reads it whole): a replay or an error that
/// names the file; never a panic.
fn replay_holds(b: &[u8]) {
    let r = RecordReader::open("f.bin", b).and_then(|rd| replay_stream(rd, &opts(2)));
    match r {
        Ok(rep) => {
            // Replayed: its outputs are compared with the recorded ones
            // (`mismatches`), one entry per differing output at most.
            assert!(rep.run.mismatches.len() <= rep.run.launch.outputs.len());
        }
        // The engine's own errors (an instruction it does not run, a
        // fault, a limit) name the recorded module's line instead.
        Err(RecordError::Kernel(_)) => {}
        Err(e) => {
            let m = e.to_string();
            assert!(m.starts_with("f.bin: "), "an error that names no file: {m}");
        }
    }
    if let Err(e) = Recording::from_bytes("f.bin", b) {
        let m = e.to_string();
        assert!(m.starts_with("f.bin: "), "an error that names no file: {m}");
    }
}

/// One byte-level edit: `(kind, position, value)`.
type Edit = (u8, u32, u8);

/// Applies `edits` to `b` (set, flip a bit, insert, delete, truncate,
/// duplicate a run).
///
/// sim-core's `tests/it/text_edits.rs` edits text alike, without the bit
/// flip: each test crate holds its own (neither can reach the other's).
fn edit(b: &mut Vec<u8>, edits: &[Edit]) {
    for &(kind, pos, v) in edits {
        let len = b.len();
        let at = if len == 0 { 0 } else { pos as usize % len };
        match kind % 6 {
            0 if len > 0 => b[at] = v,
            1 if len > 0 => b[at] ^= 1 << (v % 8),
            2 => b.insert(at.min(len), v),
            3 if len > 0 => {
                b.remove(at);
            }
            4 => b.truncate(at),
            5 if len > 0 => {
                let end = (at + 1 + v as usize % 16).min(len);
                let run = b[at..end].to_vec();
                b.splice(at..at, run);
            }
            _ => {}
        }
    }
}

/// A record's checksum: FNV-1a (64-bit) over its kind, its length (`u64`,
/// little-endian) and its payload (as sim-kernel's `record::read` computes it).
fn checksum(kind: u8, body: &[u8]) -> u64 {
    let len = (body.len() as u64).to_le_bytes();
    std::iter::once(&kind)
        .chain(&len)
        .chain(body)
        .fold(0xcbf2_9ce4_8422_2325, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        })
}

/// The records of a valid recording: each one's kind and payload.
fn records(b: &[u8]) -> Vec<(u8, Vec<u8>)> {
    let mut out = Vec::new();
    let mut at = 12;
    while at < b.len() {
        let len = u64::from_le_bytes(b[at + 1..at + 9].try_into().unwrap()) as usize;
        out.push((b[at], b[at + 9..at + 9 + len].to_vec()));
        at += 17 + len;
    }
    out
}

/// `head` then each record framed with its length and checksum.
fn frame(head: &[u8], recs: &[(u8, Vec<u8>)]) -> Vec<u8> {
    let mut out = head.to_vec();
    for (kind, body) in recs {
        out.push(*kind);
        out.extend_from_slice(&(body.len() as u64).to_le_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(&checksum(*kind, body).to_le_bytes());
    }
    out
}

/// One edit of a decoded recording's fields: `(field, index, value)`.
type FieldEdit = (u8, u32, u64);

/// Applies `edits` to `r`'s fields: steps (statement, lanes), loads,
/// clocks, accesses, a warp's identity, the header's geometry, buffers,
/// parameters and module text, the trailer.
fn edit_fields(r: &mut Recording, edits: &[FieldEdit]) {
    for &(field, i, v) in edits {
        let i = i as usize;
        let nw = r.warps.len().max(1);
        let small = (v % 64) as u32;
        if let Some(w) = r.warps.get_mut(i % nw) {
            let ns = w.steps.len().max(1);
            match field % 24 {
                0 if !w.steps.is_empty() => w.steps[(i / nw) % ns].0 = small,
                1 if !w.steps.is_empty() => w.steps[(i / nw) % ns].0 = v as u32,
                2 if !w.steps.is_empty() => w.steps[(i / nw) % ns].1 = v as u32,
                3 if !w.steps.is_empty() => w.steps[(i / nw) % ns].1 ^= 1 << (v % 32),
                4 => w.steps.truncate((i / nw) % ns),
                5 => w.steps.insert((i / nw) % ns, (small, v as u32 >> 6)),
                6 if !w.loads.is_empty() => {
                    let n = w.loads.len();
                    w.loads[(i / nw) % n] = v;
                }
                7 => {
                    w.loads.pop();
                }
                8 => w.loads.push(v),
                9 => {
                    w.clocks.pop();
                }
                10 => w.clocks.push(v),
                11 => {
                    w.accesses.pop();
                }
                12 if !w.accesses.is_empty() => {
                    let a = w.accesses[(i / nw) % w.accesses.len()].clone();
                    w.accesses.push(a);
                }
                13 => w.cta = small,
                14 => w.warp = small,
                15 => w.lanes = v as u32,
                _ => {}
            }
        }
        let h = &mut r.header;
        match field % 24 {
            16 => h.grid[i % 3] = small,
            17 => h.block[i % 3] = (v % 2048) as u32,
            18 => h.sms = small,
            19 if !h.buffers.is_empty() => {
                let n = h.buffers.len();
                h.buffers[i % n].bytes = v % (1 << 32);
            }
            20 if !h.buffers.is_empty() => {
                let n = h.buffers.len();
                h.buffers[i % n].initial = None;
            }
            21 if !h.params.is_empty() => {
                h.params.pop();
            }
            22 => {
                let mut m = std::mem::take(&mut h.module).into_bytes();
                edit(&mut m, &[((v % 6) as u8, i as u32, (v >> 8) as u8)]);
                h.module = String::from_utf8_lossy(&m).into_owned();
            }
            23 => match i % 3 {
                0 => r.trailer.cycles = v,
                1 => {
                    r.trailer.outputs.pop();
                }
                _ => {
                    if let Some(o) = r.trailer.outputs.first_mut() {
                        o.push(v as u8);
                    }
                }
            },
            _ => {}
        }
    }
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    proptest::collection::vec(any::<Edit>(), 1..=5)
}

proptest! {
    #[test]
    fn fuzz_recording_arbitrary_bytes(
        head in 0usize..3,
        tail in proptest::collection::vec(any::<u8>(), 0..400),
    ) {
        // Nothing, the magic, or the magic and version before the bytes.
        let mut b = seeds()[0][..[0, 8, 12][head]].to_vec();
        b.extend_from_slice(&tail);
        replay_holds(&b);
    }

    #[test]
    fn fuzz_recording_byte_edits(seed in 0usize..2, e in edits()) {
        let mut b = seeds()[seed].clone();
        edit(&mut b, &e);
        replay_holds(&b);
    }

    #[test]
    fn fuzz_recording_reframed_payloads(
        seed in 0usize..2,
        which in any::<u32>(),
        e in edits(),
        drop_or_dup in 0u8..4,
    ) {
        // A payload edited, or a record dropped or repeated, then framed
        // again with correct lengths and checksums.
        let b = &seeds()[seed];
        let mut recs = records(b);
        let k = which as usize % recs.len();
        match drop_or_dup {
            0 => {
                recs.remove(k);
            }
            1 => {
                let r = recs[k].clone();
                recs.insert(k, r);
            }
            _ => edit(&mut recs[k].1, &e),
        }
        replay_holds(&frame(&b[..12], &recs));
    }

    #[test]
    fn fuzz_recording_decoded_fields(
        seed in 0usize..2,
        e in proptest::collection::vec(any::<FieldEdit>(), 1..=4),
    ) {
        let mut r = Recording::from_bytes("f.bin", &seeds()[seed]).unwrap();
        edit_fields(&mut r, &e);
        replay_holds(&r.to_bytes().unwrap());
    }
}
