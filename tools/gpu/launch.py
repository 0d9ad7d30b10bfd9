#!/usr/bin/env python3
"""Run launch files (docs/launch-format.md) on a real NVIDIA GPU.

    python3 -m tools.gpu.launch DIR/*.json [--runs 2]

For each launch file: allocates every buffer (cuMemAlloc), copies its initial
bytes in, loads the module with the driver's JIT (cuModuleLoadData: no
compiler needed on the GPU machine), launches the entry with the launch's grid
and block, and copies the outputs back. The first launch (fresh buffers) gives
`NAME.BUF.expected.bin` for every output and, for one-block launches,
`h100.cycles_cold` = max(end) - min(start) over the warps' %clock64 pairs the
kernel stored in `clk`; a second launch on identical fresh buffers gives
`cycles_warm`. Both are written into the launch file with the device and driver.
"""

import ctypes
import json
import os
import struct
import sys

from tools.gpu.run import Cuda


def run_once(cu, mod_cache, path, doc):
    """Runs one launch file on the GPU (its module loaded once per PTX file) and returns its
    output buffers and clock buffer, as launch files describe them."""
    base = os.path.dirname(path)
    key = os.path.join(base, doc["ptx"])
    if key not in mod_cache:
        text = open(key, "rb").read() + b"\0"
        m = ctypes.c_void_p()
        cu.check(cu.lib.cuModuleLoadData(ctypes.byref(m), text), f"cuModuleLoadData {key}")
        mod_cache[key] = m
    fn = ctypes.c_void_p()
    cu.check(cu.lib.cuModuleGetFunction(ctypes.byref(fn), mod_cache[key], doc["entry"].encode()), "cuModuleGetFunction")
    ptrs = {}
    for name, b in doc["buffers"].items():
        p = ctypes.c_uint64()
        cu.check(cu.lib.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(max(b["bytes"], 1))), "cuMemAlloc")
        data = open(os.path.join(base, b["file"]), "rb").read() if "file" in b else bytes([b["fill"]]) * b["bytes"]
        cu.check(cu.lib.cuMemcpyHtoD_v2(p, data, ctypes.c_size_t(len(data))), "cuMemcpyHtoD")
        ptrs[name] = p
    args = []
    for prm in doc["params"]:
        (k, v), = prm.items()
        if k == "buffer":
            args.append(ctypes.c_uint64(ptrs[v].value))
        elif k in ("u32",):
            args.append(ctypes.c_uint32(v))
        elif k == "s32":
            args.append(ctypes.c_int32(v))
        elif k == "u64":
            args.append(ctypes.c_uint64(v))
        elif k == "s64":
            args.append(ctypes.c_int64(v))
        elif k == "f32":
            args.append(ctypes.c_float(v))
    arr = (ctypes.c_void_p * len(args))(*[ctypes.cast(ctypes.pointer(a), ctypes.c_void_p) for a in args])
    g, bl = doc["grid"], doc["block"]
    cu.check(cu.lib.cuLaunchKernel(fn, g[0], g[1], g[2], bl[0], bl[1], bl[2], 0, None, arr, None), "cuLaunchKernel")
    cu.check(cu.lib.cuCtxSynchronize(), "cuCtxSynchronize")
    out = {}
    for name, b in doc["buffers"].items():
        buf = ctypes.create_string_buffer(b["bytes"])
        cu.check(cu.lib.cuMemcpyDtoH_v2(buf, ptrs[name], ctypes.c_size_t(b["bytes"])), "cuMemcpyDtoH")
        out[name] = buf.raw
        cu.lib.cuMemFree_v2(ptrs[name])
    return out


def window(clk):
    """The launch's clock window: last end minus first start over the warps' (start, end)
    clock64 pairs, unwritten (0, 0) pairs left out."""
    pairs = [struct.unpack_from("<qq", clk, 16 * k) for k in range(len(clk) // 16)]
    pairs = [p for p in pairs if p != (0, 0)]
    return max(e for _, e in pairs) - min(s for s, _ in pairs)


def main():
    if {"-h", "--help"} & set(sys.argv[1:]):  # the usage, not an output path
        print(__doc__)
        return 0
    paths = [a for a in sys.argv[1:] if a.endswith(".json")]
    cu = Cuda()
    info = cu.info() if hasattr(cu, "info") else {}
    mods = {}
    for path in paths:
        doc = json.load(open(path))
        if "entry" not in doc:
            continue  # not a launch file (a manifest beside them)
        first = run_once(cu, mods, path, doc)
        second = run_once(cu, mods, path, doc)
        base = os.path.dirname(path)
        stem = os.path.basename(path)[:-5]
        doc["expected"] = {}
        for o in doc["outputs"]:
            fn = f"{stem}.{o}.expected.bin"
            open(os.path.join(base, fn), "wb").write(first[o])
            doc["expected"][o] = fn
            if first[o] != second[o]:
                print(f"warning: {path}: output {o} differs between two launches", file=sys.stderr)
        t = doc["block"][0] * doc["block"][1] * doc["block"][2]
        nblocks = doc["grid"][0] * doc["grid"][1] * doc["grid"][2]
        h = {"warps": nblocks * ((t + 31) // 32)}
        if nblocks == 1 and "clk" in first:
            h["cycles_cold"] = window(first["clk"])
            h["cycles_warm"] = window(second["clk"])
        h["note"] = f"max(end) - min(start) of per-warp %clock64 reads; one block, one SM; {info}"
        doc["h100"] = h
        json.dump(doc, open(path, "w"), indent=1)
        open(path, "a").write("\n")
        print(path, h.get("cycles_cold"), h.get("cycles_warm"))


if __name__ == "__main__":
    main()
