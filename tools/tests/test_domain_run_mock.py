#!/usr/bin/env python3
"""run.py's GPU path without a GPU: a stand-in driver (every call succeeds,
the whole-module JIT fails once, the third launch fails with 700). Checks
the per-kernel JIT fallback, that a failed form is reported and skipped
with a fresh context, and that the others are written.

    python3 -m tools.gpu.domain.test_run_mock
"""

import ctypes
import importlib.util
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    out = tempfile.mkdtemp(prefix="domain-mock-")
    spec = importlib.util.spec_from_file_location("domain_run", os.path.join(HERE, "run.py"))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
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

    base = m.cuda_class()

    class Fake(base):
        def __init__(self):
            self.lib, self.dev, self.ctx = Lib(), ctypes.c_int(0), ctypes.c_void_p()

        def info(self):
            return {"gpu": "mock", "sm": "sm_90", "driver": "mock", "cuda": "mock"}

    m.cuda_class = lambda: Fake
    sys.argv = ["run.py", out, "--only", "0,1,2,76,140"]
    rc = m.main()
    doc = json.load(open(os.path.join(out, "domain.json")))
    status = {f["index"]: f["status"] for f in doc["forms"]}
    assert rc == 1, rc
    assert status[2].startswith("failed: cuLaunchKernel failed: 700"), status
    assert all(status[i] == "ok" for i in (0, 1, 76, 140)), status
    assert calls["ctx"] == 1, calls
    # The failed module, 5 kernels alone, then the module again in the new context.
    assert calls["load"] == 7, calls
    assert doc["files"] == ["domain-0.bin"], doc["files"]
    print("ok:", status)


if __name__ == "__main__":
    main()
