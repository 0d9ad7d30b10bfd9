#!/usr/bin/env python3
"""ptxas 13.0.88's verdicts on `ex2` over the half types, per target.

Writes sim-isa/tests/data/ex2-half-ptxas.txt, read by
sim-isa/tests/it/ex2_half.rs: one line per statement,

    V75 V80 V90 PTX TEXT

where each V is ptxas's verdict on that target at `.version 9.0` (`accept`;
`arch` when every message is about the target: "requires .target sm_XX or
higher"; `reject` otherwise), and PTX is the lowest `.version` ptxas accepts
the statement at on the lowest target that accepts it, over the versions
that target allows (sm_75: 6.3 up; sm_80: 7.0 up; sm_90: 7.8 up, so a
statement only sm_90 accepts reads 7.8 whatever the manual says below it);
`-` when no target accepts it. ptxas 13 assembles nothing below sm_75.
Each `# ptxas:` line above a statement is a message it gave.

Each statement is assembled alone inside a kernel declaring %h<9> .b16 and
%r<9> .b32 (f16x2/bf16x2 operands).

    PTXAS13=... tools/ptxas_grid/ex2_half_grid.py
"""

import os
import sys

from tools.ptxas_grid import verdict

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../.."))
PTXAS13 = os.environ.get("PTXAS13", "ptxas")
OUT = os.path.join(ROOT, "sim-isa/tests/data/ex2-half-ptxas.txt")

TYPES = ["f16", "f16x2", "bf16", "bf16x2"]
REG = {"f16": "%h", "bf16": "%h", "f16x2": "%r", "bf16x2": "%r"}
TARGETS = ["sm_75", "sm_80", "sm_90"]
VERSIONS = {"sm_75": ["6.3", "6.4", "6.5", "7.0", "7.8"], "sm_80": ["7.0", "7.8"], "sm_90": ["7.8"]}


def statements():
    """ex2 over the half types with every rounding word, .ftz and .sat: the valid forms and
    their invalid neighbours."""
    return verdict.one_source_forms("ex2", TYPES, REG)


def assemble(target, version, text):
    """ptxas 13.0.88's verdict on text for target at version."""
    return verdict.assemble(PTXAS13, target, version, text)


def lowest_version(text, target):
    """The lowest PTX version at which target accepts text ('?' if none does), for the
    file's version column."""
    return verdict.first_accepted(VERSIONS[target], lambda v: assemble(target, v, text))


def main():
    verdict.write_target_grid(OUT, verdict.doc_head(__doc__, 22), statements(),
                              [lambda text, t=t: assemble(t, "9.0", text) for t in TARGETS],
                              [lambda text, t=t: lowest_version(text, t) for t in TARGETS])


if __name__ == "__main__":
    sys.exit(main())
