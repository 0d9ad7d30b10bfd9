"""The int_math / float_math probes prepared for a GPU (2026-11-30): the launch files of
tools/gpu/make_probes.py with their module's clock reads, and the ubench rows u39-u47
(the opcodes of ptxas's division and square root) with their machine code."""
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys

import pytest

from tools.gpu import make_probes
from tools.gpu.ubench import gen as ubench_gen
from tools.tests.helpers import ROOT

PROBES = os.path.join(ROOT, "tools/gpu/probes")
EXTRA = os.path.join(ROOT, "sim-kernel/tests/data/h100-extra")
UBENCH = os.path.join(ROOT, "tools/gpu/ubench")


def launch_doc(name):
    with open(os.path.join(PROBES, f"{name}.json")) as f:
        return json.load(f)


def read(*parts):
    with open(os.path.join(*parts), "rb") as f:
        return f.read()


def entry(ptx, name):
    """The body of .entry name, as lines."""
    i = ptx.index(f".entry {name}(")
    return ptx[i:ptx.index("\n}\n", i)].splitlines()


def test_every_launch_file_is_complete():
    names = sorted(f[:-5] for f in os.listdir(PROBES) if f.endswith(".json"))
    assert names == ["float_math.plain", "float_math_split.plain", "float_math_split.t", "int_math_split.t",
                     "store_stride.s16", "store_stride.s24", "store_stride.s32", "store_stride.s4",
                     "store_stride.s8"]
    for n in names:
        doc = launch_doc(n)
        assert doc["ptx"] == "probes.ptx" and doc["grid"] == [1, 1, 1] and doc["block"] == [256, 1, 1], n
        assert doc["params"][-1] == {"buffer": "clk"} and doc["buffers"]["clk"] == {"bytes": 128, "fill": 0}, n
        if n != "float_math.plain":  # the unsplit kernel has no `ph`
            assert doc["params"][-2] == {"buffer": "ph"} and "ph" in doc["outputs"], n
            assert doc["buffers"]["ph"] == {"bytes": 256, "fill": 0}, n
        for b in doc["buffers"].values():
            if "file" in b:
                assert len(read(PROBES, b["file"])) == b["bytes"], (n, b)
        for o, fn in doc.get("expected", {}).items():
            assert len(read(PROBES, fn)) == doc["buffers"][o]["bytes"], (n, o)


def test_split_launches_run_the_measured_inputs_and_expect_the_h100_outputs():
    for split, orig in (("int_math_split.t", "int_math.t"), ("float_math_split.t", "float_math.t")):
        doc = launch_doc(split)
        with open(os.path.join(EXTRA, f"{orig}.json")) as f:
            measured = json.load(f)
        for b, spec in measured["buffers"].items():
            if "file" in spec:
                assert read(PROBES, doc["buffers"][b]["file"]) == read(EXTRA, spec["file"]), (split, b)
        for o, fn in measured["expected"].items():
            assert read(PROBES, doc["expected"][o]) == read(EXTRA, fn), (split, o)


def test_plain_inputs_avoid_the_slow_paths_that_float_math_t_takes():
    def vals(path):
        data = read(path)
        return struct.unpack(f"<{len(data) // 4}f", data)

    doc = launch_doc("float_math.plain")
    assert doc["entry"] == "float_math"
    for b in ("a", "b"):
        v = vals(os.path.join(PROBES, doc["buffers"][b]["file"]))
        assert len(v) == 256 and all(1e-3 <= abs(x) <= 1e5 for x in v), b
    assert launch_doc("float_math_split.plain")["buffers"]["a"]["file"] == "float_math_split.plain.a.bin"
    assert read(PROBES, "float_math_split.plain.a.bin") == read(PROBES, "float_math.plain.a.bin")
    # The measured inputs hold what sends lanes down the slow paths (docs/validation.md).
    measured = vals(os.path.join(EXTRA, "float_math.t.a.bin")) + vals(os.path.join(EXTRA, "float_math.t.b.bin"))
    assert 0.0 in measured
    assert any(0 < abs(x) < 1.2e-38 for x in measured)
    assert any(abs(x) > 1e38 and math.isfinite(x) for x in measured)


def test_probe_module_holds_the_clock_reads_in_order():
    with open(os.path.join(PROBES, "probes.ptx")) as f:
        ptx = f.read()
    # The unsplit float_math is the one measured on the H100 (float_math.plain runs it).
    with open(os.path.join(EXTRA, "extra.ptx")) as f:
        assert entry(ptx, "float_math") == entry(f.read(), "float_math")
    for name, guards in (("int_math_split", 2), ("float_math_split", 2), ("store_stride", 1)):
        body = entry(ptx, name)
        clocks = [k for k, l in enumerate(body) if "%clock64" in l]
        guard = [k for k, l in enumerate(body) if re.search(r"setp\.ne\.u32\s+p,", l)]
        loads = [k for k, l in enumerate(body) if "ld.global" in l]
        stores = [k for k, l in enumerate(body) if "st.global" in l]
        assert len(guard) == guards and len(clocks) == 2 + 2 * guards, name
        assert clocks[0] < min(loads + stores), name  # start
        for g in guard:  # both arms of each guarded read right after its setp
            assert "@p mov.u64" in body[g + 1] and "@!p mov.u64" in body[g + 2], name
        if loads:
            assert max(loads) < guard[0], name  # loads in before the second read
        # The last read follows the kernel's own stores; only clk and ph are written after it.
        assert sum(1 for k in stores if k > clocks[-1]) == 6, name
        assert max(k for k in stores if k < clocks[-1]) > guard[-1], name


def test_store_stride_expected_bytes():
    for s in make_probes.STRIDES:
        doc = launch_doc(f"store_stride.s{s}")
        assert doc["params"][1] == {"s32": s // 4}
        data = read(PROBES, doc["expected"]["out"])
        assert len(data) == 8 * 256 * s == doc["buffers"]["out"]["bytes"]
        assert data == make_probes.stride_expected(s)
    d = make_probes.stride_expected(24)
    # thread 3's 6th store (k = 5): region 5 starts at 5 * 256 * 24 bytes, thread 3 at 72
    assert struct.unpack_from("<i", d, 5 * 256 * 24 + 3 * 24)[0] == 3 * 8 + 1 + 5
    assert struct.unpack_from("<i", d, 5 * 256 * 24 + 3 * 24 + 4)[0] == 0


def test_phases_split_the_window():
    ph = struct.pack("<4q", 100, 600, 1500, 1800) + struct.pack("<4q", 104, 640, 1400, 1900) + bytes(32 * 6)
    p = make_probes.phases(ph)
    assert p["window"] == 1800
    assert (p["loads"], p["arithmetic"], p["stores"]) == (540, 860, 400)
    assert p["per_warp"] == [[500, 900, 300], [536, 760, 500]]
    assert make_probes.phases(bytes(64)) is None


def test_phases_of_a_run_that_kept_nothing(tmp_path, capsys):
    assert make_probes.print_phases(str(tmp_path)) == 1
    assert "no *.ph.bin" in capsys.readouterr().err
    (tmp_path / "outputs").mkdir()
    (tmp_path / "outputs" / "store_stride.s4.ph.bin").write_bytes(struct.pack("<4q", 10, 20, 20, 95) + bytes(224))
    assert make_probes.print_phases(str(tmp_path)) == 0
    assert capsys.readouterr().out.startswith('store_stride.s4 {"window": 85, "loads": 10, "arithmetic": 0, "stores": 75')


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc 13.0.88 not on PATH")
def test_make_probes_reproduces_the_committed_files(tmp_path):
    subprocess.run([sys.executable, "-m", "tools.gpu.make_probes", str(tmp_path)], cwd=ROOT, check=True)
    assert sorted(os.listdir(tmp_path)) == sorted(os.listdir(PROBES))
    for fn in os.listdir(PROBES):
        assert read(tmp_path, fn) == read(PROBES, fn), fn


# The rows added for the division's opcodes and the machine opcode each isolates, per
# chain and loop iteration (64 body copies).
DIVISION_ROWS = {"u39": "MUFU.RCP", "u40": "MUFU.RSQ", "u41": "MUFU.RCP64H", "u42": "I2F.U32.RP",
                 "u43": "F2I.FTZ.U32.TRUNC.NTZ", "u44": "IMAD.HI.U32", "u45": "IMAD.WIDE.U32",
                 "u46": "FCHK", "u47": "I2F.U32.RP"}


def test_division_rows_hold_their_opcode():
    with open(os.path.join(UBENCH, "manifest.json")) as f:
        rows = {r["name"]: r for r in json.load(f)["rows"]}
    for name, op in DIVISION_ROWS.items():
        for mode, chains in (("lat", 1), ("tput", 4)):
            r = rows[f"{name}_{mode}"]
            assert r["chains_per_thread"] == chains
            assert r["sass_opcodes_per_loop_iteration"][op] == 64 * chains, r["name"]
    # the whole u32 division: each of its XU opcodes once per body copy
    h = rows["u47_lat"]["sass_opcodes_per_loop_iteration"]
    assert (h["MUFU.RCP"], h["F2I.FTZ.U32.TRUNC.NTZ"], h["IMAD.HI.U32"]) == (64, 64, 128)
    # the f32 division's fast path: FCHK and its reciprocal once each, no MUFU elsewhere
    h = rows["u46_lat"]["sass_opcodes_per_loop_iteration"]
    assert (h["MUFU.RCP"], h["FFMA"]) == (64, 320)
    # u45's high half is live, so it stays a wide multiply (b53's became IMAD)
    assert "IMAD" not in rows["u45_lat"]["sass_opcodes_per_loop_iteration"]


@pytest.mark.skipif(not (os.path.exists(ubench_gen.NVDISASM) and os.environ.get("SASS_LISTING_XTASK")),
                    reason="needs nvdisasm 13 ($NVDISASM) and a built xtask ($SASS_LISTING_XTASK)")
def test_division_rows_machine_code_is_the_committed_cubin():
    hists = ubench_gen.loop_histograms(os.path.join(UBENCH, "ubench.cubin"))
    with open(os.path.join(UBENCH, "manifest.json")) as f:
        rows = {r["name"]: r for r in json.load(f)["rows"]}
    for name in DIVISION_ROWS:
        for mode in ("lat", "tput"):
            k = f"{name}_{mode}"
            assert hists[k] == rows[k]["sass_opcodes_per_loop_iteration"], k
