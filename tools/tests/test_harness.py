"""The GPU harnesses without a GPU: tools/gpu/run.py's buffer layout and its main loop
over a stand-in driver (an identity kernel), tools/gpu/ubench/run.py with its
UBENCH_FAKE driver, and tools/gpu/ubench/compare.py over a stand-in simcli."""
import json
import os
import subprocess
import sys

from tools.gpu import run as gpu_run
from tools.tests.helpers import ROOT

KERNEL = {
    "kernel": "k0", "ptx": "add.s32 %d, %a, %b;",
    "slots": [{"name": "%d", "width": 32}, {"name": "%a", "width": 32}, {"name": "%p", "width": 1}],
    "dsts": ["%d", "%p"],
    "vectors": [{"line": 1, "in": ["0x0", "0x5", "0x1"], "expect": {"%d": "0x0", "%p": True}},
                {"line": 2, "in": ["0xffffffff0000002a", "0x7", "0x0"], "expect": {"%d": "0x2b", "%p": False}}],
}


def test_pack_inputs_eight_bytes_per_slot():
    buf, n = gpu_run.pack_inputs(KERNEL)
    assert n == 48 == len(buf)
    assert buf[8:16] == (5).to_bytes(8, "little")
    assert buf[24:32] == (0xFFFFFFFF0000002A).to_bytes(8, "little")


def test_observed_values_mask_to_the_width():
    buf, _ = gpu_run.pack_inputs(KERNEL)
    assert gpu_run.observed_values(KERNEL, bytes(buf), 0) == {"%d": "0x0", "%p": True}
    assert gpu_run.observed_values(KERNEL, bytes(buf), 1) == {"%d": "0x2a", "%p": False}


def test_same():
    assert gpu_run.same({"%d": "0x2a"}, {"%d": "0x002A"})
    assert not gpu_run.same({"%d": "0x2a"}, {"%d": "0x2b"})
    assert not gpu_run.same({"%p": True}, {"%p": False})
    assert not gpu_run.same({"%d": "0x1"}, {})


def test_main_with_an_identity_kernel(tmp_path, monkeypatch, capsys):
    (tmp_path / "manifest.json").write_text(json.dumps({"kernels": [KERNEL]}))
    (tmp_path / "kernels.ptx").write_text(".visible .entry k0(\n")

    class Identity:
        def info(self):
            return {"gpu": "stand-in", "sm": "sm_90", "driver": "0", "cuda": "0.0"}

        def load(self, ptx):
            return ptx

        def run(self, mod, name, inp, out_len, n):
            assert (name, n, out_len) == ("k0", 2, 48)
            return bytes(inp)

    monkeypatch.setattr(gpu_run, "Cuda", Identity)
    obs = tmp_path / "observed.jsonl"
    monkeypatch.setattr(sys, "argv", ["run.py", str(tmp_path), "--observed", str(obs)])
    assert gpu_run.main() == 1
    assert "1 passed, 1 failed" in capsys.readouterr().out
    lines = obs.read_text().splitlines()
    assert lines[0] == "# observed on stand-in (sm_90), driver 0, CUDA 0.0"
    assert json.loads(lines[2])["out"] == {"%d": "0x2a", "%p": False}
    assert json.loads(lines[2])["in"] == {"%d": "0xffffffff0000002a", "%a": "0x7", "%p": False}


def test_main_refuses_a_missing_kernel(tmp_path, monkeypatch):
    (tmp_path / "manifest.json").write_text(json.dumps({"kernels": [KERNEL]}))
    (tmp_path / "kernels.ptx").write_text("")
    monkeypatch.setattr(sys, "argv", ["run.py", str(tmp_path), "--dry-run"])
    try:
        gpu_run.main()
    except SystemExit as e:
        assert e.code == 2
    else:
        raise AssertionError("no exit")


def test_ubench_fake_run_and_compare(tmp_path):
    out = tmp_path / "ub"
    env = dict(os.environ, UBENCH_FAKE="1")
    subprocess.run([sys.executable, "-m", "tools.gpu.ubench.run", str(out)], cwd=ROOT, env=env,
                   check=True, capture_output=True)
    doc = json.loads((out / "ubench.json").read_text())
    rows = {r["name"]: r for r in doc["results"]}
    assert len(rows) == 122 and doc["device"]  # 61 forms (u39-u47 and the tensor cores u48-u54 added 2026-11-30)
    # The stand-in's clocks: warp w of a row ends 5000 + 100 w after the first start.
    assert rows["u0_lat"]["cycles"] == 5000
    assert rows["r52_tput"]["cycles"] == 5000 + 100 * (rows["r52_tput"]["warps"] - 1)
    simcli = tmp_path / "simcli"
    simcli.write_text("#!/bin/sh\necho 'cycles 2500'\n")
    simcli.chmod(0o755)
    cmp = tmp_path / "cmp.json"
    subprocess.run([sys.executable, "-m", "tools.gpu.ubench.compare", str(out / "ubench.json"),
                    "--simcli", str(simcli), "--json", str(cmp)], cwd=ROOT, check=True, capture_output=True)
    got = {r["name"]: r for r in json.loads(cmp.read_text())["rows"]}
    assert got["u0_lat"]["simulated"] == 2500 and got["u0_lat"]["sim_over_measured"] == 0.5
