//! WMMA (`wmma.load`, `wmma.mma`, `wmma.store`) in a launch:
//! `tests/data/wmma` is CUDA C++ (`wmma.cu`, `nvcuda::wmma`) compiled by
//! nvcc 13.0.88, four warps each a form (global and shared memory, row and
//! column layouts, leading dimensions 16 and 24, f32 and f16 accumulators,
//! an f32 `c` into an f16 `d`), with expected outputs from `reference.py`:
//! the products in Python integers, and warp 0's fragment elements by the
//! lane layout read from ptxas 13.0.88's machine code (docs/wmma.md).

use crate::same_on_any_threads;
use std::path::PathBuf;

fn launch() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/wmma/wmma.json")
}

/// Every output byte is the reference's, on 1 and 2 SMs and any number of
/// host threads; and a few by hand: `d[0][0]` of warp 0 and lane 5's
/// first `a` elements (row 1, columns 2 and 3 of `p[i] = i`: 18, 19).
#[test]
fn four_forms_match_the_reference() {
    for sms in [1, 2] {
        let one = same_on_any_threads(&launch(), sms);
        assert_eq!(one.launch.expected.len(), 1);
        let out = &one.buffers[1];
        assert_eq!(out.len(), 6144);
        let f = |at: usize| f32::from_le_bytes(out[at..at + 4].try_into().unwrap());
        // sum_k a[k] * b[k] + c[0]: a[k] = 7k % 5 - 2, b[k] = 3k % 7 - 3.
        let d00: i32 = (0..16).map(|k| ((7 * k) % 5 - 2) * ((3 * k) % 7 - 3)).sum();
        assert_eq!(f(0), (d00 - 100) as f32);
        // Lane 5's `x[0]`, `x[1]` of `a` (f16 18.0 = 0x4c80, 19.0 = 0x4cc0).
        let lane5 = 3072 + 5 * 32;
        assert_eq!(&out[lane5..lane5 + 4], &[0x80, 0x4c, 0xc0, 0x4c]);
    }
}

// The other shapes and types, one warp each, in PTX written here: the
// inputs are small integers (and, where a case says so, values chosen to
// pin a rounding), the expected `d` computed below from the statement's
// meaning, and each lane's fragment registers after the loads checked
// against the layout read from ptxas 13.0.88's sm_90 machine code
// (docs/wmma.md), written out here on its own in `frag_element`.

use sim_kernel::{run_grid, Prepared};

/// An element type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum T {
    Tf32,
    B1,
    F16,
    Bf16,
    F32,
    F64,
    S4,
    U4,
    S8,
    U8,
    S32,
}

impl T {
    fn word(self) -> &'static str {
        match self {
            T::Tf32 => "tf32",
            T::B1 => "b1",
            T::F16 => "f16",
            T::Bf16 => "bf16",
            T::F32 => "f32",
            T::F64 => "f64",
            T::S4 => "s4",
            T::U4 => "u4",
            T::S8 => "s8",
            T::U8 => "u8",
            T::S32 => "s32",
        }
    }

    fn bits(self) -> usize {
        match self {
            T::B1 => 1,
            T::S4 | T::U4 => 4,
            T::S8 | T::U8 => 8,
            T::F16 | T::Bf16 => 16,
            T::F32 | T::S32 | T::Tf32 => 32,
            T::F64 => 64,
        }
    }

    fn int(self) -> bool {
        matches!(self, T::B1 | T::S4 | T::U4 | T::S8 | T::U8 | T::S32)
    }

    /// The bits of `v`: integers as two's complement; f16 rounded to
    /// nearest even (ties included); bf16 exactly (the tests' inputs are);
    /// f32 toward zero, the model's final rounding (exec/mma.rs); tf32
    /// as the f32 it is (all 32 bits, the ones the tensor core ignores
    /// included).
    fn encode(self, v: f64) -> u64 {
        match self {
            T::Tf32 => {
                assert_eq!(f64::from(v as f32), v, "{v} is not an f32");
                u64::from((v as f32).to_bits())
            }
            T::B1 | T::S4 | T::U4 | T::S8 | T::U8 | T::S32 => {
                assert_eq!(v, v.trunc());
                (v as i64 as u64) & ((1u64 << self.bits()) - 1)
            }
            T::F64 => v.to_bits(),
            T::F32 => {
                let mut f = v as f32;
                if f64::from(f).abs() > v.abs() {
                    f = f32::from_bits(f.to_bits() - 1);
                }
                u64::from(f.to_bits())
            }
            T::Bf16 => {
                let b = (v as f32).to_bits();
                assert_eq!(b & 0xffff, 0, "{v} is not a bf16");
                u64::from(b >> 16)
            }
            T::F16 => {
                if v == 0.0 {
                    return 0;
                }
                let b = (v as f32).to_bits();
                assert_eq!(f64::from(f32::from_bits(b)), v);
                let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
                assert!(exp > 0 && exp < 31, "{v} is not a normal f16");
                let mant = b & 0x7f_ffff;
                let mut h = ((exp as u32) << 10) | (mant >> 13);
                let rest = mant & 0x1fff;
                if rest > 0x1000 || (rest == 0x1000 && h & 1 == 1) {
                    h += 1;
                }
                u64::from((b >> 31) << 15 | h)
            }
        }
    }
}

/// One `wmma` form: shape, types, each matrix's `.col` (`a`, `b`, `c`,
/// `d`), `.satfinite`, the rounding word and `.b1`'s operation.
pub(crate) struct Form {
    pub(crate) shape: &'static str,
    pub(crate) ab: T,
    pub(crate) c: T,
    pub(crate) d: T,
    pub(crate) col: [bool; 4],
    pub(crate) sat: bool,
    /// The rounding word written (f64): `rn`, `rz`, `rm`, `rp`.
    pub(crate) rnd: Option<&'static str>,
    /// `.b1`'s `xor` or `and` (`.popc`).
    pub(crate) bop: Option<&'static str>,
    /// Row 0 of `d` left to the caller (a directed rounding pinned by hand).
    pub(crate) own_row0: bool,
}

impl Form {
    fn mnk(&self) -> (usize, usize, usize) {
        match self.shape {
            "m16n16k16" => (16, 16, 16),
            "m32n8k16" => (32, 8, 16),
            "m8n8k4" => (8, 8, 4),
            "m8n8k32" => (8, 8, 32),
            "m16n16k8" => (16, 16, 8),
            "m8n8k128" => (8, 8, 128),
            _ => (8, 32, 16),
        }
    }

    /// `(rows, cols)` of `a`, `b`, `c`/`d`.
    fn dims(&self, which: usize) -> (usize, usize) {
        let (m, n, k) = self.mnk();
        [(m, k), (k, n), (m, n), (m, n)][which]
    }

    fn ty(&self, which: usize) -> T {
        [self.ab, self.ab, self.c, self.d][which]
    }

    /// Fragment registers: a lane's share, eight for `.f16` `a`/`b`.
    fn regs(&self, which: usize) -> usize {
        let (r, c) = self.dims(which);
        let t = self.ty(which);
        if t == T::F16 && which < 2 {
            8
        } else {
            r * c / 32 / (32 / t.bits()).max(1)
        }
    }

    /// Element offset of `(row, col)` of matrix `which` in memory (the
    /// default stride: the leading dimension).
    fn at(&self, which: usize, row: usize, col: usize) -> usize {
        let (rows, cols) = self.dims(which);
        if self.col[which] {
            col * rows + row
        } else {
            row * cols + col
        }
    }
}

/// Bytes from the buffer's start of `a`, `b`, `c`, `d` and of the
/// fragment dumps of `a`, `b`, `c` (register `k` of lane `l` at
/// `+ 256 k + 8 l`).
const BASE: [usize; 4] = [0, 1024, 2048, 3072];
const DUMP: [usize; 3] = [4096, 6144, 8192];

/// The kernel: load `a`, `b`, `c`, dump their registers, multiply, store `d`.
fn kernel_text(f: &Form) -> String {
    let pre = |w: usize| match f.ty(w) {
        T::F32 => "%f",
        T::F64 => "%fd",
        _ => "%r",
    };
    let list = |w: usize, base: usize, n: usize| {
        let r: Vec<String> = (0..n).map(|i| format!("{}{}", pre(w), base + i)).collect();
        format!("{{{}}}", r.join(", "))
    };
    let lay = |w: usize| if f.col[w] { "col" } else { "row" };
    let frag = [
        list(0, 1, f.regs(0)),
        list(1, 11, f.regs(1)),
        list(2, 21, f.regs(2)),
        list(3, 31, f.regs(3)),
    ];
    let mut body = String::new();
    for (w, x) in ["a", "b", "c"].iter().enumerate() {
        body += &format!(
            "wmma.load.{x}.sync.aligned.{}.{}.global.{} {}, [%rd{}];\n",
            lay(w),
            f.shape,
            f.ty(w).word(),
            frag[w],
            3 + w
        );
        for k in 0..f.regs(w) {
            let r = format!("{}{}", pre(w), 1 + 10 * w + k);
            let bits = f.ty(w).bits().max(32);
            body += &format!("st.global.b{bits} [%rd7+{}], {r};\n", DUMP[w] + 256 * k);
        }
    }
    let types = if f.ab == T::F16 {
        format!("{}.{}", f.d.word(), f.c.word())
    } else {
        format!(
            "{}.{}.{}.{}",
            f.d.word(),
            f.ab.word(),
            f.ab.word(),
            f.c.word()
        )
    };
    let sat = if f.sat { ".satfinite" } else { "" };
    let rn = f.rnd.map_or(String::new(), |r| format!(".{r}"));
    let bop = f.bop.map_or(String::new(), |o| format!(".{o}.popc"));
    body += &format!(
        "wmma.mma{bop}.sync.aligned.{}.{}.{}{rn}.{types}{sat} {}, {}, {}, {};\n",
        lay(0),
        lay(1),
        f.shape,
        frag[3],
        frag[0],
        frag[1],
        frag[2]
    );
    body += &format!(
        "wmma.store.d.sync.aligned.{}.{}.global.{} [%rd6], {};\n",
        lay(3),
        f.shape,
        f.d.word(),
        frag[3]
    );
    format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\
         .reg .b32 %r<40>; .reg .f32 %f<40>; .reg .f64 %fd<40>; .reg .b64 %rd<8>;\n\
         ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd3, %rd1;\n\
         add.s64 %rd4, %rd3, {};\nadd.s64 %rd5, %rd3, {};\nadd.s64 %rd6, %rd3, {};\n\
         mov.u32 %r0, %laneid;\nmul.wide.u32 %rd7, %r0, 8;\nadd.s64 %rd7, %rd3, %rd7;\n\
         {body}ret;\n}}\n",
        BASE[1], BASE[2], BASE[3]
    )
}

/// Where element `j` of fragment register `k` of `lane` lies, `(row,
/// col)`, as read from ptxas 13.0.88's sm_90 machine code (docs/wmma.md).
fn frag_element(
    shape: &str,
    which: usize,
    t: T,
    k: usize,
    lane: usize,
    j: usize,
) -> (usize, usize) {
    let (g, t4) = (lane / 4, lane % 4);
    match (shape, which, t.bits()) {
        // tf32: `HMMA.1684`'s fragments; b1: 32 bits of a row (column).
        ("m16n16k8", 0, _) => (g + 8 * (k % 2), t4 + 4 * (k / 2)),
        ("m16n16k8", 1, _) => (t4 + 4 * (k % 2), g + 8 * (k / 2)),
        ("m16n16k8", _, _) => (g + 8 * ((k / 2) % 2), 2 * t4 + k % 2 + 8 * (k / 4)),
        ("m8n8k128", 0, _) => (g, 32 * t4 + j),
        ("m8n8k128", 1, _) => (32 * t4 + j, g),
        ("m8n8k128", _, _) => (g, 2 * t4 + k),
        (_, 0, 64) => (g, t4),
        (_, 1, 64) => (t4, g),
        (_, _, 64) | ("m8n8k32", 2, 32) => (g, 2 * t4 + k),
        (_, 0, 4) => (g, 8 * t4 + j),
        (_, 1, 4) => (8 * t4 + j, g),
        (_, 0, 8) => (g + 8 * k, 4 * t4 + j),
        (_, 1, 8) => (4 * t4 + j, g + 8 * k),
        ("m16n16k16", 0, 16) => (g + 8 * (k % 2), 2 * t4 + j + 8 * ((k / 2) % 2)),
        ("m16n16k16", 1, 16) => (2 * t4 + j + 8 * (k % 2), g + 8 * ((k / 2) % 2)),
        ("m32n8k16", 0, 16) => (
            g + 8 * (k % 2) + 16 * (k / 4),
            2 * t4 + j + 8 * ((k / 2) % 2),
        ),
        ("m32n8k16", 1, 16) => (2 * t4 + j + 8 * (k % 2), g),
        ("m8n32k16", 0, 16) => (g, 2 * t4 + j + 8 * (k % 2)),
        ("m8n32k16", 1, 16) => (
            2 * t4 + j + 8 * ((k / 2) % 2),
            g + 8 * (k % 2) + 16 * (k / 4),
        ),
        ("m16n16k16", _, 32) => (g + 8 * ((k / 2) % 2), 2 * t4 + k % 2 + 8 * (k / 4)),
        ("m32n8k16", _, 32) => (g + 8 * (k / 2), 2 * t4 + k % 2),
        ("m8n32k16", _, 32) => (2 * t4 + k % 2, g + 8 * (k / 2)),
        ("m16n16k16", _, _) => (g + 8 * (k % 2), 2 * t4 + j + 8 * (k / 2)),
        ("m32n8k16", _, _) => (g + 8 * k, 2 * t4 + j),
        _ => (2 * t4 + j, g + 8 * k),
    }
}

/// Element `idx` (of `bits` bits) of the matrix at byte `base` of `buf`:
/// 4-bit elements two to a byte, the even one in the low nibble (as
/// ptxas's unpacking reads them).
fn get_elem(buf: &[u8], base: usize, idx: usize, bits: usize) -> u64 {
    if bits == 1 {
        return u64::from(buf[base + idx / 8] >> (idx % 8) & 1);
    }
    if bits == 4 {
        return u64::from(buf[base + idx / 2] >> (4 * (idx % 2)) & 0xf);
    }
    let (at, n) = (base + idx * bits / 8, bits / 8);
    let mut x = [0u8; 8];
    x[..n].copy_from_slice(&buf[at..at + n]);
    u64::from_le_bytes(x)
}

/// Writes element `idx` as [`get_elem`] reads it.
fn put_elem(buf: &mut [u8], base: usize, idx: usize, bits: usize, v: u64) {
    if bits == 1 {
        let b = &mut buf[base + idx / 8];
        *b = (*b & !(1 << (idx % 8))) | ((v as u8 & 1) << (idx % 8));
        return;
    }
    if bits == 4 {
        let sh = 4 * (idx % 2);
        let b = &mut buf[base + idx / 2];
        *b = (*b & !(0xf << sh)) | ((v as u8 & 0xf) << sh);
        return;
    }
    let (at, n) = (base + idx * bits / 8, bits / 8);
    buf[at..at + n].copy_from_slice(&v.to_le_bytes()[..n]);
}

/// Runs `f` on inputs `a(i, k)`, `b(k, j)`, `c(i, j)` (values), checks
/// the fragment dumps and every element of `d` against the exact sum,
/// wrapped or clamped for the integers and rounded by [`T::encode`] (tf32
/// sources with their low 13 bits cleared; `.b1` products the bits' AND or
/// XOR); returns `d`'s bits, `[row][col]`.
pub(crate) fn run_form(
    f: &Form,
    a: impl Fn(usize, usize) -> f64,
    b: impl Fn(usize, usize) -> f64,
    c: impl Fn(usize, usize) -> f64,
) -> Vec<Vec<u64>> {
    let (m, n, kk) = f.mnk();
    let src = kernel_text(f);
    let module = sim_module::parse_module(&src, "k.ptx").unwrap_or_else(|e| panic!("{e}\n{src}"));
    let launch = sim_module::Launch::parse(
        r#"{"ptx": "k.ptx", "entry": "k", "grid": [1,1,1], "block": [32,1,1],
           "buffers": {"b": {"bytes": 16384, "fill": 0}}, "params": [{"buffer": "b"}]}"#,
        std::path::Path::new("."),
    )
    .unwrap();
    let mut bufs = launch.load_buffers().unwrap();
    let vals: [&dyn Fn(usize, usize) -> f64; 3] = [&a, &b, &c];
    for w in 0..3 {
        let (rows, cols) = f.dims(w);
        let bits = f.ty(w).bits();
        for r in 0..rows {
            for col in 0..cols {
                let v = f.ty(w).encode(vals[w](r, col));
                put_elem(&mut bufs[0], BASE[w], f.at(w, r, col), bits, v);
            }
        }
    }
    let input = bufs[0].clone();
    let prep = Prepared::new(&module, &launch, bufs).unwrap();
    let run = run_grid(&prep, &launch, &crate::opts(1, 1)).unwrap();
    let out = &run.global.regions[0].bytes;
    let get = |at: usize, bytes: usize| {
        let mut x = [0u8; 8];
        x[..bytes].copy_from_slice(&out[at..at + bytes]);
        u64::from_le_bytes(x)
    };
    // Fragment registers as ptxas's machine code fills them.
    for w in 0..3 {
        let t = f.ty(w);
        for k in 0..f.regs(w) {
            for lane in 0..32 {
                let mut want = 0u64;
                for j in 0..(32 / t.bits()).max(1) {
                    let (r, col) = frag_element(f.shape, w, t, k, lane, j);
                    let e = get_elem(&input, BASE[w], f.at(w, r, col), t.bits());
                    want |= e << (t.bits() * j);
                }
                let got = get(DUMP[w] + 256 * k + 8 * lane, t.bits().max(32) / 8);
                assert_eq!(got, want, "{} matrix {w} register {k} lane {lane}", f.shape);
            }
        }
    }
    let mut d = vec![vec![0u64; n]; m];
    let eb = f.d.bits() / 8;
    let tf = |v: f64| {
        if f.ab == T::Tf32 {
            f64::from(f32::from_bits((v as f32).to_bits() & 0xffff_e000))
        } else {
            v
        }
    };
    let prod = |x: f64, y: f64| match f.bop {
        Some("xor") => x + y - 2.0 * x * y,
        _ => tf(x) * tf(y),
    };
    for (i, row) in d.iter_mut().enumerate() {
        for (j, out) in row.iter_mut().enumerate() {
            // f64: a chain of fused multiply-adds from `c` in `k` order.
            let s: f64 = if f.d == T::F64 {
                (0..kk).fold(c(i, j), |s, x| a(i, x).mul_add(b(x, j), s))
            } else {
                (0..kk).map(|x| prod(a(i, x), b(x, j))).sum::<f64>() + c(i, j)
            };
            let want = if f.d.int() {
                let s = s as i64;
                // `.satfinite` clamps, the 4-bit forms too (ptxas's
                // sm_90 code checks their add to `c` on the signs).
                let s = if f.sat {
                    s.clamp(i64::from(i32::MIN), i64::from(i32::MAX))
                } else {
                    s
                };
                T::S32.encode(f64::from(s as i32))
            } else {
                f.d.encode(s)
            };
            *out = get(BASE[3] + eb * f.at(3, i, j), eb);
            if f.own_row0 && i == 0 {
                continue;
            }
            assert_eq!(*out, want, "{} d[{i}][{j}] (exact sum {s})", f.shape);
        }
    }
    d
}

/// Small integers, different for each matrix and position.
pub(crate) fn small(seed: usize, lo: i64, span: i64) -> impl Fn(usize, usize) -> f64 {
    move |r, c| ((r * 7 + c * 3 + seed * 5) as i64 % span + lo) as f64
}

/// `at(r, c)` where it answers, `rest(r, c)` elsewhere: inputs with a few
/// chosen elements among small ones.
fn but(
    at: impl Fn(usize, usize) -> Option<f64>,
    rest: impl Fn(usize, usize) -> f64,
) -> impl Fn(usize, usize) -> f64 {
    move |r, c| at(r, c).unwrap_or_else(|| rest(r, c))
}

pub(crate) const F: bool = false;
pub(crate) const C: bool = true;

pub(crate) fn form(shape: &'static str, ab: T, c: T, d: T, col: [bool; 4]) -> Form {
    Form {
        shape,
        ab,
        c,
        d,
        col,
        sat: false,
        rnd: None,
        bop: None,
        own_row0: false,
    }
}

#[test]
fn m32n8k16_f16_with_f32_accumulators() {
    let f = form("m32n8k16", T::F16, T::F32, T::F32, [F, C, F, C]);
    let d = run_form(&f, small(1, -3, 7), small(2, -2, 5), small(3, -50, 100));
    // One element by hand: a[0][k] = (3k + 5) % 7 - 3, b[k][0] =
    // (7k + 10) % 5 - 2, c[0][0] = -35.
    let want: i64 = (0..16)
        .map(|k| (((3 * k + 5) % 7) - 3) * (((7 * k + 10) % 5) - 2))
        .sum::<i64>()
        - 35;
    assert_eq!(d[0][0], u64::from((want as f32).to_bits()));
}

/// Forms `run_form`'s own checks cover (fragments, every element of `d`):
/// f16 with f16 accumulators, an f16 `c` into an f32 `d`, bf16.
#[test]
fn f16_and_bf16_forms_match_the_exact_sums() {
    let forms = [
        (
            ("m32n8k16", T::F16, T::F16, T::F16, [C, F, C, F]),
            [(4, -3, 7), (5, -3, 7), (6, -20, 40)],
        ),
        (
            ("m8n32k16", T::F16, T::F16, T::F32, [F, F, F, F]),
            [(7, -3, 7), (8, -2, 5), (9, -30, 60)],
        ),
        (
            ("m16n16k16", T::Bf16, T::F32, T::F32, [F, C, F, F]),
            [(1, -3, 7), (2, -3, 7), (3, -50, 100)],
        ),
        (
            ("m32n8k16", T::Bf16, T::F32, T::F32, [C, F, C, F]),
            [(4, -3, 7), (5, -3, 7), (6, -50, 100)],
        ),
    ];
    for ((shape, ab, c, d, col), [x, y, z]) in forms {
        let f = form(shape, ab, c, d, col);
        run_form(
            &f,
            small(x.0, x.1, x.2),
            small(y.0, y.1, y.2),
            small(z.0, z.1, z.2),
        );
    }
}

/// An f32 `c` into an f16 `d`: summed in f32, then rounded to nearest even
/// (`F2FP.F16.F32.PACK_AB`): 2048 + 1 is a tie that goes down to 2048,
/// 2050 + 1 one that goes up to 2052.
#[test]
fn m8n32k16_f32_c_into_f16_d_rounds_to_nearest_even() {
    let f = form("m8n32k16", T::F16, T::F32, T::F16, [C, C, C, C]);
    let a = but(
        |i, k| (i == 0).then_some(f64::from(u8::from(k == 0))),
        small(1, -3, 7),
    );
    let b = but(|k, j| (k == 0 && j < 2).then_some(1.0), small(2, -3, 7));
    let c = |i: usize, j: usize| match (i, j) {
        (0, 0) => 2048.0,
        (0, 1) => 2050.0,
        _ => small(3, -9, 18)(i, j),
    };
    let d = run_form(&f, a, b, c);
    assert_eq!((d[0][0], d[0][1]), (0x6800, 0x6802));
}

/// bf16 with a sum f32 cannot hold: `1 + 3 * 2^-25` is `1` under the
/// model's final rounding toward zero (exec/mma.rs; the terms are
/// multiples of `2^(0 - 25)`, so its truncation keeps them whole). IEEE
/// round-to-nearest would give `1 + 2^-23`. The model's, not measured.
#[test]
fn m8n32k16_bf16_sum_rounds_toward_zero() {
    let f = form("m8n32k16", T::Bf16, T::F32, T::F32, [F, C, C, F]);
    let tiny = |k: usize| if k < 3 { 2f64.powi(-12) } else { 0.0 };
    let a = but(|i, k| (i == 0).then_some(tiny(k)), small(7, -3, 7));
    let b = but(
        |k, j| (j == 0).then_some(2f64.powi(-13) * f64::from(u8::from(k < 3))),
        small(8, -3, 7),
    );
    let c = but(|i, j| ((i, j) == (0, 0)).then_some(1.0), small(9, -50, 100));
    let d = run_form(&f, a, b, c);
    assert_eq!(d[0][0], u64::from(1f32.to_bits()));
}

/// s8 products summed exactly; past the s32 range the sum wraps.
#[test]
fn m16n16k16_s8_wraps() {
    let f = form("m16n16k16", T::S8, T::S32, T::S32, [F, C, F, C]);
    let c = but(
        |i, _| (i == 0).then_some(f64::from(i32::MAX) - 3.0),
        small(1, -1000, 2000),
    );
    let d = run_form(&f, small(2, -128, 256), small(3, -128, 256), c);
    // Row 0 of `a` times column 0 of `b` is positive here: wrapped.
    assert!((d[0][0] as u32) >= 0x8000_0000);
}

/// u8 with `.satfinite`: a sum past `i32::MAX` clamps there.
#[test]
fn m32n8k16_u8_satfinite_clamps() {
    let mut f = form("m32n8k16", T::U8, T::S32, T::S32, [C, F, C, F]);
    f.sat = true;
    let c = but(
        |i, _| (i == 0).then_some(f64::from(i32::MAX) - 5.0),
        small(4, -1000, 2000),
    );
    let d = run_form(&f, small(5, 0, 256), small(6, 0, 256), c);
    assert_eq!(d[0][0], 0x7fff_ffff);
}

/// s8 with `.satfinite` below the range: clamps at `i32::MIN`.
#[test]
fn m8n32k16_s8_satfinite_clamps_low() {
    let mut f = form("m8n32k16", T::S8, T::S32, T::S32, [F, F, F, F]);
    f.sat = true;
    let a = but(|i, _| (i == 0).then_some(127.0), small(7, -128, 256));
    let b = but(|_, j| (j == 0).then_some(-128.0), small(8, -128, 256));
    let c = but(
        |i, j| ((i, j) == (0, 0)).then_some(f64::from(i32::MIN) + 7.0),
        small(9, -1000, 2000),
    );
    let d = run_form(&f, a, b, c);
    assert_eq!(d[0][0], 0x8000_0000);
}

/// f64 (`m8n8k4`, `DMMA.8x8x4`): each element a chain of IEEE fused
/// multiply-adds from `c` in `k` order (exec/mma.rs's rule, the model's,
/// not measured): `1 + 2^-53 + 2^-53` is `1` (each step a tie to even),
/// where one rounding of the exact sum would give `1 + 2^-52`.
#[test]
fn m8n8k4_f64_is_a_chain_of_fmas() {
    let f = form("m8n8k4", T::F64, T::F64, T::F64, [F, C, C, F]);
    let a = but(
        |i, k| (i == 0).then_some(2f64.powi(-27) * f64::from(u8::from(k < 2))),
        small(1, -9, 19),
    );
    let b = but(
        |k, j| (j == 0).then_some(2f64.powi(-26) * f64::from(u8::from(k < 2))),
        small(2, -9, 19),
    );
    let c = but(|i, j| ((i, j) == (0, 0)).then_some(1.0), small(3, -99, 199));
    let d = run_form(&f, a, b, c);
    assert_eq!(d[0][0], 1f64.to_bits());
}

/// f64 with `.rn` written and the other layouts.
#[test]
fn m8n8k4_f64_rn() {
    let mut f = form("m8n8k4", T::F64, T::F64, T::F64, [C, F, F, C]);
    f.rnd = Some("rn");
    run_form(&f, small(4, -9, 19), small(5, -9, 19), small(6, -99, 199));
}

/// s4 (`m8n8k32`): products of -8..7 summed exactly.
#[test]
fn m8n8k32_s4() {
    let f = form("m8n8k32", T::S4, T::S32, T::S32, [F, C, C, F]);
    let d = run_form(&f, small(1, -8, 16), small(2, -8, 16), small(3, -500, 1000));
    // Row 0, column 0 by hand: a[0][k] = (3k + 5) % 16 - 8, b[k][0] =
    // (7k + 10) % 16 - 8, c[0][0] = 15 - 500.
    let want: i64 = (0..32)
        .map(|k| ((3 * k + 5) % 16 - 8) * ((7 * k + 10) % 16 - 8))
        .sum::<i64>()
        - 485;
    assert_eq!(d[0][0], u64::from(want as i32 as u32));
}

/// u4 with `.satfinite`: ptxas 13.0.88's sm_90 code adds the byte
/// `IMMA`s' sums to `c` with `IMAD.IADD`, then tests the signs of the
/// addends and the sum (`PLOP3.LUT ... R.SIGN`) and `SEL`s `0x7fffffff`:
/// past `i32::MAX` it clamps (the SASS oracle's vectors,
/// sim-isa/tests/it/wmma_sass.rs).
#[test]
fn m8n8k32_u4_satfinite_clamps_as_the_machine_code_does() {
    let mut f = form("m8n8k32", T::U4, T::S32, T::S32, [F, C, F, C]);
    f.sat = true;
    let c = but(
        |i, _| (i == 0).then_some(f64::from(i32::MAX) - 2.0),
        small(4, -500, 1000),
    );
    let d = run_form(&f, small(5, 1, 15), small(6, 1, 15), c);
    assert_eq!(d[0][0], 0x7fff_ffff);
}
