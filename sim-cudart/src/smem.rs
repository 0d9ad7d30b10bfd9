//! How much dynamic shared memory a launch may ask for, as on a GPU: a
//! block gets 48 KiB of shared memory in all (static and dynamic) unless
//! the program opts the kernel in to more with
//! `cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, n)`,
//! up to the device's opt-in maximum less the kernel's static shared
//! memory (`sharedMemPerBlockOptin`: 227 KiB on sm_90). A launch over its
//! kernel's limit fails with `cudaErrorInvalidValue` (CUDA C++ Programming
//! Guide, "Shared Memory" and the compute capability tables; the
//! runtime API's `cudaFuncSetAttribute`).

use crate::props::SHARED_PER_BLOCK;
use std::collections::HashMap;

/// Why a setting or a launch is refused: `cudaErrorInvalidValue` with this
/// message (the caller makes it a `Fail`; this file stays below the
/// runtime's).
pub type Refused = String;

/// The limits the program raised, by kernel stub.
#[derive(Debug, Default)]
pub struct SharedLimits {
    raised: HashMap<u64, u64>,
}

impl SharedLimits {
    /// The dynamic shared memory a launch of the kernel at `stub` may ask
    /// for: what the program set, else what 48 KiB leaves beside its
    /// static shared memory.
    pub fn max_dynamic(&self, stub: u64, static_shared: u64) -> u64 {
        self.raised
            .get(&stub)
            .copied()
            .unwrap_or_else(|| SHARED_PER_BLOCK.saturating_sub(static_shared))
    }

    /// `cudaFuncAttributeMaxDynamicSharedMemorySize` set to `value`:
    /// refused when negative or when, beside the kernel's static shared
    /// memory, it passes the opt-in maximum (`optin`).
    pub fn set(
        &mut self,
        stub: u64,
        value: i32,
        static_shared: u64,
        optin: u64,
    ) -> Result<(), Refused> {
        let Ok(v) = u64::try_from(value) else {
            return Err(format!(
                "cudaFuncSetAttribute: a negative maximum dynamic shared memory ({value})"
            ));
        };
        if v.saturating_add(static_shared) > optin {
            return Err(format!(
                "cudaFuncSetAttribute: {v} bytes of dynamic shared memory beside {static_shared} \
                 static pass the device's opt-in maximum of {optin} a block"
            ));
        }
        self.raised.insert(stub, v);
        Ok(())
    }

    /// Refuses a launch of `kernel` (at `stub`) asking for more dynamic
    /// shared memory than its limit.
    pub fn check(
        &self,
        stub: u64,
        kernel: &str,
        dynamic: u64,
        static_shared: u64,
    ) -> Result<(), Refused> {
        let max = self.max_dynamic(stub, static_shared);
        if dynamic <= max {
            return Ok(());
        }
        let how = if self.raised.contains_key(&stub) {
            "the maximum cudaFuncSetAttribute set"
        } else {
            "the 48 KiB a block gets without opting in with cudaFuncSetAttribute(..., \
             cudaFuncAttributeMaxDynamicSharedMemorySize, ...)"
        };
        Err(format!(
            "launch of {kernel}: {dynamic} bytes of dynamic shared memory pass {max}, {how}"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forty_eight_kib_without_opt_in_then_up_to_the_opt_in_maximum() {
        let mut l = SharedLimits::default();
        let optin = 227 * 1024;
        // 48 KiB in all, static included.
        assert!(l.check(1, "k", 48 * 1024, 0).is_ok());
        assert!(l
            .check(1, "k", 48 * 1024 + 1, 0)
            .unwrap_err()
            .contains("49153 bytes of dynamic shared memory pass 49152"));
        assert!(l.check(2, "k", 48 * 1024 - 1024, 1024).is_ok());
        assert!(l.check(2, "k", 48 * 1024 - 1023, 1024).is_err());
        // Opting in raises it for that kernel only.
        l.set(1, 100 * 1024, 0, optin).unwrap();
        assert!(l.check(1, "k", 100 * 1024, 0).is_ok());
        assert!(l.check(1, "k", 100 * 1024 + 1, 0).is_err());
        assert!(l.check(3, "k", 49 * 1024, 0).is_err());
        // Not past the device's opt-in maximum, static included.
        assert!(l.set(1, optin as i32, 0, optin).is_ok());
        assert!(l.set(1, optin as i32, 4, optin).is_err());
        assert!(l.set(1, -1, 0, optin).is_err());
    }
}
