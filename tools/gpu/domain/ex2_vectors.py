#!/usr/bin/env python3
"""Conformance vectors of `ex2.approx.f16` and `ex2.approx.ftz.bf16` read
from an H200's whole tables (the extract `xtask/tests/data/domain-h200-approx.bin`
of tools/gpu/device_run_edges.sh's run, README.md here).

Writes sim-isa/tests/data/h200-ex2-half.jsonl.gz: for each form, every
`STRIDE`-th source (0, STRIDE, ...), the sources whose result rounded to
nearest would differ from the truncated one the GPU gives (the first
`EDGES` of them), and the special sources (zeros, subnormal edges, one,
the largest finite, infinities, NaNs, the overflow and underflow edges).

    python3 -m tools.gpu.domain.ex2_vectors
"""

import gzip
import json
import os
import struct
import sys

from tools.gpu.domain.run import records

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.."))
SRC = os.path.join(ROOT, "xtask/tests/data/domain-h200-approx.bin")
OUT = os.path.join(ROOT, "sim-isa/tests/data/h200-ex2-half.jsonl.gz")
STRIDE = 64
EDGES = 200
FORMS = {"ex2.approx.f16 %h5, %h1;": False, "ex2.approx.ftz.bf16 %h5, %h1;": True}
SPECIAL = [0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x7bff, 0xfbff,
           0x7c00, 0xfc00, 0x7c01, 0x7e00, 0x7fff, 0xffff, 0x4bff, 0x4c00, 0xcbff, 0xcc00,
           0x007f, 0x0080, 0x3f80, 0xbf80, 0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fc0, 0x42ff,
           0x4300, 0xc300, 0xc301, 0xcf00, 0xcf80]


def value(h, bf16):
    """The 16-bit value's exact value (None for NaN)."""
    if bf16:
        (v,) = struct.unpack("<f", struct.pack("<I", h << 16))
    else:
        (v,) = struct.unpack("<e", struct.pack("<H", h))
    return None if v != v else v


def nearest_differs(a, r, bf16):
    """Whether 2^a rounded to nearest would not be the truncated r (only
    where 2^a is finite and r a positive normal or subnormal)."""
    x = value(a, bf16)
    y = value(r, bf16)
    if x is None or y is None or y <= 0 or y == float("inf") or x > 100 or x < -140:
        return False
    up = value(r + 1, bf16)
    return up is not None and 2.0 ** x - y > (up - y) / 2


def main():
    if {"-h", "--help"} & set(sys.argv[1:]):  # the usage, not a run
        print(__doc__)
        return 0
    lines = [
        "# ex2.approx.f16 and ex2.approx.ftz.bf16 on an NVIDIA H200 (driver 580.159.04, CUDA 13.0 "
        "driver JIT, sm_90, 2026-11-28): values read from the GPU's whole 65,536-entry tables "
        "(xtask/tests/data/domain-h200-approx.bin), written by tools/gpu/domain/ex2_vectors.py."
    ]
    n = 0
    for _, text, kind, elem, count, raw in records(SRC):
        if text not in FORMS:
            continue
        assert kind == 0 and elem == 2 and count == 65536
        bf16 = FORMS[text]
        table = struct.unpack(f"<{count}H", raw)
        picks = set(range(0, count, STRIDE)) | set(SPECIAL)
        edges = [a for a in range(count) if nearest_differs(a, table[a], bf16)]
        picks |= set(edges[:EDGES])
        for a in sorted(picks):
            v = {"arch": "sm_90", "ptx": text, "in": {"%h1": hex(a), "%h5": "0x0"},
                 "out": {"%h5": hex(table[a])}, "source": "h200"}
            lines.append(json.dumps(v, separators=(",", ":")))
            n += 1
    with gzip.GzipFile(OUT, "wb", mtime=0) as f:
        f.write(("\n".join(lines) + "\n").encode())
    print(f"wrote {OUT}: {n} vectors")


if __name__ == "__main__":
    main()
