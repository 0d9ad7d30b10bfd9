//! A host driving a simulation through the external-instruction hook.
//!
//! Two SMs run eight host-fed warps of a four-instruction program. The
//! host owns instruction 1 (think of it as a load): a toy memory answers it
//! with `3 * address + 1` per lane, 100 cycles after issue. The C and C++
//! examples of `sim-capi` do the same through the C ABI and print the same
//! lines (a test compares them).
//!
//! Run with `cargo run -p sim-core --example toy_memory`.

use sim_core::{preset, Completion, ExternalRequest, Program, Progress, SchedPolicy, Simulation};
use sim_isa::{Target, WARP_SIZE};
use std::sync::Arc;

/// The program: address arithmetic, the load (external), two uses of it.
const PROGRAM: [&str; 4] = [
    "add.u32 %r1, %r0, 4;",
    "add.u32 %r2, %r1, 0;",
    "add.u32 %r3, %r2, %r1;",
    "xor.b32 %r4, %r3, %r2;",
];
const WARPS: u32 = 8;
const LOADS_PER_WARP: u32 = 4;
const MEMORY_LATENCY: u64 = 100;

/// The toy memory's answer to one load.
fn toy_memory(req: &ExternalRequest<'_>, requests: &mut u64) -> Option<Completion> {
    *requests += 1;
    let mut done = Completion::at(req.cycle + MEMORY_LATENCY);
    let (_, address) = req.sources().next()?;
    for (value, &a) in done.values[0].iter_mut().zip(address) {
        *value = (3 * a + 1) & 0xffff_ffff;
    }
    Some(done)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    run(&mut std::io::stdout().lock())
}

/// Runs the simulation and prints its statistics to `out`.
pub fn run(out: &mut impl std::io::Write) -> Result<(), Box<dyn std::error::Error>> {
    let (program, syms) = Program::from_ptx(Target::SM_90, &PROGRAM)?;
    let mut sim = Simulation::new(
        preset(Target::SM_90),
        Arc::new(program),
        SchedPolicy::Gto,
        2,
    )?;
    sim.mark_external(1)?;
    let (r0, r4) = (
        syms.get("%r0").ok_or("no %r0")?,
        syms.get("%r4").ok_or("no %r4")?,
    );
    for w in 0..WARPS {
        let sm = sim.sm_of(w);
        sm.add_host_warp(w, u32::MAX)?;
        let base: [u64; WARP_SIZE] = std::array::from_fn(|l| (w as u64) * 1000 + 4 * l as u64);
        sm.set_reg(w, r0, &base)?;
        for _ in 0..LOADS_PER_WARP {
            for i in 0..PROGRAM.len() as u32 {
                sm.push_instruction(w, i)?;
            }
        }
        sm.close_warp(w)?;
    }
    let mut requests = 0u64;
    let mut memory = |req: &ExternalRequest<'_>| toy_memory(req, &mut requests);
    while sim.run_until(u64::MAX, u64::MAX, &mut memory)? != Progress::Done {}
    let stats = sim.report().stats;
    let mut checksum = 0u64;
    for w in 0..WARPS {
        for &v in sim.sm_of(w).reg(w, r4)? {
            checksum = checksum.wrapping_mul(31).wrapping_add(v);
        }
    }
    writeln!(out, "cycles {}", stats.cycles)?;
    writeln!(out, "warp_instructions {}", stats.warp_instructions)?;
    writeln!(out, "thread_instructions {}", stats.thread_instructions)?;
    writeln!(out, "issued {}", stats.stalls.issued)?;
    writeln!(out, "dependency {}", stats.stalls.dependency)?;
    writeln!(out, "external_requests {requests}")?;
    writeln!(out, "checksum {checksum:016x}")?;
    Ok(())
}
