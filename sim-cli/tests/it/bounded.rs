//! Issue 28's rows on reads and outputs, one test each: every file is read
//! through one bounded reader that counts bytes (a link to `/dev/zero`,
//! whose metadata says 0 bytes, is refused at its limit), the outputs of a
//! command are distinct from each other and from its inputs before anything
//! runs, and no output is a FIFO or a device.
//!
//! Each simcli runs under a 2 GiB address-space cap and a 60 s clock, so a
//! regression (an unbounded read, a write that blocks on a FIFO) fails the
//! test instead of hanging it or exhausting the machine.

use crate::{root, s, scratch};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Runs simcli with `args` capped in memory and time: exit code, stdout,
/// stderr. Panics (failing the test) if it is still running after 60 s.
pub(crate) fn capped(args: &[&str]) -> (i32, String, String) {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let d = scratch(&format!("capped-{}", NEXT.fetch_add(1, Ordering::Relaxed)));
    let (out, err) = (d.join("out"), d.join("err"));
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 2097152; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_simcli"))
        .args(args)
        .current_dir(root())
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if t0.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "simcli {args:?} still running after 60 s (an unbounded read or a blocked write)"
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let read = |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned();
    (status.code().unwrap_or(-1), read(&out), read(&err))
}

/// A scratch folder with `zero.lnk -> /dev/zero` and the halfops launch
/// (module, expected file) copied in; `None` where there is no /dev/zero.
fn with_zero(name: &str) -> Option<PathBuf> {
    if !Path::new("/dev/zero").exists() {
        return None;
    }
    let d = scratch(name);
    std::os::unix::fs::symlink("/dev/zero", d.join("zero.lnk")).unwrap();
    for f in ["halfops.json", "halfops.ptx", "halfops.out.expected.bin"] {
        std::fs::copy(root().join("workloads").join(f), d.join(f)).unwrap();
    }
    Some(d)
}

/// Writes `halfops.json` with `from` replaced by `to` as `name` in `d`.
fn launch_with(d: &Path, name: &str, from: &str, to: &str) -> PathBuf {
    let text = std::fs::read_to_string(d.join("halfops.json")).unwrap();
    assert!(text.contains(from), "{from} not in the launch file");
    let p = d.join(name);
    std::fs::write(&p, text.replace(from, to)).unwrap();
    p
}

fn refused(args: &[&str], why: &str) {
    let (c, out, e) = capped(args);
    assert_eq!(c, 2, "{args:?}: {e}");
    assert!(e.contains(why), "{args:?}: wanted '{why}' in: {e}");
    assert!(out.is_empty(), "{args:?} printed {out}");
}

#[test]
fn files_named_in_a_launch_are_read_to_their_limit_only() {
    let Some(d) = with_zero("zero_launch") else {
        return;
    };
    let z = s(&d).to_string() + "/zero.lnk";
    // The module: 16 MiB.
    let k = launch_with(&d, "module.json", "\"halfops.ptx\"", "\"zero.lnk\"");
    refused(
        &["run", s(&k), "--threads", "1"],
        &format!("{z}: more than 16777216 bytes"),
    );
    // A buffer file of `bytes: 0`: its metadata agrees, its reader does not.
    let k = launch_with(
        &d,
        "buffer.json",
        "\"bytes\": 48000, \"fill\": 0",
        "\"bytes\": 0, \"file\": \"zero.lnk\"",
    );
    refused(
        &["run", s(&k), "--threads", "1"],
        &format!("buffers.out.file: {z} holds more than 0 bytes, the buffer 0"),
    );
    // An expected file: at most the buffer's bytes.
    let k = launch_with(
        &d,
        "expected.json",
        "\"halfops.out.expected.bin\"",
        "\"zero.lnk\"",
    );
    refused(
        &["run", s(&k), "--threads", "1"],
        &format!("expected.out: {z} holds more than 48000 bytes, the buffer 48000"),
    );
    // The launch file itself (1 MiB), read by `record`.
    let out = d.join("rec.bin");
    refused(
        &["record", &z, "-o", s(&out)],
        &format!("{z}: more than 1048576 bytes"),
    );
    assert!(!out.exists());
}

#[test]
fn configs_sweeps_merge_and_calibrate_inputs_are_read_to_their_limit_only() {
    let Some(d) = with_zero("zero_inputs") else {
        return;
    };
    let z = s(&d).to_string() + "/zero.lnk";
    let mb = format!("{z}: more than 1048576 bytes");
    refused(&["run", "traces/chain_set.ptx", "--config", &z], &mb);
    refused(&["config", "--config", &z], &mb);
    refused(&["sweep", &z], &mb);
    refused(&["merge", &z], &format!("{z}: more than 268435456 bytes"));
    refused(
        &["calibrate", &z],
        &format!("{z}: more than 16777216 bytes"),
    );
}

const SWEEP: &str = "traces = [\"traces/chain_set.ptx\"]\narchs = [\"sm_90\"]\n";

/// Refused with exit 2 naming both outputs, nothing printed.
fn clash(args: &[&str], names: &[&str], why: &str) {
    let (c, out, e) = capped(args);
    assert_eq!(c, 2, "{args:?}: {e}");
    assert!(e.contains(why), "{args:?}: wanted '{why}' in: {e}");
    for n in names {
        assert!(e.contains(n), "{args:?}: {e} should name {n}");
    }
    assert!(out.is_empty(), "{args:?} printed {out}");
}

#[test]
fn two_outputs_of_a_sweep_may_not_be_one_file() {
    let d = scratch("outputs_sweep");
    let f = d.join("s.toml");
    std::fs::write(&f, SWEEP).unwrap();
    let x = d.join("x.csv");
    let same = "are the same file";
    clash(
        &["sweep", s(&f), "-o", s(&x), "--opcode-csv", s(&x)],
        &["-o", "--opcode-csv"],
        same,
    );
    assert!(!x.exists(), "the refused sweep wrote {}", x.display());
    // Spelled another way (a folder and `..`), before either file exists.
    std::fs::create_dir(d.join("sub")).unwrap();
    let other = format!("{}/sub/../x.csv", s(&d));
    clash(
        &["sweep", s(&f), "-o", s(&x), "--opcode-csv", &other],
        &[&other],
        same,
    );
    // A hard link to an existing output is the same file.
    std::fs::write(&x, "old").unwrap();
    let link = d.join("link.csv");
    std::fs::hard_link(&x, &link).unwrap();
    clash(
        &["sweep", s(&f), "-o", s(&x), "--opcode-csv", s(&link)],
        &["link.csv"],
        same,
    );
    assert_eq!(std::fs::read(&x).unwrap(), b"old");
    // Both to standard output.
    clash(
        &["sweep", s(&f), "-o", "-", "--opcode-csv", "-"],
        &["-o", "--opcode-csv"],
        "both go to standard output",
    );
    clash(
        &["sweep", s(&f), "--opcode-csv", "-"],
        &["the CSV", "--opcode-csv"],
        "both go to standard output",
    );
    // Distinct outputs still work, `-` included.
    let (c, out, e) = capped(&["sweep", s(&f), "-o", "-", "--opcode-csv", s(&x)]);
    assert_eq!(c, 0, "{e}");
    assert!(out.starts_with("run,input,arch"), "{out}");
    assert!(std::fs::read_to_string(&x).unwrap().starts_with("run,"));
}

#[test]
fn outputs_of_a_run_are_distinct_before_it_runs() {
    let d = scratch("outputs_run");
    for f in ["halfops.json", "halfops.ptx", "halfops.out.expected.bin"] {
        std::fs::copy(root().join("workloads").join(f), d.join(f)).unwrap();
    }
    let k = d.join("halfops.json");
    let dump = d.join("d");
    let inside = dump.join("out.bin");
    clash(
        &[
            "run",
            s(&k),
            "--dump-buffers",
            s(&dump),
            "--opcode-csv",
            s(&inside),
        ],
        &["--dump-buffers", "--opcode-csv", s(&inside)],
        "is inside the --dump-buffers folder",
    );
    assert!(!dump.exists(), "the refused run created {}", dump.display());
    // A dump folder that is a file is refused before the run, not after.
    let (c, _, e) = capped(&["run", s(&k), "--dump-buffers", s(&k)]);
    assert_eq!(c, 2, "{e}");
    assert!(
        e.contains("--dump-buffers") && e.contains("is not a folder"),
        "{e}"
    );
    let r = d.join("r.txt");
    clash(
        &[
            "run",
            "traces/chain_set.ptx",
            "--dump-regs",
            s(&r),
            "--timeline",
            s(&r),
        ],
        &["--dump-regs", "--timeline"],
        "are the same file",
    );
    assert!(!r.exists());
    // The report is on standard output already.
    clash(
        &["run", "traces/chain_set.ptx", "--opcode-csv", "-"],
        &["the report", "--opcode-csv"],
        "both go to standard output",
    );
    // A dumped buffer landing on one of the launch's own files (its expected
    // file named `out.bin` in the dump folder) is refused before the run.
    std::fs::create_dir(&dump).unwrap();
    std::fs::copy(d.join("halfops.out.expected.bin"), dump.join("out.bin")).unwrap();
    let k2 = d.join("k2.json");
    let text = std::fs::read_to_string(&k).unwrap();
    std::fs::write(&k2, text.replace("halfops.out.expected.bin", "d/out.bin")).unwrap();
    let (c, out, e) = capped(&["run", s(&k2), "--dump-buffers", s(&dump)]);
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("is the input"), "{e}");
    assert!(out.is_empty(), "{out}");
}

#[test]
fn fifos_and_devices_are_not_outputs() {
    let d = scratch("outputs_special");
    let fifo = d.join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|st| st.success()) {
        // Once blocked forever waiting for a reader.
        let k = root().join("workloads/halfops.json");
        clash(
            &["record", s(&k), "-o", s(&fifo)],
            &["-o", s(&fifo)],
            "is a FIFO",
        );
        clash(
            &["run", "traces/chain_set.ptx", "--dump-regs", s(&fifo)],
            &["--dump-regs"],
            "is a FIFO",
        );
        clash(
            &["asm", "traces/chain_set.ptx", "-o", s(&fifo)],
            &["-o"],
            "is a FIFO",
        );
    }
    if Path::new("/dev/null").exists() {
        let f = d.join("s.toml");
        std::fs::write(&f, SWEEP).unwrap();
        clash(
            &[
                "sweep",
                s(&f),
                "--opcode-csv",
                "/dev/null",
                "-o",
                s(&d.join("x.csv")),
            ],
            &["--opcode-csv", "/dev/null"],
            "is a character device",
        );
        clash(
            &["config", "-o", "/dev/null"],
            &["/dev/null"],
            "is a character device",
        );
    }
    // `-` is the way to stream an output.
    let (c, out, e) = capped(&["gen", "--warps", "1", "--instructions", "4", "-o", "-"]);
    assert_eq!(c, 0, "{e}");
    assert!(!out.is_empty());
}

/// Issue 28: a FIFO named as an input (a launch file, its module, a
/// configuration, a sweep file) blocked forever opening it, with no writer.
/// Refused before it is opened, naming it; each run is capped at 60 s, so
/// a regression fails instead of hanging.
#[test]
fn fifos_are_not_inputs() {
    let d = scratch("inputs_fifo");
    let fifo = d.join("in.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|st| st.success()) {
        return;
    }
    let f = s(&fifo);
    let why = format!(
        "{f}: is a FIFO, not a regular file; refusing to read it (it would wait for a writer"
    );
    refused(&["run", f], &why);
    refused(&["record", f, "-o", s(&d.join("r.bin"))], &why);
    refused(&["run", "traces/chain_set.ptx", "--config", f], &why);
    refused(&["config", "--config", f], &why);
    refused(&["sweep", f], &why);
    // A launch file naming it as its module.
    for n in ["halfops.json", "halfops.ptx", "halfops.out.expected.bin"] {
        std::fs::copy(root().join("workloads").join(n), d.join(n)).unwrap();
    }
    let k = launch_with(&d, "module.json", "\"halfops.ptx\"", "\"in.fifo\"");
    refused(&["run", s(&k), "--threads", "1"], &why);
    assert!(!d.join("r.bin").exists());
}

/// Issue 28: `.global` variables and launch buffers cost the pages a
/// launch touches, not their declared sizes. A kernel declaring 1 GiB of
/// variables (512 MiB uninitialised, 512 MiB with a two-element
/// initialiser) and given a zero-filled buffer of 256 MiB, touching a few
/// bytes of each, reads 0 where nothing was written, the initialiser's
/// values where it names them, and its own writes; the run peaks far
/// below the declared sizes (9 MiB; the initialised array was copied
/// whole before: 537 MiB).
#[test]
fn global_variables_cost_the_pages_touched() {
    let d = scratch("sparse_global");
    let ptx = ".version 8.0\n.target sm_90\n.address_size 64\n\
        .global .align 4 .b8 g[536870912];\n\
        .global .align 4 .u32 h[134217728] = {7, 8};\n\
        .visible .entry k(.param .u64 out, .param .u64 big)\n{\n\
        .reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n\
        ld.param.u64 %rd1, [out];\n\
        cvta.to.global.u64 %rd1, %rd1;\n\
        mov.u64 %rd2, g;\n\
        mov.u64 %rd3, h;\n\
        ld.global.u32 %r1, [%rd2+400000000];\n\
        mov.u32 %r2, 23130;\n\
        st.global.u32 [%rd2+400000004], %r2;\n\
        ld.global.u32 %r3, [%rd2+400000004];\n\
        ld.global.u32 %r4, [%rd3+4];\n\
        ld.global.u32 %r5, [%rd3+400000000];\n\
        st.global.u32 [%rd1], %r1;\n\
        st.global.u32 [%rd1+4], %r3;\n\
        st.global.u32 [%rd1+8], %r4;\n\
        st.global.u32 [%rd1+12], %r5;\n\
        ld.param.u64 %rd4, [big];\n\
        ld.global.u32 %r6, [%rd4+200000000];\n\
        st.global.u32 [%rd4+200000004], %r4;\n\
        ld.global.u32 %r7, [%rd4+200000004];\n\
        st.global.u32 [%rd1+16], %r6;\n\
        st.global.u32 [%rd1+20], %r7;\n\
        ret;\n}\n";
    std::fs::write(d.join("k.ptx"), ptx).unwrap();
    let want: Vec<u8> = [0u32, 23130, 8, 0, 0, 8]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    std::fs::write(d.join("out.bin"), &want).unwrap();
    let launch = d.join("k.json");
    std::fs::write(
        &launch,
        r#"{"ptx": "k.ptx", "entry": "k", "grid": [1,1,1], "block": [1,1,1],
            "buffers": {"out": {"bytes": 24, "fill": 255},
                        "big": {"bytes": 268435456, "fill": 0}},
            "params": [{"buffer": "out"}, {"buffer": "big"}], "outputs": ["out"],
            "expected": {"out": "out.bin"}}"#,
    )
    .unwrap();
    let (c, _, e) = capped(&["run", s(&launch), "--check"]);
    assert_eq!(c, 0, "{e}");
    assert!(e.contains("check: all 1 output buffers match"), "{e}");
    if !Path::new("/usr/bin/time").exists() {
        return;
    }
    let o = Command::new("/usr/bin/time")
        .arg("-f")
        .arg("maxrss=%M")
        .arg(env!("CARGO_BIN_EXE_simcli"))
        .args(["run", s(&launch), "--check"])
        .current_dir(root())
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{e}");
    let kib: u64 = e
        .lines()
        .find_map(|l| l.strip_prefix("maxrss="))
        .and_then(|v| v.trim().parse().ok())
        .expect("maxrss");
    assert!(
        kib < 256 << 10,
        "1 GiB of .global variables, a few bytes touched: peaked at {kib} KiB"
    );
}
