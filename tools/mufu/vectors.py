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

from tools.mufu.streams import FORMS, run1_inputs

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DUMPS = os.path.join(ROOT, "tools", ".cache", "mufu")
HEADER = ("# {n} vectors of the approximate f32 forms (rcp rsqrt sqrt ex2 lg2 sin cos .approx, "
          "div.approx, div.full, with and without .ftz), values observed on an NVIDIA H100 80GB "
          "HBM3 (driver 580.159.04, CUDA 13.0 driver JIT of inline PTX, sm_90) by "
          "tools/mufu/{probe} ({what}); random inputs not used to build the MUFU tables")


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
