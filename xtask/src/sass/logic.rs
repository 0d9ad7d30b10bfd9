//! Pure bit- and comparison-level helpers of the SASS opcodes.

use anyhow::{bail, Result};

pub(super) fn f16_to_f64(h: u16) -> f64 {
    half::f16::from_bits(h).to_f64()
}
pub(super) fn bf16_to_f64(h: u16) -> f64 {
    half::bf16::from_bits(h).to_f64()
}
pub(super) fn ftz32(x: u32) -> u32 {
    if x & 0x7f80_0000 == 0 {
        x & 0x8000_0000
    } else {
        x
    }
}
pub(super) fn ftz16(x: u16) -> u16 {
    if x & 0x7c00 == 0 {
        x & 0x8000
    } else {
        x
    }
}

/// A float comparison by SASS name (`LT`, `GEU`, `NUM`, ...).
pub fn fcmp(name: &str, a: f64, b: f64) -> Result<bool> {
    let un = a.is_nan() || b.is_nan();
    Ok(match name {
        "F" => false,
        "T" => true,
        "LT" => !un && a < b,
        "EQ" => !un && a == b,
        "LE" => !un && a <= b,
        "GT" => !un && a > b,
        "NE" => !un && a != b,
        "GE" => !un && a >= b,
        "NUM" => !un,
        "NAN" => un,
        "LTU" => un || a < b,
        "EQU" => un || a == b,
        "LEU" => un || a <= b,
        "GTU" => un || a > b,
        "NEU" => un || a != b,
        "GEU" => un || a >= b,
        _ => bail!("unknown float comparison {name}"),
    })
}

pub(super) fn icmp(name: &str, a: i64, b: i64) -> Result<bool> {
    Ok(match name {
        "F" => false,
        "T" => true,
        "LT" => a < b,
        "EQ" => a == b,
        "LE" => a <= b,
        "GT" => a > b,
        "NE" => a != b,
        "GE" => a >= b,
        _ => bail!("unknown integer comparison {name}"),
    })
}

pub(super) fn boolop(name: &str, t: bool, c: bool) -> Result<bool> {
    Ok(match name {
        "AND" => t && c,
        "OR" => t || c,
        "XOR" => t ^ c,
        _ => bail!("unknown boolean operation {name}"),
    })
}

/// Applies a LOP3 truth table bitwise.
pub fn lop3(a: u32, b: u32, c: u32, lut: u8) -> u32 {
    let mut r = 0u32;
    for bit in 0..32 {
        let idx = (((a >> bit) & 1) << 2) | (((b >> bit) & 1) << 1) | ((c >> bit) & 1);
        r |= (((lut >> idx) & 1) as u32) << bit;
    }
    r
}

/// PRMT: byte `i` of the result is chosen by nibble `i` of `sel` from the
/// eight bytes `{b, a}` (a = bytes 0-3); nibble bit 3 replicates the chosen
/// byte's sign bit instead (`0x8880` sign-extends byte 0, `0x9910` half 0).
pub fn prmt(a: u32, sel: u32, b: u32) -> u32 {
    let src = ((b as u64) << 32) | a as u64;
    let mut r = 0u32;
    for i in 0..4 {
        let n = (sel >> (4 * i)) & 0xf;
        let byte = ((src >> (8 * (n & 7))) & 0xff) as u32;
        let v = if n & 8 != 0 {
            if byte & 0x80 != 0 {
                0xff
            } else {
                0
            }
        } else {
            byte
        };
        r |= v << (8 * i);
    }
    r
}
