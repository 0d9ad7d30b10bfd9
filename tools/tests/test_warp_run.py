"""tools/gpu/warp_run.py's reading of a warp kernel's output buffer (the layout
xtask's `values --family mma|wmma` kernels write and `--gpu-dir` describes), its
comparison with the oracle's line, and tools/gpu/approx64_vectors.py's inputs. No GPU:
a stand-in for the driver returns buffers made from the oracle's values."""
import gzip
import json
import random

from tools.gpu import approx64_vectors, warp_run

LANES = 32


def manifest(tmp_path, writes):
    """A one-form --gpu-dir: `%r1` written, `%rd2` read, a 128-byte image."""
    slots = [{"name": "%r1", "width": 32}, {"name": "%rd2", "width": 64}]
    img = 128
    inp = bytearray(img + LANES * 16)
    for lane in range(LANES):
        inp[img + lane * 16 + 8:img + lane * 16 + 16] = (lane << 40 | 7).to_bytes(8, "little")
    out = {"%r1": [hex(0x1000 + lane) for lane in range(LANES)]}
    line = {"arch": "sm_90", "ptx": "x", "in": {"%rd2": []}, "out": out}
    if writes:
        line["shared_out"] = bytes(range(img)).hex()
    k = {"kernel": "w0", "ptx": "x", "img": img, "writes": writes, "slots": slots, "dsts": ["%r1"],
         "vectors": [{"input": inp.hex(), "line": json.dumps(line)}]}
    d = tmp_path / "dir"
    d.mkdir()
    with gzip.open(d / "manifest.json.gz", "wt") as f:
        json.dump({"target": "sm_90", "kernels": [k]}, f)
    (d / "kernels.ptx").write_text(".entry w0() { ret; }\n")
    return d, k


class Driver:
    """The driver's stand-in: the output buffer is the input with `%r1` (its high half
    garbage, which the reader masks) and the image written."""

    def __init__(self, k, wrong_lane=None):
        self.k, self.wrong = k, wrong_lane

    def info(self):
        return {"gpu": "stand-in", "sm": "sm_90", "driver": "0", "cuda": "13.0"}

    def load(self, ptx):
        return "module"

    def run(self, mod, name, inp, out_len, n, block=128):
        assert (mod, name, n, block, out_len) == ("module", "w0", LANES, LANES, len(inp))
        buf = bytearray(inp)
        img = self.k["img"]
        buf[:img] = bytes(range(img))
        for lane in range(LANES):
            v = 0xDEAD_0000_0000_0000 | (0x1000 + lane + (lane == self.wrong))
            buf[img + lane * 16:img + lane * 16 + 8] = v.to_bytes(8, "little")
        return bytes(buf)


def run(monkeypatch, tmp_path, d, driver, capsys):
    monkeypatch.setattr(warp_run, "Cuda", lambda: driver)
    obs = tmp_path / "obs.jsonl.gz"
    monkeypatch.setattr("sys.argv", ["warp_run", str(d), "--observed", str(obs)])
    assert warp_run.main() == 0
    with gzip.open(obs, "rt") as f:
        lines = f.read().splitlines()
    return lines, capsys.readouterr().out


def test_the_output_buffer_is_read_as_the_oracle_wrote_it(monkeypatch, tmp_path, capsys):
    for writes in (False, True):
        d, k = manifest(_sub(tmp_path, writes), writes)
        lines, out = run(monkeypatch, tmp_path, d, Driver(k), capsys)
        assert "1 equal to the oracle, 0 differ (1 forms)" in out
        assert lines[0].startswith("# warp vectors observed on stand-in")
        seen = json.loads(lines[1])
        assert seen["out"]["%r1"][5] == "0x1005"
        assert seen["source"] == "gpu" and seen["in"] == {"%rd2": []}
        assert ("shared_out" in seen) == writes


def test_a_different_lane_is_reported(monkeypatch, tmp_path, capsys):
    d, k = manifest(_sub(tmp_path, "w"), False)
    lines, out = run(monkeypatch, tmp_path, d, Driver(k, wrong_lane=3), capsys)
    assert "0 equal to the oracle, 1 differ" in out
    assert "registers ['%r1']" in out
    assert json.loads(lines[1])["out"]["%r1"][3] == "0x1004"


def _sub(tmp_path, name):
    p = tmp_path / f"m{name}"
    p.mkdir()
    return p


def test_approx64_inputs_cover_the_classes():
    lines = [json.loads(x) for x in approx64_vectors.vectors(random.Random(64), 400)]
    assert len(lines) == 3 * 400
    assert {ln["ptx"] for ln in lines} == set(approx64_vectors.FORMS)
    xs = [int(ln["in"]["%fd1"], 16) for ln in lines]
    exp = [(x >> 52) & 0x7FF for x in xs]
    assert any(e == 0 and x & ((1 << 52) - 1) for e, x in zip(exp, xs))  # subnormals
    assert any(e == 0x7FF for e in exp)  # infinities and NaNs
    assert len({e for e in exp if 0 < e < 0x7FF}) > 300  # exponents all over


def test_a_thread_kernels_output_is_read_as_the_async_oracle_writes_it():
    k = {"slots": [{"name": "%rd2", "width": 64}, {"name": "%r2", "width": 32}, {"name": "%p1", "width": 1}],
         "dsts": ["%rd2", "%p1"], "thread": {"bytes": 128, "shared_at": 64, "span": 32, "in_base": 0x10000000,
                                               "addresses": []}}
    out = bytearray(128)
    out[0:8] = (0xFFFFD000001FFFF4).to_bytes(8, "little")
    out[8:16] = (0xDEAD).to_bytes(8, "little")
    out[16:24] = (1).to_bytes(8, "little")
    out[64:96] = bytes(range(32))
    regs, image = warp_run.decode_thread(k, bytes(out))
    assert regs == {"%rd2": "0xffffd000001ffff4", "%p1": True}
    assert image == bytes(range(32)).hex()
