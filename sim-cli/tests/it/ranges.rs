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
        e.contains("[params] --set: schedulers: 4294967295 is out of range: 1 to 32"),
        "{e}"
    );
    assert!(!out.exists(), "no run before the check");
}
