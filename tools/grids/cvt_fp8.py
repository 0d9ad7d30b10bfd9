#!/usr/bin/env python3
"""Writes sim-isa/tests/data/cvt-fp8-ptxas.txt: ptxas 13.0.88's verdict on the
fp8 (`.e4m3x2`/`.e5m2x2`) conversions and the `.relu`/`.satfinite` forms of
f32 to f16/bf16(x2), per target and PTX version (`accept|reject TARGET VERSION
TEXT`).

The modifier grid (rounding x .relu x .satfinite, a few .ftz/.sat mixes) is
judged at sm_90 / PTX 8.1; every text is also judged at older targets and
versions to find the gates. Each text is assembled alone in a kernel declaring
its registers at the widths their names give (%r .b32, %h .b16, %f .f32).

Usage: PTXAS13=... python3 -m tools.grids.cvt_fp8 > sim-isa/tests/data/cvt-fp8-ptxas.txt
"""
# Alike in shape to int_simd.py (a CONFIGS table, texts(), a head printed before the
# verdicts): each grid's own statements, configurations and head, the assembling
# shared through verdict.accepts (issue 27).
import os
import sys
from concurrent.futures import ThreadPoolExecutor

from tools.ptxas_grid.verdict import accepts

CONFIGS = [  # (target, .version)
    ("sm_90", "8.1"),
    ("sm_90", "7.8"),
    ("sm_90", "8.0"),
    ("sm_89", "7.8"),
    ("sm_89", "8.1"),
    ("sm_86", "8.1"),
    ("sm_80", "8.1"),
    ("sm_80", "7.0"),
    ("sm_75", "8.1"),
]
PAIRS = [  # (dtype, atype, operands)
    ("e4m3x2", "f32", "%h5, %f1, %f2"),
    ("e5m2x2", "f32", "%h5, %f1, %f2"),
    ("e4m3x2", "f16x2", "%h5, %r1"),
    ("e5m2x2", "f16x2", "%h5, %r1"),
    ("f16x2", "e4m3x2", "%r5, %h1"),
    ("f16x2", "e5m2x2", "%r5, %h1"),
    ("f16", "f32", "%h5, %f1"),
    ("bf16", "f32", "%h5, %f1"),
    ("f16x2", "f32", "%r5, %f1, %f2"),
    ("bf16x2", "f32", "%r5, %f1, %f2"),
]
MODS = []
for rnd in ("", ".rn", ".rz", ".rm"):
    for relu in ("", ".relu"):
        for sf in ("", ".satfinite"):
            MODS.append(rnd + sf + relu)
MODS += [".rn.relu.satfinite", ".rn.ftz.relu", ".rn.satfinite.sat", ".rn.ftz.satfinite", ".rn.relu.sat"]


def texts():
    """Every statement of the grid: the fp8 conversions, the .relu/.satfinite f32 to half
    forms, and malformed neighbours (other types, wrong operand counts)."""
    out = [f"cvt{m}.{d}.{a} {ops};" for d, a, ops in PAIRS for m in MODS]
    # fp8 with other types: not in the manual.
    out += [
        "cvt.rn.satfinite.e4m3x2.f64 %h5, %fd1, %fd2;",
        "cvt.rn.f32.e4m3x2 %f5, %h1;",
        "cvt.rn.satfinite.e4m3x2.f32 %r5, %f1, %f2;",
        "cvt.rn.satfinite.e4m3x2.f32 %h5, %f1;",
    ]
    return out


def judge(args):
    """ptxas 13.0.88's verdict on one (text, target, version), as the file's line."""
    text, target, version = args
    v = "accept" if accepts(os.environ["PTXAS13"], target, version, text) else "reject"
    return f"{v} {target} {version} {text}"


def main():
    print("# ptxas 13.0.88 verdicts on the fp8 (.e4m3x2/.e5m2x2) conversions and the .relu /")
    print("# .satfinite forms of f32 to f16, bf16, f16x2, bf16x2, per target and PTX version:")
    print("# `accept|reject TARGET VERSION TEXT`. Written by tools/grids/cvt_fp8.py;")
    print("# tests/it/cvt_fp8.rs checks that parse_instruction + check_target agree.")
    jobs = [(t, tg, v) for tg, v in CONFIGS for t in texts()]
    with ThreadPoolExecutor(2) as ex:
        for line in ex.map(judge, jobs):
            print(line)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
