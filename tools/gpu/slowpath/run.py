#!/usr/bin/env python3
"""When do `div.rn.f32` and `sqrt.rn.f32` take ptxas's slow path, and what does it
cost a warp (issue 26: int_math / float_math)? Runs probe.ptx on a GPU.

    python3 -m tools.gpu.slowpath.run OUTDIR        # on the GPU machine, repository root
    python3 -m tools.gpu.slowpath.run OUTDIR --dry-run   # here: inputs and ptxas only
    python3 -m tools.gpu.slowpath.run OUTDIR --more      # the second run: signs, more stores
    python3 -m tools.gpu.slowpath.run OUTDIR --stores    # the third: stores by count and width

Each lane of a warp divides (or takes the root of) its own operands between two
%clock64 reads; one warp a block, 132 blocks, each walking its share of the sets.

- `div_map`: every pair of exponents of a and b (0 to 255, positive) with four
  mantissa pairs (0 or 0x7fffff each), all 32 lanes alike: 262,144 sets. The
  warp's cycles tell whether FCHK sent it to `__cuda_sm3x_div_rn_noftz_f32_slowpath`.
  `div_map.bin`: one little-endian u16 a set (lane 0's cycles, at most 65535),
  set = ((ea * 256 + eb) * 4 + m), m = 2 * (ma != 0) + (mb != 0).
- `sqrt_map`: every exponent with mantissa 0 and 0x7fffff, both signs (the test
  in ptxas's code, `|x| + 0xf3000000 > 0x727fffff`, to be confirmed).
- `*_lanes`: k lanes of 32 on slow operands, the rest on ordinary ones, for
  k = 0, 1, 2, 4, 8, 16, 31, 32, 64 sets each: what the slow path costs a warp.
- `stores`: one block of 256 threads (8 warps, as int_math and store_stride), 8
  word stores a thread at `stride` bytes between threads and `step` between its
  own stores (4: the stores share sectors, as int_math's; 256 * stride: disjoint
  regions, as store_stride's; 0: one word), three launches each: each warp's
  cycles from before its first store to after its last issues, and the window.
OUTDIR gets div_map.bin and slowpath.json (the device, the maps' histograms, the
sqrt map, the lane tables and the stores).
"""

import ctypes
import json
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LANES = 32
BLOCKS = 132
MANT = (0, 0x7FFFFF)


def div_map_sets():
    """The div_map operand pairs, one a set."""
    out = []
    for ea in range(256):
        for eb in range(256):
            for ma in MANT:
                for mb in MANT:
                    out.append(((ea << 23) | ma, (eb << 23) | mb))
    return out


def sqrt_map_sets():
    """(x, 0) for every exponent, mantissa 0 and max, both signs."""
    return [((s << 31) | (e << 23) | m, 0) for s in (0, 1) for e in range(256) for m in MANT]


DIV_SLOW, DIV_FAST = (0x3F800000, 0x00000001), (0x40400000, 0x40E00000)  # 1 / 2^-149, 3 / 7
SQRT_SLOW, SQRT_FAST = (0x00000001, 0), (0x40000000, 0)  # a subnormal, 2
KS = (0, 1, 2, 4, 8, 16, 31, 32)
REPS = 64


def pack_same(sets):
    """Input bytes: each set's pair in all 32 lanes."""
    return b"".join(struct.pack("<II", a, b) * LANES for a, b in sets)


def pack_lanes(slow, fast):
    """Input bytes of the lane tables: for each k, REPS sets with k slow lanes."""
    body = []
    for k in KS:
        one = struct.pack("<II", *slow) * k + struct.pack("<II", *fast) * (LANES - k)
        body.append(one * REPS)
    return b"".join(body)


def launch(cuda, mod, name, inp, nsets):
    """Runs kernel `name` over nsets sets (132 blocks of one warp); returns the output."""
    fn = ctypes.c_void_p()
    cuda.check(cuda.lib.cuModuleGetFunction(ctypes.byref(fn), mod, name.encode()), "cuModuleGetFunction")
    din, dout = ctypes.c_uint64(), ctypes.c_uint64()
    n = len(inp)
    cuda.check(cuda.lib.cuMemAlloc_v2(ctypes.byref(din), n), "cuMemAlloc")
    cuda.check(cuda.lib.cuMemAlloc_v2(ctypes.byref(dout), n), "cuMemAlloc")
    cuda.check(cuda.lib.cuMemcpyHtoD_v2(din, inp, n), "cuMemcpyHtoD")
    cn = ctypes.c_uint32(nsets)
    args = (ctypes.c_void_p * 3)(ctypes.cast(ctypes.byref(din), ctypes.c_void_p),
                                 ctypes.cast(ctypes.byref(dout), ctypes.c_void_p),
                                 ctypes.cast(ctypes.byref(cn), ctypes.c_void_p))
    cuda.check(cuda.lib.cuLaunchKernel(fn, BLOCKS, 1, 1, LANES, 1, 1, 0, None, args, None), "cuLaunchKernel")
    cuda.check(cuda.lib.cuCtxSynchronize(), "cuCtxSynchronize")
    host = ctypes.create_string_buffer(n)
    cuda.check(cuda.lib.cuMemcpyDtoH_v2(host, dout, n), "cuMemcpyDtoH")
    cuda.lib.cuMemFree_v2(din)
    cuda.lib.cuMemFree_v2(dout)
    return host.raw


def lane0_cycles(out, nsets):
    """Lane 0's cycles of each set."""
    words = memoryview(out).cast("I")
    return [words[s * LANES * 2] for s in range(nsets)]


def histogram(cycles):
    """{cycles: count}, cycles bucketed by 4."""
    h = {}
    for c in cycles:
        h[c // 4 * 4] = h.get(c // 4 * 4, 0) + 1
    return dict(sorted(h.items()))


def lanes_table(cycles):
    """{k: sorted cycles of its REPS sets}."""
    return {str(k): sorted(cycles[i * REPS:(i + 1) * REPS]) for i, k in enumerate(KS)}


STORES = [(stride, step) for stride in (4, 24, 32) for step in (4, 256 * stride)] + [(24, 0), (32, 32)]
# The second run (--more): lines against sectors (stride 64 and 128 touch 16 and 32
# lines of 32 sectors; 8 and 16 fewer sectors), and fewer or more warps.
MORE_STORES = [(stride, 256 * stride, 256) for stride in (8, 16, 64, 128)] + \
    [(32, 8192, threads) for threads in (32, 64, 128, 512, 1024)] + [(4, 1024, 1024)]


def timed_stores(cuda, mod, kernel, size, threads, params):
    """Three launches of store kernel `kernel` (one block of `threads`; parameters: the
    output buffer of `size` bytes, the clock buffer, then the u32s `params`): each warp's
    cycles and the window of each."""
    fn = ctypes.c_void_p()
    cuda.check(cuda.lib.cuModuleGetFunction(ctypes.byref(fn), mod, kernel.encode()), "cuModuleGetFunction")
    nw = threads // LANES
    dout, dph = ctypes.c_uint64(), ctypes.c_uint64()
    cuda.check(cuda.lib.cuMemAlloc_v2(ctypes.byref(dout), size), "cuMemAlloc")
    cuda.check(cuda.lib.cuMemAlloc_v2(ctypes.byref(dph), 16 * nw), "cuMemAlloc")
    cuda.check(cuda.lib.cuMemsetD8_v2(dout, 0, size), "cuMemsetD8")
    vals = [dout, dph] + [ctypes.c_uint32(v) for v in params]
    args = (ctypes.c_void_p * len(vals))(*(ctypes.cast(ctypes.byref(x), ctypes.c_void_p) for x in vals))
    runs = []
    for _ in range(3):
        cuda.check(cuda.lib.cuLaunchKernel(fn, 1, 1, 1, threads, 1, 1, 0, None, args, None), "cuLaunchKernel")
        cuda.check(cuda.lib.cuCtxSynchronize(), "cuCtxSynchronize")
        host = ctypes.create_string_buffer(16 * nw)
        cuda.check(cuda.lib.cuMemcpyDtoH_v2(host, dph, 16 * nw), "cuMemcpyDtoH")
        t = struct.unpack(f"<{2 * nw}Q", host.raw)
        runs.append({"warps": [t[2 * w + 1] - t[2 * w] for w in range(nw)],
                     "window": max(t[1::2]) - min(t[0::2])})
    cuda.lib.cuMemFree_v2(dout)
    cuda.lib.cuMemFree_v2(dph)
    return runs


def store_run(cuda, mod, stride, step, threads=256):
    """store_timed: 8 word stores a thread, `stride` between threads, `step` between a
    thread's own."""
    return timed_stores(cuda, mod, "store_timed", threads * stride + 8 * step + 64, threads, [stride, step])


# The third run (--stores): (bytes a store, stride, stores a thread, threads); a
# thread's stores go to disjoint regions (step = threads x stride).
LOOP_STORES = ([(4, 32, n, 256) for n in (1, 2, 4, 8, 16, 32)] + [(4, 4, n, 256) for n in (8, 32)]
               + [(w, s, 8, 256) for w in (8, 16) for s in sorted({w, 32, 64, 128})]
               + [(16, 16, 8, 1024), (4, 32, 8, 1024)])


def loop_store_run(cuda, mod, w, stride, n, threads):
    """store_loop: `n` stores of `w` bytes a thread to disjoint regions."""
    step = threads * stride
    return timed_stores(cuda, mod, f"store_loop{w}", n * step + 64, threads, [stride, step, n])


def stores_by_count(cuda, mod, res, out_dir):
    """The third run: LOOP_STORES."""
    configs = [dict(zip(("w", "stride", "n", "threads"), c)) for c in LOOP_STORES]
    record_stores(res, configs, lambda **c: loop_store_run(cuda, mod, **c))
    return write_json(out_dir, "slowpath-stores.json", res)


def record_stores(res, configs, run):
    """Runs each store configuration (a dict of `run`'s parameters) into res["stores"],
    under a key that names them (`stride32.step8192`), printing each launch's window and
    its slowest and fastest warp."""
    res["stores"] = {}
    for c in configs:
        key = ".".join(f"{k}{v}" for k, v in c.items())
        runs = run(**c)
        res["stores"][key] = runs
        print("stores", key, [(r["window"], max(r["warps"]), min(r["warps"])) for r in runs])


def write_json(out_dir, name, res):
    """Writes a run's results to OUTDIR/name; returns the exit status 0."""
    with open(os.path.join(out_dir, name), "w") as f:
        json.dump(res, f, indent=1)
    return 0


def sign_sets():
    """Exponent pairs every 5th from 0 to 255 (and 254, 255), in all four sign pairs."""
    es = list(range(0, 256, 5)) + [254, 255]
    return [((sa << 31) | (ea << 23) | 0x123456, (sb << 31) | (eb << 23) | 0x654321)
            for sa in (0, 1) for sb in (0, 1) for ea in es for eb in es]


def more(cuda, mod, res, out_dir):
    """The second run: signs of div's operands, and MORE_STORES."""
    sets = sign_sets()
    out = launch(cuda, mod, "div_timed", pack_same(sets), len(sets))
    cyc = lane0_cycles(out, len(sets))
    res["div_sign"] = {f"{a:#010x}/{b:#010x}": c for (a, b), c in zip(sets, cyc)}
    print("div_sign histogram", list(histogram(cyc).items())[:30])
    configs = [dict(zip(("stride", "step", "threads"), c)) for c in MORE_STORES]
    record_stores(res, configs, lambda **c: store_run(cuda, mod, **c))
    return write_json(out_dir, "slowpath-more.json", res)


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(HERE, "probe.ptx")) as f:
        ptx = f.read()
    dsets, ssets = div_map_sets(), sqrt_map_sets()
    if "--dry-run" in sys.argv:
        print(f"div_map {len(dsets)} sets ({len(pack_same(dsets[:4096])) * 64} bytes), sqrt_map {len(ssets)}")
        return 0
    from tools.gpu.run import Cuda
    cuda = Cuda()
    info = cuda.info()
    mod = cuda.load(ptx)
    res = {"device": info}
    if "--more" in sys.argv:
        return more(cuda, mod, res, out_dir)
    if "--stores" in sys.argv:
        return stores_by_count(cuda, mod, res, out_dir)
    for name, kern, sets in (("div_map", "div_timed", dsets), ("sqrt_map", "sqrt_timed", ssets)):
        launch(cuda, mod, kern, pack_same(sets[:BLOCKS]), min(BLOCKS, len(sets)))  # warm-up
        out = launch(cuda, mod, kern, pack_same(sets), len(sets))
        cyc = lane0_cycles(out, len(sets))
        res[name] = {"sets": len(sets), "histogram": histogram(cyc)}
        if name == "div_map":
            with open(os.path.join(out_dir, "div_map.bin"), "wb") as f:
                f.write(struct.pack(f"<{len(cyc)}H", *(min(c, 65535) for c in cyc)))
        else:
            res[name]["cycles"] = {f"{a:#010x}": c for (a, _), c in zip(sets, cyc)}
        print(name, "histogram", list(res[name]["histogram"].items())[:40])
    for name, kern, slow, fast in (("div_lanes", "div_timed", DIV_SLOW, DIV_FAST),
                                   ("sqrt_lanes", "sqrt_timed", SQRT_SLOW, SQRT_FAST)):
        n = len(KS) * REPS
        out = launch(cuda, mod, kern, pack_lanes(slow, fast), n)
        res[name] = lanes_table(lane0_cycles(out, n))
        print(name, {k: (v[0], v[len(v) // 2], v[-1]) for k, v in res[name].items()})
    configs = [dict(zip(("stride", "step"), c)) for c in STORES]
    record_stores(res, configs, lambda **c: store_run(cuda, mod, **c))
    return write_json(out_dir, "slowpath.json", res)


if __name__ == "__main__":
    sys.exit(main())
