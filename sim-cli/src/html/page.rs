//! The page around the charts: the error type, HTML escaping, number
//! formatting, typed access into a report's JSON that names the key path of
//! anything of the wrong shape, and the page skeleton (inline style and the
//! one inline script; nothing is fetched).

use serde_json::{Map, Value};
use std::fmt::Write as _;

/// Why no page was written.
#[derive(Debug, thiserror::Error)]
pub enum HtmlError {
    /// The input is not JSON.
    #[error("not JSON ({source}); expected a run's report from `simcli run --format json`")]
    NotJson {
        /// The parser's error (with line and column).
        source: serde_json::Error,
    },
    /// A key holds something other than what the report schema says.
    #[error("{path}: expected {expected}, found {found}")]
    Shape {
        /// The key path, e.g. `stalls.long_scoreboard`.
        path: String,
        /// What the schema has there.
        expected: &'static str,
        /// What the file has (a short description).
        found: String,
    },
    /// A sweep CSV that cannot be read.
    #[error("sweep CSV, {place}: {message}")]
    Csv {
        /// `line N` or `header`.
        place: String,
        /// What is wrong.
        message: String,
    },
    /// plotters failed to draw a chart.
    #[error("drawing the chart \"{chart}\": {message}")]
    Plot {
        /// The chart's title.
        chart: String,
        /// plotters' error text.
        message: String,
    },
}

/// `s` with `&`, `<`, `>`, `"` and `'` escaped, for text and attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A number as a person reads it: integers whole, others to 3 decimals
/// (4 significant digits below 1).
pub fn num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else if v.abs() < 1.0 {
        format!("{v:.4}")
    } else {
        format!("{v:.3}")
    }
}

/// A JSON value's kind, for error messages.
pub fn kind(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(_) => "a boolean".into(),
        Value::Number(n) => format!("the number {n}"),
        Value::String(_) => "a string".into(),
        Value::Array(a) => format!("an array of {}", a.len()),
        Value::Object(_) => "an object".into(),
    }
}

fn shape(path: &str, expected: &'static str, v: &Value) -> HtmlError {
    HtmlError::Shape {
        path: path.to_string(),
        expected,
        found: kind(v),
    }
}

/// `v` as an object.
pub fn object<'a>(v: &'a Value, path: &str) -> Result<&'a Map<String, Value>, HtmlError> {
    v.as_object().ok_or_else(|| shape(path, "an object", v))
}

/// `v` as an array.
pub fn array<'a>(v: &'a Value, path: &str) -> Result<&'a Vec<Value>, HtmlError> {
    v.as_array().ok_or_else(|| shape(path, "an array", v))
}

/// `v` as a count or measure: a number that is not negative.
pub fn count(v: &Value, path: &str) -> Result<f64, HtmlError> {
    match v.as_f64() {
        Some(x) if x >= 0.0 && x.is_finite() => Ok(x),
        _ => Err(shape(path, "a number not below 0", v)),
    }
}

/// `m[key]` as a count; `None` when absent or null.
pub fn opt_count(
    m: &Map<String, Value>,
    key: &str,
    parent: &str,
) -> Result<Option<f64>, HtmlError> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => count(v, &join(parent, key)).map(Some),
    }
}

/// `parent.key` (just `key` at the top).
pub fn join(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

/// A scalar shown as text in a table (strings, numbers, booleans; null as a dash).
pub fn scalar(v: &Value, path: &str) -> Result<String, HtmlError> {
    match v {
        Value::Null => Ok("—".into()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Number(n) => Ok(n.as_f64().map_or_else(|| n.to_string(), num)),
        Value::String(s) => Ok(s.clone()),
        _ => Err(shape(path, "a string, number or boolean", v)),
    }
}

/// An HTML table: a header row and rows of already-escaped cells.
pub fn table(head: &[&str], rows: &[Vec<String>]) -> String {
    let mut t = String::from("<div class=\"wide\"><table><thead><tr>");
    for h in head {
        let _ = write!(t, "<th>{}</th>", esc(h));
    }
    t.push_str("</tr></thead><tbody>");
    for r in rows {
        t.push_str("<tr>");
        for c in r {
            let _ = write!(t, "<td>{c}</td>");
        }
        t.push_str("</tr>");
    }
    t.push_str("</tbody></table></div>");
    t
}

/// The page being built: sections in order.
pub struct Page {
    title: String,
    nav: String,
    body: String,
}

/// What a section whose key the report lacks says.
pub const ABSENT: &str = "not in this report";

impl Page {
    /// An empty page titled `title`.
    pub fn new(title: &str) -> Page {
        Page {
            title: title.to_string(),
            nav: String::new(),
            body: String::new(),
        }
    }

    /// Appends `<section id=id>` with heading `heading` and `html` inside.
    pub fn section(&mut self, id: &str, heading: &str, html: &str) {
        let _ = write!(self.nav, "<a href=\"#{id}\">{}</a> ", esc(heading));
        let _ = write!(
            self.body,
            "<section id=\"{id}\"><h2>{}</h2>\n{html}\n</section>\n",
            esc(heading)
        );
    }

    /// The report's value at `key`, or `None` with the section `key`
    /// (under `heading`) marked absent: the opening of every section.
    pub fn present<'a>(
        &mut self,
        r: &'a Map<String, Value>,
        key: &str,
        heading: &str,
    ) -> Option<&'a Value> {
        let v = r.get(key);
        if v.is_none() {
            self.absent(key, heading, key);
        }
        v
    }

    /// A section for a key the report does not have.
    pub fn absent(&mut self, id: &str, heading: &str, key: &str) {
        let html = format!(
            "<p class=\"absent\">{ABSENT} (no <code>{}</code> key).</p>",
            esc(key)
        );
        self.section(id, heading, &html);
    }

    /// The whole document.
    pub fn finish(self, footer: &str) -> String {
        format!(
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <title>{title}</title>\n<style>{STYLE}</style></head>\n<body>\n\
             <h1>{title}</h1>\n<nav>{nav}</nav>\n{body}<footer>{footer}</footer>\n\
             <script>{SCRIPT}</script>\n</body></html>\n",
            title = esc(&self.title),
            nav = self.nav,
            body = self.body,
            footer = esc(footer),
        )
    }
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:72em;\
padding:0 1em;color:#222}h1{font-size:1.5em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em}\
nav a{margin-right:1em}section{margin-bottom:2em}table{border-collapse:collapse;margin:.5em 0}\
td,th{border:1px solid #ddd;padding:.2em .6em;text-align:right}th{background:#f4f4f4}\
td.text{text-align:left;font-family:monospace;white-space:pre}.absent{color:#777;font-style:italic}\
.chart svg{max-width:100%;height:auto}.wide{overflow-x:auto}footer{color:#777;font-size:.85em}";

/// The page's one script: on load it lists, on `<body data-shown>`, the
/// sections that were laid out with a height, which the browser test reads
/// back from the DOM (tools/html/browser_check.py).
const SCRIPT: &str = "window.addEventListener('load',function(){document.body.dataset.shown=\
Array.prototype.filter.call(document.querySelectorAll('section'),function(s){\
return s.getBoundingClientRect().height>0}).map(function(s){return s.id}).join(' ')});";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(esc("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&#39;");
    }

    #[test]
    // 3.14159 is a number with more digits than shown, not a stand-in for π.
    #[allow(clippy::approx_constant)]
    fn numbers_read_well() {
        assert_eq!(num(12.0), "12");
        assert_eq!(num(0.25), "0.2500");
        assert_eq!(num(3.14159), "3.142");
    }

    #[test]
    fn wrong_shapes_name_the_path() {
        let v = serde_json::json!({"a": "x"});
        let e = count(&v["a"], "stalls.a").unwrap_err().to_string();
        assert_eq!(e, "stalls.a: expected a number not below 0, found a string");
        let e = count(&serde_json::json!(-1), "x").unwrap_err().to_string();
        assert!(e.contains("found the number -1"), "{e}");
    }
}
