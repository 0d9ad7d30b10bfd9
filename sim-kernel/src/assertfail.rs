//! Device `assert`: nvcc compiles a failed `assert(cond)` to a call of the
//! extern function `__assertfail(message, file, line, function, charSize)`
//! (`sim_module::BuiltinKind::AssertFail`), reached only by the threads
//! whose condition is false. The CUDA C++ Programming Guide ("Assertion"):
//! each such thread prints
//! `file:line: function: block: [x,y,z], thread: [x,y,z] Assertion `message` failed.`
//! to standard error, the kernel stops, and the context's later calls fail
//! with `cudaErrorAssert`. Here the lanes of the warp that reaches the call
//! first print, in lane order, and the launch ends with
//! [`crate::KernelError::Assert`] carrying their lines.

use crate::printf::{Args, CallError, LaneArgs, MAX_STRING};

/// The lines the lanes `lanes` of a warp print at `__assertfail` `b`: its
/// strings read through `mem` at the addresses in the call's registers.
/// `tid0` is the linear index of the warp's lane 0 in its block of `ntid`
/// threads, `ctaid` the block's index.
pub(crate) fn lines<M: sim_isa::exec::Memory>(
    b: &sim_module::Builtin,
    lanes: u32,
    regs: &sim_isa::WarpRegs,
    mem: &mut M,
    (ctaid, ntid, tid0): ([u32; 3], [u32; 3], u32),
) -> Result<String, CallError> {
    let &[msg, file, line, func, ..] = &b.args[..] else {
        return Err(CallError::Operands);
    };
    let mut out = String::new();
    for lane in (0..32u32).filter(|l| lanes >> l & 1 == 1) {
        let l = lane as usize;
        let mut args = LaneArgs {
            mem: &mut *mem,
            lane,
            base: 0,
        };
        let mut text = |r: sim_isa::RegId| -> Result<String, CallError> {
            let mut v = Vec::new();
            let addr = regs.get(r)[l];
            if addr != 0 {
                args.string(addr, MAX_STRING, &mut v)
                    .map_err(CallError::Fault)?;
            }
            Ok(String::from_utf8_lossy(&v).into_owned())
        };
        let (m, f, fun) = (text(msg)?, text(file)?, text(func)?);
        let t = tid0 + lane;
        let (nx, ny) = (ntid[0].max(1), ntid[1].max(1));
        let tid = [t % nx, t / nx % ny, t / (nx * ny)];
        out.push_str(&format!(
            "{f}:{}: {fun}: block: [{},{},{}], thread: [{},{},{}] Assertion `{m}` failed.\n",
            regs.get(line)[l] as u32,
            ctaid[0],
            ctaid[1],
            ctaid[2],
            tid[0],
            tid[1],
            tid[2]
        ));
    }
    Ok(out)
}
