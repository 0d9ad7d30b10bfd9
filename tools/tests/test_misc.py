"""Small readers and generators: tools/cudart/errors.py (an excerpt of CUDA 13.0.88's
driver_types.h), tools/cudart/share.py, launch_check.py's random buffers (the values sim-module's
tests/it/launch.rs computes by the documented rule), bench/summarise.py."""
import struct

from tools.cudart import errors, share
from tools.gpu import launch_check
from tools.gpu.bench import summarise
from tools.tests.helpers import data


def test_cuda_errors_in_header_order():
    pairs = errors.parse_errors(data("driver_types_excerpt.h"))
    assert pairs[:3] == [("cudaSuccess", "0"), ("cudaErrorInvalidValue", "1"), ("cudaErrorMemoryAllocation", "2")]
    assert pairs[-1] == ("cudaErrorUnknown", "999")
    # `, cudaErrorApiFailureBase = 10000` (a deprecated base, not an error) is left out,
    # as in the committed sim-cudart/src/gen/errors.rs.
    assert len(pairs) == 7


def test_cuda_errors_rust_table():
    text = errors.render([("cudaSuccess", "0"), ("cudaErrorUnknown", "999")])
    assert text.splitlines()[2:] == [
        "pub const ERRORS: &[(i32, &str)] = &[",
        '    (0, "cudaSuccess"),',
        '    (999, "cudaErrorUnknown"),',
        "];",
    ]


def test_cuda12_layout_keeps_only_what_differs():
    # Lines as layout.c prints them: PROP_SIZE and PATTR_SIZE differ between the
    # versions (1008/1032, 88/24 in the committed files), PROP_CLOCK_RATE is CUDA
    # 12's only, NVLINK is CUDA 13's only.
    base = ["// @generated ... CUDA 13 headers; do not edit.", "// Offsets into `struct cudaDeviceProp`.",
            "pub const PROP_SIZE: usize = 1008;", "pub const PROP_NAME: usize = 0;",
            "// Offsets into `struct cudaPointerAttributes`.", "pub const PATTR_SIZE: usize = 88;",
            "// `enum cudaMemoryType` values.", "pub const cudaMemoryTypeHost: i32 = 1;",
            "pub const NVLINK: i32 = 16;"]
    full = ["// @generated ... CUDA 12 headers; do not edit.", "// Offsets into `struct cudaDeviceProp`.",
            "pub const PROP_SIZE: usize = 1032;", "pub const PROP_NAME: usize = 0;",
            "pub const PROP_CLOCK_RATE: usize = 348;",
            "// Offsets into `struct cudaPointerAttributes`.", "pub const PATTR_SIZE: usize = 24;",
            "// `enum cudaMemoryType` values.", "pub const cudaMemoryTypeHost: i32 = 1;"]
    assert share.share(base, full).splitlines() == [
        "// @generated ... CUDA 12 headers; do not edit.",
        "// Only what differs from CUDA 13's layout.rs is written here; the",
        "// names both agree on (the same line in both) are layout.rs's.",
        "pub use super::layout::{",
        "    PROP_NAME, cudaMemoryTypeHost,",
        "};",
        "// Offsets into `struct cudaDeviceProp`.",
        "pub const PROP_SIZE: usize = 1032;",
        "pub const PROP_CLOCK_RATE: usize = 348;",
        "// Offsets into `struct cudaPointerAttributes`.",
        "pub const PATTR_SIZE: usize = 24;",
    ]


def test_use_lines_wrap_within_the_width():
    lines = share.use_lines(["A" * 40, "B" * 40, "C" * 40])
    assert lines == ["pub use super::layout::{", "    " + "A" * 40 + ", " + "B" * 40 + ",",
                     "    " + "C" * 40 + ",", "};"]
    assert max(map(len, lines)) <= 100


def test_xoshiro_first_outputs_of_seed_7():
    assert list(launch_check.xoshiro_stream(7, 3)) == [0x0E2C1A002AAE913D, 0x2C0FC8DDFA4E9E14, 0xB7B311B3B0D45872]


def test_random_bytes_match_sim_module():
    def words(b, fmt):
        return list(struct.unpack(f"<{len(b) // 4}{fmt}", b))

    f = words(launch_check.random_bytes({"seed": 7, "type": "f32", "min": -1, "max": 1}, 16, 100), "f")
    assert f == [-1.0 + k / 8388608.0 for k in (928794, 2887624, 12038929, 7167391)]
    u = words(launch_check.random_bytes({"seed": 7, "type": "u32", "min": 0, "max": 2**32 - 1}, 16, 100), "I")
    assert u == [237771264, 739231965, 3081966003, 1834852202]
    s = words(launch_check.random_bytes({"seed": 7, "type": "s32", "min": -5, "max": 5}, 16, 100), "i")
    assert s == [-5, -4, 2, -1]
    b = launch_check.random_bytes({"seed": 7, "type": "u8", "min": 10, "max": 20}, 8, 100)
    assert list(b) == [10, 11, 17, 14, 20, 15, 17, 13]


def test_random_bytes_limit():
    try:
        launch_check.random_bytes({"seed": 1, "type": "u32", "min": 0, "max": 1}, 4096, 10)
    except launch_check.Skip as e:
        assert "1024 elements" in str(e)
    else:
        raise AssertionError("no Skip over the limit")


def test_below():
    assert launch_check.below(1.0) == struct.unpack("<f", struct.pack("<I", 0x3F7FFFFF))[0]
    assert launch_check.below(-1.0) == struct.unpack("<f", struct.pack("<I", 0xBF800001))[0]


def test_summarise_on_its_fake_run(capsys):
    assert summarise.selftest() == 0
    assert "selftest ok" in capsys.readouterr().err


def test_cli_take_and_usage(monkeypatch, capsys):
    """tools/cli.py: `FLAG VALUE` pairs leave the argument list, the rest stays in order."""
    from tools import cli

    args = ["out.jsonl", "--seed", "11", "--inputs", "cache", "--count", "5"]
    assert cli.take(args, "--count", 400) == 5
    assert cli.take(args, "--seed", 7) == 11
    assert cli.take(args, "--inputs", None, str) == "cache"
    assert cli.take(args, "--max-random", 1 << 20) == 1 << 20
    assert args == ["out.jsonl"]
    monkeypatch.setattr("sys.argv", ["x.py", "--help"])
    assert cli.usage_asked("DOC") and capsys.readouterr().out == "DOC\n"
    monkeypatch.setattr("sys.argv", ["x.py", "out"])
    assert not cli.usage_asked("DOC") and capsys.readouterr().out == ""
