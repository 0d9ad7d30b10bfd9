//! Every instruction form sim-isa's database declares: it parses, prints
//! back identically, has a lowering row in the table of every architecture
//! whose target can run it, and executes.

use sim_core::lowering::{self, TableArch};
use sim_isa::db::{forms, lowering_key};
use sim_isa::parse::{check_target, parse_instruction};
use sim_isa::{execute, ExecCtx, Symbols, Target, WarpRegs};
use std::collections::BTreeSet;

#[test]
fn every_form_parses_prints_has_a_row_and_executes() {
    let all = forms();
    let mut failures = Vec::new();
    let mut families = BTreeSet::new();
    for f in &all {
        families.insert(format!("{:?}", f.family));
        let mut syms = Symbols::new();
        let inst = match parse_instruction(&f.text, &mut syms) {
            Ok(i) => i,
            Err(e) => {
                failures.push(format!("`{}` does not parse: {e}", f.text));
                continue;
            }
        };
        let printed = inst.display(&syms).to_string();
        if printed != f.text {
            failures.push(format!("`{}` prints as `{printed}`", f.text));
        }
        let key = lowering_key(&inst);
        let mut ran = false;
        for arch in TableArch::ALL {
            if check_target(&inst, arch.target(), None).is_err() {
                continue;
            }
            if !lowering::has_row(arch, &key) {
                failures.push(format!(
                    "`{}`: no {} row for key {key}",
                    f.text,
                    arch.name()
                ));
            }
            if !ran {
                ran = true;
                let mut regs = WarpRegs::new(syms.len());
                for r in 0..syms.len() {
                    for l in 0..sim_isa::WARP_SIZE {
                        regs.set_lane(sim_isa::RegId(r as u32), l, (l as u64) * 0x9E37 + r as u64);
                    }
                }
                let ctx = ExecCtx::new(arch.target(), 3);
                let before = regs.clone();
                execute(&inst, &ctx, &mut regs, u32::MAX);
                let written = inst.reg_uses().writes().count();
                if written > 0 && regs == before {
                    // Registers seeded with distinct values: some lane must change.
                    failures.push(format!("`{}` executed without writing", f.text));
                }
            }
        }
        if !ran && check_target(&inst, Target::SM_90, None).is_ok() {
            failures.push(format!("`{}` runs on sm_90 but was not run", f.text));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} forms fail:\n{}",
        failures.len(),
        all.len(),
        failures[..failures.len().min(60)].join("\n")
    );
    // Every family is enumerated.
    assert_eq!(families.len(), 11, "{families:?}");
    assert!(all.len() > 5000, "{} forms", all.len());
}
