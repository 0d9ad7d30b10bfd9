#!/usr/bin/env python3
"""Inputs and expected outputs of wmma.cu (sim-kernel/tests/it/wmma.rs).

Writes wmma.in.bin and wmma.out.expected.bin. The products are of small
integers, exact in f16 and f32 under any order of summation, computed
here in plain Python integers from the CUDA C++ source's meaning (mma.h's
load_matrix_sync/mma_sync/store_matrix_sync with the leading dimensions
and layouts the source names). The fragment dumps (warp 0's `x[]` of
each lane) follow ptxas 13.0.88's sm_90 machine code for wmma.load, as
read from its SASS (docs/wmma.md), written out here on their own: with
g = lane / 4, t = lane % 4,
  a (row-major source): x[2k+h] = A[g + 8 (k&1)][2t + h + 8 ((k>>1)&1)];
  b (col-major source): x[2k+h] = B[2t + h + 8 (k&1)][g + 8 ((k>>1)&1)];
  c (f32):              x[i]    = C[g + 8 ((i>>1)&1)][2t + (i&1) + 8 (i>>2)].
Nothing here reads the PTX or the simulator.

    python3 reference.py
"""

import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def half(v):
    return struct.pack("<e", float(v))


def inputs():
    a = [(i * 7) % 5 - 2 for i in range(384)]
    b = [(i * 3) % 7 - 3 for i in range(384)]
    c = [i - 100 for i in range(256)]
    ch = [i % 5 - 2 for i in range(256)]
    p = list(range(256))
    return a, b, c, ch, p


def product(A, B, C):
    return [[sum(A[m][k] * B[k][n] for k in range(16)) + C[m][n] for n in range(16)] for m in range(16)]


def expected(a, b, c, ch, p):
    r16 = range(16)
    # Warp 0: a row-major (ld 16), b col-major (ld 16), c row-major.
    d0 = product([[a[m * 16 + k] for k in r16] for m in r16],
                 [[b[n * 16 + k] for n in r16] for k in r16],
                 [[c[m * 16 + n] for n in r16] for m in r16])
    # Warp 1: a col-major (ld 24), b row-major (ld 24), c col-major; d stored col-major.
    d1 = product([[a[k * 24 + m] for k in r16] for m in r16],
                 [[b[k * 24 + n] for n in r16] for k in r16],
                 [[c[n * 16 + m] for n in r16] for m in r16])
    # Warp 2: a row, b row (ld 16, through shared memory), c f16 row-major.
    d2 = product([[a[m * 16 + k] for k in r16] for m in r16],
                 [[b[k * 16 + n] for n in r16] for k in r16],
                 [[ch[m * 16 + n] for n in r16] for m in r16])
    # Warp 3: as warp 0 with c = 3.0, d f16.
    d3 = product([[a[m * 16 + k] for k in r16] for m in r16],
                 [[b[n * 16 + k] for n in r16] for k in r16],
                 [[3] * 16 for _ in r16])
    out = b""
    out += b"".join(struct.pack("<f", d0[m][n]) for m in r16 for n in r16)
    out += b"".join(struct.pack("<f", d1[m][n]) for n in r16 for m in r16)
    out += b"".join(half(d2[m][n]) for m in r16 for n in r16)
    out += b"".join(half(d3[m][n]) for m in r16 for n in r16)
    P = [[p[r * 16 + q] for q in r16] for r in r16]  # as stored, row r
    fa, fb, fc = [], [], []
    for lane in range(32):
        g, t = lane // 4, lane % 4
        for k in range(8):
            for h in range(2):
                # A[m][k] = p[m*16 + k]
                fa.append(P[g + 8 * (k & 1)][2 * t + h + 8 * ((k >> 1) & 1)])
                # B col-major: B[kk][n] = p[n*16 + kk]
                kk, n = 2 * t + h + 8 * (k & 1), g + 8 * ((k >> 1) & 1)
                fb.append(P[n][kk])
        for i in range(8):
            fc.append(c[(g + 8 * ((i >> 1) & 1)) * 16 + 2 * t + (i & 1) + 8 * (i >> 2)])
    out += b"".join(half(v) for v in fa)
    out += b"".join(half(v) for v in fb)
    out += b"".join(struct.pack("<f", v) for v in fc)
    return out


def main():
    a, b, c, ch, p = inputs()
    data = b"".join(half(v) for v in a) + b"".join(half(v) for v in b)
    data += b"".join(struct.pack("<f", v) for v in c)
    data += b"".join(half(v) for v in ch) + b"".join(half(v) for v in p)
    assert len(data) == 3584
    out = expected(a, b, c, ch, p)
    assert len(out) == 6144
    with open(os.path.join(HERE, "wmma.in.bin"), "wb") as f:
        f.write(data)
    with open(os.path.join(HERE, "wmma.out.expected.bin"), "wb") as f:
        f.write(out)


if __name__ == "__main__":
    main()
