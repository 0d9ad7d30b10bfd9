//! Acceptance 6: robustness. Proptest-driven fuzz targets over the parser
//! (arbitrary strings, PTX-token soup, near-valid mutations of real
//! instructions) and over the conformance JSON Lines reader/runner: nothing
//! may panic, and what the parser accepts must print, re-parse to the same
//! instruction, pass or fail `check_target` cleanly and execute.
//!
//! `FUZZ_CASES=N` sets the cases per target (default 3000). See
//! docs/fuzzing.md for the long-run command and the measured run.

use proptest::prelude::*;
use sim_isa::conform::{parse_vectors, run_vectors};
use sim_isa::parse::{check_target, parse_instruction};
use sim_isa::{execute, ExecCtx, IsaError, PtxVersion, Symbols, Target, WarpRegs, WARP_SIZE};

fn config() -> ProptestConfig {
    ProptestConfig {
        max_shrink_iters: 2000,
        ..super::strategies::config("FUZZ_CASES", 3000)
    }
}

/// Valid instructions of every family, the seeds of the mutation targets.
const SEEDS: &[&str] = &[
    "vadd2.s32.s32.u32.sat  r1, r2, r3, r1;",
    "vsub2.s32.s32.s32.sat  r1.h0, r2.h10, r3.h32, r1;",
    "vmin2.s32.u32.u32.add  r1.h10, r2.h00, r3.h22, r1;",
    "vset2.s32.u32.lt      r1, r2, r3, r0;",
    "vset2.u32.u32.ne.add  r1, r2, r3, r0;",
    "vadd4.s32.s32.u32.sat  r1, r2, r3, r1;",
    "vsub4.s32.s32.s32.sat  r1.b0, r2.b3210, r3.b7654, r1;",
    "vmin4.s32.u32.u32.add  r1.b0, r2.b0000, r3.b2222, r1;",
    "vset4.s32.u32.lt      r1, r2, r3, r0;",
    "vadd4.sat.s32.s32.s32 %r1.b3210, %r2.b7340, %r3.b1256, %r4;",
    "@!%p1 vabsdiff4.u32.s32.u32.add %r1.b31, %r2, %r3, %r4;",
    "@p  set.lt.and.f32.s32  d,a,b,r;",
    "set.eq.u32.u32      d,i,n;",
    "setp.lt.and.s32  p|q,a,b,r;",
    "@q  setp.eq.u32      p,i,n;",
    "selp.s32  r0,r,g,p;",
    "@q  selp.f32  f0,t,x,xp;",
    "slct.u32.s32  x, y, z, val;",
    "slct.ftz.u64.f32  A, B, C, fval;",
    "set.lt.and.f16.f16  d,a,b,r;",
    "set.eq.f16x2.f16x2  d,i,n;",
    "set.eq.u32.f16x2    d,i,n;",
    "set.lt.and.u16.f16  d,a,b,r;",
    "set.ltu.or.bf16.f16    d,u,v,s;",
    "set.equ.bf16x2.bf16x2  d,j,m;",
    "set.geu.s32.bf16x2     d,j,m;",
    "set.num.xor.s32.bf16   d,u,v,s;",
    "setp.ltu.or.ftz.f32 _|%p2, %f1, 0f7FC00000, !%p3;",
    "setp.ne.xor.f64 %p1|_, %fd1, 0d8000000000000000, 1;",
    "set.hs.or.f32.u64 %r1, 0xFFFFFFFFFFFFFFFF, %rd2, !0;",
    "selp.b16 %h1, -32768, 0x7fff, !%p1; // comment",
    "slct.s64.f32 %rd1, %rd2, -1, 0f80000001;",
    "set.lt.ftz.f16.f32 %h1, %f2, %f3;",
    // The memory and warp families (ptxas 13.0 accepts each: tests/data/mem-ptxas.txt).
    "ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1+16];",
    "@!%p1 st.shared.v2.f32 [svar+8], {%f1, 0f3F800000};",
    "ld.volatile.shared.u32 %r1, [svar];",
    "ld.global.nc.L1::evict_last.s8 %r1, [%rd1+-8];",
    "st.release.cta.shared.u32 [%r1], %r2;",
    "ldu.global.v2.f32 {%f1, %f2}, [gvar];",
    "atom.acq_rel.sys.global.exch.b32 %r1, [%rd1], %r2;",
    "atom.shared.cas.b64 %rd1, [%r1], %rd2, %rd3;",
    "red.relaxed.gpu.global.add.f32 [%rd1], %f2;",
    "cvta.to.global.u64 %rd1, %rd2;",
    "cvta.shared.u64 %rd1, svar;",
    "mov.u64 %rd1, gvar+8;",
    "barrier.sync.aligned 0, 64;",
    "bar.arrive 1, 32;",
    "fence.acq_rel.gpu;",
    "membar.gl;",
    "shfl.sync.bfly.b32 %r1|%p1, %r2, 1, 0x1f, 0xffffffff;",
    "vote.sync.ballot.b32 %r1, !%p1, %r2;",
    "@%p1 activemask.b32 %r1;",
];

/// Pieces of PTX: enough to reach deep parser paths by chance.
const TOKENS: &[&str] = &[
    "vadd2",
    "vsub2",
    "vavrg2",
    "vabsdiff2",
    "vmin2",
    "vmax2",
    "vset2",
    "vadd4",
    "vsub4",
    "vavrg4",
    "vabsdiff4",
    "vmin4",
    "vmax4",
    "vset4",
    "set",
    "setp",
    "selp",
    "slct",
    "mov",
    "add",
    ".u32",
    ".s32",
    ".u16",
    ".s16",
    ".u64",
    ".s64",
    ".b16",
    ".b32",
    ".b64",
    ".f16",
    ".f16x2",
    ".bf16",
    ".bf16x2",
    ".f32",
    ".f64",
    ".pred",
    ".sat",
    ".add",
    ".ftz",
    ".max",
    ".eq",
    ".ne",
    ".lt",
    ".le",
    ".gt",
    ".ge",
    ".lo",
    ".ls",
    ".hi",
    ".hs",
    ".equ",
    ".neu",
    ".ltu",
    ".leu",
    ".gtu",
    ".geu",
    ".num",
    ".nan",
    ".and",
    ".or",
    ".xor",
    ".h0",
    ".h1",
    ".h10",
    ".h32",
    ".h01",
    ".b0",
    ".b3210",
    ".b7654",
    ".b00",
    ".b02",
    ".b4444",
    ".b",
    ".h",
    "%r1",
    "%r2",
    "r3",
    "%p1",
    "!%p2",
    "%h1",
    "%rd1",
    "_",
    "|",
    ",",
    ";",
    " ",
    "  ",
    "\t",
    "@",
    "@!",
    "!",
    ".",
    "0",
    "1",
    "-1",
    "0x",
    "0xFFFFFFFF",
    "0xFFFFFFFFFFFFFFFFF",
    "0f3F800000",
    "0f",
    "0d3FF0000000000000",
    "0d",
    "0F7fc00000",
    "18446744073709551616",
    "-",
    "//",
    "/*",
    "*/",
    "%laneid",
    "%warpid",
    "é",
    "\u{0}",
    "\n",
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    "+",
    "sm_90",
];

fn token_soup() -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(TOKENS.to_vec()), 0..24)
        .prop_map(|v| v.concat())
}

/// One edit: (kind, position seed, length seed, payload).
type Edit = (u8, usize, usize, String);

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    proptest::collection::vec(
        (
            0u8..6,
            any::<usize>(),
            0usize..6,
            prop_oneof![
                proptest::sample::select(TOKENS.to_vec()).prop_map(String::from),
                "\\PC{0,3}",
                ".{0,2}"
            ],
        ),
        1..4,
    )
}

/// Applies edits on char boundaries: delete, insert, replace, duplicate,
/// truncate, swap two chars.
fn mutate(seed: &str, edits: &[Edit]) -> String {
    let mut s: Vec<char> = seed.chars().collect();
    for (kind, pos, len, payload) in edits {
        let n = s.len();
        let at = if n == 0 { 0 } else { pos % (n + 1) };
        let end = (at + len).min(n);
        let ins: Vec<char> = payload.chars().collect();
        match kind {
            0 => {
                s.drain(at..end);
            }
            1 => {
                s.splice(at..at, ins);
            }
            2 => {
                s.splice(at..end, ins);
            }
            3 => {
                let dup: Vec<char> = s[at..end].to_vec();
                s.splice(end..end, dup);
            }
            4 => s.truncate(at),
            _ => {
                if n >= 2 {
                    let i = pos % n;
                    let j = (pos / 7 + len) % n;
                    s.swap(i, j);
                }
            }
        }
    }
    s.into_iter().collect()
}

/// The parser must not panic; an error must point inside the text; an
/// accepted instruction must print, re-parse equal, be checkable on any
/// target and execute on a full warp.
fn parser_holds(text: &str) -> Result<(), TestCaseError> {
    let mut syms = Symbols::new();
    match parse_instruction(text, &mut syms) {
        Err(IsaError::Invalid { col, .. } | IsaError::Unimplemented { col, .. }) => {
            let n = text.chars().count();
            prop_assert!(
                col >= 1 && col <= n + 1,
                "column {} outside `{:?}` ({} chars)",
                col,
                text,
                n
            );
        }
        Err(e @ IsaError::Unsupported { .. }) => {
            prop_assert!(
                false,
                "parse_instruction returned an arch error for {:?}: {}",
                text,
                e
            );
        }
        Ok(inst) => {
            let printed = inst.display(&syms).to_string();
            let mut again = syms.clone();
            match parse_instruction(&printed, &mut again) {
                Ok(i2) => prop_assert_eq!(i2, inst, "{:?} printed as {:?}", text, printed),
                Err(e) => prop_assert!(
                    false,
                    "{:?} printed as {:?} does not re-parse: {}",
                    text,
                    printed,
                    e
                ),
            }
            for sm in [10, 13, 20, 30, 53, 89, 90, 100] {
                let _ = check_target(&inst, Target { sm, suffix: None }, None);
                let _ = check_target(
                    &inst,
                    Target { sm, suffix: None },
                    Some(PtxVersion::new(1, 0)),
                );
            }
            let mut regs = WarpRegs::new(syms.len());
            for id in syms.ids() {
                for lane in 0..WARP_SIZE {
                    regs.set_lane(
                        id,
                        lane,
                        (lane as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ id.0 as u64,
                    );
                }
            }
            execute(
                &inst,
                &ExecCtx::new(Target::SM_90, 0),
                &mut regs,
                0xA5A5_A5A5,
            );
        }
    }
    Ok(())
}

/// The vector reader and runner must not panic on any line.
fn conform_holds(text: &str) -> Result<(), TestCaseError> {
    let _ = parse_vectors(text);
    let report = run_vectors(text);
    let _ = report.summary_line();
    let _ = report.to_string();
    Ok(())
}

const SAMPLE: &str = include_str!("../data/public_sample.jsonl");

fn json_lines() -> Vec<&'static str> {
    SAMPLE.lines().filter(|l| !l.trim().is_empty()).collect()
}

fn json_value() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("true".to_string()),
        Just("false".to_string()),
        Just("null".to_string()),
        Just("\"0x\"".to_string()),
        Just("\"0x1ffffffffffffffff\"".to_string()),
        Just("\"-0x1\"".to_string()),
        Just("[]".to_string()),
        Just("{}".to_string()),
        any::<u64>().prop_map(|v| format!("\"{v:#x}\"")),
        any::<i64>().prop_map(|v| v.to_string()),
        "\\PC{0,6}".prop_map(|s| serde_json::to_string(&s).unwrap()),
    ]
}

/// A syntactically valid vector object with arbitrary contents.
fn json_vector() -> impl Strategy<Value = String> {
    (
        prop_oneof![
            Just("sm_90".to_string()),
            Just("sm_13".to_string()),
            Just("sm_30".to_string()),
            Just("sm_9".to_string()),
            "\\PC{0,6}"
        ],
        prop_oneof![
            proptest::sample::select(SEEDS.to_vec()).prop_map(String::from),
            token_soup()
        ],
        proptest::collection::vec(
            (
                prop_oneof![
                    proptest::sample::select(TOKENS.to_vec()).prop_map(String::from),
                    "\\PC{0,4}"
                ],
                json_value(),
            ),
            0..6,
        ),
        prop_oneof![
            proptest::collection::vec(
                (proptest::sample::select(TOKENS.to_vec()), json_value()),
                0..4
            )
            .prop_map(|kv| {
                let body: Vec<String> = kv
                    .iter()
                    .map(|(k, v)| format!("{}:{v}", serde_json::to_string(k).unwrap()))
                    .collect();
                format!("\"out\":{{{}}}", body.join(","))
            }),
            Just("\"error\":\"invalid\"".to_string()),
            Just("\"error\":\"arch\"".to_string()),
            Just("\"error\":\"other\"".to_string()),
            Just("\"error\":7".to_string()),
            Just(String::new()),
        ],
    )
        .prop_map(|(arch, ptx, ins, tail)| {
            let ins: Vec<String> = ins
                .iter()
                .map(|(k, v)| format!("{}:{v}", serde_json::to_string(k).unwrap()))
                .collect();
            let mut s = format!(
                "{{\"arch\":{},\"ptx\":{},\"in\":{{{}}}",
                serde_json::to_string(&arch).unwrap(),
                serde_json::to_string(&ptx).unwrap(),
                ins.join(",")
            );
            if !tail.is_empty() {
                s.push(',');
                s.push_str(&tail);
            }
            s.push('}');
            s
        })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn parser_arbitrary_strings(s in "\\PC{0,80}") {
        parser_holds(&s)?;
    }

    #[test]
    fn parser_arbitrary_bytes(b in proptest::collection::vec(any::<u8>(), 0..80)) {
        parser_holds(&String::from_utf8_lossy(&b))?;
    }

    #[test]
    fn parser_token_soup(s in token_soup()) {
        parser_holds(&s)?;
    }

    #[test]
    fn parser_mutated_instructions(seed in proptest::sample::select(SEEDS.to_vec()), e in edits()) {
        parser_holds(&mutate(seed, &e))?;
    }

    #[test]
    fn conform_arbitrary_text(s in "\\PC{0,200}") {
        conform_holds(&s)?;
    }

    #[test]
    fn conform_mutated_lines(line in proptest::sample::select(json_lines()), e in edits()) {
        conform_holds(&mutate(line, &e))?;
    }

    #[test]
    fn conform_structured_vectors(lines in proptest::collection::vec(json_vector(), 1..4)) {
        conform_holds(&lines.join("\n"))?;
    }
}

#[test]
fn seeds_are_valid() {
    for s in SEEDS {
        let mut syms = Symbols::new();
        if let Err(e) = parse_instruction(s, &mut syms) {
            panic!("seed `{s}` rejected: {e}");
        }
    }
}
