//! Real listings (tools/tests/data, README there: ptxas 13.0.88 and
//! nvdisasm 13.5 for sm_90) and arbitrary text.

use proptest::prelude::*;
use sim_sass::{Item, Listing};

const DERIVE: &str = include_str!("../../tools/tests/data/derive_sm90.sass");
const LOOP_HEX: &str = include_str!("../../tools/tests/data/loop_sm90.hex.sass");

#[test]
fn derive_listing_functions_and_calls() {
    let l = Listing::parse(DERIVE);
    let names: Vec<&str> = l.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["k2", "k1", "k0"]);
    assert_eq!(l.errors().count(), 0);
    let total: usize = l.functions.iter().map(|f| f.insts().count()).sum();
    // Every `/*ADDR*/` line of the file (grep -c) is an instruction.
    assert_eq!(total, 160);
    let k2 = &l.functions[0];
    let call = k2.insts().find(|i| i.base() == "CALL").unwrap();
    assert_eq!(call.addr, 0x60);
    assert_eq!(call.opcode, "CALL.REL.NOINC");
    assert_eq!(call.target(), Some("$__internal_0_$__cuda_sm20_div_s64"));
    // The subroutine's entry is a label of k2's section.
    assert!(k2.items.iter().any(
        |i| matches!(i, Item::Label(l) if l.name == "$__internal_0_$__cuda_sm20_div_s64" && l.line == 31)
    ));
    let st = k2.insts().find(|i| i.base() == "STG").unwrap();
    assert_eq!(st.operands, ["desc[UR4][R4.64+0x40]", "R2"]);
    assert_eq!(st.line, 25);
    assert!(st.encoding.is_empty() && st.control().is_none());
}

#[test]
fn hex_listing_control_fields() {
    let l = Listing::parse(LOOP_HEX);
    let f = &l.functions[0];
    assert_eq!(f.name, "t0_lat");
    assert!(f.insts().all(|i| i.encoding.len() == 2));
    let at = |a: u64| f.insts().find(|i| i.addr == a).unwrap();
    // 0x0090 ISETP: /* 0x004fda0003f26070 */ waits on barrier 2, stalls 13.
    let c = at(0x90).control().unwrap();
    assert_eq!(
        (c.stall, c.yield_flag, c.write_barrier, c.wait_mask),
        (13, false, 7, 4)
    );
    assert_eq!(at(0x90).encoding[0], 0x000000100600780c);
    // 0x0100 @P1 POPC: /* 0x0000620000000000 */ sets barrier 1, stall 1, yield.
    let popc = at(0x100);
    let c = popc.control().unwrap();
    assert_eq!(
        (c.stall, c.yield_flag, c.write_barrier, c.wait_mask),
        (1, true, 1, 0)
    );
    assert_eq!(popc.guard.as_ref().map(|g| g.pred.as_str()), Some("P1"));
    assert_eq!(popc.text, "@P1 POPC R11, R8");
}

proptest! {
    #[test]
    fn arbitrary_text_never_panics(text in "\\PC*") {
        let l = Listing::parse(&text);
        for f in &l.functions {
            for i in f.insts() {
                let _ = (i.registers(90), i.control(), i.target());
                for o in &i.operands {
                    let _ = sim_sass::operand::parse_operand(o, true);
                }
            }
        }
    }

    #[test]
    fn listing_shaped_text_never_panics(
        lines in proptest::collection::vec(
            "(/\\*[0-9a-fA-F]{0,6}\\*/ )?(@!?[UPR]{0,2}[0-9T]? )?[A-Z0-9.]{0,8} ([-!~|\\[\\]RUPZTc0-9x+.,`()]{0,20})?( ;)?( /\\* 0x[0-9a-fz]{0,17} \\*/)?|\\.section .text.[a-z]{0,3},|[.a-zA-Z_$]{0,6}:",
            0..12,
        )
    ) {
        let text = lines.join("\n");
        let l = Listing::parse(&text);
        for f in &l.functions {
            for i in f.insts() {
                let _ = (i.registers(90), i.registers(35), i.control(), i.target());
                for o in &i.operands {
                    let _ = sim_sass::operand::parse_operand(o, false);
                    let _ = sim_sass::regs::mem_offset(o);
                }
            }
        }
    }
}
