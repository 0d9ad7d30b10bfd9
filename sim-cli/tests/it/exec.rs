//! `simcli exec`: our own small CUDA programs (`sim-cli/tests/programs`),
//! built with NVIDIA's nvcc 13.0.88 exactly as a user builds them
//! (`nvcc -arch=sm_90 -cudart shared`, fatbinaries compressed as by
//! default), run with the simulator's CUDA runtime in place of NVIDIA's.
//! Each program checks its results against its own host computation and
//! prints them; the test holds the output to what the program prints on a
//! GPU (`*.expected`).
//!
//! nvcc and the runtime's headers and link stubs come from pip
//! (`nvidia-cuda-nvcc`, `nvidia-cuda-runtime`; no GPU needed), installed
//! into `tools/.cache/cuda13` on first use, or taken from `$CUDA13_ROOT`
//! (the wheels' `nvidia/cu13` folder). Where neither can be had the test
//! says so and passes without running (as the issue asks); `.ci/run`
//! installs them.
//!
//! CUDA 12 programs: no CUDA 12 nvcc is on PyPI (nvidia-cuda-nvcc-cu12
//! ships ptxas and libnvvm only), so they are built by nvcc 13.0.88
//! against CUDA 12.9's runtime (`nvidia-cuda-runtime-cu12`: its headers
//! and `libcudart.so.12`, in `tools/.cache/cuda12` or `$CUDA12_ROOT`, the
//! wheel's `nvidia/cuda_runtime` folder). The program is then what CUDA
//! 12.9's nvcc makes where it matters here: it needs `libcudart.so.12`,
//! asks for each symbol at that version, and its host code uses CUDA 12's
//! structs and entry points (`cudaGetDeviceProperties_v2`). The launch
//! stubs nvcc 13 writes call the same entry points as 12.9's
//! (`__cudaPushCallConfiguration`, `__cudaGetKernel`, `__cudaLaunchKernel`),
//! all exported by libcudart.so.12.

use crate::{pip_install, root};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};

/// The pinned wheels.
const WHEELS: [&str; 4] = [
    "nvidia-cuda-nvcc==13.0.88",
    "nvidia-cuda-crt==13.0.88",
    "nvidia-nvvm==13.0.88",
    "nvidia-cuda-runtime==13.0.96",
];

/// The CCCL wheel (Thrust, CUB, libcu++, and `nv/target`, which
/// `cuda_fp16.h` and so `mma.h` include), pinned: CUDA 13's nvcc wheel
/// ships without them.
const WHEELS_CCCL: [&str; 1] = ["nvidia-cuda-cccl==13.0.85"];

/// CUDA 12's runtime wheel, pinned.
const WHEELS12: [&str; 1] = ["nvidia-cuda-runtime-cu12==12.9.79"];

/// The CUDA 12 runtime wheel's `nvidia/cuda_runtime` folder, installed
/// once for all the tests.
fn cuda12_root() -> Option<PathBuf> {
    static ROOT: OnceLock<Option<PathBuf>> = OnceLock::new();
    ROOT.get_or_init(|| {
        let ready = ["lib/libcudart.so.12", "include/cuda_runtime.h"];
        wheel_root(
            "CUDA12_ROOT",
            "cuda12/nvidia/cuda_runtime",
            &WHEELS12,
            &ready,
            "CUDA 12 exec",
        )
    })
    .clone()
}

/// The CCCL wheel's `nvidia/cu13` folder (headers under `include` and
/// `include/cccl`), installed once for all the tests.
fn cccl_root() -> Option<PathBuf> {
    static ROOT: OnceLock<Option<PathBuf>> = OnceLock::new();
    ROOT.get_or_init(|| {
        let ready = [
            "include/cccl/thrust/version.h",
            "include/cccl/cub/version.cuh",
        ];
        wheel_root(
            "CCCL_ROOT",
            "cccl/nvidia/cu13",
            &WHEELS_CCCL,
            &ready,
            "Thrust exec",
        )
    })
    .clone()
}

/// The wheels' `nvidia/cu13` folder, installed once for all the tests.
fn cuda_root() -> Option<PathBuf> {
    static ROOT: OnceLock<Option<PathBuf>> = OnceLock::new();
    ROOT.get_or_init(|| {
        let ready = ["bin/nvcc", "lib/libcudart.so.13"];
        wheel_root("CUDA13_ROOT", "cuda13/nvidia/cu13", &WHEELS, &ready, "exec")
    })
    .clone()
}

/// A wheels' folder: `$env` where set; else `tools/.cache/<dir>` (the
/// install target is its first component) once the files `ready` are
/// there, pip-installing `wheels` first if need be (the first of `ready`
/// shows the install worked). `None`, said on stderr for the `what` tests,
/// where pip fails.
fn wheel_root(
    env: &str,
    dir: &str,
    wheels: &[&str],
    ready: &[&str],
    what: &str,
) -> Option<PathBuf> {
    if let Some(r) = std::env::var_os(env) {
        return Some(PathBuf::from(r));
    }
    let (first, _) = dir.split_once('/').unwrap_or((dir, ""));
    let target = root().join("tools/.cache").join(first);
    let folder = root().join("tools/.cache").join(dir);
    if ready.iter().all(|f| folder.join(f).is_file()) {
        return Some(folder);
    }
    match pip_install(&target, wheels) {
        Ok(o) if o.status.success() && folder.join(ready[0]).is_file() => Some(folder),
        Ok(o) => {
            eprintln!(
                "{what} tests skipped: pip install {} failed: {}",
                wheels.join(" "),
                String::from_utf8_lossy(&o.stderr)
            );
            None
        }
        Err(e) => {
            eprintln!("{what} tests skipped: python3 -m pip: {e}");
            None
        }
    }
}

/// The runtime library cargo built for this test run: `deps/` first (a
/// copy beside simcli may be from an earlier `cargo build -p sim-cudart`);
/// `libsim_cudart12.so` is beside it.
fn runtime_lib() -> PathBuf {
    let exe = Path::new(env!("CARGO_BIN_EXE_simcli"));
    let dir = exe.parent().unwrap();
    for d in [dir.join("deps"), dir.to_path_buf()] {
        let p = d.join("libsim_cudart.so");
        if p.is_file() {
            return p;
        }
    }
    panic!("libsim_cudart.so not found beside {}", exe.display());
}

/// Builds `program.cu` with nvcc as a user would; the executable's path.
fn build(cu13: &Path, program: &str) -> PathBuf {
    build_against(cu13, None, &[], program)
}

/// Builds `program.cu` with nvcc 13, against CUDA 13's runtime or, with
/// `cuda12` (the runtime wheel's `nvidia/cuda_runtime`), CUDA 12's; with
/// the header folders `includes` too. One build at a time: tests share the
/// output folder.
fn build_against(
    cu13: &Path,
    cuda12: Option<&Path>,
    includes: &[PathBuf],
    program: &str,
) -> PathBuf {
    static BUILDING: Mutex<()> = Mutex::new(());
    let _one = BUILDING.lock().unwrap_or_else(|e| e.into_inner());
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("exec-programs");
    let (lib, runtime, version) = match cuda12 {
        Some(rt) => (out.join("lib12"), rt.join("lib"), "12"),
        None => (out.join("lib"), cu13.join("lib"), "13"),
    };
    std::fs::create_dir_all(&lib).unwrap();
    // nvcc links `-lcudart -lcudadevrt`: the wheel ships only the
    // versioned runtime, so a folder names it as the linker looks for it.
    for (name, file) in [
        ("libcudart.so", format!("libcudart.so.{version}")),
        ("libcudadevrt.a", "libcudadevrt.a".to_string()),
    ] {
        let link = lib.join(name);
        if !link.exists() {
            std::os::unix::fs::symlink(runtime.join(file), &link).unwrap();
        }
    }
    let src = root()
        .join("sim-cli/tests/programs")
        .join(format!("{program}.cu"));
    let exe = out.join(format!("{program}-cuda{version}"));
    let mut nvcc = Command::new(cu13.join("bin/nvcc"));
    if let Some(rt) = cuda12 {
        // CUDA 12's headers before nvcc's own.
        nvcc.arg(format!("-I{}", rt.join("include").display()));
    }
    for dir in includes {
        nvcc.arg(format!("-I{}", dir.display()));
    }
    let o = nvcc
        .args(["-arch=sm_90", "-cudart", "shared", "-o"])
        .arg(&exe)
        .arg(&src)
        .arg(format!("-L{}", lib.display()))
        .output()
        .expect("start nvcc");
    assert!(
        o.status.success(),
        "nvcc {program}.cu:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    exe
}

/// `simcli exec` of `exe` with `args` before `--`.
fn exec(exe: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_simcli"))
        .arg("exec")
        .arg("--runtime")
        .arg(runtime_lib())
        .args(args)
        .arg("--")
        .arg(exe)
        .output()
        .expect("spawn simcli")
}

/// `out` succeeded, and its standard output is what the program prints on
/// a GPU (`sim-cli/tests/programs/{expected}.expected`); `what` names it.
fn assert_as_on_a_gpu(out: &Output, what: &str, expected: &str) {
    let want = std::fs::read_to_string(
        root()
            .join("sim-cli/tests/programs")
            .join(format!("{expected}.expected")),
    )
    .unwrap();
    assert_eq!(
        text(&out.stdout),
        want,
        "{what}: stdout differs; stderr:\n{}",
        text(&out.stderr)
    );
    assert!(
        out.status.success(),
        "{what}: {}\n{}",
        out.status,
        text(&out.stderr)
    );
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Each program's output is what it prints on a GPU, and it exits 0.
#[test]
fn programs_print_what_they_print_on_a_gpu() {
    let Some(cu13) = cuda_root() else { return };
    for program in [
        "vadd",
        "matmul",
        "reduce",
        "streams",
        "managed",
        "fault",
        "hello",
        "managed_var",
        "apis",
        "dynsmem",
        "graphs",
        "devlib",
    ] {
        let exe = build(&cu13, program);
        let out = exec(&exe, &[]);
        assert_as_on_a_gpu(&out, program, program);
        assert!(
            text(&out.stderr).contains("simcli exec: "),
            "{program}: no summary:\n{}",
            text(&out.stderr)
        );
    }
}

/// Device `new`/`delete` and `malloc` (`heapnew.cu`): lists that one
/// kernel builds with `new` a later one sums and `delete`s; the heap is the
/// size `cudaDeviceSetLimit(cudaLimitMallocHeapSize)` set (a 40 MiB block
/// on a 64 MiB heap, a second one NULL), which is fixed once a kernel used
/// it.
#[test]
fn device_new_and_delete_run_as_on_a_gpu() {
    let Some(cu13) = cuda_root() else { return };
    let out = exec(&build(&cu13, "heapnew"), &[]);
    assert_as_on_a_gpu(&out, "heapnew", "heapnew");
}

/// A failed device `assert` prints CUDA's line for the failing thread on
/// standard error (file, line, function, block, thread, condition), and
/// the program goes on with `cudaErrorAssert` sticking (`devlib.cu`).
#[test]
fn a_failed_device_assert_prints_cudas_line() {
    let Some(cu13) = cuda_root() else { return };
    let out = exec(&build(&cu13, "devlib"), &[]);
    let err = text(&out.stderr);
    assert!(
        err.contains("devlib.cu:59: void check(const int *, int): block: [1,0,0], thread: [5,0,0] Assertion `v[i] >= 0` failed.\n"),
        "{err}"
    );
    assert!(out.status.success(), "{err}");
}

/// Thrust and CUB from the CCCL wheel: sort, reduce, transform (whose CUB
/// kernel issues `prefetch.global.L2`), an inclusive scan and a radix sort
/// of pairs. The expected lines hold the program's own host checks' values,
/// exact (unsigned arithmetic, as a GPU computes it), worked out apart from
/// the simulator (no GPU has run it here).
///
/// `wmma.cu` (the WMMA API, `mma.h`) needs CCCL's `nv/target` too: a
/// 32x32 tiled product checked on the host, and lane 5's fragment
/// elements as ptxas's machine code places them (docs/wmma.md; no GPU
/// has run it here either).
#[test]
fn cccl_programs_print_what_they_print_on_a_gpu() {
    let Some(cu13) = cuda_root() else { return };
    for program in ["thrust", "wmma"] {
        let Some(exe) = build_with_cccl(&cu13, program) else {
            return;
        };
        let out = exec(&exe, &[]);
        assert_as_on_a_gpu(&out, program, program);
    }
}

/// Builds `program.cu` with CCCL's headers too; `None` where the wheel
/// cannot be had.
fn build_with_cccl(cu13: &Path, program: &str) -> Option<PathBuf> {
    let include = cccl_root()?.join("include");
    Some(build_against(
        cu13,
        None,
        &[include.join("cccl"), include],
        program,
    ))
}

/// Cooperative groups' grid-wide sync (`gridsync.cu`, built with CCCL's
/// headers): a cooperative launch of as many blocks as the GPU holds at
/// once syncs its grid exactly, on one host thread and on four; one block
/// more is refused; an ordinary launch of the kernel traps.
#[test]
fn cooperative_launch_syncs_the_grid() {
    let Some(cu13) = cuda_root() else { return };
    let Some(exe) = build_with_cccl(&cu13, "gridsync") else {
        return;
    };
    for threads in ["1", "4"] {
        let out = exec(&exe, &["--threads", threads]);
        assert_as_on_a_gpu(&out, &format!("gridsync on {threads} threads"), "gridsync");
    }
}

/// `cudaLaunchKernelEx` with the cooperative attribute (and a priority
/// hint) syncs its grid, one block more than resident is refused; an
/// instantiated graph's kernel arguments and memset value set in place
/// run on relaunch while the graph's own node keeps its arguments, a 1D
/// memset made 2D is refused, `cudaGraphExecUpdate` takes a graph of the
/// same shape and refuses one without its event record node
/// (`graphexec.cu`, built with CCCL's headers for cooperative groups).
/// The expected lines are the program's own host checks' values, worked
/// out from its arithmetic (no GPU has run it here).
#[test]
fn launch_ex_and_graph_updates() {
    let Some(cu13) = cuda_root() else { return };
    let Some(exe) = build_with_cccl(&cu13, "graphexec") else {
        return;
    };
    let out = exec(&exe, &[]);
    assert_as_on_a_gpu(&out, "graphexec", "graphexec");
}

/// `--report` writes one row per launch, with the run's columns.
#[test]
fn report_has_a_row_per_launch() {
    let Some(cu13) = cuda_root() else { return };
    let exe = build(&cu13, "reduce");
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("r.csv");
    let out = exec(&exe, &["--sms", "4", "--report", csv.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let body = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = body.lines().collect();
    // 5000 elements at 128 a block: 40 blocks, then 1.
    assert_eq!(lines.len(), 1 + 2, "{body}");
    assert!(lines[0].starts_with("launch,kernel,grid,block,dynamic_shared,start_cycle,"));
    assert!(
        lines[1].starts_with("0,_Z6reducePKiPiii,40x1x1,128x1x1,512,0,"),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].starts_with("1,_Z6reducePKiPiii,1x1x1,128x1x1,512,"),
        "{}",
        lines[2]
    );
    let json = dir.path().join("r.json");
    let out = exec(&exe, &["--sms", "4", "--report", json.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let launches = v["launches"].as_array().unwrap();
    assert_eq!(launches.len(), 2);
    assert_eq!(launches[0]["sms"], 4);
    assert_eq!(launches[0]["launch"]["grid"], serde_json::json!([40, 1, 1]));
    assert!(launches[0]["launch"]["cycles"].as_u64().unwrap() > 0);
}

/// A program linked with NVIDIA's static runtime is refused with the fix.
#[test]
fn a_static_runtime_program_is_told_to_rebuild() {
    let Some(cu13) = cuda_root() else { return };
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("exec-programs");
    std::fs::create_dir_all(&out_dir).unwrap();
    let exe = out_dir.join("vadd-static");
    let o = Command::new(cu13.join("bin/nvcc"))
        .args(["-arch=sm_90", "-cudart", "static", "-o"])
        .arg(&exe)
        .arg(root().join("sim-cli/tests/programs/vadd.cu"))
        .output()
        .expect("start nvcc");
    if !o.status.success() {
        // The runtime wheel may lack the static library: nothing to test.
        eprintln!("skipped: no static runtime to link: {}", text(&o.stderr));
        return;
    }
    let out = exec(&exe, &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("-cudart shared"),
        "{}",
        text(&out.stderr)
    );
}

/// `--save-launches DIR`: every launch of a program as a launch file that
/// `simcli run --check` reproduces, `__constant__` and `__device__` values
/// included; a folder with files in it is refused.
#[test]
fn saved_launches_reproduce_under_run_check() {
    let Some(cu13) = cuda_root() else { return };
    let dir = tempfile::tempdir().unwrap();
    for program in ["reduce", "vadd"] {
        let exe = build(&cu13, program);
        let saved = dir.path().join(program);
        let out = exec(
            &exe,
            &["--sms", "4", "--save-launches", saved.to_str().unwrap()],
        );
        assert!(out.status.success(), "{program}: {}", text(&out.stderr));
        let launches: Vec<PathBuf> = std::fs::read_dir(&saved)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        assert_eq!(launches.len(), if program == "reduce" { 2 } else { 1 });
        for l in launches {
            let o = Command::new(env!("CARGO_BIN_EXE_simcli"))
                .args(["run", l.to_str().unwrap(), "--check", "--sms", "4"])
                .output()
                .unwrap();
            assert!(o.status.success(), "{}: {}", l.display(), text(&o.stderr));
        }
        let again = exec(&exe, &["--save-launches", saved.to_str().unwrap()]);
        assert_eq!(again.status.code(), Some(2));
        assert!(
            text(&again.stderr).contains("not an empty folder"),
            "{}",
            text(&again.stderr)
        );
    }
}

/// `simcli sweep` over a program: each of its launches gives a row per
/// parameter point, with its kernel and launch index, and a memory key
/// changes the cycles.
#[test]
fn sweep_over_a_program_gives_a_row_per_launch() {
    let Some(cu13) = cuda_root() else { return };
    let exe = build(&cu13, "reduce");
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("s.toml");
    std::fs::write(
        &f,
        format!(
            "programs = [[{:?}]]\nsms = 4\n[params]\nmemory.dram.latency = [670, 1670]\n",
            exe.to_str().unwrap()
        ),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_simcli"))
        .args(["sweep", f.to_str().unwrap()])
        .env("PTX_SM_SIM_CUDART", runtime_lib())
        .output()
        .expect("spawn simcli");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let body = text(&out.stdout);
    let mut r = csv::Reader::from_reader(body.as_bytes());
    let h = r.headers().unwrap().clone();
    let col = |n: &str| h.iter().position(|x| x == n).unwrap();
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    // reduce launches twice (40 blocks, then 1): two rows per point.
    assert_eq!(rows.len(), 4, "{body}");
    let key = |x: &csv::StringRecord| {
        (
            x[col("run")].to_string(),
            x[col("launch")].to_string(),
            x[col("kernel")].to_string(),
        )
    };
    let k = |a: &str, b: &str| (a.to_string(), b.to_string(), "_Z6reducePKiPiii".to_string());
    assert_eq!(
        rows.iter().map(key).collect::<Vec<_>>(),
        vec![k("0", "0"), k("0", "1"), k("1", "0"), k("1", "1")]
    );
    let cyc = |i: usize| rows[i][col("cycles")].parse::<u64>().unwrap();
    assert!(cyc(2) > cyc(0) && cyc(3) > cyc(1), "{body}");
    assert_eq!(&rows[2][col("overrides")], "memory.dram.latency=1670");
}

/// CUDA 12 programs run with the CUDA 12 runtime stand-in: each needs
/// `libcudart.so.12` (checked, so that the test cannot pass on a CUDA 13
/// build) and prints what it prints on a GPU.
#[test]
fn cuda12_programs_print_what_they_print_on_a_gpu() {
    let Some(cu13) = cuda_root() else { return };
    let Some(cu12) = cuda12_root() else { return };
    for (program, expected) in [
        ("vadd", "vadd"),
        ("props12", "props12"),
        ("dynsmem", "dynsmem"),
    ] {
        let exe = build_against(&cu13, Some(&cu12), &[], program);
        let elf = std::fs::read(&exe).unwrap();
        assert!(
            elf.windows(16).any(|w| w == b"libcudart.so.12\0")
                && !elf.windows(16).any(|w| w == b"libcudart.so.13\0"),
            "{program}: not a CUDA 12 program"
        );
        let out = exec(&exe, &[]);
        assert_as_on_a_gpu(&out, &format!("{program} (CUDA 12)"), expected);
    }
}

/// A CUDA 12 program without the CUDA 12 runtime beside the given one is
/// told how to build it.
#[test]
fn a_cuda12_program_without_the_cuda12_runtime_is_told_how_to_build_it() {
    let Some(cu13) = cuda_root() else { return };
    let Some(cu12) = cuda12_root() else { return };
    let exe = build_against(&cu13, Some(&cu12), &[], "vadd");
    let dir = tempfile::tempdir().unwrap();
    let lone = dir.path().join("libsim_cudart.so");
    std::fs::copy(runtime_lib(), &lone).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_simcli"))
        .args(["exec", "--runtime"])
        .arg(&lone)
        .arg("--")
        .arg(&exe)
        .env_remove("PTX_SM_SIM_CUDART12")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("cargo build --release -p sim-cudart12"),
        "{}",
        text(&out.stderr)
    );
}
