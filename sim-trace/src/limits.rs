//! Bounds on everything a trace or kernel text can ask for, so hostile input
//! gets an error instead of an allocation or a run that never ends.

/// Largest chunk payload in a `.bin` (bytes). Also bincode's decode limit.
pub const MAX_CHUNK: usize = 1 << 20;
/// Chunk payload size the writer aims for before starting a new chunk.
pub const TARGET_CHUNK: usize = 64 << 10;
/// Static instructions in a program.
pub const MAX_INSTS: usize = 1 << 20;
/// Declared registers.
pub const MAX_REGS: usize = 4096;
/// Warps in a launch.
pub const MAX_WARPS: usize = 1 << 16;
/// Warps x registers: bounds the register files a run allocates (x 256 bytes).
pub const MAX_WARP_REGS: usize = 1 << 21;
/// Distinct streams.
pub const MAX_STREAMS: usize = 1 << 16;
/// Stream ops over all streams (each op is 16 bytes in memory).
pub const MAX_STREAM_OPS: usize = 1 << 25;
/// Loop nesting.
pub const MAX_DEPTH: usize = 64;
/// Dynamic warp-instructions per warp.
pub const MAX_DYNAMIC_PER_WARP: u64 = 1 << 34;
/// Dynamic warp-instructions over the whole launch.
pub const MAX_DYNAMIC_TOTAL: u64 = 1 << 38;
/// `.value` and `.expect` records together.
pub const MAX_VALUE_RECORDS: usize = 1 << 20;
/// Bytes of a register name.
pub const MAX_NAME: usize = 256;
/// Bytes of kernel text read.
pub const MAX_TEXT: usize = 256 << 20;
