"""Kernel launches from Python with numpy, in the style of CuPy's
``RawModule`` and PyCUDA: ``Module``, ``In``/``Out``, ``LaunchReport``,
``read_launch`` and ``compile``."""

import ctypes
import importlib.util
import json
import os
import shutil
import subprocess
import tempfile

from . import _native

try:
    import numpy as _np
except ImportError:  # scalars and bytes still launch; arrays need numpy
    _np = None

# Most bytes of a TOML configuration (sim_core::config_file::MAX_CONFIG_BYTES).
_MAX_CONFIG_BYTES = 1 << 20


class In:
    """An array argument copied to the device, not back (an input)."""

    def __init__(self, array):
        self.array = array


class Out:
    """An array argument not copied to the device (its device memory starts
    zeroed), copied back after the launch (an output)."""

    def __init__(self, array):
        self.array = array


class LaunchReport:
    """What a launch reports.

    ``cycles``, ``warps`` (in the grid), ``instructions`` (warp-instructions
    executed), ``sms`` (SMs the blocks were dealt to), ``sms_used``,
    ``arch``, ``clock_span``, ``sampled`` (``None`` unless sampled) and
    ``stats``: the statistics as a dict (``sim_core::Stats``: cycles,
    warp and thread instructions, stalls, units, per-opcode counts, ...).
    ``printf`` is what the kernel's device ``printf`` printed (a str;
    ``printf_bytes`` the bytes as printed), ``printf_dropped`` the calls
    dropped past the device's printf buffer.
    """

    def __init__(self, d, printf=b""):
        self._d = d
        self.arch = d["arch"]
        self.cycles = d["cycles"]
        self.warps = d["warps"]
        self.instructions = d["instructions"]
        self.sms = d["sms"]
        self.sms_used = d["sms_used"]
        self.clock_span = d["clock_span"]
        self.sampled = d["sampled"]
        self.stats = d["stats"]
        self.printf_bytes = printf
        self.printf = printf.decode("utf-8", "replace")
        self.printf_dropped = d["printf_dropped"]

    def as_dict(self):
        """The report as a dict."""
        return dict(self._d)

    def __repr__(self):
        return (
            f"LaunchReport(arch={self.arch!r}, cycles={self.cycles}, "
            f"warps={self.warps}, instructions={self.instructions}, sms={self.sms})"
        )


def _dims(v, what):
    """A grid or block: an int or a tuple of 1 to 3 ints, as three."""
    t = (v,) if isinstance(v, int) or (_np is not None and isinstance(v, _np.integer)) else tuple(v)
    if not 1 <= len(t) <= 3:
        raise ValueError(f"{what}: 1 to 3 dimensions, not {len(t)}")
    out = []
    for k, x in enumerate(t):
        if isinstance(x, bool) or not (isinstance(x, int) or (_np is not None and isinstance(x, _np.integer))):
            raise TypeError(f"{what}[{k}]: an int, not {type(x).__name__}")
        if not 1 <= int(x) < 1 << 32:
            raise ValueError(f"{what}[{k}]: {int(x)} is not 1 to 2^32-1")
        out.append(int(x))
    return out + [1] * (3 - len(out))


def _config(config):
    """``(name, text)`` of a TOML configuration: a path (``str`` or
    ``os.PathLike``) or TOML text (a ``str`` holding ``=`` or a newline)."""
    if config is None:
        return None
    if isinstance(config, str) and ("=" in config or "\n" in config):
        return ("<config text>", config)
    path = os.fspath(config)
    with open(path, "rb") as f:
        data = f.read(_MAX_CONFIG_BYTES + 1)
    if len(data) > _MAX_CONFIG_BYTES:
        raise ValueError(f"{path}: more than {_MAX_CONFIG_BYTES} bytes")
    return (path, data.decode("utf-8"))


def _array_arg(i, a, copy_in, copy_back, wrap):
    """An array as ``(bytes or None, nbytes, copy_back, description)``."""
    desc = f"{wrap}numpy.ndarray {a.dtype}{list(a.shape)}" + (")" if wrap else "")
    if not a.flags.c_contiguous:
        if copy_back:
            raise ValueError(
                f"argument {i} ({desc}) is not C-contiguous: its results could not be "
                "copied back into it; pass numpy.ascontiguousarray(a) (or In(a) for an input)"
            )
        a = _np.ascontiguousarray(a)
    if copy_back and not a.flags.writeable:
        raise ValueError(f"argument {i} ({desc}) is read-only; pass In(a) for an input")
    return (a.tobytes() if copy_in else None, a.nbytes, copy_back, desc)


def _numpy_scalar(i, x):
    """A numpy scalar as ``(kind, value or float bits, description)``."""
    desc = f"numpy.{type(x).__name__}"
    k, size = x.dtype.kind, x.dtype.itemsize
    if k == "i" and size in (1, 2, 4, 8):
        return (f"s{8 * size}", int(x), desc)
    if k == "u" and size in (1, 2, 4, 8):
        return (f"u{8 * size}", int(x), desc)
    if k == "f" and size in (2, 4, 8):
        bits = int(_np.asarray(x).view(f"u{size}"))
        return (f"f{8 * size}", bits, desc)
    raise TypeError(f"argument {i} ({desc}): no PTX parameter type takes a {x.dtype}")


def _arg(i, a):
    """Argument ``i`` as the native side takes it, and its array if it
    comes back."""
    if isinstance(a, (In, Out)):
        inner = a.array
        wrap = f"{type(a).__name__}("
        if _np is None or not isinstance(inner, _np.ndarray):
            raise TypeError(f"argument {i}: {wrap[:-1]}() takes a numpy array, not {type(inner).__name__}")
        return _array_arg(i, inner, isinstance(a, In), isinstance(a, Out), wrap), (
            inner if isinstance(a, Out) else None
        )
    if _np is not None and isinstance(a, _np.ndarray):
        return _array_arg(i, a, True, True, ""), a
    if isinstance(a, bool) or (_np is not None and isinstance(a, _np.bool_)):
        raise TypeError(f"argument {i} (bool): no PTX parameter type takes a bool; pass an int")
    if _np is not None and isinstance(a, _np.generic):
        return _numpy_scalar(i, a), None
    if isinstance(a, int):
        return ("int", a, "int"), None
    if isinstance(a, float):
        return ("float", a, "float"), None
    if isinstance(a, (bytes, bytearray)):
        return ("bytes", bytes(a), f"{len(a)} bytes"), None
    raise TypeError(
        f"argument {i}: a {type(a).__name__} is not a kernel argument "
        "(numpy arrays, In/Out, numpy scalars, int, float, bytes)"
    )


class Module:
    """A PTX module on a simulated device of its own.

    ``Module("k.ptx")`` or ``Module(text=ptx, name="k.ptx")``. Launches on
    one ``Module`` share its device: the module's ``.global`` variables
    keep their values from one launch to the next (``read_symbol``,
    ``write_symbol``), as in one CUDA context. Array arguments are copied
    into fresh device memory for each launch and freed after it. A kernel
    that faults leaves the device unusable, as a CUDA context is after
    ``cudaErrorIllegalAddress``: load the module again.
    """

    def __init__(self, path=None, *, text=None, name=None):
        if (path is None) == (text is None):
            raise TypeError("Module(path) or Module(text=..., name=...): one of them")
        if path is not None:
            path = os.fspath(path)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            name = path if name is None else name
        self.name = "<text>" if name is None else name
        self._m = _native.Module(text, self.name)

    def entries(self):
        """The kernels, in file order."""
        return self._m.entries()

    def params(self, entry):
        """Kernel ``entry``'s parameters: ``(name, type, offset, size)`` each."""
        return self._m.params(entry)

    def read_symbol(self, name):
        """The bytes of the module's ``.global`` or ``.const`` variable ``name``."""
        return self._m.read_symbol(name)

    def write_symbol(self, name, data):
        """Writes ``data`` (bytes or a numpy array) at the start of the
        ``.global`` or ``.const`` variable ``name``."""
        if _np is not None and isinstance(data, _np.ndarray):
            data = _np.ascontiguousarray(data).tobytes()
        self._m.write_symbol(name, bytes(data))

    def launch(self, entry, grid, block, args=(), dynamic_shared=0, arch="sm_90",
               config=None, sms=None, threads=None):
        """Runs kernel ``entry`` on ``grid`` x ``block`` (ints or 1-3 tuples).

        ``args``, one per ``.param`` in order:

        - a numpy array (C-contiguous, any dtype) binds to a 64-bit pointer
          parameter: copied in before and back after; ``In(a)`` is copied
          in only, ``Out(a)`` back only (its device memory starts zeroed);
        - a numpy scalar binds to a parameter of its type and size
          (``np.int32`` to ``.s32``/``.u32``/``.b32``, ``np.float32`` to
          ``.f32``/``.b32``, ``np.float16`` to ``.f16``/``.b16``);
        - a Python int to an integer or bit parameter it fits (as signed or
          unsigned: nvcc declares a C ``int`` ``.u32``), a Python float to
          ``.f32`` (rounded) or ``.f64``;
        - bytes to a by-value struct (an array parameter) of its length.

        A mismatch raises ``ValueError`` naming the argument's index and
        type and the parameter's name and type. ``dynamic_shared``: bytes of
        dynamic shared memory a block. ``arch``: the preset; ``config``: a
        TOML configuration file or text (as ``simcli --config``); ``sms``:
        SMs (default the target's whole GPU); ``threads``: host threads
        (results do not depend on them). Returns a ``LaunchReport``.
        """
        grid = _dims(grid, "grid")
        block = _dims(block, "block")
        native, back = [], []
        for i, a in enumerate(args):
            n, arr = _arg(i, a)
            native.append(n)
            back.append(arr)
        report, outs, printf = self._m.launch(
            entry, grid, block, native, int(dynamic_shared), arch,
            _config(config), sms, threads,
        )
        for arr, data in zip(back, outs):
            if arr is not None and data is not None and arr.nbytes:
                arr.reshape(-1).view(_np.uint8)[:] = _np.frombuffer(data, _np.uint8)
        return LaunchReport(json.loads(report), printf)


def read_launch(path):
    """Reads a launch file (docs/launch-format.md) with the simulator's own
    reader. Returns a dict: ``ptx`` (path), ``entry``, ``grid``, ``block``,
    ``dynamic_shared``, ``buffers`` (name to a ``numpy.uint8`` array of its
    initial bytes, in file order), ``args`` (for ``Module.launch``: the
    buffers, numpy scalars of the parameters' kinds, bytes), ``outputs``
    (names) and ``expected`` (name to bytes)."""
    d = _native.read_launch(os.fspath(path))
    buffers = {n: _np.frombuffer(b, _np.uint8).copy() for n, b in d["buffers"]}
    args = []
    for kind, v in d["params"]:
        if kind == "buffer":
            args.append(buffers[v])
        elif kind == "bytes":
            args.append(v)
        elif kind in ("f32", "f64"):
            bits = _np.array(v, dtype=f"u{int(kind[1:]) // 8}")
            args.append(bits.view(f"f{int(kind[1:]) // 8}")[()])
        else:
            size = int(kind[1:]) // 8
            args.append(_np.dtype(f"{'i' if kind[0] == 's' else 'u'}{size}").type(v))
    d["buffers"] = buffers
    d["args"] = args
    return d


def _find_nvcc():
    """nvcc: ``$NVCC``, then ``PATH``, then pip's ``nvidia-cuda-nvcc``."""
    if os.environ.get("NVCC"):
        return os.environ["NVCC"]
    found = shutil.which("nvcc")
    if found:
        return found
    spec = importlib.util.find_spec("nvidia")
    for root in (spec.submodule_search_locations or []) if spec else []:
        for sub in ("cu13", "cuda_nvcc", "cu12"):
            p = os.path.join(root, sub, "bin", "nvcc")
            if os.access(p, os.X_OK):
                return p
    return None


def _find_nvrtc():
    """NVRTC's library: ``$PTX_SM_SIM_NVRTC``, then pip's ``nvidia-cuda-nvrtc``
    (CUDA 13's ``nvidia/cu13/lib``, CUDA 12's ``nvidia/cuda_nvrtc/lib``), then
    the loader's own search; None when none loads."""
    names = []
    if os.environ.get("PTX_SM_SIM_NVRTC"):
        names.append(os.environ["PTX_SM_SIM_NVRTC"])
    spec = importlib.util.find_spec("nvidia")
    for root in (spec.submodule_search_locations or []) if spec else []:
        for sub, lib in (("cu13", "libnvrtc.so.13"), ("cuda_nvrtc", "libnvrtc.so.12")):
            p = os.path.join(root, sub, "lib", lib)
            if os.path.isfile(p):
                names.append(p)
    names += ["libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"]
    for name in names:
        # NVRTC opens its builtins library by name when it compiles, which
        # the loader does not look for beside it: loaded first from the same
        # folder, it is found already there.
        folder = os.path.dirname(name)
        for b in sorted(os.listdir(folder)) if folder and os.path.isdir(folder) else []:
            if b.startswith("libnvrtc-builtins.so."):
                try:
                    ctypes.CDLL(os.path.join(folder, b), mode=ctypes.RTLD_GLOBAL)
                except OSError:
                    pass
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    return None


def _nvrtc_compile(lib, cuda_source, arch, options):
    """PTX from NVRTC (``lib``, a loaded libnvrtc): ``arch`` ``sm_XY`` asks for
    ``compute_XY``, the virtual architecture whose PTX nvcc embeds."""
    vp = ctypes.c_void_p
    lib.nvrtcCreateProgram.argtypes = [ctypes.POINTER(vp), ctypes.c_char_p, ctypes.c_char_p,
                                       ctypes.c_int, vp, vp]
    for f in ("nvrtcCompileProgram",):
        getattr(lib, f).argtypes = [vp, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
    for f in ("nvrtcGetPTXSize", "nvrtcGetProgramLogSize"):
        getattr(lib, f).argtypes = [vp, ctypes.POINTER(ctypes.c_size_t)]
    for f in ("nvrtcGetPTX", "nvrtcGetProgramLog"):
        getattr(lib, f).argtypes = [vp, ctypes.c_char_p]
    lib.nvrtcDestroyProgram.argtypes = [ctypes.POINTER(vp)]
    lib.nvrtcGetErrorString.restype = ctypes.c_char_p

    def check(what, code):
        if code != 0:
            raise RuntimeError(f"NVRTC {what}: {lib.nvrtcGetErrorString(code).decode()}")

    prog = vp()
    check("nvrtcCreateProgram",
          lib.nvrtcCreateProgram(ctypes.byref(prog), cuda_source.encode(), b"kernel.cu", 0, None, None))
    try:
        virtual = "compute_" + arch[3:] if arch.startswith("sm_") else arch
        opts = [f"--gpu-architecture={virtual}".encode(), *(o.encode() for o in options)]
        argv = (ctypes.c_char_p * len(opts))(*opts)
        code = lib.nvrtcCompileProgram(prog, len(opts), argv)
        if code != 0:
            n = ctypes.c_size_t()
            lib.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
            log = ctypes.create_string_buffer(n.value)
            lib.nvrtcGetProgramLog(prog, log)
            raise RuntimeError(
                f"NVRTC compile for {virtual} failed ({lib.nvrtcGetErrorString(code).decode()}):\n"
                f"{log.value.decode(errors='replace')}")
        n = ctypes.c_size_t()
        check("nvrtcGetPTXSize", lib.nvrtcGetPTXSize(prog, ctypes.byref(n)))
        ptx = ctypes.create_string_buffer(n.value)
        check("nvrtcGetPTX", lib.nvrtcGetPTX(prog, ptx))
        return ptx.value.decode()
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))


def compile(cuda_source, arch="sm_90", options=()):
    """Compiles CUDA C++ ``cuda_source`` to PTX for ``arch``; returns the PTX
    text. With nvcc where there is one (``$NVCC``, else on ``PATH``, else
    pip's ``nvidia-cuda-nvcc``), else with NVRTC (pip's ``nvidia-cuda-nvrtc``,
    or ``$PTX_SM_SIM_NVRTC``) through ctypes. ``options`` go to whichever
    runs (NVRTC takes fewer than nvcc)."""
    nvcc = _find_nvcc()
    if nvcc is None:
        nvrtc = _find_nvrtc()
        if nvrtc is not None:
            return _nvrtc_compile(nvrtc, cuda_source, arch, options)
        raise RuntimeError(
            "compile needs nvcc or NVRTC, and neither was found ($NVCC, PATH, pip's packages, "
            "$PTX_SM_SIM_NVRTC): install one with `pip install nvidia-cuda-nvcc` or "
            "`pip install nvidia-cuda-nvrtc` (or set NVCC to nvcc's path)"
        )
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "kernel.cu")
        out = os.path.join(d, "kernel.ptx")
        with open(src, "w", encoding="utf-8") as f:
            f.write(cuda_source)
        cmd = [nvcc, f"-arch={arch}", "-ptx", *options, "-o", out, src]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stderr}{r.stdout}")
        with open(out, encoding="utf-8") as f:
            return f.read()
