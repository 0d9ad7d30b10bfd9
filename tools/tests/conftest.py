"""pytest fixtures for the tools' tests (plain helpers are in helpers.py)."""
import pytest


@pytest.fixture
def fake_ptxas(tmp_path):
    """A stand-in ptxas: prints the given stderr, exits with the given code, and
    keeps a copy of the .ptx file it was given (as seen.ptx)."""

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
