//! The simulated device as `cudaGetDeviceProperties` and
//! `cudaDeviceGetAttribute` report it: the SM count, shared memory, blocks
//! and registers of the simulation's own configuration (`MemConfig`,
//! `SmConfig`), the rest from the sources cited beside each figure.

use crate::gen::layout as l;
use sim_core::SmConfig;
use sim_kernel::MemConfig;

/// One device's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct Facts {
    /// The device's name.
    pub name: String,
    /// Compute capability.
    pub major: i32,
    /// Compute capability.
    pub minor: i32,
    /// SMs simulated.
    pub sms: i32,
    /// SM clock, kHz: simulated cycles become time at this rate.
    pub clock_khz: i32,
    /// Memory clock, kHz.
    pub memory_clock_khz: i32,
    /// Memory bus width, bits.
    pub bus_width: i32,
    /// Device memory, bytes.
    pub global_bytes: u64,
    /// L2 bytes.
    pub l2_bytes: i32,
    /// Shared memory an SM holds, bytes.
    pub shared_per_sm: u64,
    /// Shared memory a block may opt in to, bytes.
    pub shared_per_block_optin: u64,
    /// 32-bit registers an SM holds.
    pub regs_per_sm: i32,
    /// Resident blocks an SM holds.
    pub blocks_per_sm: i32,
    /// Resident threads an SM holds.
    pub threads_per_sm: i32,
}

/// Shared memory a block gets without opting in (CUDA C++ Programming
/// Guide, "Technical Specifications per Compute Capability": 48 KB on
/// every compute capability).
pub const SHARED_PER_BLOCK: u64 = 48 * 1024;

/// Shared memory the CUDA driver reserves a block on compute capability 8.0
/// and later (Programming Guide, same table: 1 KB).
pub const RESERVED_SHARED_PER_BLOCK: u64 = 1024;

/// `.const` bytes a module may declare (Programming Guide: 64 KB).
pub const CONST_BYTES: u64 = 64 * 1024;

/// Threads a block (Programming Guide: 1024 from compute capability 2.0).
pub const THREADS_PER_BLOCK: i32 = 1024;

impl Facts {
    /// The device the configuration simulates.
    pub fn of(config: &SmConfig, mem: &MemConfig, sms: u32) -> Facts {
        let t = config.target;
        let (major, minor) = ((t.sm / 10) as i32, (t.sm % 10) as i32);
        let shared_per_sm = mem.smem_per_sm;
        let common = Facts {
            name: format!("ptx-sm-sim simulated sm_{}", t.sm),
            major,
            minor,
            sms: sms as i32,
            clock_khz: 1_000_000,
            memory_clock_khz: 1_000_000,
            bus_width: 256,
            global_bytes: 16 << 30,
            l2_bytes: mem.l2_bytes.min(i32::MAX as u64) as i32,
            shared_per_sm,
            shared_per_block_optin: shared_per_sm.saturating_sub(RESERVED_SHARED_PER_BLOCK),
            regs_per_sm: mem.regs_per_sm as i32,
            blocks_per_sm: mem.blocks_per_sm as i32,
            threads_per_sm: (config.resident_warps * 32) as i32,
        };
        if t.sm == 90 {
            // NVIDIA H100 Tensor Core GPU datasheet and architecture
            // whitepaper (2022), H100 SXM5 80GB: 1,980 MHz maximum boost
            // clock, HBM3 at 2,619 MHz on a 5,120-bit bus, 80 GB.
            return Facts {
                name: "NVIDIA H100 80GB HBM3".into(),
                clock_khz: 1_980_000,
                memory_clock_khz: 2_619_000,
                bus_width: 5120,
                global_bytes: 80 << 30,
                ..common
            };
        }
        common
    }

    /// `struct cudaDeviceProp`, as CUDA 13's `driver_types.h` lays it out.
    pub fn device_prop(&self) -> Vec<u8> {
        let mut b = vec![0u8; l::PROP_SIZE];
        let name = self.name.as_bytes();
        let n = name.len().min(255);
        b[l::PROP_NAME..l::PROP_NAME + n].copy_from_slice(&name[..n]);
        let mut i32_at = |off: usize, v: i32| b[off..off + 4].copy_from_slice(&v.to_le_bytes());
        i32_at(l::PROP_REGS_PER_BLOCK, 65536);
        i32_at(l::PROP_WARP_SIZE, 32);
        i32_at(l::PROP_MAX_THREADS_PER_BLOCK, THREADS_PER_BLOCK);
        for (k, v) in [1024, 1024, 64].into_iter().enumerate() {
            i32_at(l::PROP_MAX_THREADS_DIM + 4 * k, v);
        }
        for (k, v) in [i32::MAX, 65535, 65535].into_iter().enumerate() {
            i32_at(l::PROP_MAX_GRID_SIZE + 4 * k, v);
        }
        i32_at(l::PROP_MAJOR, self.major);
        i32_at(l::PROP_MINOR, self.minor);
        i32_at(l::PROP_MULTI_PROCESSOR_COUNT, self.sms);
        i32_at(l::PROP_CAN_MAP_HOST_MEMORY, 1);
        i32_at(l::PROP_CONCURRENT_KERNELS, 1);
        i32_at(l::PROP_UNIFIED_ADDRESSING, 1);
        i32_at(l::PROP_MEMORY_BUS_WIDTH, self.bus_width);
        i32_at(l::PROP_L2_CACHE_SIZE, self.l2_bytes);
        i32_at(l::PROP_MAX_THREADS_PER_MULTI_PROCESSOR, self.threads_per_sm);
        i32_at(l::PROP_REGS_PER_MULTIPROCESSOR, self.regs_per_sm);
        i32_at(l::PROP_MANAGED_MEMORY, 1);
        i32_at(l::PROP_MAX_BLOCKS_PER_MULTI_PROCESSOR, self.blocks_per_sm);
        let mut u64_at = |off: usize, v: u64| b[off..off + 8].copy_from_slice(&v.to_le_bytes());
        u64_at(l::PROP_TOTAL_GLOBAL_MEM, self.global_bytes);
        u64_at(l::PROP_SHARED_MEM_PER_BLOCK, SHARED_PER_BLOCK);
        u64_at(l::PROP_MEM_PITCH, i32::MAX as u64);
        u64_at(l::PROP_TOTAL_CONST_MEM, CONST_BYTES);
        u64_at(l::PROP_TEXTURE_ALIGNMENT, 512);
        u64_at(l::PROP_SHARED_MEM_PER_MULTIPROCESSOR, self.shared_per_sm);
        u64_at(
            l::PROP_SHARED_MEM_PER_BLOCK_OPTIN,
            self.shared_per_block_optin,
        );
        u64_at(
            l::PROP_RESERVED_SHARED_MEM_PER_BLOCK,
            RESERVED_SHARED_PER_BLOCK,
        );
        b
    }

    /// `cudaDeviceGetAttribute`: the value, or `None` for an attribute not
    /// modelled.
    pub fn attribute(&self, attr: i32) -> Option<i32> {
        let clamp = |v: u64| v.min(i32::MAX as u64) as i32;
        Some(match attr {
            l::cudaDevAttrMaxThreadsPerBlock => THREADS_PER_BLOCK,
            l::cudaDevAttrMaxBlockDimX | l::cudaDevAttrMaxBlockDimY => 1024,
            l::cudaDevAttrMaxBlockDimZ => 64,
            l::cudaDevAttrMaxGridDimX => i32::MAX,
            l::cudaDevAttrMaxGridDimY | l::cudaDevAttrMaxGridDimZ => 65535,
            l::cudaDevAttrMaxSharedMemoryPerBlock => clamp(SHARED_PER_BLOCK),
            l::cudaDevAttrTotalConstantMemory => clamp(CONST_BYTES),
            l::cudaDevAttrWarpSize => 32,
            l::cudaDevAttrMaxRegistersPerBlock => 65536,
            l::cudaDevAttrClockRate => self.clock_khz,
            l::cudaDevAttrMultiProcessorCount => self.sms,
            l::cudaDevAttrL2CacheSize => self.l2_bytes,
            l::cudaDevAttrMaxThreadsPerMultiProcessor => self.threads_per_sm,
            l::cudaDevAttrComputeCapabilityMajor => self.major,
            l::cudaDevAttrComputeCapabilityMinor => self.minor,
            l::cudaDevAttrMaxSharedMemoryPerMultiprocessor => clamp(self.shared_per_sm),
            l::cudaDevAttrMaxRegistersPerMultiprocessor => self.regs_per_sm,
            l::cudaDevAttrManagedMemory
            | l::cudaDevAttrUnifiedAddressing
            | l::cudaDevAttrConcurrentKernels => 1,
            l::cudaDevAttrMaxSharedMemoryPerBlockOptin => clamp(self.shared_per_block_optin),
            l::cudaDevAttrMaxBlocksPerMultiprocessor => self.blocks_per_sm,
            l::cudaDevAttrGlobalMemoryBusWidth => self.bus_width,
            l::cudaDevAttrMemoryClockRate => self.memory_clock_khz,
            _ => return None,
        })
    }
}
