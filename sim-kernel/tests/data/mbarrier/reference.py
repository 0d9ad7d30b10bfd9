#!/usr/bin/env python3
"""Inputs and expected outputs of prodcons.cu's launch
(sim-kernel/tests/it/mbarrier.rs), following the CUDA source's meaning
thread by thread (no H100 at hand).

    python3 reference.py   # writes prodcons.in.bin, prodcons.out.expected.bin
"""

import random
import struct

GRID, BLOCK, ROUNDS = 3, 128, 5
M = 0xFFFFFFFF

rng = random.Random(29)
inp = [rng.getrandbits(32) for _ in range(GRID * ROUNDS * 32)]
out = []
for b in range(GRID):
    for t in range(BLOCK):
        w, lane = t // 32, t % 32
        acc = 0
        for r in range(ROUNDS):
            tile = [(inp[(b * ROUNDS + r) * 32 + i] * 3 + r) & M for i in range(32)]
            if w != 0:
                acc = (acc + (tile[(lane + w) % 32] ^ (w << 8))) & M
        out.append(acc)
with open("prodcons.in.bin", "wb") as f:
    f.write(struct.pack(f"<{len(inp)}I", *inp))
with open("prodcons.out.expected.bin", "wb") as f:
    f.write(struct.pack(f"<{len(out)}I", *out))
