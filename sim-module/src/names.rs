//! Names the PTX ISA reserves: opcode words and special registers.

/// Whether `word` is a PTX opcode word: sim-isa's list, the one home.
pub use sim_isa::db::is_ptx_opcode;

/// Whether `name` is a PTX special register (sim-isa's list) or the
/// predefined constant `WARP_SZ`, which no declaration may reuse either.
pub fn is_special_register(name: &str) -> bool {
    name == "WARP_SZ" || sim_isa::symbols::is_special_register(name)
}
