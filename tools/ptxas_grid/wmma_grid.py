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

# The loops below write the forms; their hand-written neighbours are data, in
# lists/wmma.txt (verdict.listed).

R8 = "{%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}"
F8 = "{%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}"
R4 = "{%r1, %r2, %r3, %r4}"


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
    g += verdict.listed("wmma", "f64")
    return g


def sub_byte_forms():
    """m8n8k32 with s4/u4: loads (a .row, b .col only), wmma.mma."""
    g = []
    for t in ["s4", "u4"]:
        for frag, layout in [("a", "row"), ("b", "col"), ("a", "col"), ("b", "row")]:
            g.append(f"wmma.load.{frag}.sync.aligned.{layout}.m8n8k32.global.{t} {{%r1}}, [%rd1], 64;")
        for sat in ["", ".satfinite"]:
            g.append(f"wmma.mma.sync.aligned.row.col.m8n8k32.s32.{t}.{t}.s32{sat} {{%r1, %r2}}, {{%r3}}, {{%r4}}, {{%r5, %r6}};")
    g += verdict.listed("wmma", "sub-byte")
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
    g += verdict.listed("wmma", "tf32")
    return g


def b1_forms():
    """m8n8k128 with b1: loads (a .row, b .col), c/d, wmma.mma with
    .xor.popc and .and.popc, and neighbours."""
    g = []
    for frag, layout in [("a", "row"), ("b", "col"), ("a", "col"), ("b", "row")]:
        g.append(f"wmma.load.{frag}.sync.aligned.{layout}.m8n8k128.global.b1 {{%r1}}, [%rd1], 256;")
    g += verdict.listed("wmma", "b1-loads")
    ops = "{%r1, %r2}, {%r3}, {%r4}, {%r5, %r6}"
    m = "m8n8k128.s32.b1.b1.s32"
    for op in ["xor", "and"]:
        g.append(f"wmma.mma.{op}.popc.sync.aligned.row.col.{m} {ops};")
        g.append(f"wmma.mma.sync.aligned.{op}.popc.row.col.{m} {ops};")
        g.append(f"wmma.mma.{op}.popc.sync.aligned.col.row.{m} {ops};")
        g.append(f"wmma.mma.{op}.popc.sync.aligned.row.col.{m}.satfinite {ops};")
        g.append(f"wmma.mma.popc.{op}.sync.aligned.row.col.{m} {ops};")
        g.append(f"wmma.mma.{op}.sync.aligned.row.col.{m} {ops};")
    g += verdict.listed("wmma", "b1-mma")
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
    g += verdict.listed("wmma", "m16n16k16")
    return g



if __name__ == "__main__":
    sys.exit(verdict.write_listed_grid("wmma", __doc__, grid()))
