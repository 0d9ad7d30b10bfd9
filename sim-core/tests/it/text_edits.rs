//! What the fuzz targets of configuration text share: sim-core's
//! configuration files and sim-cli's sweep files (which includes this file
//! by path), so that both mutate text the same way and draw the same keys.

use sim_core::config_file::{self, MEMORY_KEYS};
use sim_core::{preset, SchedPolicy};
use sim_isa::Target;

/// Every key a configuration file may set (`simcli config` lists them),
/// which is every key a sweep's `[params]` may vary.
pub fn keys() -> Vec<String> {
    let mut k: Vec<String> = config_file::params(&preset(Target::SM_90), SchedPolicy::Lrr)
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    k.extend(MEMORY_KEYS.iter().map(|s| s.to_string()));
    k
}

/// `text` with `edits` applied, each `(kind, position, char)`: replace,
/// insert or remove the char at the position, cut the text there, or
/// repeat a run of up to 40 chars from it.
pub fn edit(text: &str, edits: &[(u8, u32, char)]) -> String {
    let mut c: Vec<char> = text.chars().collect();
    for &(kind, pos, v) in edits {
        let len = c.len();
        let at = if len == 0 { 0 } else { pos as usize % len };
        match kind % 5 {
            0 if len > 0 => c[at] = v,
            1 => c.insert(at.min(len), v),
            2 if len > 0 => {
                c.remove(at);
            }
            3 => c.truncate(at),
            4 if len > 0 => {
                let end = (at + 1 + pos as usize % 40).min(len);
                let run = c[at..end].to_vec();
                c.splice(at..at, run);
            }
            _ => {}
        }
    }
    c.into_iter().collect()
}
