//! Lines of logic: lines of reduced text (see `lex`) that hold code.

use crate::lex::{is_ident, is_logic, line_of, matching_brace};

/// A function: its name, its first line and its lines of logic.
pub struct Function {
    pub name: String,
    pub line: usize,
    pub logic: usize,
}

/// Lines of logic in reduced text.
pub fn logic_lines(text: &str) -> usize {
    text.lines().filter(|l| is_logic(l)).count()
}

/// Every function with a body, nested ones too (and inside their parents).
pub fn functions(text: &str) -> Vec<Function> {
    let c: Vec<char> = text.chars().collect();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 2 < c.len() {
        let word = c[i] == 'f'
            && c[i + 1] == 'n'
            && (i == 0 || !is_ident(c[i - 1]))
            && c[i + 2].is_whitespace();
        if !word {
            i += 1;
            continue;
        }
        let mut j = i + 2;
        while j < c.len() && c[j].is_whitespace() {
            j += 1;
        }
        let name_end = (j..c.len()).find(|&k| !is_ident(c[k])).unwrap_or(c.len());
        if name_end == j {
            i += 2;
            continue;
        }
        if let Some(open) = body_start(&c, name_end) {
            if let Some(close) = matching_brace(&c, open) {
                let (first, last) = (line_of(&c, i), line_of(&c, close));
                let logic = lines[first - 1..last]
                    .iter()
                    .filter(|l| is_logic(l))
                    .count();
                out.push(Function {
                    name: c[j..name_end].iter().collect(),
                    line: first,
                    logic,
                });
            }
        }
        i = name_end;
    }
    out
}

/// The `{` that opens a function's body after its signature, or `None` for
/// a declaration ending in `;` (brackets skipped: `[u8; 4]`).
fn body_start(c: &[char], mut i: usize) -> Option<usize> {
    let mut depth = 0i32;
    while i < c.len() {
        match c[i] {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            '{' if depth == 0 => return Some(i),
            ';' if depth == 0 => return None,
            _ => {}
        }
        i += 1;
    }
    None
}
