//! Module parsing: the real kernels and hand-written modules.

use sim_module::*;

pub fn public_ptx() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/h100/public.ptx"))
        .unwrap()
}

#[test]
fn public_kernels_parse() {
    let m = parse_module(&public_ptx(), "public.ptx").unwrap();
    for f in m.entries() {
        let b = f.body.as_ref().unwrap();
        for s in &b.statements {
            if let Some(msg) = s.unsupported_message("public.ptx") {
                eprintln!("{msg}   [{}] {:?}", s.text, match &s.kind { StatementKind::Unimplemented(u) => u.isa.as_ref().map(|e| e.to_string()), _ => None });
            }
        }
    }
}
