//! The WMMA statements against the SASS oracle:
//! `tests/data/sass-wmma.jsonl.gz` holds warp vectors
//! (`sim_isa::conform_warp`) made by `xtask values --family wmma`: each
//! `wmma.load`, `wmma.mma` and `wmma.store` form compiled by ptxas 13.0.88
//! for sm_90 in a one-warp kernel, and its machine code (`HMMA.16816`,
//! `HMMA.1684.F32.TF32`, `IMMA.16816`, `IMMA.8816` in ptxas's 4-bit
//! routine, `BMMA.88128.AND.POPC`, `DMMA.8x8x4{,.RZ,.RM,.RP}`, `LDG`/`LDS`/
//! `LDSM`/`MOVM` loads, `STG`/`STS` stores and their address arithmetic)
//! run on xtask's SASS interpreter. A load's or store's memory image is the
//! vector's `shared` field whatever the statement's space (sim-isa's
//! runner serves every space from it; the address register is an offset
//! into it); a store's `shared_out` is the image after. sim-isa must give
//! every register of every lane and every byte bit for bit.

use super::mma_sass::{agreed, lines, values, vector_file};
use sim_isa::conform_warp::run_warp_vector;

fn vectors() -> String {
    vector_file("sass-wmma.jsonl.gz")
}

#[test]
fn every_wmma_form_agrees_with_the_machine_code() {
    let per_form = agreed(&vectors());
    // 45 `wmma.mma`: per 16-bit shape f16 with four d/c type pairs, bf16,
    // s8 and u8 with and without .satfinite (27); the other three layout
    // pairs of m16n16k16 f16 and of tf32 (6); tf32 row.col; f64 in five
    // roundings; s4/u4 with and without .satfinite (4); b1 .xor/.and.popc.
    // 144 loads and 46 stores: every fragment, type and layout of each
    // shape from global memory (88 + 26), the shapes but m32n8k16 and
    // m8n32k16 from shared (44 + 14), m16n16k16 f16/f32 with a stride
    // register (8 + 4), and six through generic addresses (4 + 2).
    assert_eq!(per_form.len(), 235, "{per_form:?}");
    for (prefix, n) in [("wmma.mma", 45), ("wmma.load", 144), ("wmma.store", 46)] {
        let got = per_form.keys().filter(|k| k.starts_with(prefix)).count();
        assert_eq!(got, n, "{prefix}");
    }
    let count = |f: &dyn Fn(&str) -> bool| per_form.keys().filter(|k| f(k)).count();
    assert_eq!(count(&|k| k.contains(".shared.")), 58);
    assert_eq!(count(&|k| k.ends_with(", %r9;")), 12);
    let generic = |k: &str| !k.starts_with("wmma.mma") && !k.contains(".global.");
    assert_eq!(count(&|k| generic(k) && !k.contains(".shared.")), 6);
    // Sixteen input sets of each row.col form of the opcodes the mma
    // vectors lack (tf32, f64, 4-bit, b1), four of the other wmma.mma
    // forms, two of each load and store.
    for (form, &n) in &per_form {
        let new = ["tf32", "f64", "s4", "u4", "b1"]
            .iter()
            .any(|t| form.contains(&format!(".{t}.")));
        let want = match form.starts_with("wmma.mma") {
            true if new && form.contains(".row.col.") => 16,
            true => 4,
            false => 2,
        };
        assert_eq!(n, want, "{form}");
    }
}

/// The same statements on an H200 (the H100's chip; 2026-11-30,
/// `tools/gpu/warp_run.py`): `tests/data/h200-wmma.jsonl.gz`, two of each
/// form's input sets (new seeds; all 1,408 that ran equalled the oracle's).
#[test]
fn every_wmma_form_agrees_with_an_h200() {
    let text = vector_file("h200-wmma.jsonl.gz");
    let per_form = agreed(&text);
    assert_eq!(per_form.len(), 235, "{per_form:?}");
    assert!(per_form.values().all(|&n| n == 2), "{per_form:?}");
    assert!(lines(&text).all(|l| l.contains("\"source\":\"h200\"")));
}

/// The number of `form`'s vectors sim-isa disagrees with once their
/// statement is rewritten by `edit`.
fn disagree_after(text: &str, form: &str, edit: &dyn Fn(&str) -> String) -> usize {
    lines(text)
        .filter(|l| l.contains(form))
        .filter(|l| run_warp_vector(&edit(l)) != Ok(None))
        .count()
}

/// The vectors tell apart what the forms differ in: each directed f64
/// rounding from the others and from `.rn`, 4-bit `.satfinite` (clamping)
/// from its absence (wrapping), `.xor` from `.and`, and a load's layout.
#[test]
fn the_vectors_tell_the_forms_apart() {
    let text = vectors();
    let f64_form = |r: &str| format!("m8n8k4.{r}.f64");
    for from in ["rz", "rm", "rp"] {
        for to in ["rn", "rz", "rm", "rp"].into_iter().filter(|&t| t != from) {
            let n = disagree_after(&text, &f64_form(from), &|l| {
                l.replace(&f64_form(from), &f64_form(to))
            });
            assert!(n > 0, ".{from} vectors all agree as .{to}");
        }
    }
    for ty in ["s4", "u4"] {
        let form = format!("m8n8k32.satfinite.s32.{ty}");
        let n = disagree_after(&text, &form, &|l| l.replace(".satfinite", ""));
        assert!(n > 0, "{ty} .satfinite vectors all agree wrapping");
    }
    let n = disagree_after(&text, "wmma.mma.xor.popc", &|l| {
        l.replace(".xor.popc", ".and.popc")
    });
    assert!(n > 0, ".xor vectors all agree as .and");
    let load = "wmma.load.a.sync.aligned.row.m16n16k16.global.f16";
    let n = disagree_after(&text, load, &|l| l.replace(".row.", ".col."));
    assert!(n > 0, "row-major load vectors all agree as column-major");
}

/// The vectors reach the edges: 4-bit and 8-bit `.satfinite` sums clamped
/// at both ends, b1 sums wrapping past `i32::MAX`, f64 and tf32 NaN and
/// infinities, and stores' images written in both spaces.
#[test]
fn the_wmma_vectors_reach_the_edges() {
    let text = vectors();
    for form in [".satfinite.s32.s4.s4.s32", ".satfinite.s32.s8.s8.s32"] {
        let out = values(&text, "out", form);
        assert!(out.contains(&0x7fff_ffff), "{form} high");
        assert!(out.contains(&0x8000_0000), "{form} low");
    }
    assert!(values(&text, "out", ".satfinite.s32.u4.u4.s32").contains(&0x7fff_ffff));
    // b1: c within 4096 of i32::MAX plus up to 128 ones wraps negative.
    let b1_in = values(&text, "in", ".xor.popc");
    assert!(b1_in.iter().any(|&v| v > 0x7fff_ff80 && v <= 0x7fff_ffff));
    let f64_out = values(&text, "out", "m8n8k4.rz.f64");
    assert!(f64_out
        .iter()
        .any(|&v| v & 0x7ff0_0000_0000_0000 == 0x7ff0 << 48));
    let tf32_out = values(&text, "out", ".f32.tf32.tf32.f32");
    assert!(tf32_out.contains(&0x7fff_ffff), "tf32 NaN");
    for space in ["global", "shared"] {
        let stored = lines(&text)
            .filter(|l| {
                l.contains(&format!(
                    "wmma.store.d.sync.aligned.row.m16n16k16.{space}.f32"
                ))
            })
            .filter(|l| l.contains("\"shared_out\""))
            .count();
        assert!(stored > 0, "{space} stores");
    }
}
