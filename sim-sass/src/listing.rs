//! A listing's lines: functions, labels and instructions.
//!
//! What nvdisasm prints (`-c`, optionally `-hex`):
//!
//! ```text
//!         .section        .text.k0,"ax",@progbits
//! k0:
//! .text.k0:
//!         /*0000*/                   LDC R1, c[0x0][0x28] ;     /* 0x00000a00ff017b82 */
//!                                                               /* 0x000fe40000000800 */
//! .L_x_0:
//!         /*0010*/               @P0 BRA `(.L_x_0) ;
//! ```
//!
//! A function starts at `.section .text.NAME,` (nvdisasm), at `.text.NAME:`
//! when no section named it (hand-written samples), or at `Function : NAME`
//! (cuobjdump); lines before any start belong to a function named `""`.
//! Every other `name:` line is a label. Kepler and Maxwell (dual issue)
//! put a pair of instructions in braces; the braces are dropped. Their
//! `-hex` listings print each group's scheduling word on a line of its own
//! before the group: those words are not an instruction's and are skipped;
//! from Volta on the second word of an instruction is the line after it,
//! and [`Inst::encoding`] holds both.

/// A whole listing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listing {
    /// The functions in listing order.
    pub functions: Vec<Function>,
}

/// One function (an entry or a subroutine's section).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Function {
    /// Its name (`k0`), `""` for lines before any function header.
    pub name: String,
    /// Labels and instructions in listing order.
    pub items: Vec<Item>,
}

/// A line of a function that is not a directive or a comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// `name:`.
    Label(Label),
    /// `/*0040*/ ... ;`.
    Inst(Inst),
    /// An instruction line that could not be read.
    Bad(LineError),
}

/// A label line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    /// The name without its colon (`.L_x_0`, `k0`, `.text.k0`).
    pub name: String,
    /// 1-based line number.
    pub line: usize,
}

/// A guard predicate, `@!P0`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guard {
    /// `P0`, `UP1`, `PT`.
    pub pred: String,
    /// `!`.
    pub negated: bool,
}

/// One instruction line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inst {
    /// 1-based line number.
    pub line: usize,
    /// The address in the `/*0040*/` comment.
    pub addr: u64,
    /// `@P0` / `@!P0`.
    pub guard: Option<Guard>,
    /// `OPCODE.MODIFIERS` as printed (`IMAD.MOV.U32`).
    pub opcode: String,
    /// The operands as printed, split at top-level commas.
    pub operands: Vec<String>,
    /// The instruction as printed, guard included, without `;` and braces.
    pub text: String,
    /// The encoding words of `-hex` (low word first; empty without `-hex`).
    pub encoding: Vec<u64>,
}

/// The scheduling fields of a Volta-and-later instruction's second word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Control {
    /// Stall cycles before the next instruction issues (bits 41-44).
    pub stall: u8,
    /// The yield flag (bit 45).
    pub yield_flag: bool,
    /// The scoreboard barrier the result sets (bits 46-48; 7: none).
    pub write_barrier: u8,
    /// The barrier set when the sources have been read (bits 49-51; 7: none).
    pub read_barrier: u8,
    /// The barriers waited on before issue (bits 52-57, one bit each).
    pub wait_mask: u8,
    /// The operand reuse flags (bits 58-61).
    pub reuse: u8,
}

/// Why an instruction line could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {kind}")]
pub struct LineError {
    /// 1-based line number.
    pub line: usize,
    /// What was wrong.
    pub kind: LineErrorKind,
}

/// What was wrong with an instruction line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LineErrorKind {
    /// The address comment is not a hexadecimal number that fits 64 bits.
    #[error("bad address '{0}'")]
    BadAddress(String),
    /// A guard with no instruction after it (`@P0`).
    #[error("guard '{0}' without an instruction")]
    MissingOpcode(String),
    /// The guard is not a predicate (`@R0 MOV`).
    #[error("guard '{0}' is not a predicate")]
    BadGuard(String),
    /// An encoding comment that is not a hexadecimal word.
    #[error("bad encoding word '{0}'")]
    BadEncoding(String),
}

impl Inst {
    /// The opcode without modifiers (`IMAD`).
    pub fn base(&self) -> &str {
        self.opcode.split('.').next().unwrap_or("")
    }

    /// The modifiers (`MOV`, `U32` of `IMAD.MOV.U32`).
    pub fn modifiers(&self) -> impl Iterator<Item = &str> {
        self.opcode.split('.').skip(1)
    }

    /// A branch's or call's target label, as in ``BRA `(.L_x_0)``.
    pub fn target(&self) -> Option<&str> {
        let s = self.text.find("`(")?;
        let rest = &self.text[s + 2..];
        let e = rest.find(')')?;
        Some(&rest[..e])
    }

    /// The control fields of the second encoding word (Volta on: listings
    /// with `-hex`), `None` without one.
    pub fn control(&self) -> Option<Control> {
        let hi = *self.encoding.get(1)?;
        let bits = |at: u32, n: u32| ((hi >> at) & ((1 << n) - 1)) as u8;
        Some(Control {
            stall: bits(41, 4),
            yield_flag: bits(45, 1) == 1,
            write_barrier: bits(46, 3),
            read_barrier: bits(49, 3),
            wait_mask: bits(52, 6),
            reuse: bits(58, 4),
        })
    }
}

impl Function {
    /// The instructions, labels and unreadable lines left out.
    pub fn insts(&self) -> impl Iterator<Item = &Inst> {
        self.items.iter().filter_map(|i| match i {
            Item::Inst(x) => Some(x),
            _ => None,
        })
    }
}

impl Listing {
    /// Reads a listing. Never fails as a whole: an unreadable instruction
    /// line is an [`Item::Bad`] in its place.
    pub fn parse(text: &str) -> Listing {
        let mut p = Parser::default();
        for (k, line) in text.lines().enumerate() {
            p.line(k + 1, line.trim());
        }
        Listing {
            functions: p.functions,
        }
    }

    /// Every unreadable line.
    pub fn errors(&self) -> impl Iterator<Item = &LineError> {
        self.functions
            .iter()
            .flat_map(|f| &f.items)
            .filter_map(|i| match i {
                Item::Bad(e) => Some(e),
                _ => None,
            })
    }
}

#[derive(Default)]
struct Parser {
    functions: Vec<Function>,
    /// A scheduling word came before the current function's first
    /// instruction (Kepler/Maxwell): standalone words are not second words.
    grouped: bool,
    /// The last item was an instruction that may take a second word.
    open: bool,
}

impl Parser {
    fn start(&mut self, name: &str) {
        self.functions.push(Function {
            name: name.to_string(),
            items: Vec::new(),
        });
        self.grouped = false;
        self.open = false;
    }

    fn push(&mut self, item: Item) {
        if self.functions.is_empty() {
            self.start("");
        }
        self.open = matches!(&item, Item::Inst(i) if i.encoding.len() == 1);
        if let Some(f) = self.functions.last_mut() {
            f.items.push(item);
        }
    }

    fn line(&mut self, n: usize, l: &str) {
        if let Some(rest) = l.strip_prefix(".section") {
            let name = rest.trim_start().strip_prefix(".text.");
            if let Some(name) = name.and_then(|r| r.split(',').next()) {
                self.start(name.trim());
            }
            return;
        }
        if let Some(name) = l.strip_prefix("Function :") {
            self.start(name.trim());
            return;
        }
        if let Some(name) = l.strip_suffix(':') {
            if !name.is_empty() && !name.contains(char::is_whitespace) {
                let current = self.functions.last().map(|f| f.name.as_str());
                match name.strip_prefix(".text.") {
                    Some(f) if current != Some(f) => self.start(f),
                    _ => self.push(Item::Label(Label {
                        name: name.to_string(),
                        line: n,
                    })),
                }
            }
            return;
        }
        let Some(rest) = l.strip_prefix("/*") else {
            self.open = false;
            return;
        };
        let Some((head, body)) = rest.split_once("*/") else {
            return;
        };
        let head = head.trim();
        if let Some(hex) = head.strip_prefix("0x") {
            self.word(n, hex, body);
        } else if head.len() >= 4 && head.bytes().all(|b| b.is_ascii_hexdigit()) {
            match inst(n, head, body) {
                Ok(Some(i)) => self.push(Item::Inst(i)),
                Ok(None) => self.open = false,
                Err(kind) => self.push(Item::Bad(LineError { line: n, kind })),
            }
        }
    }

    /// A line holding only an encoding word.
    fn word(&mut self, n: usize, hex: &str, rest: &str) {
        let started = self
            .functions
            .last()
            .is_some_and(|f| f.insts().next().is_some());
        if !started {
            self.grouped = true;
        }
        if self.grouped || !self.open || !rest.trim().is_empty() {
            self.open = false;
            return;
        }
        self.open = false;
        let word = u64::from_str_radix(hex.trim(), 16);
        let last = self.functions.last_mut().and_then(|f| f.items.last_mut());
        match (word, last) {
            (Ok(w), Some(Item::Inst(i))) => i.encoding.push(w),
            (Err(_), Some(item)) => {
                *item = Item::Bad(LineError {
                    line: n,
                    kind: LineErrorKind::BadEncoding(hex.trim().to_string()),
                })
            }
            _ => {}
        }
    }
}

/// One `/*ADDR*/ body` line; `None` when the body is empty.
fn inst(n: usize, addr: &str, body: &str) -> Result<Option<Inst>, LineErrorKind> {
    let addr = u64::from_str_radix(addr, 16).map_err(|_| LineErrorKind::BadAddress(addr.into()))?;
    let (code, words) = body.split_once(';').unwrap_or((body, ""));
    // A Maxwell pair's second line ends at `}` without `;` (and may carry words).
    let (code, words) = match (words.is_empty(), code.find("/*")) {
        (true, Some(p)) => (&code[..p], &code[p..]),
        _ => (code, words),
    };
    let text = code
        .trim()
        .trim_start_matches('{')
        .trim_end_matches('}')
        .trim();
    if text.is_empty() {
        return Ok(None);
    }
    let mut encoding = Vec::new();
    for w in words.split("/*").skip(1) {
        let w = w.split("*/").next().unwrap_or("").trim();
        let hex = w.strip_prefix("0x").unwrap_or(w);
        let v = u64::from_str_radix(hex, 16).map_err(|_| LineErrorKind::BadEncoding(w.into()))?;
        encoding.push(v);
    }
    let (guard, rest) = match text.strip_prefix('@') {
        Some(g) => {
            let Some((g, rest)) = g.split_once(char::is_whitespace) else {
                return Err(LineErrorKind::MissingOpcode(g.into()));
            };
            (Some(guard(g)?), rest.trim())
        }
        None => (None, text),
    };
    let (opcode, ops) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    Ok(Some(Inst {
        line: n,
        addr,
        guard,
        opcode: opcode.to_string(),
        operands: split_ops(ops),
        text: text.to_string(),
        encoding,
    }))
}

/// Splits operand text at top-level commas (a memory operand's brackets
/// and a call target's parentheses may hold commas).
pub fn split_ops(rest: &str) -> Vec<String> {
    let (mut ops, mut depth, mut cur) = (Vec::new(), 0i32, String::new());
    for ch in rest.chars() {
        match ch {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            _ => {}
        }
        if ch == ',' && depth == 0 {
            ops.push(cur.trim().to_string());
            cur.clear();
        } else {
            cur.push(ch);
        }
    }
    if !cur.trim().is_empty() {
        ops.push(cur.trim().to_string());
    }
    ops
}

fn guard(g: &str) -> Result<Guard, LineErrorKind> {
    let (negated, pred) = match g.strip_prefix('!') {
        Some(p) => (true, p),
        None => (false, g),
    };
    let num = pred.strip_prefix('U').unwrap_or(pred);
    let ok = num
        .strip_prefix('P')
        .is_some_and(|d| d == "T" || (!d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())));
    if !ok {
        return Err(LineErrorKind::BadGuard(g.into()));
    }
    Ok(Guard {
        pred: pred.to_string(),
        negated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions_labels_words_and_errors() {
        let text = "\t.section\t.text.k2,\"ax\",@progbits\nk2:\n.text.k2:\n\
            /*0000*/ LDC R1, c[0x0][0x28] ;   /* 0x00000a00ff017b82 */\n\
            \x20                            /* 0x000ff00000000800 */\n\
            .L_x_0:\n /*0010*/ @!UP1 BRA `(.L_x_0) ;\n /*0020*/ @R1 MOV R2, R3 ;\n\
            Function : other\n /*0008*/ { IADD R1, R2, R3 ;\n /*0010*/ S2R R4, SR_CTAID.X }\n";
        let l = Listing::parse(text);
        assert_eq!(l.functions.len(), 2);
        let f = &l.functions[0];
        assert_eq!(f.name, "k2");
        let labels: Vec<&str> = f
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Label(l) => Some(l.name.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(labels, ["k2", ".text.k2", ".L_x_0"]);
        let insts: Vec<&Inst> = f.insts().collect();
        assert_eq!(insts[0].encoding, [0x00000a00ff017b82, 0x000ff00000000800]);
        let c = insts[0].control().unwrap();
        assert_eq!((c.stall, c.write_barrier, c.wait_mask), (8, 7, 0));
        assert_eq!(insts[1].target(), Some(".L_x_0"));
        assert_eq!(
            insts[1].guard,
            Some(Guard {
                pred: "UP1".into(),
                negated: true
            })
        );
        assert_eq!(
            l.errors().cloned().collect::<Vec<_>>(),
            [LineError {
                line: 8,
                kind: LineErrorKind::BadGuard("R1".into())
            }]
        );
        let other: Vec<&str> = l.functions[1].insts().map(|i| i.text.as_str()).collect();
        assert_eq!(other, ["IADD R1, R2, R3", "S2R R4, SR_CTAID.X"]);
    }

    #[test]
    fn grouped_scheduling_words_are_no_second_words() {
        let text = ".text.k:\nk:\n /* 0x08a0bc80a0a0bcc0 */\n\
            /*0008*/ MOV R1, c[0x0][0x44]; /* 0x64c03c00089c0006 */\n\
            /*0010*/ S2R R0, SR_TID.X; /* 0x86400000109c0002 */\n /* 0x08a0bc80a0a0bcc0 */\n";
        let l = Listing::parse(text);
        let enc: Vec<usize> = l.functions[0].insts().map(|i| i.encoding.len()).collect();
        assert_eq!(enc, [1, 1]);
        assert_eq!(l.functions[0].insts().next().unwrap().control(), None);
    }
}
