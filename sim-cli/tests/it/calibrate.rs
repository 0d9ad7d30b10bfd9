//! Issue 10, acceptance 1: the 56 H100 microbenchmarks with a kernel text
//! (`sim-core/data/calibration/h100/microbench.json`, measured on an H100 with
//! `%clock64`, one block on one SM; the README there gives the method),
//! replayed on the sm_90 preset, against the measured cycles.

use crate::{root, simcli};
use sim_cli::calibrate::{calibrate, geomean_error, Row, INPUT_WAIT};
use sim_core::preset;
use sim_isa::Target;

const FILE: &str = "sim-core/data/calibration/h100/microbench.json";

/// The kernel whose loop does not fit the instruction cache (44 KiB of
/// machine code): it runs within 10% only because fetching its lines beyond
/// 32 KiB costs time.
#[test]
fn b3_lat_needs_the_instruction_cache() {
    let rows = rows();
    let b3 = rows.iter().find(|r| r.name == "b3_lat").unwrap();
    assert!(b3.error() <= 1.10, "b3_lat at {:.3}", b3.ratio());
    let mut no_cache = preset(Target::SM_90);
    no_cache.icache = sim_core::ICache::NONE;
    let rows = calibrate(&root().join(FILE), &no_cache).unwrap();
    let b3 = rows.iter().find(|r| r.name == "b3_lat").unwrap();
    assert!(
        b3.ratio() < 0.80,
        "without the cache b3_lat is at {:.3}",
        b3.ratio()
    );
    // Every other latency loop fits: the cache changes nothing there (the
    // four-chain throughput loops do not fit, but their other warps issue
    // while one fetches).
    let with = self::rows();
    for (a, b) in with.iter().zip(&rows) {
        if a.name != "b3_lat" && a.mode == "lat" {
            assert_eq!(a.simulated, b.simulated, "{}", a.name);
        }
    }
}

fn rows() -> Vec<Row> {
    calibrate(&root().join(FILE), &preset(Target::SM_90)).unwrap()
}

/// Every kernel within 10% since 2026-11-25. The last ones outside, and what
/// brought them in:
/// - `b13_tput` (`vabsdiff2 .add`, four interleaved chains) ran at 0.89
///   until interleaved two-lane `.ca` instructions kept their fixed
///   operand's extraction (`facts::unhoist_interleaved`): ptxas recomputes
///   it there (11 machine instructions per instance on the H100, 9 in
///   `b13_lat`'s one chain; `tools/lowering/interleaved_ca.py` shows the same
///   for the other two-lane forms).
/// - `b13_lat` ran at 1.15 until forms whose `c` is their `a` took the
///   machine code ptxas emits for them in a chain, without the isolated
///   lowering's `IMAD.MOV` copy: the `.ca` rows of `lowering-sass.tsv`.
/// - `b3_lat`, `vsub4.s32.s32.s32.sat`, until the instruction cache: its 44
///   KiB loop is the only one larger than 32 KiB; it ran at 0.76.
#[test]
fn h100_microbenchmarks_within_ten_percent() {
    let rows = rows();
    assert_eq!(rows.len(), 56, "kernels with a kernel text");
    assert_eq!(
        rows.iter().filter(|r| r.mode == "lat").count(),
        28,
        "latency and throughput alike"
    );
    let off: Vec<String> = rows
        .iter()
        .filter(|r| r.error() > 1.10)
        .map(|r| {
            format!(
                "{} {}: {} simulated for {} measured ({:.3})",
                r.name,
                r.op,
                r.simulated,
                r.measured,
                r.ratio()
            )
        })
        .collect();
    assert!(off.is_empty(), "more than 10% off:\n{}", off.join("\n"));
    let g = geomean_error(&rows);
    assert!(g <= 1.015, "geometric-mean error factor {g:.4}");
}

/// The window of a latency kernel holds the wait for its loaded inputs when
/// its first link reads them after the clock read, as in `b17_lat`; where a
/// prologue instruction the loop needs reads them first (`b21_lat`'s
/// `setp`), the wait falls before the read. Same loop, 64 links of 4
/// clocks: the H100 measured the difference, and the replay of the kernel
/// texts alone (no loads) sees none.
#[test]
fn the_window_holds_the_input_load_where_the_loop_reads_it_first() {
    let rows = rows();
    let row = |n: &str| rows.iter().find(|r| r.name == n).unwrap().clone();
    let (b17, b21, b19) = (row("b17_lat"), row("b21_lat"), row("b19_lat"));
    assert_eq!(b17.measured - b21.measured, INPUT_WAIT);
    // The other loops of 64 four-clock links bear it out, each way round.
    for (after, before) in [
        ("b4_lat", "b25_lat"),
        ("b5_lat", "b21_lat"),
        ("b23_lat", "b25_lat"),
        ("b24_lat", "b21_lat"),
    ] {
        let d = row(after).measured as i64 - row(before).measured as i64;
        assert!(
            (d - INPUT_WAIT as i64).abs() <= 10,
            "{after} - {before}: {d}"
        );
    }
    assert_eq!(
        b17.simulated - b17.input_wait,
        b21.simulated - b21.input_wait
    );
    assert_eq!(
        (b17.input_wait, b21.input_wait, b19.input_wait),
        (INPUT_WAIT, 0, 0)
    );
    for r in [&b17, &b21] {
        assert!(r.error() <= 1.011, "{} at {:.3}", r.name, r.ratio());
    }
    // `b25_lat` measured like `b21_lat` (4211): ptxas reads its 16-bit
    // inputs as one 32-bit load and splits them before the clock read, which
    // the kernel text does not show; counted here, it is 5% over.
    let b25 = row("b25_lat");
    assert_eq!(b25.input_wait, INPUT_WAIT);
    assert!((1.04..=1.06).contains(&b25.ratio()), "{:.3}", b25.ratio());
}

#[test]
fn calibrate_command_prints_every_kernel_and_the_geomean() {
    let out = simcli(&["calibrate", FILE, "--arch", "sm_90"]);
    let text = String::from_utf8(out.stdout).unwrap();
    // Exit 0: every kernel within the default 10%.
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(text.lines().filter(|l| l.starts_with('b')).count(), 56);
    assert!(text.contains("b16_tput  tput     131730"), "{text}");
    assert!(
        text.contains("b17_lat   lat        4473       4430     258"),
        "{text}"
    );
    assert!(
        text.contains("sm_90: 56 of 56 kernels within 10%"),
        "{text}"
    );
    assert!(text.contains("geometric-mean error factor 1.0"), "{text}");
    // Exit 1 with a kernel outside a tighter tolerance, marked.
    let out = simcli(&["calibrate", FILE, "--tolerance", "0.05"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("0.911  setp+selp.f64 *"), "{text}");
}
