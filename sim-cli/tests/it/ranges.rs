//! Issue 28's rows on configurations and sweeps, each run under the 2 GiB
//! address-space cap and 60 s clock of `bounded::capped`: configuration
//! values outside their key's range are clear errors wherever they are
//! written (`--set`, `--config`, a sweep's `[params]`), never an allocation
//! that aborts.

use crate::bounded::capped;
use crate::{s, scratch};

/// `--set` and `--config` values outside their range: exit 2, naming the
/// key and the range, before any run.
#[test]
fn configuration_values_out_of_range_are_refused() {
    for (set, want) in [
        (
            "schedulers=4294967295",
            "--set: schedulers: 4294967295 is out of range: 1 to 32",
        ),
        (
            "resident_warps=0",
            "--set: resident_warps: 0 is out of range: 1 to 256",
        ),
        (
            "units.int_alu.lanes_per_sm=4294967295",
            "--set: units.int_alu.lanes_per_sm: 4294967295 is out of range: 0 to 4096",
        ),
    ] {
        let (c, out, e) = capped(&["run", "traces/chain_set.ptx", "--set", set]);
        assert_eq!(c, 2, "{set}: {e}");
        assert!(out.is_empty(), "{set}: {out}");
        assert!(e.contains(want), "{set}: want {want}, got {e}");
    }
    let d = scratch("ranges-config");
    let f = d.join("big.toml");
    std::fs::write(&f, "target = \"sm_90\"\n# many\nschedulers = 4294967295\n").unwrap();
    let (c, _, e) = capped(&["run", "traces/chain_set.ptx", "--config", s(&f)]);
    assert_eq!(c, 2, "{e}");
    assert!(
        e.contains("big.toml:3: schedulers: 4294967295 is out of range: 1 to 32"),
        "{e}"
    );
}

/// A sweep value outside its range fails before the first run (its
/// output is not written), naming the sweep file and the key.
#[test]
fn sweep_values_out_of_range_fail_before_any_run() {
    let d = scratch("ranges-sweep");
    let f = d.join("s.toml");
    let out = d.join("out.csv");
    std::fs::write(
        &f,
        "traces = [\"traces/chain_set.ptx\"]\n[params]\nschedulers = [4, 4294967295]\n",
    )
    .unwrap();
    let (c, _, e) = capped(&["sweep", s(&f), "-o", s(&out)]);
    assert_eq!(c, 2, "{e}");
    assert!(
        e.contains(&format!(
            "{}:3: [params] --set: schedulers: 4294967295 is out of range: 1 to 32",
            f.display()
        )),
        "{e}"
    );
    assert!(!out.exists(), "no run before the check");
}

/// A `[params]` error names the line of its key, wherever the key is
/// written: a plain key, a dotted one, one under a `[params.x]` header, and
/// an empty list.
#[test]
fn sweep_param_errors_name_the_line_of_their_key() {
    use sim_cli::sweep::parse;
    let text = "traces = [\"t.ptx\"]\n\
                [params]\n\
                scheduler = [\"lrr\", \"gto\"]\n\
                units.int_alu.latency = [4, 6]\n\
                \n\
                [params.icache]\n\
                bytes = [0, 32768]\n";
    assert!(parse(text, "s.toml").is_ok());
    for (from, to, want) in [
        (
            "scheduler = [\"lrr\", \"gto\"]",
            "scheduler = [\"lrr\", \"nope\"]",
            "s.toml:3: [params] --set: scheduler: ",
        ),
        (
            "latency = [4, 6]",
            "latency = [4, 6000000]",
            "s.toml:4: [params] --set: units.int_alu.latency: 6000000 is out of range",
        ),
        (
            "bytes = [0, 32768]",
            "bytes = [0, -1]",
            "s.toml:7: [params] --set: icache.bytes: ",
        ),
        (
            "bytes = [0, 32768]",
            "bytes = []",
            "s.toml:7: [params] icache.bytes: the list is empty",
        ),
    ] {
        let bad = text.replace(from, to);
        let e = parse(&bad, "s.toml").map(|_| ()).unwrap_err().to_string();
        assert!(e.starts_with(want), "{e}");
    }
}

/// A sweep file of three axes of 1,000 values (8 KB) describes 10^9 runs:
/// refused at once with the count and the limit, in bounded memory (it
/// once built every run and aborted at 3.9 GB). Values are still checked
/// first, each once: a bad value on an axis is the error, not the count.
#[test]
fn huge_sweeps_are_refused_with_their_count() {
    let d = scratch("ranges-huge-sweep");
    let axis = |key: &str, last: &str| {
        let mut v: Vec<String> = (0..999).map(|i| (i % 64).to_string()).collect();
        v.push(last.to_string());
        format!("{key} = [{}]\n", v.join(","))
    };
    let text = |last: &str| {
        format!(
            "traces = [\"traces/chain_set.ptx\"]\n[params]\n{}{}{}",
            axis("units.int_alu.latency", "1"),
            axis("units.fp32.latency", "2"),
            axis("taken_branch_cycles", last)
        )
    };
    let f = d.join("huge.toml");
    std::fs::write(&f, text("3")).unwrap();
    assert!(std::fs::metadata(&f).unwrap().len() < 10_000);
    let (c, out, e) = capped(&["sweep", s(&f)]);
    assert_eq!(c, 2, "{e}");
    assert!(out.is_empty());
    assert!(
        e.contains(
            "the sweep has 1000000000 runs (1 traces x 1 archs x 1000 x 1000 x 1000 values), more than the limit of 100000"
        ),
        "{e}"
    );
    std::fs::write(&f, text("5000")).unwrap();
    let (c, _, e) = capped(&["sweep", s(&f)]);
    assert_eq!(c, 2, "{e}");
    assert!(
        e.contains("taken_branch_cycles: 5000 is out of range: 0 to 4096"),
        "{e}"
    );
}

/// The odometer gives the runs in the documented order (traces, archs,
/// then the `[params]` keys sorted, the last fastest), and a shard's runs
/// are exactly those whose number is its index modulo the count.
#[test]
fn sweep_runs_are_generated_in_order_and_by_shard() {
    use sim_cli::sweep::{parse, Shard};
    let text = "traces = [\"a.ptx\", \"b.ptx\"]\narchs = [\"sm_53\", \"sm_90\"]\n\
                [params]\nunits.int_alu.latency = [4, 6, 8]\nscheduler = [\"lrr\", \"gto\"]\n";
    let sw = parse(text, "s.toml").unwrap();
    assert_eq!(sw.len(), 24);
    let all: Vec<_> = sw.runs(Shard::ALL).collect();
    assert_eq!(all.len(), 24);
    let mut want = Vec::new();
    for t in ["a.ptx", "b.ptx"] {
        for a in ["sm_53", "sm_90"] {
            for s in ["lrr", "gto"] {
                for l in [4, 6, 8] {
                    want.push((
                        t.to_string(),
                        Some(a.to_string()),
                        vec![
                            format!("scheduler={s}"),
                            format!("units.int_alu.latency={l}"),
                        ],
                    ));
                }
            }
        }
    }
    let got: Vec<_> = all
        .iter()
        .map(|r| (r.input.name(), r.arch.clone(), r.sets.clone()))
        .collect();
    assert_eq!(got, want);
    assert!(all.iter().enumerate().all(|(i, r)| r.index == i as u64));
    for count in [1, 2, 5, 7, 24, 30] {
        for index in 0..count {
            let shard = Shard { index, count };
            let runs: Vec<u64> = sw.runs(shard).map(|r| r.index).collect();
            let by_filter: Vec<u64> = (0..24).filter(|i| shard.takes(*i)).collect();
            assert_eq!(runs, by_filter, "{index}/{count}");
            assert_eq!(sw.shard_len(shard), runs.len(), "{index}/{count}");
        }
    }
}
