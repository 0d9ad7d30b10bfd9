"""Division forms, GPU side of the hashed check (see README.md): 3 streams x 2^26 source
pairs per form -> $OUT/div.npy (12 x 64 chunk hashes), to compare with
`mufu_sweep FORM STREAM` (the same splitmix64 streams). Laid out for reading; it was
minified once for the device command, as probe.py was, and runs as it does
(`python3 -m tools.mufu.sweep_div`, streams.py and gpu.py)."""

import os

import cupy as cp
import numpy as np

from tools.mufu.gpu import chunk_hashes, run_form
from tools.mufu.streams import splitmix64

OUT_DIR = os.environ["OUT"] + "/"
U = cp.uint64
EXPONENTS = cp.array([0, 1, 2, 125, 126, 127, 128, 129, 252, 253, 254], U)
mid_binade = lambda v: (v & U(0x807FFFFF)) | ((U(64) + ((v >> U(23)) & U(255)) % U(127)) << U(23))
HASHES = {}
for f in ["div.approx.f32", "div.approx.ftz.f32", "div.full.f32", "div.full.ftz.f32"]:
    for s in range(3):
        z = splitmix64(cp.arange(1 << 26, dtype=U) + U(s << 40))
        lo = z & U(0xFFFFFFFF)
        hi = z >> U(32)
        a, b = [
            (lo, hi),
            (mid_binade(lo), mid_binade(hi)),
            (
                mid_binade(lo),
                (hi & U(0x807FFFFF))
                | (EXPONENTS[(((hi >> U(23)) & U(255)) % U(11)).astype(cp.int64)] << U(23)),
            ),
        ][s]
        y = run_form(f, a.astype(cp.uint32), b.astype(cp.uint32))
        HASHES[f + str(s)] = chunk_hashes(y)
np.save(OUT_DIR + "div.npy", np.stack(list(HASHES.values())))
print(list(HASHES))
