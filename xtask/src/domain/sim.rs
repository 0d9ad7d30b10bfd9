//! The same arrays as tools/gpu/domain's kernels, from sim-isa's own
//! semantics: the form is parsed by sim-isa and executed 32 lanes at a time
//! (`Prepared`, as the SM model runs it); only the checksum is computed here.

use super::format::{Kind, N};
use anyhow::{bail, Context, Result};
use sim_isa::exec::{execute_prepared, Prepared};
use sim_isa::{execute, ExecCtx, RegId, Symbols, Target, WarpRegs, WARP_SIZE};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Multiplier of b in the checksum (tools/gpu/domain/README.md).
pub const GOLDEN: u32 = 0x9E37_79B9;

/// murmur3's 32-bit finaliser.
#[inline]
pub fn fmix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

/// A form ready to run: the prepared instruction, its registers and kind.
pub struct Form {
    prepared: Prepared,
    ctx: ExecCtx,
    nregs: usize,
    dst: RegId,
    /// Result bits: 1 (predicate), 16 or 32.
    width: u32,
    srcs: Vec<RegId>,
    pub kind: Kind,
}

impl Form {
    /// Parses `text` for sm_90 with sim-isa (gen.py's naming: destination
    /// first, then the sources).
    pub fn new(text: &str) -> Result<Form> {
        let target = Target::parse("sm_90").map_err(|e| anyhow::anyhow!("{e}"))?;
        let mut syms = Symbols::new();
        let inst = sim_isa::parse::parse_for_target(text, &mut syms, target, None)
            .map_err(|e| anyhow::anyhow!("sim-isa rejects it: {e}"))?;
        // The registers in order of appearance, as the values kernels read them.
        let regs = crate::values::kernel::layout(text).0;
        let (dst_reg, src_regs) = regs.split_first().context("no registers")?;
        let (dst_name, dst_width) = (dst_reg.name.as_str(), dst_reg.width);
        let src_names: Vec<&str> = src_regs.iter().map(|r| r.name.as_str()).collect();
        let widths: Vec<u32> = src_regs.iter().map(|r| r.width).collect();
        let kind = match widths.as_slice() {
            [16] => Kind::One16,
            [16, 16] => Kind::Two16,
            [32] => Kind::One32,
            _ => bail!("not a whole-domain form"),
        };
        let id = |n: &str| syms.get(n).with_context(|| format!("{n} not interned"));
        let dst = id(dst_name)?;
        let srcs = src_names
            .iter()
            .map(|n| id(n))
            .collect::<Result<Vec<_>>>()?;
        let ctx = ExecCtx::new(target, 0);
        // One plain execution grows a register file to what the form names.
        let mut regs = WarpRegs::new(syms.len());
        execute(&inst, &ctx, &mut regs, u32::MAX);
        Ok(Form {
            prepared: Prepared::new(&inst, target),
            ctx,
            nregs: regs.len(),
            dst,
            width: dst_width,
            srcs,
            kind,
        })
    }

    pub fn regs(&self) -> WarpRegs {
        WarpRegs::new(self.nregs)
    }

    /// Runs one warp: lane l gets `first[l]` in the first source and, for
    /// two16, `second[l]` in the second; the 32 results (zero-extended).
    #[inline]
    fn warp(
        &self,
        regs: &mut WarpRegs,
        first: &[u64; WARP_SIZE],
        second: Option<&[u64; WARP_SIZE]>,
    ) -> [u32; WARP_SIZE] {
        *regs.get_mut(self.srcs[0]) = *first;
        if let (Some(s), Some(r)) = (second, self.srcs.get(1)) {
            *regs.get_mut(*r) = *s;
        }
        execute_prepared(&self.prepared, &self.ctx, regs, u32::MAX);
        let d = regs.get(self.dst);
        let mut out = [0u32; WARP_SIZE];
        for (o, v) in out.iter_mut().zip(d.iter()) {
            *o = match self.width {
                1 => u32::from(*v != 0),
                16 => (*v & 0xffff) as u32,
                _ => *v as u32,
            };
        }
        out
    }

    /// The value for `a`: the result (one16) or the checksum over every b.
    pub fn value(&self, regs: &mut WarpRegs, a: u32) -> u32 {
        let mut lanes = [0u64; WARP_SIZE];
        match self.kind {
            Kind::One16 => {
                lanes[0] = u64::from(a);
                self.warp(regs, &lanes, None)[0]
            }
            Kind::Two16 => {
                let first = [u64::from(a); WARP_SIZE];
                self.sum(|base| {
                    for (l, x) in lanes.iter_mut().enumerate() {
                        *x = (base + l) as u64;
                    }
                    self.warp(regs, &first, Some(&lanes))
                })
            }
            Kind::One32 => self.sum(|base| {
                for (l, x) in lanes.iter_mut().enumerate() {
                    *x = u64::from(a) << 16 | (base + l) as u64;
                }
                self.warp(regs, &lanes, None)
            }),
        }
    }

    fn sum(&self, mut run: impl FnMut(usize) -> [u32; WARP_SIZE]) -> u32 {
        let mut acc = 0u32;
        for base in (0..N).step_by(WARP_SIZE) {
            let r = run(base);
            for (l, v) in r.iter().enumerate() {
                let b = (base + l) as u32;
                acc = acc.wrapping_add(fmix32(v ^ b.wrapping_mul(GOLDEN)));
            }
        }
        acc
    }

    /// The full one16 table, 32 inputs per warp.
    fn table(&self, regs: &mut WarpRegs) -> Vec<u32> {
        let mut out = Vec::with_capacity(N);
        let mut lanes = [0u64; WARP_SIZE];
        for base in (0..N).step_by(WARP_SIZE) {
            for (l, x) in lanes.iter_mut().enumerate() {
                *x = (base + l) as u64;
            }
            out.extend_from_slice(&self.warp(regs, &lanes, None));
        }
        out
    }

    /// The values for `keys`, over `jobs` threads (keys taken in turn).
    pub fn values(&self, keys: &[u32], jobs: usize) -> Result<Vec<u32>> {
        if self.kind == Kind::One16
            && keys.len() == N
            && keys.iter().enumerate().all(|(i, &k)| k as usize == i)
        {
            return Ok(self.table(&mut self.regs()));
        }
        let next = AtomicUsize::new(0);
        let mut out = vec![0u32; keys.len()];
        let chunks: Vec<Option<Vec<(usize, u32)>>> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..jobs.max(1))
                .map(|_| {
                    s.spawn(|| {
                        let mut regs = self.regs();
                        let mut got = Vec::new();
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some(&a) = keys.get(i) else { break };
                            got.push((i, self.value(&mut regs, a)));
                        }
                        got
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().ok()).collect()
        });
        for chunk in chunks {
            for (i, v) in chunk.context("a worker thread panicked")? {
                out[i] = v;
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fmix32_is_murmur3s_finaliser() {
        // Reference values of murmur3's fmix32 (also what run.py's fake writes).
        assert_eq!(fmix32(0), 0);
        assert_eq!(fmix32(1), 0x514e_28b7);
    }

    #[test]
    fn checksums_follow_the_readme_definition() {
        // add.u16 at a = 3, summed here by the definition, b by b.
        let f = match Form::new("add.u16 %h5, %h1, %h2;") {
            Ok(f) => f,
            Err(e) => panic!("{e:#}"),
        };
        let want = (0..N as u32).fold(0u32, |s, b| {
            let r = (3 + b) & 0xffff;
            s.wrapping_add(fmix32(r ^ b.wrapping_mul(GOLDEN)))
        });
        assert_eq!(f.value(&mut f.regs(), 3), want);
        // not.b32 at high half 0x8001: x = 0x8001_0000 | b.
        let f = match Form::new("not.b32 %r5, %r1;") {
            Ok(f) => f,
            Err(e) => panic!("{e:#}"),
        };
        let want = (0..N as u32).fold(0u32, |s, b| {
            let r = !(0x8001_0000 | b);
            s.wrapping_add(fmix32(r ^ b.wrapping_mul(GOLDEN)))
        });
        assert_eq!(f.value(&mut f.regs(), 0x8001), want);
        assert_eq!(f.kind, Kind::One32);
    }
}
