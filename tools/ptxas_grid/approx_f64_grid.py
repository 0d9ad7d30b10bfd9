#!/usr/bin/env python3
"""ptxas's verdicts on `rcp` and `rsqrt` over `.f64` (and `.f32`), per target.

Writes sim-isa/tests/data/approx-f64-ptxas.txt, read by
sim-isa/tests/it/approx_f64.rs: one line per statement,

    V35 V50 V75 V80 V90 PTX TEXT

where each V is ptxas's verdict on that target (`accept`; `arch` when every
message is about the target; `reject` otherwise): sm_35 and sm_50 from
ptxas 11.8 at `.version 7.8`, the others from ptxas 13.0.88 at `.version
9.0` (13.0.88 assembles nothing below sm_75). PTX is the lowest `.version`
the assembler of the lowest accepting target takes the statement at, over
the versions that target allows (sm_35: 3.1 up; sm_50: 4.0 up), so a
statement read at 3.1 may be older still; `-` when no target accepts it.
Each `# ptxas:` line above a statement is a message. A `# below 3.1:` line
under an accepted statement quotes the messages about the statement (not
the target) that ptxas 11.8 gives for sm_35 at `.version 2.0`, which that
target refuses anyway: what it says of versions below the target's.
The statements: `rcp` and `rsqrt` over `.f64` and `.f32` with no rounding
word, `.approx`, `.rn` or `.full`, with and without `.ftz` and `.sat`.

    PTXAS13=... PTXAS11=... python3 -m tools.ptxas_grid.approx_f64_grid
"""

import sys

from tools.ptxas_grid import verdict

OUT = verdict.grid_path("approx-f64")
PTXAS13, PTXAS11 = verdict.PTXAS13, verdict.PTXAS11
TARGETS = [("sm_35", PTXAS11, "7.8"), ("sm_50", PTXAS11, "7.8"), ("sm_75", PTXAS13, "9.0"),
           ("sm_80", PTXAS13, "9.0"), ("sm_90", PTXAS13, "9.0")]
ALL_VERSIONS = ["3.1", "3.2", "4.0", "4.1", "4.2", "4.3", "5.0", "6.0", "6.1", "6.2", "6.3",
                "6.4", "6.5", "7.0", "7.1", "7.2", "7.3", "7.4", "7.5", "7.6", "7.7", "7.8",
                "8.0", "8.1", "8.2", "8.3", "8.4", "8.5", "8.6", "8.7", "8.8", "9.0"]
FIRST = {"sm_35": "3.1", "sm_50": "4.0", "sm_75": "6.3", "sm_80": "7.0", "sm_90": "7.8"}
REG = {"f32": "%f", "f64": "%fd"}


def statements():
    """rcp and rsqrt over .f64 and .f32 with every rounding word, .ftz and .sat."""
    out = []
    for op in ["rcp", "rsqrt"]:
        out += verdict.one_source_forms(op, ["f64", "f32"], REG)
    return out


def lowest_version(text, target, ptxas, top):
    """The lowest version (from the target's first) at which target accepts text."""
    vs = ALL_VERSIONS[ALL_VERSIONS.index(FIRST[target]):ALL_VERSIONS.index(top) + 1]
    return verdict.first_accepted(vs, lambda v: verdict.assemble(ptxas, target, v, text))


def below(text):
    """ptxas 11.8's messages on text for sm_35 at .version 2.0 that are not about the
    target, the version's own target support or `.address_size` (PTX 2.3)."""
    _, errs = verdict.assemble(PTXAS11, "sm_35", "2.0", text)
    msgs = [e.split("error   :")[-1].strip() for e in errs]
    return [m for m in msgs if "does not support .target" not in m and ".address_size" not in m]


def main():
    head = verdict.doc_head(__doc__, 22)
    judges = [lambda text, t=t, p=p, v=v: verdict.assemble(p, t, v, text) for t, p, v in TARGETS]
    lowests = [lambda text, t=t, p=p, top=top: lowest_version(text, t, p, top)
               for t, p, top in TARGETS]
    out = list(head)
    texts = statements()
    for text in texts:
        rows = verdict.target_row(text, judges, lowests)
        out += rows
        if not rows[-1].startswith("reject " * len(TARGETS)):
            out += [f"# below 3.1: {m}" for m in below(text)]
    verdict.write_lines(OUT, out)
    print(f"wrote {OUT}: {len(texts)} statements")


if __name__ == "__main__":
    sys.exit(main())
