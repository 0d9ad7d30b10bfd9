//! Device `printf`: what nvcc compiles it to (a call of the extern function
//! `vprintf(format, args)`, `sim_module::BuiltinKind::Vprintf`) run per
//! lane, formatted as the host's C library formats it (CUDA formats the
//! output on the host, with the host's `printf`: glibc's here).
//!
//! The argument buffer is as nvcc 13 lays it out (checked on its PTX:
//! `sim-kernel/tests/data/printf/printf.ptx`): each argument at the next
//! offset aligned to its size; `int`, `unsigned`, `char`, `short` (promoted)
//! as 4 bytes; `long`, `long long`, `size_t` and pointers (`%s`, `%p`) as 8;
//! `float` promoted to `double`, 8. A call without arguments passes a null
//! buffer. Which bytes each conversion reads is decided from the format
//! string alone, as CUDA's device side does: `%d`/`%i`/`%u`/`%x`/`%X`/`%o`/
//! `%c` read 4 bytes, 8 with `l`, `ll`, `j`, `z`, `t`; `%f %F %e %E %g %G %a
//! %A` 8 (a double); `%s`, `%p` and `%n` 8 (an address; `%n` writes
//! nothing); a `*` width or precision 4.
//!
//! The CUDA C++ Programming Guide ("Formatted Output"): at most 32
//! arguments are formatted, a conversion past them is printed as written;
//! `printf` returns the number of arguments parsed (0 without any) or -1
//! for a null format. `%s` reads the string from device memory, here
//! through the launch's memory like any load: a bad address is the
//! launch's fault. Format strings and `%s` strings are read up to
//! [`MAX_STRING`] bytes (the rest is not printed).

/// Most bytes of a format string or a `%s` argument read.
pub const MAX_STRING: usize = 4096;
/// Most arguments one call formats (the Programming Guide's limit).
pub const MAX_ARGS: u32 = 32;
/// Bytes of output a launch keeps: CUDA's printf FIFO is 1 MiB unless
/// `cudaLimitPrintfFifoSize` says otherwise. Calls past it are dropped
/// whole (and counted).
pub const FIFO_BYTES: usize = 1 << 20;

/// Printed output, call by call, bounded by [`FIFO_BYTES`]: a call that
/// would pass it is dropped whole and counted.
#[derive(Clone, Debug, Default)]
pub(crate) struct Sink {
    bytes: Vec<u8>,
    /// Where each call's text ends in `bytes`.
    ends: Vec<usize>,
    dropped: u64,
}

impl Sink {
    /// One call's text.
    pub fn push(&mut self, text: &[u8]) {
        if self.bytes.len() + text.len() > FIFO_BYTES {
            self.dropped += 1;
            return;
        }
        self.bytes.extend_from_slice(text);
        self.ends.push(self.bytes.len());
    }

    /// Moves every call of `self` to the end of `into`, in order.
    pub fn drain_into(&mut self, into: &mut Sink) {
        let mut start = 0;
        for &end in &self.ends {
            into.push(self.bytes.get(start..end).unwrap_or(&[]));
            start = end;
        }
        into.dropped += self.dropped;
        self.bytes.clear();
        self.ends.clear();
        self.dropped = 0;
    }

    /// The bytes printed and the number of calls dropped.
    pub fn into_parts(self) -> (Vec<u8>, u64) {
        (self.bytes, self.dropped)
    }
}

/// One lane's arguments and strings read through the launch's memory
/// (generic addresses, like any load: a bad one is the fault a load of it
/// would be).
pub(crate) struct LaneArgs<'a, M: sim_isa::exec::Memory> {
    pub mem: &'a mut M,
    pub lane: u32,
    /// The argument buffer's generic address.
    pub base: u64,
}

impl<M: sim_isa::exec::Memory> LaneArgs<'_, M> {
    fn byte(&mut self, addr: u64) -> Result<u8, sim_isa::exec::MemFault> {
        self.load(addr, 1).map(|b| b as u8)
    }

    fn load(&mut self, addr: u64, n: u32) -> Result<u64, sim_isa::exec::MemFault> {
        let space = sim_isa::Space::Generic;
        self.mem
            .load(sim_isa::exec::Access::new(space, self.lane, addr, n))
            .map_err(|kind| sim_isa::exec::MemFault {
                kind,
                space,
                addr,
                bytes: n,
                lane: self.lane,
            })
    }

    /// The format string at `addr`, at most [`MAX_STRING`] bytes.
    pub fn format_string(&mut self, addr: u64) -> Result<Vec<u8>, sim_isa::exec::MemFault> {
        let mut v = Vec::new();
        self.string(addr, MAX_STRING, &mut v)?;
        Ok(v)
    }
}

impl<M: sim_isa::exec::Memory> Args for LaneArgs<'_, M> {
    type Error = sim_isa::exec::MemFault;
    fn word(&mut self, offset: u64, n: u32) -> Result<u64, Self::Error> {
        self.load(self.base.wrapping_add(offset), n)
    }
    fn string(&mut self, addr: u64, max: usize, out: &mut Vec<u8>) -> Result<(), Self::Error> {
        for k in 0..max as u64 {
            let c = self.byte(addr.wrapping_add(k))?;
            if c == 0 {
                break;
            }
            out.push(c);
        }
        Ok(())
    }
}

/// Why a builtin call could not run.
#[derive(Debug)]
pub(crate) enum CallError {
    /// A lane's format, argument or string read faulted.
    Fault(sim_isa::exec::MemFault),
    /// Its operands are not registers (a call not inlined).
    Operands,
}

/// Runs the builtin call `b` (`vprintf`: the caller tells the builtins apart) in `lanes`, lane by lane in lane
/// order: each lane's format and argument buffer from its registers, its
/// text to `sink`, its result to its result register. The registers are
/// the warp's slots as they are: a body with a call keeps one slot per
/// register (`regalloc`).
pub(crate) fn call<M: sim_isa::exec::Memory>(
    b: &sim_module::Builtin,
    lanes: u32,
    regs: &mut sim_isa::WarpRegs,
    mem: &mut M,
    sink: &mut Sink,
) -> Result<(), CallError> {
    let (Some(&fa), Some(&aa)) = (b.args.first(), b.args.get(1)) else {
        return Err(CallError::Operands);
    };
    let mut text = Vec::new();
    for lane in (0..32u32).filter(|l| lanes >> l & 1 == 1) {
        let l = lane as usize;
        let (fmt, base) = (regs.get(fa)[l], regs.get(aa)[l]);
        text.clear();
        let mut args = LaneArgs {
            mem: &mut *mem,
            lane,
            base,
        };
        let n = if fmt == 0 {
            -1
        } else {
            let f = args.format_string(fmt).map_err(CallError::Fault)?;
            let n = format(&f, &mut args, &mut text).map_err(CallError::Fault)?;
            sink.push(&text);
            n
        };
        if let Some(&r) = b.rets.first() {
            regs.get_mut(r)[l] = u64::from(n as u32);
        }
    }
    Ok(())
}

/// Where a call's argument bytes and strings come from.
pub trait Args {
    /// A failed read.
    type Error;
    /// `n` (4 or 8) bytes of the argument buffer at `offset`, little-endian.
    fn word(&mut self, offset: u64, n: u32) -> Result<u64, Self::Error>;
    /// Appends the NUL-terminated string at `addr` to `out`, at most `max` bytes.
    fn string(&mut self, addr: u64, max: usize, out: &mut Vec<u8>) -> Result<(), Self::Error>;
}

/// One conversion specification's fields.
#[derive(Clone, Copy, Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    prec: Option<usize>,
    /// Length modifier: 0 none, 1 `hh`, 2 `h`, 8 `l`/`ll`/`j`/`z`/`t`/`L`.
    len: u8,
}

/// Formats `fmt` with the arguments `args` holds, appending to `out`.
/// Returns the number of arguments read.
pub fn format<A: Args>(fmt: &[u8], args: &mut A, out: &mut Vec<u8>) -> Result<i32, A::Error> {
    let mut offset = 0u64;
    let mut count = 0u32;
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        if c != b'%' {
            out.push(c);
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        let mut s = Spec::default();
        while let Some(&f) = fmt.get(i) {
            match f {
                b'-' => s.left = true,
                b'+' => s.plus = true,
                b' ' => s.space = true,
                b'#' => s.alt = true,
                b'0' => s.zero = true,
                _ => break,
            }
            i += 1;
        }
        // A `*` reads an int; the rest of the spec follows.
        let mut star = |args: &mut A, count: &mut u32| -> Result<Option<i32>, A::Error> {
            if *count >= MAX_ARGS {
                return Ok(None);
            }
            *count += 1;
            let v = args.word(align(&mut offset, 4), 4)? as u32 as i32;
            Ok(Some(v))
        };
        let mut over = false;
        if fmt.get(i) == Some(&b'*') {
            i += 1;
            match star(args, &mut count)? {
                Some(w) if w < 0 => {
                    s.left = true;
                    s.width = w.unsigned_abs() as usize;
                }
                Some(w) => s.width = w as usize,
                None => over = true,
            }
        } else {
            s.width = digits(fmt, &mut i);
        }
        if fmt.get(i) == Some(&b'.') {
            i += 1;
            if fmt.get(i) == Some(&b'*') {
                i += 1;
                match star(args, &mut count)? {
                    // A negative precision is taken as if omitted.
                    Some(p) => s.prec = (p >= 0).then_some(p as usize),
                    None => over = true,
                }
            } else {
                s.prec = Some(digits(fmt, &mut i));
            }
        }
        s.len = length(fmt, &mut i);
        let Some(&conv) = fmt.get(i) else {
            out.extend_from_slice(&fmt[start..]);
            break;
        };
        i += 1;
        if conv == b'%' {
            out.push(b'%');
            continue;
        }
        let size = match conv {
            b'd' | b'i' | b'u' | b'x' | b'X' | b'o' | b'c' if s.len == 8 => 8,
            b'd' | b'i' | b'u' | b'x' | b'X' | b'o' | b'c' => 4,
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' | b's' | b'p' | b'n' => 8,
            // Not a conversion: printed as written, as glibc does.
            _ => {
                out.extend_from_slice(&fmt[start..i]);
                continue;
            }
        };
        if over || count >= MAX_ARGS {
            out.extend_from_slice(&fmt[start..i]);
            continue;
        }
        count += 1;
        let v = args.word(align(&mut offset, size), size as u32)?;
        convert(conv, s, v, args, out)?;
    }
    Ok(count as i32)
}

/// The offset of the next argument of `size` bytes, moving past it.
fn align(offset: &mut u64, size: u64) -> u64 {
    let at = offset.div_ceil(size) * size;
    *offset = at + size;
    at
}

fn digits(fmt: &[u8], i: &mut usize) -> usize {
    let mut n = 0usize;
    while let Some(d) = fmt.get(*i).filter(|d| d.is_ascii_digit()) {
        n = n.saturating_mul(10).saturating_add(usize::from(d - b'0'));
        *i += 1;
    }
    // Far past any output the FIFO keeps.
    n.min(FIFO_BYTES)
}

fn length(fmt: &[u8], i: &mut usize) -> u8 {
    let two = |a: u8| fmt.get(*i + 1) == Some(&a);
    let (len, n) = match fmt.get(*i) {
        Some(b'h') if two(b'h') => (1, 2),
        Some(b'h') => (2, 1),
        Some(b'l') if two(b'l') => (8, 2),
        Some(b'l' | b'j' | b'z' | b't' | b'L' | b'q') => (8, 1),
        _ => (0, 0),
    };
    *i += n;
    len
}

/// One conversion of the argument bits `v`.
fn convert<A: Args>(
    conv: u8,
    s: Spec,
    v: u64,
    args: &mut A,
    out: &mut Vec<u8>,
) -> Result<(), A::Error> {
    // The value as the length modifier narrows it.
    let (signed, unsigned) = match s.len {
        1 => (i64::from(v as u8 as i8), u64::from(v as u8)),
        2 => (i64::from(v as u16 as i16), u64::from(v as u16)),
        8 => (v as i64, v),
        _ => (i64::from(v as u32 as i32), u64::from(v as u32)),
    };
    match conv {
        b'd' | b'i' => {
            let sign = sign(signed < 0, &s);
            let body = int_digits(signed.unsigned_abs(), 10, false, s.prec);
            pad_number(out, s, sign, "", &body, s.prec.is_none());
        }
        b'u' | b'x' | b'X' | b'o' => {
            let (base, upper) = match conv {
                b'x' => (16, false),
                b'X' => (16, true),
                b'o' => (8, false),
                _ => (10, false),
            };
            let mut body = int_digits(unsigned, base, upper, s.prec);
            let mut prefix = "";
            if s.alt && conv == b'o' && !body.starts_with('0') {
                body.insert(0, '0');
            }
            if s.alt && unsigned != 0 && base == 16 {
                prefix = if upper { "0X" } else { "0x" };
            }
            pad_number(out, s, "", prefix, &body, s.prec.is_none());
        }
        b'c' => pad(out, s.width, s.left, &[v as u8]),
        b's' => {
            let mut text = Vec::new();
            if v == 0 {
                // glibc: "(null)" where the precision leaves room for it.
                if s.prec.is_none_or(|p| p >= 6) {
                    text.extend_from_slice(b"(null)");
                }
            } else {
                let max = s.prec.unwrap_or(MAX_STRING).min(MAX_STRING);
                args.string(v, max, &mut text)?;
            }
            pad(out, s.width, s.left, &text);
        }
        b'p' => {
            if v == 0 {
                pad(out, s.width, s.left, b"(nil)");
            } else {
                let sign = if s.plus {
                    "+"
                } else if s.space {
                    " "
                } else {
                    ""
                };
                let body = int_digits(v, 16, false, s.prec);
                pad_number(out, s, sign, "0x", &body, s.prec.is_none());
            }
        }
        b'n' => {}
        _ => float(conv, s, f64::from_bits(v), out),
    }
    Ok(())
}

/// `v`'s digits in `base`, at least `prec` of them (`prec` 0 and `v` 0: none).
fn int_digits(v: u64, base: u64, upper: bool, prec: Option<usize>) -> String {
    let mut d = match (base, upper) {
        (16, true) => format!("{v:X}"),
        (16, false) => format!("{v:x}"),
        (8, _) => format!("{v:o}"),
        _ => format!("{v}"),
    };
    match prec {
        Some(0) if v == 0 => d.clear(),
        Some(p) if p > d.len() => d.insert_str(0, &"0".repeat(p - d.len())),
        _ => {}
    }
    d
}

/// Sign, prefix and body padded to the width: zeros after the prefix
/// with `0` (where `zero_ok`: not with a precision on an integer, not for
/// inf/nan), else spaces on the left or, with `-`, on the right.
fn pad_number(out: &mut Vec<u8>, s: Spec, sign: &str, prefix: &str, body: &str, zero_ok: bool) {
    let n = sign.len() + prefix.len() + body.len();
    let fill = s.width.saturating_sub(n);
    if s.left {
        out.extend_from_slice(sign.as_bytes());
        out.extend_from_slice(prefix.as_bytes());
        out.extend_from_slice(body.as_bytes());
        out.resize(out.len() + fill, b' ');
    } else if s.zero && zero_ok {
        out.extend_from_slice(sign.as_bytes());
        out.extend_from_slice(prefix.as_bytes());
        out.resize(out.len() + fill, b'0');
        out.extend_from_slice(body.as_bytes());
    } else {
        out.resize(out.len() + fill, b' ');
        out.extend_from_slice(sign.as_bytes());
        out.extend_from_slice(prefix.as_bytes());
        out.extend_from_slice(body.as_bytes());
    }
}

fn pad(out: &mut Vec<u8>, width: usize, left: bool, text: &[u8]) {
    let fill = width.saturating_sub(text.len());
    if !left {
        out.resize(out.len() + fill, b' ');
    }
    out.extend_from_slice(text);
    if left {
        out.resize(out.len() + fill, b' ');
    }
}

/// The sign printed before a number: `-` when `negative`, else `+` or a
/// space as the flags ask.
fn sign(negative: bool, s: &Spec) -> &'static str {
    if negative {
        "-"
    } else if s.plus {
        "+"
    } else if s.space {
        " "
    } else {
        ""
    }
}

/// `%f %F %e %E %g %G %a %A` as glibc prints them (Rust's formatting is
/// exact and rounds half to even, as glibc's does in the default mode).
fn float(conv: u8, s: Spec, x: f64, out: &mut Vec<u8>) {
    let upper = conv.is_ascii_uppercase();
    let sign = sign(x.is_sign_negative(), &s);
    let a = x.abs();
    if !a.is_finite() {
        let t = match (a.is_nan(), upper) {
            (true, false) => "nan",
            (true, true) => "NAN",
            (false, false) => "inf",
            (false, true) => "INF",
        };
        pad_number(out, s, sign, "", t, false);
        return;
    }
    let (prefix, body) = match conv.to_ascii_lowercase() {
        b'f' => ("", fixed(a, s.prec.unwrap_or(6), s.alt)),
        b'e' => ("", sci(a, s.prec.unwrap_or(6), s.alt)),
        b'g' => ("", general(a, s.prec.unwrap_or(6), s.alt)),
        _ => ("0x", hex_float(a, s.prec, s.alt)),
    };
    let (prefix, body) = if upper {
        (prefix.to_ascii_uppercase(), body.to_ascii_uppercase())
    } else {
        (prefix.to_string(), body)
    };
    pad_number(out, s, sign, &prefix, &body, true);
}

fn fixed(a: f64, prec: usize, alt: bool) -> String {
    let mut t = format!("{a:.prec$}");
    if alt && prec == 0 {
        t.push('.');
    }
    t
}

/// `d.ddde±XX`.
fn sci(a: f64, prec: usize, alt: bool) -> String {
    let t = format!("{a:.prec$e}");
    let (mant, exp) = t.split_once('e').unwrap_or((&t, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let dot = if alt && prec == 0 { "." } else { "" };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mant}{dot}e{sign}{:02}", exp.unsigned_abs())
}

/// `%g`: `%e` or `%f` by the exponent after rounding to `p` significant
/// digits, trailing zeros removed unless `#`.
fn general(a: f64, prec: usize, alt: bool) -> String {
    let p = prec.max(1);
    let t = format!("{a:.prec$e}", prec = p - 1);
    let exp: i64 = t
        .split_once('e')
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0);
    let mut body = if exp < -4 || exp >= p as i64 {
        sci(a, p - 1, alt)
    } else {
        fixed(a, (p as i64 - 1 - exp) as usize, alt)
    };
    if !alt {
        let (mant, exp) = match body.find('e') {
            Some(k) => body.split_at(k),
            None => (body.as_str(), ""),
        };
        let mut m = mant.to_string();
        if m.contains('.') {
            while m.ends_with('0') {
                m.pop();
            }
            if m.ends_with('.') {
                m.pop();
            }
        }
        body = m + exp;
    }
    body
}

/// `%a` after its `0x`: `h.hhhp±d` as glibc prints a double (a normal
/// one with a leading 1, a subnormal with 0 and exponent -1022), the
/// fraction rounded half to even to `prec` digits, or as short as exact.
fn hex_float(a: f64, prec: Option<usize>, alt: bool) -> String {
    let bits = a.to_bits();
    let biased = (bits >> 52) as i64;
    let mut frac = bits & ((1u64 << 52) - 1);
    let (mut lead, exp) = match (biased, frac) {
        (0, 0) => (0u64, 0i64),
        (0, _) => (0, -1022),
        _ => (1, biased - 1023),
    };
    let digits = match prec {
        Some(p) if p < 13 => {
            let drop = 4 * (13 - p) as u32;
            let keep = frac >> drop;
            let rest = frac & ((1u64 << drop) - 1);
            let half = 1u64 << (drop - 1);
            let mut k = keep;
            // Half to even: of the last digit kept (the leading one at `.0`).
            let last = if p == 0 { lead } else { keep };
            if rest > half || (rest == half && last & 1 == 1) {
                k += 1;
            }
            if p == 0 {
                lead += k;
                frac = 0;
            } else if k >> (4 * p) != 0 {
                lead += 1;
                frac = 0;
            } else {
                frac = k;
            }
            let d = if p == 0 {
                String::new()
            } else {
                format!("{frac:0w$x}", w = p)
            };
            d
        }
        Some(p) => format!("{frac:013x}") + &"0".repeat(p - 13),
        None => {
            let d = format!("{frac:013x}");
            d.trim_end_matches('0').to_string()
        }
    };
    let dot = if !digits.is_empty() || alt { "." } else { "" };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{lead:x}{dot}{digits}p{sign}{}", exp.unsigned_abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Arguments from a byte buffer, strings from a list by address.
    struct Buf(Vec<u8>, Vec<(u64, &'static [u8])>);

    impl Args for Buf {
        type Error = ();
        fn word(&mut self, offset: u64, n: u32) -> Result<u64, ()> {
            let o = offset as usize;
            let b = self.0.get(o..o + n as usize).ok_or(())?;
            let mut w = [0u8; 8];
            w[..b.len()].copy_from_slice(b);
            Ok(u64::from_le_bytes(w))
        }
        fn string(&mut self, addr: u64, max: usize, out: &mut Vec<u8>) -> Result<(), ()> {
            let s = self.1.iter().find(|s| s.0 == addr).ok_or(())?.1;
            out.extend(s.iter().take_while(|&&c| c != 0).take(max));
            Ok(())
        }
    }

    fn run(fmt: &str, buf: Vec<u8>) -> (String, i32) {
        let mut out = Vec::new();
        let n = format(
            fmt.as_bytes(),
            &mut Buf(buf, vec![(64, b"hey\0")]),
            &mut out,
        )
        .unwrap();
        (String::from_utf8(out).unwrap(), n)
    }

    #[test]
    fn layout_aligns_each_argument_to_its_size() {
        // int at 0, double at 8, int at 16, long at 24.
        let mut b = vec![0u8; 32];
        b[0..4].copy_from_slice(&7i32.to_le_bytes());
        b[8..16].copy_from_slice(&1.5f64.to_le_bytes());
        b[16..20].copy_from_slice(&(-3i32).to_le_bytes());
        b[24..32].copy_from_slice(&(1i64 << 40).to_le_bytes());
        assert_eq!(
            run("%d %.2f %i %ld|%%", b),
            ("7 1.50 -3 1099511627776|%".into(), 4)
        );
    }

    #[test]
    fn the_33rd_conversion_is_printed_as_written() {
        let b = vec![1u8; 33 * 4];
        let fmt = "%c".repeat(33);
        let (s, n) = run(&fmt, b);
        assert_eq!(n, 32);
        assert_eq!(s, "\u{1}".repeat(32) + "%c");
    }

    #[test]
    fn a_missing_argument_is_the_callers_error() {
        let mut out = Vec::new();
        let r = format(b"%d", &mut Buf(Vec::new(), Vec::new()), &mut out);
        assert_eq!(r, Err(()));
    }
}
