"""tools/gpu/ptxas_schedule.py's stall-count reader and tools/lowering/derive_forwarding.py's
control-word parser, on a real `nvdisasm -hex -c` listing (data/loop_sm90.hex.sass: the
loop of data/loop_sm90.ptx, made by make_mixed.kernel, through ptxas 13.0.88 and
nvdisasm 13.5). Control words decoded by hand: 0x000fe400078e3cff has stall 2
(bits 41-44), no write barrier (7, bits 46-48) and waits on nothing (bits 52-57);
0x0000620000000000 (the prologue's POPC) has stall 1, write barrier 1, no wait."""
from tools.gpu import make_mixed, ptxas_schedule
from tools.lowering import derive_forwarding
from tools import sass_listing
from tools.tests.helpers import data, needs_reader

BODY = ["  add.u32 %x0, %x0, %y;", "  xor.b32 %x0, %x0, %z;", "  popc.b32 %x0, %x0;"]


def test_sample_ptx_is_make_mixed_output():
    ptx = ".version 7.8\n.target sm_90\n.address_size 64\n\n" + make_mixed.kernel("t0_lat", 1, BODY)
    assert ptx == data("loop_sm90.ptx")


@needs_reader()
def test_stall_sums_of_the_loop():
    # The unrolled loop body (.L_x_1 to its backward BRA): 48 stall cycles, four
    # variable-latency POPCs (they set a barrier); no wait on the loads before
    # the first clock read.
    assert ptxas_schedule.parse_stall_sums(data("loop_sm90.hex.sass")) == {"t0_lat": (48, 4, False)}


@needs_reader()
def test_stall_sums_without_a_loop_is_empty():
    cut = data("loop_sm90.hex.sass").split(".L_x_1:")[0]
    assert ptxas_schedule.parse_stall_sums(cut) == {}


def test_stand_in_window():
    # 16 iterations of (stalls + 28), less the input wait when the code waits early.
    assert ptxas_schedule.stand_in(48) == 16 * (48 + 28) == 1216
    assert ptxas_schedule.stand_in(48, early=True) == 1216 - 258


@needs_reader()
def test_forwarding_control_words():
    insts = list(derive_forwarding.functions(data("loop_sm90.hex.sass")))[0]
    # Up to the first BRA: the prologue.
    assert insts[0] == ("LDC R1, c[0x0][0x28]", 8, 7, 0)
    lop = [i for i in insts if i[0].startswith("@P1 LOP3.LUT")][0]
    assert lop == ("@P1 LOP3.LUT R8, R8, R5, RZ, 0x3c, !PT", 2, 7, 16)
    popc = [i for i in insts if "POPC" in i[0]][0]
    assert popc[1:] == (1, 1, 0)


@needs_reader()
def test_dests_sources():
    def f(text):
        return derive_forwarding.dests_sources(sass_listing.instruction(text))

    assert f("ISETP.GE.U32.AND P1, PT, R6, 0x10, PT") == ("ISETP.GE.U32.AND", ["P1"], ["R6"])
    assert f("@P1 IMAD.IADD R8, R4, 0x1, R11") == ("IMAD.IADD", ["R8"], ["R4", "R11"])
    assert f("DADD R2, R4, R6") == ("DADD", ["R2", "R3"], ["R4", "R5", "R6", "R7"])
    assert f("IMAD.WIDE.U32 R2, R4, R5, RZ") == ("IMAD.WIDE.U32", ["R2", "R3"], ["R4", "R5"])
