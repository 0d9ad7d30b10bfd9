#!/usr/bin/env python3
"""Launch files for the extra kernels (kernels/extra.cu), inputs included.

    PATH=<nvcc 13.0.88 bin>:$PATH python3 -m tools.gpu.make_extra OUT/
    python3 -m tools.gpu.launch OUT/*.json        # on a machine with a GPU

Writes OUT/extra.ptx (nvcc -ptx -arch=sm_90 -O3), the launch files and their
input buffers (a fixed-seed generator: re-running gives the same bytes).
`launch.py` then runs each launch on the GPU and writes the `expected` files
and the `h100` figures into each launch file.
"""

import json
import os
import random
import struct
import subprocess
import sys

from tools.cli import usage_asked

R = random.Random(20261124)


def i32s(n, lo=-(1 << 31), hi=(1 << 31) - 1):
    """n random s32 values in [lo, hi] as little-endian bytes (the module's fixed seed: the
    files are reproducible)."""
    return struct.pack(f"<{n}i", *[R.randint(lo, hi) for _ in range(n)])


def u32s(n):
    """n random u32 values as little-endian bytes."""
    return struct.pack(f"<{n}I", *[R.getrandbits(32) for _ in range(n)])


def f32s(n):
    """n f32 values as bytes: mostly spread over six decades of either sign, one in twenty a
    special (zeros, subnormals, near the largest finite, one), so the kernels meet the
    edge cases."""
    vals = []
    for _ in range(n):
        k = R.random()
        if k < 0.05:
            vals.append(R.choice([0.0, -0.0, 1e-40, -1e-39, 3.4e38, 1.0]))
        else:
            vals.append(R.uniform(-100, 100) * (10 ** R.randint(-3, 3)))
    return struct.pack(f"<{n}f", *vals)


def launch(out, name, entry, grid, block, bufs, params, outputs, warps):
    """Writes launch file out/name.json (docs/launch-format.md) and its input files: bufs
    maps a buffer to (bytes, data), data being bytes (a file), an int (a fill) or None
    (zeros); a clock buffer of 16 bytes per warp is appended as the last parameter, as
    the kernels expect."""
    files = {}
    spec = {}
    for b, (size, data) in bufs.items():
        if data is None:
            spec[b] = {"bytes": size, "fill": 0}
        elif isinstance(data, int):
            spec[b] = {"bytes": size, "fill": data}
        else:
            assert len(data) == size, (name, b)
            fn = f"{name}.{b}.bin"
            files[fn] = data
            spec[b] = {"bytes": size, "file": fn}
    spec["clk"] = {"bytes": 16 * warps, "fill": 0}
    doc = {
        "ptx": "extra.ptx",
        "entry": entry,
        "grid": grid,
        "block": block,
        "buffers": spec,
        "params": params + [{"buffer": "clk"}],
        "outputs": outputs,
    }
    for fn, data in files.items():
        with open(os.path.join(out, fn), "wb") as f:
            f.write(data)
    with open(os.path.join(out, f"{name}.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def warps(grid, block):
    """Warps a launch runs: blocks times warps per block (a partial warp counts)."""
    t = block[0] * block[1] * block[2]
    return grid[0] * grid[1] * grid[2] * ((t + 31) // 32)


def main():
    if usage_asked(__doc__):
        return 0
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.run(["nvcc", "-ptx", "-arch=sm_90", "-O3", os.path.join(here, "kernels", "extra.cu"),
                    "-o", os.path.join(out, "extra.ptx")], check=True)
    B = lambda n: {"buffer": n}
    for sfx, grid, block, n in [("t", [1, 1, 1], [256, 1, 1], 256), ("v", [5, 1, 1], [200, 1, 1], 1000)]:
        g, bl = grid, block
        w = warps(g, bl)
        launch(out, f"reduce_shfl.{sfx}", "reduce_shfl", g, bl,
               {"in": (4 * n, i32s(n, -1000000, 1000000)), "partial": (4 * g[0], None), "total": (4, None)},
               [B("in"), B("partial"), B("total"), {"s32": n}], ["partial", "total"], w)
        launch(out, f"compact_vote.{sfx}", "compact_vote", g, bl,
               {"in": (4 * n, i32s(n, -50, 50)), "out": (4 * 32 * w, 0xff), "count": (4, None), "ballots": (4 * w, None)},
               [B("in"), B("out"), B("count"), B("ballots"), {"s32": n}, {"s32": 7}], ["out", "count", "ballots"], w)
        launch(out, f"float_math.{sfx}", "float_math", g, bl,
               {"a": (4 * n, f32s(n)), "b": (4 * n, f32s(n)), "f": (12 * n, None), "q": (4 * n, i32s(n, -5000, 5000))},
               [B("a"), B("b"), B("f"), B("q"), {"s32": n}], ["f", "q"], w)
        launch(out, f"int_math.{sfx}", "int_math", g, bl,
               {"a": (4 * n, i32s(n)), "b": (4 * n, u32s(n)), "o64": (16 * n, None), "o32": (24 * n, None)},
               [B("a"), B("b"), B("o64"), B("o32"), {"s32": n}], ["o64", "o32"], w)
        launch(out, f"local_sort.{sfx}", "local_sort", g, bl,
               {"in": (32 * n, i32s(8 * n, -10000, 10000)), "out": (32 * n, None)},
               [B("in"), B("out"), {"s32": n}], ["out"], w)
        launch(out, f"vec_bytes.{sfx}", "vec_bytes", g, bl,
               {"in": (16 * n, i32s(4 * n)), "bytes": (n, bytes(R.getrandbits(8) for _ in range(n))),
                "s16": (2 * n, struct.pack(f"<{n}h", *[R.randint(-32768, 32767) for _ in range(n)])),
                "out4": (4 * n, None), "out": (16 * n, None)},
               [B("in"), B("bytes"), B("s16"), B("out4"), B("out"), {"s32": n}], ["out4", "out"], w)
        launch(out, f"const_lookup.{sfx}", "const_lookup", g, bl,
               {"idx": (4 * n, u32s(n)), "out": (4 * n, None)},
               [B("idx"), B("out"), {"s32": n}], ["out"], w)
        ga = [(4 * (8 + n), struct.pack("<8i", 0x7fffffff, -0x80000000, -1, 0, 0x12345678, 0, 0, 0)
               + struct.pack(f"<{n}i", *[R.randint(0, 2) for _ in range(n)]))]
        launch(out, f"atomics.{sfx}", "atomics", g, bl,
               {"in": (4 * n, i32s(n, -1000000, 1000000)), "g": ga[0], "u": (16, struct.pack("<4I", 5, 700, 0, 0))},
               [B("in"), B("g"), B("u"), {"s32": n}], ["g", "u"], w)
    for sfx, grid, block, n in [("t", [1, 1, 1], [128, 1, 1], 2048), ("v", [3, 1, 1], [96, 1, 1], 3000)]:
        w = warps(grid, block)
        launch(out, f"histogram.{sfx}", "histogram", grid, block,
               {"data": (n, bytes(R.getrandbits(8) for _ in range(n))), "hist": (256, None)},
               [B("data"), B("hist"), {"s32": n}], ["hist"], w)
    for sfx, grid, wh in [("t", [1, 1, 1], (16, 16)), ("v", [3, 2, 1], (40, 27))]:
        block = [16, 16, 1]
        w = warps(grid, block)
        ww, hh = wh
        launch(out, f"transpose_tile.{sfx}", "transpose_tile", grid, block,
               {"in": (4 * ww * hh, i32s(ww * hh, -100000, 100000)), "out": (4 * ww * hh, None)},
               [B("in"), B("out"), {"s32": ww}, {"s32": hh}], ["out"], w)


if __name__ == "__main__":
    main()
