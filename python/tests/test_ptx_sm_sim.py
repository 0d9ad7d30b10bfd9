"""The Python package against the repository's sample kernels."""

import pathlib
import re

import pytest

import ptx_sm_sim

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAD = ROOT / "traces" / "sad16x16.ptx"


def test_simulate_returns_the_report():
    report = ptx_sm_sim.simulate(SAD, arch="sm_90")
    stats = report["stats"]
    assert stats["cycles"] > 0
    assert stats["warp_instructions"] > 0
    assert report["sms"] == 1
    # The defaults are simcli's (lrr): its golden report for this kernel.
    golden = (ROOT / "traces" / "expected" / "sad16x16.sm_90.txt").read_text()
    assert int(re.search(r"^cycles\s+(\d+)", golden, re.M).group(1)) == stats["cycles"]
    # More SMs and another policy are parameters.
    two = ptx_sm_sim.simulate(str(SAD), arch="sm_53", policy="lrr", sms=2)
    assert two["sms"] == 2 and len(two["per_sm"]) == 2


def test_simulate_errors_name_the_problem():
    with pytest.raises(ValueError, match="sm_9x"):
        ptx_sm_sim.simulate(SAD, arch="sm_9x")
    with pytest.raises(ValueError, match="nope.ptx"):
        ptx_sm_sim.simulate(ROOT / "nope.ptx")
    with pytest.raises(ValueError, match="fifo"):
        ptx_sm_sim.simulate(SAD, policy="fifo")


def test_sm_stepping_api():
    sm = ptx_sm_sim.Sm(["add.u32 %r1, %r0, 4;", "add.u32 %r2, %r1, %r1;"], arch="sm_90")
    sm.add_warp(0)
    sm.set_reg(0, "%r0", list(range(32)))
    for index in (0, 1):
        sm.push(0, index)
    sm.close(0)
    assert sm.run() is True
    assert sm.reg(0, "%r2") == [2 * (lane + 4) for lane in range(32)]
    assert sm.stats()["warp_instructions"] == 2
    assert sm.cycle > 0
    with pytest.raises(ValueError, match="32 needed"):
        sm.set_reg(0, "%r0", [1, 2])


def test_host_fed_warp_asks_for_input():
    sm = ptx_sm_sim.Sm(["add.u32 %r1, %r1, 1;"], arch="sm_53")
    sm.add_warp(3)
    assert sm.hungry_warps() == [3]
    fed = 0
    while True:
        for w in sm.hungry_warps():
            if fed < 10:
                sm.push(w, 0)
                fed += 1
            else:
                sm.close(w)
        if sm.run():
            break
    assert sm.reg(3, "%r1") == [10] * 32


def test_conform_counts():
    counts = ptx_sm_sim.conform(ROOT / "sim-isa" / "tests" / "data" / "public.jsonl")
    assert counts == {"passed": 623, "failed": 0, "skipped": 0}


def test_simulate_takes_configuration_keys():
    base = ptx_sm_sim.simulate(SAD, arch="sm_53")["stats"]["cycles"]
    slower = ptx_sm_sim.simulate(SAD, arch="sm_53", **{"units.int_alu.latency": 60})
    assert slower["stats"]["cycles"] > base
    with pytest.raises(ValueError, match="units.alu.latency"):
        ptx_sm_sim.simulate(SAD, arch="sm_53", **{"units.alu.latency": 6})


def test_simulate_reads_a_configuration_file(tmp_path):
    # The same preset written as TOML gives the same report.
    toml = tmp_path / "sm53.toml"
    toml.write_text('target = "sm_53"\n')
    a = ptx_sm_sim.simulate(SAD, arch="sm_53")["stats"]
    b = ptx_sm_sim.simulate(SAD, arch="sm_90", config=toml)["stats"]
    assert a == b


def test_configuration_files_are_read_to_their_limit_only(tmp_path):
    # Issue 28: /dev/zero's size says 0; the reader counts and stops at
    # 1 MiB + 1 byte instead of reading it whole.
    if not pathlib.Path("/dev/zero").exists():
        return
    zero = tmp_path / "zero.toml"
    zero.symlink_to("/dev/zero")
    with pytest.raises(ValueError, match="more than 1048576 bytes"):
        ptx_sm_sim.simulate(SAD, arch="sm_90", config=zero)


def test_counts_and_configuration_ranges_raise():
    # Issue 28: simcli's bounds (1 to 4096 SMs, 1 to 1024 threads, each
    # key's range) hold in Python too: an exception, not a killed interpreter.
    with pytest.raises(ValueError, match="1 to 4096"):
        ptx_sm_sim.simulate(SAD, arch="sm_90", sms=1000000)
    with pytest.raises(ValueError, match="1 to 4096"):
        ptx_sm_sim.simulate(SAD, arch="sm_90", sms=0)
    with pytest.raises(ValueError, match="1 to 1024"):
        ptx_sm_sim.simulate(SAD, arch="sm_90", threads=100000)
    with pytest.raises(ValueError, match="schedulers: 4294967295 is out of range: 1 to 32"):
        ptx_sm_sim.simulate(SAD, arch="sm_90", schedulers=4294967295)
