//! sim-cli integration tests: golden reports, round trips, --check, corrupt
//! traces, CLI exit codes, conformance runs, and the robustness of inputs
//! and outputs.

// Many tests open alike (a scratch folder, a simcli run, its exit code and
// stderr asserted), and `duplicates` pairs them by shape: the shared steps
// are the helpers below; what repeats is each test's own arguments and
// expectations (issue 27).

mod accelsim;
mod annotate;
mod bounded;
mod calibrate;
mod check;
mod cli;
mod conform;
mod corrupt;
mod exec;
mod fuzz;
mod golden;
mod html;
mod kernel;
mod launchopts;
mod lowering;
mod memory;
mod python;
mod ranges;
mod robust;
mod roundtrip;
mod study;
mod workloads;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The workspace root (commands run there so paths in messages are stable).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Runs simcli with `args` from the workspace root.
pub fn simcli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_simcli"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("spawn simcli")
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("sim-cli-it")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Every sample kernel, sorted.
pub fn samples() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("traces"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    v.sort();
    assert!(v.len() >= 8, "traces/ should hold the sample kernels");
    v
}

/// Runs simcli with `args`, which must exit with 2 (an error in the input
/// or the usage): its standard error.
pub fn exit2(args: &[&str]) -> String {
    let (c, _, e) = parts(&simcli(args));
    assert_eq!(c, 2, "{args:?}: {e}");
    e
}

/// Exit code, stdout, stderr as strings.
pub fn parts(o: &Output) -> (i32, String, String) {
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// `python3 -m pip install --target target wheels`, quietly (the CUDA
/// wheels some tests need, installed once into `tools/.cache`).
pub fn pip_install(target: &Path, wheels: &[&str]) -> std::io::Result<Output> {
    Command::new("python3")
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .arg("--target")
        .arg(target)
        .args(wheels)
        .output()
}

/// A path as &str for argument lists.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}
