"""tools/gpu/slowpath: the fast-path rules against the H200's measurements
(sim-core/data/calibration/h200/slowpath/), and the probe's inputs."""
import gzip
import json
import os
import struct

from tools.gpu.slowpath import rules, run
from tools.tests.helpers import ROOT

DATA = os.path.join(ROOT, "sim-core/data/calibration/h200/slowpath")
# A set's warp took the fast path when its cycles are at most this (fast: 60 in every
# set; the slow path's cheapest case 144).
FAST = 100


def test_fchk_rule_is_the_measured_map():
    with gzip.open(os.path.join(DATA, "div_map.bin.gz")) as f:
        raw = f.read()
    cycles = struct.unpack(f"<{len(raw) // 2}H", raw)
    sets = run.div_map_sets()
    assert len(cycles) == len(sets) == 262_144
    wrong = [(a, b) for (a, b), c in zip(sets, cycles) if rules.div_rn_f32_slow(a, b) != (c > FAST)]
    assert wrong == []
    assert sum(c <= FAST for c in cycles) == 176_984


def test_fchk_rule_ignores_the_signs():
    with gzip.open(os.path.join(DATA, "slowpath-more.json.gz"), "rt") as f:
        signs = json.load(f)["div_sign"]
    assert len(signs) > 10_000
    for key, c in signs.items():
        a, b = (int(x, 16) for x in key.split("/"))
        assert rules.div_rn_f32_slow(a, b) == (c > FAST), key


def test_sqrt_rule_is_the_measured_map():
    with open(os.path.join(DATA, "slowpath.json")) as f:
        cycles = json.load(f)["sqrt_map"]["cycles"]
    assert len(cycles) == 1024
    for x, c in cycles.items():
        assert rules.sqrt_rn_f32_slow(int(x, 16)) == (c > FAST), x


def test_the_probe_inputs():
    sets = run.sqrt_map_sets()
    assert len(sets) == 1024 and len(set(sets)) == 1024
    lanes = run.pack_lanes(run.DIV_SLOW, run.DIV_FAST)
    assert len(lanes) == len(run.KS) * run.REPS * run.LANES * 8
    # k = 1: lane 0 slow, lanes 1-31 ordinary.
    one = lanes[run.REPS * run.LANES * 8:][:run.LANES * 8]
    assert struct.unpack("<II", one[:8]) == run.DIV_SLOW
    assert struct.unpack("<II", one[8:16]) == run.DIV_FAST
    assert rules.div_rn_f32_slow(*run.DIV_SLOW) and not rules.div_rn_f32_slow(*run.DIV_FAST)
    assert rules.sqrt_rn_f32_slow(run.SQRT_SLOW[0]) and not rules.sqrt_rn_f32_slow(run.SQRT_FAST[0])
