//! The two public sample traces (tests/data/README.md: romnn/microgpusim,
//! MIT): read, counted against the tracer's own summary (`stats.csv`) and
//! Accel-Sim's (`accelsim-stats.txt`), and run to completion.

use sim_accelsim::opcode::{How, Mapper};
use sim_accelsim::{read_dir, run_kernel, Item, Kernel, Options};
use sim_core::sass_table::SassArch;
use sim_core::SchedPolicy;
use sim_isa::Target;
use std::path::{Path, PathBuf};

fn data(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(dir)
}

fn kernels(dir: &Path) -> (Vec<Kernel>, Vec<(u64, u64)>) {
    let t = read_dir(dir).expect("reads");
    let mut ks = Vec::new();
    let mut copies = Vec::new();
    for i in t.items {
        match i {
            Item::Kernel(k) => ks.push(*k),
            Item::Memcpy { addr, bytes } => copies.push((addr, bytes)),
        }
    }
    (ks, copies)
}

fn opts(sm: u32) -> Options {
    let target = Target::parse(&format!("sm_{sm}")).expect("target");
    Options {
        config: sim_core::config::preset(target),
        policy: SchedPolicy::Lrr,
        memory: sim_kernel::MemConfig::preset(target),
        sms: None,
    }
}

#[test]
fn vectoradd_counts_match_the_tracer_and_accelsim() {
    let (ks, copies) = kernels(&data("vectoradd-100-32"));
    assert_eq!(
        copies,
        vec![
            (0x7fd1_6550_0000, 400),
            (0x7fd1_6550_0200, 400),
            (0x7fd1_6550_0400, 400)
        ]
    );
    let k = &ks[0];
    assert_eq!(k.header.name, "_Z6vecAddIfEvPT_S1_S1_i");
    assert_eq!(k.header.block, [1024, 1, 1]);
    assert_eq!(k.header.tracer_version, 4);
    // stats.csv: total_insts 344; accelsim-stats.txt: gpu_sim_insn = 10516.
    assert_eq!(k.warp_instructions(), 344);
    assert_eq!(k.thread_instructions(), 10516);
    // Warp 3 holds threads 96..99: its load addresses (base + stride form)
    // are the four words at 96 * 4 bytes past each buffer.
    let w3 = &k.blocks[0].warps[3];
    let ld = w3.insts.iter().find(|i| i.mem.is_some()).expect("a load");
    let (width, start) = ld.mem.expect("mem");
    assert_eq!(width, 4);
    assert_eq!(ld.mask, 0xf);
    assert_eq!(
        k.lane_addrs(start, ld.mask),
        &[
            0x7fd165500180,
            0x7fd165500184,
            0x7fd165500188,
            0x7fd16550018c
        ]
    );
}

#[test]
fn vectoradd_runs_on_the_pascal_like_preset_and_on_sm_90() {
    let (ks, _) = kernels(&data("vectoradd-100-32"));
    for sm in [61, 90] {
        let r = run_kernel(&ks[0], &opts(sm)).expect("runs");
        let s = &r.report.stats;
        assert_eq!(s.warp_instructions, 344, "sm_{sm}");
        assert_eq!(s.thread_instructions, 10516, "sm_{sm}");
        // Every traced instruction is one machine instruction of the model
        // (none is taken for hoisted work, as instructions without a
        // register source were before the stand-ins read one).
        assert_eq!(s.micro_ops, 344, "sm_{sm}");
        // 12 memory instructions per active warp (3 of them), 4 warps.
        assert_eq!(r.memory_instructions, 12, "sm_{sm}");
        // The loads miss every cache (L2 starts cold, as Accel-Sim's 14 L2
        // misses of 14 accesses say), and the store waits for their sum.
        let dram = opts(sm).memory.dram;
        assert!(s.cycles > dram, "sm_{sm}: {} cycles", s.cycles);
        assert_eq!(s.per_opcode["LDG.E.CG"].count, 8);
        // The GTX 1080 (gtx1080-nvprof.json): l2_global_load_bytes 832 and
        // l2_local_global_store_bytes 416, 26 and 13 sectors of 32 bytes.
        assert_eq!((r.sectors.load, r.sectors.store), (26, 13), "sm_{sm}");
    }
}

#[test]
fn matrixmul_counts_and_runs() {
    let (ks, copies) = kernels(&data("matrixmul-32-32"));
    assert_eq!(copies.len(), 2);
    let k = &ks[0];
    // stats.csv: total_insts 4416.
    assert_eq!(k.warp_instructions(), 4416);
    assert_eq!(k.thread_instructions(), 139_264);
    assert_eq!(k.header.block, [32, 32, 1]);
    let r = run_kernel(k, &opts(61)).expect("runs");
    assert_eq!(r.report.stats.warp_instructions, 4416);
    assert_eq!(r.report.stats.per_opcode["BAR.SYNC"].count, 64);
    assert!(r.report.stats.cycles > 0);
}

#[test]
fn pascal_opcodes_map_onto_maxwell_and_hopper_tables() {
    let m53 = Mapper::new(SassArch::Sm53);
    let m90 = Mapper::new(SassArch::Sm90);
    // XMAD is in sm_53's own table; on sm_90 it keeps Maxwell's rule.
    assert_eq!(m53.map("XMAD.PSL.CBCC").how, How::Table);
    assert_eq!(m90.map("XMAD.PSL.CBCC").how, How::Inherited);
    assert_eq!(m90.map("FFMA").how, How::Table);
    assert_eq!(m90.map("S2R").how, How::NoRule);
    assert_eq!(m90.map("LDG.E.CG").how, How::Memory);
    // UMOV only Hopper's rules know: on sm_53 it runs as an ALU op.
    assert!(matches!(m53.map("UMOV").how, How::Alias(_)));
}

#[test]
fn the_warning_lists_the_approximated_opcodes_once() {
    let (ks, _) = kernels(&data("vectoradd-100-32"));
    let r = run_kernel(&ks[0], &opts(90)).expect("runs");
    let w = r.warning.expect("a warning");
    assert!(w.contains("XMAD (an older table's rule"), "{w}");
    assert!(w.contains("S2R (no rule: int_alu)"), "{w}");
    assert!(!w.contains("FADD"), "{w}");
    assert!(!w.contains("LDG"), "{w}");
}
