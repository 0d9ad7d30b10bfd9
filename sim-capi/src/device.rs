//! The device behind a `PssDevice` handle, in safe Rust: a
//! `sim_kernel::Device` (memory and modules that persist across launches)
//! with the handle's one-call-at-a-time flag, and the launch report.

use crate::guard::{Guarded, Held};
use crate::handle::Res;
use crate::types::{PssLaunchReport, PssStats};
use sim_core::config_file::{self, ConfigLayer};
use sim_core::{SchedPolicy, SmConfig};
use sim_kernel::{Device, Launched, ModuleId, RunOptions};

/// A simulated GPU (opaque to C): memory and modules that persist across
/// launches.
///
/// Preconditions as for `PssSim`: a handle is valid from `pss_device_new`
/// or `pss_device_from_config` until `pss_device_free`; one call at a time
/// (a second, from another thread, is refused with its failure value);
/// buffers passed are valid for the lengths given.
pub struct PssDevice(Guarded<DeviceState>);

/// The device and what its last launch printed.
pub(crate) struct DeviceState {
    /// The simulated GPU.
    pub device: Device,
    /// The last launch's device `printf` output.
    pub printf: Vec<u8>,
}

/// Exclusive use of a device for one call; clears the flag when dropped.
pub(crate) type DeviceBusy<'a> = Held<'a, DeviceState>;

impl PssDevice {
    /// The device for one call, or an error while another is in progress.
    pub(crate) fn enter(&self) -> Res<DeviceBusy<'_>> {
        self.0.enter(
            "the device is in use: a call on it is in progress (two threads may not use it at once)",
        )
    }
}

/// A device of `config` with `sms` SMs (0: the target's whole GPU, as
/// `simcli run` runs a launch file) on every host core.
fn device(config: SmConfig, policy: SchedPolicy, sms: u32) -> Res<PssDevice> {
    config_file::check(&config)?;
    let sms = match sms {
        0 => sim_kernel::MemConfig::preset(config.target).sms,
        n => n,
    };
    config_file::check_sms(u64::from(sms))?;
    let mut opts = RunOptions::new(config, policy, sms);
    // Results are the same for any number of host threads.
    opts.threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    Ok(PssDevice(Guarded::new(DeviceState {
        device: Device::new(opts),
        printf: Vec::new(),
    })))
}

/// A device of preset `arch`.
pub(crate) fn new(arch: &str, sms: u32) -> Res<PssDevice> {
    let target = sim_isa::Target::parse(arch).map_err(|e| e.to_string())?;
    device(sim_core::preset(target), SchedPolicy::Lrr, sms)
}

/// A device configured by the TOML file at `path` (its `target`,
/// parameters and scheduler).
pub(crate) fn from_config(path: &str, sms: u32) -> Res<PssDevice> {
    let text = sim_isa::bounded::read_file_string(
        std::path::Path::new(path),
        config_file::MAX_CONFIG_BYTES,
    )
    .map_err(|e| e.to_string())?;
    let layer = ConfigLayer::parse(&text, path).map_err(|e| e.to_string())?;
    let target = layer
        .target()
        .ok_or_else(|| format!("{path}: no `target` (e.g. target = \"sm_90\")"))?;
    let (config, policy) = config_file::build(&[layer], target, SchedPolicy::Lrr);
    device(config, policy, sms)
}

/// A module id from C.
pub(crate) fn module(m: u32) -> ModuleId {
    ModuleId(m as usize)
}

/// The report of a launch as C sees it.
pub(crate) fn report(l: &Launched) -> PssLaunchReport {
    let st = &l.timed.stats;
    PssLaunchReport {
        cycles: l.timed.cycles,
        warps: l.warps,
        instructions: l.instructions,
        sms_used: l.timed.sms_used,
        printf_bytes: l.printf.len() as u64,
        printf_dropped: l.printf_dropped,
        stats: PssStats::of(st, st.ipc()),
    }
}
