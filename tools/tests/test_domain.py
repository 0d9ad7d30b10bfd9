"""tools/gpu/domain: the forms list and kernel generator (gen.py), run.py's GPU path
with a stand-in driver (no GPU), and its --fake files read back by run.records."""
import ctypes
import json
import struct
import sys

import pytest

from tools.gpu.domain import gen, run


def test_forms_and_kinds():
    forms = gen.load_forms()
    assert len(forms) == 182
    assert forms[:3] == [(0, "add.u16 %h5, %h1, %h2;"), (1, "not.b16 %h5, %h1;"), (2, "not.b32 %r5, %r1;")]
    assert gen.kind_of("not.b16 %h5, %h1;") == ("one16", 16)
    assert gen.kind_of("setp.lt.f16 %p5, %h1, %h2;") == ("two16", 1)
    assert gen.kind_of("cvt.rn.f16.f32 %h5, %r1;") == ("one32", 16)
    assert gen.kind_of("mov.b32 %r5, 1;") is None
    assert gen.kernel(0, "mov.b32 %r5, 1;") is None


def test_kernel_runs_the_form_over_its_domain():
    k = gen.kernel(0, "add.u16 %h5, %h1, %h2;")
    assert k.startswith(".visible .entry k0(.param .u64 pout) {")
    assert "\n add.u16 %h5, %h1, %h2;\n" in k
    assert "mul.lo.u32 %t4, %t4, 0x85ebca6b;" in k  # the checksum's fmix32
    text, table = gen.module([(0, "add.u16 %h5, %h1, %h2;"), (1, "mov.b32 %r5, 1;")])
    assert text == gen.HEADER + k
    assert table == [(0, "add.u16 %h5, %h1, %h2;", "two16", 16, k)]


def test_fmix32_is_murmur3s_finaliser():
    assert run.fmix32(0) == 0
    assert run.fmix32(1) == 0x514E28B7


def test_fake_files_read_back(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["run.py", str(tmp_path), "--fake", "--only", "1,2"])
    assert run.main() == 0
    doc = json.loads((tmp_path / "domain.json").read_text())
    assert doc["source"] == "fake"
    recs = list(run.records(str(tmp_path / doc["files"][0])))
    assert [(r[0], r[1]) for r in recs] == [(1, "not.b16 %h5, %h1;"), (2, "not.b32 %r5, %r1;")]
    one16 = recs[0][5]
    assert struct.unpack_from("<3H", one16) == (0, 1, 2) and len(one16) == 2 * 65536


def test_records_refuses_other_files(tmp_path):
    p = tmp_path / "x.bin"
    p.write_bytes(b"NOTDOM1\0")
    with pytest.raises(SystemExit):
        list(run.records(str(p)))


def test_gpu_path_with_a_stand_in_driver(tmp_path, monkeypatch):
    """Every driver call succeeds but the whole-module JIT fails once and the
    third launch fails with 700: the per-kernel JIT fallback runs, the failed
    form is reported and skipped with a fresh context, the others are written."""
    calls = {"load": 0, "launch": 0, "ctx": 0}

    class Lib:
        def __getattr__(self, name):
            def f(*_):
                if name == "cuModuleLoadData":
                    calls["load"] += 1
                    return 218 if calls["load"] == 1 else 0
                if name == "cuLaunchKernel":
                    calls["launch"] += 1
                    return 700 if calls["launch"] == 3 else 0
                if name == "cuCtxCreate_v2":
                    calls["ctx"] += 1
                return 0
            return f

    base = run.cuda_class()

    class Fake(base):
        def __init__(self):
            self.lib, self.dev, self.ctx = Lib(), ctypes.c_int(0), ctypes.c_void_p()

        def info(self):
            return {"gpu": "mock", "sm": "sm_90", "driver": "mock", "cuda": "mock"}

    monkeypatch.setattr(run, "cuda_class", lambda: Fake)
    monkeypatch.setattr(sys, "argv", ["run.py", str(tmp_path), "--only", "0,1,2,76,140"])
    assert run.main() == 1
    doc = json.loads((tmp_path / "domain.json").read_text())
    status = {f["index"]: f["status"] for f in doc["forms"]}
    assert status[2].startswith("failed: cuLaunchKernel failed: 700"), status
    assert all(status[i] == "ok" for i in (0, 1, 76, 140)), status
    assert calls["ctx"] == 1
    # The failed module, 5 kernels alone, then the module again in the new context.
    assert calls["load"] == 7
    assert doc["files"] == ["domain-0.bin"]
