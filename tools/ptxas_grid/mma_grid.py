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

OUT = verdict.grid_path("mma")
# The statement lists below are data, one distinct PTX statement a line: alike in
# shape only to wmma_grid.py's lists (issue 27).

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
    k16 = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
    ok = f"{F4}, {R4}, {B2}, {F4C}"
    g = mma_forms()
    g += [
        # Modifier order, missing words, layouts.
        f"mma.sync.m16n8k16.row.col.f32.f16.f16.f32 {ok};",
        f"mma.aligned.sync.m16n8k16.row.col.f32.f16.f16.f32 {ok};",
        f"mma.sync.aligned.row.col.m16n8k16.f32.f16.f16.f32 {ok};",
        f"mma.sync.aligned.m16n8k16.col.row.f32.f16.f16.f32 {ok};",
        f"mma.sync.aligned.m16n8k16.row.row.f32.f16.f16.f32 {ok};",
        f"mma.sync.aligned.m16n8k16.row.f32.f16.f16.f32 {ok};",
        f"mma.sync.aligned.m16n8k16.f32.f16.f16.f32 {ok};",
        f"mma.sync.aligned.m16n8k16.row.col.f32.f16.f32 {ok};",
        f"mma.sync.aligned.m16n8k16.row.col.f32.bf16.f16.f32 {ok};",
        f"mma.sync.aligned.m16n8k16.row.col.satfinite.f32.f16.f16.f32 {ok};",
        f"mma.sync.aligned.m16n8k16.row.col.rn.f32.f16.f16.f32 {ok};",
        f"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32.f32 {ok};",
        f"mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32 {R4}, {R4C}, {B2}, {R4};",
        f"mma.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {ok};",
        f"mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.f32 {R4}, {R4C}, {B2}, {R4};",
        f"mma.sync.aligned.m8n8k4.row.col.f32.f64.f64.f64 {F4}, {{%fd3}}, {{%fd4}}, {{%fd5, %fd6}};",
        f"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32.satfinite {ok};",
        f"mma.sync.aligned.m8n8k4.row.col.satfinite.f64.f64.f64.f64 {{%fd1, %fd2}}, {{%fd3}}, {{%fd4}}, {{%fd5, %fd6}};",
        f"mma.sync.aligned.m16n8k7.row.col.f32.f16.f16.f32 {ok};",
        # Operands: vector sizes, registers of other classes, immediates.
        f"{k16} {F4}, {R4}, {B2};",
        f"{k16} {F4}, {R4}, {B2}, {F4C}, {F4C};",
        f"{k16} {{%f1, %f2, %f3}}, {R4}, {B2}, {F4C};",
        f"{k16} {F4}, {H2}, {B2}, {F4C};",
        f"{k16} {F4}, {R4}, %r5, {F4C};",
        f"{k16} {F4}, {R4}, {{%r5, %r6, %r7}}, {F4C};",
        f"{k16} {F4}, {R4}, {B2}, {{%f5, %f6}};",
        f"{k16} %f1, {R4}, {B2}, {F4C};",
        f"{k16} {F4}, {R4}, {B2}, {{0f00000000, %f6, %f7, %f8}};",
        f"{k16} {F4}, {{%r1, %r2, %r3, 1}}, {B2}, {F4C};",
        f"{k16} {{%f1, %f2, %f3, 1}}, {R4}, {B2}, {F4C};",
        f"{k16} {R4}, {R4}, {B2}, {R4};",
        f"@%p1 {k16} {ok};",
        f"@!%p1 {k16} {ok};",
        f"mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {{%fd1, %fd2}}, {{%fd3}}, %fd4, {{%fd5, %fd6}};",
        f"mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {{%fd1, %fd2}}, {{%fd3, %fd4}}, {{%fd4}}, {{%fd5, %fd6}};",
        # Valid PTX this simulator does not run: other shapes and types.
        f"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {F4}, {R4}, {B2}, {F4C};",
        f"mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {{%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}}, {H2}, {H2C}, {{%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}};",
        f"mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32 {R4}, {H2}, {{%r5}}, {R4};",
        f"mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {F4}, {R4}, {B2}, {F4C};",
    ]
    for num, regs in [("x1", "{%r1}"), ("x2", "{%r1, %r2}"), ("x4", R4)]:
        for trans in ["", ".trans"]:
            for sp, addr in [(".shared", "[%r5]"), (".shared::cta", "[%r5+16]"), ("", "[%rd2]")]:
                g.append(f"ldmatrix.sync.aligned.m8n8.{num}{trans}{sp}.b16 {regs}, {addr};")
    g += [
        "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [%rd2+-32];",
        "ldmatrix.sync.aligned.x2.m8n8.shared.b16 {%r1, %r2}, [%r5];",
        "ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 %r1, [%r5];",
        "ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r1}, [%r5];",
        "ldmatrix.sync.aligned.m8n8.x3.shared.b16 {%r1, %r2, %r3}, [%r5];",
        "ldmatrix.sync.aligned.m8n8.shared.b16 {%r1}, [%r5];",
        "ldmatrix.sync.aligned.m8n8.x1.shared.b32 {%r1}, [%r5];",
        "ldmatrix.sync.aligned.m8n8.x1.shared.b8 {%r1}, [%r5];",
        "ldmatrix.sync.aligned.m8n8.x1.global.b16 {%r1}, [%rd2];",
        "ldmatrix.sync.m8n8.x1.shared.b16 {%r1}, [%r5];",
        "ldmatrix.aligned.m8n8.x1.shared.b16 {%r1}, [%r5];",
        "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r1, %r2}, [%r5];",
        "@%p1 ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r1}, [%r5];",
        "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r1}, [4];",
        "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r1}, %r5;",
    ]
    for num, regs in [("x1", "{%r1}"), ("x2", "{%r1, %r2}"), ("x4", R4)]:
        for trans in ["", ".trans"]:
            g.append(f"stmatrix.sync.aligned.m8n8.{num}{trans}.shared.b16 [%r5], {regs};")
    g += [
        "stmatrix.sync.aligned.m8n8.x1.shared::cta.b16 [%r5+32], {%r1};",
        "stmatrix.sync.aligned.m8n8.x2.b16 [%rd2], {%r1, %r2};",
        "stmatrix.sync.aligned.m8n8.x2.shared.b16 [%r5], {%r1};",
        "stmatrix.sync.aligned.m8n8.x1.shared.b16 {%r1}, [%r5];",
        "stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r5], {5};",
        "stmatrix.sync.aligned.m8n8.x1.shared.b32 [%r5], {%r1};",
        "movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r2;",
        "movmatrix.sync.aligned.m8n8.b16 %r1, %r2;",
        "movmatrix.sync.aligned.m8n8.trans.b32 %r1, %r2;",
        "movmatrix.sync.aligned.m8n8.trans.b16 %r1, 5;",
        "movmatrix.sync.aligned.m8n8.trans.b16 {%r1}, {%r2};",
        "movmatrix.sync.aligned.m8n8.trans.b16 %r1;",
        "@%p1 movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r2;",
    ]
    return g


K16 = f"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {F4}, {R4}, {B2}, {F4C};"
K16BF = f"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {F4}, {R4}, {B2}, {F4C};"
K8 = f"mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {F4}, {H2}, {{%r5}}, {F4C};"
K8H = f"mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {H2}, {H2}, {{%r5}}, {H2C};"
K8BF = f"mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {F4}, {H2}, {{%r5}}, {F4C};"
K32 = f"mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32 {R4}, {R4C}, {B2}, {R4};"
D4 = "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd5, %fd6};"
LDM = "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r1, %r2, %r3, %r4}, [%r5];"
STM = "stmatrix.sync.aligned.m8n8.x2.shared.b16 [%r5], {%r1, %r2};"
MOVM = "movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r2;"

GATES = [(t, v, s) for s in [K16, K16BF, K32, D4] for t, v in [("sm_80", "7.0"), ("sm_75", "7.0"), ("sm_90", "7.8")]] + \
    [(t, v, s) for s in [K8, K8H] for t, v in [("sm_75", "6.5"), ("sm_75", "6.4"), ("sm_80", "7.0")]] + \
    [(t, v, K8BF) for t, v in [("sm_80", "7.0"), ("sm_75", "7.0"), ("sm_75", "6.5")]] + \
    [(t, v, LDM) for t, v in [("sm_75", "6.5"), ("sm_75", "6.4"), ("sm_90", "7.8")]] + \
    [(t, v, STM) for t, v in [("sm_90", "7.8"), ("sm_90", "7.7"), ("sm_89", "7.8"), ("sm_89", "9.0")]] + \
    [(t, v, MOVM) for t, v in [("sm_75", "7.8"), ("sm_75", "7.7"), ("sm_90", "9.0")]]


def main():
    verdict.write_gated_grid(OUT, verdict.doc_paragraph(__doc__, 2), verdict.assembler_judge, grid(), GATES)


if __name__ == "__main__":
    sys.exit(main())
