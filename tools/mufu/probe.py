"""H100 run 1 (see README.md): 2^17 random inputs per approximate form (splitmix64
streams, replayed by vectors.py) -> $OUT/vec.pkl, and whole-domain dumps of each MUFU op
through its .approx.ftz.f32 form ([1,2) for RCP, [1,4) for RSQ/SQRT, [0.5,2) and [-1,-0.5)
for EX2, [0.5,4) for LG2, two binades for SIN/COS), second-difference coded and lzma'd,
-> $OUT/{rcp,rsq,sqrt,ex2,lg2,sin,cos}.pkl. It was minified once to travel gzip+base64 inside
the device command (2,000 characters at most); it is laid out for reading now (the
same statements), and travels as a file in the working tree. Needs cupy and an NVIDIA GPU."""

import lzma
import os
import pickle

import cupy as cp
import numpy as np

U = np.uint64
I = np.uint32
OUT_DIR = os.environ["OUT"] + "/"


def splitmix64(s):
    """splitmix64 of each 64-bit counter: the random stream vectors.py replays
    exactly, so the inputs need not be stored."""
    z = s + U(0x9E3779B97F4A7C15)
    z = (z ^ (z >> U(30))) * U(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> U(27))) * U(0x94D049BB133111EB)
    return z ^ (z >> U(31))


# Special values: zeros, infinities, NaNs, subnormals, the largest finite
# values, binade edges and a few constants (pi, pi/2, 1/(2 pi)).
# fmt: off
SPECIAL = np.array([
    0, 1 << 31, 0x7F800000, 0x7FC00000, 0x7F800001, 0x7FFFFFFF,
    1, 0x7FFFFF, 0x800000, 0x3F800000, 0x7F7FFFFF, 0x7EFFFFFF,
    0x7F000000, 0x400000, 0x3F000000, 0x4B000000, 0x42FC0000, 0xC2FC0000,
    0xC2FE0000, 0x43000000, 0xC3160000, 0x40490FDB, 0x3FC90FDB, 0x3E22F983,
    0x34000000, 0x33800000, 0x7E800000, 0x800001, 0x3F7FFFFF, 0x3F800001,
], I)
# fmt: on
BOUNDARY_EXPONENTS = np.array(
    [0, 1, 2, 3, 124, 125, 126, 127, 128, 129, 130, 252, 253, 254, 255], I
)


def random_inputs(j, n, s, lo, hi):
    """n inputs for form j, stream s: random bits, values with a biased exponent in
    [lo, hi] (the form's useful range), boundary exponents and special values, one of
    eight ways per input, so that every kind of input is covered."""
    h = splitmix64(np.arange(n, dtype=U) + U((j << 33) | (s << 32)))
    r = (h & U(0xFFFFFFFF)).astype(I)
    c = (h >> U(32)) % U(8)
    t = (h >> U(40)).astype(np.int64)
    m = r & I(0x807FFFFF)
    x = np.where(c >> U(1) == 2, m | ((lo + t % (hi - lo + 1)) << 23).astype(I), r)
    x = np.where(c == 6, m | (BOUNDARY_EXPONENTS[t % 15] << 23), x)
    return np.where(c == 7, SPECIAL[t % 30] ^ (r & I(1 << 31)), x)


def encode(u, ref=None):
    """Compresses a whole-domain dump: the second difference of consecutive results
    (or the difference from `ref`, a float64 reference) is small, so it is stored as
    int8 (escapes listed apart) and lzma'd. Returns (bytes, escape indices, escapes)."""
    v = u.astype(np.int64)
    if ref is None:
        p = np.concatenate([[0, 0], v])
        d = v - 2 * p[1:-1] + p[:-2]
    else:
        d = v - ref.astype(np.int64)
    e = np.nonzero(abs(d) > 127)[0]
    b = np.clip(d, -128, 127).astype(np.int8)
    b[e] = -128
    return lzma.compress(b.tobytes(), preset=1), e, d[e]


KERNELS = {}


def run_form(f, a, b):
    """Runs PTX form f (inline asm, one element per thread) over sources a (and b for
    div) as bit patterns; returns the result bits. Kernels are compiled once per form."""
    if f not in KERNELS:
        KERNELS[f] = cp.RawKernel(
            'extern "C" __global__ void k(const unsigned*x,const unsigned*z,unsigned*y,long n){long i=blockIdx.x*(long)blockDim.x+threadIdx.x;if(i<n){float a=__uint_as_float(x[i]),b=__uint_as_float(z[i]),d;asm volatile("%s %%0,%%1%s;":"=f"(d):"f"(a),"f"(b));y[i]=__float_as_uint(d);}}'
            % (f, ",%2" * (f[0] == "d")),
            "k",
        )
    n = len(a)
    y = cp.empty(n, cp.uint32)
    KERNELS[f](
        ((n + 255) // 256,),
        (256,),
        (cp.asarray(a), cp.asarray(b if b is not None else a), y, np.int64(n)),
    )
    return cp.asnumpy(y)


VALUES = {}
for j, f in enumerate(
    [
        o + z + ".f32"
        for o in "rcp.approx rsqrt.approx sqrt.approx ex2.approx lg2.approx sin.approx cos.approx div.approx div.full".split()
        for z in ("", ".ftz")
    ]
):
    lo, hi = {"e": (100, 134), "s": (100, 136), "c": (100, 136)}.get(f[0], (64, 190))
    a = random_inputs(j, 1 << 17, 0, lo, hi)
    VALUES[f] = run_form(f, a, random_inputs(j, 1 << 17, 1, lo, hi) if f[0] == "d" else None)
pickle.dump(VALUES, open(OUT_DIR + "vec.pkl", "wb"))
as_f64 = lambda x: x.view(np.float32).astype(np.float64)
as_f32_bits = lambda a: a.astype(np.float32).view(I)


def domain_dump(f, lo, n, ref=None):
    """The .approx.ftz form of MUFU op f over n consecutive bit patterns from lo,
    encoded (against ref's float64 values when given)."""
    x = np.arange(lo, lo + n, dtype=I)
    return (
        lo,
        n,
        encode(run_form(f + ".approx.ftz.f32", x, None), None if ref is None else ref(as_f64(x))),
    )


for k, v in {
    "rcp": [domain_dump("rcp", 0x3F800000, 1 << 23, lambda x: as_f32_bits(1 / x))],
    "rsq": [domain_dump("rsqrt", 0x3F800000, 1 << 24, lambda x: as_f32_bits(1 / np.sqrt(x)))],
    "sqrt": [domain_dump("sqrt", 0x3F800000, 1 << 24, lambda x: as_f32_bits(np.sqrt(x)))],
    "ex2": [domain_dump("ex2", 0x3F000000, 1 << 24), domain_dump("ex2", 0xBF000000, 1 << 23)],
    "lg2": [domain_dump("lg2", 0x3F000000, 3 << 23)],
    "sin": [domain_dump("sin", 0x3F800000, 1 << 23), domain_dump("sin", 0x3D800000, 1 << 23)],
    "cos": [domain_dump("cos", 0x3F800000, 1 << 23), domain_dump("cos", 0x3D800000, 1 << 23)],
}.items():
    pickle.dump(v, open(OUT_DIR + k + ".pkl", "wb"))
print("ok")
