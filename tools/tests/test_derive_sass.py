"""tools/lowering/derive_sass.py: the nvdisasm listing parser, the fast-path walk
and the dataflow slice, on a real listing (data/derive_sm90.sass: three variants
through ptxas 13.0.88 and nvdisasm 13.5). The expected rows are the committed
sim-core/data/lowering-sass.tsv, which this script wrote."""
import os

from tools.lowering import derive, derive_sass
from tools.tests.helpers import ROOT, data

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


def test_split_ops_keeps_brackets_whole():
    assert derive_sass.split_ops(" R2, desc[UR4][R2.64+0x8], P0") == ["R2", "desc[UR4][R2.64+0x8]", "P0"]


def test_pair_and_regs():
    assert derive_sass.pair("R4") == ["R4", "R5"]
    assert derive_sass.pair("UR6") == ["UR6", "UR7"]
    assert derive_sass.pair("P0") == ["P0"]
    assert derive_sass.regs("desc[UR4][R2.64+0x8]") == ["UR4", "R2"]
    assert derive_sass.regs("RZ") == []


def test_cvt_widths():
    assert derive_sass.cvt_widths("I2F", ["I2F", "S64"]) == (False, True)
    assert derive_sass.cvt_widths("F2I", ["F2I", "F64", "TRUNC"]) == (False, True)
    assert derive_sass.cvt_widths("F2I", ["F2I", "U64", "TRUNC"]) == (True, False)
    assert derive_sass.cvt_widths("F2F", ["F2F", "F64", "F32"]) == (True, False)


def test_decode_wide_guarded_and_carry():
    base, op, dests, srcs, _ = derive_sass.decode("IMAD.WIDE.U32 R2, R4, R5, RZ", "sm_90")
    assert (base, op, dests, srcs) == ("IMAD", "IMAD.WIDE.U32", ["R2", "R3"], ["R4", "R5"])
    base, _, dests, srcs, _ = derive_sass.decode("@P1 IADD3 R6, R6, 0x1, RZ", "sm_90")
    assert dests == ["R6"] and srcs == ["R6", "P1", "R6"]
    # Kepler's carry: `.CC` writes the condition code, `.X` reads it.
    _, _, dests, _, _ = derive_sass.decode("IADD R4.CC, R2, R3", "sm_35")
    assert dests[0] == "CC"
    _, _, _, srcs, _ = derive_sass.decode("IADD.X R5, R2, R3", "sm_35")
    assert srcs[0] == "CC"
