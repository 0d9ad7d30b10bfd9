"""tools/lowering/derive_sass.py: the listing as the Rust reader gives it
(tools/sass_listing.py), the fast-path walk and the dataflow slice, on a real
listing (data/derive_sm90.sass: three variants through ptxas 13.0.88 and
nvdisasm 13.5). The expected rows are the committed
sim-core/data/lowering-sass.tsv, which this script wrote."""
import os
import re

from tools import sass_listing
from tools.lowering import derive, derive_sass
from tools.tests.helpers import ROOT, data, needs_reader

pytestmark = needs_reader()

KEYS = ("alu.mad.lo.u32", "alu.mul.wide.u32", "alu.div.s64")


def variants():
    by_key = {v[0]: v for v in derive.int_variants()}
    return [by_key[k] for k in KEYS]


def committed_rows():
    rows = {}
    with open(os.path.join(ROOT, "sim-core/data/lowering-sass.tsv")) as f:
        for line in f:
            if line.startswith("sm_90\t"):
                _, key, out, seq = line.rstrip("\n").split("\t")
                rows[key] = (out, seq)
    return rows


def test_module_is_the_committed_sample():
    assert derive_sass.module("sm_90", variants()) == data("derive_sm90.ptx")


def test_functions_splits_the_listing_per_entry():
    funcs = derive_sass.functions(data("derive_sm90.sass"))
    assert sorted(funcs) == ["0", "1", "2"]
    assert funcs["0"][:3] == ["k0:", ".text.k0:", "LDC R1, c[0x0][0x28]"]
    assert any(t.startswith("IMAD R") for t in funcs["0"])
    # The s64 division calls a subroutine: its label and CALL are kept.
    assert any(t.startswith("CALL.REL.NOINC") for t in funcs["2"])
    assert any(t.endswith(":") for t in funcs["2"])


def test_sequences_match_the_committed_table():
    funcs = derive_sass.functions(data("derive_sm90.sass"))
    rows = committed_rows()
    for i, v in enumerate(variants()):
        out, seq, helpers = derive_sass.sequence(funcs[str(i)], v, "sm_90")
        assert derive_sass.fmt(out, seq) == rows[v[0]], v[0]
        assert helpers == v[4]
    assert rows["alu.mad.lo.u32"] == ("0", "IMAD:a,b,c")


def test_walk_follows_the_call_into_the_subroutine():
    funcs = derive_sass.functions(data("derive_sm90.sass"))
    path = derive_sass.walk(funcs["2"])
    assert path[-1].startswith("STG")
    assert not any(t.startswith(("CALL", "RET", "BRA")) for t in path)
    assert len(path) > 80  # the subroutine's body is on the path


def test_operands_keep_brackets_whole():
    t = sass_listing.instruction("LDG.E R2, desc[UR4][R2.64+0x8]")
    assert t.operands == ["R2", "desc[UR4][R2.64+0x8]"]
    assert t.operand_regs == [["R2"], ["UR4", "R2"]]
    assert derive_sass.offset(t) == 8


def test_pair():
    assert derive_sass.pair("R4") == ["R4", "R5"]
    assert derive_sass.pair("UR6") == ["UR6", "UR7"]
    assert derive_sass.pair("P0") == ["P0"]
    assert sass_listing.instruction("IADD3 R1, RZ, R2, RZ").srcs == ["R2"]


def test_conversion_widths():
    """The listing prints the types it does not default (derive_sass's docstring)."""
    def regs(text):
        t = sass_listing.instruction(text)
        return t.dests, t.srcs
    assert regs("I2F.S64 R2, R4") == (["R2"], ["R4", "R5"])
    assert regs("F2I.F64.TRUNC R2, R4") == (["R2"], ["R4", "R5"])
    assert regs("F2I.U64.TRUNC R2, R4") == (["R2", "R3"], ["R4"])
    assert regs("F2F.F64.F32 R2, R4") == (["R2", "R3"], ["R4"])


def test_decode_wide_guarded_and_carry():
    base, op, dests, srcs, _ = derive_sass.decode(sass_listing.instruction("IMAD.WIDE.U32 R2, R4, R5, RZ"))
    assert (base, op, dests, srcs) == ("IMAD", "IMAD.WIDE.U32", ["R2", "R3"], ["R4", "R5"])
    _, _, dests, srcs, _ = derive_sass.decode(sass_listing.instruction("@P1 IADD3 R6, R6, 0x1, RZ"))
    assert dests == ["R6"] and srcs == ["R6", "P1", "R6"]
    # Kepler's carry: `.CC` writes the condition code, `.X` reads it.
    _, _, dests, _, _ = derive_sass.decode(sass_listing.instruction("IADD R4.CC, R2, R3", "sm_35"))
    assert dests[0] == "CC"
    _, _, _, srcs, _ = derive_sass.decode(sass_listing.instruction("IADD.X R5, R2, R3", "sm_35"))
    assert srcs[0] == "CC"
    # sm_90's IMAD.HI adds a pair; Maxwell's does not.
    assert sass_listing.instruction("IMAD.HI.U32 R3, R3, R5, R2").srcs == ["R3", "R5", "R2", "R3"]
    assert sass_listing.instruction("IMAD.HI.U32 R3, R3, R5, R2", "sm_53").srcs == ["R3", "R5", "R2"]


# The script's own parsing before the Rust reader replaced it (derive_sass.py at
# 943eb8e), kept here only as the reference the reader's fields must equal.
def _old_functions(listing):
    res, cur = {}, None
    for line in listing.splitlines():
        m = re.match(r"\s*\.section\s+\.text\.k(\d+),", line)
        if m:
            cur = res.setdefault(m.group(1), [])
            continue
        m = re.search(r"/\*[0-9a-f]{4,}\*/\s+\{?\s*(.*?)\s*[;}]?\s*$", line)
        if m and cur is not None and m.group(1):
            cur.append(m.group(1).rstrip(";").strip())
            continue
        m = re.match(r"(\S+):\s*$", line)
        if m and cur is not None:
            cur.append(m.group(0).strip())
    return res


def _old_split_ops(rest):
    ops, depth, cur = [], 0, ""
    for ch in rest:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            ops.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        ops.append(cur.strip())
    return ops


def _old_regs(op):
    return re.findall(r"\b(U?R\d+|U?P\d+)\b", op)


def _old_cvt_widths(base, parts):
    ts = [p for p in parts[1:] if re.match(r"^(F16|F32|F64|BF16|S8|S16|S32|S64|U8|U16|U32|U64)$", p)]
    if base in ("F2I", "I2F"):
        floats = [t for t in ts if t.startswith(("F", "BF"))]
        ints = [t for t in ts if not t.startswith(("F", "BF"))]
        dest, src = (ints, floats) if base == "F2I" else (floats, ints)
        return any(t.endswith("64") for t in dest), any(t.endswith("64") for t in src)
    return bool(ts) and ts[0].endswith("64"), len(ts) > 1 and ts[1].endswith("64")


def _old_decode(inst, arch):
    guard = None
    m = re.match(r"@!?(U?P\d+)\s+(.*)", inst)
    if m:
        guard, inst = m.group(1), m.group(2)
    opcode, _, rest = inst.partition(" ")
    ops = _old_split_ops(rest)
    parts = opcode.split(".")
    base = parts[0]
    if base in ("ISETP", "FSETP", "DSETP", "HSETP2", "PSETP", "PLOP3"):
        nd = 2
    else:
        nd = 1
        while nd < len(ops) and re.fullmatch(r"U?P(\d+|T)", ops[nd]):
            nd += 1
    wide_dest = wide_src = False
    wide_srcs = set()
    if base in ("DADD", "DMUL", "DFMA", "DSETP", "DSET", "DMNMX"):
        wide_dest, wide_src = base not in ("DSETP", "DSET"), True
    elif base in ("F2F", "F2I", "I2F", "I2I"):
        wide_dest, wide_src = _old_cvt_widths(base, parts)
    elif base == "FRND" and "F64" in parts:
        wide_dest = wide_src = True
    elif base == "IMAD" and "WIDE" in parts:
        wide_dest = True
        wide_srcs = {nd + 2}
    elif base == "IMAD" and "HI" in parts and arch == "sm_90":
        wide_srcs = {nd + 2}
    dests, srcs = [], []
    if any(o.endswith(".CC") for o in ops[:nd]):
        dests.append("CC")
    if "X" in parts[1:] or "CC" in ops[nd:]:
        srcs.append("CC")
    for i, o in enumerate(ops):
        for r in _old_regs(o):
            if i < nd:
                dests += derive_sass.pair(r) if wide_dest else [r]
            else:
                srcs += derive_sass.pair(r) if (wide_src or i in wide_srcs) else [r]
    if guard:
        srcs += [guard] + dests
    return base, opcode, dests, srcs, ops


def test_reader_gives_the_fields_the_script_parsed_before():
    """On the committed listing, the Rust reader's lines and each instruction's
    operands, registers written and read equal what derive_sass.py's own regular
    expressions gave before (the reference above)."""
    text = data("derive_sm90.sass")
    old, new = _old_functions(text), derive_sass.functions(text, "sm_90")
    assert list(new) == list(old) == ["2", "1", "0"]
    n = 0
    for k in old:
        assert new[k] == old[k]
        for t in new[k]:
            if t.kind == "inst":
                assert derive_sass.decode(t) == _old_decode(str(t), "sm_90"), t
                n += 1
    assert n == 160  # every instruction line of the file
