#!/usr/bin/env python3
"""Check the domain kernels themselves without a GPU: run them in simcli.

    cargo run -p xtask --release -- domain-check --fake REF.bin --only 0,1,2 --samples 1
    python3 -m tools.gpu.domain.sim_launch REF.bin DIR
    for f in DIR/k*.json; do simcli run "$f" --check; done

For each record of REF.bin (sim-isa's values written by `domain-check
--fake`) this writes DIR/k<INDEX>.ptx (the kernel as gen.py emits it), a
launch file (docs/launch-format.md) and the expected output: one16 kernels
run whole (256 blocks); two16/one32 kernels run block 0 only, so out[0] must
be the checksum for a = 0 (the first sample key) and the rest stay 0.
`simcli run --check` then compares what the kernel computed under simcli's
PTX semantics with domain-check's checksum definition: the loop, the
shuffle reduction, the red.global.add and the result widening, end to end.
Forms simcli does not run yet are reported by simcli as unsupported.
"""

import json
import os
import struct
import sys

from tools.gpu.domain import gen
from tools.gpu.domain.run import records


def main():
    if {"-h", "--help"} & set(sys.argv[1:]):  # the usage, not an output path
        print(__doc__)
        return 0
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    ref, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    for idx, text, kind, elem, count, raw in records(ref):
        kd, _ = gen.kind_of(text)
        if kd == "one16":
            if kind & 0x80:
                sys.exit(f"[{idx}] one16 record must be whole")
            size, exp, grid = len(raw), raw, gen.N_BLOCKS_ONE16
        else:
            a, v = struct.unpack("<II", raw[:8])
            if not kind & 0x80 or a != 0:
                sys.exit(f"[{idx}] needs sampled records starting at a = 0 (--samples 1)")
            size = 65536 * 4
            exp, grid = struct.pack("<I", v) + bytes(size - 4), 1
        with open(os.path.join(out, f"k{idx}.ptx"), "w") as f:
            f.write(gen.HEADER + gen.kernel(idx, text))
        with open(os.path.join(out, f"k{idx}.exp"), "wb") as f:
            f.write(exp)
        with open(os.path.join(out, f"k{idx}.json"), "w") as f:
            json.dump({"ptx": f"k{idx}.ptx", "entry": f"k{idx}", "grid": [grid, 1, 1],
                       "block": [gen.BLOCK, 1, 1], "buffers": {"out": {"bytes": size, "fill": 0}},
                       "params": [{"buffer": "out"}], "outputs": ["out"],
                       "expected": {"out": f"k{idx}.exp"}}, f, indent=1)
        print(os.path.join(out, f"k{idx}.json"), text)


if __name__ == "__main__":
    main()
