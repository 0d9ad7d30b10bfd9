"""Shared helpers for the tools' tests: the repository root and the sample data."""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def data(name):
    """The text of a committed sample under tools/tests/data."""
    with open(os.path.join(DATA, name)) as f:
        return f.read()


def needs_reader():
    """A pytest mark that skips, saying why, when the Rust listing reader
    (`cargo run -p xtask -- sass-listing`, tools/sass_listing.py) cannot run."""
    import pytest

    from tools import sass_listing

    why = sass_listing.check()
    return pytest.mark.skipif(why is not None, reason=why or "")
