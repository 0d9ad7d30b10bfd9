//! Rust source reduced to what the checks read: comments blanked, literal
//! contents replaced, `#[cfg(test)]` modules removed. Line breaks are kept
//! everywhere, so a line number in the reduced text is one in the file.

/// `src` with every comment turned into spaces and every string or char
/// literal's contents into `_` (delimiters and line breaks kept).
pub fn mask(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < c.len() {
        let prev_ident = i > 0 && is_ident(c[i - 1]);
        if c[i] == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c[i] == '/' && c.get(i + 1) == Some(&'*') {
            i = block_comment(&c, i, &mut out);
        } else if c[i] == '"' {
            i = string(&c, i, 0, &mut out);
        } else if c[i] == 'r' && !prev_ident && raw_hashes(&c, i + 1).is_some() {
            out.push('r');
            i = string(&c, i + 1, raw_hashes(&c, i + 1).unwrap_or(0), &mut out);
        } else if c[i] == 'b'
            && !prev_ident
            && c.get(i + 1) == Some(&'r')
            && raw_hashes(&c, i + 2).is_some()
        {
            out.push_str("br");
            i = string(&c, i + 2, raw_hashes(&c, i + 2).unwrap_or(0), &mut out);
        } else if c[i] == '\'' && (!prev_ident || byte_prefix(&c, i)) {
            i = char_or_lifetime(&c, i, &mut out);
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// Whether the `'` at `i` opens a byte literal (`b'x'`).
fn byte_prefix(c: &[char], i: usize) -> bool {
    c[i - 1] == 'b' && (i < 2 || !is_ident(c[i - 2]))
}

pub fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The number of `#` of a raw string whose `r` stands just before `i`.
fn raw_hashes(c: &[char], mut i: usize) -> Option<usize> {
    let start = i;
    while c.get(i) == Some(&'#') {
        i += 1;
    }
    (c.get(i) == Some(&'"')).then_some(i - start)
}

fn blank(ch: char, out: &mut String, with: char) {
    out.push(if ch == '\n' { '\n' } else { with });
}

/// A nested `/* */` comment from `i`; returns the index after it.
fn block_comment(c: &[char], mut i: usize, out: &mut String) -> usize {
    let mut depth = 0;
    while i < c.len() {
        if c[i] == '/' && c.get(i + 1) == Some(&'*') {
            depth += 1;
            out.push_str("  ");
            i += 2;
        } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
            depth -= 1;
            out.push_str("  ");
            i += 2;
            if depth == 0 {
                break;
            }
        } else {
            blank(c[i], out, ' ');
            i += 1;
        }
    }
    i
}

/// A string from its `#`s (raw, `hashes` > 0 or a raw `r"`) or its `"`.
fn string(c: &[char], mut i: usize, hashes: usize, out: &mut String) -> usize {
    let raw = c[i] == '#' || (i > 0 && c[i - 1] == 'r');
    for _ in 0..hashes {
        out.push('#');
        i += 1;
    }
    out.push('"');
    i += 1;
    while i < c.len() {
        if !raw && c[i] == '\\' {
            out.push('_');
            i += 1;
            if i < c.len() {
                blank(c[i], out, '_');
                i += 1;
            }
            continue;
        }
        if c[i] == '"' && (0..hashes).all(|k| c.get(i + 1 + k) == Some(&'#')) {
            out.push('"');
            i += 1;
            for _ in 0..hashes {
                out.push('#');
                i += 1;
            }
            return i;
        }
        blank(c[i], out, '_');
        i += 1;
    }
    i
}

/// `'x'`, `'\n'`, `'\u{..}'` (blanked) or a lifetime (kept).
fn char_or_lifetime(c: &[char], i: usize, out: &mut String) -> usize {
    let close = if c.get(i + 1) == Some(&'\\') {
        (i + 3..c.len().min(i + 14)).find(|&k| c[k] == '\'')
    } else {
        (c.get(i + 2) == Some(&'\'')).then_some(i + 2)
    };
    match close {
        Some(end) => {
            out.push('\'');
            for _ in i + 1..end {
                out.push('_');
            }
            out.push('\'');
            end + 1
        }
        None => {
            out.push('\'');
            i + 1
        }
    }
}

/// The masked text with every `#[cfg(test)] mod name { .. }` blanked, and
/// the names of `#[cfg(test)] mod name;` (their files are tests too).
pub fn strip_test_modules(masked: &str) -> (String, Vec<String>) {
    let mut text: Vec<char> = masked.chars().collect();
    let mut test_files = Vec::new();
    let attr: Vec<char> = "#[cfg(test)]".chars().collect();
    let mut i = 0;
    while i + attr.len() <= text.len() {
        if text[i..i + attr.len()] != attr[..] {
            i += 1;
            continue;
        }
        let mut j = skip_ws(&text, i + attr.len());
        let word_at = |j: usize, w: &str| {
            let w: Vec<char> = w.chars().collect();
            text.get(j..j + w.len()) == Some(&w[..])
                && text.get(j + w.len()).is_some_and(|c| c.is_whitespace())
        };
        if word_at(j, "pub") {
            j = skip_ws(&text, j + 3);
        }
        if !word_at(j, "mod") {
            i += attr.len();
            continue;
        }
        let name_at = skip_ws(&text, j + 3);
        let name_end = (name_at..text.len())
            .find(|&k| !is_ident(text[k]))
            .unwrap_or(text.len());
        let name: String = text[name_at..name_end].iter().collect();
        let after = skip_ws(&text, name_end);
        let end = match text.get(after) {
            Some(';') => {
                test_files.push(name);
                after + 1
            }
            Some('{') => matching_brace(&text, after).map_or(text.len(), |e| e + 1),
            _ => after,
        };
        for ch in &mut text[i..end] {
            if *ch != '\n' {
                *ch = ' ';
            }
        }
        i = end;
    }
    (text.into_iter().collect(), test_files)
}

fn skip_ws(t: &[char], mut i: usize) -> usize {
    while t.get(i).is_some_and(|c| c.is_whitespace()) {
        i += 1;
    }
    i
}

/// The index of the `}` closing the `{` at `open` (in masked text).
pub fn matching_brace(t: &[char], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, &ch) in t.iter().enumerate().skip(open) {
        match ch {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether a line of reduced text holds code (not blank, not only comment).
pub fn is_logic(line: &str) -> bool {
    !line.trim().is_empty()
}

/// 1-based line of char index `i` in `t`.
pub fn line_of(t: &[char], i: usize) -> usize {
    t[..i].iter().filter(|&&c| c == '\n').count() + 1
}
