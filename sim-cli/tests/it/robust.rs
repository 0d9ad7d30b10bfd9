//! Issue 13's findings, one test each: outputs never cost the user data,
//! inputs are read once as a stream with limits enforced while reading,
//! readers check what ptxas checks, and whatever simcli writes it reads back.

use crate::{exit2, parts, root, s, scratch, simcli};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const KERNEL: &str =
    ".target sm_53\n.warps 8\n.reg .b32 %a, %b;\nmov.u32 %a, %laneid;\nadd.u32 %b, %a, 1;\n";

/// A scratch directory holding `k.ptx` (KERNEL).
fn with_kernel(name: &str) -> (PathBuf, PathBuf) {
    let d = scratch(name);
    let k = d.join("k.ptx");
    std::fs::write(&k, KERNEL).unwrap();
    (d, k)
}

/// Runs simcli with `input` on its standard input, through a pipe.
fn simcli_stdin(args: &[&str], input: &[u8]) -> (i32, String, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_simcli"))
        .args(args)
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut sin = c.stdin.take().unwrap();
    let data = input.to_vec();
    // A writer thread, so a child that stops reading early cannot deadlock us.
    let t = std::thread::spawn(move || {
        let _ = sin.write_all(&data);
    });
    let o = c.wait_with_output().unwrap();
    t.join().unwrap();
    parts(&o)
}

fn assert_refused_unchanged(args: &[&str], file: &Path, before: &[u8]) {
    let (c, out, e) = parts(&simcli(args));
    assert_eq!(c, 2, "{args:?}: {e}");
    assert!(e.contains("is the input"), "{args:?}: {e}");
    assert!(out.is_empty(), "{args:?} printed {out}");
    assert_eq!(
        std::fs::read(file).unwrap(),
        before,
        "{args:?} changed its input"
    );
}

#[test]
fn asm_refuses_to_overwrite_its_input() {
    let (_, k) = with_kernel("asm_self");
    assert_refused_unchanged(&["asm", s(&k), "-o", s(&k)], &k, KERNEL.as_bytes());
    // The same file under another name (a hard link) is still the input.
    let link = k.with_file_name("link.ptx");
    std::fs::hard_link(&k, &link).unwrap();
    assert_refused_unchanged(&["asm", s(&k), "-o", s(&link)], &k, KERNEL.as_bytes());
}

#[test]
fn asm_default_output_is_never_the_input() {
    let d = scratch("asm_default");
    let k = d.join("k.bin");
    std::fs::write(&k, KERNEL).unwrap();
    let e = exit2(&["asm", s(&k)]);
    assert!(e.contains("-o"), "{e}");
    assert_eq!(std::fs::read(&k).unwrap(), KERNEL.as_bytes());
    // Named with -o it assembles; the default next to a .ptx still works.
    let out = d.join("out.bin");
    assert_eq!(parts(&simcli(&["asm", s(&k), "-o", s(&out)])).0, 0);
    let (_, p) = with_kernel("asm_default_ptx");
    assert_eq!(parts(&simcli(&["asm", s(&p)])).0, 0);
    assert!(p.with_extension("bin").exists());
}

#[test]
fn run_refuses_dump_regs_over_its_input() {
    let (_, k) = with_kernel("dumpregs_self");
    assert_refused_unchanged(&["run", s(&k), "--dump-regs", s(&k)], &k, KERNEL.as_bytes());
}

#[test]
fn dump_refuses_to_overwrite_its_input() {
    let (d, k) = with_kernel("dump_self");
    let b = d.join("k.bin");
    assert_eq!(parts(&simcli(&["asm", s(&k), "-o", s(&b)])).0, 0);
    let before = std::fs::read(&b).unwrap();
    assert_refused_unchanged(&["dump", s(&b), "-o", s(&b)], &b, &before);
}

#[test]
fn failed_write_keeps_the_previous_file() {
    use sim_cli::output::{write_file, Inputs};
    let d = scratch("failed_write");
    let f = d.join("out.json");
    std::fs::write(&f, "previous contents").unwrap();
    // A writer that fails half-way, as a full disk does.
    let r = write_file(&f, &Inputs::new(), |w| {
        w.write_all(&[b'x'; 1 << 20])?;
        Err(std::io::Error::new(
            std::io::ErrorKind::StorageFull,
            "injected: no space left on device",
        ))
    });
    let e = r.unwrap_err().to_string();
    assert!(e.contains("out.json") && e.contains("no space"), "{e}");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "previous contents");
    let left: Vec<_> = std::fs::read_dir(&d).unwrap().collect();
    assert_eq!(left.len(), 1, "the temporary file was not removed");
    // A successful write replaces it whole and keeps its permissions.
    write_file(&f, &Inputs::new(), |w| w.write_all(b"new")).unwrap();
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "new");
}

#[test]
fn full_device_is_an_error_and_no_report_is_printed_first() {
    if !Path::new("/dev/full").exists() {
        return; // Linux provides it; elsewhere the injected writer above covers this
    }
    let (_, k) = with_kernel("dev_full");
    let e = exit2(&["asm", s(&k), "-o", "/dev/full"]);
    assert!(e.contains("/dev/full"), "{e}");
    let (c, out, e) = parts(&simcli(&["run", s(&k), "--dump-regs", "/dev/full"]));
    assert_eq!(c, 2, "{e}");
    assert!(
        out.is_empty(),
        "report printed before the failing write: {out}"
    );
    for args in [
        vec!["gen", "--instructions", "10", "-o", "/dev/full"],
        vec!["dump", "-", "-o", "/dev/full"],
    ] {
        let input = binary_of(KERNEL);
        let (c, _, e) = simcli_stdin(&args, &input);
        assert_eq!(c, 2, "{args:?}: {e}");
        assert!(e.contains("/dev/full"), "{args:?}: {e}");
    }
}

/// The binary trace of kernel text, assembled by simcli itself.
fn binary_of(text: &str) -> Vec<u8> {
    let d = scratch(&format!("bin_{:x}", text.len()));
    let k = d.join("k.ptx");
    std::fs::write(&k, text).unwrap();
    let b = d.join("k.bin");
    assert_eq!(parts(&simcli(&["asm", s(&k), "-o", s(&b)])).0, 0);
    std::fs::read(&b).unwrap()
}

#[test]
fn stdin_and_pipes_keep_every_directive() {
    let (_, k) = with_kernel("stdin_text");
    let (c, want, e) = parts(&simcli(&["run", s(&k)]));
    assert_eq!(c, 0, "{e}");
    for name in ["-", "/dev/stdin"] {
        let (c, out, e) = simcli_stdin(&["run", name], KERNEL.as_bytes());
        assert_eq!((c, out.as_str()), (0, want.as_str()), "{name}: {e}");
        // A binary trace through a pipe: same report, no "bad magic".
        let (c, out, e) = simcli_stdin(&["run", name], &binary_of(KERNEL));
        assert_eq!(
            (c, out.as_str()),
            (0, want.as_str()),
            "{name} (binary): {e}"
        );
    }
    // `-` also for asm and dump.
    let d = scratch("stdin_asm");
    let b = d.join("k.bin");
    let (c, _, e) = simcli_stdin(&["asm", "-", "-o", s(&b)], KERNEL.as_bytes());
    assert_eq!(c, 0, "{e}");
    let (c, text, e) = simcli_stdin(&["dump", "-"], &std::fs::read(&b).unwrap());
    assert_eq!(c, 0, "{e}");
    assert!(text.contains(".warps 8"), "{text}");
    assert_eq!(simcli_stdin(&["asm", "-"], KERNEL.as_bytes()).0, 2);
}

fn kernel_error(name: &str, text: &str, want: &[&str]) {
    let d = scratch(name);
    let k = d.join("k.ptx");
    std::fs::write(&k, text).unwrap();
    for args in [vec!["run", s(&k)], vec!["asm", s(&k), "--record-expect"]] {
        let (c, out, e) = parts(&simcli(&args));
        assert_eq!(c, 2, "{args:?} accepted:\n{text}\n{out}");
        for w in want {
            assert!(e.contains(w), "{args:?}: '{w}' missing from: {e}");
        }
    }
    assert!(
        !k.with_extension("bin").exists(),
        "asm wrote a refused kernel"
    );
}

#[test]
fn register_widths_are_checked_as_ptxas_checks_them() {
    let head = ".target sm_53\n.reg .b32 %a, %b;\n.reg .b16 %h;\n.reg .pred %p;\n";
    kernel_error(
        "width_pred",
        &format!("{head}add.u32 %a, %p, %b;\n"),
        &[
            "k.ptx:5:13:",
            "'%p' is declared .pred but used as a 32-bit operand",
        ],
    );
    kernel_error(
        "width_b16",
        &format!("{head}add.u32 %a, %h, %b;\n"),
        &["k.ptx:5:13:", "'%h' is declared .b16"],
    );
    kernel_error(
        "width_guard",
        &format!("{head}@%a add.u32 %a, %b, %b;\n"),
        &[
            "k.ptx:5:2:",
            "'%a' is declared .b32 but used as a predicate",
        ],
    );
    // ptxas 11.8 accepts no wider register either: `.b32` in `add.u16`.
    kernel_error(
        "width_wider",
        ".target sm_53\n.reg .b16 %h;\n.reg .b32 %a;\nadd.u16 %h, %a, %h;\n",
        &[
            "k.ptx:4:13:",
            "'%a' is declared .b32 but used as a 16-bit operand",
        ],
    );
}

#[test]
fn record_expect_never_writes_what_run_refuses() {
    // The finding: a .b16 register written by add.u32 was recorded as a
    // 32-bit value that `run` then refused. The kernel is now refused.
    kernel_error(
        "record_b16",
        ".target sm_53\n.reg .b16 %h;\n.reg .b32 %a;\nmov.u32 %a, %laneid;\nadd.u32 %h, %a, 0x12345;\n",
        &["'%h' is declared .b16 but used as a 32-bit operand"],
    );
}

#[test]
fn ptx_versions_that_do_not_exist_are_refused() {
    kernel_error(
        "version",
        ".version 99.99\n.target sm_53\n.reg .b32 %a;\nmov.u32 %a, 1;\n",
        &["k.ptx:1:10:", "99.99 does not exist"],
    );
    let ok = ".version 9.0\n.target sm_53\n.reg .b32 %a;\nmov.u32 %a, 1;\n";
    let d = scratch("version_ok");
    std::fs::write(d.join("k.ptx"), ok).unwrap();
    assert_eq!(parts(&simcli(&["run", s(&d.join("k.ptx"))])).0, 0);
}

#[test]
fn expect_record_limit_is_refused_up_front() {
    // 65,536 warps x 17 registers that differ per warp: 1,114,112 records,
    // over the 2^20 a reader accepts.
    let mut t =
        String::from(".target sm_53\n.warps 65536\n.reg .b32 %r<17>;\nmov.u32 %r0, %warpid;\n");
    for i in 1..17 {
        t.push_str(&format!("add.u32 %r{i}, %r0, {i};\n"));
    }
    let d = scratch("expect_limit");
    let k = d.join("k.ptx");
    std::fs::write(&k, &t).unwrap();
    let out = d.join("k.bin");
    let e = exit2(&["asm", s(&k), "--record-expect", "-o", s(&out)]);
    assert!(
        e.contains("--record-expect") && e.contains("1048576"),
        "{e}"
    );
    assert!(!out.exists());
}

#[test]
fn text_writers_refuse_what_kernel_text_cannot_hold() {
    // 9M instructions print as about 295 MiB: over the 256 MiB text limit.
    let d = scratch("text_limit");
    let ptx = d.join("big.ptx");
    let args = ["gen", "--instructions", "9000000", "--mix", "video", "-o"];
    let (c, _, e) = parts(&simcli(&[&args[..], &[s(&ptx)]].concat()));
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("268435456 bytes"), "{e}");
    assert!(!ptx.exists());
    // The same trace as a .bin is fine, and `dump` refuses it the same way.
    let bin = d.join("big.bin");
    let (c, _, e) = parts(&simcli(&[&args[..], &[s(&bin)]].concat()));
    assert_eq!(c, 0, "{e}");
    let (c, out, e) = parts(&simcli(&["dump", s(&bin)]));
    assert_eq!(c, 2, "{e}");
    assert!(out.is_empty() && e.contains("268435456 bytes"), "{e}");
}

/// Peak resident memory (KiB) of `simcli args`, with its exit code and stderr.
fn peak_kib(args: &[&str]) -> Option<(u64, i32, String)> {
    if !Path::new("/usr/bin/time").exists() {
        return None;
    }
    let o = Command::new("/usr/bin/time")
        .arg("-f")
        .arg("maxrss=%M")
        .arg(env!("CARGO_BIN_EXE_simcli"))
        .args(args)
        .current_dir(root())
        .output()
        .unwrap();
    let (c, _, e) = parts(&o);
    let kib = e
        .lines()
        .find_map(|l| l.strip_prefix("maxrss="))
        .and_then(|v| v.trim().parse().ok())?;
    Some((kib, c, e))
}

fn refused_in_bounded_memory(args: &[&str], why: &str) {
    let t0 = std::time::Instant::now();
    match peak_kib(args) {
        Some((kib, c, e)) => {
            assert_eq!(c, 2, "{e}");
            assert!(e.contains(why), "{e}");
            assert!(kib < 1 << 20, "{args:?} peaked at {kib} KiB");
        }
        None => {
            // No /usr/bin/time: cap the address space at 1 GiB instead.
            let o = Command::new("sh")
                .arg("-c")
                .arg(format!(
                    "ulimit -v 1048576; exec {} {}",
                    env!("CARGO_BIN_EXE_simcli"),
                    args.join(" ")
                ))
                .current_dir(root())
                .output()
                .unwrap();
            let (c, _, e) = parts(&o);
            assert_eq!(c, 2, "{e}");
            assert!(e.contains(why), "{e}");
        }
    }
    assert!(
        t0.elapsed().as_secs() < 60,
        "{args:?} took {:?}",
        t0.elapsed()
    );
}

#[test]
fn endless_input_is_refused_in_bounded_memory() {
    if Path::new("/dev/zero").exists() {
        refused_in_bounded_memory(&["run", "/dev/zero"], "larger than");
    }
}

#[test]
fn huge_sparse_file_is_refused_in_bounded_memory() {
    let d = scratch("sparse");
    let f = d.join("huge.ptx");
    std::fs::File::create(&f).unwrap().set_len(4 << 30).unwrap();
    refused_in_bounded_memory(&["run", s(&f)], "larger than");
    std::fs::remove_file(&f).unwrap();
}

#[test]
fn kernel_text_memory_does_not_grow_with_its_shape() {
    // 128 MiB of newlines, under the text limit: the parser once held 12
    // bytes per character (a char array and a line table), 1.5 GB here.
    let d = scratch("newlines");
    let f = d.join("lines.ptx");
    std::fs::write(&f, vec![b'\n'; 128 << 20]).unwrap();
    refused_in_bounded_memory(&["run", s(&f)], "lines.ptx:1:1: missing .target");
    std::fs::remove_file(&f).unwrap();
}

#[test]
fn run_limits_are_flags_with_defaults() {
    let (c, out, _) = parts(&simcli(&["run", "--help"]));
    assert_eq!(c, 0);
    assert!(
        out.contains("--max-cycles") && out.contains("1000000000000"),
        "{out}"
    );
    assert!(
        out.contains("--max-instructions") && out.contains("10000000000"),
        "{out}"
    );
    exit2(&["run", "traces/chain_set.ptx", "--max-cycles", "x"]);
}

/// A 70-byte kernel of 16 warps x a 2^34 loop would run for hours: the
/// limits stop it with exit 2, the partial statistics printed and the limit
/// named on stderr.
#[test]
fn endless_kernels_stop_at_a_run_limit_with_partial_statistics() {
    let d = scratch("endless");
    let k = d.join("loop.ptx");
    std::fs::write(
        &k,
        ".target sm_90\n.warps 16\n.reg .b32 %r;\n.repeat 17179869184 {\nadd.u32 %r, %r, 1;\n}\n",
    )
    .unwrap();
    let (c, out, e) = parts(&simcli(&["run", s(&k), "--max-instructions", "1000"]));
    assert_eq!(c, 2, "{e}");
    assert!(out.contains("warp instructions       1000"), "{out}");
    assert!(
        e.contains("max_instructions = 1000") && e.contains("partial"),
        "{e}"
    );
    let (c, out, e) = parts(&simcli(&["run", s(&k), "--max-cycles", "5000"]));
    assert_eq!(c, 2, "{e}");
    assert!(out.contains("cycles                  5000"), "{out}");
    assert!(e.contains("max_cycles = 5000"), "{e}");
}

/// Runs simcli under a file-size limit with SIGXFSZ ignored, so a write past
/// it fails with EFBIG ("File too large") as a write to a full disk fails.
fn simcli_size_limited(args: &[&str]) -> (i32, String, String) {
    let o = Command::new("sh")
        .arg("-c")
        .arg(r#"trap '' XFSZ; ulimit -f 16 && exec "$0" "$@""#)
        .arg(env!("CARGO_BIN_EXE_simcli"))
        .args(args)
        .current_dir(root())
        .output()
        .unwrap();
    parts(&o)
}

#[test]
fn a_write_that_runs_out_of_space_keeps_the_previous_file() {
    let d = scratch("efbig");
    let out = d.join("big.bin");
    std::fs::write(&out, "previous").unwrap();
    let (c, _, e) = simcli_size_limited(&["gen", "--instructions", "100000", "-o", s(&out)]);
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("big.bin") && e.contains("too large"), "{e}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "previous");
    // --dump-regs: the failing write comes before the report, which is not printed.
    let k = d.join("k.ptx");
    std::fs::write(&k, KERNEL.replace(".warps 8", ".warps 64")).unwrap();
    let regs = d.join("regs.json");
    std::fs::write(&regs, "previous").unwrap();
    let (c, stdout, e) = simcli_size_limited(&["run", s(&k), "--dump-regs", s(&regs)]);
    assert_eq!(c, 2, "{e}");
    assert!(
        stdout.is_empty(),
        "report printed before the failing write: {stdout}"
    );
    assert_eq!(std::fs::read_to_string(&regs).unwrap(), "previous");
    let names: Vec<_> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names.len(), 3, "temporary files left behind: {names:?}");
}

/// A launch of `decl` (a declaration inside the kernel, or before it with
/// `module_level`) in a scratch directory; returns the launch file.
fn launch_with(name: &str, decl: &str, module_level: bool) -> PathBuf {
    let d = scratch(name);
    let (outer, inner) = if module_level { (decl, "") } else { ("", decl) };
    std::fs::write(
        d.join("k.ptx"),
        format!(
            ".version 8.0\n.target sm_90\n.address_size 64\n{outer}\n\
             .visible .entry k()\n{{\n{inner}\nret;\n}}\n"
        ),
    )
    .unwrap();
    let l = d.join("k.json");
    std::fs::write(
        &l,
        r#"{"ptx": "k.ptx", "entry": "k", "grid": [1, 1, 1], "block": [32, 1, 1], "buffers": {}, "params": []}"#,
    )
    .unwrap();
    l
}

/// Huge declarations are refused before anything of their size is
/// allocated: each refusal peaks far below the bytes declared (a 256 MiB
/// `.shared` array peaked at 267 MB while its zero image was built, before
/// the engine found that no SM holds it).
#[test]
fn huge_declarations_are_refused_before_allocation() {
    let cases = [
        (
            "decl_shared",
            ".shared .align 4 .b8 sh[268435456];",
            false,
            "shared memory",
        ),
        (
            "decl_local",
            ".local .align 4 .b8 lo[268435456];",
            false,
            "local memory",
        ),
        (
            "decl_const",
            ".const .b8 c[300000000] = {1};",
            true,
            ".const variables need",
        ),
        (
            "decl_global",
            ".global .b8 g[4294967296];",
            true,
            ".global variables need",
        ),
    ];
    for (name, decl, module_level, why) in cases {
        let l = launch_with(name, decl, module_level);
        let Some((kib, c, e)) = peak_kib(&["run", s(&l), "--arch", "sm_90"]) else {
            return;
        };
        assert_eq!(c, 2, "{decl}: {e}");
        assert!(e.contains(why), "{decl}: {e}");
        assert!(kib < 64 << 10, "{decl}: peaked at {kib} KiB");
    }
}

/// A launch stopped by a limit says so once: the timing error's text is
/// not repeated by the error chain (it printed "simulation stopped at cycle
/// 100: ... was reached: simulation stopped at cycle 100: ... was reached").
#[test]
fn a_launch_limit_is_named_once() {
    let e = exit2(&[
        "run",
        "workloads/sgemm_128.json",
        "--arch",
        "sm_90",
        "--max-cycles",
        "100",
    ]);
    assert_eq!(e.matches("max_cycles = 100").count(), 1, "{e}");
    assert!(e.contains("simulation stopped at cycle 100"), "{e}");
}
