//! The PTX of a registered fatbinary, through sim-fatbin.

/// `__fatBinC_Wrapper_t`'s magic (the struct nvcc passes to
/// `__cudaRegisterFatBinary`: i32 magic, i32 version, a pointer to the
/// fatbinary, a pointer nvcc leaves null).
pub use sim_fatbin::WRAPPER_MAGIC;

/// The fatbinary's whole length from its first 16 bytes (its header).
pub fn len(head: &[u8]) -> Result<u64, String> {
    sim_fatbin::fatbin_len(head).map_err(|e| format!("fatbinary: {e}"))
}

/// The PTX a device of compute capability `sm` would compile from the
/// fatbinary `bytes`, as text.
pub fn ptx_for(bytes: &[u8], sm: u32) -> Result<String, String> {
    let f = sim_fatbin::Fatbin::parse(bytes).map_err(|e| format!("fatbinary: {e}"))?;
    let p = f.ptx_for(sm).map_err(|e| format!("fatbinary: {e}"))?;
    Ok(p.text)
}

/// Registers a thread of each kernel, by `.entry` name, from the fatbinary's
/// machine code for exactly compute capability `sm` (empty when it has none
/// or it cannot be read: the launch then runs without the limit, as a
/// launch file that states no `registers`).
pub fn registers_for(bytes: &[u8], sm: u32) -> Vec<(String, u32)> {
    sim_fatbin::Fatbin::parse(bytes)
        .and_then(|f| sim_fatbin::registers_for(&f, sm))
        .unwrap_or_default()
}
