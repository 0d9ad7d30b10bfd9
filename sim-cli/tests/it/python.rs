//! The Python package (`python/`, PyO3 built by maturin) under pytest, so the
//! README's one test command covers it too. The virtual environment with
//! maturin, pytest and numpy (from PyPI) is kept in cargo's test scratch
//! directory; the package itself is rebuilt from this checkout on every run.
//! `ptx_sm_sim.compile` is tested with the nvcc the `exec` tests install
//! (`tools/.cache/cuda13`, or `$CUDA13_ROOT`) when it is there; without
//! it that test skips. Its NVRTC path (taken where there is no nvcc) is
//! tested with `nvidia-cuda-nvrtc` 13.0.88 from pip, installed into
//! `tools/.cache/nvrtc` on first use; where it cannot be, that test skips.

use crate::{pip_install, root};
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
    // A venv made before numpy was needed gets it too.
    let has_numpy = || {
        Command::new(bin.join("python"))
            .args(["-c", "import numpy"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !bin.join("pytest").exists() || !has_numpy() {
        run(
            "python3 -m venv",
            Command::new("python3").args(["-m", "venv"]).arg(&venv),
        );
        run(
            "pip install maturin pytest numpy",
            Command::new(bin.join("pip")).args([
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "maturin>=1.5,<2",
                "pytest",
                "numpy",
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
    let mut pytest = Command::new(bin.join("pytest"));
    pytest.args(["-q", "python/tests"]).current_dir(root());
    let cu13 = std::env::var_os("CUDA13_ROOT")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root().join("tools/.cache/cuda13/nvidia/cu13"));
    // Every wheel's part, as `exec.rs` installs them (a half-finished
    // install by a concurrent exec test lacks one and is not used).
    let complete = ["bin/nvcc", "nvvm/bin/cicc", "include/cuda_runtime.h"]
        .iter()
        .all(|f| cu13.join(f).is_file());
    if std::env::var_os("NVCC").is_none() && complete {
        pytest.env("NVCC", cu13.join("bin/nvcc"));
    }
    if std::env::var_os("PTX_SM_SIM_NVRTC").is_none() {
        if let Some(lib) = nvrtc() {
            pytest.env("PTX_SM_SIM_NVRTC", lib);
        }
    }
    run("pytest python/tests", &mut pytest);
}

/// NVRTC's library from the pinned wheel, installed if need be; None (the
/// NVRTC test skips) where pip cannot have it.
fn nvrtc() -> Option<std::path::PathBuf> {
    let target = root().join("tools/.cache/nvrtc");
    let lib = target.join("nvidia/cu13/lib/libnvrtc.so.13");
    if !lib.is_file() {
        let out = pip_install(&target, &["nvidia-cuda-nvrtc==13.0.88"]);
        if !matches!(&out, Ok(o) if o.status.success()) {
            eprintln!("the NVRTC test will skip: pip install nvidia-cuda-nvrtc==13.0.88 failed");
        }
    }
    lib.is_file().then_some(lib)
}
