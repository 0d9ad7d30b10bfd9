//! The C functions, called from Rust: failures return their failure value
//! and leave a message; nothing panics; deferred completions work.

use crate::{assert_error_says, c, last_error};
use sim_capi::*;
use std::ptr::{null, null_mut};

fn new_sim(arch: &str) -> *mut PssSim {
    // SAFETY: valid C strings for the call.
    unsafe { pss_sim_new(c(arch).as_ptr(), 1, c("gto").as_ptr()) }
}

fn free(s: *mut PssSim) {
    // SAFETY: `s` came from pss_sim_new and is freed once.
    unsafe { pss_sim_free(s) }
}

#[test]
fn bad_input_is_an_error_with_a_message() {
    // SAFETY: every pointer passed is null (checked by the callee) or valid
    // for the call; `s` is live until freed.
    unsafe {
        assert!(new_sim("sm_9x").is_null());
        assert!(last_error().contains("sm_9x"), "{}", last_error());
        assert!(pss_sim_new(null(), 1, c("gto").as_ptr()).is_null());
        assert_eq!(last_error(), "arch is null");
        assert!(pss_sim_new(c("sm_90").as_ptr(), 1, c("fifo").as_ptr()).is_null());
        assert!(last_error().contains("fifo"));
        assert!(pss_sim_from_config(c("my.toml").as_ptr(), 1).is_null());
        assert!(last_error().contains("my.toml"));
        assert_eq!(pss_sim_step(null_mut()), -1);
        assert_eq!(last_error(), "null simulation handle");

        let s = new_sim("sm_90");
        assert!(!s.is_null());
        assert_eq!(pss_sim_add_inst(s, c("add.u32 %r1, %r0, 4;").as_ptr()), 0);
        assert_eq!(pss_sim_add_inst(s, c("frob %r1;").as_ptr()), -1);
        assert!(
            last_error().starts_with("instruction 1:"),
            "{}",
            last_error()
        );
        assert_eq!(pss_sim_reg(s, c("%r9").as_ptr()), -1);
        assert_eq!(pss_sim_mark_external(s, 5), -1);
        assert_eq!(pss_sim_add_host_warp(s, 0, u32::MAX), 0);
        // The program is frozen now.
        assert_eq!(pss_sim_add_inst(s, c("add.u32 %r1, %r0, 5;").as_ptr()), -1);
        assert!(last_error().contains("frozen"));
        assert_eq!(
            pss_sim_push_ptx(s, 0, c("add.u32 %r1, %r0, 5;").as_ptr()),
            -1
        );
        assert!(last_error().contains("not an instruction of the program"));
        assert_eq!(pss_sim_push(s, 3, 0), -1);
        assert_eq!(pss_sim_read_reg(s, 0, 0, null_mut()), -1);
        assert_eq!(pss_sim_stats(s, null_mut()), -1);
        free(s);
    }
}

#[test]
fn deferred_completion_and_hungry_warps() {
    // SAFETY: as above.
    unsafe {
        let s = new_sim("sm_53");
        for text in [
            "add.u32 %r1, %r0, 4;",
            "add.u32 %r2, %r1, 0;",
            "add.u32 %r3, %r2, %r1;",
        ] {
            assert!(pss_sim_add_inst(s, c(text).as_ptr()) >= 0);
        }
        assert_eq!(pss_sim_mark_external(s, 1), 0);
        assert_eq!(pss_sim_add_host_warp(s, 0, u32::MAX), 0);
        let mut ids = [0u32; 4];
        assert_eq!(pss_sim_hungry_warps(s, ids.as_mut_ptr(), ids.len()), 1);
        assert_eq!(ids[0], 0);
        for text in [
            "add.u32 %r1, %r0, 4;",
            "add.u32 %r2, %r1, 0;",
            "add.u32 %r3, %r2, %r1;",
        ] {
            assert!(
                pss_sim_push_ptx(s, 0, c(text).as_ptr()) >= 0,
                "{}",
                last_error()
            );
        }
        assert_eq!(pss_sim_close_warp(s, 0), 0);
        // No callback: the load waits for pss_sim_complete.
        assert_eq!(pss_sim_run_until(s, 1000, u64::MAX), PSS_WAITING);
        let done = PssCompletion {
            cycle: 500,
            values: [[7; 32]; 2],
        };
        assert_eq!(pss_sim_complete(s, 0, 99, &done), -1);
        assert!(last_error().contains("99"));
        assert_eq!(pss_sim_complete(s, 0, 0, &done), 0);
        assert_eq!(pss_sim_run_until(s, u64::MAX, u64::MAX), PSS_DONE);
        let mut r3 = [0u64; 32];
        let reg = pss_sim_reg(s, c("%r3").as_ptr());
        assert_eq!(pss_sim_read_reg(s, 0, reg as u32, r3.as_mut_ptr()), 0);
        assert!(r3.iter().all(|&v| v == 7 + 4));
        let mut st = PssStats::default();
        assert_eq!(pss_sim_stats(s, &mut st), 0);
        assert_eq!(st.warp_instructions, 3);
        assert!(st.cycles > 500, "{}", st.cycles);
        free(s);
    }
}

/// A three-instruction dependent chain on one host warp; its statistics.
///
/// # Safety
/// `s` is a live handle.
unsafe fn chain_stats(s: *mut PssSim) -> PssStats {
    // SAFETY: the caller's contract; the strings are valid for each call.
    unsafe {
        for text in [
            "add.u32 %r1, %r0, 4;",
            "add.u32 %r2, %r1, 1;",
            "add.u32 %r3, %r2, %r1;",
        ] {
            assert!(pss_sim_add_inst(s, c(text).as_ptr()) >= 0);
        }
        assert_eq!(pss_sim_add_host_warp(s, 0, u32::MAX), 0);
        for i in 0..3 {
            assert_eq!(pss_sim_push(s, 0, i), 0);
        }
        assert_eq!(pss_sim_close_warp(s, 0), 0);
        assert_eq!(pss_sim_run_until(s, u64::MAX, u64::MAX), PSS_DONE);
        let mut st = PssStats::default();
        assert_eq!(pss_sim_stats(s, &mut st), 0);
        st
    }
}

#[test]
fn configuration_files_drive_the_simulation() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let target = sim_isa::Target::SM_53;
    let mut config = sim_core::preset(target);
    let printed = sim_core::config_file::to_toml(&config, sim_core::SchedPolicy::Gto);
    let same = dir.join("capi-sm53.toml");
    std::fs::write(&same, &printed).unwrap();
    // A slower integer unit: the dependent chain takes longer.
    config.units.int_alu.latency += 10;
    let slow = dir.join("capi-sm53-slow.toml");
    std::fs::write(
        &slow,
        sim_core::config_file::to_toml(&config, sim_core::SchedPolicy::Gto),
    )
    .unwrap();
    let bad = dir.join("capi-bad.toml");
    std::fs::write(&bad, "target = \"sm_53\"\n[units.int_alu]\nlatency = -1\n").unwrap();
    let path = |p: &std::path::Path| c(p.to_str().unwrap());
    // SAFETY: valid C strings; each handle is live until freed.
    unsafe {
        let preset = new_sim("sm_53");
        let from_file = pss_sim_from_config(path(&same).as_ptr(), 1);
        assert!(!from_file.is_null(), "{}", last_error());
        let (a, b) = (chain_stats(preset), chain_stats(from_file));
        assert_eq!(
            (a.cycles, a.issued, a.dependency),
            (b.cycles, b.issued, b.dependency)
        );
        let slower = pss_sim_from_config(path(&slow).as_ptr(), 1);
        assert!(!slower.is_null(), "{}", last_error());
        assert_eq!(
            chain_stats(slower).cycles,
            a.cycles + 30,
            "three dependent adds"
        );
        assert!(pss_sim_from_config(path(&bad).as_ptr(), 1).is_null());
        let e = last_error();
        assert!(
            e.contains("capi-bad.toml:3") && e.contains("latency"),
            "{e}"
        );
        for s in [preset, from_file, slower] {
            free(s);
        }
        // Issue 28: a link to /dev/zero (its size says 0) is read to the
        // configuration limit and one byte more, not whole.
        if std::path::Path::new("/dev/zero").exists() {
            let zero = dir.join("capi-zero.toml");
            let _ = std::fs::remove_file(&zero);
            std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
            assert!(pss_sim_from_config(path(&zero).as_ptr(), 1).is_null());
            let e = last_error();
            assert!(
                e.ends_with("capi-zero.toml: more than 1048576 bytes"),
                "{e}"
            );
        }
    }
}

/// A branch target pushed as one waits the configuration's
/// `taken_branch_cycles` after the branch, and only that one (the sm_90
/// preset has 0: the H100 shows no redirect beyond the loop's own
/// instructions; a configuration file gives 22 here).
#[test]
fn branch_targets_wait_for_the_redirect() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let mut config = sim_core::preset(sim_isa::Target::SM_90);
    assert_eq!(config.taken_branch_cycles, 0);
    config.taken_branch_cycles = 22;
    let file = dir.join("capi-sm90-redirect.toml");
    std::fs::write(
        &file,
        sim_core::config_file::to_toml(&config, sim_core::SchedPolicy::Gto),
    )
    .unwrap();
    let file = c(file.to_str().unwrap());
    let cycles = |branch: bool| {
        // SAFETY: a fresh handle, valid strings, freed at the end.
        unsafe {
            let s = pss_sim_from_config(file.as_ptr(), 1);
            assert!(!s.is_null(), "{}", last_error());
            for text in ["add.u32 %r1, %r0, 4;", "add.u32 %r2, %r0, 5;"] {
                assert!(pss_sim_add_inst(s, c(text).as_ptr()) >= 0);
            }
            assert_eq!(pss_sim_add_host_warp(s, 0, u32::MAX), 0);
            assert_eq!(pss_sim_push(s, 0, 0), 0);
            let pushed = if branch {
                pss_sim_push_branch_target(s, 0, 1)
            } else {
                pss_sim_push(s, 0, 1)
            };
            assert_eq!(pushed, 0);
            assert_eq!(pss_sim_push_branch_target(s, 0, 7), -1);
            assert!(last_error().contains('7'), "{}", last_error());
            assert_eq!(pss_sim_close_warp(s, 0), 0);
            assert_eq!(pss_sim_run_until(s, u64::MAX, u64::MAX), PSS_DONE);
            let mut st = PssStats::default();
            assert_eq!(pss_sim_stats(s, &mut st), 0);
            free(s);
            st.cycles
        }
    };
    assert_eq!(cycles(true) - cycles(false), 22 - 1);
}

/// Issue 28: counts and configuration values outside their ranges are
/// errors with a message, not an allocation that aborts the host process.
#[test]
fn counts_and_configuration_ranges_are_errors() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let huge = dir.join("capi-huge-schedulers.toml");
    std::fs::write(&huge, "target = \"sm_90\"\nschedulers = 4294967295\n").unwrap();
    // SAFETY: valid C strings; each handle is live until freed.
    unsafe {
        for sms in [0, 4097, 4_000_000_000] {
            assert!(pss_sim_new(c("sm_90").as_ptr(), sms, c("lrr").as_ptr()).is_null());
            assert!(last_error().contains("1 to 4096"), "{}", last_error());
            let from = pss_sim_from_config(c(huge.to_str().unwrap()).as_ptr(), sms);
            assert!(from.is_null());
        }
        let s = pss_sim_new(c("sm_90").as_ptr(), 4096, c("lrr").as_ptr());
        assert!(!s.is_null(), "{}", last_error());
        free(s);
        let p = c(huge.to_str().unwrap());
        assert!(pss_sim_from_config(p.as_ptr(), 1).is_null());
        let e = last_error();
        assert!(
            e.contains(
                "capi-huge-schedulers.toml:2: schedulers: 4294967295 is out of range: 1 to 32"
            ),
            "{e}"
        );
    }
}

/// What the re-entrant callback did: its handle, and per call back into it
/// the return code and `pss_last_error`.
struct Reentry {
    handle: *mut PssSim,
    calls: u32,
    codes: Vec<i64>,
    errors: Vec<String>,
}

/// An external-instruction callback that calls back into its own handle
/// (every call refused), then completes the instruction with 5.
unsafe extern "C" fn reenter(
    user: *mut std::ffi::c_void,
    _req: *const PssExtRequest,
    out: *mut PssCompletion,
) -> i32 {
    // SAFETY: `user` is the `Reentry` the test registered, live for the run.
    let r = unsafe { &mut *user.cast::<Reentry>() };
    r.calls += 1;
    let s = r.handle;
    let mut st = PssStats::default();
    // SAFETY: `s` is live (the call stepping it is in progress); each call
    // is refused before it touches the handle's state.
    unsafe {
        r.codes.push(i64::from(pss_sim_stats(s, &mut st)));
        r.errors.push(last_error());
        r.codes.push(i64::from(pss_sim_step(s)));
        r.codes
            .push(i64::from(pss_sim_run_until(s, u64::MAX, u64::MAX)));
        r.codes
            .push(pss_sim_add_inst(s, c("add.u32 %r1, %r0, 1;").as_ptr()));
        r.codes.push(i64::from(pss_sim_close_warp(s, 0)));
        // Refused too: freeing the handle under the call would leave the
        // simulation running on freed memory.
        pss_sim_free(s);
        r.errors.push(last_error());
        (*out).values = [[5; 32]; 2];
    }
    1
}

/// Issue 28: a call back into the same handle from inside its
/// external-instruction callback is refused with -1 (null, or nothing for
/// `pss_sim_free`) and a message, and the handle works on afterwards.
#[test]
fn reentrant_calls_from_the_callback_are_refused() {
    // SAFETY: valid C strings; `s` is live until freed; `r` outlives the run.
    unsafe {
        let s = new_sim("sm_90");
        for text in ["add.u32 %r1, %r0, 4;", "add.u32 %r2, %r1, 0;"] {
            assert!(pss_sim_add_inst(s, c(text).as_ptr()) >= 0);
        }
        assert_eq!(pss_sim_mark_external(s, 1), 0);
        let mut r = Reentry {
            handle: s,
            calls: 0,
            codes: Vec::new(),
            errors: Vec::new(),
        };
        let user = std::ptr::addr_of_mut!(r).cast::<std::ffi::c_void>();
        assert_eq!(pss_sim_set_external(s, Some(reenter), user), 0);
        assert_eq!(pss_sim_add_host_warp(s, 0, u32::MAX), 0);
        assert_eq!(pss_sim_push(s, 0, 0), 0);
        assert_eq!(pss_sim_push(s, 0, 1), 0);
        assert_eq!(pss_sim_close_warp(s, 0), 0);
        assert_eq!(
            pss_sim_run_until(s, 100_000, u64::MAX),
            PSS_DONE,
            "{}",
            last_error()
        );
        assert_eq!(r.calls, 1);
        assert_eq!(r.codes, [-1; 5]);
        for e in &r.errors {
            assert!(
                e.contains("the handle is in use") && e.contains("callback"),
                "{e}"
            );
        }
        // The handle is intact: the callback's value is in %r2.
        let mut lanes = [0u64; 32];
        let reg = pss_sim_reg(s, c("%r2").as_ptr());
        assert_eq!(pss_sim_read_reg(s, 0, reg as u32, lanes.as_mut_ptr()), 0);
        assert!(lanes.iter().all(|&v| v == 5), "{lanes:?}");
        let mut st = PssStats::default();
        assert_eq!(pss_sim_stats(s, &mut st), 0);
        assert_eq!(st.warp_instructions, 2);
        free(s);
    }
}

/// Issue 28: every count a handle grows by is bounded, with the bounds the
/// header states; the SM bound is sim_core's (simcli's `--sms`).
#[test]
fn program_and_warp_counts_are_bounded() {
    assert_eq!(PSS_MAX_SMS as usize, sim_core::config_file::MAX_SMS);
    // SAFETY: valid C strings; `s` is live until freed.
    unsafe {
        let s = new_sim("sm_90");
        // 4095 registers (%r1..%r4095 and %r0), then one more is refused.
        for i in 1..PSS_MAX_REGS {
            let text = format!("add.u32 %r{i}, %r0, 1;");
            assert!(pss_sim_add_inst(s, c(&text).as_ptr()) >= 0, "{i}");
        }
        assert_eq!(
            pss_sim_add_inst(s, c("add.u32 %r4096, %r0, 1;").as_ptr()),
            -1
        );
        assert_error_says("4097 registers, more than the limit of 4096");
        // The program then cannot start (it names too many registers).
        assert_eq!(pss_sim_add_host_warp(s, 0, u32::MAX), -1);
        free(s);
        // Warps x registers: 512 warps of 4096 registers fill 2^21.
        let s = new_sim("sm_90");
        for i in 1..PSS_MAX_REGS {
            let text = format!("add.u32 %r{i}, %r0, 1;");
            assert!(pss_sim_add_inst(s, c(&text).as_ptr()) >= 0, "{i}");
        }
        let fit = PSS_MAX_WARP_REGS / PSS_MAX_REGS;
        for w in 0..fit {
            assert_eq!(pss_sim_add_host_warp(s, w, 1), 0, "{}", last_error());
        }
        assert_eq!(pss_sim_add_host_warp(s, fit, 1), -1);
        assert_error_says("at most 65536 warps and 2097152 warps x registers");
        free(s);
    }
}

/// Issue 28: pushing instructions without running grew memory without
/// bound. At most `PSS_MAX_QUEUED` wait on a handle's warps: the push past
/// them fails (-1) naming the limit, whichever push it is; once the
/// simulation has issued some, pushes are accepted again.
#[test]
fn pushes_wait_in_bounded_queues() {
    // SAFETY: valid C strings and a live handle for each call.
    unsafe {
        let s = new_sim("sm_90");
        assert_eq!(pss_sim_add_inst(s, c("add.u32 %r1, %r0, 4;").as_ptr()), 0);
        assert_eq!(pss_sim_add_host_warp(s, 0, u32::MAX), 0);
        assert_eq!(pss_sim_add_host_warp(s, 1, u32::MAX), 0);
        // Each warp's first instruction is fetched, ready to issue; the
        // rest wait in its queue.
        let mut k = 0u64;
        while pss_sim_push(s, (k % 2) as u32, 0) == 0 {
            k += 1;
            assert!(k <= PSS_MAX_QUEUED + 2, "no limit");
        }
        assert_eq!(k, PSS_MAX_QUEUED + 2, "{}", last_error());
        let want = format!("{PSS_MAX_QUEUED} instructions are queued on the handle's host warps and not yet issued, the limit (PSS_MAX_QUEUED)");
        assert!(last_error().starts_with(&want), "{}", last_error());
        assert_eq!(pss_sim_push(s, 0, 0), -1);
        assert_eq!(pss_sim_push_branch_target(s, 1, 0), -1);
        assert!(last_error().starts_with(&want), "{}", last_error());
        let add = c("add.u32 %r1, %r0, 4;");
        assert_eq!(pss_sim_push_ptx(s, 1, add.as_ptr()), -1);
        assert!(last_error().starts_with(&want), "{}", last_error());
        // Clocks issue some: room again, for as many as issued.
        for _ in 0..64 {
            assert_eq!(pss_sim_step(s), 0, "{}", last_error());
        }
        assert_eq!(pss_sim_push(s, 0, 0), 0, "{}", last_error());
        assert_eq!(pss_sim_push_ptx(s, 1, add.as_ptr()), 0, "{}", last_error());
        free(s);
    }
}
