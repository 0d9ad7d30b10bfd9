//! Cross-check of the sm_90 sequences against the machine code ptxas 13.0 emitted
//! for the H100 microbenchmarks (`data/calibration/h100/microbench.json`, opcode
//! histogram per loop iteration).
//!
//! Each kernel repeats one PTX form 64 times per chain (1 or 4 chains) and adds a
//! 3-instruction loop overhead. Instructions that depend on a chained operand
//! appear once per instance. Those that read only loop-invariant operands may be
//! hoisted, computed once, or recomputed per instance (register pressure), so they
//! count between 0 and once per instance. Register moves (`IMAD.MOV.U32`) depend
//! on register allocation across copies and are not compared.

use super::super::*;
use std::collections::BTreeMap;

const MICROBENCH: &str = include_str!("../../../data/calibration/h100/microbench.json");

/// Microbenchmark `op` -> its PTX instructions as (lowering key, chained operands).
/// The keys stand for every comparison and sign (the table uses `lt`, unsigned).
// A data table, one row a microbenchmark: rows alike in shape stay (issue 27).
const FORMS: &[(&str, &[(&str, &str)])] = &[
    ("add.u32", &[("alu.add.b32", "a"), ("alu.xor.b32", "a")]),
    ("vadd4", &[("vadd4.uuu.plain.def", "a")]),
    ("vadd4.sat", &[("vadd4.uuu.sat.def", "a")]),
    ("vsub4.s.sat", &[("vsub4.sss.sat.def", "a")]),
    ("vabsdiff4.add", &[("vabsdiff4.uuu.add.def", "ac")]),
    ("vabsdiff4", &[("vabsdiff4.uuu.plain.def", "a")]),
    ("vmin4", &[("vmin4.uuu.plain.def", "a")]),
    ("vmax4.s", &[("vmax4.sss.plain.def", "a")]),
    ("vavrg4", &[("vavrg4.uuu.plain.def", "a")]),
    ("vset4", &[("vset4.ord.uu.plain.def", "a")]),
    ("vset4.add", &[("vset4.ord.uu.add.def", "ac")]),
    ("vadd2.s.sat", &[("vadd2.sss.sat.def", "a")]),
    ("vavrg2", &[("vavrg2.uuu.plain.def", "a")]),
    ("vabsdiff2.add", &[("vabsdiff2.uuu.add.def", "ac")]),
    ("vmin2.s", &[("vmin2.sss.plain.def", "a")]),
    ("vset2", &[("vset2.eq.uu.plain.def", "a")]),
    ("set.u32.u32", &[("set.i32.i32.nobool", "a")]),
    ("set.f32.f32", &[("set.f32.f32.nobool", "a")]),
    ("set.s32.f32.gtu", &[("set.i32.f32.nobool", "a")]),
    ("set.and.u32.s32", &[("set.i32.i32.bool", "a")]),
    ("setp+selp", &[("setp.i32.nobool", "a"), ("selp.b32", "c")]),
    ("selp.b32", &[("selp.b32", "a")]),
    ("slct.s32", &[("slct.s32.noftz", "c")]),
    ("set.f16x2", &[("set.f16x2.f16x2.nobool", "a")]),
    ("set.bf16x2", &[("set.bf16x2.bf16x2.nobool", "a")]),
    ("set.f16.f16", &[("set.f16.f16.nobool", "a")]),
    (
        "setp+selp.f64",
        &[("setp.f64.nobool", "a"), ("selp.b64", "c")],
    ),
    (
        "setp+selp.u64",
        &[("setp.i64.nobool", "a"), ("selp.b64", "c")],
    ),
];

/// Kernels where ptxas optimised across instances: two independent f16 chains
/// packed into one HSET2 (and PRMTs to pack them).
const ACROSS_INSTANCES: &[&str] = &["b25_tput"];

/// The opcode with what the key does not fix removed: comparison, sign and
/// boolean modifiers of compares; IADD3 and IMAD.IADD are the same add (ptxas
/// moves adds to the IMAD unit in long chains: `add.u32` runs as IMAD.IADD on
/// the H100); FSEL and SEL the same select (`selp.f64` vs the key's `selp.b64`).
fn normalise(mnemonic: &str) -> String {
    const COMPARES: [&str; 8] = [
        "ISETP", "FSETP", "DSETP", "HSETP2", "ISET", "FSET", "DSET", "HSET2",
    ];
    const DROP: [&str; 18] = [
        "EQ", "NE", "LT", "LE", "GT", "GE", "EQU", "NEU", "LTU", "LEU", "GTU", "GEU", "NUM", "NAN",
        "U32", "AND", "OR", "XOR",
    ];
    let mut parts = mnemonic.split('.');
    let base = parts.next().unwrap_or_default();
    match mnemonic {
        "IMAD.IADD" => return "IADD3".into(),
        "FSEL" => return "SEL".into(),
        _ => {}
    }
    if COMPARES.contains(&base) {
        let kept: Vec<&str> = parts.filter(|m| !DROP.contains(m)).collect();
        return std::iter::once(base)
            .chain(kept)
            .collect::<Vec<_>>()
            .join(".");
    }
    mnemonic.to_string()
}

/// (per-instance counts of instructions on the chain, of loop-invariant ones).
fn split(key: &str, chained: &str) -> (BTreeMap<String, u64>, BTreeMap<String, u64>) {
    let seq = sequence(SassArch::Sm90, key).unwrap_or_else(|| panic!("no sm_90 row for {key}"));
    let (mut on, mut inv) = (BTreeMap::new(), BTreeMap::new());
    let mut dep = Vec::new();
    for inst in seq.insts {
        let d = inst.deps().any(|s| match s {
            Src::Inst(j) => dep[usize::from(j)],
            Src::A => chained.contains('a'),
            Src::B => chained.contains('b'),
            Src::C => chained.contains('c'),
            Src::D => chained.contains('d'),
        });
        dep.push(d);
        *(if d { &mut on } else { &mut inv })
            .entry(normalise(&inst.mnemonic()))
            .or_insert(0) += 1;
    }
    (on, inv)
}

#[test]
fn sm90_sequences_agree_with_the_h100_kernels_machine_code() {
    let json: serde_json::Value = serde_json::from_str(MICROBENCH).expect("microbench.json");
    let results = json["results"].as_array().expect("results");
    let mut checked = 0;
    for r in results.iter().filter(|r| r["kernel_text"].is_string()) {
        let name = r["name"].as_str().expect("name");
        if ACROSS_INSTANCES.contains(&name) {
            continue;
        }
        let op = r["op"].as_str().expect("op");
        let forms = FORMS
            .iter()
            .find(|f| f.0 == op)
            .unwrap_or_else(|| panic!("{name}: no form for {op}"))
            .1;
        let instances = 64 * r["chains_per_thread"].as_u64().expect("chains");
        let mut measured: BTreeMap<String, i64> = BTreeMap::new();
        for (m, n) in r["sass_opcodes_per_loop_iteration"]
            .as_object()
            .expect("histogram")
        {
            *measured.entry(normalise(m)).or_insert(0) += n.as_i64().expect("count");
        }
        // The loop's counter add, compare and branch.
        for overhead in ["VIADD", "ISETP.GE.U32.AND", "BRA"] {
            *measured.entry(normalise(overhead)).or_insert(0) -= 1;
        }
        let (mut lo, mut inv) = (BTreeMap::new(), BTreeMap::new());
        for &(key, chained) in forms {
            let (o, i) = split(key, chained);
            o.into_iter()
                .for_each(|(k, n)| *lo.entry(k).or_insert(0) += n * instances);
            i.into_iter()
                .for_each(|(k, n)| *inv.entry(k).or_insert(0) += n * instances);
        }
        let ops: std::collections::BTreeSet<&String> =
            measured.keys().chain(lo.keys()).chain(inv.keys()).collect();
        for opc in ops.into_iter().filter(|o| *o != "IMAD.MOV.U32") {
            let m = measured.get(opc).copied().unwrap_or(0);
            let l = lo.get(opc).copied().unwrap_or(0) as i64;
            let h = l + inv.get(opc).copied().unwrap_or(0) as i64;
            assert!(
                (l..=h).contains(&m),
                "{name} ({op}): {opc} x{m} per iteration, sequence gives {l}..={h}"
            );
        }
        checked += 1;
    }
    assert_eq!(
        checked, 55,
        "every kernel with a kernel text but the one listed"
    );
}
