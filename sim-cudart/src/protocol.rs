//! What `simcli exec` and the runtime a program loads tell each other: the
//! settings (a JSON file named by [`SETTINGS_ENV`]) and one report row per
//! launch (JSON lines appended to the file the settings name).

use serde::{Deserialize, Serialize};

/// The environment variable naming the settings file.
pub const SETTINGS_ENV: &str = "PTX_SM_SIM_EXEC";

/// The largest settings file read (it holds a configuration file's text).
pub const MAX_SETTINGS_BYTES: u64 = 4 << 20;

/// How the program's kernels are simulated: `simcli run`'s options.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// `--arch`, e.g. `sm_90` (default `sm_90`).
    pub arch: Option<String>,
    /// `--config`: the file's name and text.
    pub config: Option<(String, String)>,
    /// `--set key=value`, in order.
    pub sets: Vec<String>,
    /// `--scheduler` (`lrr`, `gto`, `oldest`).
    pub scheduler: Option<String>,
    /// `--max-cycles`.
    pub max_cycles: Option<u64>,
    /// `--max-instructions`.
    pub max_instructions: Option<u64>,
    /// `--sms` (default: the target's whole GPU).
    pub sms: Option<u32>,
    /// `--threads` (default: the cores this process may use).
    pub threads: Option<usize>,
    /// `--sample`.
    pub sample: bool,
    /// Where each launch's [`LaunchRow`] is appended (none: not reported).
    pub report: Option<std::path::PathBuf>,
    /// `--save-launches DIR`: each launch written as a launch file there.
    #[serde(default)]
    pub save_launches: Option<std::path::PathBuf>,
}

/// One launch as the runtime ran it. (Its fields are alike in shape to
/// other report structs, `save::Saving` among them; each is its own format.)
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LaunchRow {
    /// Launches before it in this program.
    pub index: u64,
    /// The kernel's PTX name.
    pub kernel: String,
    /// Blocks, x/y/z.
    pub grid: [u32; 3],
    /// Threads a block, x/y/z.
    pub block: [u32; 3],
    /// Dynamic shared memory a block, bytes.
    pub dynamic_shared: u32,
    /// SMs simulated.
    pub sms: u32,
    /// Warps launched.
    pub warps: u64,
    /// Warp-instructions executed.
    pub instructions: u64,
    /// Cycles, from the launch's first issue to its last warp's retirement.
    pub cycles: u64,
    /// Simulated device time when the launch started, in cycles.
    pub start_cycle: u64,
    /// The SM model's statistics (`--sample`: the timed SMs').
    pub stats: sim_core::Stats,
    /// `--sample`'s estimate, if the launch was sampled.
    pub sampled: Option<serde_json::Value>,
    /// The kernel's fault, if it faulted (then nothing later runs).
    pub error: Option<String>,
}

impl Settings {
    /// The simulation's options, as `simcli run` builds them for a launch
    /// file: `--arch` (default `sm_90`) and every configuration layer, the
    /// whole GPU unless `--sms` says otherwise.
    pub fn run_options(&self) -> Result<sim_kernel::RunOptions, String> {
        use sim_core::config_file::{self, ConfigLayer};
        use sim_core::SchedPolicy;
        let arch = self.arch.as_deref().unwrap_or("sm_90");
        let target = sim_isa::Target::parse(arch).map_err(|e| format!("--arch {arch}: {e}"))?;
        let mut layers = Vec::new();
        if let Some((name, text)) = &self.config {
            layers.push(ConfigLayer::parse(text, name).map_err(|e| e.to_string())?);
        }
        for s in &self.sets {
            layers.push(ConfigLayer::parse_set(s).map_err(|e| format!("--set {s}: {e}"))?);
        }
        let (mut config, mut policy) = config_file::build(&layers, target, SchedPolicy::Lrr);
        if let Some(s) = &self.scheduler {
            policy = SchedPolicy::parse(s)
                .ok_or_else(|| format!("--scheduler {s}: not lrr, gto or oldest"))?;
        }
        if let Some(n) = self.max_cycles {
            config.limits.max_cycles = n;
        }
        if let Some(n) = self.max_instructions {
            config.limits.max_instructions = n;
        }
        let memory = sim_kernel::MemConfig::configured(config.target, &layers);
        let sms = self.sms.unwrap_or(memory.sms);
        if sms == 0 {
            return Err("--sms: at least 1".into());
        }
        let mut opts = sim_kernel::RunOptions::new(config, policy, sms);
        opts.memory = memory;
        if let Some(n) = self.max_instructions {
            opts.max_instructions = n;
        }
        opts.threads = self
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .max(1);
        opts.sample = self.sample;
        Ok(opts)
    }

    /// Reads the settings `simcli exec` left in [`SETTINGS_ENV`], or the
    /// defaults when the program runs with this runtime by itself.
    pub fn from_env() -> Result<Settings, String> {
        let Some(path) = std::env::var_os(SETTINGS_ENV) else {
            return Ok(Settings::default());
        };
        let shown = std::path::Path::new(&path).display().to_string();
        let bytes = sim_isa::bounded::read_file(std::path::Path::new(&path), MAX_SETTINGS_BYTES)
            .map_err(|e| format!("{SETTINGS_ENV}={shown}: {e}"))?;
        serde_json::from_slice(&bytes).map_err(|e| format!("{SETTINGS_ENV}={shown}: {e}"))
    }
}
