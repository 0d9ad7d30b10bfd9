"""tools/mufu: the device scripts need cupy and a GPU, so their pure-numpy parts are
taken from probe.py's source here: vectors.py's replay of probe.py's inputs must
equal probe.py's generator, and build_tables.py's decode must invert probe.py's
encoding of a whole-domain dump (that is how the MUFU tables were made)."""
import ast
import lzma
import os

import pytest

np = pytest.importorskip("numpy")

from tools.tests.helpers import ROOT  # noqa: E402

PROBE_NAMES = {"U", "I", "SPECIAL", "BOUNDARY_EXPONENTS", "splitmix64", "random_inputs", "encode"}


@pytest.fixture(scope="module")
def probe():
    """probe.py's constants and pure functions, without its cupy import and GPU work."""
    with open(os.path.join(ROOT, "tools/mufu/probe.py")) as f:
        tree = ast.parse(f.read())
    keep = [n for n in tree.body
            if (isinstance(n, ast.FunctionDef) and n.name in PROBE_NAMES)
            or (isinstance(n, ast.Assign) and any(getattr(t, "id", None) in PROBE_NAMES for t in n.targets))]
    assert len(keep) == len(PROBE_NAMES)
    ns = {"np": np, "lzma": lzma}
    exec(compile(ast.Module(body=keep, type_ignores=[]), "probe.py", "exec"), ns)
    return ns


def test_vectors_replays_probes_inputs(probe):
    from tools.mufu import vectors

    replay = vectors.run1_inputs()
    for j, f in enumerate(vectors.FORMS):
        lo, hi = {"e": (100, 134), "s": (100, 136), "c": (100, 136)}.get(f[0], (64, 190))
        assert np.array_equal(replay[f][0], probe["random_inputs"](j, 1 << 17, 0, lo, hi)), f
    # splitmix64 of 0: the reference value of Vigna's generator.
    assert int(probe["splitmix64"](np.zeros(1, np.uint64))[0]) == 0xE220A8397B1DCDAF


def test_build_tables_decodes_probes_encoding(probe):
    from tools.mufu import build_tables

    x = np.arange(0x3F800000, 0x3F800000 + 4096, dtype=np.uint32)
    y = build_tables.rn32(1 / build_tables.f64(x)).astype(np.uint32) ^ (x & np.uint32(3))
    assert np.array_equal(build_tables.decode(probe["encode"](y)), y)
    ref = build_tables.rn32(1 / build_tables.f64(x))
    assert np.array_equal(build_tables.decode(probe["encode"](y, ref), ref), y)
