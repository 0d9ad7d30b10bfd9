"""The device scripts' GPU side (cupy, an NVIDIA GPU): one PTX form over bit
patterns (`run_form`), a whole-domain dump (`domain_dump`) and chunk hashes
(`chunk_hashes`). probe.py, probe2.py, sweep.py and sweep_div.py import it; run
them from the repository root as `python3 -m tools.mufu.NAME`."""

import cupy as cp
import numpy as np

from tools.mufu.streams import I, encode

# One element per thread: the form as inline PTX on x (and z, its second source).
SOURCE = (
    'extern "C" __global__ void k(const unsigned*x,const unsigned*z,unsigned*y,long n){long i=blockIdx.x*(long)'
    'blockDim.x+threadIdx.x;if(i<n){float a=__uint_as_float(x[i]),b=__uint_as_float(z[i]),d;asm volatile('
    '"%s %%0,%%1%s;":"=f"(d):"f"(a),"f"(b));y[i]=__float_as_uint(d);}}'
)
KERNELS = {}


def run_form(f, a, b=None):
    """Runs PTX form f over the bit patterns a (and b, the second source of a division)
    and returns the result bits, on the device (a cupy array). Each form's kernel is
    compiled once (by the driver's JIT)."""
    two = b is not None
    if (f, two) not in KERNELS:
        KERNELS[(f, two)] = cp.RawKernel(SOURCE % (f, ",%2" * two), "k")
    n = len(a)
    a = cp.asarray(a)
    y = cp.empty(n, cp.uint32)
    KERNELS[(f, two)](((n + 255) // 256,), (256,), (a, cp.asarray(b) if two else a, y, np.int64(n)))
    return y


def domain_dump(f, lo, n, ref=None):
    """(lo, n, coding): the .approx.ftz form of MUFU op f over n consecutive bit patterns
    from lo, `encode`d (against ref(sources as float64) when given)."""
    x = np.arange(lo, lo + n, dtype=I)
    y = cp.asnumpy(run_form(f + ".approx.ftz.f32", x))
    return lo, n, encode(y, None if ref is None else ref(x.view(np.float32).astype(np.float64)))


WEIGHTS = 2 * cp.arange(1 << 20, dtype=cp.uint64) + 1


def chunk_hashes(y):
    """The hash of each chunk of 2^20 consecutive results: sum of (2k + 1) * y[k]
    (mod 2^64), as mufu_sweep computes it for the model."""
    return cp.asnumpy((y.astype(cp.uint64).reshape(-1, 1 << 20) * WEIGHTS).sum(axis=1))
