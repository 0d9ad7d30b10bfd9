#!/usr/bin/env python3
"""Writes sim-isa/tests/data/int-simd-ptxas.txt: ptxas's verdict on every text
of the packed 16-bit integer / .relu / dp4a / dp2a / sad grid, per target and
PTX version (`accept|reject TARGET VERSION TEXT`).

ptxas 13.0.88 ($PTXAS13) judges sm_90 and sm_89 (it no longer knows sm_53 or
sm_61); ptxas 11.8 ($PTXAS) judges sm_61 and sm_53 (it reads `.version` 7.8 at
most). Each text is assembled alone in a kernel declaring its registers at the
widths their names give (%r .b32, %rd .b64, %h .b16).

Usage: PTXAS=... PTXAS13=... python3 -m tools.grids.int_simd > sim-isa/tests/data/int-simd-ptxas.txt
"""
# Alike in shape to cvt_fp8.py (a CONFIGS table, texts(), a head printed before the
# verdicts): each grid's own statements, configurations and head, the assembling
# shared through verdict.accepts (issue 27).
import os
import sys

from tools.ptxas_grid.verdict import accepts

CONFIGS = [  # (assembler env var, target, .version)
    ("PTXAS13", "sm_90", "8.0"),
    ("PTXAS13", "sm_90", "7.8"),
    ("PTXAS13", "sm_89", "8.0"),
    ("PTXAS", "sm_61", "7.8"),
    ("PTXAS", "sm_61", "5.0"),
    ("PTXAS", "sm_53", "7.8"),
]
REG = {16: "%h", 32: "%r", 64: "%rd"}


def texts():
    """Every statement of the grid: packed 16-bit integer arithmetic, .relu, dp4a/dp2a and
    sad forms, with malformed neighbours."""
    out = []
    r3 = "%r5, %r1, %r2"
    for op in ("add", "sub", "min", "max", "mul.lo", "div"):
        for ty in ("u16x2", "s16x2"):
            for mod in ("", ".relu", ".sat"):
                out.append(f"{op}{mod}.{ty} {r3};")
    out += [
        "add.u16x2 %r5, %r1, 7;",
        "add.s16x2 %r5, 7, %r2;",
        "min.u16x2 %r5, %r1, 0x10001;",
        "max.relu.s16x2 %r5, %r1, -1;",
        "abs.s16x2 %r5, %r1;",
        "neg.s16x2 %r5, %r1;",
    ]
    for op in ("min", "max", "add"):
        for ty in ("s32", "u32", "s16", "s64"):
            out.append(f"{op}.relu.{ty} {REG[int(ty[1:])]}5, {REG[int(ty[1:])]}1, {REG[int(ty[1:])]}2;")
    out.append("min.relu.s32 %r5, %r1, -3;")
    out.append("max.relu.sat.s32 %r5, %r1, %r2;")
    r4 = "%r5, %r1, %r2, %r3"
    for a in ("u32", "s32", "u16", "b32", "s64"):
        for b in ("u32", "s32", "u16"):
            out.append(f"dp4a.{a}.{b} {r4};")
            for mode in ("lo", "hi"):
                out.append(f"dp2a.{mode}.{a}.{b} {r4};")
    out += [
        f"dp4a.u32 {r4};",
        f"dp4a.lo.u32.u32 {r4};",
        f"dp4a.sat.s32.s32 {r4};",
        "dp4a.u32.s32 %r5, %r1, 3, %r3;",
        "dp4a.s32.u32 %r5, -1, %r2, 100;",
        f"dp2a.u32.u32 {r4};",
        f"dp2a.wide.u32.u32 {r4};",
        f"dp2a.u32.u32.lo {r4};",
        "dp2a.hi.s32.s32 %r5, %r1, 0x7f80, -5;",
        "dp4a.u32.u32 %r5, %r1, %r2;",
    ]
    for ty in ("u16", "u32", "u64", "s16", "s32", "s64", "b32", "u16x2"):
        w = 32 if ty.endswith("x2") else int(ty[1:])
        r = REG[w]
        out.append(f"sad.{ty} {r}5, {r}1, {r}2, {r}3;")
    out += [
        "sad.sat.s32 %r5, %r1, %r2, %r3;",
        "sad.u32 %r5, %r1, 2, 3;",
        "sad.s64 %rd5, %rd1, -2, %rd3;",
        "sad.u32 %r5, %r1, %r2;",
    ]
    return out


def main():
    print("# ptxas verdicts on the packed 16-bit integer (.u16x2/.s16x2), .relu, dp4a, dp2a")
    print("# and sad grid, per target and PTX version: `accept|reject TARGET VERSION TEXT`.")
    print("# sm_90/sm_89: ptxas 13.0.88; sm_61/sm_53: ptxas 11.8.89 (13.0 no longer knows")
    print("# them). Written by tools/grids/int_simd.py; tests/it/int_simd.rs checks that")
    print("# parse_instruction + check_target agree on every line.")
    for env, target, version in CONFIGS:
        ptxas = os.environ[env]
        for text in texts():
            v = "accept" if accepts(ptxas, target, version, text) else "reject"
            print(f"{v} {target} {version} {text}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
