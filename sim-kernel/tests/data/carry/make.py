#!/usr/bin/env python3
"""Writes the inputs and references of the carry launches (issue 23).

sin.in.bin: 32 doubles, among them huge arguments (1e22, 1e300, 2^1000)
whose reduction takes libdevice's slow path (the mad.lo.cc/madc chain);
sin.ref.bin: Python's math.sin of each (glibc's, correctly rounded for
these), which sim-kernel/tests/it/carry.rs holds the launch to within
2 ulp (CUDA's sin is not correctly rounded: its documented error is 2 ulp).
u128.in.bin: 32 x (a, b, c) u64 words; u128.out.expected.bin: the 128-bit
a*b + c and a*b - (c:c) (mod 2^128), as four u64 halves each.
struct.in.bin: 32 ints v_i = 7i - 50; struct.out.expected.bin: per thread
struct.cu's fields (3v + i, v - i, 8v + 4, i - 2).

    python3 make.py
"""

import math
import random
import struct

SIN_ARGS = [0.0, -0.0, 1e-300, 0.5, 1.0, -2.5, math.pi, 3.0, 10.0, 100.0, 1e5, -1e5,
            105414.0, 1e6, 2.0**20 * math.pi, 1e9, 1e15, 2.0**52, 1e22, -1e22, 1e100,
            1e200, 1e300, -1e300, 2.0**1000, 1.7976931348623157e308, 6381956970095103 * 2.0**797,
            5.319372648326541e255, 1e-5, 7.0, 0.1, 12345.678]
assert len(SIN_ARGS) == 32


def main():
    with open("sin.in.bin", "wb") as f:
        f.write(struct.pack("<32d", *SIN_ARGS))
    with open("sin.ref.bin", "wb") as f:
        f.write(struct.pack("<32d", *[math.sin(x) for x in SIN_ARGS]))
    rng = random.Random(23)
    m = 2**64 - 1
    words = [(m, m, m), (0, 0, 0), (1, 1, 1), (m, 1, 1), (2**32, 2**32, 0), (m, m, 0)]
    while len(words) < 32:
        words.append(tuple(rng.getrandbits(64) for _ in range(3)))
    out = []
    for a, b, c in words:
        s = (a * b + c) % 2**128
        d = (a * b - (c << 64 | c)) % 2**128
        out += [s & m, s >> 64, d & m, d >> 64]
    with open("u128.in.bin", "wb") as f:
        f.write(struct.pack("<96Q", *[w for t in words for w in t]))
    with open("u128.out.expected.bin", "wb") as f:
        f.write(struct.pack("<128Q", *out))
    ins = [7 * i - 50 for i in range(32)]
    fields = [x for i, v in enumerate(ins) for x in (3 * v + i, v - i, 8 * v + 4, i - 2)]
    with open("struct.in.bin", "wb") as f:
        f.write(struct.pack("<32i", *ins))
    with open("struct.out.expected.bin", "wb") as f:
        f.write(struct.pack("<128i", *fields))


if __name__ == "__main__":
    main()
