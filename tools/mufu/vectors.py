#!/usr/bin/env python3
"""Conformance vectors (docs/conformance-format.md) from the H100 runs of
tools/mufu/probe.py (`vec.pkl`: 2^17 random inputs per form) and probe2.py
(`ho.pkl`: 2^16 other random inputs per form, numpy default_rng(7)).

Inputs mix random bit patterns, values in each form's useful range, values at the
exponent boundaries, and special values (zeros, infinities, NaNs, subnormals);
the outputs are what the GPU produced. None of them went into the MUFU tables,
which come from whole-domain dumps.

Usage: python3 -m tools.mufu.vectors run1|run2 N OUT.jsonl   (N per form; 0 = all)
"""
import json
import os
import pickle
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DUMPS = os.path.join(ROOT, "tools", ".cache", "mufu")
FORMS = [o + z + ".f32" for o in "rcp.approx rsqrt.approx sqrt.approx ex2.approx lg2.approx "
         "sin.approx cos.approx div.approx div.full".split() for z in ("", ".ftz")]
HEADER = ("# {n} vectors of the approximate f32 forms (rcp rsqrt sqrt ex2 lg2 sin cos .approx, "
          "div.approx, div.full, with and without .ftz), values observed on an NVIDIA H100 80GB "
          "HBM3 (driver 580.159.04, CUDA 13.0 driver JIT of inline PTX, sm_90) by "
          "tools/mufu/{probe} ({what}); random inputs not used to build the MUFU tables")


def run1_inputs():
    """probe.py's input generator (splitmix64 streams), replayed."""
    U = np.uint64
    I = np.uint32

    def sm(s):
        """splitmix64 of each counter, as probe.py computes it."""
        z = s + U(0x9E3779B97F4A7C15)
        z = (z ^ (z >> U(30))) * U(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> U(27))) * U(0x94D049BB133111EB)
        return z ^ (z >> U(31))

    # SP, BE and gen stay a copy of probe.py's SPECIAL, BOUNDARY_EXPONENTS and
    # random_inputs (issue 27): probe.py imports cupy and ran alone on the GPU as it is;
    # tools/tests/test_mufu.py holds this replay equal to probe.py's generator.
    SP = np.array([0, 1 << 31, 0x7f800000, 0x7fc00000, 0x7f800001, 0x7fffffff, 1, 0x7fffff,
                   0x800000, 0x3f800000, 0x7f7fffff, 0x7effffff, 0x7f000000, 0x400000, 0x3f000000,
                   0x4b000000, 0x42fc0000, 0xc2fc0000, 0xc2fe0000, 0x43000000, 0xc3160000,
                   0x40490fdb, 0x3fc90fdb, 0x3e22f983, 0x34000000, 0x33800000, 0x7e800000,
                   0x800001, 0x3f7fffff, 0x3f800001], I)
    BE = np.array([0, 1, 2, 3, 124, 125, 126, 127, 128, 129, 130, 252, 253, 254, 255], I)

    def gen(j, n, s, lo, hi):
        """probe.py's random_inputs, replayed: form j's stream s of n inputs."""
        h = sm(np.arange(n, dtype=U) + U((j << 33) | (s << 32)))
        r = (h & U(0xFFFFFFFF)).astype(I)
        c = (h >> U(32)) % U(8)
        t = (h >> U(40)).astype(np.int64)
        m = r & I(0x807fffff)
        x = np.where(c >> U(1) == 2, m | ((lo + t % (hi - lo + 1)) << 23).astype(I), r)
        x = np.where(c == 6, m | (BE[t % 15] << 23), x)
        return np.where(c == 7, SP[t % 30] ^ (r & I(1 << 31)), x)

    out = {}
    for j, f in enumerate(FORMS):
        lo, hi = {"e": (100, 134), "s": (100, 136), "c": (100, 136)}.get(f[0], (64, 190))
        a = gen(j, 1 << 17, 0, lo, hi)
        b = gen(j, 1 << 17, 1, lo, hi) if f[0] == "d" else None
        out[f] = (a, b)
    return out


def load(run):
    """{form: (a, b or None, outputs)} of one run: run 1's inputs replayed, run 2's stored
    with its outputs."""
    if run == "run1":
        V = pickle.load(open(os.path.join(DUMPS, "run1", "vec.pkl"), "rb"))
        ins = run1_inputs()
        return {f: (ins[f][0], ins[f][1], V[f]) for f in FORMS}
    V = pickle.load(open(os.path.join(DUMPS, "run2", "ho.pkl"), "rb"))
    return {f: V[f] for f in FORMS}


def main():
    if {"-h", "--help"} & set(sys.argv[1:]):  # the usage, not an output path
        print(__doc__)
        return 0
    run, n, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    data = load(run)
    lines = []
    for f in FORMS:
        a, b, y = data[f]
        k = len(y) if n == 0 else n
        for i in range(k):
            if b is None:
                ptx, ins = f"{f} %d, %a;", {"%a": hex(int(a[i]))}
            else:
                ptx, ins = f"{f} %d, %a, %b;", {"%a": hex(int(a[i])), "%b": hex(int(b[i]))}
            lines.append(json.dumps({"arch": "sm_90", "ptx": ptx, "in": ins,
                                     "out": {"%d": hex(int(y[i]))}, "source": "h100"}))
    what = ("splitmix64 inputs, 2^17 per form" if run == "run1"
            else "numpy default_rng(7) inputs, 2^16 per form")
    probe = "probe.py" if run == "run1" else "probe2.py"
    with open(path, "w") as fh:
        fh.write(HEADER.format(n=len(lines), probe=probe, what=what) + "\n")
        fh.write("\n".join(lines) + "\n")
    print(f"{path}: {len(lines)} vectors")


if __name__ == "__main__":
    main()
