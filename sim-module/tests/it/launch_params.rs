//! Launch files' parameter kinds, `dynamic_shared_bytes`, and which
//! `.param` declarations each kind binds to.

use sim_module::launch::{declared, ParamValue, MAX_PARAM_BYTES};
use sim_module::*;
use std::path::Path;

fn parse(rest: &str) -> Result<Launch, LaunchError> {
    Launch::parse(
        &format!(
            r#"{{"ptx": "m.ptx", "entry": "k", "grid": [1, 1, 1], "block": [32, 1, 1],
                "buffers": {{"a": {{"bytes": 4, "fill": 0}}}}, {rest}}}"#
        ),
        Path::new("/d"),
    )
}

fn err(rest: &str) -> String {
    parse(rest).unwrap_err().to_string()
}

#[test]
fn every_kind_parses_at_its_bounds() {
    let l = parse(
        r#""params": [{"u8": 255}, {"s8": -128}, {"u16": 65535}, {"s16": -32768}, {"f64": -0.1},
           {"b8": 255}, {"b16": 65535}, {"b32": 4294967295}, {"b64": 18446744073709551615},
           {"bytes": [0, 255, 7]}, {"bytes": "00ffA0"}]"#,
    )
    .unwrap();
    use ParamValue::*;
    assert_eq!(
        l.params,
        [
            U8(255),
            S8(-128),
            U16(65535),
            S16(-32768),
            F64(-0.1),
            Bits(255, 1),
            Bits(65535, 2),
            Bits(u64::from(u32::MAX), 4),
            Bits(u64::MAX, 8),
            Bytes(vec![0, 255, 7]),
            Bytes(vec![0, 255, 0xa0]),
        ]
    );
    let bytes: Vec<Vec<u8>> = l.params.iter().map(|p| p.bytes(&[])).collect();
    assert_eq!(bytes[1], [0x80]);
    assert_eq!(bytes[3], [0x00, 0x80]);
    assert_eq!(bytes[4], (-0.1f64).to_le_bytes());
    assert_eq!(bytes[6], [0xff, 0xff]);
    assert_eq!(bytes[7], [0xff; 4]);
    assert_eq!(l.dynamic_shared, 0, "absent: none");
}

#[test]
fn out_of_range_kinds_name_the_field() {
    for (p, want) in [
        (r#"{"u8": 256}"#, "params[0].u8: 256 is not a u8"),
        (r#"{"s8": 128}"#, "params[0].s8: 128 is not a s8"),
        (r#"{"u16": -1}"#, "params[0].u16: -1 is not a u16"),
        (r#"{"s16": 32768}"#, "params[0].s16: 32768 is not a s16"),
        (r#"{"b8": 256}"#, "params[0].b8: 256 is not a b8"),
        (r#"{"b16": -1}"#, "params[0].b16: -1 is not a b16"),
        (r#"{"f64": "x"}"#, r#"params[0].f64: "x" is not a f64"#),
        (
            r#"{"bytes": [1, 256]}"#,
            "params[0].bytes: 256 is not a byte (0 to 255)",
        ),
        (
            r#"{"bytes": "abc"}"#,
            "params[0].bytes: a hex string has pairs of hex digits",
        ),
        (
            r#"{"bytes": "zz"}"#,
            "params[0].bytes: a hex string has pairs of hex digits",
        ),
        (
            r#"{"bytes": []}"#,
            "params[0].bytes: 0 bytes; a parameter has 1 to 32764",
        ),
        (
            r#"{"bytes": 5}"#,
            "params[0].bytes: an array of bytes or a hex string",
        ),
    ] {
        assert_eq!(err(&format!(r#""params": [{p}]"#)), want, "{p}");
    }
    let big = "00".repeat(MAX_PARAM_BYTES + 1);
    assert_eq!(
        err(&format!(r#""params": [{{"bytes": "{big}"}}]"#)),
        "params[0].bytes: 32765 bytes; a parameter has 1 to 32764"
    );
}

#[test]
fn dynamic_shared_bytes_is_a_u32() {
    let l = parse(r#""params": [], "dynamic_shared_bytes": 4096"#).unwrap();
    assert_eq!(l.dynamic_shared, 4096);
    for bad in ["-1", "4294967296", "1.5", "\"8\""] {
        let e = err(&format!(r#""params": [], "dynamic_shared_bytes": {bad}"#));
        assert!(e.starts_with("line "), "{bad}: {e}");
    }
}

const PTX: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
.visible .entry k(.param .u64 p_u64, .param .s64 p_s64, .param .b64 p_b64, .param .f64 p_f64,\n\
 .param .u32 p_u32, .param .s32 p_s32, .param .b32 p_b32, .param .f32 p_f32,\n\
 .param .u16 p_u16, .param .s16 p_s16, .param .b16 p_b16, .param .u8 p_u8, .param .s8 p_s8,\n\
 .param .b8 p_b8, .param .align 8 .b8 p_struct[16], .param .f16 p_f16)\n{\nret;\n}\n";

/// Which of k's parameters `v` binds to, by name.
fn binds(v: &ParamValue) -> Vec<&'static str> {
    let m = parse_module(PTX, "k.ptx").unwrap();
    let names = [
        "p_u64", "p_s64", "p_b64", "p_f64", "p_u32", "p_s32", "p_b32", "p_f32", "p_u16", "p_s16",
        "p_b16", "p_u8", "p_s8", "p_b8", "p_struct", "p_f16",
    ];
    let k = m.function("k").unwrap();
    assert_eq!(k.params.len(), names.len());
    k.params
        .iter()
        .zip(names)
        .filter(|(p, _)| v.binds_to(p).is_ok())
        .map(|(_, n)| n)
        .collect()
}

#[test]
fn each_kind_binds_to_its_types_only() {
    use ParamValue::*;
    let ints64 = vec!["p_u64", "p_s64", "p_b64"];
    let ints32 = vec!["p_u32", "p_s32", "p_b32"];
    let cases: Vec<(ParamValue, Vec<&str>)> = vec![
        (Buffer(0), ints64.clone()),
        (U64(1), ints64.clone()),
        (S64(-1), ints64.clone()),
        (U32(1), ints32.clone()),
        (S32(-1), ints32.clone()),
        (U16(1), vec!["p_u16", "p_s16", "p_b16"]),
        (S16(1), vec!["p_u16", "p_s16", "p_b16"]),
        (U8(1), vec!["p_u8", "p_s8", "p_b8"]),
        (S8(1), vec!["p_u8", "p_s8", "p_b8"]),
        (F32(1.0), vec!["p_b32", "p_f32"]),
        (F64(1.0), vec!["p_b64", "p_f64"]),
        (Bits(1, 8), vec!["p_u64", "p_s64", "p_b64", "p_f64"]),
        (Bits(1, 4), vec!["p_u32", "p_s32", "p_b32", "p_f32"]),
        (Bits(1, 2), vec!["p_u16", "p_s16", "p_b16", "p_f16"]),
        (Bits(1, 1), vec!["p_u8", "p_s8", "p_b8"]),
        (Bytes(vec![0; 16]), vec!["p_struct"]),
        (Bytes(vec![0; 8]), vec!["p_b64"]),
        (Bytes(vec![0; 3]), vec![]),
    ];
    for (v, want) in cases {
        assert_eq!(binds(&v), want, "{v:?}");
    }
    let m = parse_module(PTX, "k.ptx").unwrap();
    let k = m.function("k").unwrap();
    assert_eq!(declared(&k.params[14]), ".b8[16]");
    assert_eq!(declared(&k.params[5]), ".s32");
    assert_eq!(
        F32(1.0).binds_to(&k.params[5]).unwrap_err(),
        "the types differ"
    );
}
