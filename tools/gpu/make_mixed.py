#!/usr/bin/env python3
"""Mixed-instruction loops for checking that the sm_90 timing model
generalises beyond the single-form microbenchmarks it was fitted to.

    python3 -m tools.gpu.make_mixed OUT/     # OUT/mixed.ptx + launch files
    python3 -m tools.gpu.launch OUT/*.json   # on an H100: expected bytes + cycles

Each kernel has the microbenchmarks' shape (sim-core/data/calibration/h100/
README.md): inputs from global memory, `%clock64` read just before and after a
16-iteration loop, the loop body 64 instructions long, each chain reading the
previous instruction's result. The body mixes several PTX forms, drawn with
a fixed seed from the microbenchmark bodies; `lat` kernels run one warp with
one chain, `tput` kernels 16 warps with two interleaved chains. Each kernel
stores the warp's clock pair (for `h100.cycles_cold`) and every thread's
final chain values (compared byte for byte).
"""

import json
import os
import random
import struct
import sys

from tools.cli import usage_asked
from tools.gpu.clock_loop import loop_tail

FORMS = {
    "vadd4": ["vadd4.u32.u32.u32 %x{i}, %x{i}, %y, %z;"],
    "vabsdiff4.add": ["vabsdiff4.u32.u32.u32.add %x{i}, %x{i}, %z, %x{i};"],
    "vmin4": ["vmin4.u32.u32.u32 %x{i}, %x{i}, %y, %z;"],
    "vset4": ["vset4.u32.u32.lt %x{i}, %x{i}, %y, %z;"],
    "vavrg2": ["vavrg2.u32.u32.u32 %x{i}, %x{i}, %y, %z;"],
    "vsub4.s.sat": ["vsub4.s32.s32.s32.sat %x{i}, %x{i}, %y, %z;"],
    "set.u32": ["set.lt.u32.u32 %x{i}, %x{i}, %y;"],
    "setp+selp": ["setp.lt.u32 %p{i}, %x{i}, %y;", "selp.b32 %x{i}, %y, %z, %p{i};"],
    "slct": ["slct.s32.s32 %x{i}, %y, %z, %x{i};"],
    "prmt": ["prmt.b32 %x{i}, %x{i}, %y, 0x5140;"],
    "lop3": ["lop3.b32 %x{i}, %x{i}, %y, %z, 0x96;"],
    "mad": ["mad.lo.u32 %x{i}, %x{i}, %y, %z;"],
    "shf": ["shf.l.wrap.b32 %x{i}, %x{i}, %z, %y;"],
    "add+xor": ["add.u32 %x{i}, %x{i}, %y;", "xor.b32 %x{i}, %x{i}, %z;"],
    "fma": ["fma.rn.f32 %x{i}, %x{i}, %y, %z;"],
    "set.f32": ["set.lt.f32.f32 %x{i}, %x{i}, %y;"],
    "popc+xor": ["popc.b32 %x{i}, %x{i};", "xor.b32 %x{i}, %x{i}, %z;"],
}


def body(rng, forms, chains):
    """64 instances per chain: the forms' lines in turn, chains interleaved."""
    seq = []
    while len(seq) < 64:
        seq.extend(FORMS[rng.choice(forms)])
    seq = seq[:64]
    out = []
    for line in seq:
        for c in range(chains):
            out.append("  " + line.replace("{i}", str(c)))
    return out


def kernel(name, chains, lines):
    """The PTX of one mixed-loop kernel in the microbenchmarks' shape: inputs loaded, the
    clock read around a 16-iteration loop of `lines`, the clock pair and each chain's
    final value stored; `chains` chains interleaved."""
    x = ", ".join(f"%x{c}" for c in range(chains))
    p = ", ".join(f"%p{c}" for c in range(chains))
    init = "\n".join(f"  add.u32 %x{c}, %gtid, {0x1234567 + 0x111 * c};" for c in range(chains))
    stores = "\n".join(f"  st.global.u32 [%rb+{4 * c}], %x{c};" for c in range(chains))
    return f""".visible .entry {name}(.param .u64 pin, .param .u64 pout, .param .u64 pclk)
{{
  .reg .b32 %y, %z, %cnt, %gtid, %w, {x};
  .reg .pred %q, %pl, {p};
  .reg .b64 %ra, %rb, %t0, %t1;
  mov.u32 %gtid, %tid.x;
  ld.param.u64 %ra, [pin];
  cvta.to.global.u64 %ra, %ra;
  ld.global.u32 %y, [%ra+0];
  ld.global.u32 %z, [%ra+4];
  ld.global.u32 %cnt, [%ra+32];
  setp.ne.u32 %q, %cnt, 0;
  ld.global.u32 %cnt, [%ra+36];
{init}
  mov.u64 %t0, %clock64;
LOOP:
{chr(10).join(lines)}
{loop_tail(16, "%gtid", "%w", "%t0", "%t1", 4 * chains)}{stores}
  ret;
}}
"""


def main():
    if usage_asked(__doc__):
        return 0
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = random.Random(20261124)
    kernels = []
    manifest = {}
    names = sorted(FORMS)
    pin = struct.pack("<II", 0x30201, 0x10203040) + bytes(24) + struct.pack("<II", 1, 0) + bytes(24)
    with open(os.path.join(out, "mixed.in.bin"), "wb") as f:
        f.write(pin)
    for k in range(10):
        mode = "lat" if k % 2 == 0 else "tput"
        forms = rng.sample(names, rng.randint(2, 5))
        chains, warps = (1, 1) if mode == "lat" else (2, 16)
        name = f"mix{k}_{mode}"
        kernels.append(kernel(name, chains, body(rng, forms, chains)))
        doc = {
            "ptx": "mixed.ptx",
            "entry": name,
            "grid": [1, 1, 1],
            "block": [32 * warps, 1, 1],
            "buffers": {
                "in": {"bytes": 64, "file": "mixed.in.bin"},
                "out": {"bytes": 4 * chains * 32 * warps, "fill": 0},
                "clk": {"bytes": 16 * warps, "fill": 0},
            },
            "params": [{"buffer": "in"}, {"buffer": "out"}, {"buffer": "clk"}],
            "outputs": ["out"],
        }
        manifest[name] = forms
        with open(os.path.join(out, f"{name}.json"), "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    with open(os.path.join(out, "mixed-forms.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    with open(os.path.join(out, "mixed.ptx"), "w") as f:
        f.write(".version 7.8\n.target sm_90\n.address_size 64\n\n" + "\n".join(kernels))


if __name__ == "__main__":
    main()
