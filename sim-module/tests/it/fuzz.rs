//! Fuzz targets for the module parser (with the CFG over whatever it accepts)
//! and the launch-file reader: arbitrary input must give an error, never a
//! panic. Run longer with, for example,
//! `PROPTEST_CASES=2000000 cargo test -p sim-module --release --test it fuzz_`
//! (measured runs in docs/fuzzing.md).

use proptest::prelude::*;
use sim_module::*;
use std::path::Path;

/// Parses `text`; whatever is accepted must give a consistent CFG.
fn module_holds(text: &str) {
    let Ok(m) = parse_module(text, "f.ptx") else {
        return;
    };
    for f in &m.functions {
        let Some(b) = &f.body else { continue };
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
    .reg .pred %p<3>;\n.reg .b32 %r<9>;\n.loc 1 2 3\nmov.u32 %r1, %tid.x;\n\
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

fn launch_text() -> String {
    std::fs::read_to_string(crate::data().join("audio_mix.t.json")).unwrap()
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
        let _ = Launch::parse(&text, Path::new(""));
    }

    #[test]
    fn fuzz_launch_mutated(edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 0..4),
                           values in proptest::collection::vec((any::<usize>(), proptest::sample::select(JSON_VALUES)), 0..3)) {
        let mut t = launch_text();
        // Replace a few JSON values (after a ':' or '[') to reach the validator.
        for (at, v) in values {
            let spots: Vec<usize> = t.match_indices([':', '[']).map(|(i, _)| i + 1).collect();
            let i = spots[at % spots.len()];
            let end = t[i..].find([',', '}', ']', '\n']).map_or(t.len(), |e| i + e);
            t.replace_range(i..end, v);
        }
        let t = edit(t.into_bytes(), &edits);
        if let Ok(l) = Launch::parse(&t, &crate::data()) {
            let _ = l.load_expected();
            if l.buffers.iter().all(|b| b.bytes <= 1 << 20) {
                let _ = l.load_buffers();
            }
        }
    }
}

#[test]
fn seed_module_parses() {
    let m = parse_module(SEED_MODULE, "seed.ptx").unwrap();
    assert_eq!(m.functions.len(), 2);
    module_holds(SEED_MODULE);
}
