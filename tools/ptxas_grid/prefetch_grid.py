#!/usr/bin/env python3
"""ptxas's verdicts on `prefetch` and `prefetchu`, per target.

Writes sim-isa/tests/data/prefetch-ptxas.txt, read by sim-isa/tests/it/prefetch.rs:
{four_target_format}
target allows (sm_70: 6.0, by ptxas 11.8; sm_75: 6.3 up; sm_80: 7.0 up;
sm_90: 7.8 up); `-` when no target accepts it. Each `# ptxas:` line above a statement is a message it
gave. The statements: `prefetch` with no space and each of the six spaces,
at each level word (`.L1 .L2 .L3`, the eviction priorities `.L2::evict_last
.L2::evict_normal .L2::evict_first .L1::evict_last`), `prefetchu` likewise,
`.tensormap`, and the address forms (`[%rd1+8]`, `[8]`, a 32-bit local
address, two operands; a 32-bit register as a global address is left out:
ptxas 11.8 takes it, 13.0 does not, and a statement alone has no declared
register types).

Each statement is assembled alone inside a kernel declaring every register
class (`tools/ptxas_grid/verdict.py`).

    PTXAS13=... PTXAS11=... python3 -m tools.ptxas_grid.prefetch_grid
"""

# The docstring is the grid file's head (`verdict.doc_head`, which writes the
# four-target grids' format paragraph where the docstring names it).

import sys

from tools.ptxas_grid import verdict

OUT = verdict.grid_path("prefetch")

# The versions asked for the version column, per target (ptxas 13.0.88): around the
# manual's 7.4 for the eviction priorities and 8.0 for `.tensormap`.
VERSIONS = {"sm_70": ["6.0"], "sm_75": ["6.3", "6.4", "6.5", "7.0", "7.3", "7.4", "7.8"],
            "sm_80": ["7.0", "7.3", "7.4", "7.8"], "sm_90": ["7.8", "8.0"]}
SPACES = ["", ".global", ".local", ".shared", ".const", ".param"]
LEVELS = [".L1", ".L2", ".L3", ".L2::evict_last", ".L2::evict_normal", ".L2::evict_first",
          ".L1::evict_last"]


def statements():
    """Every space with every level word, `prefetchu` likewise, `.tensormap`, and the
    address forms."""
    out = [f"prefetch{s}{l} [%rd1];" for s in SPACES for l in LEVELS]
    out += [f"prefetchu{s}{l} [%rd1];" for s in ["", ".global"] for l in [".L1", ".L2"]]
    out += [f"prefetch{s}.tensormap [%rd1];" for s in ["", ".const", ".param"]]
    out += ["prefetch.global.L2 [%rd1+8];", "prefetch.L1 [%rd1+-16];",
            "prefetch.local.L1 [%r1];", "prefetch.global.L2 [8];", "prefetch.local.L1 [8];",
            "prefetch.global.L2 [%rd1], 8;", "prefetch.global.L2 %rd1;", "prefetchu.L1 [%rd1+4];",
            "prefetch.global.L2.L1 [%rd1];", "prefetch.global.global.L2 [%rd1];"]
    return out


def main():
    verdict.write_four_target_grid(OUT, verdict.doc_head(__doc__, 30), statements(), VERSIONS)


if __name__ == "__main__":
    sys.exit(main())
