#!/usr/bin/env python3
"""Launch files for the int_math / float_math probes (kernels/probes.cu), and the
reader of the clocks they record.

    PATH=<nvcc 13.0.88 bin>:$PATH python3 -m tools.gpu.make_probes [OUT]   # OUT: tools/gpu/probes
    python3 -m tools.gpu.make_probes --phases LAUNCHES_DIR                    # after launch_check.py

Writes OUT/probes.ptx (nvcc -ptx -arch=sm_90 -O3 of probes.cu, which includes extra.cu,
so the unsplit float_math is in the module too) and these launch files, one block of 256
threads each (8 warps, as int_math.t and float_math.t):

- `int_math_split.t`, `float_math_split.t`: the split kernels on the inputs of
  sim-kernel/tests/data/h100-extra's `int_math.t` and `float_math.t`, with the H100's
  outputs as their expected files (they compute the same values);
- `float_math.plain`, `float_math_split.plain`: float_math on inputs without zeros,
  subnormals or huge values (|x| in [1e-3, 1e5]), which take neither ptxas's sqrt nor
  its f32 division slow path;
- `store_stride.sN` for N = 4, 8, 16, 24, 32: 8 stores a thread at N bytes between lanes.

Each launch's `ph` output holds four clocks per warp (start, loads in, values computed,
stores issued); `--phases` reads them from launch_check.py's OUTDIR/outputs.
"""

import json
import os
import random
import shutil
import struct
import subprocess
import sys

from tools.cli import usage_asked
from tools.gpu.make_extra import launch, warps

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
EXTRA = os.path.join(ROOT, "sim-kernel", "tests", "data", "h100-extra")
GRID, BLOCK, N = [1, 1, 1], [256, 1, 1], 256
STRIDES = (4, 8, 16, 24, 32)
STORES = 8  # stores a thread in store_stride (int_math's 8 a warp)


def plain_f32s(rng, n):
    """n f32 values with magnitudes in [1e-3, 1e5] and either sign: no zero, no subnormal,
    nothing near the largest finite value (float_math.t's inputs have all three)."""
    vals = [rng.choice((-1, 1)) * rng.uniform(1, 10) * 10.0 ** rng.randint(-3, 4) for _ in range(n)]
    return struct.pack(f"<{n}f", *vals)


def stride_expected(stride):
    """store_stride's output for `stride` bytes between lanes: region k (256 * stride
    bytes) holds thread i's value i * 8 + 1 + k at i * stride, zeros elsewhere."""
    words = stride // 4
    out = [0] * (STORES * BLOCK[0] * words)
    for k in range(STORES):
        for i in range(BLOCK[0]):
            out[k * BLOCK[0] * words + i * words] = i * 8 + 1 + k
    return struct.pack(f"<{len(out)}i", *out)


def read(name):
    """A committed file of the H100 extra launches."""
    with open(os.path.join(EXTRA, name), "rb") as f:
        return f.read()


def retarget(out, name, expected=None):
    """Points launch file out/name.json (make_extra's, naming extra.ptx) at probes.ptx and
    adds `expected` (output -> bytes), writing those files."""
    path = os.path.join(out, f"{name}.json")
    with open(path) as f:
        doc = json.load(f)
    doc["ptx"] = "probes.ptx"
    if expected:
        doc["expected"] = {}
        for o, data in expected.items():
            fn = f"{name}.{o}.expected.bin"
            with open(os.path.join(out, fn), "wb") as f:
                f.write(data)
            doc["expected"][o] = fn
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def make(out):
    """Writes the module and every launch file into out."""
    os.makedirs(out, exist_ok=True)
    subprocess.run(["nvcc", "-ptx", "-arch=sm_90", "-O3", "-I", os.path.join(HERE, "kernels"),
                    os.path.join(HERE, "kernels", "probes.cu"), "-o", os.path.join(out, "probes.ptx")], check=True)
    w = warps(GRID, BLOCK)
    ph = (32 * w, None)
    B = lambda n: {"buffer": n}

    def one(name, entry, bufs, params, outputs, expected=None):
        launch(out, name, entry, GRID, BLOCK, dict(bufs, ph=ph), params + [B("ph")], outputs + ["ph"], w)
        retarget(out, name, expected)

    one("int_math_split.t", "int_math_split",
        {"a": (4 * N, read("int_math.t.a.bin")), "b": (4 * N, read("int_math.t.b.bin")),
         "o64": (16 * N, None), "o32": (24 * N, None)},
        [B("a"), B("b"), B("o64"), B("o32"), {"s32": N}], ["o64", "o32"],
        {"o64": read("int_math.t.o64.expected.bin"), "o32": read("int_math.t.o32.expected.bin")})
    fm = lambda a, b, q: {"a": (4 * N, a), "b": (4 * N, b), "f": (12 * N, None), "q": (4 * N, q)}
    fp = [B("a"), B("b"), B("f"), B("q"), {"s32": N}]
    one("float_math_split.t", "float_math_split",
        fm(read("float_math.t.a.bin"), read("float_math.t.b.bin"), read("float_math.t.q.bin")), fp, ["f", "q"],
        {"f": read("float_math.t.f.expected.bin"), "q": read("float_math.t.q.expected.bin")})
    rng = random.Random(20261130)
    plain = fm(plain_f32s(rng, N), plain_f32s(rng, N), read("float_math.t.q.bin"))
    one("float_math_split.plain", "float_math_split", plain, fp, ["f", "q"])
    # float_math itself has no `ph` parameter: its launch file is make_extra's kind.
    launch(out, "float_math.plain", "float_math", GRID, BLOCK, plain, fp, ["f", "q"], w)
    retarget(out, "float_math.plain")
    for s in STRIDES:
        one(f"store_stride.s{s}", "store_stride", {"out": (STORES * BLOCK[0] * s, None)},
            [B("out"), {"s32": s // 4}], ["out"], {"out": stride_expected(s)})


def phases(ph):
    """The four clocks of each warp (start, loads in, values computed, stores issued) from
    a `ph` output, and the block's split of its window: loads = last `loads in` minus
    first start, arithmetic and stores likewise from the previous boundary's last."""
    rows = [struct.unpack_from("<4q", ph, 32 * k) for k in range(len(ph) // 32)]
    rows = [r for r in rows if r != (0, 0, 0, 0)]
    if not rows:
        return None
    first = min(r[0] for r in rows)
    last = [max(r[j] for r in rows) for j in range(4)]
    return {"window": last[3] - first, "loads": last[1] - first, "arithmetic": last[2] - last[1],
            "stores": last[3] - last[2],
            "per_warp": [[r[1] - r[0], r[2] - r[1], r[3] - r[2]] for r in rows]}


def print_phases(launches):
    """Prints the split of every launch whose `ph` output launch_check.py kept; 1 (saying
    so) when it kept none."""
    outs = os.path.join(launches, "outputs")
    names = sorted(fn for fn in os.listdir(outs) if fn.endswith(".ph.bin")) if os.path.isdir(outs) else []
    if not names:
        print(f"make_probes --phases: no *.ph.bin under {outs} (did launch_check.py run?)", file=sys.stderr)
        return 1
    for fn in names:
        with open(os.path.join(outs, fn), "rb") as f:
            p = phases(f.read())
        print(fn[:-7], json.dumps(p))
    return 0


def main():
    if usage_asked(__doc__):
        return 0
    args = sys.argv[1:]
    if args[:1] == ["--phases"]:
        if len(args) != 2:
            print(__doc__, file=sys.stderr)
            return 2
        return print_phases(args[1])
    out = args[0] if args else os.path.join(HERE, "probes")
    if shutil.which("nvcc") is None:
        sys.exit("make_probes: nvcc 13.0.88 must be on PATH")
    make(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
