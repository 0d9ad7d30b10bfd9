//! Names the PTX ISA reserves: opcode words and special registers.

/// Whether `word` is a PTX opcode word: sim-isa's list, the one home.
pub use sim_isa::db::is_ptx_opcode;

/// Special registers without a numeric suffix.
const SPECIALS: &str = "%tid %ntid %laneid %warpid %nwarpid %ctaid %nctaid %smid %nsmid %gridid \
    %lanemask_eq %lanemask_le %lanemask_lt %lanemask_ge %lanemask_gt %clock %clock_hi %clock64 \
    %globaltimer %globaltimer_lo %globaltimer_hi %total_smem_size %aggr_smem_size \
    %dynamic_smem_size %is_explicit_cluster %clusterid %nclusterid %cluster_ctaid \
    %cluster_nctaid %cluster_ctarank %cluster_nctarank %current_graph_exec \
    %reserved_smem_offset_begin %reserved_smem_offset_end %reserved_smem_offset_cap \
    %reserved_smem_offset_0 %reserved_smem_offset_1 WARP_SZ";

/// Whether `name` is a PTX special register (or the `WARP_SZ` constant).
pub fn is_special_register(name: &str) -> bool {
    if SPECIALS.split_ascii_whitespace().any(|w| w == name) {
        return true;
    }
    let numbered = |prefix: &str, max: u32| {
        name.strip_prefix(prefix)
            .map(|n| n.strip_suffix("_64").unwrap_or(n))
            .and_then(|n| n.parse::<u32>().ok().filter(|_| !n.starts_with('+')))
            .is_some_and(|n| n <= max)
    };
    numbered("%envreg", 31) || numbered("%pm", 7)
}
