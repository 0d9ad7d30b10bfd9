//! Which CUDA error a failed launch is, and whether it is the kernel's own
//! fault (sticky: every later call fails with it, as a GPU's context does)
//! or a launch refused before it ran.

use crate::err;
use sim_kernel::device::DeviceError;
use sim_kernel::KernelError;

/// The kernel error inside a device error, if it is one.
fn kernel(e: &DeviceError) -> Option<&KernelError> {
    match e {
        DeviceError::Kernel(k) => Some(k.as_ref()),
        _ => None,
    }
}

/// The code of a failed launch.
pub fn launch_code(e: &DeviceError) -> i32 {
    let Some(k) = kernel(e) else {
        return match e {
            DeviceError::Config { .. } => err::INVALID_CONFIGURATION,
            DeviceError::OutOfMemory { .. } => err::MEMORY_ALLOCATION,
            _ => err::INVALID_VALUE,
        };
    };
    match k {
        KernelError::Fault { .. } => err::ILLEGAL_ADDRESS,
        KernelError::Assert { .. } => err::ASSERT,
        // A call through a bad function pointer: the GPU's code is not
        // known here (no GPU ran it), so the launch's failure.
        KernelError::Trap { .. }
        | KernelError::BadFree { .. }
        | KernelError::CallDepth { .. }
        | KernelError::BadCallTarget { .. }
        | KernelError::Deadlock { .. }
        | KernelError::Timing(_)
        | KernelError::MachineCode(_) => err::LAUNCH_FAILURE,
        KernelError::InstructionLimit { .. } => err::LAUNCH_TIMEOUT,
        KernelError::NoEntry { .. } => err::INVALID_DEVICE_FUNCTION,
        KernelError::ParamCount { .. } | KernelError::ParamType { .. } => err::INVALID_VALUE,
        KernelError::Unsupported { .. } | KernelError::Refused { .. } => err::NOT_SUPPORTED,
        KernelError::Limit(_) | KernelError::Declaration { .. } => err::LAUNCH_OUT_OF_RESOURCES,
    }
}

/// Whether the launch ran and failed on its own (sticky).
pub fn is_fault(e: &DeviceError) -> bool {
    matches!(
        launch_code(e),
        err::ILLEGAL_ADDRESS | err::ASSERT | err::LAUNCH_FAILURE | err::LAUNCH_TIMEOUT
    )
}
