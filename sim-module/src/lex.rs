//! Tokens of a PTX module, with byte offsets; comments are skipped but
//! remembered so that an instruction's text can be handed on with them blanked.

use crate::error::{ModuleErrorKind, Pos};

/// Token classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    /// `name`, `%r1`, `$L__BB0_1`, `_Z3fooi`.
    Ident,
    /// `.reg`, `.u32`, `.x`: a dot followed by identifier characters.
    Dot,
    /// A number as written (`64`, `0x1F`, `0f3F800000`, `1.5`).
    Num,
    /// `"..."`.
    Str,
    /// One punctuation character.
    Punct(u8),
}

/// One token: its class and byte range in the source.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Token {
    pub kind: Tok,
    pub start: u32,
    pub end: u32,
}

/// The token stream of a source, its comment ranges and its line starts.
pub(crate) struct Lexed {
    pub toks: Vec<Token>,
    pub comments: Vec<(u32, u32)>,
    line_starts: Vec<u32>,
}

/// The bytes that continue an identifier, as a table: the lexer asks for
/// every byte of a module's names (one load, not a chain of range tests).
const IDENT_CHAR: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric() || b == b'_' || b == b'$';
        c += 1;
    }
    t
};

fn ident_char(c: u8) -> bool {
    IDENT_CHAR[c as usize]
}

impl Lexed {
    /// The 1-based line and column (characters) of byte `off` in `src`.
    pub fn pos(&self, src: &str, off: u32) -> Pos {
        let line = self.line_starts.partition_point(|&s| s <= off).max(1);
        let start = self.line_starts[line - 1] as usize;
        let col = src
            .get(start..off as usize)
            .map_or(1, |s| s.chars().count() + 1);
        Pos {
            line: line as u32,
            col: col as u32,
        }
    }

    /// The 1-based line of byte `off`.
    pub fn line(&self, off: u32) -> usize {
        self.line_starts.partition_point(|&s| s <= off)
    }
}

/// Splits `src` into tokens. Errors carry the byte offset of the problem.
pub(crate) fn lex(src: &str) -> Result<Lexed, (u32, ModuleErrorKind)> {
    let b = src.as_bytes();
    let mut toks = Vec::new();
    let mut comments = Vec::new();
    let mut line_starts = vec![0u32];
    let mut i = 0usize;
    while i < b.len() {
        let c = b[i];
        let start = i;
        let kind = match c {
            b'\n' => {
                line_starts.push((i + 1) as u32);
                i += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' | 0x0b | 0x0c => {
                i += 1;
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                comments.push((start as u32, i as u32));
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                loop {
                    if i + 1 >= b.len() {
                        return Err((start as u32, ModuleErrorKind::UnterminatedComment));
                    }
                    if b[i] == b'*' && b[i + 1] == b'/' {
                        i += 2;
                        break;
                    }
                    if b[i] == b'\n' {
                        line_starts.push((i + 1) as u32);
                    }
                    i += 1;
                }
                comments.push((start as u32, i as u32));
                continue;
            }
            b'"' => {
                i += 1;
                loop {
                    match b.get(i) {
                        None | Some(b'\n') => {
                            return Err((start as u32, ModuleErrorKind::UnterminatedString))
                        }
                        Some(b'\\') => i += 2,
                        Some(b'"') => {
                            i += 1;
                            break;
                        }
                        Some(_) => i += 1,
                    }
                }
                Tok::Str
            }
            b'.' if b.get(i + 1).is_some_and(|&d| ident_char(d)) => {
                i += 1;
                // A modifier with a `::` sub-qualifier is one word
                // (`.shared::cta`, `.L2::128B`).
                loop {
                    while i < b.len() && ident_char(b[i]) {
                        i += 1;
                    }
                    let sub = b
                        .get(i..i + 3)
                        .is_some_and(|w| w[..2] == *b"::" && ident_char(w[2]));
                    if !sub {
                        break;
                    }
                    i += 2;
                }
                Tok::Dot
            }
            b'0'..=b'9' => {
                // Covers 0x.., 0f.., 0d.., 1.5, 1e3 and a U suffix; validated where used.
                while i < b.len() && (ident_char(b[i]) || b[i] == b'.') {
                    i += 1;
                }
                Tok::Num
            }
            b'%' | b'$' | b'_' | b'a'..=b'z' | b'A'..=b'Z' => {
                i += 1;
                while i < b.len() && ident_char(b[i]) {
                    i += 1;
                }
                Tok::Ident
            }
            b'{' | b'}' | b'(' | b')' | b'[' | b']' | b';' | b':' | b',' | b'<' | b'>' | b'='
            | b'+' | b'-' | b'*' | b'/' | b'!' | b'@' | b'|' | b'~' | b'&' | b'^' | b'?' | b'.' => {
                i += 1;
                Tok::Punct(c)
            }
            _ => {
                let ch = src[i..].chars().next().unwrap_or('\u{fffd}');
                return Err((i as u32, ModuleErrorKind::UnexpectedChar(ch)));
            }
        };
        toks.push(Token {
            kind,
            start: start as u32,
            end: i.min(b.len()) as u32,
        });
    }
    Ok(Lexed {
        toks,
        comments,
        line_starts,
    })
}
