//! The C-visible types and constants: what a host's callback receives and
//! returns, the statistics, and the run outcomes. Shared by the exported
//! functions (`ffi.rs`) and the handle (`handle.rs`).

use std::ffi::c_void;

/// Most source registers an external request carries.
pub const PSS_MAX_SOURCES: usize = 4;

/// Most SMs of a handle (`sms` of `pss_sim_new`, `pss_sim_from_config`),
/// as simcli's `--sms`.
pub const PSS_MAX_SMS: u32 = 4096;

/// Most instructions of a program (`pss_sim_add_inst`), and most marks
/// (`pss_sim_mark_external`), as a trace's.
pub const PSS_MAX_INSTS: u32 = 1 << 20;

/// Most distinct registers a program names, as a trace's.
pub const PSS_MAX_REGS: u32 = 4096;

/// Most warps a handle is given (`pss_sim_add_host_warp`), as a trace's;
/// and warps x registers at most `PSS_MAX_WARP_REGS` (each warp holds 32
/// lanes of every register: 2^21 registers is 512 MiB).
pub const PSS_MAX_WARPS: u32 = 1 << 16;

/// Most instructions queued on a handle's host warps, behind the one each
/// warp holds ready to issue (`pss_sim_push`, `pss_sim_push_branch_target`,
/// `pss_sim_push_ptx`: 8 bytes each, 32 MiB in all); a push past it fails
/// (-1) until the simulation runs (`pss_sim_run_until`, `pss_sim_step`) and
/// issues some.
pub const PSS_MAX_QUEUED: u64 = 1 << 22;

/// Most warps x program registers of a handle.
pub const PSS_MAX_WARP_REGS: u32 = 1 << 21;

/// An external instruction, as handed to the host's callback.
#[repr(C)]
pub struct PssExtRequest {
    /// Names it in `pss_sim_complete`.
    pub ticket: u64,
    /// Clock of the issue.
    pub cycle: u64,
    /// The SM that issued it.
    pub sm: u32,
    /// The issuing warp.
    pub warp_id: u32,
    /// Program index of the instruction.
    pub index: u32,
    /// Lanes that execute it (active, guard held).
    pub lanes: u32,
    /// Source registers filled in `src`.
    pub nsrc: u32,
    /// Destination registers (`values` rows the completion fills).
    pub ndst: u32,
    /// Per source register in operand order, the 32 lane values.
    pub src: [[u64; 32]; PSS_MAX_SOURCES],
}

/// The result of an external instruction.
#[repr(C)]
pub struct PssCompletion {
    /// Clock its results are ready (at least the issue clock).
    pub cycle: u64,
    /// Per destination, the 32 lane values (only the request's lanes are written).
    pub values: [[u64; 32]; 2],
}

/// The host's external-instruction callback: fill `out` and return 1 to
/// complete the instruction now, or return 0 to complete it later with
/// `pss_sim_complete`. `req` and `out` are valid only during the call.
pub type PssExternalFn = Option<
    unsafe extern "C" fn(
        user: *mut c_void,
        req: *const PssExtRequest,
        out: *mut PssCompletion,
    ) -> i32,
>;

/// Statistics of a simulation (all SMs merged; cycles: the slowest SM).
#[repr(C)]
#[derive(Default)]
pub struct PssStats {
    /// Clocks until the last result was written.
    pub cycles: u64,
    /// Warp instructions issued.
    pub warp_instructions: u64,
    /// Thread instructions (active lanes whose guard held).
    pub thread_instructions: u64,
    /// Machine instructions (micro-ops) issued.
    pub micro_ops: u64,
    /// Issue slots that issued.
    pub issued: u64,
    /// Issue slots where a ready warp's unit was busy.
    pub unit_busy: u64,
    /// Issue slots where warps waited on the scoreboard.
    pub dependency: u64,
    /// Issue slots where no warp had an instruction.
    pub no_eligible: u64,
    /// Warp instructions per cycle.
    pub ipc: f64,
}

impl PssStats {
    /// `st`'s counters as C sees them, with `ipc`.
    pub(crate) fn of(st: &sim_core::Stats, ipc: f64) -> PssStats {
        PssStats {
            cycles: st.cycles,
            warp_instructions: st.warp_instructions,
            thread_instructions: st.thread_instructions,
            micro_ops: st.micro_ops,
            issued: st.stalls.issued,
            unit_busy: st.stalls.unit_busy,
            dependency: st.stalls.dependency,
            no_eligible: st.stalls.no_eligible,
            ipc,
        }
    }
}

/// Where a kernel parameter goes in the packed parameter buffer
/// (`pss_device_param`).
#[repr(C)]
#[derive(Default)]
pub struct PssParam {
    /// Byte offset in the buffer.
    pub offset: u64,
    /// Bytes.
    pub size: u64,
    /// Alignment (its `.align`, else its type's size).
    pub align: u64,
}

/// What a device launch reports (`pss_device_launch`).
#[repr(C)]
#[derive(Default)]
pub struct PssLaunchReport {
    /// Cycles of the launch (the slowest SM).
    pub cycles: u64,
    /// Warps in the grid.
    pub warps: u64,
    /// Warp instructions executed.
    pub instructions: u64,
    /// SMs that ran blocks.
    pub sms_used: u32,
    /// Bytes the kernel's device `printf` printed (`pss_device_printf`).
    pub printf_bytes: u64,
    /// `printf` calls dropped past the device's printf buffer.
    pub printf_dropped: u64,
    /// The statistics (all SMs merged).
    pub stats: PssStats,
}

/// `pss_sim_run_until`: every warp finished.
pub const PSS_DONE: i32 = 0;
/// `pss_sim_run_until`: the host is needed (a warp to feed, a completion).
pub const PSS_WAITING: i32 = 1;
/// `pss_sim_run_until`: the cycle or instruction bound was reached.
pub const PSS_REACHED: i32 = 2;
