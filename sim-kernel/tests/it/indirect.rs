//! Indirect device-function calls in a launch: `tests/data/indirect` is
//! CUDA C++ (`indirect.cu`: a table of `__noinline__` functions chosen per
//! thread through a function pointer, so the lanes of a warp call different
//! targets; one pointer per block, so a warp calls one target; a
//! virtual-method-like pair of tables; pointers made by `mov` of a
//! function's name and stored to memory; pointers from the input) compiled
//! by nvcc 13.0.88, with expected outputs from `reference.py`, which follows
//! the source's meaning thread by thread (no H100 was at hand). An indirect
//! call runs as a dispatch over the functions it may reach, each a direct
//! call inlined (`sim_module::inline`).

use crate::{opts, records_and_replays, same_on_any_threads};
use sim_kernel::*;
use sim_module::{parse_module, Launch};
use std::path::PathBuf;

fn data(name: &str) -> PathBuf {
    crate::in_crate("tests/data/indirect", name)
}

/// The reference's bytes on 1, 2 and 132 SMs, and the same bytes, cycles
/// and statistics on 1, 2 and 3 host threads.
#[test]
fn indirect_calls_match_the_reference_on_any_sms_and_threads() {
    for file in ["indirect.json", "pick.json", "wild.json"] {
        for sms in [1, 2, 132] {
            let one = same_on_any_threads(&data(file), sms);
            assert!(!one.launch.expected.is_empty(), "{file}");
        }
    }
}

/// A recording of a launch with indirect calls replays to the same outputs
/// and cycles.
#[test]
fn indirect_calls_record_and_replay() {
    records_and_replays(&data("indirect.json"));
}

fn words(b: &[u8]) -> Vec<i32> {
    b.chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// In warp 0 of block 0, lanes 0, 1 and 2 call `op_add`, `op_sub` and
/// `op_mul` through one `call` (table index `(i + i / 3) & 3`), then the
/// block's `op_add` with 7: each lane has its own function's result,
/// computed here from the input, not from `reference.py`.
#[test]
fn divergent_lanes_each_get_their_own_functions_result() {
    let run = run_launch(&data("indirect.json"), &opts(1, 1)).unwrap();
    let input = words(&std::fs::read(data("in.bin")).unwrap());
    let out = words(&run.buffers[0]);
    let (v0, v1, v2) = (input[0], input[1], input[2]);
    assert_eq!(out[0], v0 + 7, "op_add(v, 0) + 7");
    assert_eq!(out[2], v1 - 1 + 7, "op_sub(v, 1) + 7");
    assert_eq!(
        out[4],
        v2.wrapping_mul(2).wrapping_add(1).wrapping_add(7),
        "op_mul(v, 2) + 7"
    );
    // Block 1 calls `op_sub` with 7 for every lane (a uniform target);
    // its lane 0 (i = 64) called `op_sub` with 64 first ((64 + 21) & 3 = 1).
    assert_eq!(out[2 * 64], input[64].wrapping_sub(64).wrapping_sub(7));
}

/// `wild` with `pointers` as its input (each lane's function pointer) on
/// one SM.
fn run_wild(pointers: &[u64; 32]) -> Result<GridRun, KernelError> {
    let launch = Launch::read(&data("wild.json")).unwrap();
    let src = std::fs::read_to_string(&launch.ptx).unwrap();
    let parsed = parse_module(&src, "indirect.ptx").unwrap();
    let module = sim_module::inline_calls(&src, &parsed, "wild")
        .unwrap()
        .unwrap();
    let mut bufs = launch.load_buffers().unwrap();
    bufs[1] = pointers.iter().flat_map(|p| p.to_le_bytes()).collect();
    let prep = Prepared::new(&module, &launch, bufs).unwrap();
    run_grid(&prep, &launch, &opts(1, 1))
}

/// The error of `wild` with `pointers` as its input.
fn wild_error(pointers: &[u64; 32]) -> String {
    match run_wild(pointers) {
        Ok(_) => panic!("the launch ran"),
        Err(e) => e.to_string(),
    }
}

/// A lane whose pointer is no function's (an odd value, null) or a
/// function of another prototype (`sq_area`, at 40, takes one parameter;
/// the call passes two) stops the launch naming the call's line (its
/// register), the value and the first such lane, as a GPU faults; the
/// other lanes hold good pointers (8: `op_add`, 16: `op_sub`).
#[test]
fn a_bad_function_pointer_stops_the_launch_naming_thread_and_line() {
    let mut p = [0u64; 32];
    for (k, x) in p.iter_mut().enumerate() {
        *x = if k % 2 == 0 { 8 } else { 16 };
    }
    for (lane, bad) in [(5, 0x1234), (9, 0), (2, 40), (31, 12)] {
        let mut q = p;
        q[lane] = bad;
        let text = wild_error(&q);
        assert!(
            text.starts_with(&format!(
                "call through %rd7 at indirect.ptx:410:2: {bad:#x} is the address of no function of the call's prototype"
            )),
            "{text}"
        );
        assert!(
            text.ends_with(&format!("block [0, 0, 0] warp 0 (thread {lane})")),
            "{text}"
        );
    }
}

/// What an indirect call issues (docs/ptx-modules.md): the argument moves
/// once, then for each candidate tested before a lane's own one compare and
/// one branch, then the callee's body with its `ret` a branch, then the
/// result moves once. `op_add`, `op_sub` and `op_mul` (tested in that
/// order) have bodies of five statements, `op_xor` six. A warp whose lanes
/// call all four runs the four groups one after another: every compare
/// and branch once, and each body.
#[test]
fn each_candidate_tested_before_a_lanes_own_costs_a_compare_and_a_branch() {
    let n = |p: &[u64; 32]| run_wild(p).unwrap().instructions;
    let (add, sub, mul, xor) = (n(&[8; 32]), n(&[16; 32]), n(&[24; 32]), n(&[32; 32]));
    assert_eq!(sub - add, 2);
    assert_eq!(mul - sub, 2);
    assert_eq!(xor - mul, 3);
    let mut all = [8; 32];
    for (k, p) in all.iter_mut().enumerate() {
        *p = 8 * (1 + k as u64 % 4);
    }
    // add: base + 2 + 5; all: base + 8 + 5 + 5 + 5 + 6.
    assert_eq!(n(&all) - add, 8 + 21 - 7);
}

/// `down(n)` calls itself through a pointer until `n` is 0 and returns `n`
/// levels counted back up; the kernel calls it through a pointer with the
/// thread's index. Indirect calls nest as direct ones do, up to
/// `MAX_CALL_DEPTH` (12): thread `t` makes `t + 1` nested calls.
const DOWN: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
.func (.param .b32 r) down(.param .b32 n)\n{\n\
.reg .pred %p<2>; .reg .b32 %r<4>; .reg .b64 %rd<2>;\n\
ld.param.u32 %r1, [n];\nsetp.eq.u32 %p1, %r1, 0;\n@%p1 bra DONE;\n\
mov.u64 %rd1, down;\nsub.u32 %r2, %r1, 1;\n\
{ .param .b32 p0; st.param.b32 [p0+0], %r2; .param .b32 q0;\n\
proto: .callprototype (.param .b32 _) _ (.param .b32 _);\n\
call (q0), %rd1, (p0), proto;\nld.param.b32 %r3, [q0+0];\n}\n\
add.u32 %r1, %r3, 1;\nDONE:\nst.param.b32 [r+0], %r1;\nret;\n}\n\
.visible .entry k(.param .u64 out)\n{\n\
.reg .b32 %r<4>; .reg .b64 %rd<5>;\n\
ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r1, %tid.x;\n\
mov.u64 %rd3, down;\n\
{ .param .b32 p0; st.param.b32 [p0+0], %r1; .param .b32 q0;\n\
proto: .callprototype (.param .b32 _) _ (.param .b32 _);\n\
call (q0), %rd3, (p0), proto;\nld.param.b32 %r2, [q0+0];\n}\n\
mul.wide.u32 %rd4, %r1, 4;\nadd.s64 %rd4, %rd2, %rd4;\nst.global.u32 [%rd4], %r2;\nret;\n}\n";

/// `DOWN` on one block of `threads` threads: its output or its error.
fn run_down(threads: u32) -> Result<Vec<u32>, String> {
    let launch = Launch::parse(
        &format!(
            r#"{{"ptx": "down.ptx", "entry": "k", "grid": [1,1,1], "block": [{threads},1,1],
               "buffers": {{"out": {{"bytes": 128, "fill": 0}}}}, "params": [{{"buffer": "out"}}]}}"#
        ),
        std::path::Path::new("."),
    )
    .unwrap();
    let parsed = parse_module(DOWN, "down.ptx").unwrap();
    let module = sim_module::inline_calls(DOWN, &parsed, "k")
        .unwrap()
        .unwrap();
    let prep = Prepared::new(&module, &launch, launch.load_buffers().unwrap()).unwrap();
    let run = run_grid(&prep, &launch, &opts(1, 1)).map_err(|e| e.to_string())?;
    let out = run.global.buffer_bytes(&prep.buffers).remove(0);
    Ok(words(&out).into_iter().map(|w| w as u32).collect())
}

/// Recursion through a function pointer: threads 0 to 11 get their own
/// depth back; in a block of 32, thread 12 is the first to need a 13th
/// nested call, and the launch stops naming `down`, the call's line in it
/// (14) and that thread.
#[test]
fn recursion_through_a_pointer_has_the_call_depth_limit() {
    let out = run_down(12).unwrap();
    assert_eq!(out[..12], (0..12).collect::<Vec<u32>>()[..]);
    let text = run_down(32).unwrap_err();
    assert!(
        text.starts_with(
            "call down at down.ptx:14:1 is nested deeper than simcli inlines calls (12 levels"
        ),
        "{text}"
    );
    assert!(
        text.ends_with("block [0, 0, 0] warp 0 (thread 12)"),
        "{text}"
    );
}

/// On a device (what the CUDA runtime stand-in runs), the module's
/// function tables are initialised with the same addresses, and a launch
/// of `indirect` gives the reference's bytes; the table reads back 8, 16,
/// 24, 32 (`op_add` .. `op_xor`, docs/ptx-modules.md).
#[test]
fn indirect_calls_run_on_a_device() {
    let cfg = sim_core::preset(sim_isa::Target::SM_90);
    let mut d = Device::new(RunOptions::new(cfg, sim_core::SchedPolicy::Lrr, 2));
    let src = std::fs::read_to_string(data("indirect.ptx")).unwrap();
    let m = d.load_module("indirect.ptx", &src).unwrap();
    let mut table = [0u8; 32];
    d.read_symbol(m, "table", 0, &mut table).unwrap();
    let table: Vec<u64> = table
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(table, [8, 16, 24, 32]);
    let input = std::fs::read(data("in.bin")).unwrap();
    let (out, fout, inp) = (
        d.malloc(2048).unwrap(),
        d.malloc(1024).unwrap(),
        d.malloc(1024).unwrap(),
    );
    d.write(inp, &input).unwrap();
    let params: Vec<u8> = [out, fout, inp]
        .iter()
        .flat_map(|a| a.to_le_bytes())
        .collect();
    d.launch(m, "indirect", [4, 1, 1], [64, 1, 1], 0, &params)
        .unwrap();
    let mut got = vec![0u8; 2048];
    d.read(out, &mut got).unwrap();
    assert_eq!(
        got,
        std::fs::read(data("indirect.out.expected.bin")).unwrap()
    );
    let mut got = vec![0u8; 1024];
    d.read(fout, &mut got).unwrap();
    assert_eq!(
        got,
        std::fs::read(data("indirect.fout.expected.bin")).unwrap()
    );
}
