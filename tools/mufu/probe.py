"""H100 run 1 (see README.md): 2^17 random inputs per approximate form (splitmix64
streams, replayed by vectors.py) -> $OUT/vec.pkl, and whole-domain dumps of each MUFU op
through its .approx.ftz.f32 form ([1,2) for RCP, [1,4) for RSQ/SQRT, [0.5,2) and [-1,-0.5)
for EX2, [0.5,4) for LG2, two binades for SIN/COS), second-difference coded and lzma'd,
-> $OUT/{rcp,rsq,sqrt,ex2,lg2,sin,cos}.pkl. It was minified once to travel gzip+base64 inside
the device command (2,000 characters at most); it is laid out for reading now, its
inputs and coding in streams.py and its kernels in gpu.py, and travels with the working
tree: `python3 -m tools.mufu.probe` from the repository root. Needs cupy and an NVIDIA
GPU."""

import os
import pickle

import cupy as cp
import numpy as np

from tools.mufu.gpu import domain_dump, run_form
from tools.mufu.streams import I, run1_inputs

OUT_DIR = os.environ["OUT"] + "/"

VALUES = {f: cp.asnumpy(run_form(f, a, b)) for f, (a, b) in run1_inputs().items()}
pickle.dump(VALUES, open(OUT_DIR + "vec.pkl", "wb"))
as_f32_bits = lambda a: a.astype(np.float32).view(I)

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
