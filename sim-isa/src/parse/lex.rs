//! Tokens of one PTX statement, with 1-based character columns.

use crate::error::{InvalidReason, IsaError};

/// Token classes; the parser only needs these few.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    /// Identifier: opcode, register (`%r1`, `r1`, `$x`), sink `_`.
    Ident,
    /// `.word` glued to its dot: modifier or selector.
    Mod,
    /// Numeric literal (sign not included).
    Num,
    /// One of `@ ! , ; | - ~`.
    Punct(char),
}

/// A token with its text and the column of its first character.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Token<'a> {
    pub kind: Tok,
    pub text: &'a str,
    pub col: usize,
}

/// An [`IsaError::Invalid`] at `col`, naming `token`.
pub(crate) fn invalid(col: usize, token: &str, reason: InvalidReason) -> IsaError {
    IsaError::Invalid {
        col,
        token: token.to_string(),
        reason,
    }
}

fn ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c == '$' || c == '%'
}

fn ident_cont(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// Splits `text` into tokens, skipping whitespace and `//` / `/* */` comments.
pub(crate) fn lex(text: &str) -> Result<Vec<Token<'_>>, IsaError> {
    // Sized once from the text (a token or a char takes at least one
    // byte), so a statement's lexing allocates twice and never regrows.
    let mut out = Vec::with_capacity(text.len());
    // (byte offset, char) pairs with columns derived by counting, so multi-byte
    // characters never split a slice.
    let mut chars: Vec<(usize, char)> = Vec::with_capacity(text.len());
    chars.extend(text.char_indices());
    let end_of = |i: usize| chars.get(i).map_or(text.len(), |&(b, _)| b);
    let mut i = 0;
    while i < chars.len() {
        let (b, c) = chars[i];
        let col = i + 1;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c == '/' && chars.get(i + 1).map(|p| p.1) == Some('/') {
            while i < chars.len() && chars[i].1 != '\n' {
                i += 1;
            }
            continue;
        }
        if c == '/' && chars.get(i + 1).map(|p| p.1) == Some('*') {
            let mut j = i + 2;
            loop {
                if j + 1 >= chars.len() {
                    return Err(invalid(col, "/*", InvalidReason::UnterminatedComment));
                }
                if chars[j].1 == '*' && chars[j + 1].1 == '/' {
                    break;
                }
                j += 1;
            }
            i = j + 2;
            continue;
        }
        let start = i;
        let kind = if ident_start(c) {
            i += 1;
            while i < chars.len() && ident_cont(chars[i].1) {
                i += 1;
            }
            Tok::Ident
        } else if c == '.' && !chars.get(i + 1).is_some_and(|p| p.1.is_ascii_digit()) {
            i += 1;
            while i < chars.len() && ident_cont(chars[i].1) {
                i += 1;
            }
            if i == start + 1 {
                return Err(invalid(
                    col,
                    ".",
                    InvalidReason::Syntax { near: ".".into() },
                ));
            }
            Tok::Mod
        } else if c.is_ascii_digit() || c == '.' {
            // A leading '.' followed by a digit is a float (`.5`).
            // Hex-style literals (0x, 0f, 0d) never carry an exponent sign.
            let radix_prefixed = c == '0'
                && matches!(
                    chars.get(i + 1).map(|p| p.1),
                    Some('x' | 'X' | 'f' | 'F' | 'd' | 'D' | 'b' | 'B')
                );
            i += 1;
            while i < chars.len() {
                let d = chars[i].1;
                let prev = chars[i - 1].1;
                if d.is_ascii_alphanumeric()
                    || d == '.'
                    || ((d == '+' || d == '-') && !radix_prefixed && matches!(prev, 'e' | 'E'))
                {
                    i += 1;
                } else {
                    break;
                }
            }
            Tok::Num
        } else if matches!(c, '@' | '!' | ',' | ';' | '|' | '-' | '~') {
            i += 1;
            Tok::Punct(c)
        } else {
            let t = &text[b..end_of(i + 1)];
            return Err(invalid(col, t, InvalidReason::Syntax { near: t.into() }));
        };
        out.push(Token {
            kind,
            text: &text[b..end_of(i)],
            col: start + 1,
        });
    }
    Ok(out)
}
