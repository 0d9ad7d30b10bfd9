#!/usr/bin/env python3
"""Inputs and expected outputs of indirect.cu, following the source's
meaning thread by thread (no H100 was at hand): 32-bit wrapping integers,
C's truncating `/` and `%`, `>>` of a signed int arithmetic; the float
results are exact (squares of integers below 17, times 0.25). Writes
in.bin, wild.in.bin and the expected outputs of indirect.json, pick.json
and wild.json."""
import struct


# `write` stands again in ../calls/ and ../structs/reference.py: each script runs alone in
# its own folder (issue 27).
def write(path, fmt, n, values):
    """The n values packed little-endian as `fmt` into path."""
    with open(path, "wb") as f:
        f.write(struct.pack("<%d%s" % (n, fmt), *values))


N = 256  # indirect and pick: grid 4 x block 64
W = 32   # wild: one warp

# i32, f32 and the writes at the end as in ../calls/reference.py: each
# reference script stands alone, run in its own folder, so they are repeated.


def i32(x):
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >= 1 << 31 else x


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def op_add(a, b): return i32(a + b)
def op_sub(a, b): return i32(a - b)
def op_mul(a, b): return i32(a * b + 1)
def op_xor(a, b): return i32((a ^ b) * 5)


def sq_area(s): return f32(s * s)
def tri_area(s): return f32(f32(0.25 * s) * s)
def sq_sides(k): return i32(4 * k)
def tri_sides(k): return i32(3 * k + 1)


table = [op_add, op_sub, op_mul, op_xor]
vtables = [(sq_area, sq_sides), (tri_area, tri_sides)]


def cmod(a, b):
    """C's %: the remainder takes the dividend's sign."""
    r = abs(a) % abs(b)
    return -r if a < 0 else r


# Small values and some near the 32-bit limits (products wrap).
inp = [i32((i * 2654435761) >> 5) if i % 5 == 0 else (i * 37) % 211 - 105 for i in range(N)]

out, fout = [], []
for i in range(N):
    block = i // 64
    v = inp[i]
    a = table[(i + i // 3) & 3](v, i)
    b = table[block & 3](a, 7)
    area, sides = vtables[(v >> 2) & 1]
    out += [b, sides(i)]
    fout.append(area(float(cmod(v, 17))))

pick = []
for i in range(N):
    v = inp[i]
    h = op_add if v & 4 else op_mul
    neighbour = op_sub if (i ^ 1) & 1 else op_xor
    pick += [h(v, i), neighbour(v, 3)]

# wild: each lane calls the function whose address (docs/ptx-modules.md:
# 8 * (k + 1) for the module's k-th .func) the input gives, with (1, 2).
addr = {8: op_add, 16: op_sub, 24: op_mul, 32: op_xor}
wild_in = [8 * (1 + (t * 7) % 4) for t in range(W)]
wild = [addr[a](1, 2) for a in wild_in]

write("in.bin", "i", N, inp)
write("indirect.out.expected.bin", "i", 2 * N, out)
write("indirect.fout.expected.bin", "f", N, fout)
write("pick.out.expected.bin", "i", 2 * N, pick)
write("wild.in.bin", "q", W, wild_in)
write("wild.out.expected.bin", "i", W, wild)
