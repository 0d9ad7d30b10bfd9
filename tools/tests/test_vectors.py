"""Conformance-vector generators against the vectors they made for the H200 runs
(sim-isa/tests/data): same instructions, same inputs (the `out` values
there are the GPU's; here they are placeholders)."""
import gzip
import json
import os
import subprocess
import sys

import pytest

from tools.gpu.domain import ex2_vectors, tanh_vectors
from tools.tests.helpers import ROOT


def vectors(path):
    with gzip.open(path, "rt") if path.endswith(".gz") else open(path) as f:
        return [json.loads(l) for l in f if l.strip() and not l.startswith("#")]


def generated(tmp_path, module, *args):
    out = tmp_path / "v.jsonl"
    subprocess.run([sys.executable, "-m", module, str(out), *args], cwd=ROOT, check=True,
                   capture_output=True)
    return vectors(str(out))


def same_inputs(mine, gpu):
    """The same (instruction, inputs) vectors; the GPU run writes them grouped by
    kernel, so the order is not compared."""
    def key(v):
        return json.dumps([v["ptx"], v["in"]], sort_keys=True)

    assert sorted(map(key, mine)) == sorted(map(key, gpu))


def test_ftz_edges(tmp_path):
    mine = generated(tmp_path, "tools.gpu.ftz_edges", "--count", "300", "--seed", "7")
    assert len(mine) == 2400
    same_inputs(mine, vectors(os.path.join(ROOT, "sim-isa/tests/data/h200-ftz-edges.jsonl.gz")))


def test_more_vectors(tmp_path):
    mine = generated(tmp_path, "tools.gpu.more_vectors", "--count", "500", "--seed", "11")
    assert len(mine) == 3000
    same_inputs(mine, vectors(os.path.join(ROOT, "sim-isa/tests/data/h200-more-forms.jsonl.gz")))


@pytest.mark.parametrize("script, committed", [
    (ex2_vectors, "h200-ex2-half.jsonl.gz"),
    (tanh_vectors, "h200-tanh-half.jsonl.gz"),
])
def test_table_vectors_rewrite_the_committed_files(tmp_path, monkeypatch, script, committed):
    out = tmp_path / committed
    monkeypatch.setattr(script, "OUT", str(out))
    script.main()
    # The gzip header names the file; the content is compared.
    with gzip.open(out, "rb") as a, gzip.open(os.path.join(ROOT, "sim-isa/tests/data", committed)) as b:
        assert a.read() == b.read()
