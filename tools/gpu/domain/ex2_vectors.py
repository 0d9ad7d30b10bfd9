#!/usr/bin/env python3
"""Conformance vectors of `ex2.approx.f16` and `ex2.approx.ftz.bf16` read
from an H200's whole tables (the extract `xtask/tests/data/domain-h200-approx.bin`
of tools/gpu/device_run_edges.sh's run, README.md here).

Writes sim-isa/tests/data/h200-ex2-half.jsonl.gz (table_vectors.py): for
each form, every 64th source (0, 64, ...: table_vectors.STRIDE), the
sources whose result rounded to nearest would differ from the truncated one
the GPU gives (the first `EDGES` of them), and the special sources (zeros,
subnormal edges, one, the largest finite, infinities, NaNs, the overflow
and underflow edges).

    python3 -m tools.gpu.domain.ex2_vectors
"""

import os
import struct

from tools.cli import usage_asked
from tools.gpu.domain.table_vectors import ROOT, write

OUT = os.path.join(ROOT, "sim-isa/tests/data/h200-ex2-half.jsonl.gz")
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
    if usage_asked(__doc__):
        return 0
    header = (
        "# ex2.approx.f16 and ex2.approx.ftz.bf16 on an NVIDIA H200 (driver 580.159.04, CUDA 13.0 "
        "driver JIT, sm_90, 2026-11-28): values read from the GPU's whole 65,536-entry tables "
        "(xtask/tests/data/domain-h200-approx.bin), written by tools/gpu/domain/ex2_vectors.py."
    )
    write(OUT, header, FORMS, SPECIAL,
          lambda table, bf16: [a for a in range(len(table))
                               if nearest_differs(a, table[a], bf16)][:EDGES])
    return 0


if __name__ == "__main__":
    main()
