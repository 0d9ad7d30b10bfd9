#!/usr/bin/env python3
"""Writes CUDA 12's layouts (sim-cudart/src/gen/layout12.rs) as what differs
from CUDA 13's (layout.rs), so the names both versions agree on are generated
once. Called by generate.sh:

    python3 -m tools.cudart.share layout.rs FULL12 > layout12.rs

FULL12 is layout.c's output against CUDA 12's headers. A constant whose line
is the same in layout.rs is re-exported from there (`pub use super::layout`);
one with another value, or that CUDA 13 lacks, is written here; a comment
line is kept where a constant written here follows it. generate.sh then runs
rustfmt over the file, as cargo fmt would (it sorts the re-exported names).
"""
import re
import sys

CONST = re.compile(r"pub const (\w+):")


def share(base, full):
    """layout12.rs's text from layout.rs's lines `base` and FULL12's lines `full`."""
    same = set(base)
    shared, body = [], []
    section, shown, after_const = [], True, True
    for line in full[1:]:
        m = CONST.match(line)
        if not m:
            if after_const:
                section, shown = [], False
            section.append(line)
            after_const = False
            continue
        after_const = True
        if line in same:
            shared.append(m.group(1))
            continue
        if not shown:
            body += section
            shown = True
        body.append(line)
    head = full[:1] + [
        "// Only what differs from CUDA 13's layout.rs is written here; the",
        "// names both agree on (the same line in both) are layout.rs's.",
    ]
    return "\n".join(head + use_lines(shared) + body) + "\n"


def use_lines(names, width=100):
    """`pub use super::layout::{...};` of names, wrapped within width columns."""
    lines, line = ["pub use super::layout::{"], "   "
    for n in names:
        if len(line) + len(n) + 2 > width:
            lines.append(line)
            line = "   "
        line += f" {n},"
    return lines + [line, "};"]


def main():
    base_path, full_path = sys.argv[1:3]
    with open(base_path) as f:
        base = f.read().splitlines()
    with open(full_path) as f:
        full = f.read().splitlines()
    sys.stdout.write(share(base, full))


if __name__ == "__main__":
    main()
