#!/usr/bin/env python3
"""ptxas's verdicts on the WMMA statements: `wmma.load`, `wmma.store`, `wmma.mma`.

Writes sim-isa/tests/data/wmma-ptxas.txt, read by sim-isa/tests/it/wmma.rs,
whose head is the next paragraph (`verdict.doc_paragraph`):

ptxas 13.0.88 (-arch=sm_90, .version 9.0, .address_size 64) on each WMMA statement
alone, in tools/ptxas_grid/verdict.py's kernel (%h b16, %r b32, %rd b64, %f f32,
%fd f64, %p pred): `accept TEXT`, `reject TEXT` (ptxas's message above), or
`arch TEXT`: refused only for the target. Then `gate TARGET VERSION ok|refused TEXT`:
the statement for another target or .version (ptxas 11.8 below sm_75). Made by
tools/ptxas_grid/wmma_grid.py; tests/it/wmma.rs checks the parser and check_target agree.

Register classes (`{%f1, ...}` where a .b32 is due) are left out, as in
mma_grid.py: the parser sees no declarations.

    PTXAS=$CUDA13_ROOT/bin/ptxas PTXAS11=.../ptxas python3 -m tools.ptxas_grid.wmma_grid
"""

import sys

from tools.ptxas_grid import verdict

OUT = verdict.grid_path("wmma")
# The statement lists below are data, one distinct PTX statement a line: alike in
# shape only to mma_grid.py's lists (issue 27).

R8 = "{%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}"
F8 = "{%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}"
R4 = "{%r1, %r2, %r3, %r4}"
H = "wmma.load.a.sync.aligned.row.m16n16k16"
MMA = "wmma.mma.sync.aligned.row.col.m16n16k16"


# Every run shape's fragment registers: {(frag, type): count}.
SHAPE_REGS = {
    "m16n16k16": {"a": {"f16": 8, "bf16": 4, "s8": 2, "u8": 2}, "b": {"f16": 8, "bf16": 4, "s8": 2, "u8": 2}},
    "m32n8k16": {"a": {"f16": 8, "bf16": 8, "s8": 4, "u8": 4}, "b": {"f16": 8, "bf16": 2, "s8": 1, "u8": 1}},
    "m8n32k16": {"a": {"f16": 8, "bf16": 2, "s8": 1, "u8": 1}, "b": {"f16": 8, "bf16": 8, "s8": 4, "u8": 4}},
}
ACC = {"f16": 4, "f32": 8, "s32": 8}


def regs(n, p="%r"):
    return "{" + ", ".join(f"{p}{i + 1}" for i in range(n)) + "}"


def other_shapes():
    """The run forms of m32n8k16 and m8n32k16, and the bf16 and integer ones
    of all three shapes: each load and store, each wmma.mma (row.col)."""
    g = []
    for shape, ab in SHAPE_REGS.items():
        for frag in ["a", "b"]:
            for t, n in ab[frag].items():
                if shape == "m16n16k16" and t == "f16":
                    continue
                for layout in ["row", "col"]:
                    g.append(f"wmma.load.{frag}.sync.aligned.{layout}.{shape}.global.{t} {regs(n)}, [%rd1];")
                g.append(f"wmma.load.{frag}.sync.aligned.row.{shape}.shared.{t} {regs(n)}, [%rd1], %r0;")
        for t, n in ACC.items():
            if shape == "m16n16k16" and t != "s32":
                continue
            p = "%f" if t == "f32" else "%r"
            for layout in ["row", "col"]:
                g.append(f"wmma.load.c.sync.aligned.{layout}.{shape}.{t} {regs(n, p)}, [%rd1], 40;")
                g.append(f"wmma.store.d.sync.aligned.{layout}.{shape}.global.{t} [%rd1], {regs(n, p)};")
        mma = f"wmma.mma.sync.aligned.row.col.{shape}"
        if shape != "m16n16k16":
            for d, c in [("f32", "f32"), ("f16", "f16"), ("f32", "f16"), ("f16", "f32")]:
                dr = regs(ACC[d], "%f" if d == "f32" else "%r")
                cr = regs(ACC[c], "%f" if c == "f32" else "%r")
                g.append(f"{mma}.{d}.{c} {dr}, {regs(8)}, {regs(8)}, {cr};")
        bf = ab["a"]["bf16"], ab["b"]["bf16"]
        g.append(f"{mma}.f32.bf16.bf16.f32 {regs(8, '%f')}, {regs(bf[0])}, {regs(bf[1])}, {regs(8, '%f')};")
        i8 = ab["a"]["s8"], ab["b"]["s8"]
        for t in ["s8", "u8"]:
            for sat in ["", ".satfinite"]:
                g.append(f"{mma}.s32.{t}.{t}.s32{sat} {regs(8)}, {regs(i8[0])}, {regs(i8[1])}, {regs(8)};")
    return g


def f64_forms():
    """m8n8k4 with f64: loads, stores, wmma.mma and its roundings, and
    what the shape and type refuse."""
    g = []
    for frag, n in [("a", 1), ("b", 1), ("c", 2)]:
        for layout in ["row", "col"]:
            g.append(f"wmma.load.{frag}.sync.aligned.{layout}.m8n8k4.global.f64 {regs(n, '%fd')}, [%rd1];")
    g.append(f"wmma.load.c.sync.aligned.row.m8n8k4.shared.f64 {regs(2, '%fd')}, [%rd1], %r0;")
    for layout in ["row", "col"]:
        g.append(f"wmma.store.d.sync.aligned.{layout}.m8n8k4.f64 [%rd1], {regs(2, '%fd')}, 12;")
    m = "wmma.mma.sync.aligned.row.col.m8n8k4"
    ops = "{%fd1, %fd2}, {%fd3}, {%fd4}, {%fd5, %fd6}"
    for rnd in ["", ".rn", ".rz", ".rm", ".rp"]:
        g.append(f"{m}{rnd}.f64.f64.f64.f64 {ops};")
    g += [
        f"wmma.mma.sync.aligned.col.row.m8n8k4.f64.f64.f64.f64.rn {ops};",
        f"{m}.rn.rz.f64.f64.f64.f64 {ops};",
        f"{m}.f64.f64 {ops};",
        f"{m}.f64.f64.f64.f64 {{%fd1}}, {{%fd3}}, {{%fd4}}, {{%fd5, %fd6}};",
        f"{m}.f32.f64.f64.f32 {{%f1, %f2}}, {{%fd3}}, {{%fd4}}, {{%f5, %f6}};",
        f"{m}.f64.f64.f64.f64.satfinite {ops};",
        f"wmma.load.a.sync.aligned.row.m8n8k4.global.f16 {{%r1}}, [%rd1];",
        f"wmma.load.a.sync.aligned.row.m8n8k4.rn.global.f64 {{%fd1}}, [%rd1];",
        f"wmma.mma.sync.aligned.row.col.m16n16k16.f64.f64.f64.f64 {F8}, {R8}, {R8}, {F8};",
        f"wmma.mma.sync.aligned.row.col.m16n16k16.rn.f32.f32 {F8}, {R8}, {R8}, {F8};",
    ]
    return g


def sub_byte_forms():
    """m8n8k32 with s4/u4: loads (a .row, b .col only), wmma.mma."""
    g = []
    for t in ["s4", "u4"]:
        for frag, layout in [("a", "row"), ("b", "col"), ("a", "col"), ("b", "row")]:
            g.append(f"wmma.load.{frag}.sync.aligned.{layout}.m8n8k32.global.{t} {{%r1}}, [%rd1], 64;")
        for sat in ["", ".satfinite"]:
            g.append(f"wmma.mma.sync.aligned.row.col.m8n8k32.s32.{t}.{t}.s32{sat} {{%r1, %r2}}, {{%r3}}, {{%r4}}, {{%r5, %r6}};")
    g += [
        "wmma.load.c.sync.aligned.col.m8n8k32.shared.s32 {%r1, %r2}, [%rd1];",
        "wmma.store.d.sync.aligned.row.m8n8k32.s32 [%rd1], {%r1, %r2};",
        "wmma.load.c.sync.aligned.row.m8n8k32.global.f32 {%f1, %f2}, [%rd1];",
        "wmma.load.a.sync.aligned.row.m8n8k32.global.s8 {%r1}, [%rd1];",
        "wmma.load.a.sync.aligned.row.m16n16k16.global.s4 {%r1}, [%rd1];",
        "wmma.mma.sync.aligned.col.row.m8n8k32.s32.s4.s4.s32 {%r1, %r2}, {%r3}, {%r4}, {%r5, %r6};",
        "wmma.mma.sync.aligned.row.col.m8n8k32.s32.s4.u4.s32 {%r1, %r2}, {%r3}, {%r4}, {%r5, %r6};",
        "wmma.mma.sync.aligned.row.col.m8n8k32.s32.s4.s4.s32 {%r1, %r2}, {%r3, %r7}, {%r4}, {%r5, %r6};",
        "wmma.mma.sync.aligned.row.col.m16n16k16.s32.s4.s4.s32 {%r1, %r2}, {%r3}, {%r4}, {%r5, %r6};",
    ]
    return g


def tf32_forms():
    """m16n16k8 with tf32: loads (a, b tf32; c f32), stores, wmma.mma, and
    neighbours."""
    g = []
    for frag in ["a", "b"]:
        for layout in ["row", "col"]:
            g.append(f"wmma.load.{frag}.sync.aligned.{layout}.m16n16k8.global.tf32 {R4}, [%rd1];")
        g.append(f"wmma.load.{frag}.sync.aligned.row.m16n16k8.shared.tf32 {R4}, [%rd1], %r0;")
    for layout in ["row", "col"]:
        g.append(f"wmma.load.c.sync.aligned.{layout}.m16n16k8.global.f32 {F8}, [%rd1], 24;")
        g.append(f"wmma.store.d.sync.aligned.{layout}.m16n16k8.f32 [%rd1], {F8};")
    m = "wmma.mma.sync.aligned.{}.{}.m16n16k8"
    for la in ["row", "col"]:
        for lb in ["row", "col"]:
            g.append(f"{m.format(la, lb)}.f32.tf32.tf32.f32 {F8}, {R4}, {R4}, {F8};")
    mm = m.format("row", "col")
    g += [
        f"wmma.load.c.sync.aligned.row.m16n16k8.global.f16 {R4}, [%rd1];",
        f"wmma.store.d.sync.aligned.row.m16n16k8.f16 [%rd1], {R4};",
        f"wmma.load.c.sync.aligned.row.m16n16k8.global.tf32 {F8}, [%rd1];",
        f"wmma.load.a.sync.aligned.row.m16n16k8.global.f32 {R4}, [%rd1];",
        f"wmma.load.a.sync.aligned.row.m16n16k8.global.f16 {R4}, [%rd1];",
        f"wmma.load.a.sync.aligned.row.m16n16k8.global.tf32 {R8}, [%rd1];",
        f"{mm}.f16.tf32.tf32.f32 {R4}, {R4}, {R4}, {F8};",
        f"{mm}.f32.tf32.tf32.f16 {F8}, {R4}, {R4}, {R4};",
        f"{mm}.f32.tf32.tf32.f32.satfinite {F8}, {R4}, {R4}, {F8};",
        f"{mm}.rn.f32.tf32.tf32.f32 {F8}, {R4}, {R4}, {F8};",
        f"{mm}.f32.tf32.f32 {F8}, {R4}, {R4}, {F8};",
        f"{mm}.f32.f32 {F8}, {R4}, {R4}, {F8};",
        f"{mm}.f32.tf32.tf32.f32 {F8}, {R8}, {R4}, {F8};",
        f"{mm}.f32.tf32.tf32.f32 {F8}, {R4}, {R4}, {R4};",
        f"wmma.mma.sync.aligned.row.col.m16n16k16.f32.tf32.tf32.f32 {F8}, {R4}, {R4}, {F8};",
    ]
    return g


def b1_forms():
    """m8n8k128 with b1: loads (a .row, b .col), c/d, wmma.mma with
    .xor.popc and .and.popc, and neighbours."""
    g = []
    for frag, layout in [("a", "row"), ("b", "col"), ("a", "col"), ("b", "row")]:
        g.append(f"wmma.load.{frag}.sync.aligned.{layout}.m8n8k128.global.b1 {{%r1}}, [%rd1], 256;")
    g += [
        "wmma.load.a.sync.aligned.row.m8n8k128.shared.b1 {%r1}, [%rd1];",
        "wmma.load.c.sync.aligned.row.m8n8k128.global.s32 {%r1, %r2}, [%rd1];",
        "wmma.load.c.sync.aligned.col.m8n8k128.s32 {%r1, %r2}, [%rd1], 16;",
        "wmma.load.c.sync.aligned.row.m8n8k128.global.f32 {%f1, %f2}, [%rd1];",
        "wmma.store.d.sync.aligned.row.m8n8k128.global.s32 [%rd1], {%r1, %r2};",
        "wmma.store.d.sync.aligned.col.m8n8k128.shared.s32 [%rd1], {%r1, %r2}, 8;",
        "wmma.load.a.sync.aligned.row.m8n8k128.global.b1 {%r1, %r2}, [%rd1];",
        "wmma.load.a.sync.aligned.row.m8n8k128.global.s4 {%r1}, [%rd1];",
        "wmma.load.a.sync.aligned.row.m8n8k32.global.b1 {%r1}, [%rd1];",
    ]
    ops = "{%r1, %r2}, {%r3}, {%r4}, {%r5, %r6}"
    m = "m8n8k128.s32.b1.b1.s32"
    for op in ["xor", "and"]:
        g.append(f"wmma.mma.{op}.popc.sync.aligned.row.col.{m} {ops};")
        g.append(f"wmma.mma.sync.aligned.{op}.popc.row.col.{m} {ops};")
        g.append(f"wmma.mma.{op}.popc.sync.aligned.col.row.{m} {ops};")
        g.append(f"wmma.mma.{op}.popc.sync.aligned.row.col.{m}.satfinite {ops};")
        g.append(f"wmma.mma.popc.{op}.sync.aligned.row.col.{m} {ops};")
        g.append(f"wmma.mma.{op}.sync.aligned.row.col.{m} {ops};")
    g += [
        f"wmma.mma.sync.aligned.row.col.{m} {ops};",
        f"wmma.mma.or.popc.sync.aligned.row.col.{m} {ops};",
        f"wmma.mma.xor.and.popc.sync.aligned.row.col.{m} {ops};",
        f"wmma.mma.xor.popc.sync.aligned.row.col.m8n8k32.s32.s4.s4.s32 {ops};",
        f"wmma.mma.xor.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {{%r1}}, {{%r3}}, {{%r4}}, {{%r5, %r6}};",
        f"wmma.mma.xor.popc.sync.aligned.row.col.m8n8k128.f32.b1.b1.f32 {{%f1, %f2}}, {{%r3}}, {{%r4}}, {{%f5, %f6}};",
    ]
    return g


def grid():
    g = other_shapes() + f64_forms() + sub_byte_forms() + tf32_forms() + b1_forms()
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
        f"wmma.load.a.sync.aligned.row.m16n16k8.global.tf32 {R4}, [%rd1];",
        f"wmma.load.a.sync.aligned.row.m8n8k4.global.f64 {{%fd1}}, [%rd1];",
        f"wmma.load.a.sync.aligned.row.m8n8k32.global.s4 {{%r1}}, [%rd1];",
        f"wmma.mma.sync.aligned.row.col.m16n16k8.f32.tf32.tf32.f32 {F8}, {R4}, {R4}, {F8};",
        # Types a shape does not take.
        f"wmma.load.a.sync.aligned.row.m16n16k16.global.tf32 {R4}, [%rd1];",
        f"wmma.load.a.sync.aligned.row.m32n8k16.global.f64 {R4}, [%rd1];",
        f"wmma.load.c.sync.aligned.row.m16n16k16.global.bf16 {R8}, [%rd1];",
        f"wmma.load.a.sync.aligned.row.m16n16k16.global.s32 {R8}, [%rd1];",
        f"wmma.load.c.sync.aligned.row.m16n16k16.global.s8 {R8}, [%rd1];",
        f"wmma.store.d.sync.aligned.row.m16n16k16.global.bf16 [%rd1], {R8};",
        f"wmma.load.a.sync.aligned.row.m16n16k16.global.bf16 {R8}, [%rd1];",
        f"wmma.load.b.sync.aligned.row.m32n8k16.global.bf16 {R4}, [%rd1];",
        f"wmma.load.b.sync.aligned.row.m32n8k16.global.s8 {{%r1, %r2}}, [%rd1];",
        f"wmma.load.a.sync.aligned.row.m16n16k16.global.satfinite.s8 {{%r1, %r2}}, [%rd1];",
        f"wmma.load.a.sync.aligned.row.m16n16k16.global.s16 {{%r1, %r2}}, [%rd1];",
        f"{MMA}.f32.bf16.bf16.f16 {F8}, {R4}, {R4}, {R4};",
        f"{MMA}.f16.bf16.bf16.f32 {R4}, {R4}, {R4}, {F8};",
        f"{MMA}.f32.bf16.f16.f32 {F8}, {R4}, {R4}, {F8};",
        f"{MMA}.f32.bf16.bf16.f32.satfinite {F8}, {R4}, {R4}, {F8};",
        f"{MMA}.s32.s8.u8.s32 {R8}, {{%r1, %r2}}, {{%r1, %r2}}, {R8};",
        f"{MMA}.f32.s8.s8.s32 {F8}, {{%r1, %r2}}, {{%r1, %r2}}, {R8};",
        f"{MMA}.s32.s8.s8.f32 {R8}, {{%r1, %r2}}, {{%r1, %r2}}, {F8};",
        f"{MMA}.s32.s8.s8 {R8}, {{%r1, %r2}}, {{%r1, %r2}}, {R8};",
        f"{MMA}.s32.s8.s8.s32 {R8}, {R4}, {{%r1, %r2}}, {R8};",
        f"{MMA}.s32.u8.u8.s32 {R8}, {{%r1, %r2}}, {R4}, {R8};",
        f"{MMA}.satfinite.s32.s8.s8.s32 {R8}, {{%r1, %r2}}, {{%r1, %r2}}, {R8};",
        f"{MMA}.s32.s8.s8.s32.satfinite.satfinite {R8}, {{%r1, %r2}}, {{%r1, %r2}}, {R8};",
        f"wmma.mma.sync.aligned.row.col.m32n8k16.f32.bf16.bf16.f32 {F8}, {R4}, {R4}, {F8};",
        f"wmma.mma.sync.aligned.row.col.m32n8k16.f16.f16 {R4}, {R8}, {R4}, {R4};",
        f"wmma.mma.sync.aligned.row.col.m16n16k16.m32n8k16.f16.f16 {R4}, {R8}, {R8}, {R4};",
    ]
    return g


LDA = f"{H}.global.f16 {R8}, [%rd1];"
STD = f"wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd1], {F8};"
MMAF = f"{MMA}.f32.f32 {F8}, {R8}, {R8}, {F8};"
MMAH = f"{MMA}.f16.f16 {R4}, {R8}, {R8}, {R4};"
LD32 = f"wmma.load.a.sync.aligned.row.m32n8k16.global.f16 {R8}, [%rd1];"
MMA8 = f"wmma.mma.sync.aligned.row.col.m8n32k16.f16.f32 {R4}, {R8}, {R8}, {F8};"
LDBF = f"wmma.load.a.sync.aligned.row.m16n16k16.global.bf16 {R4}, [%rd1];"
MMABF = f"wmma.mma.sync.aligned.row.col.m32n8k16.f32.bf16.bf16.f32 {F8}, {R8}, {{%r1, %r2}}, {F8};"
LDS8 = f"wmma.load.a.sync.aligned.row.m16n16k16.global.s8 {{%r1, %r2}}, [%rd1];"
LDS32 = f"wmma.load.c.sync.aligned.row.m8n32k16.global.s32 {R8}, [%rd1];"
MMAU8 = f"wmma.mma.sync.aligned.row.col.m16n16k16.s32.u8.u8.s32.satfinite {R8}, {{%r1, %r2}}, {{%r1, %r2}}, {R8};"
GATES = [(t, v, s) for s in [LDA, STD, MMAF, MMAH, LD32, MMA8]
         for t, v in [("sm_70", "6.0"), ("sm_70", "5.0"), ("sm_61", "6.0"), ("sm_75", "6.4"), ("sm_90", "7.8")]]
GATES += [(t, v, s) for s in [LDBF, MMABF]
          for t, v in [("sm_75", "7.0"), ("sm_80", "6.5"), ("sm_80", "7.0"), ("sm_90", "7.8")]]
LDF64 = "wmma.load.c.sync.aligned.col.m8n8k4.global.f64 {%fd1, %fd2}, [%rd1];"
MMAF64 = "wmma.mma.sync.aligned.row.col.m8n8k4.rn.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd5, %fd6};"
GATES += [(t, v, s) for s in [LDF64, MMAF64]
          for t, v in [("sm_75", "7.0"), ("sm_80", "6.5"), ("sm_80", "7.0"), ("sm_90", "7.8")]]
LDS4 = "wmma.load.a.sync.aligned.row.m8n8k32.global.s4 {%r1}, [%rd1];"
MMAU4 = "wmma.mma.sync.aligned.row.col.m8n8k32.s32.u4.u4.s32 {%r1, %r2}, {%r3}, {%r4}, {%r5, %r6};"
GATES += [(t, v, s) for s in [LDS4, MMAU4]
          for t, v in [("sm_72", "6.3"), ("sm_75", "6.2"), ("sm_75", "6.3"), ("sm_90", "7.8")]]
LDTF = "wmma.load.a.sync.aligned.row.m16n16k8.global.tf32 {%r1, %r2, %r3, %r4}, [%rd1];"
MMATF = f"wmma.mma.sync.aligned.row.col.m16n16k8.f32.tf32.tf32.f32 {F8}, {R4}, {R4}, {F8};"
GATES += [(t, v, s) for s in [LDTF, MMATF]
          for t, v in [("sm_75", "7.0"), ("sm_80", "6.5"), ("sm_80", "7.0"), ("sm_90", "7.8")]]
LDB1 = "wmma.load.b.sync.aligned.col.m8n8k128.global.b1 {%r1}, [%rd1];"
MMAXOR = "wmma.mma.xor.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {%r1, %r2}, {%r3}, {%r4}, {%r5, %r6};"
MMAAND = "wmma.mma.and.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {%r1, %r2}, {%r3}, {%r4}, {%r5, %r6};"
GATES += [(t, v, s) for s in [LDB1, MMAXOR, MMAAND]
          for t, v in [("sm_72", "6.3"), ("sm_75", "6.2"), ("sm_75", "6.3"), ("sm_75", "7.1"),
                       ("sm_80", "7.0"), ("sm_80", "7.1"), ("sm_90", "7.8")]]
GATES += [(t, v, s) for s in [LDS8, LDS32, MMAU8]
          for t, v in [("sm_70", "6.3"), ("sm_72", "6.2"), ("sm_72", "6.3"), ("sm_90", "7.8")]]


def main():
    verdict.write_gated_grid(OUT, verdict.doc_paragraph(__doc__, 2), verdict.assembler_judge, grid(), GATES)


if __name__ == "__main__":
    sys.exit(main())
