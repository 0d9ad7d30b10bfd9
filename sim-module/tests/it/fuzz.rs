//! Fuzz targets for the module parser (with the CFG over whatever it accepts)
//! and the launch-file reader: arbitrary input must give an error, never a
//! panic. Run longer with, for example,
//! `PROPTEST_CASES=2000000 cargo test -p sim-module --release --test it fuzz_`
//! (measured runs in docs/fuzzing.md).

use proptest::prelude::*;
use sim_module::launch::{ParamValue, MAX_BLOCK_THREADS, MAX_GRID_BLOCKS};
use sim_module::*;
use std::path::Path;

/// Whether 1-based `line`/`col` (characters) lie in `text` or just after a
/// line's last character (an error at the end of a line or of the file).
pub fn inside(text: &str, line: usize, col: usize) -> bool {
    let lines: Vec<&str> = text.split('\n').collect();
    line >= 1 && line <= lines.len() && col >= 1 && col <= lines[line - 1].chars().count() + 1
}

/// Parses `text`: an error must point inside the text; whatever is accepted
/// must give a consistent CFG, and every decoded instruction must print
/// as text that re-parses (with the body's names) to the same instruction.
fn module_holds(text: &str) {
    let m = match parse_module(text, "f.ptx") {
        Ok(m) => m,
        Err(e) => {
            if !matches!(e.kind, ModuleErrorKind::TooLarge { .. }) {
                assert!(
                    inside(text, e.pos.line as usize, e.pos.col as usize),
                    "error outside the text: {e}"
                );
            }
            return;
        }
    };
    for f in &m.functions {
        let Some(b) = &f.body else { continue };
        for st in &b.statements {
            if let StatementKind::Instruction(i) = &st.kind {
                let printed = i.display(&b.symbols).to_string();
                let mut syms = b.symbols.clone();
                let again = sim_isa::parse::parse_instruction(&printed, &mut syms);
                assert_eq!(again.as_ref(), Ok(i), "{} printed as {printed}", st.text);
            }
        }
        let c = Cfg::new(b);
        let n = c.blocks.len();
        for (i, blk) in c.blocks.iter().enumerate() {
            assert!(blk.start < blk.end && blk.end <= b.statements.len());
            for s in &blk.succs {
                if let Node::Block(t) = *s {
                    assert!(t < n && c.blocks[t].preds.contains(&i));
                }
            }
            if let Some(Node::Block(d)) = c.ipdom(i) {
                assert!(d < n && d != i);
            }
        }
        for s in 0..b.statements.len() {
            assert!(c.reconvergence(s).is_none_or(|r| r <= b.statements.len()));
        }
    }
}

/// A small module with most of the grammar: variables, a function, a call,
/// scopes, labels, guards, pragmas and debug directives.
const SEED_MODULE: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
    .global .align 4 .u32 tab[4] = {1, 2, 3, 4};\n.extern .shared .align 16 .b8 dyn[];\n\
    .func (.param .b32 r) f(.param .b32 a)\n{\n.reg .b32 %r<2>;\nld.param.b32 %r0, [a];\n\
    st.param.b32 [r], %r0;\nret;\n}\n\
    .visible .entry k(.param .u64 p, .param .u32 n) .maxntid 64, 1, 1\n{\n\
    .reg .pred %p<3>;\n.reg .b32 %r<9>;\n.reg .b64 %rd<4>;\n.loc 1 2 3\nmov.u32 %r1, %tid.x;\n\
    ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\nld.global.v2.u32 {%r4, %r5}, [%rd2+8];\n\
    atom.global.add.u32 %r6, [%rd2], 1;\nred.shared.add.u32 [dyn], %r1;\nld.shared.u32 %r7, [dyn+4];\n\
    mov.u64 %rd3, tab;\nbar.sync 0;\nshfl.sync.bfly.b32 %r3|%p2, %r1, 1, 31, -1;\n\
    vote.sync.ballot.b32 %r4, %p1, -1;\nactivemask.b32 %r5;\nmembar.gl;\nfence.acq_rel.gpu;\n\
    st.global.u8 [%rd2+3], %r6;\natom.shared.cas.b32 %r6, [dyn], %r4, %r5;\n\
    setp.lt.u32 %p1, %r1, 4;\n@%p1 bra L1;\n{ .reg .pred q; setp.eq.u32 q, %r1, 0; @q bra L2; L2: }\n\
    { .param .b32 a0; .param .b32 r0; call.uni (r0), f, (a0); }\n\
    L1: .pragma \"nounroll\";\nadd.u32 %r2, %r2, 1;\nsetp.ne.u32 %p2, %r2, 8;\n@!%p2 bra L1;\n\
    vabsdiff4.u32.u32.u32.add %r3, %r1, %r2, %r3;\nexit;\n}\n";

const TOKENS: &[&str] = &[
    ".version 8.0",
    ".target sm_90",
    ".address_size 64",
    ".visible",
    ".entry",
    ".func",
    ".extern",
    ".global",
    ".const",
    ".shared",
    ".local",
    ".param",
    ".reg",
    ".pred",
    ".b32",
    ".u64",
    ".f32",
    ".b8",
    ".v4",
    ".align 8",
    ".ptr",
    ".maxntid 1,1,1",
    ".pragma \"x\";",
    ".loc 1 1 1",
    ".file 1 \"a\"",
    ".section .debug {",
    "k",
    "f",
    "%r1",
    "%r<4>",
    "%p1",
    "%p<2>",
    "p",
    "L:",
    "L",
    "$L__BB0_1",
    "bra",
    "bra.uni",
    "ret",
    "exit",
    "call",
    "call.uni",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ";",
    ",",
    "=",
    "<",
    ">",
    "+",
    "-",
    "@",
    "@!",
    "mov.u32",
    "add.u32",
    "setp.lt.u32",
    "ld.global.u32",
    "vadd4.u32.u32.u32",
    "foo",
    "%tid.x",
    "%clock64",
    "0",
    "1",
    "0x10",
    "0f3F800000",
    "1.5",
    "4294967296",
    "99999999999999999999",
    "//c\n",
    "/* c */",
    "/*",
    "\"",
    "\n",
    " ",
    "\u{e9}",
    "\0",
    "generic(tab)",
    "[]",
    "[3]",
    // The memory and warp families' syntax.
    "ld.global.v4.u32",
    "ld.param.u64",
    "ld.shared.s8",
    "st.global.v2.f32",
    "st.local.b16",
    "ldu.global.u32",
    "atom.global.cas.b32",
    "atom.shared.inc.u32",
    "red.global.add.f32",
    "cvta.to.global.u64",
    "cvta.shared.u64",
    "mov.u64",
    "bar.sync",
    "barrier.sync.aligned",
    "bar.arrive",
    "membar.gl",
    "fence.acq_rel.gpu",
    "shfl.sync.bfly.b32",
    "vote.sync.ballot.b32",
    "vote.sync.all.pred",
    "activemask.b32",
    "%rd1",
    "[%rd1+8]",
    "[tab+-4]",
    "[p]",
    "{%r1, %r2}",
    "%r1|%p1",
    "|",
    "!%p1",
    "-1",
    "31",
    "tab",
    "dyn",
    "%lanemask_lt",
    "%ctaid.y",
    "%ntid.z",
];

fn edit(mut b: Vec<u8>, edits: &[(usize, u8, u8)]) -> String {
    for &(at, kind, v) in edits {
        let n = b.len().max(1);
        let i = at % n;
        match kind % 5 {
            0 if !b.is_empty() => {
                let end = (i + 1 + v as usize % 16).min(b.len());
                b.drain(i..end);
            }
            1 => b.insert(i.min(b.len()), v),
            2 if !b.is_empty() => b[i] = v,
            3 => b.truncate(i),
            _ => {
                let end = (i + v as usize).min(b.len());
                let dup = b[i.min(end)..end].to_vec();
                b.splice(i.min(b.len())..i.min(b.len()), dup);
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

/// The ten launch files of `tests/data/h100`, by name.
fn launch_files() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(crate::data())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    v.sort();
    v
}

fn launch_text(k: usize) -> String {
    let files = launch_files();
    std::fs::read_to_string(crate::data().join(&files[k % files.len()])).unwrap()
}

/// Reads launch text `t` against the data folder: a JSON error must point
/// inside the text; an accepted launch must hold together (outputs and
/// expected files name buffers it has, counts within the limits), and its
/// buffer and expected files may be read (an error, never a panic).
fn launch_holds(t: &str) {
    match Launch::parse(t, &crate::data()) {
        Err(LaunchError::Json { line, col, msg }) => {
            assert!(
                inside(t, line, col),
                "JSON error outside the text at {line}:{col}: {msg}"
            );
        }
        Err(_) => {}
        Ok(l) => {
            assert!(l.outputs.iter().all(|&o| o < l.buffers.len()));
            assert!(l.expected.iter().all(|e| e.0 < l.buffers.len()));
            assert!((1..=MAX_BLOCK_THREADS).contains(&l.block_threads()));
            assert!((1..=MAX_GRID_BLOCKS).contains(&l.grid_blocks()));
            for p in &l.params {
                if let ParamValue::Buffer(b) = p {
                    assert!(*b < l.buffers.len());
                }
            }
            let _ = l.load_expected();
            if l.buffers.iter().all(|b| b.bytes <= 1 << 20) {
                let _ = l.load_buffers();
            }
        }
    }
}

/// A JSON value for a launch field: well-formed JSON of the right and of the
/// wrong shapes.
fn json_value() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        proptest::sample::select(JSON_VALUES).prop_map(str::to_string),
        any::<i64>().prop_map(|v| v.to_string()),
        any::<u32>().prop_map(|v| v.to_string()),
        (0u32..3000).prop_map(|v| v.to_string()),
        "[a-z_.]{0,12}".prop_map(|s| format!("\"{s}\"")),
    ];
    leaf.prop_recursive(2, 12, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4)
                .prop_map(|v| format!("[{}]", v.join(", "))),
            proptest::collection::vec(
                (
                    "(bytes|file|fill|random|seed|type|min|max|buffer|u32|s32|u64|s64|f32|x)",
                    inner
                ),
                0..3
            )
            .prop_map(|v| format!(
                "{{{}}}",
                v.iter()
                    .map(|(k, v)| format!("\"{k}\": {v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        ]
    })
}

/// A launch object: every field drawn from plausible and implausible values
/// (buffer names the params, outputs and expected files refer to or not).
fn structured_launch() -> impl Strategy<Value = String> {
    let name = proptest::sample::select(vec!["a", "b", "out", "clk", "zz", ""]);
    let dim = prop_oneof![
        (1u64..5, 1u64..300, 1u64..3).prop_map(|(a, b, c)| format!("[{a}, {b}, {c}]")),
        json_value(),
    ];
    let buffer = prop_oneof![
        (0u64..5000, any::<u8>()).prop_map(|(b, f)| format!("{{\"bytes\": {b}, \"fill\": {f}}}")),
        (
            0u64..20000,
            proptest::sample::select(vec![
                "audio_mix.t.a.bin",
                "sad16.v.ref.bin",
                "nope.bin",
                "../x",
                "/etc/passwd"
            ])
        )
            .prop_map(|(b, f)| format!("{{\"bytes\": {b}, \"file\": \"{f}\"}}")),
        (
            0u64..5000,
            any::<u64>(),
            proptest::sample::select(vec!["f32", "u32", "s32", "u8", "f64"]),
            json_value(),
            json_value(),
        )
            .prop_map(|(b, seed, t, lo, hi)| format!(
                "{{\"bytes\": {b}, \"random\": {{\"seed\": {seed}, \"type\": \"{t}\", \"min\": {lo}, \"max\": {hi}}}}}"
            )),
        json_value(),
    ];
    let param = prop_oneof![
        name.clone()
            .prop_map(|n| format!("{{\"buffer\": \"{n}\"}}")),
        (
            proptest::sample::select(vec!["u32", "s32", "u64", "s64", "f32", "buffer"]),
            json_value()
        )
            .prop_map(|(k, v)| format!("{{\"{k}\": {v}}}")),
        json_value(),
    ];
    (
        proptest::sample::select(vec!["public.ptx", "", "missing.ptx", "/abs.ptx"]),
        proptest::sample::select(vec!["audio_mix", "sad16", "", "k"]),
        dim.clone(),
        dim,
        proptest::collection::vec((name.clone(), buffer), 0..4),
        proptest::collection::vec(param, 0..5),
        proptest::collection::vec(name.clone(), 0..3),
        proptest::option::of(proptest::collection::vec(
            (
                name,
                proptest::sample::select(vec!["audio_mix.t.mix.expected.bin", "x.bin"]),
            ),
            0..3,
        )),
        proptest::option::of(json_value()),
    )
        .prop_map(
            |(ptx, entry, grid, block, bufs, params, outputs, expected, h100)| {
                let q = |s: &str| format!("\"{s}\"");
                let mut f = vec![
                    format!("\"ptx\": {}", q(ptx)),
                    format!("\"entry\": {}", q(entry)),
                    format!("\"grid\": {grid}"),
                    format!("\"block\": {block}"),
                    format!(
                        "\"buffers\": {{{}}}",
                        bufs.iter()
                            .map(|(n, b)| format!("{}: {b}", q(n)))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    format!("\"params\": [{}]", params.join(", ")),
                    format!(
                        "\"outputs\": [{}]",
                        outputs.iter().map(|n| q(n)).collect::<Vec<_>>().join(", ")
                    ),
                ];
                if let Some(e) = expected {
                    f.push(format!(
                        "\"expected\": {{{}}}",
                        e.iter()
                            .map(|(n, x)| format!("{}: {}", q(n), q(x)))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
                if let Some(h) = h100 {
                    f.push(format!("\"h100\": {h}"));
                }
                format!("{{\n {}\n}}", f.join(",\n "))
            },
        )
}

const JSON_VALUES: &[&str] = &[
    "0",
    "-1",
    "1e400",
    "4294967296",
    "18446744073709551616",
    "1.5",
    "\"\"",
    "\"/abs\"",
    "\"a\"",
    "null",
    "true",
    "[]",
    "[0, 0, 0]",
    "[1, 1]",
    "{}",
    "{\"bytes\": 1}",
    "{\"u32\": 1, \"s32\": 2}",
    "{\"bytes\": 99999999999, \"fill\": 0}",
    "\"\\u0000\"",
];

proptest! {
    #[test]
    fn fuzz_module_arbitrary(text in "\\PC{0,300}") {
        module_holds(&text);
    }

    #[test]
    fn fuzz_module_token_soup(toks in proptest::collection::vec(proptest::sample::select(TOKENS), 0..60)) {
        module_holds(&toks.join(" "));
    }

    #[test]
    fn fuzz_module_mutated(edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 1..6),
                           public in any::<bool>()) {
        let seed = if public { crate::public_ptx() } else { SEED_MODULE.to_string() };
        module_holds(&edit(seed.into_bytes(), &edits));
    }

    #[test]
    fn fuzz_launch_arbitrary(text in "\\PC{0,300}") {
        if let Err(LaunchError::Json { line, col, msg }) = Launch::parse(&text, Path::new("")) {
            prop_assert!(inside(&text, line, col), "JSON error outside the text at {}:{}: {}", line, col, msg);
        }
    }

    #[test]
    fn fuzz_launch_structured(t in structured_launch()) {
        launch_holds(&t);
    }

    #[test]
    fn fuzz_launch_mutated(edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 0..4),
                           values in proptest::collection::vec((any::<usize>(), proptest::sample::select(JSON_VALUES)), 0..3),
                           file in any::<usize>()) {
        let mut t = launch_text(file);
        // Replace a few JSON values (after a ':' or '[') to reach the validator.
        for (at, v) in values {
            let spots: Vec<usize> = t.match_indices([':', '[']).map(|(i, _)| i + 1).collect();
            let i = spots[at % spots.len()];
            let end = t[i..].find([',', '}', ']', '\n']).map_or(t.len(), |e| i + e);
            t.replace_range(i..end, v);
        }
        launch_holds(&edit(t.into_bytes(), &edits));
    }
}

#[test]
fn launch_seeds_hold() {
    let files = launch_files();
    assert_eq!(files.len(), 10);
    for (k, name) in files.iter().enumerate() {
        let t = launch_text(k);
        assert!(Launch::parse(&t, &crate::data()).is_ok(), "{name}");
        launch_holds(&t);
    }
}

/// `inside` itself: the end of a line is inside, one past it is not.
#[test]
fn positions_inside_the_text() {
    assert!(inside("ab\nc", 1, 3) && inside("ab\nc", 2, 2) && inside("", 1, 1));
    assert!(
        !inside("ab\nc", 1, 4)
            && !inside("ab\nc", 3, 1)
            && !inside("ab", 0, 1)
            && !inside("ab", 1, 0)
    );
}

#[test]
fn seed_module_parses() {
    let m = parse_module(SEED_MODULE, "seed.ptx").unwrap();
    assert_eq!(m.functions.len(), 2);
    module_holds(SEED_MODULE);
}
