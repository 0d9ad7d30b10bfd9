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


# ptxas 13.0.88 -arch=sm_90 on `redux.sync.min.f32 %r1, %r2, -1;` (valid PTX for sm_100a):
# its whole stderr, captured from the pinned tool.
REDUX = ("ptxas s.ptx, line 7; error   : Instruction 'redux.f32' not supported on .target 'sm_90'\n"
         "ptxas fatal   : Ptx assembly aborted due to errors\n")
REDUX_MSG = "Instruction 'redux.f32' not supported on .target 'sm_90'"


def run_fake(ptxas, version, target, stmt, tmp):
    """A grid script's run: the statement in a kernel of its own, through `messages`."""
    rc, msg = verdict.messages(ptxas, target, f".version {version}\n.target {target}\n{stmt}\n", tmp)
    return rc == 0, msg


def test_messages_and_single_target_lines(fake_ptxas, tmp_path):
    exe, seen = fake_ptxas(REDUX, 255)
    assert verdict.messages(exe, "sm_90", "x;\n", str(tmp_path)) == (255, REDUX_MSG)
    assert seen.read_text() == "x;\n"
    assert verdict.target_only(REDUX_MSG) and not verdict.target_only("")
    assert not verdict.target_only(REDUX_MSG + "; Incorrect type '.f32' for operation '.add' in instruction 'redux'")
    judge = verdict.message_judge(run_fake, exe, exe, str(tmp_path))
    lines = verdict.verdict_lines(judge, ["redux.sync.min.f32 %r1, %r2, -1;"],
                                  [("sm_80", "7.0", "redux.sync.min.f32 %r1, %r2, -1;")])
    assert lines == [f"# ptxas: {REDUX_MSG}", "arch redux.sync.min.f32 %r1, %r2, -1;",
                     f"# ptxas: {REDUX_MSG}", "gate sm_80 7.0 refused redux.sync.min.f32 %r1, %r2, -1;"]
    assert verdict.tally(lines) == "2 (0 accept, 0 reject, 1 arch, 1 gates)"
    exe, _ = fake_ptxas("", 0)
    judge = verdict.message_judge(run_fake, exe, exe, str(tmp_path))
    assert verdict.verdict_lines(judge, ["bar.warp.sync -1;"], [("sm_35", "6.0", "bar.warp.sync -1;")]) == [
        "accept bar.warp.sync -1;", "gate sm_35 6.0 ok bar.warp.sync -1;"]


def test_no_answer_leaves_the_statement_out():
    lines = verdict.verdict_lines(lambda t, v, s: (None, "ptxas crashed (signal 11)"), ["ld.x;"], [])
    assert lines == ["# no answer, ptxas crashed (signal 11): ld.x;"]


def test_target_rows(fake_ptxas):
    """One row per text: each distinct message once, sorted, then the verdicts and the
    lowest version of the first target that accepts."""
    arch, _ = fake_ptxas(ARCH, 255)
    judges = [lambda text: verdict.assemble(arch, "sm_50", "7.8", text), lambda text: ("accept", [])]
    lowests = [lambda text: "4.2", lambda text: "7.0"]
    assert verdict.target_row("add.f16 %h5, %h1, %h2;", judges, lowests) == [
        "# ptxas: Feature 'f16 arithemetic and compare instructions' requires .target sm_53 or higher",
        "arch accept 7.0 add.f16 %h5, %h1, %h2;"]
    assert verdict.target_row("x;", [lambda text: ("reject", [])], [lambda text: "1.0"]) == ["reject - x;"]
    assert verdict.first_accepted(["6.0", "7.0", "7.8"], lambda v: ("accept" if v >= "7.0" else "version", [])) == "7.0"
    assert verdict.first_accepted(["6.0"], lambda v: ("reject", [])) == "?"


def test_doc_head_and_write_lines(tmp_path):
    assert verdict.doc_head("Title.\n\nBody line\n  indented\nlast", 4) == ["#", "# Body line", "#   indented"]
    p = tmp_path / "g.txt"
    verdict.write_lines(str(p), ["# a", "accept x;"])
    assert p.read_text() == "# a\naccept x;\n"
