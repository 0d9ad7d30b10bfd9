//! The device functions (`pss_device_*`), called from Rust: a launch
//! through the C ABI gives what `sim_kernel::Device` gives, memory and
//! `.global` variables persist across launches, and bad input fails with a
//! message.

use crate::{assert_error_says, c, last_error};
use sim_capi::*;
use std::ffi::c_void;
use std::path::Path;
use std::ptr::{null, null_mut};

/// The example's kernel: y = a*x + y; thread 0 counts launches in `.global`.
pub fn saxpy_ptx() -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/saxpy.ptx");
    std::fs::read_to_string(p).unwrap()
}

pub const N: u32 = 1000;
pub const GRID: [u32; 3] = [N.div_ceil(128), 1, 1];
pub const BLOCK: [u32; 3] = [128, 1, 1];

/// x and y of the example.
pub fn inputs() -> (Vec<f32>, Vec<f32>) {
    let x = (0..N).map(|i| i as f32 * 0.5).collect();
    let y = (0..N).map(|i| (N - i) as f32).collect();
    (x, y)
}

fn le(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|f| f.to_le_bytes()).collect()
}

/// The packed parameters of saxpy(x, y, n, a): offsets 0, 8, 16, 20.
pub fn saxpy_params(dx: u64, dy: u64, a: f32) -> Vec<u8> {
    let mut p = Vec::new();
    p.extend_from_slice(&dx.to_le_bytes());
    p.extend_from_slice(&dy.to_le_bytes());
    p.extend_from_slice(&N.to_le_bytes());
    p.extend_from_slice(&a.to_le_bytes());
    p
}

/// (cycles, warps, instructions) of the two launches of the example, run
/// on `sim_kernel::Device` directly with the options the C API uses.
pub fn direct_reports() -> Vec<(u64, u64, u64)> {
    let target = sim_isa::Target::parse("sm_90").unwrap();
    let opts = sim_kernel::RunOptions::new(
        sim_core::preset(target),
        sim_core::SchedPolicy::Lrr,
        sim_kernel::MemConfig::preset(target).sms,
    );
    let mut d = sim_kernel::Device::new(opts);
    let m = d.load_module("saxpy.ptx", &saxpy_ptx()).unwrap();
    let (x, y) = inputs();
    let dx = d.malloc(4 * u64::from(N)).unwrap();
    let dy = d.malloc(4 * u64::from(N)).unwrap();
    d.write(dx, &le(&x)).unwrap();
    d.write(dy, &le(&y)).unwrap();
    (0..2)
        .map(|_| {
            let l = d
                .launch(m, "saxpy", GRID, BLOCK, 0, &saxpy_params(dx, dy, 2.0))
                .unwrap();
            (l.timed.cycles, l.warps, l.instructions)
        })
        .collect()
}

/// Launches module `m`'s `saxpy` over `GRID` x `BLOCK` with `params`,
/// which must succeed, its report into `r` (or none where null).
///
/// # Safety
/// `d` is a live device and `r` null or valid for a write.
unsafe fn launch_saxpy(d: *mut PssDevice, m: u32, params: &[u8], r: *mut PssLaunchReport) {
    // SAFETY: by the caller's contract; the other pointers are live here.
    let rc = unsafe {
        pss_device_launch(
            d,
            m,
            c("saxpy").as_ptr(),
            GRID.as_ptr(),
            BLOCK.as_ptr(),
            0,
            params.as_ptr().cast(),
            params.len(),
            r,
        )
    };
    assert_eq!(rc, 0, "{}", last_error());
}

#[test]
fn launches_match_the_device_and_memory_persists() {
    let direct = direct_reports();
    // SAFETY: every pointer is null (checked) or valid for the call; `d`
    // is live until freed once.
    unsafe {
        let d = pss_device_new(c("sm_90").as_ptr(), 0);
        assert!(!d.is_null(), "{}", last_error());
        let ptx = c(&saxpy_ptx());
        let m = pss_device_load_module(d, c("saxpy.ptx").as_ptr(), ptx.as_ptr());
        assert_eq!(m, 0, "{}", last_error());
        let m = m as u32;
        assert_eq!(pss_device_param_count(d, m, c("saxpy").as_ptr()), 4);
        let mut slots = Vec::new();
        for k in 0..4 {
            let mut p = PssParam::default();
            assert_eq!(pss_device_param(d, m, c("saxpy").as_ptr(), k, &mut p), 0);
            slots.push((p.offset, p.size, p.align));
        }
        assert_eq!(slots, [(0, 8, 8), (8, 8, 8), (16, 4, 4), (20, 4, 4)]);
        let (x, y) = inputs();
        let (mut dx, mut dy) = (0u64, 0u64);
        assert_eq!(pss_device_malloc(d, 4 * u64::from(N), &mut dx), 0);
        assert_eq!(pss_device_malloc(d, 4 * u64::from(N), &mut dy), 0);
        let (bx, by) = (le(&x), le(&y));
        assert_eq!(pss_device_write(d, dx, bx.as_ptr().cast(), bx.len()), 0);
        assert_eq!(pss_device_write(d, dy, by.as_ptr().cast(), by.len()), 0);
        let params = saxpy_params(dx, dy, 2.0);
        for want in &direct {
            let mut r = PssLaunchReport::default();
            launch_saxpy(d, m, &params, &mut r);
            assert_eq!((r.cycles, r.warps, r.instructions), *want);
            assert_eq!(r.stats.cycles, r.cycles);
            assert_eq!(r.stats.warp_instructions, r.instructions);
            assert!(r.sms_used >= 1 && r.stats.ipc > 0.0);
        }
        // Two launches on the same memory: y = 2x + (2x + y), bit for bit
        // as the host's fused multiply-add.
        let mut out = vec![0u8; by.len()];
        assert_eq!(
            pss_device_read(d, dy, out.as_mut_ptr().cast(), out.len()),
            0
        );
        let want: Vec<f32> = x
            .iter()
            .zip(&y)
            .map(|(&x, &y)| 2f32.mul_add(x, 2f32.mul_add(x, y)))
            .collect();
        assert_eq!(out, le(&want));
        // The kernel's .global counter saw both launches; the host sets it.
        let mut n = 0u32;
        let launches = c("launches");
        let np = (&mut n as *mut u32).cast::<c_void>();
        assert_eq!(pss_device_read_symbol(d, m, launches.as_ptr(), 0, np, 4), 0);
        assert_eq!(n, 2);
        let ten = 10u32.to_le_bytes();
        let tp = ten.as_ptr().cast();
        assert_eq!(
            pss_device_write_symbol(d, m, launches.as_ptr(), 0, tp, 4),
            0
        );
        launch_saxpy(d, m, &params, null_mut());
        assert_eq!(pss_device_read_symbol(d, m, launches.as_ptr(), 0, np, 4), 0);
        assert_eq!(n, 11);
        assert_eq!(pss_device_mem_free(d, dx), 0);
        assert_eq!(pss_device_mem_free(d, dx), -1);
        assert_error_says("invalid device pointer");
        pss_device_free(d);
    }
}

#[test]
fn device_errors_have_messages() {
    // SAFETY: as above.
    unsafe {
        assert!(pss_device_new(c("sm_9x").as_ptr(), 0).is_null());
        assert!(last_error().contains("sm_9x"), "{}", last_error());
        assert!(pss_device_new(null(), 0).is_null());
        assert_eq!(last_error(), "arch is null");
        assert!(pss_device_new(c("sm_90").as_ptr(), 5000).is_null());
        assert!(pss_device_from_config(c("no-such.toml").as_ptr(), 0).is_null());
        assert!(last_error().contains("no-such.toml"), "{}", last_error());
        let mut a = 0u64;
        assert_eq!(pss_device_malloc(null_mut(), 4, &mut a), -1);
        assert_eq!(last_error(), "null device handle");
        pss_device_free(null_mut());

        let d = pss_device_new(c("sm_90").as_ptr(), 2);
        assert!(!d.is_null());
        assert_eq!(pss_device_malloc(d, 4, null_mut()), -1);
        assert_eq!(last_error(), "out is null");
        let bad = pss_device_load_module(d, c("bad.ptx").as_ptr(), c("frob;").as_ptr());
        assert_eq!(bad, -1);
        assert!(last_error().contains("bad.ptx"), "{}", last_error());
        let ptx = c(&saxpy_ptx());
        let m = pss_device_load_module(d, c("saxpy.ptx").as_ptr(), ptx.as_ptr()) as u32;
        assert_eq!(pss_device_param_count(d, m, c("nope").as_ptr()), -1);
        assert!(last_error().contains("nope"), "{}", last_error());
        assert_eq!(pss_device_param_count(d, 7, c("saxpy").as_ptr()), -1);
        assert_eq!(last_error(), "no module 7 is loaded");
        let mut p = PssParam::default();
        assert_eq!(pss_device_param(d, m, c("saxpy").as_ptr(), 4, &mut p), -1);
        assert!(last_error().contains("no parameter 4"), "{}", last_error());
        assert_eq!(pss_device_malloc(d, 16, &mut a), 0);
        assert_eq!(pss_device_write(d, a, null(), 4), -1);
        assert_eq!(last_error(), "data is null");
        let big = [0u8; 32];
        assert_eq!(pss_device_write(d, a, big.as_ptr().cast(), 32), -1);
        assert!(last_error().contains("32 bytes"), "{}", last_error());
        let launch = |params: &[u8], grid: *const u32| {
            pss_device_launch(
                d,
                m,
                c("saxpy").as_ptr(),
                grid,
                BLOCK.as_ptr(),
                0,
                params.as_ptr().cast(),
                params.len(),
                null_mut(),
            )
        };
        assert_eq!(launch(&[0; 8], GRID.as_ptr()), -1);
        assert_eq!(
            last_error(),
            "saxpy takes 24 bytes of parameters; the launch gives 8"
        );
        assert_eq!(launch(&saxpy_params(a, a, 1.0), null()), -1);
        assert_eq!(last_error(), "grid is null");
        assert_eq!(launch(&saxpy_params(a, a, 1.0), [0, 1, 1].as_ptr()), -1);
        assert!(last_error().contains("zero dimension"), "{}", last_error());
        // A refused launch leaves the device usable; a fault stops it.
        assert_eq!(launch(&saxpy_params(a, a, 1.0), GRID.as_ptr()), -1);
        let fault = last_error();
        assert!(
            fault.starts_with("out-of-bounds 4-byte global access") && fault.contains("saxpy.ptx"),
            "{fault}"
        );
        assert_eq!(pss_device_malloc(d, 4, &mut a), -1);
        assert_eq!(
            last_error(),
            format!("the device stopped at an earlier kernel error: {fault}")
        );
        pss_device_free(d);
    }
}

#[test]
fn device_printf_output_is_kept_for_the_host() {
    // nvcc 13.0.88's PTX of printf.cu and its launch (printf.json); the
    // expected text is what the host C library prints for the same calls.
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../sim-kernel/tests/data/printf");
    let read = |f: &str| std::fs::read(data.join(f)).unwrap();
    let ptx = c(std::str::from_utf8(&read("printf.ptx")).unwrap());
    let entry = c("_Z2pfPKifPKc");
    // SAFETY: as above.
    unsafe {
        let d = pss_device_new(c("sm_90").as_ptr(), 0);
        let m = pss_device_load_module(d, c("printf.ptx").as_ptr(), ptx.as_ptr()) as u32;
        let mut addrs = Vec::new();
        for f in ["a.bin", "s.bin"] {
            let bytes = read(f);
            let mut a = 0u64;
            assert_eq!(pss_device_malloc(d, bytes.len() as u64, &mut a), 0);
            assert_eq!(
                pss_device_write(d, a, bytes.as_ptr().cast(), bytes.len()),
                0
            );
            addrs.push(a);
        }
        // printf.json's f32 argument as written there, not an approximation of π.
        #[allow(clippy::approx_constant)]
        let values = [
            addrs[0].to_le_bytes().to_vec(),
            3.14159f32.to_le_bytes().to_vec(),
            addrs[1].to_le_bytes().to_vec(),
        ];
        let mut params = [0u8; 24];
        for (k, v) in values.iter().enumerate() {
            let mut p = PssParam::default();
            assert_eq!(pss_device_param(d, m, entry.as_ptr(), k as u32, &mut p), 0);
            assert_eq!(p.size as usize, v.len());
            params[p.offset as usize..][..v.len()].copy_from_slice(v);
        }
        let mut r = PssLaunchReport::default();
        let rc = pss_device_launch(
            d,
            m,
            entry.as_ptr(),
            [1, 1, 1].as_ptr(),
            [64, 1, 1].as_ptr(),
            0,
            params.as_ptr().cast(),
            params.len(),
            &mut r,
        );
        assert_eq!(rc, 0, "{}", last_error());
        let want = read("printf.expected.txt");
        let want_text = String::from_utf8(want.clone()).unwrap();
        let want_lines: Vec<&str> = want_text.lines().collect();
        // The expected text prints warp 1's six lines last; the warps
        // interleave as the engine runs them, each in program and lane order.
        let (w0, w1) = want_lines.split_at(want_lines.len() - 6);
        assert_eq!(r.printf_bytes, want.len() as u64);
        assert_eq!(r.printf_dropped, 0);
        assert_eq!(pss_device_printf(d, null_mut(), 0), want.len() as i64);
        let mut out = vec![0u8; want.len() + 8];
        let n = pss_device_printf(d, out.as_mut_ptr().cast(), out.len());
        assert_eq!(n, want.len() as i64);
        let got = String::from_utf8(out[..want.len()].to_vec()).unwrap();
        let lines: Vec<&str> = got.lines().collect();
        let of_w1: Vec<&str> = lines.iter().copied().filter(|l| w1.contains(l)).collect();
        let of_w0: Vec<&str> = lines.iter().copied().filter(|l| !w1.contains(l)).collect();
        assert_eq!((of_w0.as_slice(), of_w1.as_slice()), (w0, w1));
        let mut five = [0u8; 5];
        assert_eq!(pss_device_printf(d, five.as_mut_ptr().cast(), 5), n);
        assert_eq!(&five, &out[..5]);
        assert_eq!(pss_device_printf(d, null_mut(), 5), -1);
        pss_device_free(d);
    }
}
