"""Shared helpers for the tools' tests: the repository root and the sample data."""
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def data(name):
    """The text of a committed sample under tools/tests/data."""
    with open(os.path.join(DATA, name)) as f:
        return f.read()


@pytest.fixture
def fake_ptxas(tmp_path):
    """A stand-in ptxas: prints the given stderr, exits with the given code, and
    keeps a copy of the PTX it was given (the last argument before -o)."""

    def make(stderr, rc):
        err = tmp_path / "stderr.txt"
        err.write_text(stderr)
        exe = tmp_path / "ptxas"
        exe.write_text(
            "#!/bin/sh\n"
            f'for a in "$@"; do case "$a" in *.ptx) cp "$a" "{tmp_path}/seen.ptx";; esac; done\n'
            f'cat "{err}" >&2\nexit {rc}\n'
        )
        exe.chmod(0o755)
        return str(exe), tmp_path / "seen.ptx"

    return make
