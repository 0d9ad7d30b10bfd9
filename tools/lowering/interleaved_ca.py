#!/usr/bin/env python3
"""Machine instructions per instance of `.ca` forms in one, two and four
interleaved chains (the evidence behind sim-core's `facts::unhoist_interleaved`).

A `.ca` form is a video instruction whose `c` is its `a`
(`vabsdiff2.u32.u32.u32.add %x, %x, %z, %x`). Each kernel is a loop of the
H100 microbenchmarks' shape (tools/gpu/make_mixed.py: 64 instances per chain,
16 iterations, inputs loaded from memory), with the chains interleaved as
the throughput kernels interleave theirs. ptxas 13.0.88 assembles them; the
script prints, per form and chain count, the machine instructions of the loop
body per instance (the loop's counter, compare and branch left out).

    python3 -m tools.lowering.interleaved_ca

Output of 2026-11-25 (ptxas 13.0.88):
    vabsdiff2.u32.u32.u32.add   1: 9.02   2: 10.26  4: 11.00
    vabsdiff2.s32.s32.u32.add   1: 15.00  2: 15.47  4: 14.75
    vadd2.u32.u32.u32.add       1: 7.03   2: 7.90   4: 8.00
    vsub2.u32.u32.u32.add       1: 7.03   2: 7.90   4: 8.00
    vsub2.s32.u32.u32.add       1: 7.03   2: 7.90   4: 8.00
    vavrg2.u32.u32.u32.add      1: 12.02  2: 13.00  4: 12.51
    vmin2.u32.u32.u32.add       1: 8.02   2: 8.76   4: 8.51
    vmax2.s32.s32.u32.add       1: 12.00  2: 11.52  4: 11.74
    vset2.u32.u32.lt.add        1: 12.03  2: 12.52  4: 12.51
    vadd4.u32.u32.u32.add       1: 2.00   2: 2.02   4: 2.01
    vsub4.u32.u32.u32.add       1: 2.00   2: 2.02   4: 2.01
The two-lane forms with unsigned sources: with one chain, the `.ca` row with
its fixed operand's extraction hoisted; with two or four, that extraction
recomputed in half to all of the instances. Those with a signed `a` hoist
nothing even in one chain (`vabsdiff2.s32.s32.u32` 15, `vmax2.s32.s32.u32`
12: the full row). The four-lane forms
keep their hoisting (`vadd4`, `vsub4`: 2 per instance, the row's `IDP.4A` of
`b` hoisted).
Installs ptxas/nvdisasm as tools/lowering/derive_sass.py does
(tools/.cache/sass; PTXAS_90/NVDISASM_90 override).
"""

import os
import re
import subprocess
import sys
import tempfile

from tools import sass_listing  # the one listing reader (sim-sass, through xtask)
from tools.gpu import make_mixed  # the loops' shape is shared
from tools.lowering import derive_sass  # tool installation is shared

FORMS = [
    "vabsdiff2.u32.u32.u32.add",
    "vabsdiff2.s32.s32.u32.add",
    "vadd2.u32.u32.u32.add",
    "vsub2.u32.u32.u32.add",
    "vsub2.s32.u32.u32.add",
    "vavrg2.u32.u32.u32.add",
    "vmin2.u32.u32.u32.add",
    "vmax2.s32.s32.u32.add",
    "vset2.u32.u32.lt.add",
    "vadd4.u32.u32.u32.add",
    "vsub4.u32.u32.u32.add",
]
CHAINS = [1, 2, 4]


def loop_length(sass, kernel):
    """Machine instructions from the loop's label to its backward branch."""
    lines = sass_listing.functions(sass, "sm_90").get(kernel, [])
    insts, labels = [], {}
    for t in lines:
        if t.kind == "label":
            if re.fullmatch(r"\.L_x_\d+", t.name):
                labels[t.name] = len(insts)
        else:
            insts.append(t)
    for i, t in enumerate(insts):
        if sass_listing.loop_branch(t) and labels.get(t.target, i + 1) < i:
            return i + 1 - labels[t.target]
    return None


def main():
    if {"-h", "--help"} & set(sys.argv[1:]):  # the usage, not a run
        print(__doc__)
        return 0
    ptxas, nvdisasm = derive_sass.tools("sm_90")
    kernels = []
    for f, form in enumerate(FORMS):
        for chains in CHAINS:
            lines = [
                f"  {form} %x{c}, %x{c}, %z, %x{c};" for _ in range(64) for c in range(chains)
            ]
            kernels.append(make_mixed.kernel(f"k{f}_{chains}", chains, lines))
    with tempfile.TemporaryDirectory() as tmp:
        ptx = os.path.join(tmp, "ca.ptx")
        with open(ptx, "w") as out:
            out.write(".version 7.8\n.target sm_90\n.address_size 64\n\n" + "\n".join(kernels))
        cubin = os.path.join(tmp, "ca.cubin")
        subprocess.run([ptxas, "-arch=sm_90", ptx, "-o", cubin], check=True)
        sass = subprocess.run([nvdisasm, "-c", cubin], capture_output=True, text=True, check=True).stdout
    for f, form in enumerate(FORMS):
        cells = []
        for chains in CHAINS:
            n = loop_length(sass, f"k{f}_{chains}")
            # The loop's own counter, compare and branch.
            cells.append(f"{chains}: {(n - 3) / (64 * chains):.2f}" if n else f"{chains}: no loop")
        print(f"{form:27s} " + "  ".join(f"{c:8s}" for c in cells))


if __name__ == "__main__":
    main()
