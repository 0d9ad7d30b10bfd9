#!/usr/bin/env python3
"""Build sim-isa's MUFU tables (sim-isa/data/mufu/*.bin.z) from the H100 dumps.

The dumps come from two runs of tools/mufu/probe.py and tools/mufu/probe2.py on an
NVIDIA H100 80GB HBM3 (driver 580.159.04, CUDA 13.0 driver JIT, sm_90); each run
writes pickles to $OUT, kept here under tools/.cache/mufu/run1 and run2 (git-ignored;
the tables below are a lossless re-encoding of the parts the model needs).

What a table holds (each the output bits of one MUFU op, measured through the
`.approx.ftz.f32` PTX form, which ptxas 13.0 lowers to that MUFU alone):

| table | entries | index -> MUFU result |
| --- | --- | --- |
| rcp  | 2^23 | mantissa m -> RCP(1.m) |
| rsq  | 2^24 | (p << 23) \\| m -> RSQ(2^p * 1.m), p in {0, 1} |
| sqrt | 2^24 | (p << 23) \\| m -> SQRT(2^p * 1.m) |
| ex2p | 2^23 | f -> EX2(f / 2^23) (in [1, 2)) |
| ex2n | 2^23 | f -> EX2(-f / 2^23) (in (0.5, 1]) |
| lg2a | 2^23 | m -> LG2(1.m) |
| lg2b | 2^23 | m -> LG2(0.5 * 1.m) |
| sin  | 2^23 | k -> SIN(t) for t in [k, k+1) / 2^25 (the first quarter period) |

Encoding (what sim-isa/src/exec/mufu_table.rs decodes): zlib of
`b"MUFU" | n: u32 | n_esc: u32 | n x i8 | n_esc x (u32 index, i64 value)`, little
endian. The i8 stream is the second difference of the output bits as integers,
d[i] = v[i] - 2 v[i-1] + v[i-2] (v[-1] = v[-2] = 0); -128 marks an escape whose value
is in the list.

Usage: python3 -m tools.mufu.build_tables [DUMPS_DIR] [OUT_DIR]
"""
import lzma
import os
import pickle
import struct
import sys
import zlib

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DUMPS = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "tools", ".cache", "mufu")
OUTDIR = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "sim-isa", "data", "mufu")


def f64(x):
    """The float64 values of f32 bit patterns."""
    return x.view(np.float32).astype(np.float64)


def rn32(a):
    """float64 values rounded to f32, as bit patterns (int64, for differences)."""
    return a.astype(np.float32).view(np.uint32).astype(np.int64)


def decode(enc, ref=None):
    """Inverse of probe.py's `enc`: int8 stream (+escapes) -> uint32 outputs."""
    b, ei, ev = enc
    d = np.frombuffer(lzma.decompress(b), np.int8).astype(np.int64)
    d[ei] = ev
    if ref is not None:
        return (ref + d).astype(np.uint32)
    return (np.cumsum(np.cumsum(d)) & 0xFFFFFFFF).astype(np.uint32)


def dump(run, name, i=0, ref=None):
    """(sources, results) of one whole-domain dump, decoded (against ref's rounded values
    when the dump was coded against them)."""
    lo, n, e = pickle.load(open(os.path.join(DUMPS, run, name + ".pkl"), "rb"))[i]
    x = np.arange(lo, lo + n, dtype=np.uint32)
    return x, decode(e, ref(f64(x)) if ref else None)


def tables():
    """Each MUFU op's table over its reduced domain, from the dumps (EX2 and LG2 pieced
    together from their binades)."""
    _, rcp = dump("run1", "rcp", ref=lambda x: rn32(1 / x))
    _, rsq = dump("run1", "rsq", ref=lambda x: rn32(1 / np.sqrt(x)))
    _, sqrt = dump("run1", "sqrt", ref=lambda x: rn32(np.sqrt(x)))
    # ex2 over [0.5, 2): the second half is x = 1 + f, EX2 = 2 * 2^f.
    _, ex2 = dump("run1", "ex2", 0)
    ex2p = (ex2[1 << 23:].astype(np.int64) - (1 << 23)).astype(np.uint32)
    # ex2 over [-2, -1): x = -(1 + f), EX2 = 2^-f / 2.
    el = pickle.load(open(os.path.join(DUMPS, "run2", "el.pkl"), "rb"))
    ex2n = (decode(el[0][2]).astype(np.int64) + (1 << 23)).astype(np.uint32)
    # lg2 over [0.5, 4): [0.5, 1) then [1, 2).
    _, lg2 = dump("run1", "lg2", 0)
    lg2b, lg2a = lg2[: 1 << 23], lg2[1 << 23: 2 << 23]
    # sin: the full-period bucket table; its first quarter is all reachable.
    enc, _mask = pickle.load(open(os.path.join(DUMPS, "run2", "sin.pkl"), "rb"))
    b, ei, ev = enc
    d = np.frombuffer(lzma.decompress(b), np.int8).astype(np.int64)
    d[ei] = ev
    sin = (np.cumsum(np.cumsum(d)) & 0xFFFFFFFF).astype(np.uint32)[: 1 << 23]
    return {"rcp": rcp, "rsq": rsq, "sqrt": sqrt, "ex2p": ex2p, "ex2n": ex2n,
            "lg2a": lg2a, "lg2b": lg2b, "sin": sin}


def encode(v):
    """A table as sim-isa reads it: MUFU magic, length and escape count, int8 second
    differences, the escaped values; zlib'd."""
    v = v.astype(np.int64)
    p = np.concatenate([[0, 0], v])
    d = v - 2 * p[1:-1] + p[:-2]
    esc = np.nonzero((d < -127) | (d > 127))[0]
    b = np.clip(d, -128, 127).astype(np.int8)
    b[esc] = -128
    out = b"MUFU" + struct.pack("<II", len(v), len(esc)) + b.tobytes()
    out += b"".join(struct.pack("<Iq", int(i), int(d[i])) for i in esc)
    return zlib.compress(out, 9)


def main():
    if {"-h", "--help"} & set(sys.argv[1:]):  # the usage, not a dumps folder
        print(__doc__)
        return 0
    os.makedirs(OUTDIR, exist_ok=True)
    total = 0
    for name, v in tables().items():
        z = encode(v)
        total += len(z)
        with open(os.path.join(OUTDIR, name + ".bin.z"), "wb") as f:
            f.write(z)
        print(f"{name}: {len(v)} entries, {len(z)} bytes")
    print(f"total {total} bytes")


if __name__ == "__main__":
    main()
