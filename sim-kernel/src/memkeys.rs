//! The memory figures as configuration keys: [`MemConfig`] built from its
//! preset and the `[memory]` keys of the configuration layers (parsed and
//! range-checked in `sim_core::config_file`, which cannot see this crate),
//! and each figure handed back with its source for `simcli config`.

use crate::memtime::MemConfig;
use sim_core::config_file::{self, ConfigLayer, MemoryOverrides, MemoryParam};
use sim_isa::Target;

/// A count that must fit a `u32` field; the key's range keeps it there,
/// and a larger one saturates rather than wraps.
fn narrow(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

impl MemConfig {
    /// The preset of `target` with what `layers` set in `[memory]`.
    pub fn configured(target: Target, layers: &[ConfigLayer]) -> MemConfig {
        let mut m = MemConfig::preset(target);
        m.apply(&config_file::memory(layers));
        m
    }

    /// Replaces each figure `o` sets.
    pub fn apply(&mut self, o: &MemoryOverrides) {
        let set64 = |dst: &mut u64, v: Option<u64>| *dst = v.unwrap_or(*dst);
        let set32 = |dst: &mut u32, v: Option<u64>| *dst = v.map_or(*dst, narrow);
        set32(&mut self.sms, o.sms);
        set32(&mut self.blocks_per_sm, o.blocks_per_sm);
        set32(&mut self.regs_per_sm, o.registers_per_sm);
        set32(&mut self.reg_unit, o.register_unit);
        set64(&mut self.l1_hit, o.l1_latency);
        set64(&mut self.l1_bytes, o.l1_bytes);
        set64(&mut self.l2_hit, o.l2_latency);
        set64(&mut self.l2_bytes, o.l2_bytes);
        set64(&mut self.dram, o.dram_latency);
        set64(&mut self.shared, o.shared_latency);
        set64(&mut self.smem_per_sm, o.shared_bytes_per_sm);
    }

    /// Every figure as its key, in `config_file::MEMORY_KEYS` order.
    pub fn keys(&self) -> [(&'static str, u64); 11] {
        let w = u64::from;
        [
            ("memory.sms", w(self.sms)),
            ("memory.blocks_per_sm", w(self.blocks_per_sm)),
            ("memory.registers_per_sm", w(self.regs_per_sm)),
            ("memory.register_unit", w(self.reg_unit)),
            ("memory.l1.latency", self.l1_hit),
            ("memory.l1.bytes", self.l1_bytes),
            ("memory.l2.latency", self.l2_hit),
            ("memory.l2.bytes", self.l2_bytes),
            ("memory.dram.latency", self.dram),
            ("memory.shared.latency", self.shared),
            ("memory.shared.bytes_per_sm", self.smem_per_sm),
        ]
    }

    /// The figures that differ from `target`'s preset, as `key=value`.
    pub fn overrides(&self, target: Target) -> Vec<String> {
        let base = MemConfig::preset(target).keys();
        self.keys()
            .iter()
            .zip(base)
            .filter(|(a, b)| **a != *b)
            .map(|((k, v), _)| format!("{k}={v}"))
            .collect()
    }

    /// Every figure with its source, for `config_file::memory_toml`.
    pub fn params(&self, target: Target) -> Vec<MemoryParam> {
        let base = MemConfig::preset(target).keys();
        self.keys()
            .iter()
            .zip(base)
            .map(|(&(key, value), (_, preset))| MemoryParam {
                key,
                value,
                source: if value == preset {
                    source(key, target)
                } else {
                    format!("custom (the {target} preset has {preset})")
                },
            })
            .collect()
    }
}

/// Where the preset's figure for `key` comes from (the comments of
/// [`MemConfig::preset`] and [`crate::memtime::gpu_sms`], shortened).
fn source(key: &str, target: Target) -> String {
    let cal = "calibration/h100/memory.json";
    let wp = "H100 whitepaper (2022)";
    let s = match key {
        "memory.sms" => {
            return match target.sm {
                90.. => format!("{wp}: H100 SXM5, 132 SMs (a launch's default --sms)"),
                53..=89 => "Tegra X1 whitepaper (2015): 2 SMMs".into(),
                35..=52 => "Tesla K40 specification (2013): 15 SMX".into(),
                30..=34 => "GTX 680 whitepaper (2012): 8 SMX".into(),
                _ => "GT200 technical brief (2008): GTX 280, 30 SMs".into(),
            };
        }
        "memory.blocks_per_sm" => format!("{wp}, compute capability 9.0: 32 resident blocks"),
        "memory.registers_per_sm" => format!("{wp}: 64K 32-bit registers per SM"),
        "memory.register_unit" => {
            "CUDA C++ Programming Guide, occupancy: per warp, 256 at a time".into()
        }
        "memory.l1.latency" => format!("H100 ld.global.ca pointer chase, L1 hit: 41.7 ({cal})"),
        "memory.l1.bytes" => format!("{wp}: 256 KiB L1/shared per SM"),
        "memory.l2.latency" => format!("H100 ld.global.cg pointer chase: 290.6-293.9 ({cal})"),
        "memory.l2.bytes" => format!("{wp}: 50 MiB"),
        "memory.dram.latency" => format!("H100 256 MiB first touch: about 670 ({cal})"),
        "memory.shared.latency" => format!("H100 dependent ld.shared: about 29 ({cal})"),
        "memory.shared.bytes_per_sm" => format!("{wp}: up to 228 KiB shared per SM"),
        _ => "assumed".into(),
    };
    if target.sm >= 90 {
        s
    } else {
        format!("{s}; the sm_90 figure, {target} not measured")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_the_configuration_order_and_apply() {
        let m = MemConfig::preset(Target::SM_90);
        let keys: Vec<&str> = m.keys().iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, config_file::MEMORY_KEYS);
        // Every key applied lands in its own field.
        for (i, k) in config_file::MEMORY_KEYS.iter().enumerate() {
            let set = ConfigLayer::parse_set(&format!("{k}=77")).unwrap();
            let c = MemConfig::configured(Target::SM_90, &[set]);
            for (j, (kk, v)) in c.keys().iter().enumerate() {
                assert_eq!(*v == 77, i == j, "{k} set, {kk} = {v}");
            }
            assert_eq!(c.overrides(Target::SM_90), vec![format!("{k}=77")]);
        }
    }

    #[test]
    fn printed_figures_read_back() {
        let set = ConfigLayer::parse_set("memory.l2.latency=600").unwrap();
        let m = MemConfig::configured(Target::SM_90, &[set]);
        let p = m.params(Target::SM_90);
        assert_eq!(p[6].source, "custom (the sm_90 preset has 291)");
        assert!(p[8].source.contains("670"), "{}", p[8].source);
        let text = config_file::memory_toml(&p);
        let back = ConfigLayer::parse(&text, "m.toml").unwrap();
        assert_eq!(MemConfig::configured(Target::SM_90, &[back]), m, "{text}");
    }
}
