//! Scanning pieces of a line of printed IR: lists split at top-level
//! commas, types, value names and quoted strings.

use super::ParseError;
use crate::entities::Value;
use crate::types::{ContType, DType, Dim, TensorType, Type};

/// A result with a message and no line yet (the caller adds it).
pub type Scan<T> = Result<T, String>;

/// The characters of `s` outside double-quoted strings (escapes honoured),
/// with their byte offsets.
fn outside_strings(s: &str) -> impl Iterator<Item = (usize, char)> + '_ {
    let (mut in_str, mut escaped) = (false, false);
    s.char_indices().filter(move |&(_, c)| {
        if in_str {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_str = false,
                _ => {}
            }
            return false;
        }
        in_str = c == '"';
        !in_str
    })
}

/// Splits `s` at commas outside brackets, parentheses, angle brackets and
/// strings; trims the parts; an empty `s` gives no parts.
pub fn split_top(s: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start, mut prev) = (0i32, 0, ' ');
    for (i, c) in outside_strings(s) {
        let after = std::mem::replace(&mut prev, c);
        match c {
            '>' if after == '-' => {} // the arrow of a continuation type
            '[' | '(' | '<' | '{' => depth += 1,
            ']' | ')' | '>' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = s[start..].trim();
    if !last.is_empty() || !parts.is_empty() {
        parts.push(last);
    }
    parts
}

/// `%12` → value 12.
pub fn value(s: &str) -> Scan<Value> {
    s.trim()
        .strip_prefix('%')
        .and_then(|n| n.parse().ok())
        .map(Value)
        .ok_or_else(|| format!("expected a value like %3, found '{s}'"))
}

/// A type as [`Type`]'s `Display` writes it.
pub fn ty(s: &str) -> Scan<Type> {
    let s = s.trim();
    if let Some(inner) = s.strip_prefix("cont<").and_then(|r| r.strip_suffix('>')) {
        let (args, results) = inner
            .split_once(" -> ")
            .ok_or_else(|| format!("bad continuation type '{s}'"))?;
        let list = |l: &str| -> Scan<Vec<TensorType>> {
            let l = l.trim().strip_prefix('(').and_then(|r| r.strip_suffix(')'));
            let l = l.ok_or_else(|| format!("bad continuation type '{s}'"))?;
            split_top(l).into_iter().map(tensor_type).collect()
        };
        return Ok(Type::Cont(ContType {
            args: list(args)?,
            results: list(results)?,
        }));
    }
    tensor_type(s).map(Type::Tensor)
}

/// `f32[B,3]` → the tensor type.
pub fn tensor_type(s: &str) -> Scan<TensorType> {
    let (dtype, rest) = s
        .trim()
        .split_once('[')
        .ok_or_else(|| format!("expected a tensor type like f32[B,3], found '{s}'"))?;
    let dtype = DType::from_name(dtype).ok_or_else(|| format!("unknown dtype '{dtype}'"))?;
    let dims = rest
        .strip_suffix(']')
        .ok_or_else(|| format!("unclosed tensor type '{s}'"))?;
    let dims = split_top(dims)
        .into_iter()
        .map(|d| match d.parse::<i64>() {
            Ok(n) => Dim::Static(n),
            Err(_) => Dim::Sym(d.to_string()),
        })
        .collect();
    Ok(TensorType::new(dtype, dims))
}

/// A comma-separated list of types.
pub fn types(s: &str) -> Scan<Vec<Type>> {
    split_top(s).into_iter().map(ty).collect()
}

/// A string as Rust's `{:?}` writes it, without the quotes' surroundings:
/// `s` starts with `"`; returns the string and the rest after the closing quote.
pub fn quoted(s: &str) -> Scan<(String, &str)> {
    let body = s.strip_prefix('"').ok_or("expected a quoted string")?;
    let mut out = String::new();
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Ok((out, &body[i + 1..])),
            '\\' => match chars.next().map(|(_, e)| e) {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r') => out.push('\r'),
                Some('0') => out.push('\0'),
                Some('u') => {
                    let rest = &body[i + 2..];
                    let end = rest.find('}').ok_or("bad \\u escape")?;
                    let code = u32::from_str_radix(&rest[1..end], 16).map_err(|e| e.to_string())?;
                    out.push(char::from_u32(code).ok_or("bad \\u escape")?);
                    for _ in 0..end + 1 {
                        chars.next();
                    }
                }
                Some(e) => out.push(e),
                None => return Err("unterminated string".into()),
            },
            c => out.push(c),
        }
    }
    Err("unterminated string".into())
}

/// The index of the `close` matching the `open` at the start of `s`
/// (strings skipped).
pub fn matching(s: &str, open: char, close: char) -> Scan<usize> {
    let mut depth = 0;
    for (i, c) in outside_strings(s) {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return Ok(i);
            }
        }
    }
    Err(format!("no '{close}' closes '{s}'"))
}

impl ParseError {
    /// The error `message` at 1-based `line`.
    pub fn at(line: usize, message: impl Into<String>) -> Self {
        ParseError {
            line,
            message: message.into(),
        }
    }
}
