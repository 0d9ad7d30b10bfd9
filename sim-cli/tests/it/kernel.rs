//! Real kernels through simcli (issue 11): the ten public H100 launches
//! (sim-module/tests/data/h100) with `--check`, `--dump-buffers`, the JSON
//! report's launch fields, and `simcli record` then `simcli run` of the
//! recording, which must give the direct run's cycles and outputs (also on
//! the twenty launches of sim-kernel/tests/data/h100-extra).

use crate::{exit2, parts, root, s, scratch, simcli};
use sim_kernel::Recording;
use std::path::{Path, PathBuf};

/// The ten public launches, in `launches.txt`'s order (the list sim-kernel's
/// and sim-cli's tests share).
fn launches() -> Vec<String> {
    let list = std::fs::read_to_string(data().join("launches.txt")).unwrap();
    let names: Vec<String> = list.lines().map(str::to_string).collect();
    assert_eq!(names.len(), 10, "{list}");
    names
}

/// The public launches' folder.
fn data() -> PathBuf {
    root().join("sim-module/tests/data/h100")
}

fn launch(name: &str) -> PathBuf {
    data().join(format!("{name}.json"))
}

/// The twenty further launches measured on the H100 (sim-kernel's test data).
fn extra() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("sim-kernel/tests/data/h100-extra"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    v.sort();
    assert_eq!(v.len(), 20);
    v
}

/// A copy of the public launches' folder, to corrupt.
fn copy_data(test: &str) -> PathBuf {
    let d = scratch(test);
    for e in std::fs::read_dir(data()).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, d.join(p.file_name().unwrap())).unwrap();
    }
    d
}

fn json(args: &[&str]) -> serde_json::Value {
    let (c, out, e) = parts(&simcli(args));
    assert_eq!(c, 0, "{args:?}: {e}");
    serde_json::from_str(&out).unwrap_or_else(|err| panic!("{args:?}: {err}\n{out}"))
}

/// Output buffer names of a launch file, from its `outputs` list.
fn outputs(path: &Path) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    v["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn all_public_launches_pass_check() {
    let mut buffers = 0;
    for name in &launches() {
        let (c, out, e) = parts(&simcli(&[
            "run",
            s(&launch(name)),
            "--arch",
            "sm_90",
            "--check",
        ]));
        assert_eq!(c, 0, "{name}: {e}");
        let n = outputs(&launch(name)).len();
        assert!(
            e.contains(&format!(
                "check: all {n} output buffers match their expected bytes"
            )),
            "{name}: {e}"
        );
        buffers += n;
        assert!(out.contains("launch\n"), "{name}: {out}");
        assert!(out.contains(&format!(
            "entry                 {}",
            name.split('.').next().unwrap()
        )));
    }
    // Every output of the ten launches was compared.
    assert_eq!(buffers, 16);
    for l in extra() {
        let (c, _, e) = parts(&simcli(&["run", s(&l), "--check"]));
        assert_eq!(c, 0, "{}: {e}", l.display());
        assert!(
            e.contains("output buffers match their expected bytes"),
            "{e}"
        );
    }
}

#[test]
fn a_corrupted_expected_file_fails_check_naming_buffer_offset_and_values() {
    let d = copy_data("kernel_corrupt_expected");
    let exp = d.join("threshold_clamp.t.clamped.expected.bin");
    let mut bytes = std::fs::read(&exp).unwrap();
    let good = bytes[100];
    bytes[100] ^= 0x5a;
    std::fs::write(&exp, &bytes).unwrap();
    let l = d.join("threshold_clamp.t.json");
    let (c, out, e) = parts(&simcli(&["run", s(&l), "--arch", "sm_90", "--check"]));
    assert_eq!(c, 1, "{e}");
    let want = format!(
        "buffer 'clamped' differs at byte 100: expected 0x{:02x}, got 0x{good:02x} (1 bytes differ)",
        good ^ 0x5a
    );
    assert!(e.contains(&want), "{e}");
    assert!(e.contains("check: 1 of 3 output buffers differ"), "{e}");
    // The report is still printed.
    assert!(out.contains("cycles"), "{out}");
}

#[test]
fn check_needs_expected_files() {
    let d = copy_data("kernel_no_expected");
    let l = d.join("audio_mix.t.json");
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&l).unwrap()).unwrap();
    v.as_object_mut().unwrap().remove("expected");
    std::fs::write(&l, serde_json::to_vec(&v).unwrap()).unwrap();
    let (c, out, e) = parts(&simcli(&["run", s(&l), "--check"]));
    assert_eq!(c, 2, "{e}");
    assert!(
        e.contains("--check: the launch file names no expected outputs"),
        "{e}"
    );
    assert!(out.is_empty());
    // Without --check it runs.
    assert_eq!(parts(&simcli(&["run", s(&l)])).0, 0);
}

#[test]
fn dump_buffers_writes_the_final_bytes() {
    let dir = scratch("kernel_dump").join("new/sub");
    let l = launch("threshold_clamp.v");
    let (c, _, e) = parts(&simcli(&["run", s(&l), "--dump-buffers", s(&dir)]));
    assert_eq!(c, 0, "{e}");
    for o in outputs(&l) {
        let got = std::fs::read(dir.join(format!("{o}.bin"))).unwrap();
        let want =
            std::fs::read(data().join(format!("threshold_clamp.v.{o}.expected.bin"))).unwrap();
        assert_eq!(got, want, "{o}");
    }
    // The input buffer is unchanged by the kernel; the clock buffer is written.
    let px = std::fs::read(dir.join("px.bin")).unwrap();
    assert_eq!(
        px,
        std::fs::read(data().join("threshold_clamp.v.px.bin")).unwrap()
    );
    let clk = std::fs::read(dir.join("clk.bin")).unwrap();
    assert_eq!(clk.len(), 96);
    assert!(clk.iter().any(|&b| b != 0));
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["clamped.bin", "clk.bin", "count.bin", "mask.bin", "px.bin"]
    );
}

#[test]
fn dump_buffers_never_escapes_its_folder_or_overwrites_an_input() {
    let d = copy_data("kernel_dump_escape");
    let l = d.join("audio_mix.t.json");
    let text = std::fs::read_to_string(&l).unwrap();
    let evil = d.join("evil.json");
    std::fs::write(&evil, text.replace("\"mix\"", "\"../mix\"")).unwrap();
    let out = d.join("dump");
    let (c, o, e) = parts(&simcli(&["run", s(&evil), "--dump-buffers", s(&out)]));
    assert_eq!(c, 2, "{e}");
    assert!(
        e.contains("buffer name '../mix' cannot be a file name"),
        "{e}"
    );
    assert!(o.is_empty());
    assert!(!d.join("mix.bin").exists() && !out.exists());
    // Dumping into the data folder would replace the input buffer `a`
    // (audio_mix.t.a.bin) only if named so; a launch whose buffer is called
    // like its own input file is refused.
    std::fs::copy(d.join("audio_mix.t.a.bin"), d.join("a.bin")).unwrap();
    let before = std::fs::read(d.join("a.bin")).unwrap();
    let self_in = d.join("self.json");
    std::fs::write(&self_in, text.replace("audio_mix.t.a.bin", "a.bin")).unwrap();
    let e = exit2(&["run", s(&self_in), "--dump-buffers", s(&d)]);
    assert!(e.contains("is the input"), "{e}");
    assert_eq!(std::fs::read(d.join("a.bin")).unwrap(), before);
}

#[test]
fn json_report_has_cycles_and_the_launch() {
    let v = json(&[
        "run",
        s(&launch("sad16.t")),
        "--arch",
        "sm_90",
        "--format",
        "json",
    ]);
    let cycles = v["cycles"].as_u64().unwrap();
    assert!(cycles > 1000, "{v}");
    let l = &v["launch"];
    assert_eq!(l["entry"], "sad16");
    assert_eq!(l["grid"], serde_json::json!([1, 1, 1]));
    assert_eq!(l["block"], serde_json::json!([64, 1, 1]));
    assert_eq!(l["warps"], 2);
    assert_eq!(v["warps"], 2);
    assert_eq!(l["h100_cycles_cold"], 3370);
    let window = l["clock_window"].as_u64().unwrap();
    assert!(window > 0 && window < cycles, "{l}");
    let ratio = l["h100_ratio"].as_f64().unwrap();
    assert!((ratio - window as f64 / 3370.0).abs() < 1e-9);
    assert_eq!(l["recorded_cycles"], serde_json::Value::Null);
    assert_eq!(
        l["warp_instructions_executed"].as_u64().unwrap(),
        v["warp_instructions"].as_u64().unwrap()
    );
    // CSV keeps its fixed columns.
    let (c, out, _) = parts(&simcli(&["run", s(&launch("sad16.t")), "--format", "csv"]));
    assert_eq!(c, 0);
    assert!(
        out.starts_with("run,input,arch,scheduler,sms,warps,overrides,cycles,"),
        "{out}"
    );
    assert!(out.contains(&format!(",{cycles},")), "{out}");
}

#[test]
fn record_then_run_reproduces_values_and_cycles() {
    let d = scratch("kernel_record");
    let all = launches().into_iter().map(|n| launch(&n)).chain(extra());
    for l in all {
        let name = l.file_stem().unwrap().to_str().unwrap().to_string();
        let name = name.as_str();
        let direct_dump = d.join(format!("{name}.direct"));
        let direct = json(&[
            "run",
            s(&l),
            "--format",
            "json",
            "--sms",
            "4",
            "--dump-buffers",
            s(&direct_dump),
        ]);
        let rec = d.join(format!("{name}.bin"));
        let (c, _, e) = parts(&simcli(&["record", s(&l), "-o", s(&rec), "--sms", "4"]));
        assert_eq!(c, 0, "{name}: {e}");
        assert!(e.contains("recorded"), "{e}");
        let replay_dump = d.join(format!("{name}.replay"));
        let replay = json(&[
            "run",
            s(&rec),
            "--format",
            "json",
            "--sms",
            "4",
            "--dump-buffers",
            s(&replay_dump),
        ]);
        for k in [
            "cycles",
            "warp_instructions",
            "thread_instructions",
            "micro_ops",
            "stalls",
        ] {
            assert_eq!(direct[k], replay[k], "{name}: {k}");
        }
        for k in [
            "clock_window",
            "warp_instructions_executed",
            "warps",
            "entry",
            "sms_used",
        ] {
            assert_eq!(
                direct["launch"][k], replay["launch"][k],
                "{name}: launch.{k}"
            );
        }
        assert_eq!(replay["launch"]["recorded_cycles"], direct["cycles"]);
        for o in outputs(&l) {
            let a = std::fs::read(direct_dump.join(format!("{o}.bin"))).unwrap();
            let b = std::fs::read(replay_dump.join(format!("{o}.bin"))).unwrap();
            assert_eq!(a, b, "{name}: {o}");
        }
        let (c, _, e) = parts(&simcli(&["run", s(&rec), "--check", "--sms", "4"]));
        assert_eq!(c, 0, "{name}: {e}");
        assert!(e.contains("match their recorded bytes"), "{e}");
    }
}

/// Reads, changes and rewrites a recording.
fn edit(rec: &Path, out: &Path, f: impl FnOnce(&mut Recording)) {
    let mut r = Recording::from_bytes("x", &std::fs::read(rec).unwrap()).unwrap();
    f(&mut r);
    std::fs::write(out, r.to_bytes().unwrap()).unwrap();
}

#[test]
fn a_replay_computes_its_outputs_from_the_recorded_loads() {
    let d = scratch("kernel_replay_loads");
    let rec = d.join("mix.bin");
    assert_eq!(
        parts(&simcli(&[
            "record",
            s(&launch("audio_mix.t")),
            "-o",
            s(&rec)
        ]))
        .0,
        0
    );
    // Another value for the last sample warp 0 loaded: its output changes.
    let bad = d.join("bad.bin");
    edit(&rec, &bad, |r| {
        let l = r.warps[0].loads.last_mut().unwrap();
        *l ^= 0x4000;
    });
    let (c, _, e) = parts(&simcli(&["run", s(&bad), "--check"]));
    assert_eq!(c, 1, "{e}");
    assert!(e.contains("check failed: buffer '"), "{e}");
    assert!(e.contains("differs at byte"), "{e}");
    // Issue 28: without --check too, an error (it exited 0 with a report
    // of a run whose outputs are not the recorded ones), nothing printed.
    let (c, out, e) = parts(&simcli(&["run", s(&bad)]));
    assert_eq!(c, 2, "{e}");
    assert!(
        e.contains("the replayed outputs differ from the recorded ones (2 of 2 output buffers): buffer 'mix' differs at byte 125"),
        "{e}"
    );
    assert!(e.contains("differs at byte"), "{e}");
    assert!(out.is_empty(), "{out}");
}

#[test]
fn bad_recordings_are_refused_clearly() {
    let d = scratch("kernel_bad_rec");
    let rec = d.join("k.bin");
    assert_eq!(
        parts(&simcli(&[
            "record",
            s(&launch("block_sad_reduce.t")),
            "-o",
            s(&rec)
        ]))
        .0,
        0
    );
    let bytes = std::fs::read(&rec).unwrap();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "truncated",
            bytes[..bytes.len() / 2].to_vec(),
            "corrupt or truncated kernel recording",
        ),
        (
            "header only",
            bytes[..10].to_vec(),
            "the version is cut off",
        ),
        (
            "version",
            {
                let mut b = bytes.clone();
                b[8] = 9;
                b
            },
            "kernel recording version 9; this simcli reads version 4",
        ),
        (
            "trailing",
            {
                let mut b = bytes.clone();
                b.extend_from_slice(b"xx");
                b
            },
            "2 bytes after the recording's end",
        ),
        (
            "record length",
            {
                // The first warp record's length (after the header's
                // payload and checksum).
                let mut b = bytes.clone();
                let h = u64::from_le_bytes(b[13..21].try_into().unwrap()) as usize;
                let w0 = 21 + h + 8;
                b[w0 + 1..w0 + 9].copy_from_slice(&u64::MAX.to_le_bytes());
                b
            },
            "a record of 18446744073709551615 bytes, more than the limit of 1073741824",
        ),
        (
            "record cut",
            {
                // Cut inside the second warp record's payload (records
                // end with an 8-byte checksum).
                let h = u64::from_le_bytes(bytes[13..21].try_into().unwrap()) as usize;
                let w0 = 21 + h + 8;
                let l0 = u64::from_le_bytes(bytes[w0 + 1..w0 + 9].try_into().unwrap()) as usize;
                let w1 = w0 + 17 + l0;
                bytes[..w1 + 9 + 3].to_vec()
            },
            "corrupt or truncated kernel recording: warps[1]: the file ends inside the record",
        ),
    ];
    for (what, b, msg) in cases {
        let p = d.join(format!("{}.bin", what.replace(' ', "_")));
        std::fs::write(&p, &b).unwrap();
        let (c, out, e) = parts(&simcli(&["run", s(&p)]));
        assert_eq!(c, 2, "{what}: {e}");
        assert!(e.contains(msg) && e.contains(s(&p)), "{what}: {e}");
        assert!(out.is_empty(), "{what}");
    }
    type Edit = Box<dyn FnOnce(&mut Recording)>;
    let edits: Vec<(&str, Edit, &str)> = vec![
        (
            "stmt",
            Box::new(|r| r.warps[1].steps[3].0 = 99_999),
            "warps[1].steps[3]: statement 99999 is past the kernel's",
        ),
        (
            "warps",
            Box::new(|r| {
                r.warps.pop();
            }),
            "warps, but a grid of 1 blocks of 256 threads has 8",
        ),
        (
            "loads",
            Box::new(|r| {
                r.warps[0].loads.pop();
            }),
            "load values or addresses do not match the module",
        ),
        (
            "buffer",
            Box::new(|r| r.header.params[0] = sim_kernel::record::RecParam::Buffer(7)),
            "params[0]: buffer 7 does not exist",
        ),
        (
            "access",
            Box::new(|r| r.warps[0].accesses[0].addrs.push(1)),
            "warps[0].accesses[0]: lanes",
        ),
    ];
    for (what, f, msg) in edits {
        let p = d.join(format!("{what}.bin"));
        edit(&rec, &p, f);
        let (c, out, e) = parts(&simcli(&["run", s(&p), "--check"]));
        assert_eq!(c, 2, "{what}: {e}");
        assert!(e.contains(msg), "{what}: {e}");
        assert!(out.is_empty(), "{what}: {out}");
    }
}

#[test]
fn bad_launch_files_are_refused_clearly() {
    let d = copy_data("kernel_bad_launch");
    let text = std::fs::read_to_string(d.join("sad16.t.json")).unwrap();
    let cases = [
        ("syntax", text.replacen('{', "{,", 1), "line 1 column 2"),
        (
            "field",
            text.replace("\"entry\"", "\"entri\""),
            "unknown field `entri`",
        ),
        (
            "entry",
            text.replace("\"sad16\"", "\"nope\""),
            "no .entry named 'nope'",
        ),
        (
            "buffer file",
            text.replace("sad16.t.cur.bin", "missing.bin"),
            "missing.bin",
        ),
        ("ptx", text.replace("public.ptx", "none.ptx"), "none.ptx"),
        (
            "params",
            text.replace("{\"s32\":", "{\"s64\":")
                .replace("{\n   \"s32\":", "{\n   \"s64\":"),
            "parameter",
        ),
    ];
    for (what, t, msg) in cases {
        let p = d.join(format!("{}.json", what.replace(' ', "_")));
        std::fs::write(&p, t).unwrap();
        let (c, out, e) = parts(&simcli(&["run", s(&p), "--check"]));
        assert_eq!(c, 2, "{what}: {e}");
        assert!(e.contains(msg), "{what}: {e}");
        assert!(out.is_empty(), "{what}: {out}");
    }
    // A kernel that runs too long stops at --max-instructions.
    let e = exit2(&[
        "run",
        s(&d.join("sad16.t.json")),
        "--max-instructions",
        "100",
    ]);
    assert!(e.contains("more than 100 warp-instructions"), "{e}");
    // `--lowering compiler` on launch files (issue 26): tests/it/lowering.rs.
}

#[test]
fn record_never_overwrites_an_input() {
    let d = copy_data("kernel_record_self");
    let l = d.join("audio_mix.t.json");
    for input in [l.clone(), d.join("audio_mix.t.a.bin"), d.join("public.ptx")] {
        let before = std::fs::read(&input).unwrap();
        let e = exit2(&["record", s(&l), "-o", s(&input)]);
        assert!(e.contains("is the input"), "{e}");
        assert_eq!(std::fs::read(&input).unwrap(), before);
    }
}
