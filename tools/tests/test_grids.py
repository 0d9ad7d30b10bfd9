"""The ptxas grid generators (tools/ptxas_grid, tools/grids): the statements each
one sends to ptxas are exactly those of the verdict file it wrote and sim-isa's
tests read (sim-isa/tests/data/*-ptxas.txt), in order."""
import os

import pytest

from tools.grids import cvt_fp8, int_simd
from tools.ptxas_grid import (async_grid, carry_grid, envreg_grid, ex2_half_grid, families_grid, half_grid, mem_grid,
                              mma_grid, prefetch_grid, tanh_grid, verdict, warp_grid, wmma_grid)
from tools.tests.helpers import ROOT


def texts(name, columns):
    """The statement of each verdict line of a committed grid file (after `columns`
    verdict/target/version columns)."""
    out = []
    with open(os.path.join(ROOT, "sim-isa/tests/data", name)) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                out.append(line.rstrip("\n").split(" ", columns)[columns])
    return out


@pytest.mark.parametrize("module,name,columns", [
    (half_grid, "half-arith-ptxas.txt", 4),
    (ex2_half_grid, "ex2-half-ptxas.txt", 4),
    (tanh_grid, "tanh-ptxas.txt", 5),
    (carry_grid, "carry-ptxas.txt", 5),
])
def test_half_grids(module, name, columns):
    assert module.statements() == texts(name, columns)


@pytest.mark.parametrize("family", sorted(families_grid.FAMILIES))
def test_families_grid(family):
    assert families_grid.FAMILIES[family]() == texts(f"{family}-ptxas.txt", 7)


def test_warp_grid():
    lines = texts("warp-ptxas.txt", 1)
    gates = [l for l in lines if l.startswith(("sm_",))]
    assert warp_grid.grid() == lines[:len(lines) - len(gates)]
    assert [(t, v, s) for t, v, s in warp_grid.GATES] == [
        tuple(l.split(" ", 3)[i] for i in (0, 1)) + (l.split(" ", 3)[3],) for l in gates]


def test_mem_grid():
    """Every statement, in order: a verdict line, or a `# no answer` line where
    ptxas 13.0.88 crashed on it."""
    out = []
    with open(os.path.join(ROOT, "sim-isa/tests/data/mem-ptxas.txt")) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("# no answer"):
                out.append(line.split("): ", 1)[1])
            elif line and not line.startswith("#"):
                out.append(line.split(" ", 1)[1])
    assert mem_grid.grid() == out
    assert mem_grid.target_only("Feature 'x' requires .target sm_100 or higher")
    assert not mem_grid.target_only("Arguments mismatch for instruction 'ld'")


def test_int_simd_and_cvt_fp8_texts():
    assert set(int_simd.texts()) == set(texts("int-simd-ptxas.txt", 3))
    assert set(cvt_fp8.texts()) == set(texts("cvt-fp8-ptxas.txt", 3))


def test_grid_kernels_declare_what_the_text_uses():
    k = verdict.declared_kernel("sad.u64 %rd5, %rd1, %rd2, %rd3;", "sm_90", "8.0")
    assert k == (".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k() {\n"
                 "  .reg .b64 %rd1;\n  .reg .b64 %rd2;\n  .reg .b64 %rd3;\n  .reg .b64 %rd5;\n"
                 "  sad.u64 %rd5, %rd1, %rd2, %rd3;\n  ret;\n}\n")
    k = verdict.declared_kernel("cvt.rn.satfinite.e4m3x2.f32 %h5, %f1, %f2;", "sm_89", "8.1")
    assert "  .reg .b16 %h5;\n" in k and "  .reg .f32 %f1;\n" in k and ".target sm_89\n" in k


def head_of(name):
    """The leading `#` lines of a committed grid file."""
    with open(os.path.join(ROOT, "sim-isa/tests/data", name)) as f:
        lines = f.read().splitlines()
    return lines[:next(i for i, l in enumerate(lines) if not l.startswith("#"))]


@pytest.mark.parametrize("module,name", [(prefetch_grid, "prefetch-ptxas.txt"), (tanh_grid, "tanh-ptxas.txt")])
def test_four_target_heads(module, name):
    """The docstring with the shared format paragraph written in is the file's head."""
    head = verdict.doc_head(module.__doc__, 100)
    assert head[2] == "# one line per statement," and "{four_target_format}" not in "\n".join(head)
    assert head_of(name)[:len(head)] == head


@pytest.mark.parametrize("module,name", [(envreg_grid, "envreg-ptxas.txt"), (warp_grid, "warp-ptxas.txt"),
                                         (async_grid, "async-ptxas.txt")])
def test_gated_heads(module, name):
    assert head_of(name)[:len(module.HEAD)] == module.HEAD
    assert module.HEAD[-1] == "# checks the parser and check_target agree."


@pytest.mark.parametrize("module,name", [(mma_grid, "mma-ptxas.txt"), (wmma_grid, "wmma-ptxas.txt")])
def test_doc_paragraph_heads(module, name):
    """The head paragraph of the script's docstring is the whole of the file's head."""
    assert head_of(name) == verdict.doc_paragraph(module.__doc__, 2)
    assert head_of(name)[0].startswith("# ptxas 13.0.88 (-arch=sm_90, .version 9.0")


@pytest.mark.parametrize("module,name", [(mma_grid, "mma-ptxas.txt"), (wmma_grid, "wmma-ptxas.txt")])
def test_gated_grids_regenerate(module, name, tmp_path):
    """The script, its hand-written statements and gates read from lists/ and ptxas's
    verdicts taken from the committed file, writes that file again byte for byte."""
    path = os.path.join(ROOT, "sim-isa/tests/data", name)
    with open(path) as f:
        committed = f.read()
    answers, msg = {}, None
    for line in committed.splitlines():
        if line.startswith("# ptxas: "):
            msg = line[len("# ptxas: "):]
        elif line.startswith("gate "):
            _, t, v, ok, text = line.split(" ", 4)
            answers[(t, v, text)] = ("accept", None) if ok == "ok" else ("reject", msg)
        elif line and not line.startswith("#"):
            v, text = line.split(" ", 1)
            answers[("sm_90", "9.0", text)] = (v, msg if v != "accept" else None)
    out = tmp_path / name
    verdict.write_gated_grid(str(out), verdict.doc_paragraph(module.__doc__, 2),
                             lambda t, v, text: answers[(t, v, text)], module.grid(),
                             verdict.listed_gates(name.split("-")[0]))
    assert out.read_text() == committed
