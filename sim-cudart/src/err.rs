//! The `cudaError_t` codes the runtime returns (their values: CUDA 13's
//! `driver_types.h`, which `gen::errors` lists; a test holds each here to
//! it), and the strings `cudaGetErrorString` gives.

use crate::gen::errors::ERRORS;

/// A failed call: the CUDA error code, and what to print on standard error
/// (the precise reason a bare code cannot carry).
#[derive(Clone, Debug, PartialEq)]
pub struct Fail {
    /// `cudaError_t`.
    pub code: i32,
    /// Printed once, as `ptx-sm-sim: ...`.
    pub message: Option<String>,
}

impl Fail {
    /// A code alone.
    pub fn code(code: i32) -> Fail {
        Fail {
            code,
            message: None,
        }
    }

    /// A code with its reason.
    pub fn said(code: i32, message: impl Into<String>) -> Fail {
        Fail {
            code,
            message: Some(message.into()),
        }
    }
}

/// What an entry point returns.
pub type Res<T> = Result<T, Fail>;

/// `cudaSuccess`.
pub const SUCCESS: i32 = 0;
/// `cudaErrorInvalidValue`.
pub const INVALID_VALUE: i32 = 1;
/// `cudaErrorMemoryAllocation`.
pub const MEMORY_ALLOCATION: i32 = 2;
/// `cudaErrorInitializationError`.
pub const INITIALIZATION: i32 = 3;
/// `cudaErrorInvalidConfiguration`.
pub const INVALID_CONFIGURATION: i32 = 9;
/// `cudaErrorInvalidSymbol`.
pub const INVALID_SYMBOL: i32 = 13;
/// `cudaErrorInvalidMemcpyDirection`.
pub const INVALID_MEMCPY_DIRECTION: i32 = 21;
/// `cudaErrorInvalidDeviceFunction`.
pub const INVALID_DEVICE_FUNCTION: i32 = 98;
/// `cudaErrorInvalidDevice`.
pub const INVALID_DEVICE: i32 = 101;
/// `cudaErrorNoKernelImageForDevice`.
pub const NO_KERNEL_IMAGE: i32 = 209;
/// `cudaErrorInvalidPtx`.
pub const INVALID_PTX: i32 = 218;
/// `cudaErrorInvalidResourceHandle`.
pub const INVALID_RESOURCE_HANDLE: i32 = 400;
/// `cudaErrorIllegalAddress`.
pub const ILLEGAL_ADDRESS: i32 = 700;
/// `cudaErrorLaunchOutOfResources`.
pub const LAUNCH_OUT_OF_RESOURCES: i32 = 701;
/// `cudaErrorLaunchTimeout`.
pub const LAUNCH_TIMEOUT: i32 = 702;
/// `cudaErrorAssert`.
pub const ASSERT: i32 = 710;
/// `cudaErrorLaunchFailure`.
pub const LAUNCH_FAILURE: i32 = 719;
/// `cudaErrorCooperativeLaunchTooLarge`.
pub const COOPERATIVE_LAUNCH_TOO_LARGE: i32 = 720;
/// `cudaErrorNotSupported`.
pub const NOT_SUPPORTED: i32 = 801;
/// `cudaErrorIllegalState`.
pub const ILLEGAL_STATE: i32 = 401;
/// `cudaErrorStreamCaptureUnsupported`.
pub const STREAM_CAPTURE_UNSUPPORTED: i32 = 900;
/// `cudaErrorStreamCaptureInvalidated`.
pub const STREAM_CAPTURE_INVALIDATED: i32 = 901;
/// `cudaErrorStreamCaptureUnmatched`.
pub const STREAM_CAPTURE_UNMATCHED: i32 = 903;
/// `cudaErrorGraphExecUpdateFailure`.
pub const GRAPH_EXEC_UPDATE_FAILURE: i32 = 910;
/// `cudaErrorUnknown`.
pub const UNKNOWN: i32 = 999;

/// `cudaGetErrorName`.
pub fn name(code: i32) -> &'static str {
    ERRORS
        .iter()
        .find(|(c, _)| *c == code)
        .map_or("cudaErrorUnknown", |(_, n)| n)
}

/// `cudaGetErrorString`: the description NVIDIA's runtime gives for the
/// common codes (as CUDA programs print them), else the name.
pub fn describe(code: i32) -> &'static str {
    match code {
        SUCCESS => "no error",
        INVALID_VALUE => "invalid argument",
        MEMORY_ALLOCATION => "out of memory",
        INITIALIZATION => "initialization error",
        INVALID_CONFIGURATION => "invalid configuration argument",
        INVALID_SYMBOL => "invalid device symbol",
        INVALID_MEMCPY_DIRECTION => "invalid copy direction for memcpy",
        INVALID_DEVICE_FUNCTION => "invalid device function",
        INVALID_DEVICE => "invalid device ordinal",
        NO_KERNEL_IMAGE => "no kernel image is available for execution on the device",
        INVALID_PTX => "a PTX JIT compilation failed",
        INVALID_RESOURCE_HANDLE => "invalid resource handle",
        ILLEGAL_ADDRESS => "an illegal memory access was encountered",
        LAUNCH_OUT_OF_RESOURCES => "too many resources requested for launch",
        LAUNCH_TIMEOUT => "the launch timed out and was terminated",
        LAUNCH_FAILURE => "unspecified launch failure",
        ASSERT => "device-side assert triggered",
        COOPERATIVE_LAUNCH_TOO_LARGE => "too many blocks in cooperative launch",
        NOT_SUPPORTED => "operation not supported",
        UNKNOWN => "unknown error",
        _ => name(code),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_cudas() {
        for (code, want) in [
            (SUCCESS, "cudaSuccess"),
            (INVALID_VALUE, "cudaErrorInvalidValue"),
            (MEMORY_ALLOCATION, "cudaErrorMemoryAllocation"),
            (INITIALIZATION, "cudaErrorInitializationError"),
            (INVALID_CONFIGURATION, "cudaErrorInvalidConfiguration"),
            (INVALID_SYMBOL, "cudaErrorInvalidSymbol"),
            (INVALID_MEMCPY_DIRECTION, "cudaErrorInvalidMemcpyDirection"),
            (INVALID_DEVICE_FUNCTION, "cudaErrorInvalidDeviceFunction"),
            (INVALID_DEVICE, "cudaErrorInvalidDevice"),
            (NO_KERNEL_IMAGE, "cudaErrorNoKernelImageForDevice"),
            (INVALID_PTX, "cudaErrorInvalidPtx"),
            (INVALID_RESOURCE_HANDLE, "cudaErrorInvalidResourceHandle"),
            (ILLEGAL_ADDRESS, "cudaErrorIllegalAddress"),
            (LAUNCH_OUT_OF_RESOURCES, "cudaErrorLaunchOutOfResources"),
            (ASSERT, "cudaErrorAssert"),
            (LAUNCH_TIMEOUT, "cudaErrorLaunchTimeout"),
            (LAUNCH_FAILURE, "cudaErrorLaunchFailure"),
            (
                COOPERATIVE_LAUNCH_TOO_LARGE,
                "cudaErrorCooperativeLaunchTooLarge",
            ),
            (NOT_SUPPORTED, "cudaErrorNotSupported"),
            (ILLEGAL_STATE, "cudaErrorIllegalState"),
            (
                STREAM_CAPTURE_UNSUPPORTED,
                "cudaErrorStreamCaptureUnsupported",
            ),
            (
                STREAM_CAPTURE_INVALIDATED,
                "cudaErrorStreamCaptureInvalidated",
            ),
            (STREAM_CAPTURE_UNMATCHED, "cudaErrorStreamCaptureUnmatched"),
            (GRAPH_EXEC_UPDATE_FAILURE, "cudaErrorGraphExecUpdateFailure"),
            (UNKNOWN, "cudaErrorUnknown"),
        ] {
            assert_eq!(name(code), want, "code {code}");
        }
    }
}
