//! The Python package (`python/`, PyO3 built by maturin) under pytest, so the
//! README's one test command covers it too. The virtual environment with
//! maturin and pytest (from PyPI) is kept in cargo's test scratch directory;
//! the package itself is rebuilt from this checkout on every run.

use crate::root;
use std::path::Path;
use std::process::Command;

/// Runs a command, failing the test with its output when it fails.
fn run(what: &str, cmd: &mut Command) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: could not start: {e}"));
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    print!("{}", String::from_utf8_lossy(&out.stdout));
}

/// `PATH` with `dir` first.
fn path_with(dir: &Path) -> std::ffi::OsString {
    let mut paths = vec![dir.to_path_buf()];
    paths.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(paths).expect("venv path has no separator")
}

#[test]
fn python_package_passes_pytest() {
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("python-venv");
    let bin = venv.join("bin");
    if !bin.join("pytest").exists() {
        run(
            "python3 -m venv",
            Command::new("python3").args(["-m", "venv"]).arg(&venv),
        );
        run(
            "pip install maturin pytest",
            Command::new(bin.join("pip")).args([
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "maturin>=1.5,<2",
                "pytest",
            ]),
        );
    }
    run(
        "pip install ./python",
        Command::new(bin.join("pip"))
            .args([
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--force-reinstall",
                "--no-deps",
                // maturin is in the venv already: no second download.
                "--no-build-isolation",
                "./python",
            ])
            // The build backend runs `maturin` from the venv.
            .env("PATH", path_with(&bin))
            .current_dir(root()),
    );
    run(
        "pytest python/tests",
        Command::new(bin.join("pytest"))
            .args(["-q", "python/tests"])
            .current_dir(root()),
    );
}
