//! Register names in a binary trace are PTX identifiers: a crafted name
//! carrying a newline once made `dump` print extra directives.

use sim_trace::binfmt::{from_bytes, to_bytes, Record, FORMAT_VERSION, MAGIC};
use sim_trace::stream::StreamOp;
use sim_trace::trace::WarpRec;

fn chunk(out: &mut Vec<u8>, r: &Record) {
    let payload = bincode::serde::encode_to_vec(r, bincode::config::standard()).unwrap();
    let len = (payload.len() as u32).to_le_bytes();
    let mut h = crc32fast::Hasher::new();
    h.update(&len);
    h.update(&payload);
    out.extend(len);
    out.extend(h.finalize().to_le_bytes());
    out.extend(payload);
}

/// A one-register, one-instruction trace whose register is called `name`.
fn trace_named(name: &str) -> Vec<u8> {
    let mut b = MAGIC.to_vec();
    b.extend(FORMAT_VERSION.to_le_bytes());
    let recs = [
        Record::Header {
            target: "sm_53".into(),
            version: None,
            regs: 1,
            insts: 1,
            streams: 1,
            warps: 1,
        },
        Record::Regs(vec![(name.into(), "b32".into())]),
        Record::Insts(vec![format!("mov.u32 {name}, 1;")]),
        Record::Stream {
            id: 0,
            ops: vec![StreamOp::Inst(0)],
        },
        Record::Launch(vec![WarpRec {
            mask: u32::MAX,
            stream: 0,
        }]),
        Record::End { chunks: 5 },
    ];
    for r in &recs {
        chunk(&mut b, r);
    }
    b
}

#[test]
fn crafted_register_names_are_refused() {
    // The framing is right: a proper name reads back.
    let good = from_bytes(&trace_named("%a")).unwrap();
    assert_eq!(good.reg_name(0), "%a");
    for bad in ["%a\n.warps 3", "%a b", "", "%", "1a", "%a.b", "%a;"] {
        let e = from_bytes(&trace_named(bad)).unwrap_err().to_string();
        assert!(e.contains("not a PTX identifier"), "{bad:?}: {e}");
    }
    // The writer refuses what the reader would: rename the register in a
    // good trace and try to write it.
    let mut t = good;
    let mut syms = sim_isa::Symbols::new();
    syms.declare("%a\n.warps 3", sim_isa::Type::B32);
    t.syms = syms;
    let e = to_bytes(&t).unwrap_err().to_string();
    assert!(e.contains("not a PTX identifier"), "{e}");
}

#[test]
fn versions_that_do_not_exist_are_refused_in_a_binary_trace() {
    let mut b = MAGIC.to_vec();
    b.extend(FORMAT_VERSION.to_le_bytes());
    chunk(
        &mut b,
        &Record::Header {
            target: "sm_53".into(),
            version: Some("99.99".into()),
            regs: 0,
            insts: 0,
            streams: 0,
            warps: 0,
        },
    );
    let e = from_bytes(&b).unwrap_err().to_string();
    assert!(
        e.contains("chunk 0") && e.contains("99.99 does not exist"),
        "{e}"
    );
}
