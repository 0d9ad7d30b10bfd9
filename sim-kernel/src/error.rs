//! What can stop a launch.

use sim_isa::exec::MemFault;
use sim_module::Pos;

/// A launch that could not run to its end.
#[derive(Debug, thiserror::Error)]
pub enum KernelError {
    /// The module has no kernel of that name.
    #[error("{file}: no .entry named '{entry}' (kernels: {kernels})")]
    NoEntry {
        /// The module.
        file: String,
        /// The name asked for.
        entry: String,
        /// The kernels it has, comma-separated.
        kernels: String,
    },
    /// The launch gives the wrong number of arguments.
    #[error("{entry} takes {want} parameters, the launch gives {got}")]
    ParamCount {
        /// The kernel.
        entry: String,
        /// Its parameter count.
        want: usize,
        /// The launch's.
        got: usize,
    },
    /// An argument that may not bind to its parameter: another size, or a
    /// kind that does not fit its type (`f32` for an `.s32`, a buffer for
    /// a `.b8[8]`).
    #[error("parameter {index} ({name}) of {entry} is {mismatch}")]
    ParamType {
        /// The kernel.
        entry: String,
        /// 0-based parameter index.
        index: usize,
        /// The parameter's name.
        name: String,
        /// Both types and sizes, and why they do not bind: `.s32 (4
        /// bytes); the launch gives f32 (4 bytes): the types differ`.
        mismatch: String,
    },
    /// A statement the simulator does not run.
    #[error("unsupported by simcli: {what} at {file}:{pos}")]
    Unsupported {
        /// The instruction as written.
        what: String,
        /// The module.
        file: String,
        /// Where.
        pos: Pos,
    },
    /// Statements the launch's target cannot run or simcli does not
    /// implement, found before the launch ran (`gate`): every one, with
    /// its place, up to [`crate::MAX_LISTED`].
    #[error("{}", refused_text(*.count, .target, .listed))]
    Refused {
        /// How many there are.
        count: usize,
        /// The launch's target.
        target: String,
        /// The first ones, each a whole message with its place.
        listed: Vec<String>,
    },
    /// A memory access outside every allocation, or misaligned.
    #[error("{fault} in {at}: `{text}` at {}", .at.place())]
    Fault {
        /// What and where in memory.
        fault: MemFault,
        /// The instruction.
        text: String,
        /// The thread and the statement's place.
        at: Site,
    },
    /// A thread ran `trap` (or `brkpt`): the GPU stops the kernel there.
    #[error("`{text}` stopped the kernel: {at} at {}", .at.place())]
    Trap {
        /// The statement.
        text: String,
        /// The first trapping thread and the statement's place.
        at: Site,
    },
    /// A thread called device `free` with an address that is not the start
    /// of a block `malloc` gave and nothing freed since (`crate::heap`).
    #[error("free({addr:#x}) of memory malloc did not give (or freed already) in {at}: `{text}` at {}", .at.place())]
    BadFree {
        /// The address given.
        addr: u64,
        /// The call.
        text: String,
        /// The first such thread and the call's place.
        at: Site,
    },
    /// Threads reached a failed device `assert` (`__assertfail`): the GPU
    /// stops the kernel there, each such thread's line printed.
    #[error("device-side assert triggered in {at} at {}:\n{lines}", .at.place())]
    Assert {
        /// What the threads print, as CUDA prints it: one line a thread,
        /// `file:line: function: block: [x,y,z], thread: [x,y,z] Assertion `cond` failed.`
        lines: String,
        /// The first such thread and the call's place.
        at: Site,
    },
    /// A call left in place by the inliner (a recursion deeper than
    /// `sim_module::MAX_CALL_DEPTH`, or past its statement budget) was reached.
    #[error("call {callee} at {} is nested deeper than simcli inlines calls ({depth} levels, or {} statements): {at}", .at.place(), sim_module::MAX_INLINED_STATEMENTS)]
    CallDepth {
        /// The function called.
        callee: String,
        /// The depth limit.
        depth: usize,
        /// The first calling thread and the call's place.
        at: Site,
    },
    /// An indirect call through an address that is no function's of the
    /// call's prototype (a null or stale function pointer), as a GPU faults.
    #[error("call through {callee} at {}: {value:#x} is the address of no function of the call's prototype (function addresses: docs/ptx-modules.md): {at}", .at.place())]
    BadCallTarget {
        /// The register holding the address.
        callee: String,
        /// The first such thread's value of it.
        value: u64,
        /// The first such thread and the call's place.
        at: Site,
    },
    /// Warps wait at a barrier that the block's other live warps never reach.
    #[error("block {cta:?}: warps {waiting:?} wait at a barrier that warps {running:?} never reach (they exited or wait elsewhere)")]
    Deadlock {
        /// The block index.
        cta: [u32; 3],
        /// Warps (in the block) waiting.
        waiting: Vec<u32>,
        /// Live warps that are not waiting there.
        running: Vec<u32>,
    },
    /// More warp-instructions than the limit: a kernel that loops forever
    /// (or whose warps wait at a barrier a looping warp never reaches) ends here.
    #[error("instruction limit reached: the launch executed more than {limit} warp-instructions{} (raise --max-instructions if the kernel is meant to run that long)", waiting_note(.waiting))]
    InstructionLimit {
        /// The limit.
        limit: u64,
        /// Warps of the running block that were waiting at a barrier.
        waiting: Vec<u32>,
    },
    /// Limits on the launch's shape or memory.
    #[error("{0}")]
    Limit(String),
    /// A variable's declaration is larger than its state space holds, alone
    /// or with the variables laid out before it (checked before anything of
    /// its size is allocated).
    #[error("{file}:{line}: {space} variable {name} needs {size} bytes{}, more than the limit of {limit}: {why}", in_all(*.size, *.total, .space))]
    Declaration {
        /// The module.
        file: String,
        /// The declaration's line.
        line: u32,
        /// The variable.
        name: String,
        /// Its state space (`.const`).
        space: &'static str,
        /// Its size.
        size: u64,
        /// The space's bytes up to its end (its offset plus its size).
        total: u64,
        /// The space's limit, in bytes.
        limit: u64,
        /// Where the limit comes from.
        why: &'static str,
    },
    /// The timing model refused the program or configuration.
    #[error("timing: {0}")]
    Timing(#[from] sim_core::SimError),
    /// The kernel's machine code could not be had
    /// ([`crate::lowering::MachineCode`]: ptxas rejected a region, say).
    #[error("{0}")]
    MachineCode(Box<dyn std::error::Error + Send + Sync>),
}

fn refused_text(count: usize, target: &str, listed: &[String]) -> String {
    if let [one] = listed {
        if count == 1 {
            return one.clone();
        }
    }
    let mut t = format!("{count} problems stop this launch on {target}:");
    for l in listed {
        t.push_str("\n  ");
        t.push_str(l);
    }
    if count > listed.len() {
        t.push_str(&format!("\n  ... and {} more", count - listed.len()));
    }
    t
}

fn in_all(size: u64, total: u64, space: &str) -> String {
    if total > size {
        format!(" ({total} with the {space} variables before it)")
    } else {
        String::new()
    }
}

fn waiting_note(w: &[u32]) -> String {
    if w.is_empty() {
        String::new()
    } else {
        // Only a fact: a long kernel stopped mid-block has warps at its
        // barriers too, so this names no culprit.
        format!("; when it stopped, warps {w:?} of the block were waiting at a barrier")
    }
}

/// Where a thread stopped a launch: the thread (its block, its warp in the
/// block, its linear index in the block) and the statement's place in the
/// module. Displays as `block [x, y, z] warp W (thread T)`; [`Site::place`]
/// is `file:line:column`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// The block index.
    pub cta: [u32; 3],
    /// The warp in the block.
    pub warp: u32,
    /// The thread's linear index in the block.
    pub thread: u32,
    /// The module.
    pub file: String,
    /// Where in it.
    pub pos: Pos,
}

impl Site {
    /// The statement's place: `file:line:column`.
    pub fn place(&self) -> String {
        format!("{}:{}", self.file, self.pos)
    }
}

impl std::fmt::Display for Site {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "block {:?} warp {} (thread {})",
            self.cta, self.warp, self.thread
        )
    }
}
