#!/usr/bin/env python3
"""Run conformance vectors on a real NVIDIA GPU (issue 5, part 3).

    cargo run -p xtask --release -- gpu-kernels VECTORS.jsonl OUT/   # PTX + manifest
    python3 -m tools.gpu.run OUT/ --observed OUT/observed.jsonl      # on the GPU machine

The kernels come from `xtask gpu-kernels`: one kernel per distinct instruction,
one vector per thread; each thread loads its registers from global memory,
executes the instruction and stores what it writes (the same kernel shape
`xtask values` compiles and interprets). This script loads the PTX with the
CUDA driver API (ctypes, no compiler needed), runs every kernel, writes the
observed values back as conformance vectors (FORMAT.md) with the GPU, driver
and CUDA versions in a header and in each line, compares them with the
vectors' expected values and prints `N passed, M failed`.

`--dry-run` checks the manifest and assembles kernels.ptx with ptxas ($PTXAS,
else tools/.cache/py) instead of touching a GPU: everything up to the launch.
`cargo run -p xtask --release -- gpu-simulate OUT/` goes one step further
without a GPU: it runs the kernels' sm_90 machine code thread by thread in the
xtask SASS interpreter with this script's buffer layout.
"""

import argparse
import ctypes
import gzip
import json
import os
import subprocess
import sys


def die(msg):
    """Prints the error and exits 2: the harness has nothing sensible to do after a driver
    error."""
    print(f"error: {msg}", file=sys.stderr)
    sys.exit(2)


class Cuda:
    """The few driver API calls the harness needs."""

    def __init__(self):
        """Loads the driver library, initialises it and creates a context on device 0; exits
        when there is no driver."""
        for name in ("libcuda.so.1", "libcuda.so", "nvcuda.dll"):
            try:
                self.lib = ctypes.CDLL(name)
                break
            except OSError:
                continue
        else:
            die("no CUDA driver (libcuda.so.1) on this machine")
        self.check(self.lib.cuInit(0), "cuInit")
        self.dev = ctypes.c_int()
        self.check(self.lib.cuDeviceGet(ctypes.byref(self.dev), 0), "cuDeviceGet")
        self.ctx = ctypes.c_void_p()
        self.check(self.lib.cuCtxCreate_v2(ctypes.byref(self.ctx), 0, self.dev), "cuCtxCreate")

    def check(self, rc, what):
        """Exits with the driver's error string when a call failed."""
        if rc != 0:
            s = ctypes.c_char_p()
            self.lib.cuGetErrorString(rc, ctypes.byref(s))
            die(f"{what} failed: {rc} {s.value.decode() if s.value else ''}")

    def info(self):
        """The GPU's name, sm_XY, driver and CUDA versions: written into every observed
        vector so that a file says where its values came from."""
        name = ctypes.create_string_buffer(256)
        self.check(self.lib.cuDeviceGetName(name, 256, self.dev), "cuDeviceGetName")
        major, minor = ctypes.c_int(), ctypes.c_int()
        # CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR/MINOR = 75/76
        self.check(self.lib.cuDeviceGetAttribute(ctypes.byref(major), 75, self.dev), "attr")
        self.check(self.lib.cuDeviceGetAttribute(ctypes.byref(minor), 76, self.dev), "attr")
        ver = ctypes.c_int()
        self.check(self.lib.cuDriverGetVersion(ctypes.byref(ver)), "cuDriverGetVersion")
        driver = "unknown"
        try:
            with open("/proc/driver/nvidia/version") as f:
                driver = f.readline().strip()
        except OSError:
            try:
                driver = subprocess.run(
                    ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                    capture_output=True, text=True, check=True).stdout.strip()
            except (OSError, subprocess.CalledProcessError):
                pass
        return {
            "gpu": name.value.decode(),
            "sm": f"sm_{major.value}{minor.value}",
            "driver": driver,
            "cuda": f"{ver.value // 1000}.{ver.value % 1000 // 10}",
        }

    def load(self, ptx):
        """JIT-compiles PTX text into a module (no compiler is needed on the GPU machine)."""
        mod = ctypes.c_void_p()
        buf = ctypes.create_string_buffer(ptx.encode() + b"\0")
        self.check(self.lib.cuModuleLoadData(ctypes.byref(mod), buf), "cuModuleLoadData (PTX JIT)")
        return mod

    def run(self, mod, name, inp, out_len, n, block=128):
        """Runs kernel `name` over n threads (blocks of `block`) on a copy of inp and returns
        out_len bytes of its output buffer."""
        fn = ctypes.c_void_p()
        self.check(self.lib.cuModuleGetFunction(ctypes.byref(fn), mod, name.encode()), "cuModuleGetFunction")
        din, dout = ctypes.c_uint64(), ctypes.c_uint64()
        self.check(self.lib.cuMemAlloc_v2(ctypes.byref(din), max(len(inp), 8)), "cuMemAlloc")
        self.check(self.lib.cuMemAlloc_v2(ctypes.byref(dout), max(out_len, 8)), "cuMemAlloc")
        self.check(self.lib.cuMemcpyHtoD_v2(din, bytes(inp), len(inp)), "cuMemcpyHtoD")
        self.check(self.lib.cuMemsetD8_v2(dout, 0, max(out_len, 8)), "cuMemsetD8")
        cn = ctypes.c_uint32(n)
        args = (ctypes.c_void_p * 3)(
            ctypes.cast(ctypes.byref(din), ctypes.c_void_p),
            ctypes.cast(ctypes.byref(dout), ctypes.c_void_p),
            ctypes.cast(ctypes.byref(cn), ctypes.c_void_p))
        grid = (n + block - 1) // block
        self.check(self.lib.cuLaunchKernel(fn, grid, 1, 1, block, 1, 1, 0, None, args, None), "cuLaunchKernel")
        self.check(self.lib.cuCtxSynchronize(), "cuCtxSynchronize")
        host = ctypes.create_string_buffer(max(out_len, 8))
        self.check(self.lib.cuMemcpyDtoH_v2(host, dout, out_len), "cuMemcpyDtoH")
        self.lib.cuMemFree_v2(din)
        self.lib.cuMemFree_v2(dout)
        return host.raw[:out_len]


def load_manifest(d):
    """The manifest of directory `d`: manifest.json, or manifest.json.gz (a large manifest
    travels compressed)."""
    path = os.path.join(d, "manifest.json")
    if not os.path.exists(path) and os.path.exists(path + ".gz"):
        with gzip.open(path + ".gz", "rt") as f:
            return json.load(f)
    with open(path) as f:
        return json.load(f)


def load_dir(d):
    """(manifest, kernels.ptx's text) of a kernels directory; exits when one cannot be read."""
    try:
        manifest = load_manifest(d)
        with open(os.path.join(d, "kernels.ptx")) as f:
            return manifest, f.read()
    except OSError as e:
        die(str(e))


def assemble(path, target):
    """Assembles PTX file `path` for `target` with ptxas ($PTXAS, else tools/.cache/py's),
    output discarded; exits when ptxas rejects it (the dry runs' check)."""
    cached = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".cache", "py",
                          "nvidia", "cuda_nvcc", "bin", "ptxas")
    ptxas = os.environ.get("PTXAS") or (cached if os.path.exists(cached) else "ptxas")
    r = subprocess.run([ptxas, f"-arch={target}", path, "-o", os.devnull], capture_output=True, text=True)
    if r.returncode != 0:
        die(f"ptxas rejected {os.path.basename(path)}:\n{r.stderr}")


def pack_inputs(kernel):
    """The input buffer of a kernel: for each vector (thread) one 8-byte little-endian word
    per register slot, the layout xtask's kernels load (and gpu-simulate interprets).
    Returns (buffer, its size), which is also the output buffer's size."""
    nslots = max(len(kernel["slots"]), 1)
    buf = bytearray(8 * nslots * len(kernel["vectors"]))
    for t, v in enumerate(kernel["vectors"]):
        for s, val in enumerate(v["in"]):
            off = 8 * (t * nslots + s)
            buf[off:off + 8] = int(val, 16).to_bytes(8, "little")
    return buf, 8 * nslots * len(kernel["vectors"])


def observed_values(kernel, out, t):
    """The destination values thread t stored in `out` (the input layout), masked to each
    slot's width; predicates as booleans."""
    nslots = max(len(kernel["slots"]), 1)
    res = {}
    for s, slot in enumerate(kernel["slots"]):
        if slot["name"] not in kernel["dsts"]:
            continue
        raw = int.from_bytes(out[8 * (t * nslots + s):8 * (t * nslots + s) + 8], "little")
        w = slot["width"]
        if w == 1:
            res[slot["name"]] = (raw & 0xffffffff) != 0
        else:
            res[slot["name"]] = hex(raw & ((1 << w) - 1))
    return res


def same(expect, got):
    """Whether the observed values hold every expected one (numbers compared as integers, so
    spelling does not matter)."""
    for k, v in expect.items():
        g = got.get(k)
        if isinstance(v, bool) or isinstance(g, bool):
            if v != g:
                return False
        elif g is None or int(v, 16) != int(g, 16):
            return False
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", help="output directory of `xtask gpu-kernels` (kernels.ptx, manifest.json)")
    ap.add_argument("--observed", help="write the observed vectors here (JSON Lines)")
    ap.add_argument("--dry-run", action="store_true", help="check and assemble only; no GPU")
    a = ap.parse_args()
    manifest, ptx = load_dir(a.dir)
    kernels = manifest["kernels"]
    for k in kernels:
        if f".entry {k['kernel']}(" not in ptx:
            die(f"kernel {k['kernel']} missing from kernels.ptx")
        for v in k["vectors"]:
            if len(v["in"]) != len(k["slots"]):
                die(f"line {v['line']}: {len(v['in'])} inputs for {len(k['slots'])} slots")
    nvec = sum(len(k["vectors"]) for k in kernels)

    if a.dry_run:
        target = manifest.get("target", "sm_90")
        assemble(os.path.join(a.dir, "kernels.ptx"), target)
        print(f"dry run: {len(kernels)} kernels, {nvec} vectors; kernels.ptx assembles for {target}")
        return 0

    cuda = Cuda()
    info = cuda.info()
    mod = cuda.load(ptx)
    passed = failed = 0
    lines = [f"# observed on {info['gpu']} ({info['sm']}), driver {info['driver']}, CUDA {info['cuda']}"]
    for k in kernels:
        inp, out_len = pack_inputs(k)
        out = cuda.run(mod, k["kernel"], inp, out_len, len(k["vectors"]))
        for t, v in enumerate(k["vectors"]):
            got = observed_values(k, out, t)
            ins = {}
            for slot, val in zip(k["slots"], v["in"]):
                ins[slot["name"]] = int(val, 16) != 0 if slot["width"] == 1 else val
            lines.append(json.dumps({
                "arch": info["sm"], "ptx": k["ptx"], "in": ins, "out": got,
                "source": "gpu", "gpu": info["gpu"], "driver": info["driver"], "cuda": info["cuda"],
            }, separators=(",", ":")))
            if same(v["expect"], got):
                passed += 1
            else:
                failed += 1
                if failed <= 30:
                    print(f"line {v['line']}: {k['ptx']}: expected {v['expect']}, observed {got}")
    if a.observed:
        with open(a.observed, "w") as f:
            f.write("\n".join(lines) + "\n")
    print(f"{info['gpu']} ({info['sm']}), driver {info['driver']}, CUDA {info['cuda']}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
