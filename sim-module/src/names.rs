//! Names the PTX ISA reserves: opcode words and special registers.

/// Every PTX opcode word (the part before the first `.`) through PTX ISA 9.0.
const PTX_OPCODES: &str = "abs activemask add addc alloca and applypriority atom bar barrier \
    bfe bfi bfind bmsk bra brev brkpt brx call clusterlaunchcontrol clz cnot copysign cos cp \
    createpolicy cvt cvta discard div dp2a dp4a elect ex2 exit fence fma fns getctarank griddepcontrol \
    isspacep istypep ld ldmatrix ldu lg2 lop3 mad mad24 madc mapa match max mbarrier membar min \
    mma mov movmatrix multimem mul mul24 nanosleep neg not or pmevent popc prefetch prefetchu prmt \
    rcp red redux rem ret rsqrt sad selp set setmaxnreg setp shf shfl shl shr sin slct sqrt st \
    stackrestore stacksave stmatrix sub subc suld suq sured sust szext tanh tcgen05 tensormap \
    testp tex tld4 trap txq vabsdiff vabsdiff2 vabsdiff4 vadd vadd2 vadd4 vavrg2 vavrg4 vmad vmax \
    vmax2 vmax4 vmin vmin2 vmin4 vote vset vset2 vset4 vshl vshr vsub vsub2 vsub4 wgmma wmma xor";

/// Whether `word` is a PTX opcode word.
pub fn is_ptx_opcode(word: &str) -> bool {
    PTX_OPCODES.split_ascii_whitespace().any(|w| w == word)
}

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
