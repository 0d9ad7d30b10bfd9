//! Kernel text: PTX instruction syntax plus a few directives (`.target`,
//! `.version`, `.warps`, `.mask`, `.reg`, `.repeat N { }`, `.expect`, `.value`),
//! assembled into a [`Trace`]. Errors name the file, line and column.

use crate::limits;
use crate::program::{ProgramBuilder, ProgramError};
use crate::stream::{Stream, StreamBuilder, StreamError};
use crate::trace::{
    check_version, is_ptx_identifier, width_mask, ExpectRec, Lanes, Trace, ValueRec, WarpRec,
};
use sim_isa::{ErrorKind, PtxVersion, RegId, Target, Type, WARP_SIZE};
use std::cell::Cell;
use std::collections::HashMap;
use std::sync::Arc;

/// A kernel-text error with its position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{col}: {msg}")]
pub struct KernelError {
    /// File name as given.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column (characters).
    pub col: usize,
    /// What is wrong.
    pub msg: String,
    /// For instruction errors: sim-isa's classification.
    pub kind: Option<ErrorKind>,
    /// For instruction errors: the typed reason (parse, undeclared register,
    /// register width, too many instructions).
    pub program: Option<Box<ProgramError>>,
}

/// The source: the text as given (for columns) and a copy with comments
/// blanked to spaces (for parsing). Both are indexed by byte; blanking keeps
/// every newline and byte offset, so positions hold. Memory is two bytes per
/// byte of text, whatever its shape.
struct Src<'a> {
    file: &'a str,
    orig: &'a str,
    text: String,
    /// The line at a byte offset, from the last lookup: parsing moves
    /// forward, so line numbers cost one pass over the text in all.
    line_at: Cell<(usize, usize)>,
}

impl Src<'_> {
    /// 1-based line of byte offset `i`.
    fn line(&self, i: usize) -> usize {
        let b = self.orig.as_bytes();
        let i = i.min(b.len());
        let (at, line) = self.line_at.get();
        let (from, base) = if i >= at { (at, line) } else { (0, 1) };
        let line = base + b[from..i].iter().filter(|&&c| c == b'\n').count();
        self.line_at.set((i, line));
        line
    }

    /// 1-based line and column (in characters) of byte offset `i`.
    fn pos(&self, i: usize) -> (usize, usize) {
        let b = self.orig.as_bytes();
        let i = i.min(b.len());
        let start = b[..i]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |p| p + 1);
        // Characters are the bytes that do not continue a UTF-8 sequence.
        let col = b[start..i].iter().filter(|&&c| c & 0xc0 != 0x80).count() + 1;
        (self.line(i), col)
    }

    fn err(&self, i: usize, msg: impl Into<String>) -> KernelError {
        let (line, col) = self.pos(i);
        KernelError {
            file: self.file.to_string(),
            line,
            col,
            msg: msg.into(),
            kind: None,
            program: None,
        }
    }
}

/// Blanks comments to spaces, keeping newlines (so positions hold).
fn strip_comments<'a>(file: &'a str, text: &'a str) -> Result<Src<'a>, KernelError> {
    let mut b = text.as_bytes().to_vec();
    let mut i = 0;
    let mut unterminated = None;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                b[i] = b' ';
                i += 1;
            }
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            let start = i;
            b[i] = b' ';
            b[i + 1] = b' ';
            i += 2;
            loop {
                if i >= b.len() {
                    unterminated = Some(start);
                    break;
                }
                if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    b[i] = b' ';
                    b[i + 1] = b' ';
                    i += 2;
                    break;
                }
                if b[i] != b'\n' {
                    b[i] = b' ';
                }
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    // Comments start and end at ASCII bytes, so whole characters were
    // blanked and the copy is still UTF-8.
    let text_blanked = match String::from_utf8(b) {
        Ok(t) => t,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    };
    let src = Src {
        file,
        orig: text,
        text: text_blanked,
        line_at: Cell::new((0, 1)),
    };
    match unterminated {
        Some(start) => Err(src.err(start, "unterminated /* comment")),
        None => Ok(src),
    }
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '%' | '$' | '.')
}

/// Parses an unsigned integer: decimal or `0x` hex.
fn parse_uint(s: &str) -> Option<u64> {
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        if h.is_empty() || h.len() > 16 {
            return None;
        }
        u64::from_str_radix(h, 16).ok()
    } else if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        s.parse().ok()
    } else {
        None
    }
}

struct Parser<'a> {
    src: Src<'a>,
    i: usize,
    prog: ProgramBuilder,
    builder: StreamBuilder,
    // Op index of each repeat -> its text position, for error messages.
    repeat_at: HashMap<usize, usize>,
    // Open repeats: (text position, op index).
    open: Vec<(usize, usize)>,
    target: Option<Target>,
    version: Option<PtxVersion>,
    warps: Option<u32>,
    mask: Option<u32>,
    expects: Vec<(usize, ExpectRec)>,
    values: Vec<(usize, ValueRec)>,
    seen_inst: bool,
}

/// Assembles kernel text. `file` only names the source in errors.
pub fn parse_kernel(file: &str, text: &str) -> Result<Trace, KernelError> {
    if text.len() > limits::MAX_TEXT {
        return Err(KernelError {
            file: file.into(),
            line: 1,
            col: 1,
            msg: format!("kernel text is larger than {} bytes", limits::MAX_TEXT),
            kind: None,
            program: None,
        });
    }
    let src = strip_comments(file, text)?;
    let mut p = Parser {
        src,
        i: 0,
        prog: ProgramBuilder::new(),
        builder: StreamBuilder::new(),
        repeat_at: HashMap::new(),
        open: Vec::new(),
        target: None,
        version: None,
        warps: None,
        mask: None,
        expects: Vec::new(),
        values: Vec::new(),
        seen_inst: false,
    };
    p.run()?;
    p.finish()
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        match *self.src.text.as_bytes().get(self.i)? {
            b @ 0..0x80 => Some(b as char),
            _ => self.src.text.get(self.i..).and_then(|t| t.chars().next()),
        }
    }

    /// Steps over the character at the cursor.
    fn bump(&mut self) {
        self.i += self.peek().map_or(1, char::len_utf8);
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
    }

    /// Skips spaces and tabs but not newlines.
    fn skip_blank(&mut self) {
        while self
            .peek()
            .is_some_and(|c| c == ' ' || c == '\t' || c == '\r')
        {
            self.i += 1;
        }
    }

    fn err(&self, i: usize, msg: impl Into<String>) -> KernelError {
        self.src.err(i, msg)
    }

    /// Reads a word of identifier characters.
    fn word(&mut self) -> (usize, String) {
        let start = self.i;
        while self.peek().is_some_and(is_ident) {
            self.i += 1;
        }
        (start, self.src.text[start..self.i].to_string())
    }

    /// Reads a token for a directive argument (up to whitespace, `;`, `{`, `}`, `,`, `=`).
    fn token(&mut self) -> (usize, String) {
        self.skip_blank();
        let start = self.i;
        while self
            .peek()
            .is_some_and(|c| !c.is_whitespace() && !matches!(c, ';' | '{' | '}' | ',' | '='))
        {
            self.bump();
        }
        (start, self.src.text[start..self.i].to_string())
    }

    /// Ends a line directive: an optional `;`, then nothing else on the line.
    fn end_line_directive(&mut self) -> Result<(), KernelError> {
        self.skip_blank();
        if self.peek() == Some(';') {
            self.i += 1;
            self.skip_blank();
        }
        match self.peek() {
            None | Some('\n') => Ok(()),
            Some(_) => Err(self.err(self.i, "unexpected text after directive")),
        }
    }

    fn expect_char(&mut self, c: char, what: &str) -> Result<(), KernelError> {
        self.skip_ws();
        if self.peek() == Some(c) {
            self.i += 1;
            Ok(())
        } else {
            Err(self.err(self.i, format!("expected '{c}' {what}")))
        }
    }

    fn run(&mut self) -> Result<(), KernelError> {
        loop {
            self.skip_ws();
            let Some(c) = self.peek() else { break };
            let at = self.i;
            match c {
                ';' => self.i += 1,
                '}' => {
                    self.i += 1;
                    let Some((open_at, op)) = self.open.pop() else {
                        return Err(self.err(at, "'}' without an open .repeat"));
                    };
                    if self.builder.len() == op + 1 {
                        return Err(self.err(open_at, "empty .repeat body"));
                    }
                    self.builder.close_repeat();
                }
                '{' => return Err(self.err(at, "'{' outside a .repeat")),
                '.' => self.directive()?,
                _ => self.instruction()?,
            }
        }
        if let Some(&(open_at, _)) = self.open.last() {
            return Err(self.err(open_at, ".repeat block is never closed (missing '}')"));
        }
        Ok(())
    }

    /// The value of `.warps` or `.mask` (directive `name` at `at`), set once
    /// into `slot`: `ok` bounds it, `need` says how ("'NAME' needs NEED").
    fn once_u32(
        &mut self,
        at: usize,
        name: &str,
        need: &str,
        ok: fn(u64) -> bool,
        slot: fn(&mut Self) -> &mut Option<u32>,
    ) -> Result<(), KernelError> {
        let (t, tok) = self.token();
        let n = parse_uint(&tok)
            .filter(|&n| ok(n))
            .ok_or_else(|| self.err(t, format!("'{name}' needs {need}, got '{tok}'")))?;
        if slot(self).replace(n as u32).is_some() {
            return Err(self.err(at, format!("duplicate {name}")));
        }
        self.end_line_directive()
    }

    fn directive(&mut self) -> Result<(), KernelError> {
        let (at, name) = self.word();
        let global = |p: &Self, what: &str| -> Result<(), KernelError> {
            if p.seen_inst {
                Err(p.err(at, format!("{what} must come before the first instruction")))
            } else {
                Ok(())
            }
        };
        match name.as_str() {
            ".version" => {
                global(self, ".version")?;
                let (t, tok) = self.token();
                let v = PtxVersion::parse(&tok).ok_or_else(|| {
                    self.err(t, format!("invalid PTX version '{tok}', expected X.Y"))
                })?;
                check_version(v).map_err(|m| self.err(t, m))?;
                if self.version.replace(v).is_some() {
                    return Err(self.err(at, "duplicate .version"));
                }
                self.end_line_directive()
            }
            ".target" => {
                global(self, ".target")?;
                let (t, tok) = self.token();
                let tg = Target::parse(&tok).map_err(|e| self.err(t, e.to_string()))?;
                if self.target.replace(tg).is_some() {
                    return Err(self.err(at, "duplicate .target"));
                }
                self.end_line_directive()
            }
            ".address_size" => {
                // Accepted so real PTX headers paste in; it has no meaning for a trace.
                let (t, tok) = self.token();
                if tok != "32" && tok != "64" {
                    return Err(self.err(t, ".address_size must be 32 or 64"));
                }
                self.end_line_directive()
            }
            ".warps" => {
                global(self, ".warps")?;
                let need = format!("a count from 1 to {}", limits::MAX_WARPS);
                let ok = |n| n >= 1 && n <= limits::MAX_WARPS as u64;
                self.once_u32(at, ".warps", &need, ok, |p| &mut p.warps)
            }
            ".mask" => {
                global(self, ".mask")?;
                let need = "a non-zero 32-bit lane mask such as 0xffffffff";
                let ok = |m| m != 0 && m <= u32::MAX as u64;
                self.once_u32(at, ".mask", need, ok, |p| &mut p.mask)
            }
            ".reg" => self.reg(),
            ".repeat" => {
                let (t, tok) = self.token();
                let n = parse_uint(&tok).filter(|&n| n >= 1).ok_or_else(|| {
                    self.err(
                        t,
                        format!("'.repeat' needs a count of at least 1, got '{tok}'"),
                    )
                })?;
                self.expect_char('{', "after the .repeat count")?;
                if self.open.len() >= limits::MAX_DEPTH {
                    return Err(self.err(
                        at,
                        format!(".repeat blocks nested deeper than {}", limits::MAX_DEPTH),
                    ));
                }
                self.repeat_at.insert(self.builder.len(), at);
                self.open.push((at, self.builder.len()));
                self.builder.open_repeat(n);
                self.seen_inst = true;
                Ok(())
            }
            ".expect" => {
                let warp = self.warp_selector(false)?;
                let (reg, lanes) = self.assignment()?;
                self.expects.push((at, ExpectRec { warp, reg, lanes }));
                Ok(())
            }
            ".value" => {
                let warp = self.warp_selector(true)?.unwrap_or(0);
                let (t, tok) = self.token();
                let dyn_index = parse_uint(&tok).ok_or_else(|| {
                    self.err(
                        t,
                        format!("expected a dynamic instruction index, got '{tok}'"),
                    )
                })?;
                let (reg, lanes) = self.assignment()?;
                self.values.push((
                    at,
                    ValueRec {
                        warp,
                        dyn_index,
                        reg,
                        lanes,
                    },
                ));
                Ok(())
            }
            _ => Err(self.err(at, format!("unknown directive '{name}'"))),
        }
    }

    /// `wN` before the register of `.expect` / `.value`.
    fn warp_selector(&mut self, required: bool) -> Result<Option<u32>, KernelError> {
        self.skip_blank();
        let save = self.i;
        let (t, tok) = self.token();
        if let Some(n) = tok.strip_prefix('w') {
            let w = parse_uint(n)
                .filter(|&w| w < limits::MAX_WARPS as u64)
                .ok_or_else(|| {
                    self.err(t, format!("invalid warp selector '{tok}', expected wN"))
                })?;
            return Ok(Some(w as u32));
        }
        if required {
            return Err(self.err(t, format!("expected a warp selector wN, got '{tok}'")));
        }
        self.i = save;
        Ok(None)
    }

    /// `REG = value;` or `REG = {v0, ..., v31};`
    fn assignment(&mut self) -> Result<(u32, Lanes), KernelError> {
        let (t, name) = self.token();
        let reg = self
            .prog
            .syms()
            .get(&name)
            .ok_or_else(|| self.err(t, format!("undeclared register '{name}'")))?
            .0;
        let ty = self
            .prog
            .syms()
            .declared_type(RegId(reg))
            .unwrap_or(Type::B64);
        self.expect_char('=', "after the register")?;
        self.skip_ws();
        let lanes = if self.peek() == Some('{') {
            self.i += 1;
            let mut a = [0u64; WARP_SIZE];
            for (lane, slot) in a.iter_mut().enumerate() {
                self.skip_ws();
                *slot = self.value(ty)?;
                self.skip_ws();
                let want = if lane + 1 == WARP_SIZE { '}' } else { ',' };
                if self.peek() != Some(want) {
                    return Err(self.err(
                        self.i,
                        format!("expected '{want}': a lane list has exactly {WARP_SIZE} values"),
                    ));
                }
                self.i += 1;
            }
            Lanes::Each(Box::new(a))
        } else {
            Lanes::Splat(self.value(ty)?)
        };
        self.expect_char(';', "after the value")?;
        Ok((reg, lanes))
    }

    fn value(&mut self, ty: Type) -> Result<u64, KernelError> {
        let (t, tok) = self.token();
        let v = match tok.as_str() {
            "true" if ty == Type::Pred => Some(1),
            "false" if ty == Type::Pred => Some(0),
            _ => parse_uint(&tok),
        };
        let v = v.ok_or_else(|| self.err(t, format!("invalid value '{tok}'")))?;
        if v & !width_mask(ty.bits()) != 0 {
            return Err(self.err(
                t,
                format!("value '{tok}' does not fit a .{} register", ty.name()),
            ));
        }
        Ok(v)
    }

    fn reg(&mut self) -> Result<(), KernelError> {
        self.skip_blank();
        let (t, ty_tok) = self.word();
        let ty = ty_tok
            .strip_prefix('.')
            .and_then(Type::from_name)
            .ok_or_else(|| {
                self.err(
                    t,
                    format!("expected a register type such as .b32 or .pred, got '{ty_tok}'"),
                )
            })?;
        loop {
            self.skip_ws();
            let (n, name) = self.word();
            if name.is_empty()
                || name.starts_with('.')
                || name.chars().next().is_some_and(|c| c.is_ascii_digit())
            {
                return Err(self.err(n, "expected a register name"));
            }
            if self.peek() == Some('<') {
                self.i += 1;
                let (c, count) = self.word();
                let count = parse_uint(&count)
                    .filter(|&k| k >= 1 && k <= limits::MAX_REGS as u64)
                    .ok_or_else(|| {
                        self.err(
                            c,
                            format!("register count must be 1 to {}", limits::MAX_REGS),
                        )
                    })?;
                if self.peek() != Some('>') {
                    return Err(self.err(self.i, "expected '>'"));
                }
                self.i += 1;
                for k in 0..count {
                    self.declare(n, &format!("{name}{k}"), ty)?;
                }
            } else {
                self.declare(n, &name, ty)?;
            }
            self.skip_ws();
            match self.peek() {
                Some(',') => self.i += 1,
                Some(';') => {
                    self.i += 1;
                    return Ok(());
                }
                _ => return Err(self.err(self.i, "expected ',' or ';' in .reg")),
            }
        }
    }

    fn declare(&mut self, at: usize, name: &str, ty: Type) -> Result<(), KernelError> {
        if name.len() > limits::MAX_NAME {
            return Err(self.err(at, "register name too long"));
        }
        if !is_ptx_identifier(name) {
            return Err(self.err(at, format!("'{name}' is not a PTX identifier")));
        }
        if self.prog.syms().len() >= limits::MAX_REGS {
            return Err(self.err(
                at,
                format!("more than {} registers declared", limits::MAX_REGS),
            ));
        }
        self.prog
            .syms_mut()
            .declare(name, ty)
            .map(|_| ())
            .ok_or_else(|| self.err(at, format!("register '{name}' declared twice")))
    }

    fn instruction(&mut self) -> Result<(), KernelError> {
        let start = self.i;
        // The delimiters are ASCII, so a byte search finds them in UTF-8.
        let rest = &self.src.text.as_bytes()[start..];
        match rest.iter().position(|c| matches!(c, b';' | b'{' | b'}')) {
            Some(n) if rest[n] == b';' => self.i = start + n + 1,
            Some(n) => return Err(self.err(start + n, "missing ';' before this")),
            None => return Err(self.err(start, "instruction is missing its ';'")),
        }
        let text = self.src.text[start..self.i].to_string();
        let line = self.src.line(start) as u32;
        let idx = self
            .prog
            .parse(&text)
            .and_then(|inst| self.prog.intern(inst, line))
            .map_err(|e| self.program_error(start, &text, e))?;
        self.seen_inst = true;
        if self.builder.len() >= limits::MAX_STREAM_OPS {
            return Err(self.err(
                start,
                format!("more than {} stream entries", limits::MAX_STREAM_OPS),
            ));
        }
        self.builder.push(idx);
        Ok(())
    }

    /// Places a program error at the token it concerns, within the
    /// instruction starting at `start`.
    fn program_error(&self, start: usize, text: &str, e: ProgramError) -> KernelError {
        let len = text.chars().count();
        let off = match &e {
            ProgramError::Parse(e) => e.col().map_or(0, |c| c.saturating_sub(1)),
            ProgramError::TooMany => 0,
            ProgramError::Undeclared { name } | ProgramError::Width { name, .. } => {
                find_token(text, name).unwrap_or(0)
            }
        };
        // `off` counts characters; the source is indexed by byte.
        let off = off.min(len.saturating_sub(1));
        let byte = text.char_indices().nth(off).map_or(0, |(b, _)| b);
        let mut k = self.err(start + byte, e.to_string());
        if let ProgramError::Parse(p) = &e {
            k.kind = Some(p.kind());
        }
        k.program = Some(Box::new(e));
        k
    }

    fn finish(mut self) -> Result<Trace, KernelError> {
        let end = self.src.text.len();
        let target = self
            .target
            .ok_or_else(|| self.err(0, "missing .target directive (e.g. '.target sm_53')"))?;
        let ninsts = self.prog.len();
        if ninsts == 0 {
            return Err(self.err(end, "the kernel has no instructions"));
        }
        let stream =
            Stream::new(std::mem::take(&mut self.builder).finish(), ninsts).map_err(|e| {
                let op = match &e {
                    StreamError::Index { op, .. }
                    | StreamError::Shape { op, .. }
                    | StreamError::TooLong { op, .. } => *op,
                    StreamError::TooDeep { .. } => 0,
                };
                let at = self.repeat_at.get(&op).copied().unwrap_or(0);
                self.err(at, e.to_string())
            })?;
        let nwarps = self.warps.unwrap_or(1);
        let total = stream
            .dynamic_len()
            .checked_mul(nwarps.into())
            .filter(|&t| t <= limits::MAX_DYNAMIC_TOTAL);
        if total.is_none() {
            return Err(self.err(
                0,
                format!(
                    "the launch exceeds {} dynamic warp-instructions",
                    limits::MAX_DYNAMIC_TOTAL
                ),
            ));
        }
        let mask = self.mask.unwrap_or(u32::MAX);
        let prog = std::mem::take(&mut self.prog).finish();
        let mut trace = Trace::new(target, self.version, prog);
        trace.streams = vec![Arc::new(stream)];
        trace.warps = vec![WarpRec { mask, stream: 0 }; nwarps as usize];
        trace.values = self.values.iter().map(|(_, v)| v.clone()).collect();
        trace.expects = self.expects.iter().map(|(_, e)| e.clone()).collect();
        // Point record errors at their directive.
        for (at, e) in &self.expects {
            if let Some(w) = e.warp {
                if w >= nwarps {
                    return Err(self.err(
                        *at,
                        format!(".expect names warp {w} but the launch has {nwarps}"),
                    ));
                }
            }
        }
        for (at, v) in &self.values {
            if v.warp >= nwarps {
                return Err(self.err(
                    *at,
                    format!(".value names warp {} but the launch has {nwarps}", v.warp),
                ));
            }
            if v.dyn_index >= trace.streams[0].dynamic_len() {
                return Err(self.err(
                    *at,
                    format!(
                        ".value names dynamic instruction {} past the stream's end",
                        v.dyn_index
                    ),
                ));
            }
        }
        trace.validate().map_err(|m| self.err(0, m))?;
        Ok(trace)
    }
}

/// Character offset of `name` as a whole token in `text`.
fn find_token(text: &str, name: &str) -> Option<usize> {
    let chars: Vec<char> = text.chars().collect();
    let n: Vec<char> = name.chars().collect();
    (0..=chars.len().saturating_sub(n.len())).find(|&i| {
        chars[i..].starts_with(&n)
            && (i == 0 || !is_ident(chars[i - 1]) || chars[i - 1] == '%' && !name.starts_with('%'))
            && chars.get(i + n.len()).is_none_or(|&c| !is_ident(c))
    })
}
