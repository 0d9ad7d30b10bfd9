"""The MUFU runs' forms, inputs and dump coding, in numpy alone: what the device
scripts (probe.py, probe2.py, sweep_div.py, through gpu.py) and the replays
(vectors.py, tools/tests/test_mufu.py) share.

Inputs mix random bit patterns, values in each form's useful exponent range,
values at the exponent boundaries and special values, one of eight ways per
input (`mixed`); run 1 draws them from splitmix64 streams (`run1_inputs`, so
they need not be stored), run 2 from numpy's default_rng(7) (`run2_inputs`).
"""

import lzma

import numpy as np

U = np.uint64
I = np.uint32
# The approximate forms of the random-input runs, in the order they ran.
FORMS = [o + z + ".f32" for o in "rcp.approx rsqrt.approx sqrt.approx ex2.approx lg2.approx "
         "sin.approx cos.approx div.approx div.full".split() for z in ("", ".ftz")]

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


def exponent_range(f):
    """The biased exponents [lo, hi] of form f's useful range."""
    return {"e": (100, 134), "s": (100, 136), "c": (100, 136)}.get(f[0], (64, 190))


def splitmix64(s):
    """splitmix64 of each 64-bit counter (a numpy or cupy array)."""
    z = s + U(0x9E3779B97F4A7C15)
    z = (z ^ (z >> U(30))) * U(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> U(27))) * U(0x94D049BB133111EB)
    return z ^ (z >> U(31))


def mixed(r, c, t, lo, hi):
    """One input per random word r, made as c (0..7) says: r itself (c < 4), r's sign
    and mantissa with an exponent in [lo, hi] (4, 5), with a boundary exponent (6), or
    a special value with r's sign (7); t picks the exponent or the value."""
    m = r & I(0x807FFFFF)
    x = np.where(c >> 1 == 2, m | ((lo + t % (hi - lo + 1)) << 23).astype(I), r)
    x = np.where(c == 6, m | (BOUNDARY_EXPONENTS[t % 15] << 23), x)
    return np.where(c == 7, SPECIAL[t % 30] ^ (r & I(1 << 31)), x)


def splitmix_inputs(j, n, s, lo, hi):
    """Run 1's n inputs for form j, stream s (0, and 1 for a division's second source)."""
    h = splitmix64(np.arange(n, dtype=U) + U((j << 33) | (s << 32)))
    return mixed((h & U(0xFFFFFFFF)).astype(I), (h >> U(32)) % U(8), (h >> U(40)).astype(np.int64), lo, hi)


def rng_inputs(g, n, lo, hi):
    """Run 2's next n inputs from the numpy generator g."""
    r, h = g.integers(0, 2**32, (2, n), dtype=np.uint64).astype(I)
    return mixed(r, h % 8, h >> 3, lo, hi)


def run1_inputs():
    """{form: (a, b or None)}: run 1's 2^17 inputs per form (b for a division)."""
    out = {}
    for j, f in enumerate(FORMS):
        lo, hi = exponent_range(f)
        out[f] = (splitmix_inputs(j, 1 << 17, 0, lo, hi),
                  splitmix_inputs(j, 1 << 17, 1, lo, hi) if f[0] == "d" else None)
    return out


def run2_inputs():
    """{form: (a, b or None)}: run 2's 2^16 inputs per form, drawn in FORMS order from
    default_rng(7) (a, then b for a division)."""
    g = np.random.default_rng(7)
    out = {}
    for f in FORMS:
        lo, hi = exponent_range(f)
        a = rng_inputs(g, 1 << 16, lo, hi)
        out[f] = (a, rng_inputs(g, 1 << 16, lo, hi) if f[0] == "d" else None)
    return out


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
