#!/usr/bin/env python3
"""ptxas's verdicts on `tanh`, per target.

Writes sim-isa/tests/data/tanh-ptxas.txt, read by sim-isa/tests/it/tanh.rs:
{four_target_format}
target allows (sm_75: 6.3 up; sm_80: 7.0 up; sm_90: 7.8 up, so a statement
only sm_90 accepts reads 7.8 whatever the manual says below it); `-` when
no target accepts it. Each `# ptxas:` line above a statement is a message
it gave. The statements: `tanh` over the five types the PTX ISA names and
three it does not (`.f64 .u32 .b16`), with no rounding word, `.approx`,
`.rn` or `.full`, with and without `.ftz` and `.sat`.

Each statement is assembled alone inside a kernel declaring every register
class (`tools/ptxas_grid/verdict.py`).

    PTXAS13=... PTXAS11=... python3 -m tools.ptxas_grid.tanh_grid
"""

# The docstring is the grid file's head (`verdict.doc_head`, which writes the
# four-target grids' format paragraph where the docstring names it).

import sys

from tools.ptxas_grid import verdict

OUT = verdict.grid_path("tanh")

TYPES = ["f32", "f16", "f16x2", "bf16", "bf16x2", "f64", "u32", "b16"]
REG = {"f32": "%f", "f64": "%fd", "u32": "%r", "b16": "%h", "f16": "%h", "bf16": "%h",
       "f16x2": "%r", "bf16x2": "%r"}
# The versions asked for the version column, per target (ptxas 13.0.88); sm_70 accepts no
# statement, so it is never the lowest accepting target.
VERSIONS = {"sm_70": [], "sm_75": ["6.3", "6.4", "6.5", "7.0", "7.8"], "sm_80": ["7.0", "7.8"],
            "sm_90": ["7.8"]}


def statements():
    """tanh over each type with every rounding word, .ftz and .sat."""
    return verdict.one_source_forms("tanh", TYPES, REG)


def main():
    verdict.write_four_target_grid(OUT, verdict.doc_head(__doc__, 27), statements(), VERSIONS)


if __name__ == "__main__":
    sys.exit(main())
