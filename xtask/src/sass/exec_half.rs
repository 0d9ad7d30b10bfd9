//! Packed half arithmetic: `HADD2`, `HMUL2`, `HFMA2` (and `HFMA2.MMA`) and
//! `HMNMX2`, each on f16 pairs or (`.BF16_V2`) bf16 pairs, with `.FTZ`,
//! `.SAT`, `.RELU` (`HFMA2`) and (`HMNMX2`) `.NAN`.
//!
//! The arithmetic is exact by construction, independent of sim-isa's f64
//! route: each half is decoded to a sign, an integer and a power of two;
//! the product is formed in integers, the sum in 128-bit integers at the
//! smaller exponent, and the exact result is rounded once to nearest even
//! by integer shifts. Where an fma's addends are so far apart that the
//! integers would not hold them aligned (bf16), the smaller is replaced by
//! a value of its sign still far below the larger's last bit, which rounds
//! the same (it lies strictly between the same two multiples of any
//! rounding step of 11 bits or fewer).
//!
//! What these opcodes do with special values is modelled, not measured (no
//! H100 has run them for this project): a NaN result is `0x7fff` (the
//! H100's f32 opcodes return `0x7fffffff`, its f16 conversions `0x7fff`);
//! `.FTZ` flushes subnormal sources, and results that are tiny after
//! rounding in IEEE 754's sense (rounded to the format's precision with an
//! unbounded exponent, below the smallest normal number: an H200 showed it
//! for `HMUL2.FTZ` over the whole f16 domain, `tools/gpu/domain`;
//! `HFMA2.FTZ` is taken to do the same, it is the same unit); `.SAT` clamps
//! to [+0, 1], NaN
//! to +0; `.RELU` makes a negative result and -0 +0 (max(+0, r)), a NaN
//! kept; `HMNMX2` picks the minimum when its predicate is true, orders -0
//! below +0, returns the other source when one is NaN, and `0x7fff` when
//! both are (or, `.NAN`, either).

use super::decode::{Opnd, SInst};
use super::Machine;
use anyhow::{bail, Result};

/// A half format: stored mantissa bits, exponent bits.
#[derive(Clone, Copy)]
struct Fmt {
    mbits: u32,
    ebits: u32,
}

const F16: Fmt = Fmt {
    mbits: 10,
    ebits: 5,
};
const BF16: Fmt = Fmt { mbits: 7, ebits: 8 };
const NAN: u16 = 0x7fff;

/// A decoded half: NaN, a signed infinity, or `(-1)^neg * m * 2^e`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Val {
    Nan,
    Inf(bool),
    Fin { neg: bool, m: u128, e: i32 },
}

impl Fmt {
    fn bias(self) -> i32 {
        (1 << (self.ebits - 1)) - 1
    }
    fn emask(self) -> u16 {
        (((1u32 << self.ebits) - 1) << self.mbits) as u16
    }
    fn flush(self, v: u16, ftz: bool) -> u16 {
        if ftz && v & self.emask() == 0 {
            v & 0x8000
        } else {
            v
        }
    }
    /// Whether the exact finite nonzero `x` is tiny after rounding: rounded
    /// to nearest even at the format's precision with an unbounded
    /// exponent, it is below the smallest normal number in magnitude.
    fn tiny(self, x: Val) -> bool {
        let Val::Fin { m, e, .. } = x else {
            return false;
        };
        if m == 0 {
            return false;
        }
        let p = self.mbits + 1;
        let width = 128 - m.leading_zeros();
        let (mut n, mut e) = (m, e);
        if width > p {
            let s = width - p;
            let (k, rem, half) = (m >> s, m & ((1u128 << s) - 1), 1u128 << (s - 1));
            n = k + u128::from(rem > half || (rem == half && k & 1 == 1));
            e += s as i32;
        }
        // |x| rounded = n * 2^e; its top bit's exponent against the smallest normal's.
        let top = e + 127 - n.leading_zeros() as i32;
        top < 1 - self.bias()
    }
    fn decode(self, v: u16) -> Val {
        let neg = v & 0x8000 != 0;
        let field = i32::from((v & self.emask()) >> self.mbits);
        let man = u128::from(v & ((1 << self.mbits) - 1));
        if v & self.emask() == self.emask() {
            return if man == 0 { Val::Inf(neg) } else { Val::Nan };
        }
        let m = if field == 0 {
            man
        } else {
            man | 1 << self.mbits
        };
        let e = field.max(1) - self.bias() - self.mbits as i32;
        Val::Fin { neg, m, e }
    }
    /// The exact `x` rounded to nearest even.
    fn encode(self, x: Val) -> u16 {
        let (neg, m, e) = match x {
            Val::Nan => return NAN,
            Val::Inf(neg) => return u16::from(neg) << 15 | self.emask(),
            Val::Fin { neg, m, e } => (neg, m, e),
        };
        let sign = u16::from(neg) << 15;
        if m == 0 {
            return sign;
        }
        let mb = self.mbits as i32;
        let top = e + 127 - m.leading_zeros() as i32;
        let mut q = (top - mb).max(1 - self.bias() - mb);
        let s = q - e;
        let mut n = if s <= 0 {
            m << -s
        } else if s >= 128 {
            0
        } else {
            let (k, rem, half) = (m >> s, m & ((1u128 << s) - 1), 1u128 << (s - 1));
            k + u128::from(rem > half || (rem == half && k & 1 == 1))
        };
        if n >> (mb + 1) != 0 {
            n >>= 1;
            q += 1;
        }
        if n >> mb == 0 {
            return sign | n as u16;
        }
        let field = q + mb + self.bias();
        if field >= (1 << self.ebits) - 1 {
            return sign | self.emask();
        }
        sign | (field as u16) << self.mbits | (n as u16 & ((1 << self.mbits) - 1))
    }
}

/// The exact product.
fn mul(a: Val, b: Val) -> Val {
    match (a, b) {
        (Val::Nan, _) | (_, Val::Nan) => Val::Nan,
        (Val::Inf(_), Val::Fin { m: 0, .. }) | (Val::Fin { m: 0, .. }, Val::Inf(_)) => Val::Nan,
        (Val::Inf(x), Val::Inf(y))
        | (Val::Inf(x), Val::Fin { neg: y, .. })
        | (Val::Fin { neg: x, .. }, Val::Inf(y)) => Val::Inf(x != y),
        (Val::Fin { neg: x, m, e }, Val::Fin { neg: y, m: n, e: f }) => Val::Fin {
            neg: x != y,
            m: m * n,
            e: e + f,
        },
    }
}

/// The exact sum (round to nearest's zero signs; module comment for
/// far-apart addends).
fn add(a: Val, b: Val) -> Val {
    let (x, y) = match (a, b) {
        (Val::Nan, _) | (_, Val::Nan) => return Val::Nan,
        (Val::Inf(p), Val::Inf(q)) if p != q => return Val::Nan,
        (Val::Inf(p), _) | (_, Val::Inf(p)) => return Val::Inf(p),
        (
            Val::Fin { neg, m, e },
            Val::Fin {
                neg: n2,
                m: m2,
                e: e2,
            },
        ) => ((neg, m, e), (n2, m2, e2)),
    };
    if x.1 == 0 && y.1 == 0 {
        return Val::Fin {
            neg: x.0 && y.0,
            m: 0,
            e: 0,
        };
    }
    // One zero: the other, exactly (its integer may not shift far).
    if y.1 == 0 {
        return a;
    }
    if x.1 == 0 {
        return b;
    }
    let (x, y) = (sticky(x, y), sticky(y, x));
    let e = x.2.min(y.2);
    let signed = |(neg, m, f): (bool, u128, i32)| {
        let v = (m << (f - e)) as i128;
        if neg {
            -v
        } else {
            v
        }
    };
    let v = signed(x) + signed(y);
    Val::Fin {
        neg: v < 0,
        m: v.unsigned_abs(),
        e,
    }
}

/// `x`, or a stand-in for it when `y`'s last bit is more than 100 binary
/// places above it (both nonzero): the integers then hold both.
fn sticky(x: (bool, u128, i32), y: (bool, u128, i32)) -> (bool, u128, i32) {
    if y.2 - x.2 > 100 {
        (x.0, 1, y.2 - 100)
    } else {
        x
    }
}

/// The value of finite `v` (exact in f64).
fn value(f: Fmt, v: u16) -> f64 {
    match f.decode(v) {
        Val::Fin { neg, m, e } => {
            let x = m as f64 * 2f64.powi(e);
            if neg {
                -x
            } else {
                x
            }
        }
        Val::Inf(neg) => {
            if neg {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            }
        }
        Val::Nan => f64::NAN,
    }
}

/// `.SAT` on an f16 result.
fn sat(v: u16) -> u16 {
    match F16.decode(v) {
        Val::Nan => 0,
        Val::Fin { neg: true, .. } | Val::Inf(true) => 0,
        _ if v > 0x3c00 => 0x3c00,
        _ => v,
    }
}

/// `a < b` for non-NaN halves (either format: sign and magnitude order
/// alike), -0 below +0.
fn less(a: u16, b: u16) -> bool {
    let key = |v: u16| {
        let mag = i32::from(v & 0x7fff);
        if v & 0x8000 != 0 {
            -mag - 1
        } else {
            mag
        }
    };
    key(a) < key(b)
}

impl Machine {
    /// `HADD2`, `HMUL2`, `HFMA2` with register sources, `HMNMX2`.
    pub(super) fn half_arith(&mut self, i: &SInst) -> Result<()> {
        for m in &i.mods {
            if !matches!(
                m.as_str(),
                "FTZ" | "SAT" | "MMA" | "BF16_V2" | "NAN" | "RELU"
            ) {
                bail!("{}.{m} not modelled", i.op);
            }
        }
        let f = if i.has("BF16_V2") { BF16 } else { F16 };
        let ftz = i.has("FTZ");
        let o = &i.ops;
        let srcs = self.half_sources(i, f)?;
        let n = if i.op == "HFMA2" { 3 } else { 2 };
        if srcs.len() != n {
            bail!("{} with {} sources", i.op, srcs.len());
        }
        let src = |k: usize| -> Result<[u16; 2]> { Ok(srcs[k - 1].map(|v| f.flush(v, ftz))) };
        let (a, b) = (src(1)?, src(2)?);
        let mut out = [0u16; 2];
        for k in 0..2 {
            let (x, y) = (f.decode(a[k]), f.decode(b[k]));
            let r = match i.op.as_str() {
                "HMNMX2" => {
                    let min = self.pred(o.last().unwrap_or(&o[0]))?;
                    out[k] = minmax(f, a[k], b[k], min, i.has("NAN"));
                    continue;
                }
                "HADD2" => add(x, y),
                "HMUL2" => mul(x, y),
                "HFMA2" => add(mul(x, y), f.decode(src(3)?[k])),
                other => bail!("{other} is no half arithmetic"),
            };
            let r = match r {
                Val::Fin { neg, .. } if ftz && f.tiny(r) => u16::from(neg) << 15,
                r => f.encode(r),
            };
            out[k] = if i.has("SAT") {
                sat(r)
            } else if i.has("RELU") && r & 0x8000 != 0 {
                0
            } else {
                r
            };
        }
        self.set(
            Self::dst(&o[0])?,
            u32::from(out[1]) << 16 | u32::from(out[0]),
        );
        Ok(())
    }

    /// The sources of a half opcode after its destination, up to a
    /// predicate: registers (swizzle, `-`, `|..|` applied), and pairs of
    /// immediates, which nvdisasm prints high half first as values of the
    /// opcode's format (`HFMA2.MMA R7, R0, 1, 1, R5`).
    fn half_sources(&self, i: &SInst, f: Fmt) -> Result<Vec<[u16; 2]>> {
        let imm = |x: &Opnd| -> Result<u16> {
            let v = match x {
                Opnd::FImm(v) if v.is_nan() => bail!("NaN immediate printed without its payload"),
                Opnd::FImm(v) => *v,
                Opnd::Imm(v) => *v as f64,
                _ => bail!("half immediate {x:?}"),
            };
            let bits = if f.ebits == 5 {
                half::f16::from_f64(v).to_bits()
            } else {
                half::bf16::from_f64(v).to_bits()
            };
            if f.decode(bits) != Val::Nan && value(f, bits) != v {
                bail!("immediate {v} is not a half value");
            }
            Ok(bits)
        };
        let mut out = Vec::new();
        let mut k = 1;
        while k < i.ops.len() {
            match &i.ops[k] {
                Opnd::Pred { .. } => break,
                x @ (Opnd::FImm(_) | Opnd::Imm(_)) => {
                    let lo = i.ops.get(k + 1).map(imm).transpose()?;
                    out.push([lo.unwrap_or(0), imm(x)?]);
                    k += 2;
                    continue;
                }
                x => out.push(self.halves(x)?),
            }
            k += 1;
        }
        Ok(out)
    }

    /// `HFMA2`: the constant-materialising form (`-RZ, RZ, hi, lo`), else
    /// the arithmetic.
    pub(super) fn hfma2_any(&mut self, i: &SInst) -> Result<()> {
        let imm = |x: &Opnd| matches!(x, Opnd::FImm(_) | Opnd::Imm(_));
        if i.ops.len() == 5 && imm(&i.ops[3]) && imm(&i.ops[4]) {
            return self.hfma2(i);
        }
        self.half_arith(i)
    }
}

/// One half of `HMNMX2` (module comment).
fn minmax(f: Fmt, a: u16, b: u16, min: bool, nan: bool) -> u16 {
    let is_nan = |v: u16| f.decode(v) == Val::Nan;
    match (is_nan(a), is_nan(b)) {
        (true, true) => NAN,
        (true, false) | (false, true) if nan => NAN,
        (true, false) => b,
        (false, true) => a,
        (false, false) => {
            if less(a, b) == min {
                a
            } else {
                b
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Adds, products and fmas of f16 values exact in f64 (every sum of two
    /// f16 is; products too) round as the `half` crate rounds the f64.
    #[test]
    fn f16_matches_half_crate_rounding() {
        let mut seed = 0x1234_5678_9abc_def0u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed & 0xffff) as u16
        };
        let finite = |v: u16| v & 0x7c00 != 0x7c00;
        for _ in 0..20000 {
            let (a, b) = (next(), next());
            if !finite(a) || !finite(b) {
                continue;
            }
            let (x, y) = (
                half::f16::from_bits(a).to_f64(),
                half::f16::from_bits(b).to_f64(),
            );
            let sum = F16.encode(add(F16.decode(a), F16.decode(b)));
            assert_eq!(sum, half::f16::from_f64(x + y).to_bits(), "{a:#x}+{b:#x}");
            let prod = F16.encode(mul(F16.decode(a), F16.decode(b)));
            assert_eq!(prod, half::f16::from_f64(x * y).to_bits(), "{a:#x}*{b:#x}");
        }
    }

    /// sim-isa's `float_lane` (its f64 route) against this exact model:
    /// `add sub mul fma.rn` on `.f16` (every finite input, subnormals
    /// included) and `.bf16` (exponent fields 110..=144, where ties are
    /// common, and every finite input: this model holds far-apart
    /// addends), 3000 drawn inputs per operation and range, each also as the high
    /// half of the packed form (the low half, 0x3c00 throughout, as the
    /// scalar form gives it). (This property test lived in sim-isa's
    /// `tests/it/half_arith.rs` with a reference of its own that repeated
    /// this model's rounding.)
    #[test]
    fn sim_isa_rounds_as_this_model() {
        let lane = |text: &str, a: u64, b: u64, c: u64| {
            let i = sim_isa::parse::parse_instruction(text, &mut sim_isa::Symbols::new());
            let Ok(sim_isa::Instruction {
                op: sim_isa::Op::Float(x),
                ..
            }) = i
            else {
                panic!("{text}: {i:?}")
            };
            sim_isa::exec::float_lane(&x, a, b, c)
        };
        let mut rng = crate::rng::Rng::new(0x0bad_5eed_1234_5678);
        let ranges = [
            (F16, "f16", 0, 30),
            (BF16, "bf16", 110, 144),
            (BF16, "bf16", 0, 254),
        ];
        for (f, ty, lo, hi) in ranges {
            let mut finite = || {
                let r = rng.next_u64();
                let field = lo + (r >> 16) as u16 % (hi - lo + 1);
                (r >> 40) as u16 & 0x8000 | field << f.mbits | r as u16 & ((1 << f.mbits) - 1)
            };
            for op in ["add", "sub", "mul", "fma"] {
                let text = match op {
                    "fma" => format!("fma.rn.{ty} %h1, %h2, %h3, %h4;"),
                    _ => format!("{op}.{ty} %h1, %h2, %h3;"),
                };
                let packed = text.replace(&format!(".{ty} "), &format!(".{ty}x2 "));
                // The packed forms' low halves: 0x3c00 (1 in f16) throughout.
                let one = 0x3c00u16;
                let low = lane(&text, one.into(), one.into(), one.into());
                for _ in 0..3000 {
                    let (a, b, c) = (finite(), finite(), finite());
                    let (da, db, dc) = (f.decode(a), f.decode(b), f.decode(c));
                    let want = f.encode(match op {
                        "add" => add(da, db),
                        "sub" => add(da, f.decode(b ^ 0x8000)),
                        "mul" => mul(da, db),
                        _ => add(mul(da, db), dc),
                    });
                    let got = lane(&text, a.into(), b.into(), c.into());
                    assert_eq!(got, u64::from(want), "{text} {a:#06x} {b:#06x} {c:#06x}");
                    // Each half of the packed form is the scalar form.
                    let p = |v: u16| u64::from(v) << 16 | u64::from(one);
                    let got2 = lane(&packed, p(a), p(b), p(c));
                    assert_eq!(
                        got2 >> 16,
                        u64::from(want),
                        "{packed} {a:#06x} {b:#06x} {c:#06x}"
                    );
                    assert_eq!(got2 & 0xffff, low, "{packed}");
                }
            }
        }
    }

    /// A bf16 fma whose addend lies far below the product keeps its sign's
    /// pull on a tie: 1.5 * (1 + 2^-7) = 1.5 + 1.5 * 2^-7 is a tie in
    /// bf16 (spacing 2^-7 above 1), and -2^-130 moves it down.
    #[test]
    fn far_addend_breaks_a_tie() {
        let p = mul(BF16.decode(0x3fc0), BF16.decode(0x3f81));
        assert_eq!(BF16.encode(add(p, BF16.decode(0))), 0x3fc2);
        assert_eq!(BF16.encode(add(p, BF16.decode(0x8001))), 0x3fc1);
    }
}
