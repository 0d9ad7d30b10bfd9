"""More readers: tanh_rules.py's bf16 rule against the H200's whole table (the
counts docs/validation.md records), derive_forwarding.py's pairs and
interleaved_ca.py's loop length on the loop sample, the clock windows of
launch.py and launch_check.py."""
import struct

from tools.gpu import launch, launch_check
from tools.gpu.domain import tanh_rules
from tools.lowering import derive_forwarding, interleaved_ca
from tools.tests.helpers import data, needs_reader


def test_tanh_bf16_rule_misses_two_entries():
    tables = {text: (kind, raw) for _, text, kind, _, _, raw in tanh_rules.records(tanh_rules.SRC)}
    kind, raw = tables["tanh.approx.bf16 %h5, %h1;"]
    assert kind == 0
    table = struct.unpack("<65536H", raw)
    miss = [a for a in range(65536) if tanh_rules.rule16(a, True) != table[a]]
    assert miss == [0x3F3F, 0xBF3F]


def test_tanh_rules_edges():
    assert tanh_rules.rule16(0x4800, False) == 0x3C00  # tanh(8) is 1
    assert tanh_rules.rule16(0xC800, False) == 0xBC00
    assert tanh_rules.rule16(0x7E00, False) == 0x7FFF  # NaN
    assert tanh_rules.rule16(0x1C00, False) == 0x1C00  # 2^-8: x itself
    assert tanh_rules.rule32(0x7FC00000) == 0x7FFFFFFF


@needs_reader()
def test_loop_length():
    # .L_x_1 (0x140) to the backward BRA (0x220): 15 instructions.
    assert interleaved_ca.loop_length(data("loop_sm90.hex.sass"), "t0_lat") == 15
    assert interleaved_ca.loop_length(data("loop_sm90.hex.sass"), "other") is None


@needs_reader()
def test_forwarding_pairs():
    """The prologue up to its first BRA: each fixed-latency producer and the clocks
    to its first consumer (stall counts summed)."""
    seen = derive_forwarding.pairs(data("loop_sm90.hex.sass"))
    # VIADD R6, R6, 0x4 (stall 3), LOP3.LUT (2), then ISETP reads R6: 5 clocks.
    assert seen[("VIADD", "ISETP.GE.U32.AND")] == [5, 5]
    # LOP3.LUT R8 (2), ISETP (2), then POPC reads R8: 4 clocks.
    assert seen[("LOP3.LUT", "POPC")] == [4, 4, 4, 4, 6, 4, 4]
    assert seen[("IMAD.IADD", "LOP3.LUT")] == [5] * 7
    # POPC sets a barrier (variable latency): never a producer here.
    assert not any(p == "POPC" for p, _ in seen)


def test_clock_windows():
    clk = struct.pack("<qq", 100, 700) + struct.pack("<qq", 0, 0) + struct.pack("<qq", 150, 900)
    assert launch.window(clk) == 800
    assert launch_check.window(clk) == 800
    assert launch_check.window(bytes(32)) is None
