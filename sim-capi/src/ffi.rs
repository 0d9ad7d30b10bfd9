//! The exported C functions and types. Each function checks its pointers,
//! runs its body under `catch_unwind`, and turns failures into a return
//! value plus the thread's last error.

use crate::handle::{Busy, PssSim, Res};
use crate::types::*;
use sim_core::{Completion, Progress};
use sim_isa::{RegId, WARP_SIZE};
use std::cell::RefCell;
use std::ffi::{c_char, c_void, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

thread_local! {
    static LAST_ERROR: RefCell<Option<CString>> = const { RefCell::new(None) };
}

pub(crate) fn set_error(msg: String) {
    // A message with a NUL byte is cut there rather than lost.
    let msg = msg.split('\0').next().unwrap_or_default().to_string();
    let c = CString::new(msg).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = Some(c));
}

/// Runs `f`, mapping an error or a panic to `fail` and the thread's last error.
pub(crate) fn guard<T>(fail: T, f: impl FnOnce() -> Res<T>) -> T {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => v,
        Ok(Err(msg)) => {
            set_error(msg);
            fail
        }
        Err(_) => {
            set_error("internal error: the simulator panicked".into());
            fail
        }
    }
}

/// The handle's state for this call: refused while another call on the
/// same handle is in progress (a callback calling back, a second thread).
fn sim<'a>(p: *mut PssSim) -> Res<Busy<'a>> {
    // SAFETY: a non-null handle comes from `pss_sim_new` and is not yet
    // freed (the caller's contract, stated on every function); `as_ref`
    // checks null. Only a shared reference is made here: the state behind
    // it is reached through the guard `enter` hands out once at a time.
    let h = unsafe { p.as_ref() }.ok_or_else(|| "null simulation handle".to_string())?;
    h.enter()
}

/// A new handle for C: `make`'s, boxed, or null with `pss_last_error` set.
pub(crate) fn boxed<H>(make: impl FnOnce() -> Res<H>) -> *mut H {
    guard(std::ptr::null_mut(), || {
        Ok(Box::into_raw(Box::new(make()?)))
    })
}

/// Frees a handle `boxed` made (null is ignored) unless `idle` finds a call
/// holding it: then nothing is freed and `pss_last_error` says why, `what`
/// (the C function) first.
///
/// # Safety
/// `h` is null or a live handle from [`boxed`], and no other thread uses it
/// during or after the call.
pub(crate) unsafe fn free_handle<H>(h: *mut H, what: &str, idle: impl FnOnce(&H) -> Res<()>) {
    if h.is_null() {
        return;
    }
    // SAFETY: the caller's contract: a live handle; only shared here.
    match idle(unsafe { &*h }) {
        // SAFETY: a live handle from `Box::into_raw` that no call holds.
        Ok(()) => drop(unsafe { Box::from_raw(h) }),
        Err(e) => set_error(format!("{what}: {e}; nothing was freed")),
    }
}

pub(crate) fn text<'a>(p: *const c_char, what: &str) -> Res<&'a str> {
    if p.is_null() {
        return Err(format!("{what} is null"));
    }
    // SAFETY: non-null, and the caller passes a NUL-terminated string that
    // outlives the call.
    let s = unsafe { CStr::from_ptr(p) };
    s.to_str().map_err(|_| format!("{what} is not UTF-8"))
}

/// The body of `pss_sim_push` and `pss_sim_push_branch_target`: the
/// handle admits one more queued instruction, then `on` pushes `index`
/// onto `warp`'s SM; 0 or -1.
fn push(
    s: *mut PssSim,
    warp: u32,
    index: u32,
    on: fn(&mut sim_core::Sm, u32, u32) -> Result<(), sim_core::SimError>,
) -> i32 {
    guard(-1, || {
        let mut h = sim(s)?;
        h.admit_push()?;
        on(h.sim()?.sm_of(warp), warp, index).map_err(|e| e.to_string())?;
        Ok(0)
    })
}

fn lanes<'a>(p: *const u64, what: &str) -> Res<&'a [u64; WARP_SIZE]> {
    // SAFETY: the caller passes 32 readable u64 or null; `as_ref` checks null.
    unsafe { p.cast::<[u64; WARP_SIZE]>().as_ref() }.ok_or_else(|| format!("{what} is null"))
}

/// The last error on this thread, or null if none. The text stays valid
/// until the next failing call on this thread.
#[no_mangle]
pub extern "C" fn pss_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ref().map_or(std::ptr::null(), |c| c.as_ptr()))
}

/// A simulation of `sms` SMs (1 to `PSS_MAX_SMS`) of preset `arch`
/// (`"sm_53"`, `"sm_90"`, ...) scheduled by `policy` (`"lrr"`, `"gto"`,
/// `"oldest"`); null on failure. Free it with `pss_sim_free`.
///
/// # Safety
/// Pointers are null or valid for the call ([pointer contract](crate#pointer-contract)).
#[no_mangle]
pub unsafe extern "C" fn pss_sim_new(
    arch: *const c_char,
    sms: u32,
    policy: *const c_char,
) -> *mut PssSim {
    boxed(|| PssSim::new(text(arch, "arch")?, sms, text(policy, "policy")?))
}

/// A simulation of `sms` SMs (1 to `PSS_MAX_SMS`) configured by the TOML
/// file at `path` (every value within its key's range, docs/config.md), as
/// `simcli config` prints it and `simcli run --config` reads it (target,
/// every parameter, scheduler); null on failure, with the file, line and key
/// in `pss_last_error`. Free it with `pss_sim_free`.
///
/// # Safety
/// Pointers are null or valid for the call ([pointer contract](crate#pointer-contract)).
#[no_mangle]
pub unsafe extern "C" fn pss_sim_from_config(path: *const c_char, sms: u32) -> *mut PssSim {
    boxed(|| PssSim::from_config(text(path, "path")?, sms))
}

/// Frees a simulation (null is ignored). While a call on the handle is in
/// progress (from inside its external-instruction callback) nothing is
/// freed and `pss_last_error` says why: the handle stays valid.
///
/// # Safety
/// `sim` is null or a handle from `pss_sim_new` or `pss_sim_from_config`
/// not yet freed, and no other thread uses it during or after the call.
#[no_mangle]
pub unsafe extern "C" fn pss_sim_free(sim: *mut PssSim) {
    // SAFETY: the caller's contract.
    unsafe { free_handle(sim, "pss_sim_free", |h| h.enter().map(drop)) }
}

/// Appends a PTX instruction to the program; returns its index, or -1.
///
/// # Safety
/// Pointers are null or valid for the call ([pointer contract](crate#pointer-contract)).
#[no_mangle]
pub unsafe extern "C" fn pss_sim_add_inst(s: *mut PssSim, ptx: *const c_char) -> i64 {
    guard(-1, || Ok(sim(s)?.add_inst(text(ptx, "ptx")?)? as i64))
}

/// The id of register `name` (`"%r1"`, `"%p0"`), or -1.
///
/// # Safety
/// Pointers are null or valid for the call ([pointer contract](crate#pointer-contract)).
#[no_mangle]
pub unsafe extern "C" fn pss_sim_reg(s: *mut PssSim, name: *const c_char) -> i64 {
    guard(-1, || Ok(sim(s)?.reg(text(name, "name")?)?.0 as i64))
}

/// Marks program instruction `index` as owned by the host (before the
/// simulation starts); 0 or -1.
///
/// # Safety
/// Pointers are null or valid for the call ([pointer contract](crate#pointer-contract)).
#[no_mangle]
pub unsafe extern "C" fn pss_sim_mark_external(s: *mut PssSim, index: u32) -> i32 {
    guard(-1, || sim(s)?.mark_external(index).map(|()| 0))
}

/// Sets the callback that receives marked instructions as they issue, with
/// `user` passed back to it; 0 or -1. The callback is called on the thread
/// that steps the simulation, and may not call back into the same handle:
/// such a call is refused (-1, null, or nothing freed) with a message. A
/// null `f` leaves every external instruction to `pss_sim_complete`.
///
/// # Safety
/// Pointers are null or valid for the call ([pointer contract](crate#pointer-contract)).
#[no_mangle]
pub unsafe extern "C" fn pss_sim_set_external(
    s: *mut PssSim,
    f: PssExternalFn,
    user: *mut c_void,
) -> i32 {
    guard(-1, || {
        sim(s)?.set_external(f, user);
        Ok(0)
    })
}

/// Adds a warp fed by the host, with active lanes `active`; 0 or -1.
///
/// # Safety
/// Pointers are null or valid for the call ([pointer contract](crate#pointer-contract)).
#[no_mangle]
pub unsafe extern "C" fn pss_sim_add_host_warp(s: *mut PssSim, warp: u32, active: u32) -> i32 {
    guard(-1, || sim(s)?.add_host_warp(warp, active).map(|()| 0))
}

/// Appends program instruction `index` to a host warp; 0 or -1 (also
/// when `PSS_MAX_QUEUED` instructions are queued on the handle's warps and
/// not yet issued: run the simulation, then push again).
///
/// # Safety
/// Pointers are null or valid for the call ([pointer contract](crate#pointer-contract)).
#[no_mangle]
pub unsafe extern "C" fn pss_sim_push(s: *mut PssSim, warp: u32, index: u32) -> i32 {
    push(s, warp, index, sim_core::Sm::push_instruction)
}

/// Appends program instruction `index` to a host warp as the target of a
/// branch the warp takes: it issues no earlier than the configuration's
/// `taken_branch_cycles` after the warp's previous instruction, the branch
/// (0 in every preset: a configuration file sets it); 0 or -1.
///
/// # Safety
/// Pointers are null or valid for the call ([pointer contract](crate#pointer-contract)).
#[no_mangle]
pub unsafe extern "C" fn pss_sim_push_branch_target(s: *mut PssSim, warp: u32, index: u32) -> i32 {
    push(s, warp, index, sim_core::Sm::push_branch_target)
}

/// Appends the program instruction `ptx` parses to (it must be one of the
/// program's); returns its index, or -1.
///
/// # Safety
/// Pointers are null or valid for the call ([pointer contract](crate#pointer-contract)).
#[no_mangle]
pub unsafe extern "C" fn pss_sim_push_ptx(s: *mut PssSim, warp: u32, ptx: *const c_char) -> i64 {
    guard(-1, || {
        let mut h = sim(s)?;
        let index = h.index_of(text(ptx, "ptx")?)?;
        h.admit_push()?;
        let sm = h.sim()?.sm_of(warp);
        sm.push_instruction(warp, index)
            .map_err(|e| e.to_string())?;
        Ok(index as i64)
    })
}

/// Ends a host warp once its queued instructions have issued; 0 or -1.
///
/// # Safety
/// Pointers are null or valid for the call ([pointer contract](crate#pointer-contract)).
#[no_mangle]
pub unsafe extern "C" fn pss_sim_close_warp(s: *mut PssSim, warp: u32) -> i32 {
    guard(-1, || {
        let mut h = sim(s)?;
        let sm = h.sim()?.sm_of(warp);
        sm.close_warp(warp).map_err(|e| e.to_string())?;
        Ok(0)
    })
}

/// Writes up to `cap` ids of host warps that want input to `out`; returns
/// how many want it (possibly more than `cap`), or -1.
///
/// # Safety
/// Pointers are null or valid for the call ([pointer contract](crate#pointer-contract)).
#[no_mangle]
pub unsafe extern "C" fn pss_sim_hungry_warps(s: *mut PssSim, out: *mut u32, cap: usize) -> i64 {
    guard(-1, || {
        let mut h = sim(s)?;
        let sim = h.sim()?;
        if out.is_null() && cap > 0 {
            return Err("out is null".into());
        }
        let mut n = 0usize;
        for sm in sim.sms_mut() {
            for id in sm.hungry_warps() {
                if n < cap {
                    // SAFETY: `out` holds `cap` writable u32 (caller's
                    // contract), and `n < cap`.
                    unsafe { out.add(n).write(id) };
                }
                n += 1;
            }
        }
        Ok(n as i64)
    })
}

/// Advances every SM by one clock; 0 or -1.
///
/// # Safety
/// Pointers are null or valid for the call ([pointer contract](crate#pointer-contract)).
#[no_mangle]
pub unsafe extern "C" fn pss_sim_step(s: *mut PssSim) -> i32 {
    guard(-1, || sim(s)?.step().map(|()| 0))
}

/// Steps until done (`PSS_DONE`), the host is needed (`PSS_WAITING`), or the
/// clock reaches `max_cycle` or `max_instructions` warp instructions have
/// issued (`PSS_REACHED`); -1 on error.
///
/// # Safety
/// Pointers are null or valid for the call ([pointer contract](crate#pointer-contract)).
#[no_mangle]
pub unsafe extern "C" fn pss_sim_run_until(
    s: *mut PssSim,
    max_cycle: u64,
    max_instructions: u64,
) -> i32 {
    guard(-1, || {
        Ok(match sim(s)?.run_until(max_cycle, max_instructions)? {
            Progress::Done => PSS_DONE,
            Progress::Waiting => PSS_WAITING,
            Progress::Reached => PSS_REACHED,
        })
    })
}

/// Completes external instruction `ticket` of SM `sm`; 0 or -1.
///
/// # Safety
/// Pointers are null or valid for the call ([pointer contract](crate#pointer-contract)).
#[no_mangle]
pub unsafe extern "C" fn pss_sim_complete(
    s: *mut PssSim,
    sm: u32,
    ticket: u64,
    c: *const PssCompletion,
) -> i32 {
    guard(-1, || {
        // SAFETY: the caller passes a readable completion or null.
        let c = unsafe { c.as_ref() }.ok_or("completion is null")?;
        let mut h = sim(s)?;
        let sim = h.sim()?;
        let sm = sim
            .sms_mut()
            .get_mut(sm as usize)
            .ok_or_else(|| format!("no SM {sm}"))?;
        let done = Completion {
            cycle: c.cycle,
            values: c.values,
        };
        sm.complete_external(ticket, &done)
            .map_err(|e| e.to_string())?;
        Ok(0)
    })
}

/// Copies the 32 lanes of register `reg` of `warp` to `out`; 0 or -1.
///
/// # Safety
/// Pointers are null or valid for the call ([pointer contract](crate#pointer-contract)).
#[no_mangle]
pub unsafe extern "C" fn pss_sim_read_reg(
    s: *mut PssSim,
    warp: u32,
    reg: u32,
    out: *mut u64,
) -> i32 {
    guard(-1, || {
        // SAFETY: the caller passes 32 writable u64 or null.
        let out = unsafe { out.cast::<[u64; WARP_SIZE]>().as_mut() }.ok_or("out is null")?;
        let mut h = sim(s)?;
        let sm = h.sim()?.sm_of(warp);
        *out = *sm.reg(warp, RegId(reg)).map_err(|e| e.to_string())?;
        Ok(0)
    })
}

/// Sets the 32 lanes of register `reg` of `warp` from `values`; 0 or -1.
///
/// # Safety
/// Pointers are null or valid for the call ([pointer contract](crate#pointer-contract)).
#[no_mangle]
pub unsafe extern "C" fn pss_sim_write_reg(
    s: *mut PssSim,
    warp: u32,
    reg: u32,
    values: *const u64,
) -> i32 {
    guard(-1, || {
        let values = lanes(values, "values")?;
        let mut h = sim(s)?;
        let sm = h.sim()?.sm_of(warp);
        sm.set_reg(warp, RegId(reg), values)
            .map_err(|e| e.to_string())?;
        Ok(0)
    })
}

/// Fills `out` with the statistics so far; 0 or -1.
///
/// # Safety
/// Pointers are null or valid for the call ([pointer contract](crate#pointer-contract)).
#[no_mangle]
pub unsafe extern "C" fn pss_sim_stats(s: *mut PssSim, out: *mut PssStats) -> i32 {
    guard(-1, || {
        // SAFETY: the caller passes a writable PssStats or null.
        let out = unsafe { out.as_mut() }.ok_or("out is null")?;
        let mut h = sim(s)?;
        let st = h.sim()?.report().stats;
        *out = PssStats::of(&st, st.ipc);
        Ok(0)
    })
}
