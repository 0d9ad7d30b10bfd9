#!/usr/bin/env python3
"""Inputs and expected outputs of async_copy.cu's launch (no H100 at hand):
the source's meaning, thread by thread.

Inputs are integer-valued f32 in [-1000, 1000] (seeded), so every sum the
kernel makes is exact in f32 and the reference does not depend on the
order of additions or on contraction into fma.

    python3 reference.py   # writes async_copy.in.bin, async_copy.out.expected.bin
"""

import random
import struct

NTILES, GRID, BLOCK, VALID = 20, 6, 128, 298

rng = random.Random(23)
inp = [float(rng.randint(-1000, 1000)) for _ in range(NTILES * BLOCK)]
out = []
for b in range(GRID):
    for t in range(BLOCK):
        acc = 0.0
        for k in range(b, NTILES, GRID):
            tile = inp[k * BLOCK:(k + 1) * BLOCK]
            acc += tile[t] + tile[(t + 1) % BLOCK]
        # Thread (t + 3) % 128's 16 bytes: words 4u..4u+3, zero past VALID.
        u = (t + 3) % BLOCK
        w = [inp[4 * u + i] if 4 * u + i < VALID else 0.0 for i in range(4)]
        acc += w[0] + 2 * w[1] + 3 * w[2] + 4 * w[3]
        out.append(acc)
with open("async_copy.in.bin", "wb") as f:
    f.write(struct.pack(f"<{len(inp)}f", *inp))
with open("async_copy.out.expected.bin", "wb") as f:
    f.write(struct.pack(f"<{len(out)}f", *out))
