#!/usr/bin/env python3
"""Run launch files on a real GPU and record what it computed, without
touching the launch files (tools/gpu/launch.py rewrites them).

    python3 -m tools.gpu.launch_check OUTDIR FILE.json... [--max-random N] [--inputs DIR]
    python3 -m tools.gpu.launch_check OUTDIR FILE.json... --inputs DIR --make-inputs

For each launch file (docs/launch-format.md): every buffer is allocated and
filled (`file`, `fill`, or `random` by the format's own generator,
xoshiro256++ seeded by SplitMix64, written out below), the module is loaded by
the driver's JIT (cuModuleLoadData), the entry is launched twice on fresh
buffers, and the outputs are copied back. OUTDIR/launches.json gets, per
launch: the SHA-256 of each output of the first launch, whether both launches
agreed, whether the output equals the launch's `expected` file, and, when the
launch has a `clk` buffer, the window max(end) - min(start) over the per-warp
%clock64 pairs of each launch (cold, warm) with the number of blocks. Outputs
of at most 1 MiB are also written to OUTDIR/outputs/STEM.NAME.bin so that the
simulator's can be compared byte for byte later. A launch that fails is
recorded with its error and the next one runs.

A `random` buffer of more than --max-random elements is skipped (pure Python
generates about a million elements in three seconds). `--inputs DIR` keeps
generated buffers in DIR (named by type, seed, bounds and size) and reads
them from there; `--make-inputs` only fills DIR, so that the GPU's time is not
spent generating them.
"""

import ctypes
import hashlib
import json
import os
import struct
import sys
import time

from tools.cli import take, usage_asked
from tools.gpu.run import Cuda

M64 = (1 << 64) - 1


class Skip(Exception):
    pass


def splitmix64(x):
    """One SplitMix64 step: (new state, output). It seeds xoshiro256++ as docs/launch-
    format.md says, so random buffers match sim-module's."""
    x = (x + 0x9E3779B97F4A7C15) & M64
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return x, z ^ (z >> 31)


def xoshiro_stream(seed, n):
    """n outputs of xoshiro256++ seeded by four SplitMix64 outputs from seed: the random-
    buffer rule of docs/launch-format.md (sim-module's rand_xoshiro), in pure Python."""
    x = seed & M64
    s = []
    for _ in range(4):
        x, z = splitmix64(x)
        s.append(z)
    s0, s1, s2, s3 = s
    for _ in range(n):
        r = (s0 + s3) & M64
        r = (((r << 23) | (r >> 41)) & M64) + s0 & M64
        t = (s1 << 17) & M64
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = ((s3 << 45) | (s3 >> 19)) & M64
        yield r


def below(f):
    """The largest single-precision number below f (f finite)."""
    bits = struct.unpack("<I", struct.pack("<f", f))[0]
    if f > 0:
        bits -= 1
    elif f < 0:
        bits += 1
    else:
        bits = 0x80000001
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def random_bytes(spec, nbytes, limit):
    """A launch file's random buffer, byte for byte as sim-module fills it: f32 in [min,
    max) from the top 24 bits, integers in [min, max] by multiply-shift. Raises Skip over
    `limit` elements (pure Python is slow)."""
    ty = spec["type"]
    size = 1 if ty == "u8" else 4
    n = nbytes // size
    if n > limit:
        raise Skip(f"random buffer of {n} elements (limit {limit})")
    lo, hi = spec["min"], spec["max"]
    out = bytearray(nbytes)
    if ty == "f32":
        # The bounds are single-precision numbers first (sim-module's launch.rs).
        lo, hi = (struct.unpack("<f", struct.pack("<f", float(v)))[0] for v in (lo, hi))
        span = hi - lo
        top = hi
        for i, x in enumerate(xoshiro_stream(spec["seed"], n)):
            u = (x >> 40) * (2.0 ** -24)
            f = struct.unpack("<f", struct.pack("<f", lo + span * u))[0]
            if lo < hi and f >= hi:
                f = below(top)
            out[4 * i:4 * i + 4] = struct.pack("<f", f)
    else:
        span = hi - lo + 1
        fmt = {"u32": "<I", "s32": "<i", "u8": "<B"}[ty]
        for i, x in enumerate(xoshiro_stream(spec["seed"], n)):
            v = lo + (((x >> 32) * span) >> 32)
            out[size * i:size * i + size] = struct.pack(fmt, v)
    return bytes(out)


def initial(base, b, limit, cache):
    """A buffer's initial bytes (file, fill or random), random ones read from or written to
    the cache folder so a GPU session does not spend its time in Python."""
    if "file" in b:
        return open(os.path.join(base, b["file"]), "rb").read()
    if "fill" in b:
        return bytes([b["fill"]]) * b["bytes"]
    r = b["random"]
    name = f"{r['type']}-{r['seed']}-{r['min']}-{r['max']}-{b['bytes']}.bin"
    if cache and os.path.exists(os.path.join(cache, name)):
        return open(os.path.join(cache, name), "rb").read()
    data = random_bytes(r, b["bytes"], limit)
    if cache:
        os.makedirs(cache, exist_ok=True)
        open(os.path.join(cache, name), "wb").write(data)
    return data


def launch(cu, fn, doc, inits):
    """Allocates and fills the buffers, launches the entry with the launch file's grid,
    block, shared bytes and parameters, and returns ({output or clk buffer: bytes},
    wall seconds); the buffers are freed whatever happens."""
    ptrs = {}
    try:
        for name, b in doc["buffers"].items():
            p = ctypes.c_uint64()
            cu.check(cu.lib.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(max(b["bytes"], 1))), "cuMemAlloc")
            ptrs[name] = p
            data = inits[name]
            cu.check(cu.lib.cuMemcpyHtoD_v2(p, data, ctypes.c_size_t(len(data))), "cuMemcpyHtoD")
        args = []
        for prm in doc["params"]:
            (k, v), = prm.items()
            conv = {"buffer": lambda v: ctypes.c_uint64(ptrs[v].value), "u32": ctypes.c_uint32,
                    "s32": ctypes.c_int32, "u64": ctypes.c_uint64, "s64": ctypes.c_int64,
                    "f32": ctypes.c_float, "f64": ctypes.c_double}[k]
            args.append(conv(v))
        arr = (ctypes.c_void_p * len(args))(*[ctypes.cast(ctypes.pointer(a), ctypes.c_void_p) for a in args])
        g, bl = doc["grid"], doc["block"]
        shared = doc.get("shared_bytes", 0)
        t0 = time.perf_counter()
        cu.check(cu.lib.cuLaunchKernel(fn, g[0], g[1], g[2], bl[0], bl[1], bl[2], shared, None, arr, None),
                 "cuLaunchKernel")
        cu.check(cu.lib.cuCtxSynchronize(), "cuCtxSynchronize")
        wall = time.perf_counter() - t0
        out = {}
        for name, b in doc["buffers"].items():
            if name in doc.get("outputs", []) or name == "clk":
                buf = ctypes.create_string_buffer(b["bytes"])
                cu.check(cu.lib.cuMemcpyDtoH_v2(buf, ptrs[name], ctypes.c_size_t(b["bytes"])), "cuMemcpyDtoH")
                out[name] = buf.raw
        return out, wall
    finally:
        for p in ptrs.values():
            cu.lib.cuMemFree_v2(p)


def window(clk):
    """The clock window (last end minus first start over the written (start, end) pairs), or
    None when no warp wrote one."""
    pairs = [struct.unpack_from("<qq", clk, 16 * k) for k in range(len(clk) // 16)]
    pairs = [p for p in pairs if p != (0, 0)]
    if not pairs:
        return None
    return max(e for _, e in pairs) - min(s for s, _ in pairs)


class SoftCuda(Cuda):
    """Errors raise instead of exiting, so one bad launch does not end the run."""

    def check(self, rc, what):
        """Raises instead of exiting, so that one failing launch file is reported and the
        others still run."""
        if rc != 0:
            s = ctypes.c_char_p()
            self.lib.cuGetErrorString(rc, ctypes.byref(s))
            raise RuntimeError(f"{what} failed: {rc} {s.value.decode() if s.value else ''}")


def one(cu, mods, path, limit, outdir, cache):
    """One launch file's record: run twice (cold, then warm), each output's hash, whether
    it is the same twice and equals its expected file (else the first differing byte),
    the clock windows; outputs up to 1 MiB are written under outdir/outputs. Raises
    Skip for a file that is not a launch or whose random buffers are over the limit."""
    doc = json.load(open(path))
    if "entry" not in doc:
        raise Skip("not a launch file")
    base = os.path.dirname(path)
    key = os.path.join(base, doc["ptx"])
    if key not in mods:
        m = ctypes.c_void_p()
        cu.check(cu.lib.cuModuleLoadData(ctypes.byref(m), open(key, "rb").read() + b"\0"), f"cuModuleLoadData {key}")
        mods[key] = m
    fn = ctypes.c_void_p()
    cu.check(cu.lib.cuModuleGetFunction(ctypes.byref(fn), mods[key], doc["entry"].encode()), "cuModuleGetFunction")
    inits = {n: initial(base, b, limit, cache) for n, b in doc["buffers"].items()}
    first, wall1 = launch(cu, fn, doc, inits)
    second, wall2 = launch(cu, fn, doc, inits)
    stem = os.path.basename(path)[:-5]
    rec = {"wall_s": [wall1, wall2], "outputs": {}}
    nblocks = doc["grid"][0] * doc["grid"][1] * doc["grid"][2]
    t = doc["block"][0] * doc["block"][1] * doc["block"][2]
    rec["blocks"], rec["warps"] = nblocks, nblocks * ((t + 31) // 32)
    for o in doc.get("outputs", []):
        r = {"sha256": hashlib.sha256(first[o]).hexdigest(), "bytes": len(first[o]),
             "same_twice": first[o] == second[o]}
        exp = doc.get("expected", {}).get(o)
        if exp:
            want = open(os.path.join(base, exp), "rb").read()
            r["equals_expected"] = want == first[o]
            if want != first[o]:
                diff = next(i for i in range(min(len(want), len(first[o]))) if want[i] != first[o][i])
                r["first_difference"] = diff
        if len(first[o]) <= 1 << 20:
            os.makedirs(os.path.join(outdir, "outputs"), exist_ok=True)
            open(os.path.join(outdir, "outputs", f"{stem}.{o}.bin"), "wb").write(first[o])
        rec["outputs"][o] = r
    if "clk" in first:
        rec["cycles_cold"], rec["cycles_warm"] = window(first["clk"]), window(second["clk"])
    return rec


def main():
    if usage_asked(__doc__):
        return 0
    args = sys.argv[1:]
    limit = take(args, "--max-random", 1 << 20)
    cache = take(args, "--inputs", None, str)
    if "--make-inputs" in args:
        # Here, without a GPU: fill the cache of random buffers and stop.
        args.remove("--make-inputs")
        for path in args[1:]:
            doc = json.load(open(path))
            for b in doc.get("buffers", {}).values():
                if "random" in b:
                    try:
                        initial(os.path.dirname(path), b, limit, cache)
                    except Skip as e:
                        print(path, e)
        return 0
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    outdir, paths = args[0], [a for a in args[1:] if a.endswith(".json")]
    os.makedirs(outdir, exist_ok=True)
    cu = SoftCuda()
    info = cu.info()
    mods, recs = {}, {}
    bad = 0
    for path in paths:
        try:
            recs[path] = one(cu, mods, path, limit, outdir, cache)
        except Skip as e:
            recs[path] = {"skipped": str(e)}
        except Exception as e:  # noqa: BLE001 - record and go on
            recs[path] = {"error": f"{type(e).__name__}: {e}"}
            bad += 1
        r = recs[path]
        eq = [o.get("equals_expected") for o in r.get("outputs", {}).values()]
        print(path, r.get("error") or r.get("skipped") or "", "expected:", eq,
              "cycles:", r.get("cycles_cold"), r.get("cycles_warm"), flush=True)
    json.dump({"device": info, "launches": recs}, open(os.path.join(outdir, "launches.json"), "w"), indent=1)
    print(f"{len(paths)} launch files, {bad} errors")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
