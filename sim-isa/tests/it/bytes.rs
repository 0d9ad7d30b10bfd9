//! Little-endian bytes for the tests' hand-made memories (`mem.rs`,
//! `mem_lanes.rs`, `mma.rs`, `async_copy.rs`), as `Memory::load` and
//! `Memory::store` define them; and [`byte_memory`], the `Memory` of a
//! memory that is its bytes (`async_copy.rs`, `async_sass.rs`).

/// The value `b` holds, least significant byte first.
pub fn read_le(b: &[u8]) -> u64 {
    b.iter().rev().fold(0, |v, &x| v << 8 | u64::from(x))
}

/// Writes the low `b.len()` bytes of `v` into `b`, least significant first.
pub fn write_le(b: &mut [u8], v: u64) {
    for (k, x) in b.iter_mut().enumerate() {
        *x = (v >> (8 * k)) as u8;
    }
}

/// `impl Memory for $t`, a test memory with a method `bytes(&mut self,
/// space, addr, n) -> Result<&mut [u8], FaultKind>` (the `n` bytes at
/// `addr` in `space`, or the fault): loads and stores through it,
/// little-endian; the variable `sm` (id 0, the only one) in shared memory
/// at `$sm_at`; generic addresses the spaces' own. The trait's signatures
/// written once for the memories that are only their bytes.
macro_rules! byte_memory {
    ($t:ty, $sm_at:expr) => {
        impl sim_isa::exec::Memory for $t {
            fn load(&mut self, a: sim_isa::exec::Access) -> Result<u64, sim_isa::exec::FaultKind> {
                Ok(crate::bytes::read_le(self.bytes(a.space, a.addr, a.bytes)?))
            }
            fn store(
                &mut self,
                a: sim_isa::exec::Access,
                value: u64,
            ) -> Result<(), sim_isa::exec::FaultKind> {
                crate::bytes::write_le(self.bytes(a.space, a.addr, a.bytes)?, value);
                Ok(())
            }
            fn var(&self, id: u32) -> Result<(sim_isa::Space, u64), sim_isa::exec::FaultKind> {
                match id {
                    0 => Ok((sim_isa::Space::Shared, $sm_at)),
                    _ => Err(sim_isa::exec::FaultKind::UnknownVariable),
                }
            }
            fn to_generic(&self, _: sim_isa::Space, addr: u64) -> u64 {
                addr
            }
            fn generic_to_space(&self, _: sim_isa::Space, addr: u64) -> u64 {
                addr
            }
        }
    };
}
pub(crate) use byte_memory;
