#!/usr/bin/env python3
"""Inputs for the f64 approximations simcli runs as models of units no GPU had
measured here (docs/validation.md, "rcp.approx.ftz.f64, rsqrt.approx{.ftz}.f64"),
for a GPU run (tools/gpu/run.py): `MUFU.RCP64H` and `MUFU.RSQ64H` on the source's
high word, and the non-`.ftz` rsqrt's correction and slow path.

    python3 -m tools.gpu.approx64_vectors OUT.jsonl [--count 4000] [--seed 64]

Sources mix random bits, normal values at any exponent with random fractions
(the unit's table is indexed by the high word's fraction), values near 1, the
subnormals, and the special values. The `out` values are placeholders; `simcli
conform` on the GPU's observed file checks sim-isa against what the GPU wrote.
"""

import json
import sys

from tools.cli import vectors_main

FORMS = [
    "rcp.approx.ftz.f64 %fd5, %fd1;",
    "rsqrt.approx.ftz.f64 %fd5, %fd1;",
    "rsqrt.approx.f64 %fd5, %fd1;",
]
SPECIAL = [0, 1 << 63, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000,
           0xFFF8000000000001, 0x7FF0000000000001, 1, 0x000FFFFFFFFFFFFF, 0x0010000000000000,
           0x8010000000000000, 0x3FF0000000000000, 0xBFF0000000000000, 0x7FEFFFFFFFFFFFFF,
           0x4000000000000000, 0x3FEFFFFFFFFFFFFF, 0x3FF0000000000001]


def f64(rng):
    """One source's bits."""
    r = rng.random()
    if r < 0.15:
        return rng.getrandbits(64)
    if r < 0.2:
        return rng.choice(SPECIAL)
    sign = rng.getrandbits(1) << 63
    if r < 0.3:  # subnormal
        return sign | rng.randrange(1, 1 << 52)
    if r < 0.4:  # near 1 and 2, where a table's ends are
        return (sign | 0x3FF0000000000000 | rng.getrandbits(52)) if rng.random() < 0.5 \
            else (sign | 0x3FEFFF0000000000 | rng.getrandbits(40))
    exp = rng.randrange(1, 0x7FF)
    return sign | (exp << 52) | rng.getrandbits(52)


def vectors(rng, count):
    """The vector lines: count per form."""
    lines = []
    for form in FORMS:
        for _ in range(count):
            ins = {"%fd5": "0x0", "%fd1": hex(f64(rng))}
            lines.append({"arch": "sm_90", "ptx": form, "in": ins, "out": {"%fd5": "0x0"}})
    return [json.dumps(ln, separators=(",", ":")) for ln in lines]


def main():
    return vectors_main(__doc__, 4000, 64, vectors)


if __name__ == "__main__":
    sys.exit(main())
