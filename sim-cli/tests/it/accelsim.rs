//! `simcli run` on Accel-Sim trace directories (sim-accelsim/tests/data:
//! romnn/microgpusim's public samples, MIT).

use super::simcli;

#[test]
fn a_trace_directory_runs_with_one_section_per_kernel() {
    for path in [
        "sim-accelsim/tests/data/vectoradd-100-32",
        "sim-accelsim/tests/data/vectoradd-100-32/kernelslist.g",
    ] {
        let out = simcli(&["run", path, "--arch", "sm_90", "--format", "json"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{path}: {err}");
        // The one warning names the approximated Pascal opcodes.
        assert_eq!(err.matches("warning:").count(), 1, "{err}");
        assert!(err.contains("XMAD"), "{err}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        let ks = v["kernels"].as_array().expect("kernels");
        assert_eq!(ks.len(), 1);
        assert_eq!(ks[0]["warp_instructions"], 344);
        assert_eq!(ks[0]["thread_instructions"], 10516);
        assert_eq!(ks[0]["accelsim"]["kernel"], "_Z6vecAddIfEvPT_S1_S1_i");
        assert_eq!(v["memcpy_htod"].as_array().map(Vec::len), Some(3));
        assert!(ks[0]["cycles"].as_u64().is_some_and(|c| c > 0));
    }
}

#[test]
fn a_malformed_trace_names_its_line_and_options_for_ptx_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("kernelslist.g"), "kernel-1.traceg\n").expect("write");
    let bad = "-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-accelsim tracer version = 4\n\
               #BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0008 ffffffff 1 R1 MOV 0 zero\n#END_TB\n";
    std::fs::write(dir.path().join("kernel-1.traceg"), bad).expect("write");
    let p = dir.path().to_string_lossy().to_string();
    let out = simcli(&["run", &p]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("kernel-1.traceg:8: bad memory width `zero`"),
        "{err}"
    );
    let out = simcli(&[
        "run",
        "sim-accelsim/tests/data/matrixmul-32-32",
        "--timeline",
        "t.json",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("--timeline does not apply"), "{err}");
}
