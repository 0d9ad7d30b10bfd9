//! Exit codes and help texts.

use crate::{exit2, parts, s, scratch, simcli};

#[test]
fn usage_errors_exit_2() {
    assert_eq!(parts(&simcli(&[])).0, 2);
    assert_eq!(parts(&simcli(&["frobnicate"])).0, 2);
    assert_eq!(parts(&simcli(&["run"])).0, 2);
    assert_eq!(
        parts(&simcli(&[
            "run",
            "traces/chain_set.ptx",
            "--scheduler",
            "fifo"
        ]))
        .0,
        2
    );
    assert_eq!(
        parts(&simcli(&["run", "traces/chain_set.ptx", "--sms", "0"])).0,
        2
    );
    let e = exit2(&["run", "traces/chain_set.ptx", "--arch", "gfx90a"]);
    assert!(e.contains("invalid target 'gfx90a'"), "{e}");
    let e = exit2(&["run", "no/such/file.ptx"]);
    assert!(e.contains("no/such/file.ptx"), "{e}");
}

#[test]
fn help_is_complete() {
    let (c, out, _) = parts(&simcli(&["--help"]));
    assert_eq!(c, 0);
    for cmd in ["run", "asm", "dump", "gen", "conform", "eval", "Exit codes"] {
        assert!(out.contains(cmd), "--help lacks {cmd}");
    }
    let (c, out, _) = parts(&simcli(&["run", "--help"]));
    assert_eq!(c, 0);
    for opt in [
        "--arch",
        "--sms",
        "--threads",
        "--scheduler",
        "--format",
        "--dump-regs",
        "--check",
        "lrr",
        "gto",
        "oldest",
    ] {
        assert!(out.contains(opt), "run --help lacks {opt}");
    }
    let (_, out, _) = parts(&simcli(&["gen", "--help"]));
    for opt in [
        "--warps",
        "--instructions",
        "--mix",
        "--dep-distance",
        "--seed",
        "video",
        "compare",
        "half",
        "mixed",
    ] {
        assert!(out.contains(opt), "gen --help lacks {opt}");
    }
}

#[test]
fn eval_prints_written_registers() {
    let (c, out, e) = parts(&simcli(&[
        "eval",
        "--arch",
        "sm_53",
        "vadd4.u32.u32.u32.sat %r1, %r2, %r3, %r4;",
        "%r2=0x01020304",
        "%r3=0xfffefdfc",
        "%r4=0",
    ]));
    assert_eq!(c, 0, "{e}");
    // Every byte sum is 0x100, clamped to 0xff.
    assert_eq!(out, "%r1 = 0xffffffff\n");
    let (c, out, _) = parts(&simcli(&[
        "eval",
        "--arch",
        "sm_30",
        "setp.lt.u32 %p|%q, %a, %b;",
        "%a=1",
        "%b=2",
    ]));
    assert_eq!(c, 0);
    assert_eq!(out, "%p = true\n%q = false\n");
}

/// `tanh.approx` in each form through `eval`, on an H200's values
/// (`xtask/tests/data/domain-h200-approx.bin`): f16 0x3c8e (1.139) gives
/// 0x3a82 and 0x29c6 gives 0x29c5, bf16 +-0x3f3f gives +-0x3f21 (where
/// exact tanh truncated gives one ulp more or less); `.f32` from 8 is 1.
/// bf16 needs sm_90, and no form takes `.ftz` (ptxas 13.0.88).
#[test]
fn eval_runs_tanh() {
    for (arch, text, src, want) in [
        (
            "sm_75",
            "tanh.approx.f16 %h1, %h2;",
            "%h2=0x3c8e",
            "%h1 = 0x3a82\n",
        ),
        (
            "sm_75",
            "tanh.approx.f16x2 %r1, %r2;",
            "%r2=0x3c8e29c6",
            "%r1 = 0x3a8229c5\n",
        ),
        (
            "sm_90",
            "tanh.approx.bf16 %h1, %h2;",
            "%h2=0xbf3f",
            "%h1 = 0xbf21\n",
        ),
        (
            "sm_90",
            "tanh.approx.bf16x2 %r1, %r2;",
            "%r2=0xbf3f3f3f",
            "%r1 = 0xbf213f21\n",
        ),
        (
            "sm_75",
            "tanh.approx.f32 %f1, %f2;",
            "%f2=0x41000000",
            "%f1 = 0x3f800000\n",
        ),
    ] {
        let (c, out, e) = parts(&simcli(&["eval", "--arch", arch, text, src]));
        assert_eq!((c, out.as_str()), (0, want), "{text}: {e}");
    }
    let e = exit2(&[
        "eval",
        "--arch",
        "sm_80",
        "tanh.approx.bf16 %h1, %h2;",
        "%h2=1",
    ]);
    assert!(e.starts_with("error arch: ") && e.contains("sm_90"), "{e}");
    let e = exit2(&["eval", "tanh.approx.ftz.f32 %f1, %f2;", "%f2=1"]);
    assert!(
        e.contains("Illegal modifier '.ftz' for instruction 'tanh'"),
        "{e}"
    );
}

/// A prefetch is a memory instruction: `eval` refuses it as it refuses
/// `ld` (a launch's), and its gates as any (the eviction priorities are
/// sm_80's: docs/prefetch.md).
#[test]
fn eval_prefetch() {
    for (t, what) in [
        ("prefetch.global.L2 [%rd1];", "prefetch"),
        ("prefetchu.L1 [%rd1+8];", "prefetchu"),
        ("ld.global.u32 %r1, [%rd1];", "ld"),
    ] {
        let (c, out, e) = parts(&simcli(&["eval", "--arch", "sm_90", t]));
        assert_eq!((c, out.as_str()), (2, ""), "{t}: {e}");
        let want = format!("error unimplemented: {what} needs a launch");
        assert!(e.starts_with(&want), "{t}: {e}");
    }
    let t = "prefetch.global.L2::evict_last [%rd1];";
    let (c, _, e) = parts(&simcli(&["eval", "--arch", "sm_75", t]));
    assert_eq!(c, 2, "{e}");
    assert!(e.starts_with("error arch: ") && e.contains("sm_80"), "{e}");
}

/// The extended-precision forms through `eval`: `add.cc` prints its
/// carry-out as `%cc.cf`, a carry-in form reads `%cc.cf` as an input (0
/// when not given), `subc` computes `a + ~b + CF` (ptxas's sm_90 code,
/// sim-isa/tests/data/carry-sass-sm90.txt).
#[test]
fn eval_carry_forms() {
    let run = |args: &[&str]| {
        let mut a = vec!["eval", "--arch", "sm_90"];
        a.extend_from_slice(args);
        let (c, out, e) = parts(&simcli(&a));
        assert_eq!(c, 0, "{args:?}: {e}");
        out
    };
    let out = run(&["add.cc.u32 %r1, %r2, %r3;", "%r2=0xffffffff", "%r3=2"]);
    assert_eq!(out, "%r1 = 0x00000001\n%cc.cf = true\n");
    let out = run(&["addc.u32 %r1, %r2, %r3;", "%r2=1", "%r3=2", "%cc.cf=1"]);
    assert_eq!(out, "%r1 = 0x00000004\n");
    let out = run(&["addc.u32 %r1, %r2, %r3;", "%r2=1", "%r3=2"]);
    assert_eq!(out, "%r1 = 0x00000003\n");
    let out = run(&["subc.cc.u32 %r1, %r2, %r3;", "%r2=5", "%r3=2", "%cc.cf=0"]);
    assert_eq!(out, "%r1 = 0x00000002\n%cc.cf = true\n");
}

/// The async copies' group statements run on one lane (they change no
/// register); a copy, which needs shared memory, is a launch's.
#[test]
fn eval_async_copies() {
    for t in [
        "cp.async.wait_group 1;",
        "cp.async.commit_group;",
        "cp.async.wait_all;",
    ] {
        let (c, out, e) = parts(&simcli(&["eval", "--arch", "sm_80", t]));
        assert_eq!((c, out.as_str()), (0, ""), "{t}: {e}");
    }
    let t = "cp.async.ca.shared.global [%r1], [%rd1], 16;";
    let e = exit2(&["eval", "--arch", "sm_90", t]);
    assert!(
        e.starts_with("error unimplemented: cp.async.ca needs a launch"),
        "{e}"
    );
    // The pending count of the state an `mbarrier.init ..., 3` leaves.
    let (c, out, e) = parts(&simcli(&[
        "eval",
        "mbarrier.pending_count.b64 %r2, %rd2;",
        "%rd2=0x7fffe800001ffffa",
    ]));
    assert_eq!((c, out.as_str()), (0, "%r2 = 0x00000003\n"), "{e}");
    let e = exit2(&["eval", "--arch", "sm_75", "cp.async.wait_all;"]);
    assert!(e.starts_with("error arch: ") && e.contains("sm_80"), "{e}");
}

/// The tensor-core family through `eval`, which fills lane 0 alone (the
/// other lanes' fragments read 0). `mma.m16n8k16`: lane 0's `D[0][0]` is
/// `A[0][0] B[0][0] + A[0][1] B[1][0] + C[0][0]` = 2 * 3 + 1 * 4 + 0.5 =
/// 10.5; its other elements take their `B` column or `A` row from lanes
/// holding 0, leaving `C` (`D[8][1]` = 2). `m16n8k32.s8`: bytes (1, 2, 3,
/// 4) by (-1, 0, 0, -1) = -5. `m8n8k4.f64`: 2 * 3 + 1 = 7. `movmatrix`:
/// lane 0's transpose holds `M[0][0]` and `M[1][0]` (lane 4's, 0).
#[test]
fn eval_runs_tensor_core_instructions() {
    let run = |args: &[&str]| {
        let (c, out, e) = parts(&simcli(args));
        assert_eq!(c, 0, "{e}");
        out
    };
    let out = run(&[
        "eval",
        "--arch",
        "sm_90",
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%d0, %d1, %d2, %d3}, \
         {%a0, %a1, %a2, %a3}, {%b0, %b1}, {%c0, %c1, %c2, %c3};",
        "%a0=0x3c004000",
        "%b0=0x44004200",
        "%c0=0x3f000000",
        "%c3=0x40000000",
    ]);
    assert_eq!(
        out,
        "%d0 = 0x41280000\n%d1 = 0x00000000\n%d2 = 0x00000000\n%d3 = 0x40000000\n"
    );
    let out = run(&[
        "eval",
        "--arch",
        "sm_80",
        "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%d0, %d1, %d2, %d3}, \
         {%a0, %a1, %a2, %a3}, {%b0, %b1}, {%c0, %c1, %c2, %c3};",
        "%a0=0x04030201",
        "%b0=0xff0000ff",
    ]);
    assert!(out.starts_with("%d0 = 0xfffffffb\n"), "{out}");
    let out = run(&[
        "eval",
        "--arch",
        "sm_90",
        "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%d0, %d1}, {%a}, {%b}, {%c0, %c1};",
        "%a=0x4000000000000000",
        "%b=0x4008000000000000",
        "%c0=0x3ff0000000000000",
    ]);
    assert_eq!(out, "%d0 = 0x401c000000000000\n%d1 = 0x0000000000000000\n");
    let out = run(&[
        "eval",
        "--arch",
        "sm_75",
        "movmatrix.sync.aligned.m8n8.trans.b16 %d, %a;",
        "%a=0x00020001",
    ]);
    assert_eq!(out, "%d = 0x00000001\n");
    // sm_75 has no m16n8k32 (ptxas 13.0.88: sm_80 or higher).
    let e = exit2(&[
        "eval",
        "--arch",
        "sm_75",
        "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%d0, %d1, %d2, %d3}, \
         {%a0, %a1, %a2, %a3}, {%b0, %b1}, {%c0, %c1, %c2, %c3};",
    ]);
    assert!(e.starts_with("error arch: ") && e.contains("sm_80"), "{e}");
}

#[test]
fn eval_bad_text_uses_conform_classification() {
    let e = exit2(&["eval", "vadd4.u32.u32.u32.sat.add %r1, %r2, %r3, %r4;"]);
    assert!(e.starts_with("error invalid: "), "{e}");
    let e = exit2(&[
        "eval",
        "--arch",
        "sm_53",
        "set.lt.u32.bf16x2 %r1, %r2, %r3;",
    ]);
    assert!(e.starts_with("error arch: ") && e.contains("sm_90"), "{e}");
    exit2(&[
        "eval",
        "vadd4.u32.u32.u32 %r1, %r2, %r3, %r4;",
        "%r2=0x100000000",
    ]);
}

#[test]
fn scheduler_threads_sms_options() {
    let base = parts(&simcli(&[
        "run",
        "traces/indep_cmp.ptx",
        "--sms",
        "4",
        "--format",
        "csv",
    ]));
    assert_eq!(base.0, 0, "{}", base.2);
    let threaded = parts(&simcli(&[
        "run",
        "traces/indep_cmp.ptx",
        "--sms",
        "4",
        "--threads",
        "3",
        "--format",
        "csv",
    ]));
    assert_eq!(base.1, threaded.1, "thread count does not change results");
    for sched in ["lrr", "gto", "oldest"] {
        let (c, out, e) = parts(&simcli(&[
            "run",
            "traces/indep_cmp.ptx",
            "--scheduler",
            sched,
        ]));
        assert_eq!(c, 0, "{e}");
        assert!(
            out.contains(&format!("scheduler               {sched}")),
            "{out}"
        );
    }
}

#[test]
fn gen_options_and_outputs() {
    let dir = scratch("gen_opts");
    let ptx = dir.join("g.ptx");
    let (c, _, e) = parts(&simcli(&[
        "gen",
        "--warps",
        "2",
        "--instructions",
        "50",
        "--mix",
        "video",
        "--dep-distance",
        "2",
        "--arch",
        "sm_30",
        "-o",
        s(&ptx),
    ]));
    assert_eq!(c, 0, "{e}");
    let text = std::fs::read_to_string(&ptx).unwrap();
    assert!(
        text.contains(".target sm_30") && text.contains(".warps 2"),
        "{text}"
    );
    let (c, out, e) = parts(&simcli(&["run", s(&ptx), "--format", "json"]));
    assert_eq!(c, 0, "{e}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["warp_instructions"],
        2 * 55,
        "50 mix instructions + 5 prologue per warp"
    );
    // Half-precision set needs sm_53: refused at generation time for sm_30.
    let e = exit2(&[
        "gen",
        "--instructions",
        "50",
        "--mix",
        "half",
        "--arch",
        "sm_30",
        "-o",
        s(&ptx),
    ]);
    assert!(e.contains("needs sm_53"), "{e}");
    for bad in [
        ["--instructions", "10", "--dep-distance", "0"],
        ["--instructions", "10", "--warps", "0"],
        ["--instructions", "0", "--seed", "1"],
        ["--instructions", "10", "--mix", "fp64"],
    ] {
        let mut args = vec!["gen", "-o", s(&ptx)];
        args.extend(bad);
        let (c, _, e) = parts(&simcli(&args));
        assert_eq!(c, 2, "{bad:?}");
        assert!(!e.contains("more than once"), "{e}");
    }
}
