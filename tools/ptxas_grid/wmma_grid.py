#!/usr/bin/env python3
"""ptxas's verdicts on the WMMA statements: `wmma.load`, `wmma.store`, `wmma.mma`.

Writes sim-isa/tests/data/wmma-ptxas.txt, read by sim-isa/tests/it/wmma.rs:

- `accept TEXT` / `reject TEXT` (ptxas's message above each rejection) /
  `arch TEXT` (refused only for the target): ptxas 13.0.88 -arch=sm_90 on
  the statement alone, .version 9.0, in verdict.py's kernel (%h b16, %r b32,
  %rd b64, %f f32, %fd f64, %p pred);
- `gate TARGET VERSION ok|refused TEXT`: the same statement for another
  target or PTX version (ptxas 13.0.88 from sm_75, ptxas 11.8 below).

Register classes (`{%f1, ...}` where a .b32 is due) are left out, as in
mma_grid.py: the parser sees no declarations.

    PTXAS=$CUDA13_ROOT/bin/ptxas PTXAS11=.../ptxas python3 -m tools.ptxas_grid.wmma_grid
"""

import sys

from tools.ptxas_grid import verdict

OUT = verdict.grid_path("wmma")

R8 = "{%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}"
F8 = "{%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}"
R4 = "{%r1, %r2, %r3, %r4}"
H = "wmma.load.a.sync.aligned.row.m16n16k16"
MMA = "wmma.mma.sync.aligned.row.col.m16n16k16"


def grid():
    g = []
    for frag, types in [("a", ["f16"]), ("b", ["f16"]), ("c", ["f16", "f32"])]:
        for layout in ["row", "col"]:
            for sp, addr in [(".global", "[%rd1]"), (".shared", "[%rd1+32]"), ("", "[%rd1]"),
                             (".shared::cta", "[%rd1]")]:
                for t in types:
                    regs = R4 if (frag == "c" and t == "f16") else (F8 if t == "f32" else R8)
                    for stride in ["", ", %r0", ", 32"]:
                        g.append(f"wmma.load.{frag}.sync.aligned.{layout}.m16n16k16{sp}.{t} {regs}, {addr}{stride};")
    for layout in ["row", "col"]:
        for sp in [".global", ".shared", ""]:
            for t, regs in [("f16", R4), ("f32", F8)]:
                for stride in ["", ", %r0", ", 24"]:
                    g.append(f"wmma.store.d.sync.aligned.{layout}.m16n16k16{sp}.{t} [%rd1], {regs}{stride};")
    for la in ["row", "col"]:
        for lb in ["row", "col"]:
            for d, c in [("f32", "f32"), ("f16", "f16"), ("f32", "f16"), ("f16", "f32")]:
                dr = F8 if d == "f32" else R4
                cr = F8 if c == "f32" else R4
                g.append(f"wmma.mma.sync.aligned.{la}.{lb}.m16n16k16.{d}.{c} {dr}, {R8}, {R8}, {cr};")
    g += [
        # Modifier order and missing words.
        f"wmma.load.a.sync.row.m16n16k16.global.f16 {R8}, [%rd1];",
        f"wmma.load.a.aligned.row.m16n16k16.global.f16 {R8}, [%rd1];",
        f"wmma.load.a.aligned.sync.row.m16n16k16.global.f16 {R8}, [%rd1];",
        f"wmma.load.a.sync.aligned.m16n16k16.row.global.f16 {R8}, [%rd1];",
        f"wmma.load.a.sync.aligned.row.global.m16n16k16.f16 {R8}, [%rd1];",
        f"wmma.load.a.sync.aligned.m16n16k16.global.f16 {R8}, [%rd1];",
        f"wmma.load.a.sync.aligned.row.m16n16k16.global {R8}, [%rd1];",
        f"wmma.load.a.sync.aligned.row.row.m16n16k16.global.f16 {R8}, [%rd1];",
        f"wmma.load.sync.aligned.row.m16n16k16.global.f16 {R8}, [%rd1];",
        f"wmma.load.d.sync.aligned.row.m16n16k16.global.f16 {R8}, [%rd1];",
        f"wmma.store.a.sync.aligned.row.m16n16k16.global.f16 [%rd1], {R8};",
        f"wmma.load.a.sync.aligned.row.m16n16k16.global.f32 {F8}, [%rd1];",
        f"wmma.load.b.sync.aligned.row.m16n16k16.global.f32 {F8}, [%rd1];",
        f"wmma.load.a.sync.aligned.row.m16n16k16.local.f16 {R8}, [%rd1];",
        f"wmma.load.a.sync.aligned.row.m16n16k16.param.f16 {R8}, [%rd1];",
        f"wmma.load.a.sync.aligned.row.m16n16k16.global.global.f16 {R8}, [%rd1];",
        f"wmma.load.a.sync.aligned.row.m16n16k16.global.b16 {R8}, [%rd1];",
        f"wmma.load.c.sync.aligned.row.m16n16k16.global.f64 {F8}, [%rd1];",
        f"wmma.store.d.sync.aligned.row.m16n16k16.global.f16.f16 [%rd1], {R4};",
        # Operands: list sizes, immediates, the address, the stride.
        f"{H}.global.f16 {R4}, [%rd1];",
        f"{H}.global.f16 {{%r1, %r2, %r3, %r4, %r5, %r6, %r7}}, [%rd1];",
        f"{H}.global.f16 %r1, [%rd1];",
        f"{H}.global.f16 {R8}, %rd1;",
        f"{H}.global.f16 {R8}, [%rd1], %r0, %r0;",
        f"{H}.global.f16 {R8};",
        f"{H}.global.f16 {R8}, [%rd1], 17;",
        f"{H}.global.f16 {R8}, [%rd1], 0;",
        f"{H}.global.f16 {R8}, [%rd1], -16;",
        f"{H}.global.f16 {R8}, [64];",
        f"{H}.global.f16 {{%r1, %r2, %r3, %r4, %r5, %r6, %r7, 1}}, [%rd1];",
        f"{H}.global.f16 [%rd1], {R8};",
        f"wmma.load.c.sync.aligned.row.m16n16k16.global.f32 {R4}, [%rd1];",
        f"wmma.load.c.sync.aligned.row.m16n16k16.global.f16 {R8}, [%rd1];",
        f"wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd1], {R4};",
        f"wmma.store.d.sync.aligned.row.m16n16k16.global.f16 [%rd1], {{%r1, %r2, %r3, 5}};",
        f"wmma.store.d.sync.aligned.row.m16n16k16.global.f16 {R4}, [%rd1];",
        f"@%p1 {H}.global.f16 {R8}, [%rd1];",
        f"@!%p1 wmma.store.d.sync.aligned.row.m16n16k16.global.f16 [%rd1], {R4};",
        # wmma.mma: words, types, operands.
        f"{MMA}.f32.f32.satfinite {F8}, {R8}, {R8}, {F8};",
        f"wmma.mma.sync.aligned.row.col.m16n16k16.satfinite.f32.f32 {F8}, {R8}, {R8}, {F8};",
        f"wmma.mma.sync.aligned.row.m16n16k16.f32.f32 {F8}, {R8}, {R8}, {F8};",
        f"wmma.mma.sync.aligned.m16n16k16.f32.f32 {F8}, {R8}, {R8}, {F8};",
        f"wmma.mma.sync.aligned.row.col.row.m16n16k16.f32.f32 {F8}, {R8}, {R8}, {F8};",
        f"wmma.mma.sync.aligned.m16n16k16.row.col.f32.f32 {F8}, {R8}, {R8}, {F8};",
        f"wmma.mma.sync.row.col.m16n16k16.f32.f32 {F8}, {R8}, {R8}, {F8};",
        f"wmma.mma.aligned.row.col.m16n16k16.f32.f32 {F8}, {R8}, {R8}, {F8};",
        f"{MMA}.f32 {F8}, {R8}, {R8}, {F8};",
        f"{MMA}.f32.f16.f16.f32 {F8}, {R8}, {R8}, {F8};",
        f"{MMA}.f32.f64 {F8}, {R8}, {R8}, {F8};",
        f"{MMA}.s32.s32 {F8}, {R8}, {R8}, {F8};",
        f"{MMA}.f32.f32 {R4}, {R8}, {R8}, {F8};",
        f"{MMA}.f32.f32 {F8}, {R4}, {R8}, {F8};",
        f"{MMA}.f32.f32 {F8}, {R8}, {R4}, {F8};",
        f"{MMA}.f32.f32 {F8}, {R8}, {R8}, {R4};",
        f"{MMA}.f16.f16 {F8}, {R8}, {R8}, {R4};",
        f"{MMA}.f32.f32 {F8}, {R8}, {R8};",
        f"{MMA}.f32.f32 {F8}, {R8}, {R8}, {F8}, {F8};",
        f"{MMA}.f32.f32 {F8}, {R8}, {R8}, {{0f00000000, %f2, %f3, %f4, %f5, %f6, %f7, %f8}};",
        f"{MMA}.f32.f32 {F8}, {{%r1, %r2, %r3, %r4, %r5, %r6, %r7, 1}}, {R8}, {F8};",
        f"{MMA}.f32.f32 {{%f1, %f2, %f3, %f4, %f5, %f6, %f7, 1}}, {R8}, {R8}, {F8};",
        f"{MMA}.f32.f32 %f1, {R8}, {R8}, {F8};",
        f"@%p1 {MMA}.f32.f32 {F8}, {R8}, {R8}, {F8};",
        # Valid PTX this simulator does not run: other shapes and types.
        f"wmma.load.a.sync.aligned.row.m32n8k16.global.f16 {R8}, [%rd1];",
        f"wmma.load.b.sync.aligned.col.m8n32k16.global.f16 {R8}, [%rd1];",
        f"wmma.load.a.sync.aligned.row.m16n16k16.global.bf16 {R4}, [%rd1];",
        f"wmma.load.a.sync.aligned.row.m16n16k16.global.s8 {{%r1, %r2}}, [%rd1];",
        f"wmma.load.c.sync.aligned.row.m16n16k16.global.s32 {R8}, [%rd1];",
        f"wmma.load.a.sync.aligned.row.m16n16k8.global.tf32 {R4}, [%rd1];",
        f"wmma.mma.sync.aligned.row.col.m32n8k16.f32.f32 {F8}, {R8}, {R8}, {F8};",
        f"wmma.mma.sync.aligned.row.col.m16n16k16.f32.bf16.bf16.f32 {F8}, {R4}, {R4}, {F8};",
        f"wmma.mma.sync.aligned.row.col.m16n16k16.s32.s8.s8.s32 {R8}, {{%r1, %r2}}, {{%r1, %r2}}, {R8};",
        f"wmma.store.d.sync.aligned.row.m32n8k16.global.f32 [%rd1], {F8};",
    ]
    return g


LDA = f"{H}.global.f16 {R8}, [%rd1];"
STD = f"wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd1], {F8};"
MMAF = f"{MMA}.f32.f32 {F8}, {R8}, {R8}, {F8};"
MMAH = f"{MMA}.f16.f16 {R4}, {R8}, {R8}, {R4};"
GATES = [(t, v, s) for s in [LDA, STD, MMAF, MMAH]
         for t, v in [("sm_70", "6.0"), ("sm_70", "5.0"), ("sm_61", "6.0"), ("sm_75", "6.4"), ("sm_90", "7.8")]]


def main():
    lines = [
        "# ptxas 13.0.88 (-arch=sm_90, .version 9.0, .address_size 64) on each WMMA statement",
        "# alone, in tools/ptxas_grid/verdict.py's kernel (%h b16, %r b32, %rd b64, %f f32,",
        "# %fd f64, %p pred): `accept TEXT`, `reject TEXT` (ptxas's message above), or",
        "# `arch TEXT`: refused only for the target. Then `gate TARGET VERSION ok|refused TEXT`:",
        "# the statement for another target or .version (ptxas 11.8 below sm_75). Made by",
        "# tools/ptxas_grid/wmma_grid.py; tests/it/wmma.rs checks the parser and check_target agree.",
    ]

    verdict.write_gated_grid(OUT, lines, verdict.assembler_judge, grid(), GATES)


if __name__ == "__main__":
    sys.exit(main())
