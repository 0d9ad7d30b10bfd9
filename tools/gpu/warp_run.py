#!/usr/bin/env python3
"""Run warp vectors (tensor-core and WMMA forms) and the async family's one-thread
vectors on a real NVIDIA GPU (issue 23).

    PTXAS=<ptxas 13.0.88> cargo run -p xtask --release -- values --family mma \\
        --inputs 16 --seed 23 --gpu-dir OUT/          # here: kernels.ptx, manifest.json.gz
    python3 -m tools.gpu.warp_run OUT/ --observed OUT/observed.jsonl.gz   # on the GPU machine

`xtask values --family mma|wmma|async --gpu-dir` writes the kernels the SASS
oracle compiled (one a form) and, for every vector, the input buffer the oracle
ran: the form's memory image, then 8 bytes a register for each lane (async:
the register slots, `sm`'s bytes, the copy source's; a copy's source register
points into the interpreter's buffer and is moved into the GPU's). This
script runs each vector as one launch of one warp or one thread (the driver
JIT-compiles the PTX), reads the registers the form writes from the output
buffer (and the image, for a form that writes it), and writes them as warp vectors
(`sim_isa::conform_warp`'s format; async: the oracle's thread format) with the GPU, driver and CUDA versions in a
header and in each line. It prints how many equal the oracle's and the first
that differ. `--dry-run` assembles kernels.ptx with ptxas ($PTXAS) instead.
"""

import argparse
import gzip
import json
import os
import sys

from tools.gpu.run import Cuda, assemble, die, load_dir

LANES = 32


def decode(k, out):
    """The registers the form wrote, each as 32 lanes of hex, and the image it left
    (hex, or None), from the output buffer `out` of kernel `k`."""
    slots = 8 * len(k["slots"])
    img = k["img"]
    regs = {}
    for s, r in enumerate(k["slots"]):
        if r["name"] not in k["dsts"]:
            continue
        mask = (1 << 64) - 1 if r["width"] == 64 else 0xFFFFFFFF
        lanes = []
        for lane in range(LANES):
            at = img + lane * slots + 8 * s
            lanes.append(hex(int.from_bytes(out[at:at + 8], "little") & mask))
        regs[r["name"]] = lanes
    image = out[:img].hex() if img and k["writes"] else None
    return regs, image


def run_thread(cuda, mod, k, inp):
    """One launch of a one-thread kernel (`thread` layout: the async family) on `inp`,
    its address registers moved from the interpreter's input buffer into this one;
    returns the output buffer."""
    import ctypes
    th = k["thread"]
    names = [r["name"] for r in k["slots"]]
    fn = ctypes.c_void_p()
    cuda.check(cuda.lib.cuModuleGetFunction(ctypes.byref(fn), mod, k["kernel"].encode()), "cuModuleGetFunction")
    din, dout = ctypes.c_uint64(), ctypes.c_uint64()
    cuda.check(cuda.lib.cuMemAlloc_v2(ctypes.byref(din), len(inp)), "cuMemAlloc")
    cuda.check(cuda.lib.cuMemAlloc_v2(ctypes.byref(dout), len(inp)), "cuMemAlloc")
    buf = bytearray(inp)
    for name in th["addresses"]:
        s = names.index(name)
        v = int.from_bytes(buf[8 * s:8 * s + 8], "little")
        buf[8 * s:8 * s + 8] = (din.value + v - th["in_base"]).to_bytes(8, "little")
    cuda.check(cuda.lib.cuMemcpyHtoD_v2(din, bytes(buf), len(buf)), "cuMemcpyHtoD")
    cuda.check(cuda.lib.cuMemsetD8_v2(dout, 0, len(buf)), "cuMemsetD8")
    args = (ctypes.c_void_p * 2)(ctypes.cast(ctypes.byref(din), ctypes.c_void_p),
                                 ctypes.cast(ctypes.byref(dout), ctypes.c_void_p))
    cuda.check(cuda.lib.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, None, args, None), "cuLaunchKernel")
    cuda.check(cuda.lib.cuCtxSynchronize(), "cuCtxSynchronize")
    host = ctypes.create_string_buffer(len(buf))
    cuda.check(cuda.lib.cuMemcpyDtoH_v2(host, dout, len(buf)), "cuMemcpyDtoH")
    cuda.lib.cuMemFree_v2(din)
    cuda.lib.cuMemFree_v2(dout)
    return host.raw


def decode_thread(k, out):
    """The registers a one-thread kernel wrote (a predicate as a bool, others as hex)
    and `sm`'s bytes after, from its output buffer."""
    th = k["thread"]
    regs = {}
    for s, r in enumerate(k["slots"]):
        if r["name"] not in k["dsts"]:
            continue
        raw = int.from_bytes(out[8 * s:8 * s + 8], "little")
        regs[r["name"]] = raw != 0 if r["width"] == 1 else hex(raw if r["width"] == 64 else raw & 0xFFFFFFFF)
    return regs, out[th["shared_at"]:th["shared_at"] + th["span"]].hex()


def check(manifest):
    """Exits when the manifest and its vectors do not fit together."""
    for k in manifest["kernels"]:
        th = k.get("thread")
        size = th["bytes"] if th else k["img"] + LANES * 8 * len(k["slots"])
        for v in k["vectors"]:
            if len(v["input"]) != 2 * size:
                die(f"{k['kernel']}: an input of {len(v['input']) // 2} bytes, expected {size}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", help="the --gpu-dir of `xtask values --family mma|wmma|async`")
    ap.add_argument("--observed", help="write the observed warp vectors here (.gz: gzipped)")
    ap.add_argument("--dry-run", action="store_true", help="check and assemble only; no GPU")
    a = ap.parse_args()
    manifest, ptx = load_dir(a.dir)
    check(manifest)
    kernels = manifest["kernels"]
    nvec = sum(len(k["vectors"]) for k in kernels)
    if a.dry_run:
        assemble(os.path.join(a.dir, "kernels.ptx"), "sm_90")
        print(f"dry run: {len(kernels)} kernels, {nvec} vectors; kernels.ptx assembles for sm_90")
        return 0

    cuda = Cuda()
    info = cuda.info()
    mod = cuda.load(ptx)
    same = differ = 0
    lines = [f"# warp vectors observed on {info['gpu']} ({info['sm']}), driver {info['driver']}, "
             f"CUDA {info['cuda']} (tools/gpu/warp_run.py; inputs and kernels from xtask values --gpu-dir)"]
    for k in kernels:
        for v in k["vectors"]:
            inp = bytes.fromhex(v["input"])
            if k.get("thread"):
                regs, image = decode_thread(k, run_thread(cuda, mod, k, inp))
            else:
                out = cuda.run(mod, k["kernel"], inp, len(inp), LANES, block=LANES)
                regs, image = decode(k, out)
            oracle = json.loads(v["line"])
            seen = dict(oracle)
            seen["arch"] = info["sm"]
            seen["out"] = regs
            if image is not None:
                seen["shared_out"] = image
            seen.update({"source": "gpu", "gpu": info["gpu"], "driver": info["driver"],
                         "cuda": info["cuda"]})
            if regs == oracle["out"] and image == oracle.get("shared_out"):
                same += 1
            else:
                differ += 1
                if differ <= 20:
                    bad = [n for n in regs if regs[n] != oracle["out"].get(n)]
                    print(f"differs from the oracle: {k['ptx']} (registers {bad}, "
                          f"image {'differs' if image != oracle.get('shared_out') else 'same'})")
            lines.append(json.dumps(seen, separators=(",", ":")))
    if a.observed:
        opener = gzip.open if a.observed.endswith(".gz") else open
        with opener(a.observed, "wt") as f:
            f.write("\n".join(lines) + "\n")
    print(f"{info['gpu']} ({info['sm']}), driver {info['driver']}, CUDA {info['cuda']}")
    print(f"{same} equal to the oracle, {differ} differ ({len(kernels)} forms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
