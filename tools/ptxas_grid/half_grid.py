#!/usr/bin/env python3
"""ptxas's verdicts on the half-precision arithmetic grid, per target.

Writes sim-isa/tests/data/half-arith-ptxas.txt, read by
sim-isa/tests/it/half_arith.rs: one line per statement,

    V53 V80 V90 PTX TEXT

where each V is ptxas's verdict on that target (`accept`; `arch` when every
message is about the target: "requires .target sm_XX or higher"; `reject`
otherwise), and PTX is the lowest `.version` ptxas accepts the statement at
(`-` when no target accepts it). sm_53 is judged by ptxas 11.8 at `.version
7.8` (ptxas 13 no longer assembles for it); sm_80 and sm_90 by ptxas 13.0.88
at `.version 9.0`. The lowest version is probed with ptxas 11.8 on the
lowest target that accepts the statement, over the versions that target
allows (sm_53: 4.2 up; sm_80: 7.0 up; sm_90: 7.8 up, so a statement only
sm_90 accepts reads 7.8 whatever the manual says below it).

Each statement is assembled alone inside a kernel declaring %h<9> .b16,
%r<9> .b32 (f16x2/bf16x2 operands) and %f<9> .f32.

    PTXAS13=... PTXAS11=... tools/ptxas_grid/half_grid.py
"""

import os
import sys

from tools.ptxas_grid import verdict

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../.."))
PTXAS13 = os.environ.get("PTXAS13", "ptxas")
PTXAS11 = os.environ.get("PTXAS11", os.path.join(ROOT, "tools/.cache/py/nvidia/cuda_nvcc/bin/ptxas"))
OUT = os.path.join(ROOT, "sim-isa/tests/data/half-arith-ptxas.txt")

TYPES = ["f16", "f16x2", "bf16", "bf16x2"]
REG = {"f16": "%h", "bf16": "%h", "f16x2": "%r", "bf16x2": "%r", "f32": "%f"}


def statements():
    """The half-precision arithmetic grid: add/sub/mul/fma/neg/abs/min/max over f16, bf16
    and their x2 forms with every modifier, and copysign for f32/f64."""
    out = []
    for ty in TYPES:
        r = REG[ty]
        for op in ["add", "sub", "mul"]:
            for rnd in ["", ".rn", ".rz"]:
                for ftz in ["", ".ftz"]:
                    for sat in ["", ".sat"]:
                        out.append(f"{op}{rnd}{ftz}{sat}.{ty} {r}5, {r}1, {r}2;")
        for rnd in ["", ".rn", ".rz"]:
            for ftz in ["", ".ftz"]:
                for sat in ["", ".sat"]:
                    for relu in ["", ".relu"]:
                        out.append(f"fma{rnd}{ftz}{sat}{relu}.{ty} {r}5, {r}1, {r}2, {r}3;")
        for op in ["neg", "abs"]:
            for ftz in ["", ".ftz"]:
                out.append(f"{op}{ftz}.{ty} {r}5, {r}1;")
        for op in ["min", "max"]:
            for ftz in ["", ".ftz"]:
                for nan in ["", ".NaN"]:
                    out.append(f"{op}{ftz}{nan}.{ty} {r}5, {r}1, {r}2;")
    for ty in ["f32", "f64"]:
        r = "%f" if ty == "f32" else "%fd"
        for ftz in ["", ".ftz"]:
            out.append(f"copysign{ftz}.{ty} {r}5, {r}1, {r}2;")
    return out


def assemble(ptxas, target, version, text):
    """ptxas's verdict on text (versions: a .version refusal is told apart)."""
    return verdict.assemble(ptxas, target, version, text, versions=True)


def lowest_version(text, target):
    """The lowest PTX version at which target accepts text (ptxas 11.8), '?' if none does."""
    versions = {"sm_53": ["4.2", "4.3", "5.0", "6.0", "6.4", "6.5", "7.0", "7.8"],
                "sm_80": ["7.0", "7.1", "7.8"], "sm_90": ["7.8"]}[target]
    return verdict.first_accepted(versions, lambda v: assemble(PTXAS11, target, v, text))


def main():
    targets = [(PTXAS11, "sm_53", "7.8"), (PTXAS13, "sm_80", "9.0"), (PTXAS13, "sm_90", "9.0")]
    verdict.write_target_grid(OUT, verdict.doc_head(__doc__, 22), statements(),
                              [lambda text, p=p, t=t, v=v: assemble(p, t, v, text) for p, t, v in targets],
                              [lambda text, t=t: lowest_version(text, t) for _, t, _ in targets])


if __name__ == "__main__":
    sys.exit(main())
