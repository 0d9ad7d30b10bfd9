"""The PTX and launch-file generators: tools/gpu/ubench/gen.py (against its committed
ubench.ptx and manifest.json), tools/gpu/make_mixed.py (against the loops measured on
the H100 in sim-kernel/tests/data/h100-mixed), tools/gpu/make_extra.py's launch files."""
import json
import os
import random
import subprocess
import sys

from tools.gpu import make_extra, make_mixed
from tools.gpu.ubench import gen as ubench_gen
from tools.tests.helpers import ROOT

UBENCH = os.path.join(ROOT, "tools/gpu/ubench")
MIXED = os.path.join(ROOT, "sim-kernel/tests/data/h100-mixed")


def test_ubench_kernels_are_the_committed_module():
    with open(os.path.join(UBENCH, "ubench.ptx")) as f:
        ptx = f.read()
    with open(os.path.join(UBENCH, "manifest.json")) as f:
        rows = json.load(f)["rows"]
    assert len(rows) > 40
    for row in rows:
        text = ubench_gen.kernel(row["kernel"], row["chains_per_thread"], row["ptx_body"])
        assert text in ptx, row["name"]
        assert row["ptx_instructions_per_chain"] == len(row["ptx_body"]) * ubench_gen.COPIES * ubench_gen.ITER


def test_ubench_input_bytes():
    data = ubench_gen.input_bytes()
    assert len(data) == 48
    assert data[:4] == bytes([1, 2, 3, 0])


def test_make_mixed_reproduces_the_measured_loops(tmp_path):
    subprocess.run([sys.executable, "-m", "tools.gpu.make_mixed", str(tmp_path)], cwd=ROOT, check=True)
    for name in ("mixed.ptx", "mixed.in.bin", "mixed-forms.json"):
        with open(tmp_path / name, "rb") as a, open(os.path.join(MIXED, name), "rb") as b:
            assert a.read() == b.read(), name
    for k in range(10):
        name = f"mix{k}_{'lat' if k % 2 == 0 else 'tput'}.json"
        with open(os.path.join(MIXED, name)) as f:
            measured = json.load(f)
        measured.pop("h100")  # the H100's results and bytes, added by launch.py
        measured.pop("expected")
        assert json.loads((tmp_path / name).read_text()) == measured, name


def test_make_mixed_body_interleaves_chains():
    lines = make_mixed.body(random.Random(1), ["add+xor"], 2)
    assert len(lines) == 128
    assert lines[:4] == ["  add.u32 %x0, %x0, %y;", "  add.u32 %x1, %x1, %y;",
                         "  xor.b32 %x0, %x0, %z;", "  xor.b32 %x1, %x1, %z;"]


def test_make_extra_launch_file(tmp_path):
    make_extra.launch(str(tmp_path), "t", "k", [2, 1, 1], [64, 1, 1],
                      {"a": (8, b"12345678"), "b": (16, None), "c": (4, 7)},
                      [{"buffer": "a"}, {"buffer": "b"}], ["b"], make_extra.warps([2, 1, 1], [64, 1, 1]))
    doc = json.loads((tmp_path / "t.json").read_text())
    assert doc["buffers"] == {"a": {"bytes": 8, "file": "t.a.bin"}, "b": {"bytes": 16, "fill": 0},
                              "c": {"bytes": 4, "fill": 7}, "clk": {"bytes": 64, "fill": 0}}
    assert doc["params"][-1] == {"buffer": "clk"}
    assert (tmp_path / "t.a.bin").read_bytes() == b"12345678"
    assert make_extra.warps([2, 1, 1], [33, 1, 1]) == 4
