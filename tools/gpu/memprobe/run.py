#!/usr/bin/env python3
"""First-touch memory latency on a GPU: dependent load chains over fresh buffers.

    python3 -m tools.gpu.memprobe.run probe.ptx > memprobe.json

Each row: a pattern (hop stride in bytes, hop count), the buffer copied from
the host just before the launch (cuMemcpyHtoD), and the cycles per hop of the
first launch and of an immediate second launch over the same buffer.
"""

import ctypes
import json
import struct
import sys

from tools.gpu.run import Cuda


def main():
    if {"-h", "--help"} & set(sys.argv[1:]):  # the usage, not an output path
        print(__doc__)
        return 0
    cu = Cuda()
    text = open(sys.argv[1], "rb").read() + b"\0"
    mod = ctypes.c_void_p()
    cu.check(cu.lib.cuModuleLoadData(ctypes.byref(mod), text), "load")
    fn = ctypes.c_void_p()
    cu.check(cu.lib.cuModuleGetFunction(ctypes.byref(fn), mod, b"chase"), "fn")
    rows = []
    for stride, hops in [
        (128, 1),
        (128, 16),
        (128, 64),
        (256, 32),
        (512, 32),
        (4096, 32),
        (65536, 32),
        (2 << 20, 16),
        (32, 64),
        (1024, 32),
    ]:
        size = max(stride * (hops + 1), 4096)
        words = size // 4
        chain = [0] * words
        for k in range(hops):
            chain[(k * stride) // 4] = ((k + 1) * stride) // 4
        data = struct.pack(f"<{words}I", *chain)
        res = []
        for _ in range(2):
            ptrs = []
            for n in (size, 16, 4):
                p = ctypes.c_uint64()
                cu.check(cu.lib.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(n)), "alloc")
                ptrs.append(p)
            cu.check(cu.lib.cuMemcpyHtoD_v2(ptrs[0], data, ctypes.c_size_t(size)), "h2d")
            cu.check(cu.lib.cuMemsetD8_v2(ptrs[1], 0, ctypes.c_size_t(16)), "memset")
            runs = []
            for _ in range(2):
                args = [
                    ctypes.c_uint64(ptrs[0].value),
                    ctypes.c_uint64(ptrs[1].value),
                    ctypes.c_int32(hops),
                    ctypes.c_uint64(ptrs[2].value),
                ]
                arr = (ctypes.c_void_p * 4)(
                    *[ctypes.cast(ctypes.pointer(a), ctypes.c_void_p) for a in args]
                )
                cu.check(cu.lib.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, None, arr, None), "launch")
                cu.check(cu.lib.cuCtxSynchronize(), "sync")
                out = ctypes.create_string_buffer(16)
                cu.check(cu.lib.cuMemcpyDtoH_v2(out, ptrs[1], ctypes.c_size_t(16)), "d2h")
                runs.append(struct.unpack("<qq", out.raw)[0])
            res.append(runs)
            for p in ptrs:
                cu.lib.cuMemFree_v2(p)
        rows.append(
            {
                "stride": stride,
                "hops": hops,
                "first_launch_cycles": [r[0] for r in res],
                "second_launch_cycles": [r[1] for r in res],
            }
        )
        print(json.dumps(rows[-1]), file=sys.stderr)
    json.dump(
        {"device": str(cu.info()) if hasattr(cu, "info") else "", "rows": rows},
        sys.stdout,
        indent=1,
    )


if __name__ == "__main__":
    main()
