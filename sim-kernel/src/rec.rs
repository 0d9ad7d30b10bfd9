//! What a recording holds of each warp: its steps, its memory accesses,
//! the values its loads returned and the clocks it read. The
//! bottom layer that the engine (which follows a recorded warp) and the
//! recording format share.

use serde::{Deserialize, Serialize};
use sim_isa::exec::Accesses;
use sim_isa::{Space, WARP_SIZE};

/// What one warp executed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecWarp {
    /// Its block (linear index in the grid).
    pub cta: u32,
    /// Its index in the block.
    pub warp: u32,
    /// Lanes that exist.
    pub lanes: u32,
    /// `(statement index, lanes that executed it)`, in execution order.
    pub steps: Vec<(u32, u32)>,
    /// Per memory access (in order): the statement's step index and where
    /// each lane went.
    pub accesses: Vec<RecAccess>,
    /// Every value a load returned (`ld`, `ldu`, the old value of `atom`),
    /// per lane and element, in execution order.
    pub loads: Vec<u64>,
    /// Every value a `%clock`/`%clock64` read returned, in order.
    pub clocks: Vec<u64>,
}

/// One memory instruction's accesses.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecAccess {
    /// Index into [`RecWarp::steps`] of the instruction.
    pub step: u32,
    /// Lanes that accessed memory.
    pub lanes: u32,
    /// First byte of each lane of `lanes`, lowest lane first.
    pub addrs: Vec<u64>,
    /// Bytes each lane accessed.
    pub bytes: u32,
    /// The space the instruction named.
    pub space: RecSpace,
}

/// Declares [`RecSpace`] and both conversions from one list. It stays a
/// type of its own, not sim-isa's `Space`: a recording's tags are this
/// list's order (serde's variant index), which must not move when
/// sim-isa's enum gains or reorders a variant (a new space is appended here
/// knowingly).
macro_rules! rec_space {
    ($($v:ident),*) => {
        /// [`Space`], as recorded.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
        #[allow(missing_docs)]
        pub enum RecSpace {
            $($v),*
        }

        impl From<Space> for RecSpace {
            fn from(s: Space) -> RecSpace {
                match s {
                    $(Space::$v => RecSpace::$v),*
                }
            }
        }

        impl From<RecSpace> for Space {
            fn from(s: RecSpace) -> Space {
                match s {
                    $(RecSpace::$v => Space::$v),*
                }
            }
        }
    };
}
rec_space!(Generic, Global, Shared, Local, Param, Const);

impl RecAccess {
    fn new(step: u32, a: &Accesses) -> RecAccess {
        RecAccess {
            step,
            lanes: a.lanes,
            addrs: (0..WARP_SIZE)
                .filter(|l| a.lanes >> l & 1 == 1)
                .map(|l| a.addrs[l])
                .collect(),
            bytes: a.bytes,
            space: a.space.into(),
        }
    }

    /// The accesses as sim-isa states them.
    pub fn accesses(&self) -> Accesses {
        let mut addrs = [0u64; WARP_SIZE];
        let lanes = (0..WARP_SIZE).filter(|l| self.lanes >> l & 1 == 1);
        for (l, a) in lanes.zip(&self.addrs) {
            addrs[l] = *a;
        }
        Accesses {
            lanes: self.lanes,
            addrs,
            bytes: self.bytes,
            space: self.space.into(),
        }
    }
}

/// The recorded form of what one warp executed.
pub(crate) fn rec_warp(cta: u32, warp: u32, lanes: u32, l: crate::tap::Log) -> RecWarp {
    RecWarp {
        cta,
        warp,
        lanes,
        accesses: l
            .accesses
            .iter()
            .map(|(k, a)| RecAccess::new(*k, a))
            .collect(),
        steps: l.steps,
        loads: l.loads,
        clocks: l.clocks,
    }
}
