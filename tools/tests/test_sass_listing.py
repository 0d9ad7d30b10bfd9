"""tools/sass_listing.py: the Rust reader's lines as the scripts see them, and what
happens without it."""
import re

import pytest

from tools import sass_listing
from tools.lowering import derive_forwarding
from tools.tests.helpers import data, needs_reader


def _old_hex_functions(text):
    """derive_forwarding.py's and ptxas_schedule.py's own reading of an `nvdisasm -hex`
    listing before the Rust reader replaced it (at 943eb8e), kept as the reference."""
    for sec in re.split(r"\n\s*\.section\s+\.text\.", text)[1:]:
        lines, insts = sec.splitlines(), []
        for k, line in enumerate(lines):
            m = re.search(r"/\*[0-9a-f]{4}\*/\s+(.*?)\s*;\s*/\* 0x[0-9a-f]{16} \*/", line)
            word = re.search(r"0x([0-9a-f]{16})", lines[k + 1]) if m and k + 1 < len(lines) else None
            if word:
                hi = int(word.group(1), 16)
                insts.append((m.group(1), (hi >> 41) & 0xF, (hi >> 46) & 7, (hi >> 52) & 0x3F))
        yield insts


@needs_reader()
def test_hex_listing_fields_are_the_old_parsing_s():
    text = data("loop_sm90.hex.sass")
    old = list(_old_hex_functions(text))
    new = [[(t, t.control["stall"], t.control["write_barrier"], t.control["wait_mask"])
            for t in lines if t.kind == "inst"]
           for lines in sass_listing.functions(text).values()]
    assert new == old
    assert len(new[0]) == 72  # every instruction line of the file
    # derive_forwarding's chains: the prologue, cut before the first BRA.
    chain = list(derive_forwarding.functions(text))[0]
    assert chain == old[0][:len(chain)] and 0 < len(chain) < 72
    popc = [t for t in sass_listing.instructions(text) if t.base == "POPC"][0]
    assert (popc.guard, popc.guard_negated, popc.dests, popc.srcs) == ("P1", False, ["R11"], ["R8", "P1", "R11"])
    assert popc.encoding == [0x00000008000B1309, 0x0000620000000000]
    assert popc.control["yield"] is True


def test_without_cargo_the_message_says_what_to_install(monkeypatch, tmp_path):
    monkeypatch.delenv("SASS_LISTING_XTASK", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    sass_listing.records.cache_clear()
    with pytest.raises(sass_listing.Unavailable, match="cargo is not on PATH: install Rust"):
        sass_listing.functions("/*0000*/ EXIT ;\n")
    assert "SASS_LISTING_XTASK" in sass_listing.check()
    sass_listing.records.cache_clear()


def test_a_failing_reader_is_reported(monkeypatch, tmp_path):
    exe = tmp_path / "xtask"
    exe.write_text("#!/bin/sh\necho broken >&2\nexit 3\n")
    exe.chmod(0o755)
    monkeypatch.setenv("SASS_LISTING_XTASK", str(exe))
    sass_listing.records.cache_clear()
    with pytest.raises(sass_listing.Unavailable, match=r"failed \(exit 3\):\nbroken"):
        sass_listing.functions("/*0000*/ EXIT ;\n")
    sass_listing.records.cache_clear()
