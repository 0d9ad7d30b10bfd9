#!/usr/bin/env python3
"""Expected outputs of calls.cu's `calls` kernel, following the source's
meaning thread by thread (no H100 was at hand): 32-bit wrapping integers,
`scale` as nvcc compiles it (one fused multiply-add in f32: the exact
product plus 0.5, rounded once to nearest even, exact in f64 for these
small values). Writes calls.in.bin and the expected outputs."""
import struct


# `write` stands again in ../indirect/ and ../structs/reference.py: each script runs alone in
# its own folder (issue 27).
def write(path, fmt, n, values):
    """The n values packed little-endian as `fmt` into path."""
    with open(path, "wb") as f:
        f.write(struct.pack("<%d%s" % (n, fmt), *values))


N = 128  # grid 2 x block 64


def i32(x):
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >= 1 << 31 else x


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


inp = [i32((i * 37) % 101 - 50) for i in range(N)]


def mad2(a, b):
    return i32(a * 3 + b)


def walk(t, n):
    if n <= 0:
        return 1
    a = walk(t, n - 1)
    return i32(t[a & 7] + a)


out, fout = [], []
for i in range(N):
    v = inp[i]
    if i & 1:
        v = mad2(v, i)
    out += [mad2(v, 7), walk(inp, i % 8), walk(inp, 5) if i % 3 == 0 else -1]
    fout.append(f32(float(f32(float(v))) * float(i - 10) + 0.5))

write("calls.in.bin", "i", N, inp)
write("calls.out.expected.bin", "i", 3 * N, out)
write("calls.fout.expected.bin", "f", N, fout)
