//! sim-cudart: a CUDA runtime of our own. Built as `libsim_cudart.so`
//! with the soname `libcudart.so.13` and every function NVIDIA's
//! libcudart.so.13 exports under its version tag (`build.rs`), it stands
//! in for NVIDIA's library when a program built with `nvcc -cudart shared`
//! runs under `simcli exec`: the program's kernels run on the simulator.
//! The package `sim-cudart12` builds this same source as
//! `libsim_cudart12.so`, soname `libcudart.so.12`, for CUDA 12 programs
//! ([`cuda12`]).
//!
//! - `abi`, `abi_device`, `abi_more`, `abi_graph`, `abi_graph_exec`,
//!   `abi_launch`: the C entry points (the only unsafe code, with
//!   `host`'s allocations);
//! - [`runtime`]: the state and each operation, in safe code (`coop`:
//!   cooperative launches);
//! - [`fatbin`]: the PTX of a registered fatbinary (`sim-fatbin`);
//! - [`graph`]: CUDA graphs and stream capture, replayed in order;
//! - [`props`]: the simulated device's figures;
//! - [`cuda12`]: what differs when the same code is `libcudart.so.12`;
//! - [`protocol`]: the settings and report rows `simcli exec` exchanges
//!   with the runtime.
//!
//! Launches are synchronous: each runs to its end on the simulator when the
//! program makes it. Device memory is the simulator's (`sim_kernel::device`);
//! host memory from `cudaMallocHost`/`cudaHostAlloc`/`cudaMallocManaged` is
//! real host memory that kernels reach at the same address.

// Library code states its invariants instead of unwrapping.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

mod abi;
mod abi_device;
mod abi_graph;
mod abi_graph_exec;
mod abi_launch;
mod abi_more;
mod classify;
mod coop;
pub mod cuda12;
mod err;
pub mod fatbin;
mod gen;
pub mod graph;
mod host;
pub mod props;
pub mod protocol;
pub mod runtime;
mod save;
mod smem;

pub use protocol::{LaunchRow, Settings, SETTINGS_ENV};
