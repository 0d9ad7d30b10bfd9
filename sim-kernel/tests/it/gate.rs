//! What a launch's target refuses before anything runs (`sim_kernel::gate`):
//! every unsupported or gated statement at once, with its line, and a
//! module newer than the launch's target; and `trap`, which stops the
//! kernel naming the thread and the line.

use sim_kernel::{run_grid, KernelError, Prepared, RunOptions};
use sim_module::{parse_module, Launch};
use std::path::Path;

/// Runs `body` (after the usual prologue: `%rd2` the buffer, `%r1` the
/// thread) in a module of `.version`/`.target` `head`, on `target`, with
/// `blocks` blocks of 64 threads.
fn run(head: &str, body: &str, target: sim_isa::Target, blocks: u32) -> Result<(), KernelError> {
    let src = format!(
        "{head}\n.address_size 64\n.extern .func f()\n;\n// (no body: a call of it is refused;\n// one with a body runs inlined)\n.visible .entry k(.param .u64 p)\n{{\n\
         .reg .pred %p<4>; .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .f32 %f<4>; .reg .b16 %h<4>;\n\
         ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r1, %tid.x;\n{body}\nret;\n}}\n"
    );
    let module = parse_module(&src, "k.ptx").unwrap();
    let launch = Launch::parse(
        &format!(
            r#"{{"ptx": "k.ptx", "entry": "k", "grid": [{blocks},1,1], "block": [64,1,1],
               "buffers": {{"b": {{"bytes": 64, "fill": 0}}}}, "params": [{{"buffer": "b"}}]}}"#
        ),
        Path::new("."),
    )
    .unwrap();
    let prep = Prepared::new(&module, &launch, launch.load_buffers().unwrap()).unwrap();
    let opts = RunOptions::new(sim_core::preset(target), sim_core::SchedPolicy::Lrr, 1);
    run_grid(&prep, &launch, &opts).map(|_| ())
}

const SM90: &str = ".version 8.0\n.target sm_90";

#[test]
fn five_unsupported_statements_are_named_all_five_with_their_lines() {
    // Lines 14 to 18 of the module (the prologue ends on line 13).
    let body = "isspacep.global %p1, %rd2;\napplypriority.global.L2::evict_normal [%rd2], 128;\n\
                discard.global.L2 [%rd2], 128;\ncall f;\ncreatepolicy.fractional.L2::evict_last.b64 %rd3, 1.0;";
    let e = run(SM90, body, sim_isa::Target::SM_90, 1).unwrap_err();
    let text = e.to_string();
    assert!(matches!(e, KernelError::Refused { count: 5, .. }), "{text}");
    for (what, line) in [
        ("isspacep.global", 14),
        ("applypriority.global.L2::evict_normal", 15),
        ("discard.global.L2", 16),
        ("call f", 17),
        ("createpolicy.fractional.L2::evict_last.b64", 18),
    ] {
        let want = format!("unsupported by simcli: {what} at k.ptx:{line}:1");
        assert!(text.contains(&want), "{want} in:\n{text}");
    }
    assert!(
        text.starts_with("5 problems stop this launch on sm_90:"),
        "{text}"
    );
}

#[test]
fn one_unsupported_statement_reads_as_before() {
    let e = run(
        SM90,
        "isspacep.global %p1, %rd2;",
        sim_isa::Target::SM_90,
        1,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "unsupported by simcli: isspacep.global at k.ptx:14:1"
    );
}

#[test]
fn a_module_newer_than_the_target_is_refused_with_its_gated_statements() {
    // `cvt.rn.bf16.f32` needs sm_80 (PTX ISA manual, cvt: "cvt with .bf16
    // destination requires sm_80"); the module says sm_90.
    let body = "mov.f32 %f1, 0f3F800000;\ncvt.rn.bf16.f32 %h1, %f1;";
    let e = run(SM90, body, sim_isa::Target::SM_53, 1).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("k.ptx: the module's .target is sm_90, newer than the launch's sm_53"),
        "{text}"
    );
    assert!(
        text.contains("k.ptx:15:1: `cvt.rn.bf16.f32 %h1, %f1`: "),
        "{text}"
    );
    assert!(text.contains("needs sm_80"), "{text}");
    // The same module runs where the hardware has it.
    run(SM90, body, sim_isa::Target::SM_90, 1).unwrap();
    // An older module with a statement its .version lacks: `lop3` needs
    // PTX ISA 4.3 (sm_53 itself came with 4.2).
    let old = ".version 4.2\n.target sm_53";
    let e = run(
        old,
        "lop3.b32 %r2, %r1, %r1, %r1, 0x80;",
        sim_isa::Target::SM_53,
        1,
    )
    .unwrap_err();
    assert!(e.to_string().contains("lop3 needs PTX ISA 4.3"), "{e}");
}

#[test]
fn trap_stops_the_kernel_naming_the_thread_and_the_line() {
    // Thread 37 of block 1 (warp 1) traps; everyone else returns.
    let body = "mov.u32 %r2, %ctaid.x;\nsetp.eq.u32 %p1, %r2, 1;\nsetp.eq.u32 %p2, %r1, 37;\n\
                and.pred %p3, %p1, %p2;\n@%p3 trap;";
    let e = run(SM90, body, sim_isa::Target::SM_90, 2).unwrap_err();
    assert!(
        matches!(
            e,
            KernelError::Trap {
                at: sim_kernel::Site {
                    cta: [1, 0, 0],
                    warp: 1,
                    thread: 37,
                    ..
                },
                ..
            }
        ),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "`@%p3 trap` stopped the kernel: block [1, 0, 0] warp 1 (thread 37) at k.ptx:18:1"
    );
    // Guarded off everywhere, it does nothing.
    let quiet = "setp.eq.u32 %p1, %r1, 99;\n@%p1 trap;\n@%p1 brkpt;";
    run(SM90, quiet, sim_isa::Target::SM_90, 2).unwrap();
}

#[test]
fn past_fifty_problems_the_rest_are_counted() {
    let body = "discard.global.L2 [%rd2], 128;\n".repeat(60);
    let e = run(SM90, &body, sim_isa::Target::SM_90, 1).unwrap_err();
    let KernelError::Refused { count, listed, .. } = &e else {
        panic!("{e:?}");
    };
    assert_eq!((*count, listed.len()), (60, sim_kernel::MAX_LISTED));
    assert!(e.to_string().ends_with("\n  ... and 10 more"), "{e}");
    // The last one listed is the fiftieth statement (line 14 + 49).
    assert!(listed[49].ends_with("at k.ptx:63:1"), "{}", listed[49]);
}
