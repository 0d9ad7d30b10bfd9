#!/usr/bin/env python3
"""How close the best simple rule found comes to an H200's `tanh.approx`
(the extract `xtask/tests/data/domain-h200-approx.bin`; README.md here).

The rule: `x` itself for |x| below 2^-8 (f16: up to 2^-8 (1 + 7/1024)),
+-1 from |x| = 8 on, NaN as 0x7fff / 0x7fffffff, and in between the exact
tanh truncated toward zero (f16, bf16) or rounded to nearest (f32). It is
not the machine's mechanism: MUFU.TANH approximates tanh with a relative
error near 2^-17.6, and where that error crosses a grid point the rule
misses by one unit in the last place. sim-isa runs this rule with the
16-bit misses listed below as a table of the H200's values
(sim-isa/src/exec/float/tanh.rs; docs/validation.md, "H200 run"). Prints,
per form, how many entries (16-bit tables) or sampled high halves (f32
checksums) the rule alone gets.

    python3 -m tools.gpu.domain.tanh_rules
"""

import math
import os
import struct
import sys

from tools.gpu.domain.run import records

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.."))
SRC = os.path.join(ROOT, "xtask/tests/data/domain-h200-approx.bin")
M32 = 0xFFFFFFFF


def truncate(v, mbits, emin):
    """|v| truncated to a format with `mbits` fraction bits and smallest
    normal exponent `emin` (the magnitude, as a float)."""
    a = abs(v)
    if a == 0:
        return 0.0
    e = max(math.floor(math.log2(a)), emin)
    step = 2.0 ** (e - mbits)
    return math.floor(a / step) * step


def rule16(h, bf16):
    """The candidate rule's result for 16-bit source h (f16, or bf16 when bf16): x itself
    when tiny, +-1 from 8 on, NaN as 0x7fff, else tanh truncated to the format."""
    if bf16:
        (x,) = struct.unpack("<f", struct.pack("<I", h << 16))
    else:
        (x,) = struct.unpack("<e", struct.pack("<H", h))
    if x != x:
        return 0x7FFF
    sign = 0x8000 if math.copysign(1, x) < 0 else 0
    a = abs(x)
    limit = 2.0 ** -8 if bf16 else 2.0 ** -8 * (1 + 8 / 1024)
    if a < limit or (bf16 and a == 2.0 ** -8):
        return h
    if a >= 8:
        return sign | (0x3F80 if bf16 else 0x3C00)
    t = truncate(math.tanh(a), 7 if bf16 else 10, -126 if bf16 else -14)
    if bf16:
        return sign | (struct.unpack("<I", struct.pack("<f", t))[0] >> 16)
    return sign | struct.unpack("<H", struct.pack("<e", t))[0]


def rule32(u):
    """The candidate rule for an f32 source (bits u): as rule16, rounded to nearest instead
    of truncated."""
    (x,) = struct.unpack("<f", struct.pack("<I", u))
    if x != x:
        return 0x7FFFFFFF
    if abs(x) < 2.0 ** -8:
        return u
    if abs(x) >= 8:
        return (u & 0x80000000) | 0x3F800000
    return struct.unpack("<I", struct.pack("<f", math.tanh(x)))[0]


def fmix32(h):
    """murmur3's 32-bit finaliser, as the domain kernels' checksums use it."""
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & M32
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & M32
    return h ^ (h >> 16)


def main():
    if {"-h", "--help"} & set(sys.argv[1:]):  # the usage, not a run
        print(__doc__)
        return 0
    for _, text, kind, elem, count, raw in records(SRC):
        if not text.startswith("tanh"):
            continue
        if kind == 0:
            table = struct.unpack(f"<{count}H", raw)
            bf16 = ".bf16" in text
            miss = [a for a in range(count) if rule16(a, bf16) != table[a]]
            worst = max((abs(rule16(a, bf16) - table[a]) for a in miss), default=0)
            print(f"{text} {count - len(miss)} of {count} equal, {len(miss)} differ "
                  f"(at most {worst} in the last place): {[hex(a) for a in miss]}")
        else:
            pairs = struct.unpack(f"<{2 * count}I", raw)
            miss = []
            for k, want in zip(pairs[0::2], pairs[1::2]):
                s = 0
                for b in range(65536):
                    r = rule32((k << 16) | b)
                    s += fmix32(r ^ ((b * 0x9E3779B9) & M32))
                if s & M32 != want:
                    miss.append(hex(k))
            print(f"{text} {count - len(miss)} of {count} sampled high halves equal; differ: {miss}")


if __name__ == "__main__":
    main()
