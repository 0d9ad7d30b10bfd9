//! The H100's MUFU result tables: committed compressed (`sim-isa/data/mufu/`,
//! written by `tools/mufu/build_tables.py` from whole-domain dumps of each
//! MUFU operation on the GPU), decoded on first use into a compact
//! random-access form.
//!
//! A file is zlib of `b"MUFU" | n: u32 | n_esc: u32 | n x i8 | n_esc x (u32,
//! i64)` (little endian): the second difference `d[i] = v[i] - 2 v[i-1] +
//! v[i-2]` of the results `v` as integers (`v[-1] = v[-2] = 0`), `-128`
//! marking an escape whose value the list holds.
//!
//! In memory each entry's difference is two bits (0, +1, -1, or "escaped":
//! a sorted list holds the rest), and every [`BLOCK`]th entry keeps its value
//! and first difference, so a lookup sums at most `BLOCK - 1` differences and
//! never allocates. Half a byte per entry (42 MB if every table is used).

use std::sync::OnceLock;

/// Entries between checkpoints.
const BLOCK: usize = 32;

/// One decoded table.
pub(super) struct Table {
    /// Two bits per entry: 0 -> 0, 1 -> +1, 2 -> -1, 3 -> escaped.
    codes: Vec<u64>,
    /// Indices of the escaped second differences, ascending.
    esc_at: Vec<u32>,
    /// Their values.
    esc_val: Vec<i64>,
    /// The value at each checkpoint.
    base: Vec<u32>,
    /// The first difference `v[i] - v[i-1]` at each checkpoint (modulo
    /// 2^32, as all the sums: the results are 32-bit).
    slope: Vec<u32>,
}

fn le32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn le64(b: &[u8], at: usize) -> Option<i64> {
    Some(i64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

impl Table {
    /// Decodes a committed file (`None` if malformed: the tests decode
    /// every one).
    fn decode(z: &[u8]) -> Option<Table> {
        let raw = miniz_oxide::inflate::decompress_to_vec_zlib(z).ok()?;
        if raw.get(..4)? != b"MUFU" {
            return None;
        }
        let (n, n_esc) = (le32(&raw, 4)? as usize, le32(&raw, 8)? as usize);
        let stream = raw.get(12..12 + n)?;
        let list = raw.get(12 + n..)?;
        if list.len() != n_esc * 12 {
            return None;
        }
        let mut escapes = (0..n_esc).map(|k| (le32(list, 12 * k), le64(list, 12 * k + 4)));
        let mut t = Table {
            codes: vec![0; n.div_ceil(32)],
            esc_at: Vec::new(),
            esc_val: Vec::new(),
            base: Vec::with_capacity(n.div_ceil(BLOCK)),
            slope: Vec::with_capacity(n.div_ceil(BLOCK)),
        };
        let (mut v, mut d1) = (0i64, 0i64);
        for (i, &b) in stream.iter().enumerate() {
            let mut d2 = i64::from(b as i8);
            if d2 == -128 {
                let (at, val) = escapes.next()?;
                if at? as usize != i {
                    return None;
                }
                d2 = val?;
            }
            d1 += d2;
            v += d1;
            let code: u64 = match d2 {
                0 => 0,
                1 => 1,
                -1 => 2,
                _ => {
                    t.esc_at.push(i as u32);
                    t.esc_val.push(d2);
                    3
                }
            };
            t.codes[i / 32] |= code << (2 * (i % 32));
            if i % BLOCK == 0 {
                t.base.push(v as u32);
                t.slope.push(d1 as u32);
            }
        }
        Some(t)
    }

    /// A table with no entries (a malformed file): every lookup gives the
    /// canonical NaN.
    fn empty() -> Table {
        Table {
            codes: Vec::new(),
            esc_at: Vec::new(),
            esc_val: Vec::new(),
            base: Vec::new(),
            slope: Vec::new(),
        }
    }

    /// Entry `i` (the canonical NaN beyond the table).
    pub(super) fn get(&self, i: usize) -> u32 {
        let b = i / BLOCK;
        let (Some(&base), Some(&slope)) = (self.base.get(b), self.slope.get(b)) else {
            return super::NAN32;
        };
        let (mut v, mut d1) = (base, slope);
        for j in b * BLOCK + 1..=i {
            let d2 = match (self.codes[j / 32] >> (2 * (j % 32))) & 3 {
                0 => 0,
                1 => 1,
                2 => u32::MAX,
                _ => self
                    .esc_at
                    .binary_search(&(j as u32))
                    .map_or(0, |k| self.esc_val[k] as u32),
            };
            d1 = d1.wrapping_add(d2);
            v = v.wrapping_add(d1);
        }
        v
    }
}

macro_rules! table {
    ($(#[$doc:meta])* $name:ident, $file:literal) => {
        $(#[$doc])*
        pub(super) fn $name() -> &'static Table {
            static T: OnceLock<Table> = OnceLock::new();
            T.get_or_init(|| {
                Table::decode(include_bytes!(concat!("../../../data/mufu/", $file)))
                    .unwrap_or_else(Table::empty)
            })
        }
    };
}

table!(
    /// `RCP(1.m)` by mantissa `m` (2^23 entries).
    rcp, "rcp.bin.z"
);
table!(
    /// `RSQ(2^p * 1.m)` by `p << 23 | m`, `p` in {0, 1} (2^24 entries).
    rsq, "rsq.bin.z"
);
table!(
    /// `SQRT(2^p * 1.m)` by `p << 23 | m` (2^24 entries).
    sqrt, "sqrt.bin.z"
);
table!(
    /// `EX2(f / 2^23)`, in [1, 2), by `f` (2^23 entries).
    ex2_pos, "ex2p.bin.z"
);
table!(
    /// `EX2(-f / 2^23)`, in (0.5, 1], by `f` (2^23 entries).
    ex2_neg, "ex2n.bin.z"
);
table!(
    /// `LG2(1.m)` by `m` (2^23 entries).
    lg2_one, "lg2a.bin.z"
);
table!(
    /// `LG2(0.5 * 1.m)` by `m` (2^23 entries).
    lg2_half, "lg2b.bin.z"
);
table!(
    /// `SIN(t)` for `t` in `[k, k + 1) / 2^25` revolutions, the first
    /// quarter period, by `k` (2^23 entries).
    sin_quarter, "sin.bin.z"
);

#[cfg(test)]
mod tests {
    use super::*;

    /// Every table decodes; spot values the dumps show.
    #[test]
    fn tables_decode() {
        for t in [rcp(), rsq(), sqrt(), ex2_pos(), ex2_neg(), lg2_one(), lg2_half(), sin_quarter()] {
            assert!(!t.base.is_empty());
        }
        assert_eq!(rcp().get(0), 0x3f80_0000);
        assert_eq!(lg2_one().get(0), 0);
        assert_eq!(lg2_half().get(0), 0xbf7f_fffe);
        assert_eq!(sin_quarter().get(0), 0);
        assert_eq!(sin_quarter().get(1), 0x3449_1200);
        assert_eq!(ex2_pos().get(0), 0x3f80_0000);
        assert_eq!(ex2_neg().get(0), 0x3f80_0000);
        assert_eq!(rsq().get(0), 0x3f80_0000);
        assert_eq!(sqrt().get(0), 0x3f80_0000);
        // Random access agrees with a sequential walk's checkpoints.
        let t = ex2_pos();
        assert_eq!(t.get(BLOCK * 7 + 5), {
            let b = 7;
            let mut v = i64::from(t.base[b]);
            let mut d1 = i64::from(t.slope[b] as i32);
            for j in b * BLOCK + 1..=b * BLOCK + 5 {
                d1 += match (t.codes[j / 32] >> (2 * (j % 32))) & 3 {
                    0 => 0,
                    1 => 1,
                    2 => -1,
                    _ => t.esc_val[t.esc_at.binary_search(&(j as u32)).unwrap()],
                };
                v += d1;
            }
            v as u32
        });
        // The first entries of the negative-logarithm table (a first
        // difference beyond i32 at entry 0).
        assert_eq!(lg2_half().get(1), 0xbf7f_fffb);
    }
}
