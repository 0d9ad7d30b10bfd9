//! sim-kernel: runs a real PTX kernel (as `nvcc -ptx` emits it) from a launch
//! file. Values come from functional SIMT execution ([`exec`]): per-lane
//! predication, divergence with stack-based reconvergence at the immediate
//! post-dominator, blocks with their own shared memory, barriers, and a
//! launch memory ([`memory`]) where every out-of-bounds or misaligned access
//! is a clear error. Cycles come from sim-core's SM model, which times each
//! warp's executed statements as they are produced ([`engine`]), with memory
//! latencies from a cache model ([`memtime`]); blocks become resident on the
//! GPU's SMs as they have room.

// Library code states its invariants instead of unwrapping.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

mod assertfail;
mod dead;
pub mod device;
mod engine;
mod error;
pub mod exec;
mod gate;
mod global;
pub mod heap;
mod l1;
pub mod lowering;
mod memkeys;
pub mod memory;
pub mod memstats;
pub mod memtime;
pub mod overlay;
mod prepare;
pub mod printf;
mod rec;
mod reconv;
pub mod record;
mod regalloc;
mod reorder;
mod run;
mod sectors;
pub mod spans;
mod tap;
pub mod timing;
mod vectorise;

pub use device::{
    Device, DeviceError, FuncInfo, LaunchExtras, Launched, ModuleId, ParamSlot, SymbolInfo,
    SymbolSpace,
};
pub use engine::{EPOCH, SAMPLE_MIN_BLOCKS, SAMPLE_SMS};
pub use error::{KernelError, Site};
pub use exec::Step;
pub use gate::MAX_LISTED;
pub use memtime::{Gpu, Kind, MemConfig, SmMem};
pub use prepare::{Prepared, MAX_SPACE_BYTES};
pub use record::{replay, RecordError, Recording};
pub use run::{run_grid, run_launch, GridRun, LaunchRun, RunError, RunOptions};
pub use timing::{Sampled, Timed};

/// Where a buffer's final bytes first differ from the expected ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The buffer.
    pub buffer: String,
    /// Byte offset of the first difference (or the shorter length).
    pub offset: usize,
    /// The expected byte there (`None` past its end).
    pub expected: Option<u8>,
    /// The simulated byte there.
    pub got: Option<u8>,
    /// How many bytes differ in all.
    pub count: usize,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let b = |v: Option<u8>| v.map_or("(none)".to_string(), |x| format!("0x{x:02x}"));
        write!(
            f,
            "buffer '{}' differs at byte {}: expected {}, got {} ({} bytes differ)",
            self.buffer,
            self.offset,
            b(self.expected),
            b(self.got),
            self.count
        )
    }
}

/// Compares `got` with `want`: the first difference, if any.
pub fn compare(buffer: &str, got: &[u8], want: &[u8]) -> Option<Mismatch> {
    // The usual answer, equal, in one `memcmp` rather than a walk of
    // `Option`s a byte (1.6M host instructions for a 64 KiB output).
    if got == want {
        return None;
    }
    let n = got.len().max(want.len());
    let diff = (0..n).filter(|&i| got.get(i) != want.get(i));
    let count = diff.clone().count();
    diff.clone().next().map(|offset| Mismatch {
        buffer: buffer.to_string(),
        offset,
        expected: want.get(offset).copied(),
        got: got.get(offset).copied(),
        count,
    })
}

#[cfg(test)]
mod tests {
    use super::compare;

    /// Equal buffers (the `memcmp` path) have no mismatch; unequal ones name
    /// the first differing byte and count every one, a length difference
    /// included.
    #[test]
    fn compare_names_the_first_difference_and_counts_all() {
        let a = vec![7u8; 4096];
        assert!(compare("C", &a, &a.clone()).is_none());
        let mut b = a.clone();
        b[100] = 1;
        b[3000] = 2;
        let m = compare("C", &b, &a).unwrap();
        assert_eq!(
            (m.buffer.as_str(), m.offset, m.expected, m.got, m.count),
            ("C", 100, Some(7), Some(1), 2)
        );
        let m = compare("C", &a[..4094], &a).unwrap();
        assert_eq!(
            (m.offset, m.expected, m.got, m.count),
            (4094, Some(7), None, 2)
        );
    }
}
