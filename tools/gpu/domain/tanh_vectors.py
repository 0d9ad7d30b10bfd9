#!/usr/bin/env python3
"""Conformance vectors of `tanh.approx.f16` and `tanh.approx.bf16` read from
an H200's whole tables (the extract `xtask/tests/data/domain-h200-approx.bin`
of tools/gpu/device_run_edges.sh's run, README.md here).

Writes sim-isa/tests/data/h200-tanh-half.jsonl.gz (table_vectors.py): for
each form, every 64th source (0, 64, ...: table_vectors.STRIDE), every
source where the rule of tanh_rules.py misses the GPU (sim-isa's table of
measured exceptions), and the special sources (zeros, subnormal edges, the
rule's 2^-8 and 8 edges, one, the largest finite, infinities, NaNs).

    python3 -m tools.gpu.domain.tanh_vectors
"""

import os

from tools.cli import usage_asked
from tools.gpu.domain.table_vectors import ROOT, write
from tools.gpu.domain.tanh_rules import rule16

OUT = os.path.join(ROOT, "sim-isa/tests/data/h200-tanh-half.jsonl.gz")
FORMS = {"tanh.approx.f16 %h5, %h1;": False, "tanh.approx.bf16 %h5, %h1;": True}
SPECIAL = [0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x1c07, 0x1c08, 0x9c07, 0x9c08,
           0x3b80, 0x3b81, 0xbb80, 0xbb81, 0x47ff, 0x4800, 0xc7ff, 0xc800, 0x40ff, 0x4100,
           0xc0ff, 0xc100, 0x3c00, 0xbc00, 0x3f80, 0xbf80, 0x7bff, 0xfbff, 0x7c00, 0xfc00,
           0x7c01, 0x7e00, 0x7fff, 0xffff, 0x007f, 0x0080, 0x7f7f, 0xff7f, 0x7f80, 0xff80,
           0x7fc0, 0xffc1]


def main():
    if usage_asked(__doc__):
        return 0
    header = (
        "# tanh.approx.f16 and tanh.approx.bf16 on an NVIDIA H200 (driver 580.159.04, CUDA 13.0 "
        "driver JIT, sm_90, 2026-11-28): values read from the GPU's whole 65,536-entry tables "
        "(xtask/tests/data/domain-h200-approx.bin), written by tools/gpu/domain/tanh_vectors.py."
    )
    write(OUT, header, FORMS, SPECIAL,
          lambda table, bf16: (a for a in range(len(table)) if rule16(a, bf16) != table[a]))
    return 0


if __name__ == "__main__":
    main()
