//! SM configurations as TOML: [`to_toml`] prints every parameter with the
//! source of its value as a comment, and [`ConfigLayer`] reads a file or a
//! `KEY=VALUE` override back, with errors that name the key and its line.
//!
//! A configuration is built in layers over a preset: the file's `target`
//! (else the caller's) picks [`crate::preset`], then the file's keys and then
//! each override replace what they name. A file may hold every key (as
//! [`to_toml`] prints it, so a printed preset reads back identical) or only
//! the ones it changes.
//!
//! Keys: `target`, `base`, `scheduler`, `resident_warps`, `schedulers`,
//! `issue_width`, `issue_interval`, `lowering`, `taken_branch_cycles`,
//! `units.<class>.lanes_per_sm`, `units.<class>.latency` (classes as
//! [`UnitClass::name`]), `icache.bytes`, `icache.line_bytes`,
//! `icache.inst_bytes`, `icache.miss_cycles`, `limits.max_cycles`,
//! `limits.max_instructions`, and the `[memory]` keys ([`MEMORY_KEYS`],
//! `memory.rs`). Each numeric key has a range ([`range`], [`memory_range`]),
//! checked where the value is written and again by the model ([`check`]).

use crate::config::{Limits, LoweringArch, Preset, SchedPolicy, SmConfig, UnitClass, UnitConfig};
use serde::Deserialize;
use sim_isa::Target;
use std::fmt::Write;
use toml::Spanned;

mod memory;
mod ranges;
pub use memory::{memory, memory_range, memory_toml, MemoryOverrides, MemoryParam, MEMORY_KEYS};
pub use ranges::{check, check_counts, check_sms, range, KeyRange, MAX_SMS, MAX_THREADS};

/// The largest configuration file read, in bytes: a full one (every key,
/// with comments) is about 3 KiB. simcli, the C API and Python read config
/// files through `sim_isa::bounded` with this limit.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// Why a configuration text was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}: {key}: {message}", self.place())]
pub struct ConfigError {
    /// The file name, or `--set` for an override.
    pub origin: String,
    /// 1-based line (1 for an override).
    pub line: usize,
    /// The dotted key at fault (`units.int_alu.latency`), or `(document)`.
    pub key: String,
    /// What is wrong.
    pub message: String,
}

impl ConfigError {
    /// `file:line`, or `--set` for an override (always one line).
    fn place(&self) -> String {
        if self.origin == SET {
            SET.to_string()
        } else {
            format!("{}:{}", self.origin, self.line)
        }
    }
}

/// The origin of an override's errors.
const SET: &str = "--set";

/// One parameter's value, typed as the file holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamValue {
    /// A name (`"sm_90"`, `"lrr"`).
    Str(String),
    /// A count, rate or latency.
    Int(u64),
}

impl std::fmt::Display for ParamValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParamValue::Str(s) => f.write_str(s),
            ParamValue::Int(n) => write!(f, "{n}"),
        }
    }
}

/// Every parameter of `config` and the `scheduler`, as dotted keys in file
/// order (the order [`to_toml`] prints them).
pub fn params(config: &SmConfig, scheduler: SchedPolicy) -> Vec<(String, ParamValue)> {
    let s = |v: &str| ParamValue::Str(v.to_string());
    let n = |v: u32| ParamValue::Int(v as u64);
    let mut p = vec![
        (
            "target".to_string(),
            ParamValue::Str(config.target.to_string()),
        ),
        (
            "base".into(),
            ParamValue::Str(config.base.target().to_string()),
        ),
        ("scheduler".into(), s(scheduler.name())),
        ("resident_warps".into(), n(config.resident_warps)),
        ("schedulers".into(), n(config.schedulers)),
        ("issue_width".into(), n(config.issue_width)),
        ("issue_interval".into(), n(config.issue_interval)),
        ("lowering".into(), s(lowering_name(config.lowering))),
        // Top-level keys before the first table.
        ("taken_branch_cycles".into(), n(config.taken_branch_cycles)),
    ];
    for c in UnitClass::ALL {
        let u = config.units.get(c);
        p.push((
            format!("units.{}.lanes_per_sm", c.name()),
            n(u.lanes_per_sm),
        ));
        p.push((format!("units.{}.latency", c.name()), n(u.latency)));
    }
    let ic = config.icache;
    for (key, v) in [
        ("bytes", ic.bytes),
        ("line_bytes", ic.line_bytes),
        ("inst_bytes", ic.inst_bytes),
        ("miss_cycles", ic.miss_cycles),
    ] {
        p.push((format!("icache.{key}"), n(v)));
    }
    p.push((
        "limits.max_cycles".into(),
        ParamValue::Int(config.limits.max_cycles),
    ));
    p.push((
        "limits.max_instructions".into(),
        ParamValue::Int(config.limits.max_instructions),
    ));
    p
}

/// `config` and `scheduler` as a TOML document holding every parameter, each
/// with the source of its value as a comment. [`ConfigLayer::parse`] reads it
/// back to the identical configuration.
pub fn to_toml(config: &SmConfig, scheduler: SchedPolicy) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "# SM configuration {}, every parameter with its source.\n\
         # Sources (full references in sim-core/src/config.rs): Guide = CUDA C Programming\n\
         # Guide throughput and compute-capability tables; Tesla/Kepler/Maxwell/Hopper WP =\n\
         # NVIDIA's whitepapers; Volkov 2016 and Jia et al. 2018 for dependent latency;\n\
         # Wong et al. 2010 for GT200 f64. `assumed` marks values without a published figure.\n\
         # Edit any value, or delete keys to keep the preset's; read with `simcli run --config`.",
        config.name()
    );
    if config.target != config.base.target() {
        let _ = writeln!(
            o,
            "# {} is the {} preset with the Guide's differences for its compute capability.",
            config.target,
            config.base.target()
        );
    }
    let b = config.base;
    let own = params(&crate::preset(config.target), scheduler);
    let gen = params(&crate::preset(b.target()), scheduler);
    for (i, (key, value)) in params(config, scheduler).into_iter().enumerate() {
        if key == "units.int_alu.lanes_per_sm" {
            o.push_str("\n# Functional units: 32-bit lanes per clock per SM (0 = absent), latency in clocks.\n");
        }
        if let Some(rest) = key.strip_prefix("units.") {
            if let Some((class, "lanes_per_sm")) = rest.split_once('.') {
                let _ = writeln!(o, "[units.{class}]  # {}", unit_source(b, class));
            }
        }
        if key == "icache.bytes" {
            let _ = writeln!(o, "\n[icache]  # {}", icache_source(b));
        }
        if key == "limits.max_cycles" {
            o.push_str(
                "\n# Run bounds (not hardware): a run reaching one stops with the statistics so far.\n[limits]\n",
            );
        }
        let leaf = key.rsplit('.').next().unwrap_or(&key);
        let text = match &value {
            ParamValue::Str(s) => format!("{leaf} = \"{s}\""),
            ParamValue::Int(n) => format!("{leaf} = {n}"),
        };
        let differs = |p: &[(String, ParamValue)]| p.get(i).is_some_and(|(_, v)| *v != value);
        let note = if key == "scheduler" || key == "target" {
            None
        } else if differs(&own) {
            own.get(i)
                .map(|(_, v)| format!("custom (the {} preset has {v})", config.target))
        } else if differs(&gen) {
            Some(format!(
                "Guide, compute capability {}: differs from {}",
                config.target,
                b.target()
            ))
        } else {
            None
        };
        match note.or(top_source(b, &key).map(str::to_string)) {
            Some(src) => {
                let _ = writeln!(o, "{text:<32}# {src}");
            }
            None => {
                let _ = writeln!(o, "{text}");
            }
        }
    }
    o
}

/// The comment of a top-level key (units and limits carry theirs on the table).
fn top_source(b: Preset, key: &str) -> Option<&'static str> {
    use Preset::*;
    Some(match (key, b) {
        ("target", _) => "PTX target: instruction semantics and the preset below",
        ("base", _) => "measured preset this derives from (sm_13, sm_30, sm_53, sm_90)",
        ("scheduler", _) => "warp scheduling policy: lrr, gto or oldest",
        ("resident_warps", Gt200) => "Guide, 1.2/1.3: 32 resident warps per SM",
        ("resident_warps", _) => "Guide, compute-capability table: 64 resident warps per SM",
        ("schedulers", Gt200) => "Tesla: one instruction unit per SM",
        ("schedulers", Gk104) => "Kepler WP: 4 warp schedulers per SMX",
        ("schedulers", Gm20b) => "Maxwell WP: 4 processing blocks, one scheduler each",
        ("schedulers", Gh100) => "Hopper WP: 4 SM sub-partitions",
        ("issue_width", Gk104) => "Kepler WP: 2 dispatch units per scheduler",
        ("issue_width", _) => "micro-ops per scheduler per issue slot",
        ("issue_interval", Gt200) => "Tesla: a warp instruction issues over 4 clocks to 8 SPs",
        ("issue_interval", _) => "clocks between a scheduler's issue slots",
        ("lowering", _) => "machine-code table (native, kepler, maxwell, hopper): ptxas listings, timed by the pipe rules",
        ("taken_branch_cycles", Gh100) => "H100: none beyond the loop's own instructions (b21, b25: 7.3 cycles per iteration, which the model's VIADD, ISETP and BRA take), 0",
        ("taken_branch_cycles", _) => "clocks from a taken loop branch to its target's issue: not measured for this generation, 0",
        _ => return None,
    })
}

/// The comment of the instruction-cache table.
fn icache_source(b: Preset) -> &'static str {
    match b {
        Preset::Gh100 => {
            "instruction cache (bytes 0 = not modelled). H100: a 31.8 KiB loop runs at its static schedule, a 44 KiB one loses 17 clocks per 128-byte line beyond 32 KiB"
        }
        _ => "instruction cache: not modelled (bytes = 0), no measurement for this generation",
    }
}

/// The comment of a unit table.
fn unit_source(b: Preset, class: &str) -> &'static str {
    use Preset::*;
    match (class, b) {
        ("int_alu", Gt200) => "Guide 1.x: int add 8/clk; Volkov: 24 clocks",
        ("int_alu", Gk104) => "Guide 3.0: int add 160/clk; Volkov: 9 clocks",
        ("int_alu", Gm20b) => "Guide 5.x: int add 128/clk; Volkov: 6 clocks",
        ("int_alu", Gh100) => {
            "ALU pipe. Guide 9.0: int add 64/clk (Hopper WP: 16 INT32 lanes per partition); H100: PRMT, LOP3, SEL, ISETP... 2/clk, 4 clocks"
        }
        ("int_cmp", Gt200) => "Guide 1.x: compare/min/max 8/clk",
        ("int_cmp", Gk104) => "Guide 3.0: compare/min/max 160/clk",
        ("int_cmp", Gm20b) => "Guide 5.x: compare/min/max 64/clk",
        ("int_cmp", _) => "Guide 9.0: compare/min/max 64/clk (H100: compares run on the ALU pipe; no opcode maps here)",
        ("fp32", Gt200) => "Guide 1.x: f32 8/clk",
        ("fp32", Gk104) => "Guide 3.0: f32 192/clk; latency assumed the ALU's",
        ("fp32", Gm20b) => "Guide 5.x: f32 128/clk; latency assumed the ALU's",
        ("fp32", _) => "FMA pipe. Guide 9.0: f32 128/clk; H100: FFMA 3.9/clk, 4 clocks",
        ("fp16", Gt200 | Gk104) => "no half precision before sm_53 (PTX ISA)",
        ("fp16", _) => "Guide 5.3/9.0: half2 256 results/clk = 128 lanes of HSET2",
        ("fp64", Gt200) => "Guide 1.3: f64 1/clk; Wong: about twice the f32 latency",
        ("fp64", Gk104) => "Guide 3.0: f64 8/clk (GK104); latency assumed the ALU's",
        ("fp64", Gm20b) => "Guide 5.3: f64 4/clk; latency assumed the ALU's",
        ("fp64", Gh100) => "Guide 9.0: f64 64/clk; H100: DADD/DFMA 8 clocks",
        ("video", Gt200) => "no SIMD video before sm_30 (PTX ISA)",
        ("video", Gk104) => "Guide 3.0: SIMD video 32/clk",
        ("video", _) => "Guide 5.x on: video is multiple instructions (emulated, lowering table)",
        ("video_absdiff", Gt200) => "no SIMD video before sm_30 (PTX ISA)",
        ("video_absdiff", Gk104) => "Guide 3.0: vabsdiff2/4 160/clk",
        ("video_absdiff", Gm20b) => "native VABSDIFF4; rate assumed the compare rate (64)",
        ("video_absdiff", _) => "native VABSDIFF4 at the integer rate 64 (issue 3 table)",
        ("xu", Gt200) => "no machine-code table here; kept at the ALU's rate",
        ("xu", Gk104) => "Guide 3.0: MUFU, conversions 32/clk; latency assumed the ALU's",
        ("xu", Gm20b) => "Guide 5.x: MUFU, popc, conversions 32/clk; latency assumed the ALU's",
        ("xu", _) => "Guide 9.0: MUFU 16/clk; H100: MUFU/POPC/FLO/BREV/F2I 0.5 warp-instr/clk, 19 clocks",
        _ => "assumed",
    }
}

fn lowering_name(l: LoweringArch) -> &'static str {
    match l {
        LoweringArch::Native => "native",
        LoweringArch::Kepler => "kepler",
        LoweringArch::Maxwell => "maxwell",
        LoweringArch::Hopper => "hopper",
    }
}

fn parse_lowering(s: &str) -> Option<LoweringArch> {
    [
        LoweringArch::Native,
        LoweringArch::Kepler,
        LoweringArch::Maxwell,
        LoweringArch::Hopper,
    ]
    .into_iter()
    .find(|&l| lowering_name(l) == s)
}

fn parse_base(s: &str) -> Option<Preset> {
    Preset::ALL
        .into_iter()
        .find(|p| p.target().to_string() == s)
}

/// One unit's keys, each optional.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct UnitLayer {
    lanes_per_sm: Option<u32>,
    latency: Option<u32>,
}

/// The unit tables, each optional.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct UnitsLayer {
    int_alu: Option<UnitLayer>,
    int_cmp: Option<UnitLayer>,
    fp32: Option<UnitLayer>,
    fp16: Option<UnitLayer>,
    fp64: Option<UnitLayer>,
    video: Option<UnitLayer>,
    video_absdiff: Option<UnitLayer>,
    xu: Option<UnitLayer>,
}

impl UnitsLayer {
    fn get(&self, c: UnitClass) -> Option<&UnitLayer> {
        match c {
            UnitClass::IntAlu => self.int_alu.as_ref(),
            UnitClass::IntCmp => self.int_cmp.as_ref(),
            UnitClass::Fp32 => self.fp32.as_ref(),
            UnitClass::Fp16 => self.fp16.as_ref(),
            UnitClass::Fp64 => self.fp64.as_ref(),
            UnitClass::Video => self.video.as_ref(),
            UnitClass::VideoAbsdiff => self.video_absdiff.as_ref(),
            UnitClass::Xu => self.xu.as_ref(),
        }
    }
}

fn unit_mut(u: &mut crate::config::Units, c: UnitClass) -> &mut UnitConfig {
    match c {
        UnitClass::IntAlu => &mut u.int_alu,
        UnitClass::IntCmp => &mut u.int_cmp,
        UnitClass::Fp32 => &mut u.fp32,
        UnitClass::Fp16 => &mut u.fp16,
        UnitClass::Fp64 => &mut u.fp64,
        UnitClass::Video => &mut u.video,
        UnitClass::VideoAbsdiff => &mut u.video_absdiff,
        UnitClass::Xu => &mut u.xu,
    }
}

/// The instruction-cache table, each key optional.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ICacheLayer {
    bytes: Option<u32>,
    line_bytes: Option<u32>,
    inst_bytes: Option<u32>,
    miss_cycles: Option<u32>,
}

/// The limits table, each key optional.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct LimitsLayer {
    max_cycles: Option<u64>,
    max_instructions: Option<u64>,
}

/// The document as written: only the keys present.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Doc {
    target: Option<Spanned<String>>,
    base: Option<Spanned<String>>,
    scheduler: Option<Spanned<String>>,
    resident_warps: Option<u32>,
    schedulers: Option<u32>,
    issue_width: Option<u32>,
    issue_interval: Option<u32>,
    lowering: Option<Spanned<String>>,
    taken_branch_cycles: Option<u32>,
    units: Option<UnitsLayer>,
    icache: Option<ICacheLayer>,
    limits: Option<LimitsLayer>,
    memory: Option<memory::MemoryDoc>,
}

/// A configuration file or override, checked: the keys it sets, over any
/// configuration ([`ConfigLayer::apply`]).
#[derive(Clone, Debug, Default)]
pub struct ConfigLayer {
    target: Option<Target>,
    base: Option<Preset>,
    scheduler: Option<SchedPolicy>,
    resident_warps: Option<u32>,
    schedulers: Option<u32>,
    issue_width: Option<u32>,
    issue_interval: Option<u32>,
    lowering: Option<LoweringArch>,
    taken_branch_cycles: Option<u32>,
    units: UnitsLayer,
    icache: ICacheLayer,
    limits: LimitsLayer,
    /// The `[memory]` keys (sim-kernel's memory model reads them).
    memory: MemoryOverrides,
}

/// A key that takes one of a few words: `parse` reads it; `words` names
/// them in the error `bad` makes at the value's place.
fn word<T>(
    v: Option<Spanned<String>>,
    parse: impl Fn(&str) -> Option<T>,
    words: &str,
    bad: impl Fn(std::ops::Range<usize>, String) -> ConfigError,
) -> Result<Option<T>, ConfigError> {
    v.map(|v| {
        parse(v.get_ref()).ok_or_else(|| bad(v.span(), format!("'{}' is not {words}", v.get_ref())))
    })
    .transpose()
}

impl ConfigLayer {
    /// Reads a configuration document; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<ConfigLayer, ConfigError> {
        let doc: Doc = toml::from_str(text).map_err(|e| {
            let line = e.span().map_or(1, |s| line_of(text, s.start));
            ConfigError {
                origin: origin.to_string(),
                line,
                key: key_at(text, line),
                message: e.message().to_string(),
            }
        })?;
        let bad = |key: &str, span: std::ops::Range<usize>, message: String| ConfigError {
            origin: origin.to_string(),
            line: line_of(text, span.start),
            key: key.to_string(),
            message,
        };
        let mut l = ConfigLayer::default();
        if let Some(t) = doc.target {
            let parsed =
                Target::parse(t.get_ref()).map_err(|e| bad("target", t.span(), e.to_string()))?;
            l.target = Some(parsed);
        }
        l.base = word(
            doc.base,
            parse_base,
            "sm_13, sm_30, sm_53 or sm_90",
            |at, m| bad("base", at, m),
        )?;
        l.scheduler = word(
            doc.scheduler,
            SchedPolicy::parse,
            "lrr, gto or oldest",
            |at, m| bad("scheduler", at, m),
        )?;
        let lowerings = "native, kepler, maxwell or hopper";
        l.lowering = word(doc.lowering, parse_lowering, lowerings, |at, m| {
            bad("lowering", at, m)
        })?;
        l.resident_warps = doc.resident_warps;
        l.schedulers = doc.schedulers;
        l.issue_width = doc.issue_width;
        l.issue_interval = doc.issue_interval;
        l.units = doc.units.unwrap_or_default();
        l.icache = doc.icache.unwrap_or_default();
        l.taken_branch_cycles = doc.taken_branch_cycles;
        l.limits = doc.limits.unwrap_or_default();
        l.memory = doc
            .memory
            .as_ref()
            .map(MemoryOverrides::of)
            .unwrap_or_default();
        for (key, v) in l.numbers() {
            let r = range(&key).or_else(|| memory_range(&key));
            if let Some(r) = r.filter(|r| !r.contains(v)) {
                return Err(ConfigError {
                    origin: origin.to_string(),
                    line: line_of_key(text, &key),
                    message: ranges::out_of_range(v, r),
                    key,
                });
            }
        }
        Ok(l)
    }

    /// The numeric keys the layer sets, with their values.
    fn numbers(&self) -> Vec<(String, u64)> {
        let mut v = Vec::new();
        let mut put = |key: &str, x: Option<u64>| {
            if let Some(x) = x {
                v.push((key.to_string(), x));
            }
        };
        let w = |x: Option<u32>| x.map(u64::from);
        put("resident_warps", w(self.resident_warps));
        put("schedulers", w(self.schedulers));
        put("issue_width", w(self.issue_width));
        put("issue_interval", w(self.issue_interval));
        put("taken_branch_cycles", w(self.taken_branch_cycles));
        for c in UnitClass::ALL {
            if let Some(u) = self.units.get(c) {
                put(
                    &format!("units.{}.lanes_per_sm", c.name()),
                    w(u.lanes_per_sm),
                );
                put(&format!("units.{}.latency", c.name()), w(u.latency));
            }
        }
        let ic = &self.icache;
        put("icache.bytes", w(ic.bytes));
        put("icache.line_bytes", w(ic.line_bytes));
        put("icache.inst_bytes", w(ic.inst_bytes));
        put("icache.miss_cycles", w(ic.miss_cycles));
        put("limits.max_cycles", self.limits.max_cycles);
        put("limits.max_instructions", self.limits.max_instructions);
        for (k, x) in self.memory.entries() {
            put(k, Some(x));
        }
        v
    }

    /// Reads one `KEY=VALUE` override (`units.int_alu.latency=6`,
    /// `scheduler=gto`); a name needs no quotes.
    pub fn parse_set(assignment: &str) -> Result<ConfigLayer, ConfigError> {
        let err = |key: &str, message: String| ConfigError {
            origin: SET.into(),
            line: 1,
            key: key.to_string(),
            message,
        };
        let (key, value) = assignment
            .split_once('=')
            .ok_or_else(|| err(assignment, "expected KEY=VALUE".into()))?;
        let (key, value) = (key.trim(), value.trim());
        let valid_key = !key.is_empty()
            && key.split('.').all(|p| {
                !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            });
        if !valid_key {
            return Err(err(key, "not a configuration key".into()));
        }
        let quoted = value.starts_with('"') || value.parse::<i64>().is_ok();
        let text = if quoted {
            format!("{key} = {value}\n")
        } else {
            format!("{key} = \"{}\"\n", value.replace(['\\', '"'], ""))
        };
        ConfigLayer::parse(&text, SET).map_err(|mut e| {
            // The override is one line, whatever TOML made of its value
            // (`target="""` opens a multi-line string).
            e.key = key.to_string();
            e.line = 1;
            e
        })
    }

    /// The target the layer sets, if any (it picks the preset to start from).
    pub fn target(&self) -> Option<Target> {
        self.target
    }

    /// Replaces what the layer sets in `config` and `scheduler`.
    pub fn apply(&self, config: &mut SmConfig, scheduler: &mut SchedPolicy) {
        if let Some(t) = self.target {
            config.target = t;
        }
        macro_rules! set {
            ($($f:ident),*) => {$(if let Some(v) = self.$f { config.$f = v; })*};
        }
        set!(
            base,
            resident_warps,
            schedulers,
            issue_width,
            issue_interval,
            lowering,
            taken_branch_cycles
        );
        if let Some(s) = self.scheduler {
            *scheduler = s;
        }
        for c in UnitClass::ALL {
            if let Some(u) = self.units.get(c) {
                let dst = unit_mut(&mut config.units, c);
                dst.lanes_per_sm = u.lanes_per_sm.unwrap_or(dst.lanes_per_sm);
                dst.latency = u.latency.unwrap_or(dst.latency);
            }
        }
        let (ic, dst) = (&self.icache, &mut config.icache);
        dst.bytes = ic.bytes.unwrap_or(dst.bytes);
        dst.line_bytes = ic.line_bytes.unwrap_or(dst.line_bytes);
        dst.inst_bytes = ic.inst_bytes.unwrap_or(dst.inst_bytes);
        dst.miss_cycles = ic.miss_cycles.unwrap_or(dst.miss_cycles);
        let Limits {
            max_cycles,
            max_instructions,
        } = config.limits;
        config.limits = Limits {
            max_cycles: self.limits.max_cycles.unwrap_or(max_cycles),
            max_instructions: self.limits.max_instructions.unwrap_or(max_instructions),
        };
    }
}

/// 1-based line of byte `at`.
fn line_of(text: &str, at: usize) -> usize {
    1 + text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

/// The dotted key written on `line`: the last table header above it joined
/// with the key before its `=`; `(document)` when the line holds none.
fn key_at(text: &str, line: usize) -> String {
    let mut table = String::new();
    for (i, l) in text.lines().enumerate() {
        let l = l.split('#').next().unwrap_or("").trim();
        if let Some(h) = l.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
            table = h.trim().to_string();
            if i + 1 == line {
                return table;
            }
        } else if i + 1 == line {
            return match l.split_once('=') {
                Some((k, _)) if table.is_empty() => k.trim().to_string(),
                Some((k, _)) => format!("{table}.{}", k.trim()),
                None => "(document)".to_string(),
            };
        }
    }
    "(document)".to_string()
}

/// The first line whose key ([`key_at`]'s rule) is `key`, in one pass; 1
/// when none is (a key written as an inline table).
fn line_of_key(text: &str, key: &str) -> usize {
    let mut table = String::new();
    for (i, l) in text.lines().enumerate() {
        let l = l.split('#').next().unwrap_or("").trim();
        if let Some(h) = l.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
            table = h.trim().to_string();
        } else if let Some((k, _)) = l.split_once('=') {
            let k = k.trim();
            let full = key.strip_prefix(table.as_str());
            let here = if table.is_empty() {
                k == key
            } else {
                full.and_then(|r| r.strip_prefix('.')) == Some(k)
            };
            if here {
                return i + 1;
            }
        }
    }
    1
}

/// The configuration `layers` describe, in order: the preset of the last
/// target they set (else `default_target`), then each layer's keys, over
/// `scheduler`.
pub fn build(
    layers: &[ConfigLayer],
    default_target: Target,
    scheduler: SchedPolicy,
) -> (SmConfig, SchedPolicy) {
    let target = layers
        .iter()
        .rev()
        .find_map(ConfigLayer::target)
        .unwrap_or(default_target);
    let (mut config, mut sched) = (crate::preset(target), scheduler);
    for l in layers {
        l.apply(&mut config, &mut sched);
    }
    (config, sched)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_presets_read_back_identical() {
        for sm in [10, 13, 20, 30, 35, 50, 53, 60, 61, 70, 90] {
            let t = Target { sm, suffix: None };
            let c = crate::preset(t);
            let text = to_toml(&c, SchedPolicy::Gto);
            let layer = ConfigLayer::parse(&text, "x.toml").unwrap();
            let back = build(&[layer], Target::SM_13, SchedPolicy::Lrr);
            assert_eq!(back, (c, SchedPolicy::Gto), "sm_{sm}:\n{text}");
        }
    }

    #[test]
    fn errors_name_key_and_line() {
        let e = ConfigLayer::parse(
            "target = \"sm_90\"\n[units.int_alu]\nlatency = -1\n",
            "f.toml",
        )
        .unwrap_err();
        assert_eq!(
            (e.line, e.key.as_str()),
            (3, "units.int_alu.latency"),
            "{e}"
        );
        let e = ConfigLayer::parse("\n[units.int_alu]\nlatncy = 4\n", "f.toml").unwrap_err();
        assert_eq!((e.line, e.key.as_str()), (3, "units.int_alu.latncy"), "{e}");
        assert!(e.message.contains("unknown field"), "{e}");
        let e = ConfigLayer::parse("scheduler = \"fifo\"\n", "f.toml").unwrap_err();
        assert_eq!(
            e.to_string(),
            "f.toml:1: scheduler: 'fifo' is not lrr, gto or oldest"
        );
        let e = ConfigLayer::parse_set("units.alu.latency=6").unwrap_err();
        assert_eq!(e.key, "units.alu.latency");
        assert!(e.message.contains("unknown field `alu`"), "{e}");
    }

    #[test]
    fn overrides_apply_in_order() {
        let sets = [
            "units.int_alu.latency=6",
            "scheduler=oldest",
            "target=sm_53",
        ]
        .map(|s| ConfigLayer::parse_set(s).unwrap());
        let (c, s) = build(&sets, Target::SM_90, SchedPolicy::Lrr);
        assert_eq!(c.target, Target::SM_53);
        assert_eq!(c.units.int_alu, UnitConfig::new(128, 6));
        assert_eq!(s, SchedPolicy::Oldest);
    }
}
