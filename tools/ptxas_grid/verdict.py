"""One statement through ptxas: the verdict the grid scripts record.

`assemble(ptxas, target, version, text)` wraps `text` in a kernel that
declares every register class the grids use (`%h` b16, `%r` b32, `%rd`
b64, `%f` f32, `%fd` f64, `%p` pred; unused declarations change no
verdict), runs `ptxas -arch=TARGET` on it and returns `(verdict, errors)`:
"accept", "arch" (every error is a "requires .target" one), "version"
(every error a "requires PTX ISA .version" one, when `versions` is set),
or "reject"; `errors` are ptxas's "error   :" lines.

The grid scripts also share what they do around it: their assemblers
(`PTXAS`, `PTXAS11`); `param_kernel` and `messages` (ptxas on a kernel of
the script's own, its messages joined) and `target_only`; the
per-target verdict rows of the multi-target grids (`write_target_grid`,
`target_row`, `first_accepted`) and the statements of the one-source float
ones (`one_source_forms`); the `accept`/`reject`/`arch` and `gate`
lines of the single-target ones (`verdict_lines`, `message_judge`,
`write_message_grid`); the file's comment head from a docstring
(`doc_head`, `doc_paragraph`) or around `GATE_LEGEND` (`gated_head`);
writing the file (`write_lines`, `tally`). tools/grids' scripts judge a
statement by ptxas's exit status alone, in a kernel declaring only the
registers it names (`declared_kernel`, `accepts`).
"""

import os
import re
import subprocess
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../.."))
# The single-target grids' assemblers: ptxas 13.0.88 and, for the targets it no longer
# knows (below sm_75), ptxas 11.8; by default the git-ignored copies tools/validate.sh
# and tools/lowering/derive_sass.py install.
PTXAS = os.environ.get("PTXAS", os.path.join(ROOT, "tools/.cache/sass/nvcc13/nvidia/cu13/bin/ptxas"))
PTXAS11 = os.environ.get("PTXAS11", os.path.join(ROOT, "tools/.cache/py/nvidia/cuda_nvcc/bin/ptxas"))
# The four-target grids (`write_four_target_grid`): ptxas 13.0.88 from PATH unless named.
PTXAS13 = os.environ.get("PTXAS13", "ptxas")
FOUR_TARGETS = [("sm_70", PTXAS11, "7.8"), ("sm_75", PTXAS13, "9.0"), ("sm_80", PTXAS13, "9.0"),
                ("sm_90", PTXAS13, "9.0")]

REGS = (
    ".reg .b16 %h<9>; .reg .b32 %r<9>; .reg .b64 %rd<9>; .reg .f32 %f<9>;\n"
    ".reg .f64 %fd<9>; .reg .pred %p<9>;\n"
)


def declared_kernel(text, target, version):
    """A kernel holding only `text`, with the registers it names declared at their classes'
    types (%r .b32, %rd .b64, %h .b16, %f .f32, %fd .f64)."""
    regs = sorted(set(re.findall(r"%(rd|r|h|fd|f)(\d+)", text)))
    decl = {"r": ".b32", "rd": ".b64", "h": ".b16", "f": ".f32", "fd": ".f64"}
    lines = [f".version {version}", f".target {target}", ".address_size 64", ".visible .entry k() {"]
    lines += [f"  .reg {decl[p]} %{p}{n};" for p, n in regs]
    lines += ["  " + text, "  ret;", "}"]
    return "\n".join(lines) + "\n"


def accepts(ptxas, target, version, text):
    """Whether ptxas -arch=TARGET assembles `declared_kernel(text, target, version)`."""
    with tempfile.TemporaryDirectory() as d:
        src, cub = os.path.join(d, "k.ptx"), os.path.join(d, "k.cubin")
        with open(src, "w") as f:
            f.write(declared_kernel(text, target, version))
        return subprocess.run([ptxas, f"-arch={target}", src, "-o", cub], capture_output=True).returncode == 0


def assemble(ptxas, target, version, text, versions=False):
    """(verdict, errors) of ptxas on text in a kernel declaring every register class the
    grids use (see the module docstring)."""
    src = (
        f".version {version}\n.target {target}\n.address_size 64\n"
        f".visible .entry k()\n{{\n{REGS}{text}\nret;\n}}\n"
    )
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "t.ptx")
        with open(p, "w") as f:
            f.write(src)
        r = subprocess.run([ptxas, f"-arch={target}", p, "-o", os.path.join(d, "t.o")],
                           capture_output=True, text=True)
    errs = [l for l in r.stderr.splitlines() if "error   :" in l]
    if r.returncode == 0:
        return "accept", errs
    if errs and all("requires .target" in l for l in errs):
        return "arch", errs
    if versions and errs and all("requires PTX ISA .version" in l for l in errs):
        return "version", errs
    return "reject", errs

# The middle of a single-target grid file's comment head (its lines as the files have
# them): what `verdict_lines` writes.
GATE_LEGEND = [
    "# `accept TEXT`, `reject TEXT` (ptxas's message above), or `arch TEXT`: refused",
    "# only for the target (valid PTX for a later one). Then `gate TARGET VERSION",
    "# ok|refused TEXT`: the statement for another target or .version (ptxas 13.0.88 from",
]


def messages(ptxas, target, src, tmp):
    """(return code, messages) of ptxas -arch=TARGET on the kernel text src, written to
    tmp/s.ptx: each error line past its `error   :` prefix and each fatal line, the closing
    "aborted due to errors" left out, joined by "; "."""
    path = os.path.join(tmp, "s.ptx")
    with open(path, "w") as f:
        f.write(src)
    r = subprocess.run([ptxas, f"-arch={target}", path, "-o", os.devnull], capture_output=True, text=True)
    msgs = [l.split(":", 1)[-1].strip() if "error" in l else l.strip()
            for l in (r.stdout + r.stderr).splitlines() if "error" in l or "fatal" in l]
    msgs = [m for m in msgs if "aborted due to errors" not in m]
    return r.returncode, "; ".join(msgs)


def target_only(msg):
    """Whether every message of a `messages` string is about the target (`redux.f32` is
    sm_100a's)."""
    parts = [m for m in msg.split("; ") if m]
    return bool(parts) and all("not supported on .target" in m for m in parts)


def param_kernel(version, target, stmt, extra=""):
    """The single-target grids' kernel: one .u64 parameter pp, %r<9> .b32, %rd<9> .b64 and
    %p<9> .pred declared (then `extra`), stmt, ret."""
    return f""".version {version}
.target {target}
.address_size 64
.visible .entry k(.param .u64 pp)
{{
.reg .b32 %r<9>; .reg .b64 %rd<9>; .reg .pred %p<9>;
{extra}{stmt}
ret;
}}
"""


def message_judge(run, ptxas, ptxas11, tmp):
    """A `verdict_lines` judge over run(ptxas, version, target, text, tmp) -> (accepted,
    messages): ptxas from sm_75, ptxas11 below; a refusal is `arch` when `target_only`."""

    def judge(target, version, text):
        ok, msg = run(ptxas if int(target[3:]) >= 75 else ptxas11, version, target, text, tmp)
        return ("accept" if ok else "arch" if target_only(msg) else "reject"), msg

    return judge


def verdict_lines(judge, statements, gates):
    """The lines of a single-target grid. judge(target, version, text) is (verdict,
    messages), the verdict `accept`, `reject`, `arch`, or None where ptxas gave no answer
    (crashed). Each statement at sm_90 and .version 9.0 gives `VERDICT TEXT` (or `# no
    answer, MESSAGES: TEXT`); then each (TARGET, VERSION, TEXT) of gates gives `gate TARGET
    VERSION ok|refused TEXT`. A `# ptxas: MESSAGES` line stands above each refusal."""
    lines = []
    for s in statements:
        v, msg = judge("sm_90", "9.0", s)
        if v is None:
            # No verdict: the statement stays out of the grid.
            lines.append(f"# no answer, {msg}: {s}")
            continue
        if v != "accept":
            lines.append(f"# ptxas: {msg}")
        lines.append(f"{v} {s}")
    for t, ver, s in gates:
        v, msg = judge(t, ver, s)
        if v != "accept":
            lines.append(f"# ptxas: {msg}")
        lines.append(f"gate {t} {ver} {'ok' if v == 'accept' else 'refused'} {s}")
    return lines


def target_row(text, judges, lowests):
    """The lines of a multi-target grid for text: a `# ptxas: MESSAGE` line per distinct
    error message (sorted), then `V1 V2 ... LOW TEXT`. judges[i](text) is target i's
    (verdict, errors); LOW is lowests[i](text) for the first target that accepts text,
    `-` when none does."""
    res = [judge(text) for judge in judges]
    vs = [v for v, _ in res]
    low = next((lowest(text) for v, lowest in zip(vs, lowests) if v == "accept"), "-")
    msgs = {m.split("error   :")[-1].strip() for _, e in res for m in e}
    return [f"# ptxas: {m}" for m in sorted(msgs)] + [" ".join(vs + [low, text])]


def one_source_forms(op, types, regs):
    """op over each of types (its register class regs[type]) with every rounding word
    (none, .approx, .rn, .full), with and without .ftz and .sat: a one-source float
    instruction's valid forms and their invalid neighbours, `OP.. %X5, %X1;`."""
    out = []
    for ty in types:
        r = regs[ty]
        for word in ["", ".approx", ".rn", ".full"]:
            for ftz in ["", ".ftz"]:
                for sat in ["", ".sat"]:
                    out.append(f"{op}{word}{ftz}{sat}.{ty} {r}5, {r}1;")
    return out


def each(words, *templates):
    """Each template with `{}` replaced by each of words in turn, the templates in
    order for each word: a family's loop over its own words as one table (issue 27).
    (`{}` rather than str.format: the statements' vector operands are braced.)"""
    return [t.replace("{}", w) for w in words for t in templates]


def listed(name, section):
    """The statements of `[section]` in tools/ptxas_grid/lists/NAME.txt, in order: a
    grid's hand-written statements kept as data, not as code lists alike in shape from
    one script to the next (issue 27). `#` lines and blank lines are not statements."""
    out, inside = [], False
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "lists", f"{name}.txt")) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("["):
                inside = line == f"[{section}]"
            elif inside and line and not line.startswith("#"):
                out.append(line)
    if not out:
        raise ValueError(f"no statements under [{section}] in lists/{name}.txt")
    return out


def listed_gates(name):
    """The `[gates]` of tools/ptxas_grid/lists/NAME.txt, each line `TARGET VERSION TEXT`,
    as (target, version, text): what `write_gated_grid` asks for another target or
    `.version`."""
    return [tuple(line.split(" ", 2)) for line in listed(name, "gates")]


def write_listed_grid(name, doc, texts):
    """`write_gated_grid` of grid `name` (`grid_path`) judged by `assembler_judge`: texts,
    then the gates of lists/NAME.txt (`listed_gates`), under paragraph 2 of the script's
    docstring doc."""
    write_gated_grid(grid_path(name), doc_paragraph(doc, 2), assembler_judge, texts, listed_gates(name))


def first_accepted(versions, judge):
    """The first of versions at which judge(version) is an `accept` verdict, '?' if none
    is."""
    return next((v for v in versions if judge(v)[0] == "accept"), "?")


def write_target_grid(path, head, texts, judges, lowests):
    """Writes a multi-target grid file: the comment head, then `target_row` for each of
    texts."""
    out = list(head)
    for text in texts:
        out += target_row(text, judges, lowests)
    write_lines(path, out)
    print(f"wrote {path}: {len(texts)} statements")


# The format paragraph of a four-target grid's head (`write_four_target_grid`): a
# script's docstring names it by `{four_target_format}` and `doc_head` writes it there,
# ahead of the script's own words on the versions its targets allow.
FOUR_TARGET_FORMAT = """one line per statement,

    V70 V75 V80 V90 PTX TEXT

where each V is ptxas's verdict on that target at `.version 7.8` (sm_70,
judged by ptxas 11.8: ptxas 13 assembles nothing below sm_75) or `.version
9.0` (sm_75, sm_80, sm_90: ptxas 13.0.88): `accept`; `arch` when every message
is about the target ("requires .target sm_XX or higher"); `reject`
otherwise. PTX is the lowest `.version` ptxas 13.0.88 accepts the
statement at on the lowest target that accepts it, over the versions that"""


def doc_head(doc, end):
    """Lines 1..end-1 of a script's docstring as the grid file's `#` comment head, with
    `FOUR_TARGET_FORMAT` for `{four_target_format}` (and end counting its lines)."""
    doc = doc.replace("{four_target_format}", FOUR_TARGET_FORMAT)
    return ["# " + l if l else "#" for l in doc.splitlines()[1:end]]


def doc_paragraph(doc, n):
    """Paragraph n (0 the summary; paragraphs are parted by blank lines) of a script's
    docstring as `#` comment lines: a single-target grid file's head, kept once, in the
    script's own description."""
    return ["# " + l for l in doc.split("\n\n")[n].splitlines()]


def tally(lines):
    """How many verdict lines (not `#` comments) there are of each first word, as the
    scripts print it: `N (A accept, R reject, H arch, G gate)`."""
    n = [l.split(" ")[0] for l in lines if not l.startswith("#")]
    return (f"{len(n)} ({n.count('accept')} accept, {n.count('reject')} reject, "
            f"{n.count('arch')} arch, {n.count('gate')} gates)")


def write_lines(path, lines):
    """Writes lines to path, each ended by a newline."""
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def grid_path(name):
    """The committed verdict file of grid `name`."""
    return os.path.join(ROOT, f"sim-isa/tests/data/{name}-ptxas.txt")


def write_four_target_grid(path, head, texts, versions):
    """A grid over `FOUR_TARGETS` (`write_target_grid`): each target's verdict at its own
    version, and the lowest of `versions[target]` at which it accepts (ptxas 11.8 for
    sm_70, 13.0.88 for the rest)."""
    def lowest(text, target):
        ptxas = PTXAS11 if target == "sm_70" else PTXAS13
        return first_accepted(versions[target], lambda v: assemble(ptxas, target, v, text))
    write_target_grid(path, head, texts,
                      [lambda text, p=p, t=t, v=v: assemble(p, t, v, text) for t, p, v in FOUR_TARGETS],
                      [lambda text, t=t: lowest(text, t) for t, _, _ in FOUR_TARGETS])


def assembler_judge(target, version, text):
    """(accepted, ptxas's error lines joined) for text alone in the declaring kernel:
    ptxas 13.0.88 (`PTXAS`) from sm_75, 11.8 below."""
    ptxas = PTXAS if int(target[3:]) >= 75 else PTXAS11
    v, errs = assemble(ptxas, target, version, text)
    return v, "; ".join(e.split("error   :", 1)[-1].strip() for e in errs)


def gated_head(opening, script, test):
    """The comment head of a single-target grid judged by `message_judge`: the opening
    lines (what was assembled, in what kernel), `GATE_LEGEND`, then the close naming the
    script (tools/ptxas_grid/SCRIPT.py) and the sim-isa test (tests/it/TEST.rs)."""
    return [*opening, *GATE_LEGEND,
            f"# sm_75, ptxas 11.8 below). Made by tools/ptxas_grid/{script}.py; tests/it/{test}.rs",
            "# checks the parser and check_target agree."]


def write_message_grid(path, head, run, texts, gates):
    """`write_gated_grid` judged by `message_judge(run, PTXAS, PTXAS11, tmp)`, tmp a
    temporary folder."""
    with tempfile.TemporaryDirectory() as tmp:
        write_gated_grid(path, head, message_judge(run, PTXAS, PTXAS11, tmp), texts, gates)


def write_gated_grid(path, head, judge, texts, gates):
    """A single-target grid with its gate rows (`verdict_lines`) under the comment
    lines `head`, written to path and tallied."""
    lines = head + verdict_lines(judge, texts, gates)
    write_lines(path, lines)
    print(f"{tally(lines)} -> {path}")
