//! sim-kernel: the H100 launches, values byte for byte.

mod branches;
mod calls;
mod clock;
mod dead;
mod declarations;
mod device;
mod engine;
mod errors;
mod fuzz;
mod gate;
mod launches;
mod memcount;
mod params;
mod printf;
mod record;
mod stalls;
mod warp_coll;

use sim_kernel::{run_grid, timing, Prepared, RunOptions};
use sim_module::{parse_module, Launch, Module};
use std::path::Path;

/// `body` as kernel `k(.param .u64 p)` over a 64-byte buffer (`%rd2` points
/// at it, `%r1` is the thread's index) with `threads` threads: its module and
/// launch.
fn kernel(body: &str, threads: u32) -> (Module, Launch) {
    let src = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\
         .reg .pred %p<4>; .reg .b32 %r<8>; .reg .b64 %rd<8>;\n\
         ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r1, %tid.x;\n{body}\nret;\n}}\n"
    );
    let module = parse_module(&src, "k.ptx").unwrap();
    let launch = Launch::parse(
        &format!(
            r#"{{"ptx": "k.ptx", "entry": "k", "grid": [1,1,1], "block": [{threads},1,1],
               "buffers": {{"b": {{"bytes": 64, "fill": 0}}}}, "params": [{{"buffer": "b"}}]}}"#
        ),
        Path::new("."),
    )
    .unwrap();
    (module, launch)
}

/// Cycles of a one-warp kernel running `body` over a 64-byte buffer, with a
/// redirect of `taken` clocks.
fn cycles(body: &str, taken: u32) -> u64 {
    timed(body, taken).cycles
}

/// The timing of a one-warp kernel running `body` over a 64-byte buffer,
/// with a redirect of `taken` clocks.
fn timed(body: &str, taken: u32) -> timing::Timed {
    let (module, launch) = kernel(body, 32);
    let prep = Prepared::new(&module, &launch, launch.load_buffers().unwrap()).unwrap();
    let mut cfg = sim_core::preset(sim_isa::Target::SM_90);
    cfg.taken_branch_cycles = taken;
    let mut opts = RunOptions::new(cfg, sim_core::SchedPolicy::Lrr, 1);
    opts.max_instructions = 100_000;
    run_grid(&prep, &launch, &opts).unwrap().timed
}
