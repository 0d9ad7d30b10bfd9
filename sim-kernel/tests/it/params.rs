//! Launch files' parameters: every kind bound to its `.param` and checked
//! against its type, by-value structs, and dynamic shared memory
//! (tests/data/device: kernels of device.cu as nvcc 13.0 compiles them).

use sim_kernel::{run_launch, KernelError, Prepared, RunError, RunOptions};
use sim_module::{parse_module, Launch};
use std::path::{Path, PathBuf};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/device")
}

fn opts() -> RunOptions {
    let cfg = sim_core::preset(sim_isa::Target::SM_90);
    let mut o = RunOptions::new(cfg, sim_core::SchedPolicy::Lrr, 4);
    o.max_instructions = 1_000_000;
    o
}

fn f64s(b: &[u8]) -> Vec<f64> {
    b.chunks(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn every_new_kind_reaches_the_kernel() {
    let run = run_launch(&data().join("params_mix.json"), &opts()).unwrap();
    // twice(1.75), (double)(char)-3, (short)-300, (unsigned char)200, and
    // the struct {int -7; float 2.5; double 0.125} given as hex bytes.
    assert_eq!(
        f64s(&run.buffers[0]),
        vec![3.5, -3.0, -300.0, 200.0, -7.0, 2.5, 0.125]
    );
}

#[test]
fn dynamic_shared_bytes_size_the_extern_array() {
    let path = data().join("reverse_dyn.json");
    let launch = Launch::read(&path).unwrap();
    assert_eq!(launch.dynamic_shared, 256);
    let input = launch.load_buffers().unwrap().remove(0);
    let run = run_launch(&path, &opts()).unwrap();
    let f = |b: &[u8]| -> Vec<f32> {
        b.chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let (x, y) = (f(&input), f(&run.buffers[0]));
    for (i, got) in y.iter().enumerate() {
        let (blk, k) = (i / 64, i % 64);
        assert_eq!(*got, x[blk * 64 + 63 - k] + (100 + k % 3) as f32, "{i}");
    }
    assert_eq!(y.len(), 128);
    // Without the dynamic bytes the extern array has no room: a fault.
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("\"dynamic_shared_bytes\": 256,", "");
    let tmp = std::env::temp_dir().join(format!("reverse_dyn_{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::copy(data().join("device.ptx"), tmp.join("device.ptx")).unwrap();
    std::fs::write(tmp.join("l.json"), text).unwrap();
    let e = run_launch(&tmp.join("l.json"), &opts()).err().unwrap();
    assert!(
        matches!(e, RunError::Kernel(KernelError::Fault { .. })),
        "{e}"
    );
    std::fs::remove_dir_all(&tmp).unwrap();
}

/// The error of preparing `entry` of device.ptx with `params` (JSON).
fn refused(entry: &str, params: &str) -> String {
    let src = std::fs::read_to_string(data().join("device.ptx")).unwrap();
    let module = parse_module(&src, "device.ptx").unwrap();
    let launch = Launch::parse(
        &format!(
            r#"{{"ptx": "device.ptx", "entry": "{entry}", "grid": [1,1,1], "block": [1,1,1],
               "buffers": {{"b": {{"bytes": 8, "fill": 0}}}}, "params": [{params}]}}"#
        ),
        Path::new("."),
    )
    .unwrap();
    match Prepared::new(&module, &launch, launch.load_buffers().unwrap()) {
        Ok(_) => panic!("{entry} took {params}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_kind_that_does_not_fit_its_parameter_is_refused() {
    let ok = r#"{"buffer": "b"}, {"f64": 1}, {"s8": 1}, {"s16": 1}, {"u8": 1}, {"bytes": [0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]}"#;
    let with = |k: usize, v: &str| {
        let mut p: Vec<String> = ok
            .split(", {")
            .map(|s| s.trim_start_matches('{').to_string())
            .collect();
        p[k] = v.trim_start_matches('{').to_string();
        p.iter()
            .map(|s| format!("{{{s}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    // A table of cases, a row each: the parameter whose argument changes,
    // the argument, and the ptxas-worded message, read whole.
    #[rustfmt::skip]
    let cases = [
        (1, r#"{"u64": 1}"#, "parameter 1 (params_mix_param_1) of params_mix is .f64 (8 bytes); the launch gives u64 (8 bytes): the types differ"),
        (1, r#"{"f32": 1}"#, "parameter 1 (params_mix_param_1) of params_mix is .f64 (8 bytes); the launch gives f32 (4 bytes): the types differ"),
        (0, r#"{"u32": 1}"#, "parameter 0 (params_mix_param_0) of params_mix is .u64 (8 bytes); the launch gives u32 (4 bytes): the types differ"),
        (1, r#"{"buffer": "b"}"#, "parameter 1 (params_mix_param_1) of params_mix is .f64 (8 bytes); the launch gives buffer (8 bytes): a buffer's address binds only to a 64-bit .u64, .s64 or .b64"),
        (2, r#"{"s16": 1}"#, "parameter 2 (params_mix_param_2) of params_mix is .u8 (1 bytes); the launch gives s16 (2 bytes): the types differ"),
        (5, r#"{"bytes": [1, 2]}"#, "parameter 5 (params_mix_param_5) of params_mix is .b8[16] (16 bytes); the launch gives 2 bytes (2 bytes): the lengths differ"),
        (5, r#"{"u64": 1}"#, "parameter 5 (params_mix_param_5) of params_mix is .b8[16] (16 bytes); the launch gives u64 (8 bytes): an array parameter (a struct) takes `bytes`"),
        (3, r#"{"bytes": "0100"}"#, "parameter 3 (params_mix_param_3) of params_mix is .u16 (2 bytes); the launch gives 2 bytes (2 bytes): bytes bind to an array parameter (a struct) or a .bN of their length"),
    ];
    for (k, arg, want) in cases {
        let params = with(k, arg);
        assert_eq!(refused("params_mix", &params), want, "{params}");
    }
    // An f32 for an int (.u32 as nvcc declares it): refused, not bit-cast.
    assert_eq!(
        refused("fill_idx", r#"{"buffer": "b"}, {"f32": 3}"#),
        "parameter 1 (fill_idx_param_1) of fill_idx is .u32 (4 bytes); the launch gives f32 (4 bytes): the types differ"
    );
    // Bits bind to any scalar of their size; an int's sign does not matter.
    for p in [r#"{"b32": 3}"#, r#"{"s32": -3}"#, r#"{"u32": 3}"#] {
        let src = std::fs::read_to_string(data().join("device.ptx")).unwrap();
        let module = parse_module(&src, "device.ptx").unwrap();
        let launch = Launch::parse(
            &format!(
                r#"{{"ptx": "device.ptx", "entry": "fill_idx", "grid": [1,1,1], "block": [1,1,1],
                   "buffers": {{"b": {{"bytes": 8, "fill": 0}}}}, "params": [{{"b64": 1}}, {p}]}}"#
            ),
            Path::new("."),
        )
        .unwrap();
        let prep = Prepared::new(&module, &launch, launch.load_buffers().unwrap()).unwrap();
        assert_eq!(prep.params[..8], 1u64.to_le_bytes(), "{p}");
    }
}

/// Every committed launch file still binds its parameters.
#[test]
fn committed_launch_files_bind() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut seen = 0;
    for dir in [
        "workloads",
        "sim-kernel/tests/data",
        "sim-module/tests/data",
    ] {
        let mut stack = vec![root.join(dir)];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                    continue;
                }
                if p.extension().is_none_or(|x| x != "json") {
                    continue;
                }
                // Only launch files (expected-value files are JSON too).
                let Ok(launch) = Launch::read(&p) else {
                    continue;
                };
                let src = std::fs::read_to_string(&launch.ptx).unwrap();
                let module = sim_module::inline_calls(
                    &src,
                    &parse_module(&src, "m.ptx").unwrap(),
                    &launch.entry,
                )
                .unwrap()
                .unwrap_or_else(|| parse_module(&src, "m.ptx").unwrap());
                let bufs = launch.buffers.iter().map(|_| Vec::new()).collect();
                if let Err(e) = Prepared::new(&module, &launch, bufs) {
                    panic!("{}: {e}", p.display());
                }
                seen += 1;
            }
        }
    }
    assert!(seen >= 40, "{seen} launch files");
}
