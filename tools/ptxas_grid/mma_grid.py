#!/usr/bin/env python3
"""ptxas's verdicts on the tensor-core warp instructions: `mma.sync`,
`ldmatrix`, `stmatrix`, `movmatrix`.

Writes sim-isa/tests/data/mma-ptxas.txt, read by sim-isa/tests/it/mma.rs,
whose head is the next paragraph (`verdict.doc_paragraph`):

ptxas 13.0.88 (-arch=sm_90, .version 9.0, .address_size 64) on each tensor-core warp
statement alone, in tools/ptxas_grid/verdict.py's kernel (%h b16, %r b32, %rd b64,
%f f32, %fd f64, %p pred): `accept TEXT`, `reject TEXT` (ptxas's message above), or
`arch TEXT`: refused only for the target. Then `gate TARGET VERSION ok|refused TEXT`:
the statement for another target or .version. Made by tools/ptxas_grid/mma_grid.py;
tests/it/mma.rs checks the parser and check_target agree.

The gates are all ptxas 13.0.88's: every form here needs sm_75 or later.

Register classes (`{%rd1}` where a .b32 is due) are left out: the parser
sees no declarations; a kernel's are checked where they are known
(sim-trace's `register_fits`, a module's declarations). `.shared::cta`'s
own PTX 7.8 gate is left out too: the parser reads it as `.shared`.

    PTXAS=$CUDA13_ROOT/bin/ptxas python3 -m tools.ptxas_grid.mma_grid
"""

import sys

from tools.ptxas_grid import verdict

# The loops below write the forms; their hand-written neighbours are data, in
# lists/mma.txt (verdict.listed).

F4 = "{%f1, %f2, %f3, %f4}"
F4C = "{%f5, %f6, %f7, %f8}"
R4 = "{%r1, %r2, %r3, %r4}"
R4C = "{%r5, %r6, %r7, %r8}"
H2 = "{%r1, %r2}"
H2C = "{%r7, %r8}"
B2 = "{%r5, %r6}"


def mma_forms():
    g = []
    for shape, a, b in [("m16n8k16", R4, B2), ("m16n8k8", H2, "{%r5}")]:
        for ab in ["f16", "bf16"]:
            for d, c in [("f32", "f32"), ("f16", "f16"), ("f32", "f16"), ("f16", "f32")]:
                dr = F4 if d == "f32" else H2
                cr = F4C if c == "f32" else H2C
                g.append(f"mma.sync.aligned.{shape}.row.col.{d}.{ab}.{ab}.{c} {dr}, {a}, {b}, {cr};")
    for a in ["s8", "u8"]:
        for b in ["s8", "u8"]:
            g.append(f"mma.sync.aligned.m16n8k32.row.col.s32.{a}.{b}.s32 {R4}, {R4C}, {B2}, {R4};")
            g.append(f"mma.sync.aligned.m16n8k32.row.col.satfinite.s32.{a}.{b}.s32 {R4}, {R4C}, {B2}, {R4};")
    g.append("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd5, %fd6};")
    g.append("mma.sync.aligned.m8n8k4.row.col.rn.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd5, %fd6};")
    return g


def grid():
    g = mma_forms()
    g += verdict.listed("mma", "mma")
    for num, regs in [("x1", "{%r1}"), ("x2", "{%r1, %r2}"), ("x4", R4)]:
        for trans in ["", ".trans"]:
            for sp, addr in [(".shared", "[%r5]"), (".shared::cta", "[%r5+16]"), ("", "[%rd2]")]:
                g.append(f"ldmatrix.sync.aligned.m8n8.{num}{trans}{sp}.b16 {regs}, {addr};")
    g += verdict.listed("mma", "ldmatrix")
    for num, regs in [("x1", "{%r1}"), ("x2", "{%r1, %r2}"), ("x4", R4)]:
        for trans in ["", ".trans"]:
            g.append(f"stmatrix.sync.aligned.m8n8.{num}{trans}.shared.b16 [%r5], {regs};")
    return g + verdict.listed("mma", "stmatrix-movmatrix")



if __name__ == "__main__":
    sys.exit(verdict.write_listed_grid("mma", __doc__, grid()))
