#!/usr/bin/env python3
"""Inputs and expected outputs of bulk_copy.cu's launches
(sim-kernel/tests/it/bulk_copy.rs), following the CUDA source's meaning
thread by thread (no H100 at hand).

    python3 reference.py   # writes the .in.bin and .expected.bin files
"""

import random
import struct

M = 0xFFFFFFFF
TILE = 256


def write(name, words):
    with open(name, "wb") as f:
        f.write(struct.pack(f"<{len(words)}I", *words))


# tiled_sum: grid 4, block 96 (a block size that does not divide the tile).
GRID, BLOCK = 4, 96
rng = random.Random(30)
inp = [rng.getrandbits(32) for _ in range(GRID * 2 * TILE)]
out, copy = [], []
for b in range(GRID):
    tiles = [inp[(b * 2 + r) * TILE:(b * 2 + r + 1) * TILE] for r in range(2)]
    for t in range(BLOCK):
        acc = 0
        for r in range(2):
            for i in range(t, TILE, BLOCK):
                # `tile[i] * (round + 1) ^ i`: `*` binds tighter than `^`.
                acc = (acc + ((tiles[r][i] * (r + 1)) & M ^ i)) & M
        out.append(acc)
    copy += tiles[1]
write("tiled_sum.in.bin", inp)
write("tiled_sum.out.expected.bin", out)
write("tiled_sum.copy.expected.bin", copy)

# tx_pair: grid 3, block 64.
GRID, BLOCK = 3, 64
rng = random.Random(31)
inp = [rng.getrandbits(32) for _ in range(GRID * 96)]
out = []
for b in range(GRID):
    a, bb = inp[b * 96:b * 96 + 64], inp[b * 96 + 64:b * 96 + 96]
    for t in range(BLOCK):
        out.append((a[t % 64] + 7 * bb[t % 32]) & M)
write("tx_pair.in.bin", inp)
write("tx_pair.out.expected.bin", out)
