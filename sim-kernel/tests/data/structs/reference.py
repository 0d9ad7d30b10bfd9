#!/usr/bin/env python3
"""Expected outputs of structs.cu's `structs` kernel, following the source's
meaning thread by thread (no H100 was at hand). The inputs are small
integers, so every float product and difference in `cross` is exact in
f32 whatever order or fusion ptxas picks, and `fold`'s double sums are
exact. Writes structs.in.bin and the expected outputs."""
import struct


# `write` stands again in ../calls/ and ../indirect/reference.py: each script runs alone in
# its own folder (issue 27).
def write(path, fmt, n, values):
    """The n values packed little-endian as `fmt` into path."""
    with open(path, "wb") as f:
        f.write(struct.pack("<%d%s" % (n, fmt), *values))


N = 128  # grid 2 x block 64

inp = [(i * 37) % 101 - 50 for i in range(N)]


def cross(a, b):
    ax, ay, az, at = a
    bx, by, bz, bt = b
    return (ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx, at ^ bt)


def fold(base, n):
    s, cnt, lo, hi = 0.0, 0, 32767, -32768
    for k in range(n):
        v = inp[base + k]
        s += v
        cnt += 1
        lo, hi = min(lo, v), max(hi, v)
    return s, cnt, lo, hi


out, dout, iout = [], [], []
for i in range(N):
    a = (inp[i], inp[(i + 1) % 128], inp[(i + 2) % 128], i)
    b = (inp[(i + 3) % 128], 2, i % 7, 3 * i)
    c = cross(a, b)
    if i & 1:
        c = cross(c, a)
    out += [float(c[0]), float(c[1]), float(c[2])]
    s = fold(i % 8, 1 + i % 5)
    dout.append(s[0])
    iout += [c[3], s[1], s[2], s[3]]

write("structs.in.bin", "i", N, inp)
write("structs.out.expected.bin", "f", 3 * N, out)
write("structs.dout.expected.bin", "d", N, dout)
write("structs.iout.expected.bin", "i", 4 * N, iout)
