//! Issue 28, configuration ranges: every key has a documented range, checked
//! in one place (`config_file::range`), by `--set`, configuration files and
//! the SM model alike, so that no value makes the model allocate without
//! bound (`schedulers=4294967295` once asked for 3.8 TB and aborted).

use sim_core::config_file::{self, ConfigLayer, ParamValue};
use sim_core::*;
use sim_isa::*;
use std::sync::Arc;

fn program() -> Arc<Program> {
    Arc::new(Program {
        target: Target::SM_90,
        insts: Vec::new(),
        nregs: 1,
    })
}

/// Every numeric key of every preset has a range, and the preset's value is
/// inside it (the ranges admit every measured machine).
#[test]
fn every_key_has_a_range_holding_the_presets() {
    for sm in [10, 13, 20, 30, 35, 50, 53, 60, 61, 70, 75, 80, 86, 89, 90] {
        let c = preset(Target { sm, suffix: None });
        for (key, value) in config_file::params(&c, SchedPolicy::Lrr) {
            if let ParamValue::Int(v) = value {
                let r = config_file::range(&key).unwrap_or_else(|| panic!("{key}: no range"));
                assert!(r.contains(v), "sm_{sm}: {key} = {v} outside {r}");
            }
        }
        assert_eq!(config_file::check(&c), Ok(()), "sm_{sm}");
    }
    assert!(config_file::range("units.alu.latency").is_none());
    assert!(config_file::range("scheduler").is_none());
}

/// Out-of-range values are refused where they are written: an override
/// names `--set` and the key, a file its line, and the range is stated.
#[test]
fn out_of_range_values_are_refused_with_the_range() {
    let e = ConfigLayer::parse_set("schedulers=4294967295").unwrap_err();
    assert_eq!(e.key, "schedulers");
    assert_eq!(
        e.to_string(),
        "--set: schedulers: 4294967295 is out of range: 1 to 32"
    );
    let e = ConfigLayer::parse_set("resident_warps=0").unwrap_err();
    assert_eq!(
        e.to_string(),
        "--set: resident_warps: 0 is out of range: 1 to 256"
    );
    for ok in ["schedulers=32", "resident_warps=1", "units.xu.latency=4096"] {
        assert!(ConfigLayer::parse_set(ok).is_ok(), "{ok}");
    }
    let e = ConfigLayer::parse(
        "target = \"sm_90\"\n\n[units.fp64]\nlanes_per_sm = 64\nlatency = 100000\n",
        "f.toml",
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "f.toml:5: units.fp64.latency: 100000 is out of range: 0 to 4096"
    );
    let e = ConfigLayer::parse("[icache]\nbytes = 4294967295\n", "f.toml").unwrap_err();
    assert_eq!((e.line, e.key.as_str()), (2, "icache.bytes"), "{e}");
}

/// A configuration built in code (the C API's and Python's presets, any
/// edited `SmConfig`) meets the same ranges when the model is built: an
/// error, not an allocation of 2^32 schedulers.
#[test]
fn the_model_refuses_configurations_out_of_range() {
    for edit in [
        (|c: &mut SmConfig| c.schedulers = u32::MAX) as fn(&mut SmConfig),
        |c| c.resident_warps = 0,
        |c| c.resident_warps = u32::MAX,
        |c| c.issue_width = u32::MAX,
        |c| c.units.int_alu.lanes_per_sm = u32::MAX,
    ] {
        let mut c = preset(Target::SM_90);
        edit(&mut c);
        let e = Simulation::new(c.clone(), program(), SchedPolicy::Lrr, 1)
            .err()
            .unwrap();
        assert!(e.to_string().contains("is out of range"), "{e}");
        assert!(Sm::new(c, program(), SchedPolicy::Lrr).is_err());
    }
}

/// The SM count is bounded as simcli's `--sms` is, for every front end.
#[test]
fn sm_counts_are_bounded() {
    assert_eq!(config_file::MAX_SMS, 4096);
    let c = preset(Target::SM_90);
    for sms in [0, 4097, 1_000_000, 4_000_000_000] {
        let e = Simulation::new(c.clone(), program(), SchedPolicy::Lrr, sms)
            .err()
            .unwrap();
        assert!(e.to_string().contains("1 to 4096"), "{sms}: {e}");
    }
    assert!(Simulation::new(c, program(), SchedPolicy::Lrr, 4096).is_ok());
    assert!(config_file::check_counts(4096, 1024).is_ok());
    assert!(config_file::check_counts(1, 1025).is_err());
}

/// An override is one line: its error says line 1 even where TOML reads
/// its value past the line (`target="""` opens a multi-line string; found
/// by `fuzz_config_set_overrides`, which gave line 2).
#[test]
fn an_overrides_error_is_on_its_one_line() {
    for bad in [
        "target=\"\"\"",
        "scheduler=\"\"\"x",
        "units.xu.latency=\"\"\"\n4",
    ] {
        let e = ConfigLayer::parse_set(bad).unwrap_err();
        assert_eq!((e.origin.as_str(), e.line), ("--set", 1), "{bad}: {e}");
        assert!(e.to_string().starts_with("--set: "), "{e}");
    }
}
