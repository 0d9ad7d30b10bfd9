//! `Instruction` -> PTX text that re-parses to an equal instruction.

use crate::db::{default_sels, opcode_name};
use crate::inst::*;
use crate::symbols::Symbols;
use std::fmt::{self, Write};

impl Instruction {
    /// Prints the instruction as PTX text (with `;`), register names from
    /// `syms`, in canonical spacing:
    /// `vadd2.s32.s32.u32.sat %r1.h0, %r2.h10, %r3.h32, %r1;`.
    /// The text re-parses to an equal instruction.
    pub fn display<'a>(&'a self, syms: &'a Symbols) -> impl fmt::Display + 'a {
        DisplayInst { inst: self, syms }
    }
}

struct DisplayInst<'a> {
    inst: &'a Instruction,
    syms: &'a Symbols,
}

fn sign(s: bool) -> &'static str {
    if s {
        ".s32"
    } else {
        ".u32"
    }
}

impl DisplayInst<'_> {
    fn reg(&self, f: &mut fmt::Formatter<'_>, r: RegId) -> fmt::Result {
        // An id missing from the table prints as a placeholder rather than panicking.
        if (r.0 as usize) < self.syms.len() {
            f.write_str(self.syms.name(r))
        } else {
            write!(f, "%__r{}", r.0)
        }
    }

    fn opnd(&self, f: &mut fmt::Formatter<'_>, o: Operand, ty: Type) -> fmt::Result {
        match o {
            Operand::Reg(r) => self.reg(f, r),
            Operand::Special(s) => f.write_str(s.name()),
            Operand::Imm(v) => match ty {
                Type::F32 => write!(f, "0f{:08X}", v as u32),
                Type::F64 => write!(f, "0d{v:016X}"),
                _ if ty.kind() == TypeKind::Signed => {
                    let sh = 64 - ty.bits();
                    write!(f, "{}", ((v << sh) as i64) >> sh)
                }
                _ => write!(f, "{v}"),
            },
        }
    }

    fn pred(&self, f: &mut fmt::Formatter<'_>, p: PredSrc) -> fmt::Result {
        match p {
            PredSrc::Reg { reg, negate } => {
                if negate {
                    f.write_char('!')?;
                }
                self.reg(f, reg)
            }
            PredSrc::Imm(b) => write!(f, "{}", u8::from(b)),
        }
    }

    fn pdst(&self, f: &mut fmt::Formatter<'_>, p: Option<RegId>) -> fmt::Result {
        match p {
            Some(r) => self.reg(f, r),
            None => f.write_char('_'),
        }
    }

    /// `.CmpOp{.BoolOp}{.ftz}`
    fn cmp_mods(
        f: &mut fmt::Formatter<'_>,
        cmp: CmpOp,
        b: Option<(BoolOp, PredSrc)>,
        ftz: bool,
    ) -> fmt::Result {
        write!(f, ".{}", cmp.name())?;
        if let Some((b, _)) = b {
            write!(f, ".{}", b.name())?;
        }
        if ftz {
            f.write_str(".ftz")?;
        }
        Ok(())
    }

    fn tail_pred(&self, f: &mut fmt::Formatter<'_>, b: Option<(BoolOp, PredSrc)>) -> fmt::Result {
        if let Some((_, c)) = b {
            f.write_str(", ")?;
            self.pred(f, c)?;
        }
        Ok(())
    }

    fn video(&self, f: &mut fmt::Formatter<'_>, v: &Video) -> fmt::Result {
        let letter = if v.simd == Simd::X2 { 'h' } else { 'b' };
        let n = v.simd.lanes();
        let sel = |f: &mut fmt::Formatter<'_>, s: [u8; 4]| -> fmt::Result {
            write!(f, ".{letter}")?;
            for i in (0..n).rev() {
                write!(f, "{}", s[i])?;
            }
            Ok(())
        };
        if v.sat && v.sat_first {
            f.write_str(".sat")?;
        }
        match v.op {
            VideoOp::Set(c) => write!(f, "{}{}.{}", sign(v.asigned), sign(v.bsigned), c.name())?,
            VideoOp::Add
            | VideoOp::Sub
            | VideoOp::Avrg
            | VideoOp::Absdiff
            | VideoOp::Min
            | VideoOp::Max => write!(
                f,
                "{}{}{}",
                sign(v.dsigned),
                sign(v.asigned),
                sign(v.bsigned)
            )?,
        }
        if v.sat && !v.sat_first {
            f.write_str(".sat")?;
        }
        if v.add {
            f.write_str(".add")?;
        }
        f.write_char(' ')?;
        self.reg(f, v.d)?;
        // A mask the text omitted must be the default for the round trip.
        if v.mask_explicit || v.mask != (1u8 << n) - 1 {
            write!(f, ".{letter}")?;
            for i in (0..n).rev() {
                if v.mask & (1 << i) != 0 {
                    write!(f, "{i}")?;
                }
            }
        }
        f.write_str(", ")?;
        self.reg(f, v.a)?;
        let (da, db) = default_sels(v.simd);
        // A selector the text omitted must be the default for the round trip.
        if v.asel_explicit || v.asel != da {
            sel(f, v.asel)?;
        }
        f.write_str(", ")?;
        self.reg(f, v.b)?;
        if v.bsel_explicit || v.bsel != db {
            sel(f, v.bsel)?;
        }
        f.write_str(", ")?;
        self.reg(f, v.c)
    }
}

impl DisplayInst<'_> {
    /// `.mode{.cc}{.sat}.type d, a, b{, c}`; `c` at `d`'s type.
    fn int(&self, f: &mut fmt::Formatter<'_>, x: &IntArith) -> fmt::Result {
        if let Some(m) = x.op.mode() {
            write!(f, ".{}", m.name())?;
        }
        if x.carry.is_some_and(|k| k.out) {
            f.write_str(".cc")?;
        }
        if x.relu {
            f.write_str(".relu")?;
        }
        if x.sat {
            f.write_str(".sat")?;
        }
        write!(f, ".{}", x.ty.name())?;
        if x.op.is_dot() {
            write!(f, ".{}", x.bty.name())?;
        }
        f.write_str(" ")?;
        self.reg(f, x.d)?;
        f.write_str(", ")?;
        self.opnd(f, x.a, x.ty)?;
        if let Some(b) = x.b {
            f.write_str(", ")?;
            self.opnd(f, b, x.bty)?;
        }
        if let Some(c) = x.c {
            f.write_str(", ")?;
            self.opnd(f, c, x.d_type())?;
        }
        Ok(())
    }
}

impl DisplayInst<'_> {
    /// `.type{.mode}` (`prmt`, as the manual writes it) or
    /// `{.dir.mode}.type`, then `d, srcs...`.
    fn bit(&self, f: &mut fmt::Formatter<'_>, x: &Bit) -> fmt::Result {
        let prmt = matches!(x.op, BitOp::Prmt(_));
        if prmt {
            write!(f, ".{}", x.ty.name())?;
        }
        for w in x.op.words() {
            write!(f, ".{w}")?;
        }
        if !prmt {
            write!(f, ".{}", x.ty.name())?;
        }
        f.write_char(' ')?;
        self.reg(f, x.d)?;
        for (i, &o) in x.srcs().iter().enumerate() {
            f.write_str(", ")?;
            self.opnd(f, o, x.src_type(i))?;
        }
        Ok(())
    }

    /// `{.rnd|.approx|.full}{.ftz}{.sat}{.relu}{.NaN}.type d, a{, b}{, c}`.
    fn float(&self, f: &mut fmt::Formatter<'_>, x: &FloatArith) -> fmt::Result {
        for m in x.modifiers() {
            write!(f, ".{m}")?;
        }
        write!(f, ".{} ", x.ty.name())?;
        self.reg(f, x.d)?;
        for o in [Some(x.a), x.b, x.c].into_iter().flatten() {
            f.write_str(", ")?;
            self.opnd(f, o, x.ty)?;
        }
        Ok(())
    }
}

impl fmt::Display for DisplayInst<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = self.inst;
        if let Some(g) = i.guard {
            f.write_char('@')?;
            if g.negate {
                f.write_char('!')?;
            }
            self.reg(f, g.reg)?;
            f.write_char(' ')?;
        }
        f.write_str(opcode_name(&i.op))?;
        match &i.op {
            Op::Video(v) => self.video(f, v)?,
            Op::Set(s) => {
                Self::cmp_mods(f, s.cmp, s.bool_op, s.ftz)?;
                write!(f, ".{}.{} ", s.dtype.name(), s.stype.name())?;
                self.reg(f, s.d)?;
                f.write_str(", ")?;
                self.opnd(f, s.a, s.stype)?;
                f.write_str(", ")?;
                self.opnd(f, s.b, s.stype)?;
                self.tail_pred(f, s.bool_op)?;
            }
            Op::Setp(s) => {
                Self::cmp_mods(f, s.cmp, s.bool_op, s.ftz)?;
                write!(f, ".{} ", s.ty.name())?;
                self.pdst(f, s.p)?;
                if let Some(q) = s.q {
                    f.write_char('|')?;
                    self.pdst(f, q)?;
                }
                f.write_str(", ")?;
                self.opnd(f, s.a, s.ty)?;
                f.write_str(", ")?;
                self.opnd(f, s.b, s.ty)?;
                self.tail_pred(f, s.bool_op)?;
            }
            Op::Selp(s) => {
                write!(f, ".{} ", s.ty.name())?;
                self.reg(f, s.d)?;
                f.write_str(", ")?;
                self.opnd(f, s.a, s.ty)?;
                f.write_str(", ")?;
                self.opnd(f, s.b, s.ty)?;
                f.write_str(", ")?;
                self.pred(f, s.c)?;
            }
            Op::Slct(s) => {
                if s.ftz {
                    f.write_str(".ftz")?;
                }
                write!(f, ".{}.{} ", s.dtype.name(), s.ctype.name())?;
                self.reg(f, s.d)?;
                f.write_str(", ")?;
                self.opnd(f, s.a, s.dtype)?;
                f.write_str(", ")?;
                self.opnd(f, s.b, s.dtype)?;
                f.write_str(", ")?;
                self.opnd(f, s.c, s.ctype)?;
            }
            Op::Alu(a) => {
                write!(f, ".{} ", a.ty.name())?;
                self.reg(f, a.d)?;
                f.write_str(", ")?;
                self.opnd(f, a.a, a.ty)?;
                if let Some(b) = a.b {
                    f.write_str(", ")?;
                    self.opnd(f, b, a.b_type())?;
                }
            }
            Op::Int(x) => self.int(f, x)?,
            Op::Bit(x) => self.bit(f, x)?,
            Op::Cvt(x) => {
                write!(f, "{} ", crate::db::cvt_head(x))?;
                self.reg(f, x.d)?;
                f.write_str(", ")?;
                self.opnd(f, x.a, x.atype.reg_type())?;
                for o in [x.b, x.c].into_iter().flatten() {
                    f.write_str(", ")?;
                    self.opnd(f, o, x.atype.reg_type())?;
                }
            }
            Op::Float(x) => self.float(f, x)?,
            Op::Mem(m) => self.mem(f, m)?,
            Op::Warp(w) => self.warp(f, w)?,
            Op::Async(a) => self.async_copy(f, a)?,
            Op::Mma(m) => self.mma(f, m)?,
        }
        f.write_char(';')
    }
}

impl DisplayInst<'_> {
    fn addr(&self, f: &mut fmt::Formatter<'_>, a: &Address, brackets: bool) -> fmt::Result {
        if brackets {
            f.write_char('[')?;
        }
        match a.base {
            AddrBase::Reg(r) => self.reg(f, r)?,
            AddrBase::Var(v) => f.write_str(self.syms.var_name(v).unwrap_or("__var"))?,
            AddrBase::Abs => write!(f, "{}", a.offset)?,
        }
        if a.base != AddrBase::Abs && a.offset != 0 {
            // `+-8`: ptxas 13.0 rejects `[%rd1-8]` (tests/data/mem-ptxas.txt).
            write!(f, "+{}", a.offset)?;
        }
        if brackets {
            f.write_char(']')?;
        }
        Ok(())
    }

    /// A register list: `%r1` or `{%r1, %r2}`.
    fn list(&self, f: &mut fmt::Formatter<'_>, items: &[Operand]) -> fmt::Result {
        if items.len() > 1 {
            f.write_char('{')?;
        }
        for (k, &o) in items.iter().enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            self.opnd(f, o, Type::B64)?;
        }
        if items.len() > 1 {
            f.write_char('}')?;
        }
        Ok(())
    }

    /// The modifiers after the opcode word, then the operands.
    /// A brace list of registers, braces even for one (`mma`, `ldmatrix`).
    fn braces(&self, f: &mut fmt::Formatter<'_>, regs: &[Operand]) -> fmt::Result {
        f.write_char('{')?;
        for (k, &o) in regs.iter().enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            self.opnd(f, o, Type::B32)?;
        }
        f.write_char('}')
    }

    fn mma(&self, f: &mut fmt::Formatter<'_>, m: &Mma) -> fmt::Result {
        if m.shape.is_wmma() {
            let l = |c: bool| if c { "col" } else { "row" };
            f.write_str(".mma")?;
            if let Some(op) = m.bop {
                write!(f, ".{}.popc", op.word())?;
            }
            write!(
                f,
                ".sync.aligned.{}.{}.{}",
                l(m.wmma_col[0]),
                l(m.wmma_col[1]),
                m.shape.word()
            )?;
            if let Some(r) = m.rnd {
                write!(f, ".{}", r.name())?;
            }
            // `.dtype.ctype` with f16 `a`/`b`, else all four.
            if m.types[1] == crate::inst::MmaType::F16 {
                write!(f, ".{}.{}", m.types[0].word(), m.types[3].word())?;
            } else {
                for t in m.types {
                    write!(f, ".{}", t.word())?;
                }
            }
        } else {
            write!(f, ".sync.aligned.{}.row.col", m.shape.word())?;
        }
        if m.satfinite {
            f.write_str(".satfinite")?;
        }
        if let Some(r) = m.rnd.filter(|_| !m.shape.is_wmma()) {
            write!(f, ".{}", r.name())?;
        }
        if !m.shape.is_wmma() {
            for t in m.types {
                write!(f, ".{}", t.word())?;
            }
        }
        let [nd, na, nb, nc] = m.counts();
        let regs = |r: &[RegId]| -> Vec<Operand> { r.iter().map(|&x| Operand::Reg(x)).collect() };
        f.write_char(' ')?;
        self.braces(f, &regs(&m.d[..nd]))?;
        f.write_str(", ")?;
        self.braces(f, &regs(&m.a[..na]))?;
        f.write_str(", ")?;
        self.braces(f, &regs(&m.b[..nb]))?;
        f.write_str(", ")?;
        self.braces(f, &regs(&m.c[..nc]))
    }

    /// `wmma.load`/`wmma.store` after `wmma.load`/`wmma.store`.
    fn wmma_mem(&self, f: &mut fmt::Formatter<'_>, m: &Mem, w: &WmmaMem) -> fmt::Result {
        let (_, which) = w.frag.words().split_once('.').unwrap_or(("", "a"));
        let layout = if w.col { "col" } else { "row" };
        write!(f, ".{which}.sync.aligned.{layout}.{}", w.shape.word())?;
        if m.space != Space::Generic {
            write!(f, ".{}", m.space.name())?;
        }
        write!(f, ".{} ", w.ty.word())?;
        let n = w.regs();
        let mut regs: Vec<Operand> = if w.is_store() {
            m.vals[..n.min(4)].to_vec()
        } else {
            m.d[..n.min(4)].iter().map(|&r| Operand::Reg(r)).collect()
        };
        regs.extend(w.hi[..n.saturating_sub(4)].iter().map(|&r| Operand::Reg(r)));
        if w.is_store() {
            self.addr(f, &m.addr, true)?;
            f.write_str(", ")?;
            self.braces(f, &regs)?;
        } else {
            self.braces(f, &regs)?;
            f.write_str(", ")?;
            self.addr(f, &m.addr, true)?;
        }
        match w.stride {
            WmmaStride::Default => Ok(()),
            WmmaStride::Imm(s) => write!(f, ", {s}"),
            WmmaStride::Reg(r) => {
                f.write_str(", ")?;
                self.reg(f, r)
            }
        }
    }

    /// `ldmatrix`/`stmatrix` after the opcode word.
    fn matrix_mem(&self, f: &mut fmt::Formatter<'_>, m: &Mem, trans: bool) -> fmt::Result {
        write!(f, ".sync.aligned.m8n8.x{}", m.vec)?;
        if trans {
            f.write_str(".trans")?;
        }
        if m.space != Space::Generic {
            write!(f, ".{}", m.space.name())?;
        }
        f.write_str(".b16 ")?;
        if let MemOp::Stmatrix { .. } = m.op {
            self.addr(f, &m.addr, true)?;
            f.write_str(", ")?;
            return self.braces(f, &m.vals[..m.sources()]);
        }
        let dests: Vec<Operand> = m.d[..m.dests()].iter().map(|&r| Operand::Reg(r)).collect();
        self.braces(f, &dests)?;
        f.write_str(", ")?;
        self.addr(f, &m.addr, true)
    }

    fn mem(&self, f: &mut fmt::Formatter<'_>, m: &Mem) -> fmt::Result {
        if let MemOp::Ldmatrix { trans } | MemOp::Stmatrix { trans } = m.op {
            return self.matrix_mem(f, m, trans);
        }
        if let MemOp::Prefetch(level) = m.op {
            if m.space != Space::Generic {
                write!(f, ".{}", m.space.name())?;
            }
            write!(f, ".{} ", level.name())?;
            return self.addr(f, &m.addr, true);
        }
        if let MemOp::Wmma(w) = m.op {
            return self.wmma_mem(f, m, &w);
        }
        if let MemOp::Pack | MemOp::Unpack = m.op {
            write!(f, ".{} ", m.ty.name())?;
            let regs: Vec<Operand> = m.d[..m.dests()].iter().map(|&r| Operand::Reg(r)).collect();
            let (dst, src) = (&regs[..], &m.vals[..m.sources()]);
            self.list(f, dst)?;
            f.write_str(", ")?;
            return self.list(f, src);
        }
        for &q in m.quals.iter().filter(|&&q| q != 0) {
            write!(
                f,
                ".{}",
                QUAL_WORDS.get(usize::from(q)).copied().unwrap_or("weak")
            )?;
        }
        if let MemOp::Cvta { to: true } = m.op {
            f.write_str(".to")?;
        }
        if m.space != Space::Generic {
            write!(f, ".{}", m.space.name())?;
        }
        if let MemOp::Atom(a) | MemOp::Red(a) = m.op {
            write!(f, ".{}", a.name())?;
        }
        if m.vec > 1 {
            write!(f, ".v{}", m.vec)?;
        }
        write!(f, ".{} ", m.ty.name())?;
        let dests: Vec<Operand> = m.d[..m.dests()].iter().map(|&r| Operand::Reg(r)).collect();
        let vals = &m.vals[..m.sources()];
        match m.op {
            MemOp::Ld | MemOp::Ldu => {
                self.list(f, &dests)?;
                f.write_str(", ")?;
                self.addr(f, &m.addr, true)
            }
            MemOp::St => {
                self.addr(f, &m.addr, true)?;
                f.write_str(", ")?;
                self.list(f, vals)
            }
            MemOp::Atom(_) | MemOp::Red(_) => {
                if let Some(&d) = dests.first() {
                    self.list(f, &[d])?;
                    f.write_str(", ")?;
                }
                self.addr(f, &m.addr, true)?;
                for &v in vals {
                    f.write_str(", ")?;
                    self.opnd(f, v, Type::B64)?;
                }
                Ok(())
            }
            // Each other operation named: exhaustive, no wildcard (a new one must be placed).
            MemOp::Cvta { .. }
            | MemOp::MovAddr
            | MemOp::Pack
            | MemOp::Unpack
            | MemOp::Ldmatrix { .. }
            | MemOp::Stmatrix { .. }
            | MemOp::Wmma(_)
            | MemOp::Prefetch(_) => {
                self.list(f, &dests)?;
                f.write_str(", ")?;
                match vals.first() {
                    Some(&v) => self.opnd(f, v, Type::B64),
                    None => self.addr(f, &m.addr, false),
                }
            }
        }
    }

    fn warp(&self, f: &mut fmt::Formatter<'_>, w: &WarpInst) -> fmt::Result {
        // `Display` printed the first word; the rest of the opcode follows.
        if let Some((_, rest)) = w.word().split_once('.') {
            write!(f, ".{rest}")?;
        }
        let mut first = true;
        let mut sep = |f: &mut fmt::Formatter<'_>| -> fmt::Result {
            let s = if first { " " } else { ", " };
            first = false;
            f.write_str(s)
        };
        match (w.d, w.p) {
            (Some(d), p) => {
                sep(f)?;
                self.reg(f, d)?;
                if let Some(p) = p {
                    f.write_char('|')?;
                    self.reg(f, p)?;
                }
            }
            // `elect.sync`'s sink destination.
            (None, Some(p)) => {
                sep(f)?;
                f.write_str("_|")?;
                self.reg(f, p)?;
            }
            (None, None) => {}
        }
        if let WarpOp::Vote(_) = w.op {
            sep(f)?;
            self.pred(f, w.pred)?;
        }
        let ty = if w.src_bits() == 64 {
            Type::B64
        } else {
            Type::S32
        };
        for &s in &w.srcs[..w.nsrc_values()] {
            sep(f)?;
            self.opnd(f, s, ty)?;
        }
        if let WarpOp::BarRed(_) = w.op {
            sep(f)?;
            self.pred(f, w.pred)?;
        }
        let masked = match w.op {
            WarpOp::Shfl(_)
            | WarpOp::Vote(_)
            | WarpOp::WarpSync
            | WarpOp::Redux(_)
            | WarpOp::Match { .. }
            | WarpOp::Elect => true,
            WarpOp::BarSync
            | WarpOp::BarArrive
            | WarpOp::Fence
            | WarpOp::Activemask
            | WarpOp::Control
            | WarpOp::BarRed(_)
            | WarpOp::Nanosleep
            | WarpOp::Movmatrix => false,
        };
        if masked {
            sep(f)?;
            self.opnd(f, w.mask, Type::S32)?;
        }
        Ok(())
    }

    fn async_copy(&self, f: &mut fmt::Formatter<'_>, a: &AsyncInst) -> fmt::Result {
        // `Display` printed the first word; the rest of the opcode follows.
        if let Some((_, rest)) = a.word().split_once('.') {
            write!(f, ".{rest}")?;
        }
        let order = MBAR_ORDERS.get(usize::from(a.order)).copied().unwrap_or("");
        for w in [order, a.space_word()] {
            if !w.is_empty() {
                write!(f, ".{w}")?;
            }
        }
        let Some(m) = a.mbar() else {
            return self.copy_rest(f, a);
        };
        f.write_str(".b64 ")?;
        if let Some(d) = a.d {
            self.reg(f, d)?;
            f.write_str(", ")?;
        } else if matches!(m, MbarOp::Arrive { .. }) {
            f.write_str("_, ")?;
        }
        if m != MbarOp::PendingCount {
            self.addr(f, &a.dst, true)?;
        }
        for o in [a.a, a.hint].into_iter().flatten() {
            if m != MbarOp::PendingCount {
                f.write_str(", ")?;
            }
            self.opnd(f, o, Type::U32)?;
        }
        Ok(())
    }

    /// The copies' and group statements' rest after the opcode.
    fn copy_rest(&self, f: &mut fmt::Formatter<'_>, a: &AsyncInst) -> fmt::Result {
        match a.op {
            AsyncOp::Copy { .. } => {
                f.write_str(".global")?;
                if a.l2 != 0 {
                    write!(f, ".L2::{}B", a.l2)?;
                }
                f.write_char(' ')?;
                self.addr(f, &a.dst, true)?;
                f.write_str(", ")?;
                self.addr(f, &a.src, true)?;
                write!(f, ", {}", a.size)?;
                if let Some(o) = a.src_size {
                    f.write_str(", ")?;
                    self.opnd(f, o, Type::U32)?;
                }
                if let Some(p) = a.ignore_src {
                    f.write_str(", ")?;
                    self.pred(f, p)?;
                }
                Ok(())
            }
            AsyncOp::Bulk { .. } | AsyncOp::BulkStore => {
                write!(f, "{} ", a.bulk_words())?;
                self.addr(f, &a.dst, true)?;
                f.write_str(", ")?;
                self.addr(f, &a.src, true)?;
                if let Some(o) = a.a {
                    f.write_str(", ")?;
                    self.opnd(f, o, Type::U32)?;
                }
                if a.op != AsyncOp::BulkStore {
                    f.write_str(", ")?;
                    self.addr(f, &a.bar, true)?;
                }
                Ok(())
            }
            AsyncOp::WaitGroup | AsyncOp::BulkWait { .. } => write!(f, " {}", a.n),
            AsyncOp::Commit | AsyncOp::WaitAll | AsyncOp::BulkCommit | AsyncOp::Mbar(_) => Ok(()),
        }
    }
}
