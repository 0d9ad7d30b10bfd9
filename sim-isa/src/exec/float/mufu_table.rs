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
//! In memory each block of [`BLOCK`] entries keeps its first value and first
//! difference, and three bit masks saying which entries' second differences
//! are +1, -1, or escaped (a sorted list holds those); the rest are 0. A
//! lookup sums the block's differences up to the entry by population counts
//! and never allocates. 0.625 bytes per entry (52 MB if every table is used).

use std::sync::OnceLock;

/// Entries between checkpoints.
const BLOCK: usize = 32;

/// One decoded table.
pub(super) struct Table {
    /// Per block: the entries (bit `t` for the block's entry `t`) whose
    /// second difference is +1.
    pos: Vec<u32>,
    /// ... is -1.
    neg: Vec<u32>,
    /// ... is escaped.
    esc: Vec<u32>,
    /// Indices of the escaped second differences, ascending.
    esc_at: Vec<u32>,
    /// Their values.
    esc_val: Vec<i64>,
    /// The value at each block's first entry.
    base: Vec<u32>,
    /// The first difference `v[i] - v[i-1]` there (modulo 2^32, as all the
    /// sums: the results are 32-bit).
    slope: Vec<u32>,
}

/// Bit `k` of the position: the masks whose population counts weighted by
/// `2^k` sum the positions of a mask's set bits.
const POS_BITS: [u32; 5] = [
    0xAAAA_AAAA,
    0xCCCC_CCCC,
    0xF0F0_F0F0,
    0xFF00_FF00,
    0xFFFF_0000,
];

/// The number and the position sum of `m`'s set bits.
fn count_and_sum(m: u32) -> (u32, u32) {
    let sum = POS_BITS
        .iter()
        .enumerate()
        .map(|(k, &b)| (m & b).count_ones() << k)
        .sum();
    (m.count_ones(), sum)
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
        let blocks = n.div_ceil(BLOCK);
        let mut t = Table {
            pos: vec![0; blocks],
            neg: vec![0; blocks],
            esc: vec![0; blocks],
            esc_at: Vec::new(),
            esc_val: Vec::new(),
            base: Vec::with_capacity(blocks),
            slope: Vec::with_capacity(blocks),
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
            let bit = 1u32 << (i % BLOCK);
            match d2 {
                0 => {}
                1 => t.pos[i / BLOCK] |= bit,
                -1 => t.neg[i / BLOCK] |= bit,
                _ => {
                    t.esc[i / BLOCK] |= bit;
                    t.esc_at.push(i as u32);
                    t.esc_val.push(d2);
                }
            }
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
            pos: Vec::new(),
            neg: Vec::new(),
            esc: Vec::new(),
            esc_at: Vec::new(),
            esc_val: Vec::new(),
            base: Vec::new(),
            slope: Vec::new(),
        }
    }

    /// Entry `i` (the canonical NaN beyond the table): with `r = i - s`
    /// past the block's first entry `s`, `v[i] = v[s] + r d1[s] + sum over
    /// t in 1..=r of (r + 1 - t) d2[s + t]`.
    pub(super) fn get(&self, i: usize) -> u32 {
        let b = i / BLOCK;
        let (Some(&base), Some(&slope)) = (self.base.get(b), self.slope.get(b)) else {
            return super::NAN32;
        };
        let r = (i % BLOCK) as u32;
        // Entries 1..=r of the block.
        let upto = ((1u64 << (r + 1)) - 2) as u32;
        let (np, sp) = count_and_sum(self.pos[b] & upto);
        let (nn, sn) = count_and_sum(self.neg[b] & upto);
        let mut v = base
            .wrapping_add(r.wrapping_mul(slope))
            .wrapping_add((r + 1).wrapping_mul(np.wrapping_sub(nn)))
            .wrapping_sub(sp.wrapping_sub(sn));
        let mut e = self.esc[b] & upto;
        while e != 0 {
            let t = e.trailing_zeros();
            e &= e - 1;
            let at = (b * BLOCK) as u32 + t;
            if let Ok(k) = self.esc_at.binary_search(&at) {
                v = v.wrapping_add((r + 1 - t).wrapping_mul(self.esc_val[k] as u32));
            }
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
        for t in [
            rcp(),
            rsq(),
            sqrt(),
            ex2_pos(),
            ex2_neg(),
            lg2_one(),
            lg2_half(),
            sin_quarter(),
        ] {
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
        // Random access agrees with a sequential walk over whole blocks.
        for t in [ex2_pos(), lg2_one(), lg2_half(), sin_quarter()] {
            for b in [0, 1, 7, 1000, (1 << 18) - 1] {
                let (mut v, mut d1) = (t.base[b], t.slope[b]);
                assert_eq!(t.get(b * BLOCK), v);
                for r in 1..BLOCK as u32 {
                    let bit = 1u32 << r;
                    let j = (b * BLOCK) as u32 + r;
                    let d2 = if t.pos[b] & bit != 0 {
                        1
                    } else if t.neg[b] & bit != 0 {
                        u32::MAX
                    } else if t.esc[b] & bit != 0 {
                        t.esc_val[t.esc_at.binary_search(&j).unwrap()] as u32
                    } else {
                        0
                    };
                    d1 = d1.wrapping_add(d2);
                    v = v.wrapping_add(d1);
                    assert_eq!(t.get(j as usize), v, "entry {j}");
                }
            }
        }
        // The first entries of the negative-logarithm table (a first
        // difference beyond i32 at entry 0).
        assert_eq!(lg2_half().get(1), 0xbf7f_fffb);
    }
}
