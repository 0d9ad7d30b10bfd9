//! A memory whose loads are logged (for a recording) or answered from a
//! record (for its replay): the bottom layer that execution and recordings
//! share.

use sim_isa::exec::{Access, Accesses, FaultKind, Memory};
use sim_isa::Space;

/// What a [`LoadTap`] does with loads.
pub(crate) enum Loads<'a> {
    /// Answers from the memory and logs each value.
    Log(&'a mut Vec<u64>),
    /// Answers each load with the next recorded value.
    Answer {
        /// The recorded values.
        values: &'a [u64],
        /// The next one.
        next: &'a mut usize,
    },
}

/// A [`Memory`] whose loads are logged or answered from a record; stores,
/// variables and address windows go to `mem`.
pub(crate) struct LoadTap<'a, M: Memory + ?Sized> {
    /// The memory.
    pub mem: &'a mut M,
    /// What loads do.
    pub loads: Loads<'a>,
}

impl<M: Memory + ?Sized> Memory for LoadTap<'_, M> {
    fn load(&mut self, a: Access) -> Result<u64, FaultKind> {
        match &mut self.loads {
            Loads::Log(log) => {
                let v = self.mem.load(a)?;
                log.push(v);
                Ok(v)
            }
            Loads::Answer { values, next } => {
                let v = values.get(**next).copied();
                **next += 1;
                // Past the record: the recording does not match its module.
                v.ok_or(FaultKind::OutOfBounds)
            }
        }
    }
    fn store(&mut self, a: Access, v: u64) -> Result<(), FaultKind> {
        self.mem.store(a, v)
    }
    fn var(&self, id: u32) -> Result<(Space, u64), FaultKind> {
        self.mem.var(id)
    }
    fn to_generic(&self, space: Space, addr: u64) -> u64 {
        self.mem.to_generic(space, addr)
    }
    fn generic_to_space(&self, space: Space, addr: u64) -> u64 {
        self.mem.generic_to_space(space, addr)
    }
}

/// A record of what the warp executed, for a recording.
#[derive(Default)]
pub(crate) struct Log {
    pub steps: Vec<(u32, u32)>,
    pub accesses: Vec<(u32, Accesses)>,
    pub loads: Vec<u64>,
    pub clocks: Vec<u64>,
}
