"""Kernel launches from Python with numpy (``ptx_sm_sim.Module``)."""

import os
import pathlib

import numpy as np
import pytest

import ptx_sm_sim
from ptx_sm_sim import In, Module, Out

ROOT = pathlib.Path(__file__).resolve().parents[2]
KERNELS = pathlib.Path(__file__).resolve().parent / "data" / "kernels.ptx"

# Every committed launch with expected outputs: the H100-measured kernels
# (their expected files are what the H100 wrote) and two workloads (their
# expected files from the workloads' C reference).
LAUNCHES = sorted((ROOT / "sim-module" / "tests" / "data" / "h100").glob("*.json")) + [
    ROOT / "workloads" / "reduce.json",
    ROOT / "workloads" / "histogram.json",
]


def _launch(d, args):
    m = Module(d["ptx"])
    return m.launch(d["entry"], tuple(d["grid"]), tuple(d["block"]), args=args,
                    dynamic_shared=d["dynamic_shared"])


@pytest.mark.parametrize("path", LAUNCHES, ids=lambda p: p.name)
def test_committed_launches_come_back_byte_for_byte(path):
    d = ptx_sm_sim.read_launch(path)
    assert d["expected"], "a launch with no expected outputs checks nothing"
    r = _launch(d, d["args"])
    for name, want in d["expected"].items():
        assert d["buffers"][name].tobytes() == want, f"{path.name}: {name}"
    assert r.cycles > 0 and r.warps > 0 and r.instructions > 0
    assert r.stats["warp_instructions"] == r.instructions
    assert r.stats["cycles"] == r.cycles


@pytest.mark.parametrize("path", LAUNCHES[:2] + LAUNCHES[-2:], ids=lambda p: p.name)
def test_in_out_markers_give_the_same_bytes(path):
    # Inputs copied in only, zero-filled outputs copied back only.
    d = ptx_sm_sim.read_launch(path)
    outs = set(d["outputs"])
    byname = {id(b): n for n, b in d["buffers"].items()}
    args = []
    for a in d["args"]:
        name = byname.get(id(a))
        if name is None:
            args.append(a)
        elif name in outs and not d["buffers"][name].any():
            d["buffers"][name][:] = 0xAB  # not copied in: must not show
            args.append(Out(d["buffers"][name]))
        elif name in outs:
            args.append(a)
        else:
            args.append(In(d["buffers"][name]))
    _launch(d, args)
    for name, want in d["expected"].items():
        assert d["buffers"][name].tobytes() == want, f"{path.name}: {name}"


def test_scalars_bind_by_type_and_arrive_exactly():
    m = Module(KERNELS)
    assert m.entries() == ["types", "bump", "addone"]
    assert [p[:2] for p in m.params("types")] == [
        ("out", ".u64"), ("n", ".u32"), ("x", ".f32"), ("y", ".f64"),
        ("c", ".s8"), ("h", ".u16"), ("s", ".b8[16]"),
    ]
    out = np.zeros(5, np.uint64)
    s = bytes(range(1, 17))
    m.launch("types", 1, 1, args=[Out(out), -1, 1.1, np.float64(2.25), -3, np.uint16(65535), s])
    raw = out.tobytes()
    assert np.frombuffer(raw[0:4], np.uint32)[0] == 0xFFFFFFFF  # -1 into a .u32 (C int)
    assert np.frombuffer(raw[4:8], np.float32)[0] == np.float32(1.1)  # rounded to f32
    assert np.frombuffer(raw[8:16], np.float64)[0] == 2.25
    assert np.frombuffer(raw[16:20], np.int32)[0] == -3
    assert np.frombuffer(raw[20:24], np.uint32)[0] == 65535
    assert raw[24:40] == s
    # numpy scalars of the parameter's own type, and an f32's exact bits.
    nan = np.array(0x7FC00123, np.uint32).view(np.float32)[()]
    m.launch("types", (1,), (1, 1), args=[out, np.uint32(7), nan, 0.5, np.int8(-128), 3, bytearray(16)])
    raw = out.tobytes()
    assert np.frombuffer(raw[0:4], np.uint32)[0] == 7
    assert raw[4:8] == np.uint32(0x7FC00123).tobytes()
    assert np.frombuffer(raw[16:20], np.int32)[0] == -128
    assert raw[24:40] == bytes(16)


GOOD = [np.zeros(5, np.uint64), 1, 1.0, 1.0, 1, 1, bytes(16)]


@pytest.mark.parametrize("index,value,match", [
    (2, 1, r"argument 2 \(int\) does not bind to parameter x \(\.f32\)"),
    (1, 1.5, r"argument 1 \(float\) does not bind to parameter n \(\.u32\)"),
    (4, 1.5, r"argument 4 \(float\) does not bind to parameter c \(\.s8\)"),
    (1, np.int64(1), r"argument 1 \(numpy\.int64\) does not bind to parameter n \(\.u32\)"),
    (2, np.float64(1), r"argument 2 \(numpy\.float64\) does not bind to parameter x \(\.f32\)"),
    (3, np.float32(1), r"argument 3 \(numpy\.float32\) does not bind to parameter y \(\.f64\)"),
    (5, np.float16(1), r"argument 5 \(numpy\.float16\) does not bind to parameter h \(\.u16\)"),
    (4, 200, r"argument 4 \(int\) does not bind to parameter c \(\.s8\): 200 does not fit"),
    (4, -129, r"argument 4 \(int\) does not bind to parameter c \(\.s8\)"),
    (1, 1 << 32, r"argument 1 \(int\) does not bind to parameter n \(\.u32\)"),
    (1, np.zeros(4, np.uint32), r"argument 1 \(numpy\.ndarray uint32\[4\]\) does not bind to parameter n \(\.u32\)"),
    (6, bytes(8), r"argument 6 \(8 bytes\) does not bind to parameter s \(\.b8\[16\]\)"),
    (6, 5, r"argument 6 \(int\) does not bind to parameter s \(\.b8\[16\]\)"),
    (0, 1.0, r"argument 0 \(float\) does not bind to parameter out \(\.u64\)"),
])
def test_binding_errors_name_argument_parameter_and_types(index, value, match):
    m = Module(KERNELS)
    args = list(GOOD)
    args[index] = value
    with pytest.raises(ValueError, match=match):
        m.launch("types", 1, 1, args=args)
    # A refused launch leaves the module usable.
    m.launch("types", 1, 1, args=GOOD)


def test_argument_count_and_kinds():
    m = Module(KERNELS)
    with pytest.raises(ValueError, match=r"types takes 7 parameters \(out \.u64, n \.u32"):
        m.launch("types", 1, 1, args=GOOD[:3])
    with pytest.raises(TypeError, match="argument 1 .*bool"):
        m.launch("types", 1, 1, args=[GOOD[0], True] + GOOD[2:])
    with pytest.raises(TypeError, match="argument 1: a str is not a kernel argument"):
        m.launch("types", 1, 1, args=[GOOD[0], "1"] + GOOD[2:])
    with pytest.raises(TypeError, match="argument 1 .*complex"):
        m.launch("types", 1, 1, args=[GOOD[0], np.complex64(1)] + GOOD[2:])
    with pytest.raises(ValueError, match="no kernel named 'nope'"):
        m.launch("nope", 1, 1)
    with pytest.raises(ValueError, match=r"block\[0\]: 0 is not"):
        m.launch("types", 1, 0, args=GOOD)
    with pytest.raises(ValueError, match="grid: 1 to 3 dimensions"):
        m.launch("types", (1, 1, 1, 1), 1, args=GOOD)
    with pytest.raises(ValueError, match="sm_9x"):
        m.launch("types", 1, 1, args=GOOD, arch="sm_9x")


def test_in_is_not_copied_back_out_starts_zeroed():
    m = Module(KERNELS)
    n = 300
    src = np.arange(n, dtype=np.uint32)
    dst = np.full(n, 1000, np.uint32)
    # The kernel: dst[i] += src[i] + 1; src[i] = 0.
    m.launch("addone", 3, 128, args=[In(src), Out(dst), np.uint32(n)])
    assert (src == np.arange(n)).all(), "In must not be copied back"
    assert (dst == np.arange(n) + 1).all(), "Out must start zeroed on the device"
    m.launch("addone", 3, 128, args=[src, dst, n])
    assert (src == 0).all()
    assert (dst == 2 * np.arange(n) + 2).all()


def test_array_layout_rules():
    m = Module(KERNELS)
    src = np.arange(20, dtype=np.uint32)[::2]  # not contiguous
    dst = np.zeros(10, np.uint32)
    with pytest.raises(ValueError, match="argument 0 .*not C-contiguous"):
        m.launch("addone", 1, 32, args=[src, dst, 10])
    with pytest.raises(ValueError, match="argument 1 .*not C-contiguous"):
        m.launch("addone", 1, 32, args=[In(src), Out(np.zeros(20, np.uint32)[::2]), 10])
    # An input may be strided: it is copied.
    m.launch("addone", 1, 32, args=[In(src), Out(dst), 10])
    assert (dst == np.arange(0, 20, 2) + 1).all()
    # Any dtype and shape: the bytes are what the kernel sees.
    two = np.zeros((2, 5), np.float32)
    m.launch("addone", 1, 32, args=[In(np.ones(10, np.uint32)), two, 10])
    assert two.view(np.uint32).ravel().tolist() == [2] * 10
    ro = np.zeros(10, np.uint32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        m.launch("addone", 1, 32, args=[In(src), ro, 10])


def test_global_variables_persist_across_launches_of_one_module():
    m = Module(text=KERNELS.read_text(), name="kernels.ptx")
    out = np.zeros(1, np.uint32)
    for k in range(1, 4):
        m.launch("bump", 1, 1, args=[out])
        assert out[0] == k
    assert m.read_symbol("counter") == np.uint32(3).tobytes()
    m.write_symbol("counter", np.array([41], np.uint32))
    m.launch("bump", 1, 1, args=[out])
    assert out[0] == 42
    # Another Module is another device.
    Module(KERNELS).launch("bump", 1, 1, args=[out])
    assert out[0] == 1


def test_report_and_options():
    d = ptx_sm_sim.read_launch(ROOT / "workloads" / "reduce.json")
    r = _launch(d, d["args"])
    assert r.sms == 132 and r.arch == "sm_90" and r.sms_used <= r.sms
    assert r.warps == 1024 * 256 // 32
    assert set(r.as_dict()) >= {"cycles", "warps", "instructions", "stats"}
    # Results do not depend on host threads; SMs change the timing only.
    d2 = ptx_sm_sim.read_launch(ROOT / "workloads" / "reduce.json")
    r2 = Module(d2["ptx"]).launch(d2["entry"], tuple(d2["grid"]), tuple(d2["block"]),
                                  args=d2["args"], sms=8, threads=2)
    assert d2["buffers"]["out"].tobytes() == d["expected"]["out"]
    assert r2.sms == 8 and r2.cycles > r.cycles
    # A configuration as TOML text, as simcli --config reads it.
    m = Module(KERNELS)
    out = np.zeros(1, np.uint32)
    with pytest.raises(ValueError, match="nope"):
        m.launch("bump", 1, 1, args=[out], config="nope = 1\n")
    with pytest.raises(FileNotFoundError):
        m.launch("bump", 1, 1, args=[out], config=ROOT / "no-such.toml")


def _warp_lines(text, want):
    """The lines of ``text`` split as warp 0's and warp 1's (the expected
    text prints warp 1's six lines last; the warps interleave as the engine
    runs them, each warp's lines in program and lane order)."""
    w1 = want.splitlines()[-6:]
    lines = text.splitlines()
    return [l for l in lines if l not in w1], [l for l in lines if l in w1]


def test_device_printf_output():
    # nvcc 13.0.88's PTX of printf.cu; the expected text is what the host C
    # library prints for the same calls (sim-kernel/tests/data/printf).
    data = ROOT / "sim-kernel" / "tests" / "data" / "printf"
    want = (data / "printf.expected.txt").read_text()
    d = ptx_sm_sim.read_launch(data / "printf.json")
    r = _launch(d, d["args"])
    assert len(r.printf_bytes) == len(want.encode())
    assert _warp_lines(r.printf, want) == (want.splitlines()[:-6], want.splitlines()[-6:])
    assert r.printf_dropped == 0
    assert Module(KERNELS).launch("bump", 1, 1, args=[np.zeros(1, np.uint32)]).printf == ""


def test_a_faulting_kernel_stops_its_module():
    m = Module(KERNELS)
    with pytest.raises(ValueError):
        # A pointer to nothing: the load faults.
        m.launch("addone", 1, 32, args=[0x10, 0x20, 10])
    with pytest.raises(ValueError, match="earlier kernel error"):
        m.launch("bump", 1, 1, args=[np.zeros(1, np.uint32)])


def test_compile_without_nvcc_says_how_to_install(monkeypatch):
    monkeypatch.setattr(ptx_sm_sim._launch, "_find_nvcc", lambda: None)
    monkeypatch.setattr(ptx_sm_sim._launch, "_find_nvrtc", lambda: None)
    with pytest.raises(RuntimeError, match="pip install nvidia-cuda-nvcc") as e:
        ptx_sm_sim.compile("__global__ void k() {}")
    assert "pip install nvidia-cuda-nvrtc" in str(e.value)


VADD = """
extern "C" __global__ void vadd(const float *a, const float *b, float *c, int n, double s) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = (float)(s * (a[i] + b[i]));
}
"""


def check_vadd(m, n):
    """`vadd` of compiled module `m` over `n` elements: its parameters, and
    c = 0.5 * (a + b) computed in double and rounded to float."""
    assert [p[1] for p in m.params("vadd")] == [".u64", ".u64", ".u64", ".u32", ".f64"]
    a = np.linspace(-1, 1, n, dtype=np.float32)
    b = np.arange(n, dtype=np.float32)
    c = np.zeros(n, np.float32)
    m.launch("vadd", (n + 127) // 128, 128, args=[In(a), In(b), Out(c), np.int32(n), 0.5])
    assert c.tobytes() == (0.5 * (a + b).astype(np.float64)).astype(np.float32).tobytes()


@pytest.mark.skipif(ptx_sm_sim._launch._find_nvcc() is None, reason="nvcc not installed")
def test_compile_and_launch():
    ptx = ptx_sm_sim.compile(VADD, arch="sm_90")
    m = Module(text=ptx, name="vadd.ptx")
    check_vadd(m, 1000)
    with pytest.raises(RuntimeError, match="error"):
        ptx_sm_sim.compile("this is not C++")


@pytest.mark.skipif(ptx_sm_sim._launch._find_nvrtc() is None, reason="NVRTC not installed")
def test_compile_with_nvrtc_when_there_is_no_nvcc(monkeypatch):
    monkeypatch.setattr(ptx_sm_sim._launch, "_find_nvcc", lambda: None)
    ptx = ptx_sm_sim.compile(VADD, arch="sm_90")
    assert ".target sm_90" in ptx
    m = Module(text=ptx, name="vadd-nvrtc.ptx")
    check_vadd(m, 300)
    with pytest.raises(RuntimeError, match="NVRTC compile for compute_90 failed"):
        ptx_sm_sim.compile("this is not C++")
