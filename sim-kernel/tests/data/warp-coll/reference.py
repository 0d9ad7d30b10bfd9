#!/usr/bin/env python3
"""Inputs and expected outputs of warp_coll.cu and warp_tile.cu
(sim-kernel/tests/it/warp_coll.rs).

Writes warp_coll.in.bin, warp_coll.out.expected.bin, warp_tile.in.bin,
warp_tile.out.expected.bin and warp_tile.leaders.expected.bin. The expected words
follow the CUDA C++ source's meaning (the CUDA Programming Guide's warp
reduce, match, vote and __syncthreads_* functions), lane by lane in plain
Python: nothing here reads the PTX or the simulator.

    python3 reference.py
"""

import os
import random
import struct

BLOCKS, THREADS, N_OUT = 4, 80, 15
HERE = os.path.dirname(os.path.abspath(__file__))


def inputs():
    rng = random.Random(23)
    v = [rng.getrandbits(32) for _ in range(BLOCKS * THREADS)]
    # Block 1, warp 0: every odd lane's top three bits equal, so
    # __match_all_sync's predicate is true there (and false elsewhere).
    for t in range(80, 112):
        v[t] = (v[t] & 0x1FFFFFFF) | (5 << 29)
    # Block 2: every thread has bit 2 set (__syncthreads_and is 1 there only).
    for t in range(160, 240):
        v[t] |= 4
    # __syncthreads_or's pattern (bits 8-14 == 0x12) in blocks 0 and 2 only.
    for t in range(BLOCKS * THREADS):
        if (v[t] & 0x7F00) == 0x1200:
            v[t] ^= 0x100
    for t in (37, 201):
        v[t] = (v[t] & ~0x7F00) | 0x1200
    return v


def s32(x):
    return x - (1 << 32) if x & 0x80000000 else x


def expected(v):
    out = [0] * (BLOCKS * THREADS * N_OUT)
    for b in range(BLOCKS):
        base = b * THREADS
        vals = v[base:base + THREADS]
        count = sum(1 for x in vals if x & 2)
        all4 = int(all(x & 4 for x in vals))
        any12 = int(any((x & 0x7F00) == 0x1200 for x in vals))
        for w0 in range(0, THREADS, 32):
            lanes = list(range(min(32, THREADS - w0)))
            val = {l: vals[w0 + l] for l in lanes}
            odd = [l for l in lanes if val[l] & 1]
            mask = sum(1 << l for l in odd)
            low = [l for l in odd if l < 16]
            for l in lanes:
                r = [0] * N_OUT
                x = val[l]
                if x & 1:
                    ov = [val[j] for j in odd]
                    r[0] = sum(ov) & 0xFFFFFFFF
                    r[1] = min(ov)
                    r[2] = max(s32(y) for y in ov) & 0xFFFFFFFF
                    r[3] = 0
                    for y in ov:
                        r[3] |= y >> 8
                    r[4] = 0xFFFFFFFF
                    for y in ov:
                        r[4] &= y | 0x0F0F0000
                    r[5] = 0
                    for y in ov:
                        r[5] ^= y
                    r[6] = sum(1 << j for j in odd if val[j] >> 28 == x >> 28)
                    key = [(val[j] >> 29) << 33 for j in odd]
                    uniform = all(k == key[0] for k in key)
                    r[7] = mask if uniform else 0
                    r[8] = int(uniform)
                    k64 = lambda y: ((y & 3) << 32) | (y >> 30)
                    r[9] = sum(1 << j for j in odd if k64(val[j]) == k64(x))
                    if l < 16:
                        lv = [val[j] for j in low]
                        r[10] = max(lv)
                        r[11] = min(s32(y) for y in lv) & 0xFFFFFFFF
                r[12], r[13], r[14] = count, all4, any12
                t = base + w0 + l
                out[t * N_OUT:(t + 1) * N_OUT] = r
    return out


TILE_BLOCKS, TILE_THREADS = 2, 72


def tile_inputs():
    rng = random.Random(24)
    v = [rng.getrandbits(32) for _ in range(TILE_BLOCKS * TILE_THREADS)]
    # Block 1, warp 1: no odd value, so no leader is elected there.
    for t in range(72 + 32, 72 + 64):
        v[t] &= ~1
    return v


def tile_expected(v):
    out, leaders = [], [0] * (TILE_BLOCKS * 4)
    for t, x in enumerate(v):
        b, tid = divmod(t, TILE_THREADS)
        base = b * TILE_THREADS + (tid & ~7)
        tile = v[base:base + 8]
        out += [
            tile[0],
            max(s32(y) for y in tile) & 0xFFFFFFFF,
            sum(tile) & 0xFFFFFFFF,
            sum(1 << j for j in range(8) if tile[j] & 7 == x & 7),
        ]
    for b in range(TILE_BLOCKS):
        for w in range(0, TILE_THREADS, 32):
            ts = range(b * TILE_THREADS + w, b * TILE_THREADS + min(w + 32, TILE_THREADS))
            leaders[b * 4 + w // 32] = int(any(v[t] & 1 for t in ts))
    return out, leaders


def write(name, words):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(struct.pack(f"<{len(words)}I", *words))


def main():
    v = inputs()
    with open(os.path.join(HERE, "warp_coll.in.bin"), "wb") as f:
        f.write(struct.pack(f"<{len(v)}I", *v))
    out = expected(v)
    with open(os.path.join(HERE, "warp_coll.out.expected.bin"), "wb") as f:
        f.write(struct.pack(f"<{len(out)}I", *out))
    per = [(out[(b * THREADS) * N_OUT + 12], out[(b * THREADS) * N_OUT + 13], out[(b * THREADS) * N_OUT + 14])
           for b in range(BLOCKS)]
    preds = sum(out[t * N_OUT + 8] for t in range(BLOCKS * THREADS))
    print(f"count/and/or per block {per}; match_all true in {preds} threads")
    tv = tile_inputs()
    write("warp_tile.in.bin", tv)
    tout, leaders = tile_expected(tv)
    write("warp_tile.out.expected.bin", tout)
    write("warp_tile.leaders.expected.bin", leaders)
    print(f"leaders per warp {leaders}")


if __name__ == "__main__":
    main()
