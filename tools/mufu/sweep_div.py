"""Division forms, GPU side of the hashed check (see README.md): 3 streams x 2^26 source
pairs per form -> $OUT/div.npy (12 x 64 chunk hashes), to compare with
`mufu_sweep FORM STREAM`. Laid out for reading; it was
minified once for the device command, as probe.py was."""

import os

import cupy as cp
import numpy as np

OUT_DIR = os.environ["OUT"] + "/"
U = cp.uint64
KERNELS = {}


# The same launcher as sweep.py's run_form with a second source, kept a copy
# (issue 27): each device script ran alone by its path and is kept as it ran.
def run_form(f, a, b):
    """Runs two-source PTX form f over bit patterns a and b (one pair per thread) and
    returns the result bits; each form's kernel is compiled once."""
    if f not in KERNELS:
        KERNELS[f] = cp.RawKernel(
            'extern "C" __global__ void k(const unsigned*x,const unsigned*z,unsigned*y,long n){long i=blockIdx.x*(long)blockDim.x+threadIdx.x;if(i<n){float a=__uint_as_float(x[i]),b=__uint_as_float(z[i]),d;asm volatile("%s %%0,%%1,%%2;":"=f"(d):"f"(a),"f"(b));y[i]=__float_as_uint(d);}}'
            % f,
            "k",
        )
    n = len(a)
    y = cp.empty(n, cp.uint32)
    KERNELS[f](((n + 255) // 256,), (256,), (a, b, y, np.int64(n)))
    return y


def splitmix64(x):
    """splitmix64 of each 64-bit counter: the random stream the model's
    mufu_sweep replays
    exactly, so the inputs need not be stored."""
    z = x + U(0x9E3779B97F4A7C15)
    z = (z ^ (z >> U(30))) * U(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> U(27))) * U(0x94D049BB133111EB)
    return z ^ (z >> U(31))


EXPONENTS = cp.array([0, 1, 2, 125, 126, 127, 128, 129, 252, 253, 254], U)
mid_binade = lambda v: (v & U(0x807FFFFF)) | ((U(64) + ((v >> U(23)) & U(255)) % U(127)) << U(23))
WEIGHTS = 2 * cp.arange(1 << 20, dtype=U) + U(1)
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
        HASHES[f + str(s)] = cp.asnumpy((y.astype(U).reshape(64, 1 << 20) * WEIGHTS).sum(axis=1))
np.save(OUT_DIR + "div.npy", np.stack(list(HASHES.values())))
print(list(HASHES))
