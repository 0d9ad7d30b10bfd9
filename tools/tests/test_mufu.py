"""tools/mufu: the device scripts need cupy and a GPU, so their pure-numpy parts live
in streams.py and are checked here: run 2's input generator gives the inputs of the
committed held-out vectors (made from that run's stored inputs and outputs), run 1's
is splitmix64, and build_tables.py's decode inverts the encoding of a whole-domain
dump (that is how the MUFU tables were made)."""
import json
import os

import pytest

np = pytest.importorskip("numpy")

from tools.mufu import streams  # noqa: E402
from tools.tests.helpers import ROOT  # noqa: E402


def test_run2_inputs_are_the_held_out_vectors():
    """sim-isa/tests/data/h100-mufu-heldout.jsonl is `vectors.py run2 200`: the first 200
    stored inputs of each form of the H100's run 2, which run2_inputs draws again."""
    want = {}
    with open(os.path.join(ROOT, "sim-isa/tests/data/h100-mufu-heldout.jsonl")) as f:
        for line in f:
            if not line.startswith("#"):
                v = json.loads(line)
                form = v["ptx"].split(" ")[0]
                want.setdefault(form, []).append((int(v["in"]["%a"], 16), int(v["in"].get("%b", "0x0"), 16)))
    ins = streams.run2_inputs()
    assert sorted(want) == sorted(streams.FORMS)
    for form, pairs in want.items():
        a, b = ins[form]
        assert len(pairs) == 200 and a.dtype == np.uint32
        assert [p[0] for p in pairs] == a[:200].tolist(), form
        assert (b is None) == (form[0] != "d")
        if b is not None:
            assert [p[1] for p in pairs] == b[:200].tolist(), form


def test_run1_inputs_are_splitmix64():
    # splitmix64 of 0: the reference value of Vigna's generator.
    assert int(streams.splitmix64(np.zeros(1, np.uint64))[0]) == 0xE220A8397B1DCDAF
    ins = streams.run1_inputs()
    a, b = ins["div.full.f32"]
    assert a.shape == b.shape == (1 << 17,) and ins["rcp.approx.f32"][1] is None
    # Every one of the eight kinds of input turns up: specials and boundary exponents.
    x = ins["rcp.approx.f32"][0]
    assert np.isin(streams.SPECIAL, x & np.uint32(0x7FFFFFFF)).sum() >= 20
    assert np.isin(streams.BOUNDARY_EXPONENTS, (x >> np.uint32(23)) & np.uint32(255)).all()


def test_build_tables_decodes_the_encoding():
    from tools.mufu import build_tables

    x = np.arange(0x3F800000, 0x3F800000 + 4096, dtype=np.uint32)
    y = build_tables.rn32(1 / build_tables.f64(x)).astype(np.uint32) ^ (x & np.uint32(3))
    assert np.array_equal(build_tables.decode(streams.encode(y)), y)
    ref = build_tables.rn32(1 / build_tables.f64(x))
    assert np.array_equal(build_tables.decode(streams.encode(y, ref), ref), y)
