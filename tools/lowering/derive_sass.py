#!/usr/bin/env python3
"""Derive sim-core's machine-instruction table (sim-core/data/lowering-sass.tsv).

For every variant key of tools/lowering/derive.py (the keys of
sim-core/src/lowering.rs), this script assembles derive.py's kernel (load the
inputs at their width, run the PTX instruction, store the result) and records the
machine instructions the compiler emitted for the operation, in issue order, with
each one's sources: an earlier instruction of the sequence (its index) or a PTX
source operand (`a`, `b`, `c`, `d`; `c` is also the predicate operand of
set/setp with a BoolOp and of selp, `d` is bfi's fourth source).

Which compiler and disassembler per architecture (the releases the hardware
figures or the earlier table came from):
  sm_35  ptxas 11.8.89 (pip nvidia-cuda-nvcc-cu11), nvdisasm 11.8.89 (Debian
         bookworm non-free nvidia-cuda-toolkit; no pip package has one)
  sm_53  ptxas 12.4.99 and nvdisasm 12.4.99, the CUDA 12.4 binaries that the
         pip package triton==3.0.0 bundles (CUDA 13 no longer targets or
         decodes Maxwell; no NVIDIA pip package ships a 12.x disassembler)
  sm_90  ptxas 13.0.88 (pip nvidia-cuda-nvcc), the release the H100 runs used,
         nvdisasm 13.2.51 (pip nvidia-cuda-nvdisasm; the oldest on PyPI)

What is kept: the backward slice of the stored value, stopping at the loads
(the condition code CC of Kepler/Maxwell counts as a register: `.CC` writes it,
`.X` forms and CSETP read it), minus derive.py's helper instructions (the ISETP
that turns %r3 into the BoolOp / selp predicate: its result reads as operand
`c`; the SEL that stores a setp result: the instructions it reads are the key's
outputs). Loads, stores, address arithmetic and control flow are not in the
slice. Code with calls or branches (16/64-bit div/rem, f32/f64 div, rcp, sqrt)
is read along the path one thread runs for ordinary operands (see `walk`).
A 64-bit operand is a register pair (also a uniform one, and the addend of
sm_90's IMAD.HI); conversions print only the types they do not default.

Table rows (tab-separated): arch, key, out, sequence. `out` lists what holds the
result (indices, or an operand letter when the result is an input unchanged).
The sequence is space-separated `OPCODE.MODIFIERS:deps`, deps comma-separated
(`-` for none), e.g. `PRMT:a,b IMAD.IADD:0,1`.

Usage: python3 -m tools.lowering.derive_sass [-o sim-core/data/lowering-sass.tsv]
       python3 -m tools.lowering.derive_sass --compare-90   # ptxas 11.8 vs 13.0 on sm_90
Installs its tools into tools/.cache/sass (git-ignored) on first use; override
with PTXAS_35/NVDISASM_35, PTXAS_53/NVDISASM_53, PTXAS_90/NVDISASM_90.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import zipfile

from tools import sass_listing  # the one listing reader (sim-sass, through xtask)
from tools.lowering import derive  # variant lists and kernel text are shared, not copied

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CACHE = os.path.join(ROOT, "tools", ".cache", "sass")
ARCHS = ["sm_35", "sm_53", "sm_90"]

# tool -> (install dir, how to get it, path inside)
PIP = {
    "nvcc11": ("nvidia-cuda-nvcc-cu11==11.8.89", "nvidia/cuda_nvcc/bin/ptxas"),
    "nvcc13": ("nvidia-cuda-nvcc==13.0.88", "nvidia/cu13/bin/ptxas"),
    "nvdisasm13": ("nvidia-cuda-nvdisasm==13.2.51", "nvidia/cu13/bin/nvdisasm"),
}
TRITON = "triton==3.0.0"
DEBIAN_TOOLKIT = "nvidia-cuda-toolkit=11.8.89~11.8.0-5~deb12u1"
VERSIONS = {
    "sm_35": "ptxas 11.8.89, nvdisasm 11.8.89",
    "sm_53": "ptxas 12.4.99, nvdisasm 12.4.99",
    "sm_90": "ptxas 13.0.88, nvdisasm 13.2.51",
}


def run(cmd, **kw):
    """Runs a command, failing on a non-zero exit."""
    subprocess.run(cmd, check=True, **kw)


def pip_tool(name):
    """The path of a pinned NVIDIA tool, pip-installed into tools/.cache/sass on first use
    (the derivation must use the versions VERSIONS names)."""
    spec, inner = PIP[name]
    path = os.path.join(CACHE, name, inner)
    if not os.path.exists(path):
        print(f"installing {spec} into {CACHE}/{name}", file=sys.stderr)
        run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
             "--no-deps", "--target", os.path.join(CACHE, name), spec])
        os.chmod(path, 0o755)
    return path


def triton_tool(tool):
    """ptxas/nvdisasm 12.4 as bundled by the triton wheel (only the binaries are unpacked)."""
    d = os.path.join(CACHE, "cuda12.4")
    path = os.path.join(d, tool)
    if not os.path.exists(path):
        os.makedirs(d, exist_ok=True)
        print(f"downloading {TRITON} for its CUDA 12.4 binaries", file=sys.stderr)
        with tempfile.TemporaryDirectory() as tmp:
            run([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
                 "--no-deps", "--dest", tmp, TRITON])
            whl = [f for f in os.listdir(tmp) if f.endswith(".whl")][0]
            with zipfile.ZipFile(os.path.join(tmp, whl)) as z:
                for t in ("ptxas", "nvdisasm"):
                    with open(os.path.join(d, t), "wb") as f:
                        f.write(z.read(f"triton/backends/nvidia/bin/{t}"))
                    os.chmod(os.path.join(d, t), 0o755)
    return path


def debian_nvdisasm():
    """nvdisasm 11.8 from Debian's non-free toolkit package, fetched with apt into the cache."""
    d = os.path.join(CACHE, "cuda11.8")
    path = os.path.join(d, "nvdisasm")
    if not os.path.exists(path):
        apt = os.path.join(d, "apt")
        for sub in ("lists/partial", "cache/archives/partial"):
            os.makedirs(os.path.join(apt, sub), exist_ok=True)
        src = os.path.join(apt, "sources.list")
        with open(src, "w") as f:
            f.write("deb http://deb.debian.org/debian bookworm non-free\n")
        opts = ["-o", f"Dir::Etc::SourceList={src}", "-o", "Dir::Etc::SourceParts=/dev/null",
                "-o", f"Dir::State::Lists={apt}/lists", "-o", f"Dir::Cache={apt}/cache"]
        print(f"downloading {DEBIAN_TOOLKIT} (Debian) for nvdisasm 11.8", file=sys.stderr)
        run(["apt-get", *opts, "update", "-qq"])
        run(["apt-get", *opts, "download", DEBIAN_TOOLKIT], cwd=apt)
        deb = [f for f in os.listdir(apt) if f.endswith(".deb")][0]
        with tempfile.TemporaryDirectory() as tmp:
            run(["dpkg-deb", "-x", os.path.join(apt, deb), tmp])
            os.replace(os.path.join(tmp, "usr/bin/nvdisasm"), path)
        os.remove(os.path.join(apt, deb))
    return path


def tools(arch, compiler=None):
    """(ptxas, nvdisasm) for arch; compiler '11.8' forces ptxas 11.8 (for --compare-90)."""
    env = arch.replace("sm_", "")
    ptxas, dis = os.environ.get(f"PTXAS_{env}"), os.environ.get(f"NVDISASM_{env}")
    if compiler == "11.8":
        return pip_tool("nvcc11"), dis or pip_tool("nvdisasm13")
    if arch == "sm_35":
        return ptxas or pip_tool("nvcc11"), dis or debian_nvdisasm()
    if arch == "sm_53":
        return ptxas or triton_tool("ptxas"), dis or triton_tool("nvdisasm")
    return ptxas or pip_tool("nvcc13"), dis or pip_tool("nvdisasm13")


# ---------------------------------------------------------------- assembling
def module(arch, variants):
    """One PTX module with an entry k<i> per variant (ptxas compiles entries independently).

    selp and slct load their inputs as volatile: otherwise ptxas selects between the two
    loads' addresses (a predicated load) and no select instruction remains."""
    head, entries = None, []
    for i, (key, ins, body, out, _) in enumerate(variants):
        text = derive.kernel(arch, ins, body, out)
        if key.startswith(("selp.", "slct.")):
            text = text.replace("ld.global.", "ld.volatile.global.")
        lines = text.splitlines()
        head = lines[:3]
        entries.append("\n".join(lines[3:]).replace(".entry k(", f".entry k{i}("))
    return "\n".join(head) + "\n" + "\n".join(entries) + "\n"


def assemble_all(arch, variants, ptxas, nvdisasm):
    """{variant index: [SASS text]} for the variants this arch's ptxas accepts."""
    live = list(range(len(variants)))
    with tempfile.TemporaryDirectory() as tmp:
        src, cub = os.path.join(tmp, "m.ptx"), os.path.join(tmp, "m.cubin")
        while live:
            text = module(arch, [variants[i] for i in live])
            with open(src, "w") as f:
                f.write(text)
            r = subprocess.run([ptxas, f"-arch={arch}", src, "-o", cub], capture_output=True, text=True)
            if r.returncode == 0:
                break
            bad = {int(m) for m in re.findall(r"line (\d+);\s*error", r.stderr)}
            if not bad:
                raise RuntimeError(f"ptxas failed without a line number:\n{r.stderr[:2000]}")
            starts = [n + 1 for n, l in enumerate(text.splitlines()) if ".entry k" in l]
            drop = {max(j for j, s in enumerate(starts) if s <= b) for b in bad}
            live = [v for j, v in enumerate(live) if j not in drop]
        if not live:
            return {}
        out = subprocess.run([nvdisasm, "-c", cub], capture_output=True, text=True, check=True).stdout
    return {live[int(k)]: insts for k, insts in functions(out, arch).items()}


def functions(listing, arch="sm_90"):
    """{entry number: [sass_listing.Line]} of an nvdisasm listing: each entry's
    instructions and labels (`name:`), registers counted for arch."""
    res = {}
    for name, lines in sass_listing.functions(listing, arch).items():
        m = re.fullmatch(r"k(\d+)", name)
        if m:
            res[m.group(1)] = lines
    return res


def walk(insts):
    """The instructions one thread executes from the entry to the store, on the
    fast path: a `CAL`/`CALL` runs its subroutine (ptxas calls
    `__cuda_sm20_div_s64` and the like for 16- and 64-bit div/rem and the
    directed roundings of f32 div), up to its unconditional `RET`; a conditional
    forward branch over a call, a return or a branch out of the region it skips
    is taken (that region is a slow path or a special case: FCHK or a range
    test found ordinary operands); any other conditional branch or `RET` is not
    (special operands: zero, infinity, NaN, denormals); an unconditional branch
    is followed. Listings without control flow come back as they are. `run`
    returns True once the store is reached (stop), False at a subroutine's RET
    (go on after the call)."""
    labels = {t.name: i for i, t in enumerate(insts) if t.kind == "label"}
    path = []

    def target(t):
        """The instruction index of a branch or call's target label, or None."""
        return labels.get(t.target) if t.kind == "inst" else None

    def run(pc, depth):
        """Follows the fast path from pc (depth: nested calls), appending executed
        instructions to `path`; True once the store is reached, False at a subroutine's
        return."""
        while pc < len(insts) and len(path) < 10000:
            t = insts[pc]
            if t.kind == "label":
                pc += 1
                continue
            cond, base = t.guard is not None, t.base
            if base == "BRA":
                to = target(t)
                cond = cond or len(t.operands) > 1  # `BRA !P2, target`, `BRA CC.EQ, target`
                leaves = to is not None and any(
                    u.kind == "inst" and (u.base in ("CAL", "CALL", "JCAL", "JCALL", "RET", "EXIT")
                                          or (u.opcode == "BRA" and (target(u) or 0) > to))
                    for u in insts[pc + 1:to])
                if to is not None and to > pc and (not cond or leaves):
                    pc = to
                    continue
                if not cond:
                    return True  # an unconditional backward branch: a trailing self-loop
            elif base in ("CAL", "CALL", "JCAL"):
                to = target(t)
                if not cond and to is not None and depth < 4 and run(to, depth + 1):
                    return True
            elif base in ("RET", "EXIT"):
                if not cond:
                    return False
            else:
                path.append(t)
                if base in STORES:
                    return True
            pc += 1
        return True

    run(0, 0)
    return path


# ---------------------------------------------------------------- dataflow
LOADS = ("LDG", "LD")
STORES = ("STG", "ST")
OPERANDS = "abcd"  # the PTX source operands, loaded 8 bytes apart (bfi has four)
SKIP = ("EXIT", "RET", "BRA", "NOP", "DEPBAR", "MEMBAR")


def pair(r):
    """A 64-bit operand's registers: `R4` is R4:R5, uniform `UR6` is UR6:UR7."""
    m = re.fullmatch(r"(U?R)(\d+)", r)
    return [r, f"{m.group(1)}{int(m.group(2)) + 1}"] if m else [r]


def decode(inst):
    """(base, opcode, dests, srcs, operands) of a sass_listing.Line: the reader's
    registers, 64-bit pairs expanded (also a uniform pair and the addend of sm_90's
    IMAD.HI), the Kepler/Maxwell condition code CC as a register (`.CC` writes it, `.X`
    forms and CSETP read it), a guarded instruction reading its guard and destinations
    (a predicated write keeps the old value otherwise)."""
    return inst.base, inst.opcode, list(inst.dests), list(inst.srcs), list(inst.operands)


def offset(inst):
    """The byte offset of a load's address (`[R2.64+0x8]`: 8; 0 without one)."""
    return inst.operand_offsets[-1] or 0 if inst.operands else 0


def sequence(insts, variant, arch):
    """(out, [(opcode, deps)]) for one kernel's SASS, or an error string."""
    key, ins, _, (_, st), helper = variant
    writer = {}  # register -> ("in", letter) | ("k", instr position)
    decoded = []
    store = None
    for pos, text in enumerate(walk(insts)):
        base, opcode, dests, srcs, ops = decode(text)
        if base in LOADS:
            o = offset(text)
            width = 4 if "128" in opcode.split(".") else 2 if "64" in opcode.split(".") else 1
            first = int(dests[0][1:])
            for k, r in enumerate(f"R{first + k}" for k in range(width)):
                idx = (o + 4 * k) // 8
                writer[r] = ("in", OPERANDS[idx])
            continue
        if base in STORES:
            data = text.operand_regs[-1]
            store = pair(data[0]) if st in ("b64", "f64") else data[:1]
            store = [writer.get(r) for r in store]
            break
        if base in SKIP:
            continue
        deps = [writer.get(s) for s in srcs]
        decoded.append((opcode, base, [d for d in deps if d is not None], text))
        for d in dests:
            writer[d] = ("k", len(decoded) - 1)
    if store is None:
        return f"{key}: no store"
    # Backward slice from the stored value.
    keep, stack = set(), [w[1] for w in store if w and w[0] == "k"]
    while stack:
        p = stack.pop()
        if p in keep:
            continue
        keep.add(p)
        stack += [d[1] for d in decoded[p][2] if d[0] == "k"]
    outs = [w for w in store if w]
    helpers = set()
    pred_helpers = set()
    if key.startswith(("setp.", "bit.testp.")):
        # The selp that makes the predicate storable: a SEL, or on Kepler/Maxwell
        # the AND that ptxas folds it into after an ISET/FSET (which then stands
        # for the setp or testp).
        prod = {w[1] for w in outs if w[0] == "k"}
        if len(prod) == 1:
            p = min(prod)
            helpers.add(p)
            outs = decoded[p][2]
    if helper - len(helpers) > 0:
        # The ISETP of %r3 (operand c): every source is the input c.
        for p in sorted(keep - helpers):
            ds = decoded[p][2]
            if decoded[p][1] in ("ISETP", "ICMP", "ISET") and ds and all(d == ("in", "c") for d in ds):
                pred_helpers.add(p)
                break
    kept = sorted(keep - helpers - pred_helpers)
    index = {p: i for i, p in enumerate(kept)}

    def name(d):
        """An operand's name in the table: a/b/c for PTX inputs, c for the predicate helper,
        else the index of the kept instruction that wrote it."""
        if d[0] == "in":
            return d[1]
        if d[1] in pred_helpers:
            return "c"
        return str(index[d[1]]) if d[1] in index else None

    seq = []
    for p in kept:
        ds = []
        for d in decoded[p][2]:
            n = name(d)
            if n is not None and n not in ds:
                ds.append(n)
        seq.append((decoded[p][0], ds))
    out = []
    for d in outs:
        n = name(d)
        if n is not None and n not in out:
            out.append(n)
    return out, seq, len(helpers) + len(pred_helpers)


# ------------------------------------------------------------ chained variants
# The accumulating video forms with `c` the same register as `a`
# (`vabsdiff2.u32.u32.u32.add %x, %x, %z, %x`: H100 `b13`), timed where they
# matter: in a dependent chain. ptxas's code for one such instruction alone
# keeps an IMAD.MOV copy that its code for a chain of them does not (H100
# `b13_lat`: 9 machine instructions per link, none a copy; the isolated kernel
# has 10). Key: the plain key with `.ca`. Derived on sm_90 only.
CHAIN = 3


def chain_variants():
    """(key, PTX opcode) of the video `.add` forms, full-register operands."""
    out = []
    for v in derive.video_variants():
        key = v[0]
        parts = key.split(".")
        if parts[-1] != "def" or parts[-2] != "add":
            continue
        ins = v[2].split()[0]
        out.append((key + ".ca", ins))
    return out


def chain_kernel(arch, i, ins):
    """A kernel with CHAIN dependent instances of a video `.add` form whose c is a: the
    shape H100 `b13_lat` measured."""
    lines = [
        f".visible .entry k{i}(.param .u64 p) {{",
        " .reg .b32 %r<16>; .reg .b64 %rd<8>;",
        " ld.param.u64 %rd6, [p];",
        " cvta.to.global.u64 %rd7, %rd6;",
        " ld.global.b32 %r1, [%rd7+0];",
        " ld.global.b32 %r2, [%rd7+8];",
    ]
    prev = "%r1"
    for k in range(CHAIN):
        cur = f"%r{4 + k}"
        lines.append(f" {ins} {cur}, {prev}, %r2, {prev};")
        prev = cur
    lines += [f" st.global.b32 [%rd7+64], {prev};", " ret; }"]
    return "\n".join(lines)


def chain_sequence(insts, arch):
    """(out, [(opcode, deps)]) of the middle link of a chain kernel, or an error.

    Each machine instruction belongs to the link of its chain depth (the
    longest path from `a`'s load, in links of the total over `CHAIN`); those
    that read only `b` are shared, hoisted work and come first, reading `b`.
    The middle link's reads of the link before are `a` (which `c` is)."""
    writer, dec, store = {}, [], None
    for text in walk(insts):
        base, opcode, dests, srcs, ops = decode(text)
        if base in LOADS:
            letter = "b" if offset(text) else "a"
            for r in dests:
                writer[r] = ("in", letter)
            continue
        if base in STORES:
            data = text.operand_regs[-1]
            store = writer.get(data[0]) if data else None
            break
        if base in SKIP:
            continue
        deps = [writer.get(x) for x in srcs]
        dec.append((opcode, [d for d in deps if d is not None]))
        for d in dests:
            writer[d] = ("k", len(dec) - 1)
    if not store or store[0] != "k":
        return "no stored chain"
    keep, stack = set(), [store[1]]
    while stack:
        q = stack.pop()
        if q not in keep:
            keep.add(q)
            stack += [d[1] for d in dec[q][1] if d[0] == "k"]
    depth = {}
    for q in sorted(keep):
        chain = [depth[d[1]] for d in dec[q][1] if d[0] == "k" and depth[d[1]] > 0]
        reads_a = ("in", "a") in dec[q][1]
        depth[q] = 1 + max(chain) if chain else (1 if reads_a else 0)
    total = depth[store[1]]
    if total == 0 or total % CHAIN:
        return f"chain depth {total} is not {CHAIN} links"
    link = {q: -(-depth[q] // (total // CHAIN)) for q in keep}
    shared = sorted(q for q in keep if link[q] == 0 and any(link.get(u) == 2 for u in keep if ("k", q) in dec[u][1]))
    mid = sorted(q for q in keep if link[q] == 2)
    outs = [q for q in mid if any(("k", q) in dec[u][1] for u in keep if link[u] == 3)]
    if len(outs) != 1:
        return f"{len(outs)} results of the middle link"
    index = {q: i for i, q in enumerate(shared + mid)}
    seq = []
    for q in shared + mid:
        ds = []
        for d in dec[q][1]:
            n = d[1] if d[0] == "in" else ("a" if link[d[1]] == 1 else str(index[d[1]]))
            if n not in ds:
                ds.append(n)
        seq.append((dec[q][0], ds))
    return [str(index[outs[0]])], seq


def derive_chains(arch, compiler=None):
    """The `.ca` rows: each chained video form's machine instructions per link, from the
    middle link of a CHAIN-long chain."""
    ptxas, dis = tools(arch, compiler)
    variants = chain_variants()
    head = [".version 7.8", f".target {arch}", ".address_size 64"]
    text = "\n".join(head + [chain_kernel(arch, i, ins) for i, (_, ins) in enumerate(variants)]) + "\n"
    with tempfile.TemporaryDirectory() as tmp:
        src, cub = os.path.join(tmp, "c.ptx"), os.path.join(tmp, "c.cubin")
        with open(src, "w") as f:
            f.write(text)
        run([ptxas, f"-arch={arch}", src, "-o", cub])
        listing = subprocess.run([dis, "-c", cub], capture_output=True, text=True, check=True).stdout
    rows, notes = {}, []
    for k, insts in functions(listing, arch).items():
        key = variants[int(k)][0]
        r = chain_sequence(insts, arch)
        if isinstance(r, str):
            notes.append(f"{arch} {key}: {r}")
        else:
            rows[key] = r
    return rows, notes


def fmt(out, seq):
    """A row's out and sequence columns as the .tsv writes them."""
    return ",".join(out) or "-", " ".join(f"{op}:{','.join(ds) or '-'}" for op, ds in seq)


def derive_arch(arch, variants, compiler=None):
    """{key: (out, sequence)} for the variants on one target, and notes on those that could
    not be derived or found an unexpected number of helpers."""
    ptxas, dis = tools(arch, compiler)
    # The PTX 8.0 forms (derive.needs_ptx80) run on sm_90 only and need a ptxas
    # that reads `.version 8.0`: derive.py assembles them with ptxas 13.0.88 as
    # $PTXAS80, which is sm_90's compiler here too (ptxas 11.8, --compare-90's
    # old one, reads up to 7.8). A module has one `.version`, so they are
    # assembled as a module of their own; the others keep their 7.8 module.
    sass = {}
    for ptx80 in (False, True):
        if ptx80 and (arch != "sm_90" or compiler == "11.8"):
            continue
        group = [i for i, v in enumerate(variants) if derive.needs_ptx80(v[2]) == ptx80]
        got = assemble_all(arch, [variants[i] for i in group], ptxas, dis)
        sass.update({group[j]: insts for j, insts in got.items()})
    rows, notes = {}, []
    for i, insts in sorted(sass.items()):
        v = variants[i]
        r = sequence(insts, v, arch)
        if isinstance(r, str):
            notes.append(r)
            continue
        out, seq, nh = r
        if nh != v[4]:
            notes.append(f"{arch} {v[0]}: {nh} helper instructions found, {v[4]} expected")
        rows[v[0]] = (out, seq)
    return rows, notes


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--out", default=os.path.join(ROOT, "sim-core/data/lowering-sass.tsv"))
    ap.add_argument("--only", help="only keys containing one of these comma-separated texts "
                    "(debugging, and deriving a new family's rows)")
    ap.add_argument("--arch", action="append", help="only this architecture (repeatable)")
    ap.add_argument("--compare-90", action="store_true",
                    help="print the sm_90 keys whose sequence differs between ptxas 11.8 and 13.0")
    args = ap.parse_args()
    variants = (derive.video_variants() + derive.set_variants() + derive.int_variants()
                + derive.bit_variants() + derive.cvt_variants() + derive.cvt_fp8_variants()
                + derive.cvt_pack_variants())
    if args.only:
        variants = [v for v in variants if any(o in v[0] for o in args.only.split(","))]
    if args.compare_90:
        old, _ = derive_arch("sm_90", variants, "11.8")
        new, _ = derive_arch("sm_90", variants)
        for k in sorted(set(old) | set(new)):
            a, b = old.get(k), new.get(k)
            if a != b:
                na, nb = (len(a[1]) if a else None), (len(b[1]) if b else None)
                print(f"{k}\t11.8 n={na}\t13.0 n={nb}\n  11.8: {fmt(*a)[1] if a else '-'}\n  13.0: {fmt(*b)[1] if b else '-'}")
        return
    lines = []
    for arch in args.arch or ARCHS:
        rows, notes = derive_arch(arch, variants)
        if arch == "sm_90" and not args.only:
            chained, more = derive_chains(arch)
            rows.update(chained)
            notes += more
        for n in notes:
            print(n, file=sys.stderr)
        print(f"{arch}: {len(rows)} of {len(variants)} variants", file=sys.stderr)
        for k in sorted(rows):
            out, seq = fmt(*rows[k])
            lines.append(f"{arch}\t{k}\t{out}\t{seq}")
    with open(args.out, "w") as f:
        f.write("# arch\tkey\tout\tsequence (OPCODE.MODIFIERS:deps, deps = earlier index or PTX operand a/b/c)\n")
        f.write("# Generated by tools/lowering/derive_sass.py; do not edit by hand. Tools: "
                + "; ".join(f"{a} {VERSIONS[a]}" for a in args.arch or ARCHS) + "\n")
        f.write("\n".join(lines) + "\n")
    print(f"wrote {len(lines)} rows to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
