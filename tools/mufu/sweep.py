"""Exhaustive check, GPU side (see README.md): per one-source form, the hash of every
chunk of 2^20 consecutive sources -> $OUT/gpu.npy (14 x 4096); with
tools/mufu/bin/mufu_sweep present, the model's hashes too, compared there.
Laid out for reading; it was minified once for the device command, as probe.py was,
and runs as it does (`python3 -m tools.mufu.sweep`, gpu.py)."""

import os
import subprocess as sp
import time

import cupy as cp
import numpy as np

from tools.mufu.gpu import chunk_hashes, run_form

OUT_DIR = os.environ["OUT"] + "/"
CHUNKS = int(os.environ.get("NCH", "4096"))
FORMS = [
    o + z + ".f32"
    for o in "rcp rsqrt sqrt ex2 lg2 sin cos".split()
    for z in (".approx", ".approx.ftz")
]
MODEL_SWEEP = "tools/mufu/bin/mufu_sweep"
MODEL_RUNS = {}
if os.path.exists(MODEL_SWEEP):
    for f in FORMS:
        MODEL_RUNS[f] = sp.Popen(
            [MODEL_SWEEP, f, "16", "0", str(CHUNKS)], stdout=sp.PIPE, text=True
        )
    print("sweeping", flush=True)
GPU_HASHES = {}
for f in FORMS:
    h = []
    for s in range(0, CHUNKS << 20, 1 << 28):
        y = run_form(f, cp.arange(s, s + (1 << 28), dtype=cp.uint64).astype(cp.uint32))
        h.append(chunk_hashes(y))
    GPU_HASHES[f] = np.concatenate(h)
np.save(OUT_DIR + "gpu.npy", np.stack([GPU_HASHES[f] for f in FORMS]))
print("gpu done", time.time(), flush=True)
MODEL_HASHES = []
for f in FORMS:
    if f in MODEL_RUNS:
        m = np.array([int(l, 16) for l in MODEL_RUNS[f].communicate()[0].split()], np.uint64)
        MODEL_HASHES.append(m)
        bad = np.nonzero(m != GPU_HASHES[f])[0]
        print(f, "bad chunks", len(bad), bad[:8], flush=True)
if MODEL_HASHES:
    np.save(OUT_DIR + "model.npy", np.stack(MODEL_HASHES))
