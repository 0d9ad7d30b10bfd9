#!/usr/bin/env python3
"""ptxas's verdicts on reading the environment registers %envreg0..%envreg31.

Writes sim-isa/tests/data/envreg-ptxas.txt, read by sim-isa/tests/it/envreg.rs,
in warp_grid's format (`accept`/`reject TEXT` at sm_90 and .version 9.0, then
`gate TARGET VERSION ok|refused TEXT`). Names ptxas does not know
(`%envreg32`, `%envreg01`, `%envreg1_64`, `%ENVREG1`: "Unknown symbol") are
a module's undeclared registers, not the instruction parser's to judge:
sim-module's tests hold them.

    PTXAS=/path/to/ptxas PTXAS11=/path/to/ptxas-11.8 python3 -m tools.ptxas_grid.envreg_grid
"""

import sys

from tools.ptxas_grid import verdict

OUT = verdict.grid_path("envreg")


def grid():
    """mov of each width and type from %envregN, and the uses ptxas refuses."""
    g = [f"mov.{ty} %r1, %envreg{n};" for ty in ["u32", "s32", "b32"] for n in [0, 1, 2, 7, 16, 31]]
    g += [
        "mov.u64 %rd1, %envreg1;", "mov.b64 %rd1, %envreg1;", "mov.f32 %f1, %envreg1;",
        "mov.b16 %h1, %envreg1;", "mov.u32 %envreg1, %r1;", "mov.u32 %envreg1, %envreg2;",
        "add.u32 %r1, %envreg1, 1;", "mov.u32 %r1, %envreg1.x;", "@%p1 mov.u32 %r1, %envreg2;",
    ]
    return g


GATES = [(t, v, "mov.u32 %r1, %envreg1;") for t, v in
         [("sm_50", "4.0"), ("sm_70", "6.0"), ("sm_75", "6.3"), ("sm_80", "7.0"), ("sm_90", "7.8")]]


def run(ptxas, version, target, stmt, tmp):
    """(accepted, messages) of ptxas on stmt at version for target, in a kernel that also
    declares %h<9> .b16 and %f<9> .f32."""
    extra = ".reg .b16 %h<9>; .reg .f32 %f<9>;\n"
    rc, msg = verdict.messages(ptxas, target, verdict.param_kernel(version, target, stmt, extra), tmp)
    return rc == 0, msg


# The grid file's comment head.
HEAD = verdict.gated_head([
    "# ptxas 13.0.88 (-arch=sm_90, .version 9.0, .address_size 64) on each read of an",
    "# environment register alone, in a kernel declaring %r<9> .b32, %rd<9> .b64, %p<9> .pred,",
    "# %h<9> .b16, %f<9> .f32:",
], "envreg_grid", "envreg")


def main():
    verdict.write_message_grid(OUT, HEAD, run, grid(), GATES)


if __name__ == "__main__":
    sys.exit(main())
