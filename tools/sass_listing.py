"""nvdisasm listings for the scripts, read by the one Rust reader (the sim-sass crate)
through `cargo run -p xtask -- sass-listing` (xtask/src/listing_json.rs): the scripts
parse no listing text themselves.

    from tools import sass_listing
    for name, lines in sass_listing.functions(text, "sm_90").items():
        for t in lines:            # each a str: the instruction text, or `label:`
            if t.kind == "inst":
                t.base, t.guard, t.operands, t.dests, t.srcs, t.control ...

Each line is a `Line`, a str equal to what the scripts' own regular expressions used to
extract (the instruction as printed without `;`, or `name:` for a label), carrying the
reader's fields: `kind` ("inst" or "label"), and for instructions `addr`, `guard` (`P0`,
None), `guard_negated`, `opcode`, `base`, `mods`, `operands`, `operand_regs`,
`operand_offsets`, `target` (a branch's or call's label), `dests`, `srcs` (64-bit
operands as pairs, for the arch given), `encoding` (ints, with `-hex`) and `control`
(`stall`, `yield`, `write_barrier`, `read_barrier`, `wait_mask`, `reuse`; None without
a second word); labels have `name`.

SASS_LISTING_XTASK names a built xtask binary to run instead of cargo (faster); without
either, `Unavailable` says what to install.
"""

import functools
import json
import os
import shutil
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Unavailable(RuntimeError):
    """The Rust reader could not be run (no cargo, or the build failed)."""


class Line(str):
    """One listing line: the text as a str, the reader's fields as attributes."""

    def __new__(cls, record):
        kind = record["kind"]
        text = record["name"] + ":" if kind == "label" else record["text"]
        self = super().__new__(cls, text)
        self.kind = kind
        for k, v in record.items():
            if k not in ("kind", "text"):
                setattr(self, k, v)
        if kind == "inst":
            self.encoding = [int(w, 16) for w in record["encoding"]]
        return self


def command():
    """The command line that prints a listing's JSON lines (the listing on stdin)."""
    exe = os.environ.get("SASS_LISTING_XTASK")
    if exe:
        return [exe, "sass-listing"]
    cargo = shutil.which("cargo")
    if cargo is None:
        raise Unavailable(
            "reading an nvdisasm listing needs the Rust reader (`cargo run -p xtask -- "
            "sass-listing`), and cargo is not on PATH: install Rust (https://rustup.rs) or "
            "set SASS_LISTING_XTASK to a built xtask binary")
    return [cargo, "run", "--quiet", "--manifest-path", os.path.join(ROOT, "Cargo.toml"),
            "-p", "xtask", "--", "sass-listing"]


@functools.lru_cache(maxsize=64)
def records(text, arch="sm_90"):
    """The reader's JSON records of a listing, in listing order (a tuple of dicts)."""
    cmd = command() + ["-", "--arch", arch]
    try:
        r = subprocess.run(cmd, input=text, capture_output=True, text=True)
    except OSError as e:
        raise Unavailable(f"cannot run {cmd[0]}: {e}") from e
    if r.returncode != 0:
        raise Unavailable(f"`{' '.join(cmd)}` failed (exit {r.returncode}):\n{r.stderr[-2000:]}")
    return tuple(json.loads(line) for line in r.stdout.splitlines() if line)


def functions(text, arch="sm_90"):
    """{function name: [Line]} in listing order: instructions and labels (unreadable
    lines, which nvdisasm does not print, are left out)."""
    out = {}
    for rec in records(text, arch):
        if rec["kind"] == "function":
            out.setdefault(rec["name"], [])
        elif rec["kind"] in ("inst", "label"):
            out.setdefault(rec["function"], []).append(Line(rec))
    return out


def instructions(text, arch="sm_90"):
    """Every instruction of a listing, all functions in order."""
    return [t for lines in functions(text, arch).values() for t in lines if t.kind == "inst"]


def instruction(text, arch="sm_90"):
    """One instruction text (`@P1 IADD3 R6, R6, 0x1, RZ`) as the reader sees it."""
    got = instructions(f"/*0000*/ {text} ;\n", arch)
    if len(got) != 1:
        raise ValueError(f"not one instruction: {text!r}")
    return got[0]


def loop_branch(t):
    """Whether a line is a plain `BRA` to a `.L_x_` label (a loop's branch when the
    label comes before it)."""
    target = getattr(t, "target", None) or ""
    return (t.kind == "inst" and t.opcode == "BRA" and len(t.operands) == 1
            and target.startswith(".L_x_") and target[5:].isdigit())


def check():
    """None when the reader runs, else why not (for tests to skip with)."""
    try:
        records("/*0000*/ NOP ;\n")
    except Unavailable as e:
        return str(e)
    return None
