//! The Rust, C and C++ toy-memory examples print the same statistics; the
//! C device example launches as `sim_kernel::Device` does.

use std::path::{Path, PathBuf};
use std::process::Command;

// The Rust example itself (its `main` unused here).
#[allow(dead_code)]
#[path = "../../../sim-core/examples/toy_memory.rs"]
mod rust_example;

/// The static library cargo built for this test run (staticlibs carry no
/// hash, next to the test binary in `deps/`).
fn static_lib() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    for dir in [deps, deps.parent().unwrap()] {
        let lib = dir.join("libsim_capi.a");
        if lib.exists() {
            return lib;
        }
    }
    panic!("libsim_capi.a not found next to {}", exe.display());
}

/// Compiles `source` with `compiler` against the static library, runs it,
/// and returns its standard output.
fn build_and_run(compiler: &str, std: &str, source: &str) -> String {
    build_and_run_with(compiler, std, source, &[])
}

/// [`build_and_run`] with arguments for the program.
fn build_and_run_with(compiler: &str, std: &str, source: &str, args: &[&Path]) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let stem = source.split('.').next().unwrap();
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{stem}_{compiler}"));
    let status = Command::new(compiler)
        .args([std, "-Wall", "-Wextra", "-Werror", "-O1", "-I"])
        .arg(dir.join("include"))
        .arg(dir.join("examples").join(source))
        .arg(static_lib())
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&out)
        .status()
        .unwrap_or_else(|e| panic!("cannot run {compiler}: {e}"));
    assert!(status.success(), "{compiler} failed on {source}");
    let run = Command::new(&out).args(args).output().unwrap();
    assert!(
        run.status.success(),
        "{source}: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    String::from_utf8(run.stdout).unwrap()
}

#[test]
fn c_cpp_and_rust_examples_agree() {
    let mut rust = Vec::new();
    rust_example::run(&mut rust).unwrap();
    let rust = String::from_utf8(rust).unwrap();
    // Every load answered by the toy memory: 8 warps x 4 loads.
    assert!(rust.contains("external_requests 32\n"), "{rust}");
    let c = build_and_run("cc", "-std=c99", "toy_memory.c");
    assert_eq!(c, rust, "C example");
    let cpp = build_and_run("c++", "-std=c++17", "toy_memory.cpp");
    assert_eq!(cpp, rust, "C++ example");
}

#[test]
fn c_device_example_launches_as_the_device_does() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ptx = dir.join("examples/saxpy.ptx");
    let c = build_and_run_with("cc", "-std=c99", "device_saxpy.c", &[&ptx]);
    let mut want = String::new();
    for (k, (cycles, warps, instructions)) in crate::device::direct_reports().iter().enumerate() {
        want += &format!("launch {k}: cycles {cycles} warps {warps} instructions {instructions}\n");
    }
    // The example checks y against the host's fmaf bit for bit itself.
    want += "launches 2\nmismatches 0\n";
    assert_eq!(c, want);
}
