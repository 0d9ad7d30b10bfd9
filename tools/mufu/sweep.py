"""Exhaustive check, GPU side (see README.md): per one-source form, the hash of every
chunk of 2^20 consecutive sources -> $OUT/gpu.npy (14 x 4096); with
tools/mufu/bin/mufu_sweep present, the model's hashes too, compared there.
Laid out for reading; it was
minified once for the device command, as probe.py was."""

import os
import subprocess as sp
import time

import cupy as cp
import numpy as np

OUT_DIR = os.environ["OUT"] + "/"
KERNELS = {}
CHUNKS = int(os.environ.get("NCH", "4096"))


# sweep_div.py's run_form is this with a second source, kept a copy (issue 27):
# each device script ran alone by its path and is kept as it ran.
def run_form(f, a):
    """Runs one-source PTX form f over the bit patterns a (one per thread) and returns
    the result bits; each form's kernel is compiled once."""
    if f not in KERNELS:
        KERNELS[f] = cp.RawKernel(
            'extern "C" __global__ void k(const unsigned*x,unsigned*y,long n){long i=blockIdx.x*(long)blockDim.x+threadIdx.x;if(i<n){float a=__uint_as_float(x[i]),d;asm volatile("%s %%0,%%1;":"=f"(d):"f"(a));y[i]=__float_as_uint(d);}}'
            % f,
            "k",
        )
    n = len(a)
    y = cp.empty(n, cp.uint32)
    KERNELS[f](((n + 255) // 256,), (256,), (a, y, np.int64(n)))
    return y


WEIGHTS = 2 * cp.arange(1 << 20, dtype=cp.uint64) + 1
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
        h.append(cp.asnumpy((y.astype(cp.uint64).reshape(256, 1 << 20) * WEIGHTS).sum(axis=1)))
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
