"""tools/ptxas_grid/verdict.py: the kernel it wraps a statement in and how it reads
ptxas's errors, with a stand-in ptxas printing real ptxas messages (11.8 and
13.0.88, captured from the pinned tools)."""
from tools.ptxas_grid import verdict

ARCH = ("ptxas /tmp/x/t.ptx, line 8; error   : Feature 'f16 arithemetic and compare "
        "instructions' requires .target sm_53 or higher\n")
SYNTAX = "ptxas /tmp/x/t.ptx, line 8; error   : Arguments mismatch for instruction 'add'\n"
VERSION = ("ptxas /tmp/x/t.ptx, line 8; error   : Feature 'ex2.bf16' requires PTX ISA "
           ".version 7.8 or later\n")
TARGET_TOO_NEW = "ptxas /tmp/x/t.ptx, line 2; error   : PTX .version 7.0 does not support .target sm_90\n"


def test_accept_and_the_kernel_text(fake_ptxas):
    exe, seen = fake_ptxas("", 0)
    assert verdict.assemble(exe, "sm_90", "7.8", "add.f16 %h1, %h2, %h3;") == ("accept", [])
    text = seen.read_text()
    assert text.startswith(".version 7.8\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n")
    assert ".reg .b16 %h<9>;" in text and ".reg .pred %p<9>;" in text
    assert text.endswith("add.f16 %h1, %h2, %h3;\nret;\n}\n")


def test_arch_only_errors_are_arch(fake_ptxas):
    exe, _ = fake_ptxas(ARCH, 255)
    v, errs = verdict.assemble(exe, "sm_50", "7.8", "add.f16 %h1, %h2, %h3;")
    assert v == "arch" and errs == [ARCH.strip()]


def test_other_errors_reject(fake_ptxas):
    exe, _ = fake_ptxas(SYNTAX, 255)
    assert verdict.assemble(exe, "sm_90", "7.8", "add.f16 %h1, %h2;")[0] == "reject"
    exe, _ = fake_ptxas(ARCH + SYNTAX, 255)
    assert verdict.assemble(exe, "sm_50", "7.8", "x;")[0] == "reject"


def test_version_only_when_asked(fake_ptxas):
    exe, _ = fake_ptxas(VERSION, 255)
    assert verdict.assemble(exe, "sm_80", "7.0", "ex2.approx.ftz.bf16 %h1, %h2;", versions=True)[0] == "version"
    assert verdict.assemble(exe, "sm_80", "7.0", "ex2.approx.ftz.bf16 %h1, %h2;")[0] == "reject"
    exe, _ = fake_ptxas(VERSION + TARGET_TOO_NEW, 255)
    assert verdict.assemble(exe, "sm_90", "7.0", "ex2.approx.ftz.bf16 %h1, %h2;", versions=True)[0] == "reject"
