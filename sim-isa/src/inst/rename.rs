//! Renaming an instruction's registers (a register allocator's slots):
//! one arm per family, beside `reg_uses`, so that whatever renames
//! instructions downstream needs no match over the families.

use super::{AddrBase, Guard, Instruction, MemOp, Op, WmmaStride};
use crate::operand::{Operand, PredSrc, RegId};

impl Instruction {
    /// `self` with every register (guard, destinations, sources, address
    /// base) replaced by `f` of it.
    pub fn map_regs(&self, f: impl Fn(RegId) -> RegId) -> Instruction {
        let r = &f;
        let o = |x: Operand| match x {
            Operand::Reg(x) => Operand::Reg(r(x)),
            Operand::Imm(_) | Operand::Special(_) => x,
        };
        let p = |x: PredSrc| match x {
            PredSrc::Reg { reg, negate } => PredSrc::Reg {
                reg: r(reg),
                negate,
            },
            PredSrc::Imm(_) => x,
        };
        let mut i = *self;
        i.guard = i.guard.map(|g| Guard {
            reg: r(g.reg),
            negate: g.negate,
        });
        // `$x.f = g($x.f)` for each field `f` listed after function `g`;
        // after `map g`, `$x.f = $x.f.map(g)` (options, arrays). The
        // families' operand fields differ in names and types, not in how
        // they are renamed.
        macro_rules! set {
            ($x:ident; $($g:ident: $($f:ident)*),*; $(map $mg:ident: $($mf:ident)*),*) => {{
                $($($x.$f = $g($x.$f);)*)*
                $($($x.$mf = $x.$mf.map($mg);)*)*
            }};
        }
        match &mut i.op {
            Op::Video(v) => set!(v; r: d a b c;),
            Op::Set(s) => {
                set!(s; r: d, o: a b;);
                if let Some((_, c)) = &mut s.bool_op {
                    *c = p(*c);
                }
            }
            Op::Setp(s) => {
                set!(s; o: a b; map r: p);
                s.q = s.q.map(|q| q.map(r));
                if let Some((_, c)) = &mut s.bool_op {
                    *c = p(*c);
                }
            }
            Op::Selp(s) => set!(s; r: d, o: a b, p: c;),
            Op::Slct(s) => set!(s; r: d, o: a b c;),
            Op::Alu(a) => set!(a; r: d, o: a; map o: b),
            Op::Int(x) => {
                set!(x; r: d, o: a; map o: b c);
                if let Some(k) = &mut x.carry {
                    k.cf = r(k.cf);
                }
            }
            Op::Bit(x) => set!(x; r: d; map o: src),
            Op::Cvt(x) => set!(x; r: d, o: a; map o: b c),
            Op::Float(x) => set!(x; r: d, o: a; map o: b c),
            Op::Mem(m) => {
                let nd = m.dests();
                for d in &mut m.d[..nd] {
                    *d = r(*d);
                }
                m.vals = m.vals.map(o);
                if let MemOp::Wmma(w) = &mut m.op {
                    w.hi = w.hi.map(r);
                    if let WmmaStride::Reg(x) = w.stride {
                        w.stride = WmmaStride::Reg(r(x));
                    }
                }
                if let AddrBase::Reg(b) = m.addr.base {
                    m.addr.base = AddrBase::Reg(r(b));
                }
            }
            Op::Warp(w) => set!(w; p: pred, o: mask; map r: d p, map o: srcs),
            Op::Async(a) => {
                for addr in [&mut a.dst, &mut a.src, &mut a.bar] {
                    if let AddrBase::Reg(b) = addr.base {
                        addr.base = AddrBase::Reg(r(b));
                    }
                }
                set!(a; r: token; map o: src_size a hint, map r: d, map p: ignore_src);
            }
            Op::Mma(m) => set!(m; ; map r: d a b c),
        }
        i
    }
}
