//! Launch files: the ten public H100 launches and refused ones.

use crate::data;
use sim_module::launch::{BufferInit, ParamValue, Random, RandomValues, H100};
use sim_module::*;
use std::path::Path;

const PUBLIC: [&str; 10] = [
    "audio_mix.t",
    "audio_mix.v",
    "block_sad_reduce.t",
    "block_sad_reduce.v",
    "divergent_select.t",
    "divergent_select.v",
    "sad16.t",
    "sad16.v",
    "threshold_clamp.t",
    "threshold_clamp.v",
];

#[test]
fn public_launches_read_and_match_their_module() {
    let ptx = crate::public_ptx();
    let m = parse_module(&ptx, "public.ptx").unwrap();
    for name in PUBLIC {
        let l = Launch::read(&data().join(format!("{name}.json"))).unwrap();
        assert_eq!(l.ptx, data().join("public.ptx"), "{name}");
        let k = m
            .function(&l.entry)
            .unwrap_or_else(|| panic!("{name}: no kernel {}", l.entry));
        assert_eq!(k.params.len(), l.params.len(), "{name}");
        let bufs = l.load_buffers().unwrap();
        for (b, bytes) in l.buffers.iter().zip(&bufs) {
            assert_eq!(bytes.len() as u64, b.bytes, "{name}.{}", b.name);
        }
        let exp = l.load_expected().unwrap();
        assert_eq!(exp.len(), l.outputs.len(), "{name}");
        // One-block launches carry cycles; several-block ones do not.
        let one_block = l.grid_blocks() == 1;
        let h = l.h100.as_ref().unwrap();
        assert_eq!(h.cycles_cold.is_some(), one_block, "{name}");
        // `warps` counts every warp of the launch.
        let warps = l.grid_blocks() * l.block_threads().div_ceil(32);
        assert_eq!(u64::from(h.warps.unwrap()), warps, "{name}");
    }
}

#[test]
fn audio_mix_fields() {
    let l = Launch::read(&data().join("audio_mix.t.json")).unwrap();
    assert_eq!(
        (l.entry.as_str(), l.grid, l.block),
        ("audio_mix", [1, 1, 1], [256, 1, 1])
    );
    let names: Vec<&str> = l.buffers.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "mix", "avg", "clk"]);
    assert_eq!(
        l.buffers[0].init,
        BufferInit::File(data().join("audio_mix.t.a.bin"))
    );
    assert_eq!(
        (l.buffers[4].bytes, &l.buffers[4].init),
        (128, &BufferInit::Fill(0))
    );
    use ParamValue::*;
    assert_eq!(
        l.params,
        [
            Buffer(0),
            Buffer(1),
            Buffer(2),
            Buffer(3),
            S32(256),
            Buffer(4)
        ]
    );
    assert_eq!(l.outputs, [2, 3]);
    assert_eq!(
        l.expected[1],
        (3, data().join("audio_mix.t.avg.expected.bin"))
    );
    let h = l.h100.unwrap();
    assert_eq!(
        (h.cycles_cold, h.cycles_warm, h.warps),
        (Some(838), Some(846), Some(8))
    );
    assert_eq!(H100::default().cycles_cold, None);
}

const BASE: &str = r#""ptx": "m.ptx", "entry": "k", "grid": [1, 1, 1], "block": [32, 1, 1]"#;

fn parse(rest: &str) -> Result<Launch, LaunchError> {
    Launch::parse(&format!("{{{BASE}, {rest}}}"), Path::new("/d"))
}

fn err(rest: &str) -> String {
    parse(rest).unwrap_err().to_string()
}

#[test]
fn literals_and_minimal_launch() {
    let l = parse(
        r#""buffers": {}, "params": [{"u32": 4294967295}, {"s32": -2147483648}, {"u64": 18446744073709551615},
           {"s64": -1}, {"f32": 1.5}]"#,
    )
    .unwrap();
    use ParamValue::*;
    assert_eq!(
        l.params,
        [
            U32(u32::MAX),
            S32(i32::MIN),
            U64(u64::MAX),
            S64(-1),
            F32(1.5)
        ]
    );
    assert!(l.outputs.is_empty() && l.expected.is_empty() && l.h100.is_none());
    assert_eq!(l.registers, None);
    assert_eq!(l.ptx, Path::new("/d/m.ptx"));
    let l = parse(r#""buffers": {}, "params": [], "registers": 40"#).unwrap();
    assert_eq!(l.registers, Some(40));
}

/// `registers` is what ptxas allocates a thread: 1 to 255.
#[test]
fn registers_are_what_a_thread_may_have() {
    for bad in ["0", "256", "-1", "4294967296"] {
        let e = err(&format!(
            r#""buffers": {{}}, "params": [], "registers": {bad}"#
        ));
        assert!(
            e.contains("registers") || e.contains("line 1"),
            "{bad}: {e}"
        );
    }
    assert_eq!(
        err(r#""buffers": {}, "params": [], "registers": 256"#),
        "registers: a thread has 1 to 255 registers"
    );
}

#[test]
fn refused_launches_name_the_field() {
    let b = r#""buffers": {"a": {"bytes": 4, "fill": 0}}"#;
    assert_eq!(
        err(&format!(r#"{b}, "params": [{{"u32": -1}}]"#)),
        "params[0].u32: -1 is not a u32"
    );
    assert_eq!(
        err(&format!(r#"{b}, "params": [{{"s32": 2147483648}}]"#)),
        "params[0].s32: 2147483648 is not a s32"
    );
    assert_eq!(
        err(&format!(r#"{b}, "params": [{{"u128": 1}}]"#)),
        "params[0]: unknown kind 'u128' (buffer, u8, s8, u16, s16, u32, s32, u64, s64, f32, f64, b8, b16, b32, b64 or bytes)"
    );
    assert_eq!(
        err(&format!(r#"{b}, "params": [{{}}]"#)),
        "params[0]: needs exactly one key: buffer, u8, s8, u16, s16, u32, s32, u64, s64, f32, f64, b8, b16, b32, b64 or bytes"
    );
    assert_eq!(
        err(&format!(r#"{b}, "params": [{{"buffer": "z"}}]"#)),
        "params[0].buffer: no buffer named 'z'"
    );
    assert_eq!(
        err(&format!(r#"{b}, "params": [], "outputs": ["a", "a"]"#)),
        "outputs[1]: 'a' listed twice"
    );
    assert_eq!(
        err(&format!(
            r#"{b}, "params": [], "expected": {{"a": "x.bin"}}"#
        )),
        "expected.a: 'a' is not in `outputs`"
    );
    assert_eq!(
        err(&format!(
            r#"{b}, "params": [], "outputs": ["a"], "expected": {{"a": "/etc/x"}}"#
        )),
        "expected.a: '/etc/x' must be a relative file name"
    );
    assert_eq!(
        err(r#""buffers": {"a": {"bytes": 4}}, "params": []"#),
        "buffers.a: needs exactly one of `file`, `fill` and `random`"
    );
    assert_eq!(
        err(r#""buffers": {"a": {"bytes": 4, "fill": 1, "file": "x"}}, "params": []"#),
        "buffers.a: needs exactly one of `file`, `fill` and `random`"
    );
    assert_eq!(
        err(r#""buffers": {"a": {"bytes": 1073741825, "fill": 0}}, "params": []"#),
        "buffers.a.bytes: 1073741825 is more than the limit of 1073741824"
    );
    assert!(err(r#""buffers": {"a": {"bytes": 4, "fill": 256}}, "params": []"#).contains("line 1"));
    assert!(err(
        r#""buffers": {"a": {"bytes": 4, "fill": 0}, "a": {"bytes": 4, "fill": 0}}, "params": []"#
    )
    .contains("duplicate key `a`"));
    assert!(err(r#""buffers": {}, "params": [], "bogus": 1"#).contains("unknown field `bogus`"));
    assert!(Launch::parse("{}", Path::new(""))
        .unwrap_err()
        .to_string()
        .contains("missing field `ptx`"));
    let dims = |g: &str, bl: &str| {
        let t = format!(
            r#"{{"ptx": "m", "entry": "k", "grid": {g}, "block": {bl}, "buffers": {{}}, "params": []}}"#
        );
        Launch::parse(&t, Path::new("")).unwrap_err().to_string()
    };
    assert_eq!(
        dims("[1, 0, 1]", "[1, 1, 1]"),
        "grid[1]: must be at least 1"
    );
    assert_eq!(
        dims("[1, 1, 1]", "[64, 32, 1]"),
        "block: 2048 in all, more than the limit of 1024"
    );
    assert_eq!(
        dims("[65536, 65536, 1]", "[1, 1, 1]"),
        "grid: 4294967296 in all, more than the limit of 16777216"
    );
    let big = " ".repeat(launch::MAX_LAUNCH_BYTES + 1);
    assert!(matches!(
        Launch::parse(&big, Path::new("")),
        Err(LaunchError::TooLarge { .. })
    ));
}

#[test]
fn buffer_files_must_hold_the_buffer_size() {
    let t = format!(
        r#"{{{BASE}, "buffers": {{"a": {{"bytes": 100, "file": "audio_mix.t.a.bin"}}}}, "params": []}}"#
    );
    let l = Launch::parse(&t, &data()).unwrap();
    let e = l.load_buffers().unwrap_err().to_string();
    assert!(
        e.starts_with("buffers.a.file: ")
            && e.ends_with("audio_mix.t.a.bin holds 1024 bytes, the buffer 100"),
        "{e}"
    );
    let t = t.replace("audio_mix.t.a.bin", "missing.bin");
    let e = Launch::parse(&t, &data())
        .unwrap()
        .load_buffers()
        .unwrap_err();
    assert!(matches!(e, LaunchError::Io { .. }), "{e}");
}

/// JSON errors point inside the text, in characters (found by
/// `fuzz_launch_arbitrary`/`fuzz_launch_mutated`: serde_json reports an error
/// on a line break, or in empty text, at column 0, and counts bytes).
#[test]
fn json_error_positions_lie_in_the_text() {
    let pos = |t: &str| match Launch::parse(t, Path::new("")) {
        Err(LaunchError::Json { line, col, .. }) => (line, col),
        other => panic!("{other:?}"),
    };
    assert_eq!(pos(""), (1, 1));
    // A raw line break inside a string: the error is on it, after line 2's 10 characters.
    assert_eq!(pos("{\n \"ptx\": \"a\nb\"}"), (2, 11));
    // "é" is one character (two bytes) before the bad `x`, character 23.
    assert_eq!(pos("{\"ptx\": \"é\", \"entry\": x}"), (1, 23));
    for t in ["", "{", "{\n", "[\n\n", "{\"ptx\": \"\u{1}\"}"] {
        let (l, c) = pos(t);
        assert!(crate::fuzz::inside(t, l, c), "{t:?}: {l}:{c}");
    }
}

/// A grid whose block count overflows 64 bits is refused, not a panic
/// (found by `fuzz_launch_structured`).
#[test]
fn huge_grid_is_refused() {
    let text = r#"{"ptx": "public.ptx", "entry": "audio_mix", "grid": [29449126, 1355830305, 462],
                   "block": [1, 1, 1], "buffers": {}, "params": [], "outputs": []}"#;
    let e = sim_module::Launch::parse(text, std::path::Path::new(".")).unwrap_err();
    assert!(e.to_string().contains("grid"), "{e}");
}

/// A launch with one buffer `a` of `bytes` bytes whose `random` object is `r`.
fn random_launch(bytes: u64, r: &str) -> Result<Launch, LaunchError> {
    parse(&format!(
        r#""buffers": {{"a": {{"bytes": {bytes}, "random": {r}}}}}, "params": []"#
    ))
}

/// The bytes of `random_launch(bytes, r)`'s buffer.
fn random_bytes(bytes: u64, r: &str) -> Vec<u8> {
    let l = random_launch(bytes, r).unwrap();
    l.load_buffers().unwrap().remove(0)
}

fn words<T>(b: &[u8], f: impl Fn([u8; 4]) -> T) -> Vec<T> {
    b.chunks_exact(4)
        .map(|c| f(c.try_into().unwrap()))
        .collect()
}

#[test]
fn random_buffers_parse_with_defaults() {
    let init = |bytes, r| random_launch(bytes, r).unwrap().buffers[0].init.clone();
    let rnd = |seed, values| BufferInit::Random(Random { seed, values });
    assert_eq!(
        init(8, r#"{"seed": 7, "type": "f32", "min": -1.0, "max": 1}"#),
        rnd(
            7,
            RandomValues::F32 {
                min: -1.0,
                max: 1.0
            }
        )
    );
    assert_eq!(
        init(8, r#"{"seed": 18446744073709551615, "type": "f32"}"#),
        rnd(u64::MAX, RandomValues::F32 { min: 0.0, max: 1.0 })
    );
    assert_eq!(
        init(8, r#"{"seed": 0, "type": "u32"}"#),
        rnd(
            0,
            RandomValues::U32 {
                min: 0,
                max: u32::MAX
            }
        )
    );
    assert_eq!(
        init(8, r#"{"seed": 0, "type": "s32", "max": 3}"#),
        rnd(
            0,
            RandomValues::S32 {
                min: i32::MIN,
                max: 3
            }
        )
    );
    assert_eq!(
        init(3, r#"{"seed": 1, "type": "u8", "min": 5}"#),
        rnd(1, RandomValues::U8 { min: 5, max: 255 })
    );
    // Bounds compare by their bits.
    assert_ne!(
        RandomValues::F32 { min: 0.0, max: 1.0 },
        RandomValues::F32 {
            min: -0.0,
            max: 1.0
        }
    );
    assert_eq!(RandomValues::U8 { min: 0, max: 1 }.size(), 1);
    assert_eq!(RandomValues::S32 { min: 0, max: 1 }.type_name(), "s32");
}

/// The first values of seed 7, computed independently of `rand_xoshiro` by
/// the rule of docs/launch-format.md (xoshiro256++ from SplitMix64; its
/// first three outputs are 0x0e2c1a002aae913d, 0x2c0fc8ddfa4e9e14,
/// 0xb7b311b3b0d45872).
#[test]
fn random_values_follow_the_documented_rule() {
    let f = words(
        &random_bytes(16, r#"{"seed": 7, "type": "f32", "min": -1, "max": 1}"#),
        f32::from_le_bytes,
    );
    // -1 + (x >> 40) * 2^-23: -0.88927913, -0.65576839, 0.43515217, -0.14558041.
    let k: Vec<u32> = [928_794u32, 2_887_624, 12_038_929, 7_167_391].into();
    let want: Vec<f32> = k.iter().map(|&k| -1.0 + k as f32 / 8_388_608.0).collect();
    assert_eq!(f, want);
    assert!((f[0] + 0.889_279_1).abs() < 1e-7, "{f:?}");
    let u = words(
        &random_bytes(16, r#"{"seed": 7, "type": "u32"}"#),
        u32::from_le_bytes,
    );
    assert_eq!(u, [237771264, 739231965, 3081966003, 1834852202]);
    let s = words(
        &random_bytes(16, r#"{"seed": 7, "type": "s32", "min": -5, "max": 5}"#),
        i32::from_le_bytes,
    );
    assert_eq!(s, [-5, -4, 2, -1]);
    let b = random_bytes(8, r#"{"seed": 7, "type": "u8", "min": 10, "max": 20}"#);
    assert_eq!(b, [10, 11, 17, 14, 20, 15, 17, 13]);
    // The full ranges: s32 is u32's draw shifted by 2^31.
    let s = words(
        &random_bytes(16, r#"{"seed": 7, "type": "s32"}"#),
        i32::from_le_bytes,
    );
    let shifted: Vec<i32> = u.iter().map(|&x| (x ^ 0x8000_0000) as i32).collect();
    assert_eq!(s, shifted);
    // Another seed gives other values; the same seed the same ones.
    let r = r#"{"seed": 8, "type": "u32"}"#;
    assert_ne!(
        random_bytes(16, r),
        random_bytes(16, r#"{"seed": 7, "type": "u32"}"#)
    );
    assert_eq!(random_bytes(16, r), random_bytes(16, r));
    // A longer buffer starts with the shorter one's values.
    assert_eq!(random_bytes(64, r)[..16], random_bytes(16, r)[..]);
}

/// FNV-1a (64-bit) of `b`: a whole buffer pinned in one number.
fn fnv1a(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325, |h, &x| {
        (h ^ u64::from(x)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Whole buffers of every element type, each pinned by its hash:
/// the values computed independently of `rand_xoshiro` (SplitMix64 and
/// xoshiro256++ in Python, by the rule of docs/launch-format.md), which
/// the generator gave before and after it was rewritten to write each
/// element once (sgemm_128.json's `A` is the first: every committed
/// launch's inputs come from this rule).
#[test]
fn random_buffers_match_the_rule_in_full() {
    // (seed, type, range, bytes, FNV-1a): u32's and u8's ranges are their
    // whole types, the defaults.
    let cases = [
        (1, "f32", -1_i64, 1_i64, 65_536, 0x4b7e_4395_3414_8ae3),
        (3, "u32", 0, 4_294_967_295, 4096, 0x85e7_ac77_b9fe_ad31),
        (4, "s32", -100, 100, 4096, 0xa389_caad_dc22_2754),
        (5, "u8", 0, 255, 4099, 0x0a15_dcae_48b4_bca8),
    ];
    for (seed, ty, min, max, bytes, hash) in cases {
        let r = format!(r#"{{"seed": {seed}, "type": "{ty}", "min": {min}, "max": {max}}}"#);
        let b = random_bytes(bytes, &r);
        assert_eq!((b.len() as u64, fnv1a(&b)), (bytes, hash), "{r}");
    }
}

#[test]
fn random_values_stay_in_range() {
    let n = 4096;
    let f = words(
        &random_bytes(4 * n, r#"{"seed": 3, "type": "f32", "min": -1, "max": 1}"#),
        f32::from_le_bytes,
    );
    assert!(f.iter().all(|&x| (-1.0..1.0).contains(&x)));
    // Every value is -1 + k * 2^-23.
    assert!(f.iter().all(|&x| ((x + 1.0) * 8_388_608.0).fract() == 0.0));
    assert!(f.iter().any(|&x| x < -0.99) && f.iter().any(|&x| x > 0.99));
    // A range one single-precision step wide: rounding to `max` gives the
    // number below it, so every value is `min`.
    let min = 1000.0f32;
    let max = f32::from_bits(min.to_bits() + 1);
    let r = format!(r#"{{"seed": 3, "type": "f32", "min": {min}, "max": {max}}}"#);
    let f = words(&random_bytes(4 * n, &r), f32::from_le_bytes);
    assert!(f.iter().all(|&x| x == min), "{:?}", &f[..4]);
    // A range below zero whose top rounds to `max`: the step below a
    // negative `max` is towards minus infinity.
    let max = -1000.0f32;
    let min = f32::from_bits(max.to_bits() + 1);
    let r = format!(r#"{{"seed": 3, "type": "f32", "min": {min}, "max": {max}}}"#);
    let f = words(&random_bytes(4 * n, &r), f32::from_le_bytes);
    assert!(f.iter().all(|&x| x == min), "{:?}", &f[..4]);
    // Equal bounds: every value is that bound.
    let f = words(
        &random_bytes(16, r#"{"seed": 3, "type": "f32", "min": 2.5, "max": 2.5}"#),
        f32::from_le_bytes,
    );
    assert_eq!(f, [2.5; 4]);
    let b = random_bytes(n, r#"{"seed": 3, "type": "u8", "min": 250, "max": 255}"#);
    assert!(b.iter().all(|&x| x >= 250));
    assert!((250..=255).all(|v| b.contains(&v)));
    let s = words(
        &random_bytes(4 * n, r#"{"seed": 3, "type": "s32", "min": -2, "max": 1}"#),
        i32::from_le_bytes,
    );
    assert!((-2..=1).all(|v| s.contains(&v)) && s.iter().all(|v| (-2..=1).contains(v)));
    let u = words(
        &random_bytes(16, r#"{"seed": 3, "type": "u32", "min": 9, "max": 9}"#),
        u32::from_le_bytes,
    );
    assert_eq!(u, [9; 4]);
    assert!(random_bytes(0, r#"{"seed": 3, "type": "u32"}"#).is_empty());
}

#[test]
fn refused_random_buffers_name_the_field() {
    let e = |bytes, r: &str| random_launch(bytes, r).unwrap_err().to_string();
    // A table of cases: a buffer's size and initialiser, and the message.
    for (bytes, random, want) in [
        (
            8,
            r#"{"seed": 1, "type": "f32", "min": 1, "max": 0.5}"#,
            "buffers.a.random: min 1 is more than max 0.5",
        ),
        (
            8,
            r#"{"seed": 1, "type": "s32", "min": 2, "max": -1}"#,
            "buffers.a.random: min 2 is more than max -1",
        ),
        (
            8,
            r#"{"seed": 1, "type": "f32", "max": 1e39}"#,
            "buffers.a.random.max: 1e+39 is not a finite f32",
        ),
        (
            8,
            r#"{"seed": 1, "type": "f32", "min": "0"}"#,
            "buffers.a.random.min: \"0\" is not a finite f32",
        ),
        (
            6,
            r#"{"seed": 1, "type": "f32"}"#,
            "buffers.a.random.type: the buffer's 6 bytes are not a whole number of f32 (4 bytes each)",
        ),
        (
            8,
            r#"{"seed": 1, "type": "f64"}"#,
            "buffers.a.random.type: unknown type 'f64' (f32, u32, s32 or u8)",
        ),
        (
            8,
            r#"{"seed": 1, "type": "u8", "max": 256}"#,
            "buffers.a.random.max: 256 is not a u8",
        ),
        (
            8,
            r#"{"seed": 1, "type": "u32", "min": -1}"#,
            "buffers.a.random.min: -1 is not a u32",
        ),
        (
            8,
            r#"{"seed": 1, "type": "u32", "min": 1.0}"#,
            "buffers.a.random.min: 1.0 is not a u32",
        ),
        (
            8,
            r#"{"seed": 1, "type": "s32", "max": 2147483648}"#,
            "buffers.a.random.max: 2147483648 is not a s32",
        ),
    ] {
        assert_eq!(e(bytes, random), want, "{random}");
    }
    // JSON-shape errors: serde names the key, with line and column.
    assert!(e(8, r#"{"type": "u32"}"#).contains("missing field `seed`"));
    assert!(e(8, r#"{"seed": -1, "type": "u32"}"#).contains("line 1"));
    assert!(e(8, r#"{"seed": 1, "type": "u32", "mx": 3}"#).contains("unknown field `mx`"));
    // Exactly one initialiser.
    assert_eq!(
        err(
            r#""buffers": {"a": {"bytes": 4, "fill": 0, "random": {"seed": 1, "type": "u8"}}}, "params": []"#
        ),
        "buffers.a: needs exactly one of `file`, `fill` and `random`"
    );
}

/// Runs `f` on a thread; fails (rather than hangs) if it takes over 30 s.
fn within_30s<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(std::time::Duration::from_secs(30))
        .expect("an unbounded read: still reading after 30 s")
}

/// Issue 28: a link to `/dev/zero` (metadata: 0 bytes) as the launch file,
/// a buffer file of `bytes: 0` and an expected file is refused one byte past
/// its limit, naming the file and the limit.
#[test]
fn endless_files_are_refused_at_their_limit() {
    if !Path::new("/dev/zero").exists() {
        return;
    }
    let d = std::env::temp_dir().join(format!("sim-module-zero-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let zero = d.join("zero.lnk");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let z = zero.clone();
    let e = within_30s(move || Launch::read(&z).map(|_| ()).unwrap_err().to_string());
    assert_eq!(e, format!("{}: more than 1048576 bytes", zero.display()));
    let t = format!(
        r#"{{{BASE}, "buffers": {{"a": {{"bytes": 0, "file": "zero.lnk"}}}}, "params": [], "outputs": ["a"], "expected": {{"a": "zero.lnk"}}}}"#
    );
    let l = Launch::parse(&t, &d).unwrap();
    let l2 = Launch::parse(&t, &d).unwrap();
    let e = within_30s(move || l.load_buffers().map(|_| ()).unwrap_err().to_string());
    assert_eq!(
        e,
        format!(
            "buffers.a.file: {} holds more than 0 bytes, the buffer 0",
            zero.display()
        )
    );
    let e = within_30s(move || l2.load_expected().map(|_| ()).unwrap_err().to_string());
    assert!(
        e.starts_with("expected.a: ") && e.ends_with("holds more than 0 bytes, the buffer 0"),
        "{e}"
    );
    std::fs::remove_dir_all(&d).unwrap();
}
