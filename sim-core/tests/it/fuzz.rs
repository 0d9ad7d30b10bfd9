//! Fuzz targets for configuration files and `--set` overrides (issue 28):
//! whatever the text, `ConfigLayer::parse` gives a layer or an error naming
//! the origin and a line of the text, never a panic; a layer accepted builds
//! a configuration that `check` passes, and that `to_toml` writes as text
//! reading back to the same configuration. Run longer with
//! `tools/fuzz.sh 1800 20000 sim-core fuzz_config_` (docs/fuzzing.md).

use super::text_edits::{edit, keys};
use proptest::prelude::*;
use sim_core::config_file::{
    self, memory_range, memory_toml, ConfigLayer, MemoryParam, MEMORY_KEYS,
};
use sim_core::{preset, SchedPolicy};
use sim_isa::Target;

/// Real configuration files: each preset's full document (`simcli config`)
/// and the memory tables, each key at an end of its range.
fn real_files() -> Vec<String> {
    let mut v: Vec<String> = [13, 30, 53, 90]
        .iter()
        .map(|&sm| {
            let t = Target { sm, suffix: None };
            config_file::to_toml(&preset(t), SchedPolicy::Gto)
        })
        .collect();
    for hi in [false, true] {
        let params: Vec<MemoryParam> = MEMORY_KEYS
            .iter()
            .map(|&key| {
                let r = memory_range(key).unwrap();
                MemoryParam {
                    key,
                    value: if hi { r.hi } else { r.lo },
                    source: "custom".into(),
                }
            })
            .collect();
        v.push(memory_toml(&params));
    }
    v
}

/// Lines `text` has (an error may name the line after the last).
fn lines(text: &str) -> usize {
    text.split('\n').count()
}

/// Parses `text`: an error names the origin and a line of the text; an
/// accepted layer holds ([`layer_holds`]).
fn config_holds(text: &str) {
    match ConfigLayer::parse(text, "c.toml") {
        Err(e) => {
            assert_eq!(e.origin, "c.toml");
            assert!(
                e.line >= 1 && e.line <= lines(text),
                "line {} of {}: {e}",
                e.line,
                lines(text)
            );
            assert!(e.to_string().starts_with(&format!("c.toml:{}: ", e.line)));
        }
        Ok(l) => layer_holds(&l),
    }
}

/// An accepted layer builds a configuration within every range; written
/// out, it reads back to the same parameters.
fn layer_holds(l: &ConfigLayer) {
    let (c, s) = config_file::build(std::slice::from_ref(l), Target::SM_90, SchedPolicy::Lrr);
    let _ = config_file::memory(std::slice::from_ref(l));
    if config_file::check(&c).is_err() {
        // In range key by key, but not a model (an instruction cache's
        // sizes inconsistent): refused when a model is built.
        return;
    }
    let text = config_file::to_toml(&c, s);
    let back = ConfigLayer::parse(&text, "out.toml").unwrap();
    let (c2, s2) = config_file::build(&[back], Target::SM_90, SchedPolicy::Lrr);
    assert_eq!(
        config_file::params(&c2, s2),
        config_file::params(&c, s),
        "{text}"
    );
}

/// Values of every shape, in range and far out of it.
fn value() -> impl Strategy<Value = String> {
    let ints = prop_oneof![
        any::<u64>().prop_map(|n| n.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        (0u64..5000).prop_map(|n| n.to_string()),
        prop::sample::select(vec![
            "0",
            "1",
            "-1",
            "4294967295",
            "4294967296",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "9223372036854775807",
            "0x10",
            "0o7",
            "0b1",
            "1_000",
            "1e3",
            "1.5",
            "-0.0",
            "inf",
            "nan",
        ])
        .prop_map(str::to_string),
    ];
    prop_oneof![
        4 => ints,
        1 => prop::sample::select(vec![
            "\"sm_90\"", "\"sm_13\"", "\"sm_99\"", "\"sm_\"", "\"lrr\"", "\"gto\"", "\"oldest\"",
            "\"native\"", "\"kepler\"", "\"maxwell\"", "\"hopper\"", "\"\"", "true", "false",
            "[]", "[1, 2]", "{}", "{ latency = 4 }", "1979-05-27", "'''x'''", "\"\\u0000\"",
        ])
        .prop_map(str::to_string),
        1 => "\\PC{0,12}".prop_map(|s| format!("\"{}\"", s.replace(['"', '\\'], ""))),
    ]
}

/// A `key = value` line, under the key's table or written dotted, or a
/// table header, a comment or junk.
fn line(keys: Vec<String>) -> impl Strategy<Value = String> {
    let key = prop::sample::select(keys);
    prop_oneof![
        6 => (key.clone(), value()).prop_map(|(k, v)| format!("{k} = {v}")),
        3 => (key.clone(), value()).prop_map(|(k, v)| match k.rsplit_once('.') {
            Some((t, leaf)) => format!("[{t}]\n{leaf} = {v}"),
            None => format!("{k} = {v}"),
        }),
        1 => key.prop_map(|k| match k.rsplit_once('.') {
            Some((t, _)) => format!("[{t}]"),
            None => format!("[{k}]"),
        }),
        1 => prop::sample::select(vec![
            "", "# comment", "[", "]", "[[units]]", "=", "units = 3", "units.x = 1",
            "[units.int_alu", "memory = {}", "key = ", "\"q\" = 1", "a.b.c.d = 1", "\u{feff}",
            "\t", "\r", "[memory.l2]", "[units]", "target = \"sm_90\" # c", "\0",
        ])
        .prop_map(str::to_string),
        1 => "\\PC{0,30}",
    ]
}

fn edit_char() -> impl Strategy<Value = char> {
    prop_oneof![
        prop::sample::select(vec![
            '=', '[', ']', '.', '"', '\n', '#', '0', '9', '-', ' ', ',', '{', '}', '\''
        ]),
        any::<char>(),
    ]
}

proptest! {
    #[test]
    fn fuzz_config_arbitrary_text(text in "\\PC{0,200}") {
        config_holds(&text);
    }

    #[test]
    fn fuzz_config_token_soup(ls in proptest::collection::vec(line(keys()), 0..12)) {
        config_holds(&ls.join("\n"));
    }

    #[test]
    fn fuzz_config_mutated_files(
        which in any::<prop::sample::Index>(),
        edits in proptest::collection::vec((any::<u8>(), any::<u32>(), edit_char()), 1..=5),
        extra in proptest::option::of(line(keys())),
    ) {
        static FILES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
        let files = FILES.get_or_init(real_files);
        let mut text = edit(which.get::<String>(files), &edits);
        if let Some(l) = extra {
            text.push('\n');
            text.push_str(&l);
        }
        config_holds(&text);
    }

    #[test]
    fn fuzz_config_set_overrides(key in prop::sample::select(keys()), v in value(), junk in "\\PC{0,20}") {
        for text in [format!("{key}={v}"), format!("{key}={junk}"), junk.clone()] {
            match ConfigLayer::parse_set(&text) {
                Err(e) => {
                    assert_eq!((e.origin.as_str(), e.line), ("--set", 1));
                    assert!(e.to_string().starts_with("--set: "));
                }
                Ok(l) => layer_holds(&l),
            }
        }
    }
}
