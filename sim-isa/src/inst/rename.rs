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
        // `Int`, `Cvt` and `Float` have the same operand fields but are
        // distinct types: one renaming for the three.
        macro_rules! dabc {
            ($x:ident) => {{
                $x.d = r($x.d);
                $x.a = o($x.a);
                $x.b = $x.b.map(o);
                $x.c = $x.c.map(o);
            }};
        }
        match &mut i.op {
            Op::Video(v) => {
                v.d = r(v.d);
                v.a = r(v.a);
                v.b = r(v.b);
                v.c = r(v.c);
            }
            Op::Set(s) => {
                s.d = r(s.d);
                s.a = o(s.a);
                s.b = o(s.b);
                if let Some((_, c)) = &mut s.bool_op {
                    *c = p(*c);
                }
            }
            Op::Setp(s) => {
                s.p = s.p.map(r);
                s.q = s.q.map(|q| q.map(r));
                s.a = o(s.a);
                s.b = o(s.b);
                if let Some((_, c)) = &mut s.bool_op {
                    *c = p(*c);
                }
            }
            // Alike arms of distinct types: a family each, as above.
            Op::Selp(s) => {
                s.d = r(s.d);
                s.a = o(s.a);
                s.b = o(s.b);
                s.c = p(s.c);
            }
            Op::Slct(s) => {
                s.d = r(s.d);
                s.a = o(s.a);
                s.b = o(s.b);
                s.c = o(s.c);
            }
            Op::Alu(a) => {
                a.d = r(a.d);
                a.a = o(a.a);
                a.b = a.b.map(o);
            }
            Op::Int(x) => {
                dabc!(x);
                if let Some(k) = &mut x.carry {
                    k.cf = r(k.cf);
                }
            }
            Op::Bit(x) => {
                x.d = r(x.d);
                x.src = x.src.map(o);
            }
            Op::Cvt(x) => dabc!(x),
            Op::Float(x) => dabc!(x),
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
            Op::Warp(w) => {
                w.d = w.d.map(r);
                w.p = w.p.map(r);
                w.srcs = w.srcs.map(o);
                w.pred = p(w.pred);
                w.mask = o(w.mask);
            }
            Op::Async(a) => {
                a.token = r(a.token);
                for addr in [&mut a.dst, &mut a.src, &mut a.bar] {
                    if let AddrBase::Reg(b) = addr.base {
                        addr.base = AddrBase::Reg(r(b));
                    }
                }
                a.src_size = a.src_size.map(o);
                a.d = a.d.map(r);
                a.a = a.a.map(o);
                a.hint = a.hint.map(o);
                a.ignore_src = a.ignore_src.map(p);
            }
            Op::Mma(m) => {
                m.d = m.d.map(r);
                m.a = m.a.map(r);
                m.b = m.b.map(r);
                m.c = m.c.map(r);
            }
        }
        i
    }
}
