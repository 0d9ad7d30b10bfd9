#!/usr/bin/env python3
"""Inputs for forms the SASS oracle has no vectors of, for a GPU run
(tools/gpu/run.py): the fp8 conversions from f32 pairs and `sad.u64/.s64`.

    python3 -m tools.gpu.more_vectors OUT.jsonl [--count 500] [--seed 11]

f32 sources mix random bits, values across fp8's range (e4m3: up to 448,
subnormals from 2^-9; e5m2: up to 57344, from 2^-16), values a hair either
side of fp8 rounding ties and of the largest finite values, and the special
values. 64-bit sources mix random bits, small values and the extremes. The
`out` values are placeholders; `simcli conform` on the GPU's observed file
checks sim-isa against what the GPU wrote.
"""

import json
import struct
import sys

from tools.cli import vectors_main

F32_FORMS = [
    "cvt.rn.satfinite.e4m3x2.f32 %h5, %r1, %r2;",
    "cvt.rn.satfinite.e5m2x2.f32 %h5, %r1, %r2;",
    "cvt.rn.satfinite.relu.e4m3x2.f32 %h5, %r1, %r2;",
    "cvt.rn.satfinite.relu.e5m2x2.f32 %h5, %r1, %r2;",
]
U64_FORMS = [
    "sad.u64 %rd5, %rd1, %rd2, %rd3;",
    "sad.s64 %rd5, %rd1, %rd2, %rd3;",
]
SPECIAL = [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x7F800001,
           0x00000001, 0x807FFFFF, 0x43E00000, 0x43E00001, 0x43F00000, 0x47600000, 0x47700000,
           0x477FFFFF, 0x3F800000, 0xBF800000]


def bits(x):
    """The bit pattern of an f32."""
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f32(rng):
    """One f32 source's bits: random bits, a special value, a value across fp8's range, or
    one a hair from an fp8 rounding tie, where conversions go wrong."""
    r = rng.random()
    if r < 0.2:
        return rng.getrandbits(32)
    if r < 0.3:
        return rng.choice(SPECIAL)
    sign = -1.0 if rng.random() < 0.5 else 1.0
    if r < 0.7:
        return bits(sign * 2.0 ** rng.uniform(-20, 17))
    # A hair from a tie: an fp8 value plus half its step (3 or 2 mantissa
    # bits), nudged by a few f32 ulps.
    e = rng.randrange(-16, 16)
    mbits = rng.choice([2, 3])
    k = rng.randrange(0, 1 << mbits)
    tie = (1 + (k + 0.5) / (1 << mbits)) * 2.0 ** e
    return (bits(sign * tie) + rng.randrange(-2, 3)) & 0xFFFFFFFF


def u64(rng):
    """One 64-bit source: random bits, a small value, or an extreme (where sad's absolute
    difference wraps)."""
    r = rng.random()
    if r < 0.5:
        return rng.getrandbits(64)
    if r < 0.8:
        return rng.randrange(0, 1 << 20)
    return rng.choice([0, 1, (1 << 63) - 1, 1 << 63, (1 << 64) - 1, (1 << 63) + 1, 0xFFFFFFFF, 1 << 32])


def vectors(rng, count):
    """The vector lines: count per form."""
    lines = []
    for form in F32_FORMS:
        for _ in range(count):
            ins = {"%h5": "0x0", "%r1": hex(f32(rng)), "%r2": hex(f32(rng))}
            lines.append({"arch": "sm_90", "ptx": form, "in": ins, "out": {"%h5": "0x0"}})
    for form in U64_FORMS:
        for _ in range(count):
            ins = {"%rd5": "0x0", "%rd1": hex(u64(rng)), "%rd2": hex(u64(rng)), "%rd3": hex(u64(rng))}
            lines.append({"arch": "sm_90", "ptx": form, "in": ins, "out": {"%rd5": "0x0"}})
    return [json.dumps(ln, separators=(",", ":")) for ln in lines]


def main():
    return vectors_main(__doc__, 500, 11, vectors)


if __name__ == "__main__":
    sys.exit(main())
