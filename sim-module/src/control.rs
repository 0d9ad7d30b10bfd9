//! Statements the module layer reads itself (`bra`, `ret`, `exit`, `call`,
//! `trap`, `brkpt`) and
//! the hand-over of all others to sim-isa.

use crate::cursor::{at, Parser, Res};
use crate::error::ModuleErrorKind as K;
use crate::lex::{Tok, Token};
use crate::types::*;
use sim_isa::{Guard, Symbols};

/// A control-flow statement from its opcode word, modifiers and operand tokens.
pub(crate) fn control(
    p: &Parser<'_>,
    word: &str,
    mods: &[Token],
    operands: &[Token],
    semi: Token,
    guard: Option<Guard>,
) -> Res<Control> {
    let mut uni = false;
    for &t in mods {
        if p.text(t) == ".uni" && matches!(word, "bra" | "ret" | "call") && !uni {
            uni = true;
        } else {
            return Err(p.err_at(p.pos(t), K::UnknownDirective(p.text(t).into())));
        }
    }
    let mut r = Operands {
        p,
        toks: operands,
        k: 0,
        semi,
    };
    let op = match word {
        "bra" => {
            let target = r.ident("a label")?;
            ControlOp::Bra {
                target,
                label: usize::MAX,
                uni,
            }
        }
        "ret" => ControlOp::Ret { uni },
        "exit" => ControlOp::Exit,
        "trap" | "brkpt" => ControlOp::Trap,
        _ => {
            let rets = if r.is(b'(') {
                let v = r.list()?;
                r.punct(b',', "','")?;
                v
            } else {
                Vec::new()
            };
            let callee = r.ident("a function")?;
            let mut args = Vec::new();
            let mut prototype = None;
            if r.is(b',') {
                r.k += 1;
                if r.is(b'(') {
                    args = r.list()?;
                    if r.is(b',') {
                        r.k += 1;
                        prototype = Some(r.ident("a prototype")?);
                    }
                } else {
                    prototype = Some(r.ident("'(' or a prototype")?);
                }
            }
            // Named as a builtin: `body` resolves its registers and
            // `resolve_module` keeps it only where the module declares it.
            let builtin = BuiltinKind::from_name(&callee).map(|kind| Builtin {
                kind,
                args: Vec::new(),
                rets: Vec::new(),
            });
            ControlOp::Call {
                uni,
                callee,
                rets,
                args,
                prototype,
                address: None,
                builtin,
            }
        }
    };
    if let Some(&t) = r.toks.get(r.k) {
        return Err(at(p, t, "';'"));
    }
    Ok(Control { guard, op })
}

/// A cursor over a statement's operand tokens.
struct Operands<'p, 'a> {
    p: &'p Parser<'a>,
    toks: &'p [Token],
    k: usize,
    semi: Token,
}

impl Operands<'_, '_> {
    fn cur(&self) -> Token {
        self.toks.get(self.k).copied().unwrap_or(self.semi)
    }
    fn is(&self, c: u8) -> bool {
        self.toks
            .get(self.k)
            .is_some_and(|t| t.kind == Tok::Punct(c))
    }
    fn punct(&mut self, c: u8, what: &'static str) -> Res<()> {
        if !self.is(c) {
            return Err(at(self.p, self.cur(), what));
        }
        self.k += 1;
        Ok(())
    }
    fn ident(&mut self, what: &'static str) -> Res<String> {
        let t = self.cur();
        if t.kind != Tok::Ident || self.k >= self.toks.len() {
            return Err(at(self.p, t, what));
        }
        self.k += 1;
        Ok(self.p.text(t).to_string())
    }
    /// `(a, b, c)` or `()`.
    fn list(&mut self) -> Res<Vec<String>> {
        self.punct(b'(', "'('")?;
        let mut v = Vec::new();
        if self.is(b')') {
            self.k += 1;
            return Ok(v);
        }
        loop {
            v.push(self.ident("a parameter")?);
            if self.is(b')') {
                self.k += 1;
                return Ok(v);
            }
            self.punct(b',', "',' or ')'")?;
        }
    }
}

/// Hands an instruction statement to sim-isa. What sim-isa does not decode
/// (opcodes it lacks, forms it does not implement, operands naming memory or
/// code) is kept as [`StatementKind::Unimplemented`] with sim-isa's reason.
pub(crate) fn instruction(
    p: &Parser<'_>,
    syms: &mut Symbols,
    text: &str,
    op: Token,
    mods: &[Token],
    symbolic: bool,
) -> Res<StatementKind> {
    // Spelled out only for a statement that stays unimplemented.
    let opcode = || {
        let mut o = p.text(op).to_string();
        for &m in mods {
            o.push_str(p.text(m));
        }
        o
    };
    // A statement naming something other than a register is parsed and,
    // unless it is kept, its names taken back: a family that took a
    // variable for a register must not leave it in the body's table, where
    // later statements (and their printed forms) would read it as one
    // (found by `fuzz_module_mutated`).
    let mark = symbolic.then(|| syms.mark());
    let undo = |syms: &mut Symbols| {
        if let Some(m) = mark {
            syms.rollback(m);
        }
    };
    match sim_isa::parse::parse_instruction(text, syms) {
        // A name that is no register must have become a memory operand:
        // the memory family's parser reads variables; any other family
        // would have taken it for a register.
        Ok(inst) if symbolic && !sim_isa::db::runs_with_memory(&inst) => {
            undo(syms);
            Ok(StatementKind::Unimplemented(Unimplemented {
                opcode: opcode(),
                isa: None,
            }))
        }
        Ok(inst) => Ok(StatementKind::Instruction(inst)),
        Err(e) => {
            undo(syms);
            Ok(StatementKind::Unimplemented(Unimplemented {
                opcode: opcode(),
                isa: Some(e),
            }))
        }
    }
}
