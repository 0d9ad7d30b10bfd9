//! The simulated device as `cudaGetDeviceProperties` and
//! `cudaDeviceGetAttribute` report it: the SM count, shared memory, blocks
//! and registers of the simulation's own configuration (`MemConfig`,
//! `SmConfig`), the rest from the sources cited beside each figure.

use crate::gen::layout as l;
use crate::gen::layout12 as l12;
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
    /// A warp's registers are allocated in units of this many.
    pub reg_unit: i32,
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

/// Where `struct cudaDeviceProp`'s fields lie (`gen::layout` for CUDA 13,
/// `gen::layout12` for CUDA 12), and its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct PropLayout {
    pub size: usize,
    pub name: usize,
    pub total_global_mem: usize,
    pub shared_mem_per_block: usize,
    pub regs_per_block: usize,
    pub warp_size: usize,
    pub mem_pitch: usize,
    pub max_threads_per_block: usize,
    pub max_threads_dim: usize,
    pub max_grid_size: usize,
    pub total_const_mem: usize,
    pub major: usize,
    pub minor: usize,
    pub texture_alignment: usize,
    pub multi_processor_count: usize,
    pub can_map_host_memory: usize,
    pub concurrent_kernels: usize,
    pub unified_addressing: usize,
    pub memory_bus_width: usize,
    pub l2_cache_size: usize,
    pub max_threads_per_multi_processor: usize,
    pub shared_mem_per_multiprocessor: usize,
    pub regs_per_multiprocessor: usize,
    pub managed_memory: usize,
    pub cooperative_launch: usize,
    pub shared_mem_per_block_optin: usize,
    pub max_blocks_per_multi_processor: usize,
    pub reserved_shared_mem_per_block: usize,
    /// `clockRate`, `memoryClockRate` (kHz) and `deviceOverlap`: CUDA 12
    /// only (CUDA 13 removed them).
    pub cuda12_only: Option<[usize; 3]>,
}

/// A `PropLayout` from a generated layout module's `PROP_*` constants.
macro_rules! prop_layout {
    ($m:ident, $($extra:tt)*) => {
        PropLayout {
            size: $m::PROP_SIZE,
            name: $m::PROP_NAME,
            total_global_mem: $m::PROP_TOTAL_GLOBAL_MEM,
            shared_mem_per_block: $m::PROP_SHARED_MEM_PER_BLOCK,
            regs_per_block: $m::PROP_REGS_PER_BLOCK,
            warp_size: $m::PROP_WARP_SIZE,
            mem_pitch: $m::PROP_MEM_PITCH,
            max_threads_per_block: $m::PROP_MAX_THREADS_PER_BLOCK,
            max_threads_dim: $m::PROP_MAX_THREADS_DIM,
            max_grid_size: $m::PROP_MAX_GRID_SIZE,
            total_const_mem: $m::PROP_TOTAL_CONST_MEM,
            major: $m::PROP_MAJOR,
            minor: $m::PROP_MINOR,
            texture_alignment: $m::PROP_TEXTURE_ALIGNMENT,
            multi_processor_count: $m::PROP_MULTI_PROCESSOR_COUNT,
            can_map_host_memory: $m::PROP_CAN_MAP_HOST_MEMORY,
            concurrent_kernels: $m::PROP_CONCURRENT_KERNELS,
            unified_addressing: $m::PROP_UNIFIED_ADDRESSING,
            memory_bus_width: $m::PROP_MEMORY_BUS_WIDTH,
            l2_cache_size: $m::PROP_L2_CACHE_SIZE,
            max_threads_per_multi_processor: $m::PROP_MAX_THREADS_PER_MULTI_PROCESSOR,
            shared_mem_per_multiprocessor: $m::PROP_SHARED_MEM_PER_MULTIPROCESSOR,
            regs_per_multiprocessor: $m::PROP_REGS_PER_MULTIPROCESSOR,
            managed_memory: $m::PROP_MANAGED_MEMORY,
            cooperative_launch: $m::PROP_COOPERATIVE_LAUNCH,
            shared_mem_per_block_optin: $m::PROP_SHARED_MEM_PER_BLOCK_OPTIN,
            max_blocks_per_multi_processor: $m::PROP_MAX_BLOCKS_PER_MULTI_PROCESSOR,
            reserved_shared_mem_per_block: $m::PROP_RESERVED_SHARED_MEM_PER_BLOCK,
            cuda12_only: $($extra)*,
        }
    };
}

impl PropLayout {
    /// CUDA 13's `struct cudaDeviceProp`.
    pub const CUDA13: PropLayout = prop_layout!(l, None);
    /// CUDA 12's `struct cudaDeviceProp` (`cudaGetDeviceProperties_v2`).
    pub const CUDA12: PropLayout = prop_layout!(
        l12,
        Some([
            l12::PROP_CLOCK_RATE,
            l12::PROP_MEMORY_CLOCK_RATE,
            l12::PROP_DEVICE_OVERLAP
        ])
    );
}

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
            reg_unit: mem.reg_unit as i32,
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
        self.device_prop_as(&PropLayout::CUDA13)
    }

    /// `struct cudaDeviceProp` laid out as `l` says (CUDA 12's has fields
    /// CUDA 13 removed, so every field from `multiProcessorCount` on moves).
    pub fn device_prop_as(&self, l: &PropLayout) -> Vec<u8> {
        let mut b = vec![0u8; l.size];
        let name = self.name.as_bytes();
        let n = name.len().min(255);
        b[l.name..l.name + n].copy_from_slice(&name[..n]);
        let mut i32_at = |off: usize, v: i32| b[off..off + 4].copy_from_slice(&v.to_le_bytes());
        i32_at(l.regs_per_block, 65536);
        i32_at(l.warp_size, 32);
        i32_at(l.max_threads_per_block, THREADS_PER_BLOCK);
        for (k, v) in [1024, 1024, 64].into_iter().enumerate() {
            i32_at(l.max_threads_dim + 4 * k, v);
        }
        for (k, v) in [i32::MAX, 65535, 65535].into_iter().enumerate() {
            i32_at(l.max_grid_size + 4 * k, v);
        }
        i32_at(l.major, self.major);
        i32_at(l.minor, self.minor);
        i32_at(l.multi_processor_count, self.sms);
        i32_at(l.can_map_host_memory, 1);
        i32_at(l.concurrent_kernels, 1);
        i32_at(l.unified_addressing, 1);
        i32_at(l.memory_bus_width, self.bus_width);
        i32_at(l.l2_cache_size, self.l2_bytes);
        i32_at(l.max_threads_per_multi_processor, self.threads_per_sm);
        i32_at(l.regs_per_multiprocessor, self.regs_per_sm);
        i32_at(l.managed_memory, 1);
        // `cudaLaunchCooperativeKernel` runs (`crate::coop`).
        i32_at(l.cooperative_launch, 1);
        i32_at(l.max_blocks_per_multi_processor, self.blocks_per_sm);
        if let Some([clock, memory_clock, overlap]) = l.cuda12_only {
            i32_at(clock, self.clock_khz);
            i32_at(memory_clock, self.memory_clock_khz);
            i32_at(overlap, 1);
        }
        let mut u64_at = |off: usize, v: u64| b[off..off + 8].copy_from_slice(&v.to_le_bytes());
        u64_at(l.total_global_mem, self.global_bytes);
        u64_at(l.shared_mem_per_block, SHARED_PER_BLOCK);
        u64_at(l.mem_pitch, i32::MAX as u64);
        u64_at(l.total_const_mem, CONST_BYTES);
        u64_at(l.texture_alignment, 512);
        u64_at(l.shared_mem_per_multiprocessor, self.shared_per_sm);
        u64_at(l.shared_mem_per_block_optin, self.shared_per_block_optin);
        u64_at(l.reserved_shared_mem_per_block, RESERVED_SHARED_PER_BLOCK);
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
            | l::cudaDevAttrCooperativeLaunch
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
