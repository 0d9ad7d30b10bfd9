"""tools/lowering/derive.py: its kernels, the nvdisasm listing reader and dataflow depth
(sm_90), and the ELF .text reader and word counting (sm_35), on real samples (ptxas
11.8.89 and nvdisasm 13.5: data/*.sm_90.sass, data/*.sm_35.cubin). Expected: the
committed sim-core/data/lowering.tsv, which this script wrote."""
import os

import pytest

from tools.lowering import derive
from tools.tests.helpers import DATA, ROOT, data, needs_reader

KEYS = ("alu.mad.lo.u32", "alu.div.s64")


def variant(key):
    return {v[0]: v for v in derive.int_variants()}[key]


def table():
    rows = {}
    with open(os.path.join(ROOT, "sim-core/data/lowering.tsv")) as f:
        for line in f:
            if not line.startswith("#"):
                arch, key, uops, steps, _ = line.rstrip("\n").split("\t")
                rows[(arch, key)] = (int(uops), int(steps))
    return rows


@pytest.mark.parametrize("key", KEYS)
def test_kernels_are_the_samples(key):
    _, ins, body, out, _ = variant(key)
    assert derive.kernel("sm_35", ins, body, out) == data(f"{key}.sm_35.ptx")
    assert derive.kernel("sm_35", [("%r1", "b32")], "", ("%r1", "b32")) == data("reference.sm_35.ptx")


@pytest.mark.parametrize("key", KEYS)
@needs_reader()
def test_sm90_counts_and_depth(key):
    """measure()'s sm_90 arithmetic on the parsed listings."""
    ref = derive.parse_sass(data("reference.sm_90.sass"))[0]
    kept, inlined = derive.parse_sass(data(f"{key}.sm_90.sass"))
    helper = variant(key)[4]
    n = len([i for i in kept if not i.startswith("LDG")]) - len([i for i in ref if not i.startswith("LDG")]) - helper
    d = min(max(derive.depth_of_store(inlined), 1), max(n, 1))
    assert (max(n, 1), d) == table()[("sm_90", key)]


@needs_reader()
def test_calls_are_inlined_for_the_depth():
    kept, inlined = derive.parse_sass(data("alu.div.s64.sm_90.sass"))
    assert any(i.startswith("CALL") for i in kept)
    assert not any(i.startswith("CALL") for i in inlined)
    assert len(inlined) > len(kept)


def test_sm35_text_words():
    def words(name):
        with open(os.path.join(DATA, f"{name}.sm_35.cubin"), "rb") as f:
            return derive.words("sm_35", derive.text_section(f.read()))

    ws = {k: words(k) for k in KEYS + ("reference",)}
    # Kepler: one control word in eight removed.
    assert [len(w) for w in ws.values()] == [14, 91, 7]
    counts = {}
    for w in ws.values():
        for x in w:
            counts[x] = counts.get(x, 0) + 1
    nop = max(counts, key=counts.get)

    def ops(w):
        return sum(1 for x in w if x != nop and not derive.is_load("sm_35", x))

    for key in KEYS:
        assert ops(ws[key]) - ops(ws["reference"]) == table()[("sm_35", key)][0]


def test_text_section_refuses_an_elf_without_text():
    with open(os.path.join(DATA, "reference.sm_35.cubin"), "rb") as f:
        elf = bytearray(f.read())
    elf[:] = elf.replace(b".text.", b".junk.")
    with pytest.raises(ValueError):
        derive.text_section(bytes(elf))


def test_ptx_version_needs():
    assert derive.needs_ptx80("add.u16x2 %r1, %r2, %r3;")
    assert derive.needs_ptx80("max.relu.s32 %r1, %r2, %r3;")
    assert not derive.needs_ptx80("add.s32 %r1, %r2, %r3;")
    assert not derive.needs_ptx80("max.relu.f16x2 %r1, %r2, %r3;")
    assert derive.needs_ptx81("cvt.rn.satfinite.e4m3x2.f32 %h1, %f1, %f2;")
