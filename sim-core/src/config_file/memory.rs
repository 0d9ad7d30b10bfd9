//! The `[memory]` table of a configuration: the memory hierarchy's figures
//! (latencies, capacities, residency limits) as plain data.
//!
//! The memory model itself lives in sim-kernel (`MemConfig`), which depends
//! on sim-core; sim-core only parses and range-checks the keys, so the
//! arrow keeps pointing one way. sim-kernel builds its `MemConfig` from the
//! preset and then [`MemoryOverrides`] (what the layers set, the last
//! layer winning), and hands back its values with their sources for
//! [`memory_toml`] to print.
//!
//! Keys: `memory.sms`, `memory.blocks_per_sm`, `memory.registers_per_sm`,
//! `memory.register_unit`, `memory.l1.latency`, `memory.l1.bytes`,
//! `memory.l2.latency`, `memory.l2.bytes`, `memory.dram.latency`,
//! `memory.shared.latency`, `memory.shared.bytes_per_sm`.

use super::KeyRange;
use serde::Deserialize;
use std::fmt::Write;

/// A cache level's keys.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
struct CacheLayer {
    latency: Option<u64>,
    bytes: Option<u64>,
}

/// DRAM's one key.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
struct DramLayer {
    latency: Option<u64>,
}

/// Shared memory's keys.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
struct SharedLayer {
    latency: Option<u64>,
    bytes_per_sm: Option<u64>,
}

/// The `[memory]` table as written: only the keys present.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub(super) struct MemoryDoc {
    sms: Option<u64>,
    blocks_per_sm: Option<u64>,
    registers_per_sm: Option<u64>,
    register_unit: Option<u64>,
    l1: Option<CacheLayer>,
    l2: Option<CacheLayer>,
    dram: Option<DramLayer>,
    shared: Option<SharedLayer>,
}

/// The memory figures a layer (or several, merged) sets; `None` keeps the
/// value below it. Field names are the keys with `memory.` dropped and
/// dots as underscores.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryOverrides {
    /// `memory.sms`: SMs of the whole GPU (a launch's default `--sms`).
    pub sms: Option<u64>,
    /// `memory.blocks_per_sm`: most blocks resident on one SM.
    pub blocks_per_sm: Option<u64>,
    /// `memory.registers_per_sm`: 32-bit registers of one SM.
    pub registers_per_sm: Option<u64>,
    /// `memory.register_unit`: a warp's registers are allocated in units
    /// of this many.
    pub register_unit: Option<u64>,
    /// `memory.l1.latency`: dependent-load latency of an L1 hit, cycles.
    pub l1_latency: Option<u64>,
    /// `memory.l1.bytes`: L1 capacity per SM.
    pub l1_bytes: Option<u64>,
    /// `memory.l2.latency`: of an L2 hit.
    pub l2_latency: Option<u64>,
    /// `memory.l2.bytes`: L2 capacity.
    pub l2_bytes: Option<u64>,
    /// `memory.dram.latency`: of a DRAM access.
    pub dram_latency: Option<u64>,
    /// `memory.shared.latency`: of a conflict-free shared load.
    pub shared_latency: Option<u64>,
    /// `memory.shared.bytes_per_sm`: shared memory one SM gives its blocks.
    pub shared_bytes_per_sm: Option<u64>,
}

/// Every memory key, in the order [`memory_toml`] prints them.
pub const MEMORY_KEYS: [&str; 11] = [
    "memory.sms",
    "memory.blocks_per_sm",
    "memory.registers_per_sm",
    "memory.register_unit",
    "memory.l1.latency",
    "memory.l1.bytes",
    "memory.l2.latency",
    "memory.l2.bytes",
    "memory.dram.latency",
    "memory.shared.latency",
    "memory.shared.bytes_per_sm",
];

/// Memory latencies: the longest measured (DRAM on the H100) is 670 cycles.
const LATENCY: KeyRange = KeyRange::new(0, 1 << 20);

/// The range of memory key `key`; `None` for a key that is not one.
pub fn memory_range(key: &str) -> Option<KeyRange> {
    Some(match key {
        "memory.sms" => KeyRange::new(1, super::MAX_SMS as u64),
        // Hardware: 8 (Kepler) to 32 (Hopper).
        "memory.blocks_per_sm" => KeyRange::new(1, 1024),
        // Hardware: 64K registers per SM since Kepler.
        "memory.registers_per_sm" => KeyRange::new(1, 1 << 24),
        "memory.register_unit" => KeyRange::new(1, 1 << 16),
        "memory.l1.latency"
        | "memory.l2.latency"
        | "memory.dram.latency"
        | "memory.shared.latency" => LATENCY,
        // Below a line (128 bytes): no L1. Hardware: 256 KiB (H100).
        "memory.l1.bytes" => KeyRange::new(0, 1 << 32),
        // Hardware: 50 MiB (H100); the model tracks sectors it holds.
        "memory.l2.bytes" => KeyRange::new(0, 1 << 40),
        // Hardware: 228 KiB (H100).
        "memory.shared.bytes_per_sm" => KeyRange::new(0, 1 << 32),
        _ => return None,
    })
}

impl MemoryOverrides {
    /// The overrides of a parsed `[memory]` table.
    pub(super) fn of(d: &MemoryDoc) -> MemoryOverrides {
        let l1 = d.l1.clone().unwrap_or_default();
        let l2 = d.l2.clone().unwrap_or_default();
        let shared = d.shared.clone().unwrap_or_default();
        MemoryOverrides {
            sms: d.sms,
            blocks_per_sm: d.blocks_per_sm,
            registers_per_sm: d.registers_per_sm,
            register_unit: d.register_unit,
            l1_latency: l1.latency,
            l1_bytes: l1.bytes,
            l2_latency: l2.latency,
            l2_bytes: l2.bytes,
            dram_latency: d.dram.as_ref().and_then(|x| x.latency),
            shared_latency: shared.latency,
            shared_bytes_per_sm: shared.bytes_per_sm,
        }
    }

    /// Each key set, with its value, in [`MEMORY_KEYS`] order.
    pub fn entries(&self) -> Vec<(&'static str, u64)> {
        let all = [
            self.sms,
            self.blocks_per_sm,
            self.registers_per_sm,
            self.register_unit,
            self.l1_latency,
            self.l1_bytes,
            self.l2_latency,
            self.l2_bytes,
            self.dram_latency,
            self.shared_latency,
            self.shared_bytes_per_sm,
        ];
        MEMORY_KEYS
            .iter()
            .zip(all)
            .filter_map(|(k, v)| v.map(|v| (*k, v)))
            .collect()
    }

    /// `self` with what `over` sets replacing it.
    pub fn then(self, over: &MemoryOverrides) -> MemoryOverrides {
        macro_rules! pick {
            ($($f:ident),*) => {
                MemoryOverrides { $($f: over.$f.or(self.$f)),* }
            };
        }
        pick!(
            sms,
            blocks_per_sm,
            registers_per_sm,
            register_unit,
            l1_latency,
            l1_bytes,
            l2_latency,
            l2_bytes,
            dram_latency,
            shared_latency,
            shared_bytes_per_sm
        )
    }
}

/// What `layers` set of the memory keys, in order (the last layer naming a
/// key wins).
pub fn memory(layers: &[super::ConfigLayer]) -> MemoryOverrides {
    layers
        .iter()
        .fold(MemoryOverrides::default(), |m, l| m.then(&l.memory))
}

/// One memory figure for [`memory_toml`]: its key, value, and source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryParam {
    /// A key of [`MEMORY_KEYS`].
    pub key: &'static str,
    /// Its value.
    pub value: u64,
    /// Where the value comes from (the preset's reference, or `custom`).
    pub source: String,
}

/// The `[memory]` tables as TOML, each key with its source as a comment;
/// appended to [`super::to_toml`]'s document it reads back
/// ([`super::ConfigLayer::parse`]) to the same figures.
pub fn memory_toml(params: &[MemoryParam]) -> String {
    let mut o = String::from(
        "\n# Memory hierarchy (simcli run LAUNCH.json, simcli exec): latencies in cycles, sizes in bytes.\n[memory]\n",
    );
    let mut table = "memory";
    for p in params {
        let (t, leaf) = p.key.rsplit_once('.').unwrap_or(("memory", p.key));
        if t != table {
            let _ = writeln!(o, "[{t}]");
            table = t;
        }
        let text = format!("{leaf} = {}", p.value);
        let _ = writeln!(o, "{text:<32}# {}", p.source);
    }
    o
}

#[cfg(test)]
mod tests {
    use super::super::ConfigLayer;
    use super::*;

    #[test]
    fn memory_keys_parse_merge_and_check_ranges() {
        let f = ConfigLayer::parse(
            "[memory]\nsms = 8\n[memory.l2]\nlatency = 600\nbytes = 1024\n",
            "f.toml",
        )
        .unwrap();
        let s = ConfigLayer::parse_set("memory.l2.latency=700").unwrap();
        let m = memory(&[f, s]);
        assert_eq!(
            m.entries(),
            vec![
                ("memory.sms", 8),
                ("memory.l2.latency", 700),
                ("memory.l2.bytes", 1024)
            ]
        );
        let e = ConfigLayer::parse_set("memory.l2.latncy=600").unwrap_err();
        assert_eq!(e.key, "memory.l2.latncy");
        assert!(e.message.contains("unknown field `latncy`"), "{e}");
        let e = ConfigLayer::parse("[memory.dram]\nbytes = 4\n", "f.toml").unwrap_err();
        assert_eq!((e.line, e.key.as_str()), (2, "memory.dram.bytes"), "{e}");
        let e = ConfigLayer::parse("[memory]\nsms = 0\n", "f.toml").unwrap_err();
        assert_eq!(
            e.to_string(),
            "f.toml:2: memory.sms: 0 is out of range: 1 to 4096"
        );
        for k in MEMORY_KEYS {
            assert!(memory_range(k).is_some(), "{k}");
        }
    }

    #[test]
    fn printed_memory_reads_back() {
        let params: Vec<MemoryParam> = MEMORY_KEYS
            .iter()
            .enumerate()
            .map(|(i, k)| MemoryParam {
                key: k,
                value: 10 + i as u64,
                source: "test".into(),
            })
            .collect();
        let text = memory_toml(&params);
        let l = ConfigLayer::parse(&text, "m.toml").unwrap();
        let got = memory(&[l]).entries();
        let want: Vec<(&str, u64)> = params.iter().map(|p| (p.key, p.value)).collect();
        assert_eq!(got, want, "{text}");
    }
}
