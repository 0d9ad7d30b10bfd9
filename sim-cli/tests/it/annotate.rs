//! `simcli annotate`: the per-line profile of kernel text (a golden
//! listing, bless with UPDATE_EXPECT=1) and of a launch file (its PTX
//! lines, the barrier's wait at the `bar.sync`).

use crate::{parts, root, simcli};

#[test]
fn annotate_kernel_text_golden() {
    let (code, out, err) = parts(&simcli(&[
        "annotate",
        "traces/chain_selp.ptx",
        "--arch",
        "sm_90",
        "--hot",
        "2",
    ]));
    assert_eq!(code, 0, "{err}");
    let path = root().join("traces/expected/annotate/chain_selp.sm_90.txt");
    if std::env::var_os("UPDATE_EXPECT").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &out).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).expect("bless with UPDATE_EXPECT=1");
    assert_eq!(out, want, "{}", path.display());
    // Two lines marked hot, and the dependent `selp` waits on its latency.
    assert_eq!(out.lines().filter(|l| l.starts_with(">>")).count(), 2);
    let selp = out
        .lines()
        .find(|l| l.starts_with(">>") && l.contains("selp"))
        .expect("the selp line is hot");
    assert!(selp.contains("wait"), "{selp}");
}

#[test]
fn annotate_a_launch_file_marks_its_barrier() {
    let launch = root().join("sim-module/tests/data/h100/block_sad_reduce.t.json");
    let (code, out, err) = parts(&simcli(&[
        "annotate",
        launch.to_str().unwrap(),
        "--sms",
        "4",
        "--threads",
        "1",
    ]));
    assert_eq!(code, 0, "{err}");
    // The kernel's PTX, line by line, with the barrier's stall at a bar.sync.
    let bar = out
        .lines()
        .filter(|l| l.contains("bar.sync"))
        .find(|l| l.contains("barrier "))
        .unwrap_or_else(|| panic!("no bar.sync with a barrier stall:\n{out}"));
    assert!(bar.split_whitespace().count() > 4, "{bar}");
    assert!(out.contains("ld.global"), "{out}");
    assert_eq!(out.lines().filter(|l| l.starts_with(">>")).count(), 5);
    assert!(out.contains("hottest lines"));
}

#[test]
fn annotate_refuses_a_missing_file_clearly() {
    let (code, _, err) = parts(&simcli(&["annotate", "no/such/file.json"]));
    assert_eq!(code, 2);
    assert!(err.contains("no/such/file.json"), "{err}");
}
