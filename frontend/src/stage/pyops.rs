//! Python's own semantics on compile-time values: arithmetic, comparisons,
//! truth, iteration, `str()`. Staged operands are not handled here (the
//! callers dispatch those to [`super::tensor`]).

use super::limits;
use super::pyint;
use super::value::Value;
use super::R;
use crate::diagnostics::Diagnostic;
use agc_ir::Span;
use rustpython_parser::ast::{CmpOp, Operator};
use std::rc::Rc;

/// Python's `bool(v)` for compile-time values; `None` when `v` is staged.
pub fn truthy(v: &Value) -> Option<bool> {
    Some(match v {
        Value::None => false,
        Value::Bool(b) => *b,
        Value::Int(i) => *i != 0,
        Value::Float(f) => *f != 0.0,
        Value::Str(s) => !s.is_empty(),
        Value::Tuple(t) | Value::NamedTuple(_, t) => !t.is_empty(),
        Value::List(l) => !l.borrow().is_empty(),
        Value::Dict(d) => !d.borrow().is_empty(),
        Value::Tensor(_) | Value::SymInt(_) => return None,
        _ => true,
    })
}

/// Python equality of compile-time values.
pub fn py_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::None, Value::None) | (Value::Ellipsis, Value::Ellipsis) => true,
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Tuple(x) | Value::NamedTuple(_, x), Value::Tuple(y) | Value::NamedTuple(_, y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| py_eq(p, q))
        }
        (Value::List(x), Value::List(y)) => {
            let (x, y) = (x.borrow(), y.borrow());
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| py_eq(p, q))
        }
        (Value::DType(x), Value::DType(y)) => x == y,
        (Value::SymInt(x), Value::SymInt(y)) => x == y,
        (Value::Function(x), Value::Function(y)) => Rc::ptr_eq(x, y),
        (Value::Class(x), Value::Class(y)) => Rc::ptr_eq(x, y),
        (Value::Instance(x), Value::Instance(y)) => Rc::ptr_eq(x, y),
        (Value::Iterator(x), Value::Iterator(y)) => Rc::ptr_eq(x, y),
        (Value::TupleClass(x), Value::TupleClass(y)) => Rc::ptr_eq(x, y),
        _ => match (a.as_f64(), b.as_f64()) {
            (Some(x), Some(y))
                if !matches!(a, Value::SymInt(_)) && !matches!(b, Value::SymInt(_)) =>
            {
                x == y
            }
            _ => false,
        },
    }
}

/// Python's `is`.
pub fn py_is(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::None, Value::None) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::List(x), Value::List(y)) => Rc::ptr_eq(x, y),
        (Value::Dict(x), Value::Dict(y)) => Rc::ptr_eq(x, y),
        (Value::Tensor(x), Value::Tensor(y)) => x.value == y.value,
        _ => py_eq(a, b) && !matches!(a, Value::Int(_) | Value::Float(_) | Value::Str(_)),
    }
}

/// Python's `str(v)`.
pub fn py_str(v: &Value) -> String {
    match v {
        Value::Str(s) => s.to_string(),
        _ => py_repr(v),
    }
}

/// CPython's `repr` of a `str`: single quotes unless the text holds `'`
/// and no `"`, with `\\`, the quote, `\t`, `\n`, `\r` and other control
/// characters escaped.
fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Python's `repr(v)`.
pub fn py_repr(v: &Value) -> String {
    let seq = |items: &[Value]| items.iter().map(py_repr).collect::<Vec<_>>().join(", ");
    match v {
        Value::None => "None".into(),
        Value::Bool(b) => if *b { "True" } else { "False" }.into(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => format_float(*f),
        Value::Str(s) => str_repr(s),
        Value::Tuple(t) if t.len() == 1 => format!("({},)", py_repr(&t[0])),
        Value::Tuple(t) => format!("({})", seq(t)),
        Value::List(l) => format!("[{}]", seq(&l.borrow())),
        Value::Dict(d) => {
            let parts: Vec<String> = d
                .borrow()
                .iter()
                .map(|(k, v)| format!("{}: {}", py_repr(k), py_repr(v)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        Value::SymInt(d) => d.to_string(),
        Value::Function(f) => format!("<function {}>", f.name),
        Value::Class(c) => format!("<class '{}'>", c.name),
        Value::TupleClass(c) => format!("<class '{}'>", c.name),
        Value::NamedTuple(c, items) => {
            let parts: Vec<String> = c
                .fields
                .iter()
                .zip(items.iter())
                .map(|(f, v)| format!("{f}={}", py_repr(v)))
                .collect();
            format!("{}({})", c.name, parts.join(", "))
        }
        Value::DType(d) => d.numpy_name().to_string(),
        other => format!("<{}>", other.type_name()),
    }
}

fn format_float(f: f64) -> String {
    if f.is_finite() && f == f.trunc() && f.abs() < 1e16 {
        format!("{f:.1}")
    } else if f.is_nan() {
        "nan".into()
    } else if f.is_infinite() {
        if f > 0.0 { "inf" } else { "-inf" }.into()
    } else {
        format!("{f}")
    }
}

/// The items of a compile-time iterable (list, tuple, dict keys, str, an
/// iterator over compile-time items, which this exhausts).
pub fn iterate(v: &Value, span: Span) -> R<Vec<Value>> {
    match v {
        Value::Tuple(t) | Value::NamedTuple(_, t) => Ok(t.as_ref().clone()),
        Value::Iterator(it) => {
            let mut it = it.borrow_mut();
            let super::value::IterSource::Items(items) = &it.source else {
                return Err(Diagnostic::unsupported(span, "an iterator over the rows of a staged tensor can only be advanced by `next()` or a `for` loop"));
            };
            let all = iterate(items, span)?;
            let rest = all.get(it.pos..).map(<[Value]>::to_vec).unwrap_or_default();
            it.pos = it.pos.max(all.len());
            Ok(rest)
        }
        Value::List(l) => Ok(l.borrow().clone()),
        Value::Dict(d) => Ok(d.borrow().iter().map(|(k, _)| k.clone()).collect()),
        Value::Str(s) => Ok(s.chars().map(|c| Value::str(&c.to_string())).collect()),
        other => Err(Diagnostic::error(
            span,
            format!("'{}' object is not iterable", other.type_name()),
        )),
    }
}

fn mod_f(a: f64, b: f64) -> f64 {
    let r = a % b;
    if r != 0.0 && ((r < 0.0) != (b < 0.0)) {
        r + b
    } else {
        r
    }
}

/// A binary operator on compile-time values; `Ok(None)` when an operand is staged.
pub fn binop(op: Operator, a: &Value, b: &Value, span: Span) -> R<Option<Value>> {
    if a.is_staged() || b.is_staged() {
        return Ok(None);
    }
    let type_err = || {
        Diagnostic::error(
            span,
            format!(
                "unsupported operand type(s) for {}: '{}' and '{}'",
                op_symbol(op),
                a.type_name(),
                b.type_name()
            ),
        )
    };
    // Sequences first.
    match (op, a, b) {
        (Operator::Add, Value::Str(x), Value::Str(y)) => {
            return Ok(Some(Value::str(&format!("{x}{y}"))))
        }
        (Operator::Add, Value::Tuple(x), Value::Tuple(y)) => {
            return Ok(Some(Value::tuple(
                x.iter().chain(y.iter()).cloned().collect(),
            )))
        }
        (Operator::Add, Value::List(x), Value::List(y)) => {
            return Ok(Some(Value::list(
                x.borrow()
                    .iter()
                    .chain(y.borrow().iter())
                    .cloned()
                    .collect(),
            )))
        }
        (
            Operator::Mult,
            Value::List(_) | Value::Tuple(_) | Value::Str(_),
            Value::Int(_) | Value::Bool(_),
        )
        | (
            Operator::Mult,
            Value::Int(_) | Value::Bool(_),
            Value::List(_) | Value::Tuple(_) | Value::Str(_),
        ) => {
            let (seq, n) = if b.as_int().is_some() {
                (a, b.as_int().unwrap_or(0))
            } else {
                (b, a.as_int().unwrap_or(0))
            };
            let n = n.max(0) as usize;
            let total =
                |what: &str, len: usize| limits::check_items(what, len.checked_mul(n), span);
            return Ok(Some(match seq {
                Value::Str(s) => {
                    total("str", s.chars().count())?;
                    Value::str(&s.repeat(n))
                }
                Value::Tuple(t) => {
                    let len = total("tuple", t.len())?;
                    Value::tuple(t.iter().cloned().cycle().take(len).collect())
                }
                Value::List(l) => {
                    let items = l.borrow();
                    let len = total("list", items.len())?;
                    Value::list(items.iter().cloned().cycle().take(len).collect())
                }
                _ => unreachable!("matched above"),
            }));
        }
        (Operator::Mod, Value::Str(fmt), args) => {
            return Ok(Some(Value::str(&percent_format(fmt, args, span)?)))
        }
        _ => {}
    }
    let both_int =
        matches!(a, Value::Int(_) | Value::Bool(_)) && matches!(b, Value::Int(_) | Value::Bool(_));
    let (Some(x), Some(y)) = (a.as_f64(), b.as_f64()) else {
        return Err(type_err());
    };
    let zero_div = || Diagnostic::raises(span, "ZeroDivisionError", "division by zero");
    if both_int {
        let (x, y) = (a.as_int().unwrap_or(0), b.as_int().unwrap_or(0));
        let v = match op {
            Operator::Add => Value::Int(pyint::add(x, y, span)?),
            Operator::Sub => Value::Int(pyint::sub(x, y, span)?),
            Operator::Mult => Value::Int(pyint::mul(x, y, span)?),
            Operator::Div if y == 0 => return Err(zero_div()),
            Operator::Div => Value::Float(x as f64 / y as f64),
            Operator::FloorDiv if y == 0 => return Err(zero_div()),
            Operator::FloorDiv => Value::Int(pyint::floor_div(x, y, span)?),
            Operator::Mod if y == 0 => return Err(zero_div()),
            Operator::Mod => Value::Int(pyint::modulo(x, y)),
            Operator::Pow if y >= 0 => Value::Int(pyint::pow(x, y, span)?),
            Operator::Pow => Value::Float((x as f64).powf(y as f64)),
            Operator::BitAnd if matches!((a, b), (Value::Bool(_), Value::Bool(_))) => {
                Value::Bool(x & y != 0)
            }
            Operator::BitOr if matches!((a, b), (Value::Bool(_), Value::Bool(_))) => {
                Value::Bool(x | y != 0)
            }
            Operator::BitXor if matches!((a, b), (Value::Bool(_), Value::Bool(_))) => {
                Value::Bool(x ^ y != 0)
            }
            Operator::BitAnd => Value::Int(x & y),
            Operator::BitOr => Value::Int(x | y),
            Operator::BitXor => Value::Int(x ^ y),
            Operator::LShift => Value::Int(pyint::lshift(x, y, span)?),
            Operator::RShift => Value::Int(pyint::rshift(x, y, span)?),
            Operator::MatMult => return Err(type_err()),
        };
        return Ok(Some(v));
    }
    let v = match op {
        Operator::Add => x + y,
        Operator::Sub => x - y,
        Operator::Mult => x * y,
        Operator::Div if y == 0.0 => return Err(zero_div()),
        Operator::Div => x / y,
        Operator::FloorDiv if y == 0.0 => return Err(zero_div()),
        Operator::FloorDiv => (x / y).floor(),
        Operator::Mod if y == 0.0 => return Err(zero_div()),
        Operator::Mod => mod_f(x, y),
        Operator::Pow => x.powf(y),
        _ => return Err(type_err()),
    };
    Ok(Some(Value::Float(v)))
}

fn percent_format(fmt: &str, args: &Value, span: Span) -> R<String> {
    let items = match args {
        Value::Tuple(t) => t.as_ref().clone(),
        other => vec![other.clone()],
    };
    let mut out = String::new();
    let mut it = items.iter();
    let mut chars = fmt.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut spec = String::new();
        while let Some(&n) = chars.peek() {
            chars.next();
            if n.is_ascii_alphabetic() || n == '%' {
                spec.push(n);
                break;
            }
            spec.push(n);
        }
        if spec == "%" {
            out.push('%');
            continue;
        }
        let v = it
            .next()
            .ok_or_else(|| Diagnostic::error(span, "not enough arguments for format string"))?;
        out.push_str(&py_str(v));
    }
    Ok(out)
}

/// The Python spelling of an operator, for messages.
pub fn op_symbol(op: Operator) -> &'static str {
    match op {
        Operator::Add => "+",
        Operator::Sub => "-",
        Operator::Mult => "*",
        Operator::MatMult => "@",
        Operator::Div => "/",
        Operator::Mod => "%",
        Operator::Pow => "**",
        Operator::LShift => "<<",
        Operator::RShift => ">>",
        Operator::BitOr => "|",
        Operator::BitXor => "^",
        Operator::BitAnd => "&",
        Operator::FloorDiv => "//",
    }
}

/// Ordering comparisons and equality on compile-time values; `Ok(None)` when staged.
pub fn compare(op: CmpOp, a: &Value, b: &Value, span: Span) -> R<Option<bool>> {
    match op {
        CmpOp::Is => return Ok(Some(py_is(a, b))),
        CmpOp::IsNot => return Ok(Some(!py_is(a, b))),
        CmpOp::In | CmpOp::NotIn => {
            let found = match b {
                Value::Dict(d) => d.borrow().iter().any(|(k, _)| py_eq(k, a)),
                Value::Str(s) => match a {
                    Value::Str(x) => s.contains(x.as_ref()),
                    _ => false,
                },
                other => iterate(other, span)?.iter().any(|x| py_eq(x, a)),
            };
            return Ok(Some(found == (op == CmpOp::In)));
        }
        _ => {}
    }
    if a.is_staged() || b.is_staged() {
        return Ok(None);
    }
    if matches!(op, CmpOp::Eq | CmpOp::NotEq) {
        return Ok(Some(py_eq(a, b) == (op == CmpOp::Eq)));
    }
    let ord = match (a, b) {
        (Value::Str(x), Value::Str(y)) => x.partial_cmp(y),
        (Value::Tuple(x), Value::Tuple(y)) => seq_cmp(x, y, span)?,
        _ => match (a.as_f64(), b.as_f64()) {
            (Some(x), Some(y)) => x.partial_cmp(&y),
            _ => {
                return Err(Diagnostic::error(
                    span,
                    format!(
                        "'<' not supported between instances of '{}' and '{}'",
                        a.type_name(),
                        b.type_name()
                    ),
                ))
            }
        },
    };
    let Some(o) = ord else { return Ok(Some(false)) };
    use std::cmp::Ordering::*;
    Ok(Some(match op {
        CmpOp::Lt => o == Less,
        CmpOp::LtE => o != Greater,
        CmpOp::Gt => o == Greater,
        CmpOp::GtE => o != Less,
        _ => unreachable!("handled above"),
    }))
}

fn seq_cmp(x: &[Value], y: &[Value], span: Span) -> R<Option<std::cmp::Ordering>> {
    for (p, q) in x.iter().zip(y) {
        if !py_eq(p, q) {
            let lt = compare(CmpOp::Lt, p, q, span)?.unwrap_or(false);
            return Ok(Some(if lt {
                std::cmp::Ordering::Less
            } else {
                std::cmp::Ordering::Greater
            }));
        }
    }
    Ok(x.len().partial_cmp(&y.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_division_follows_python() {
        let s = Span::UNKNOWN;
        let r = |op, a, b| match binop(op, &Value::Int(a), &Value::Int(b), s)
            .unwrap()
            .unwrap()
        {
            Value::Int(i) => i,
            other => panic!("{other:?}"),
        };
        assert_eq!(r(Operator::FloorDiv, -7, 2), -4);
        assert_eq!(r(Operator::Mod, -7, 2), 1);
        assert_eq!(r(Operator::Mod, 7, -2), -1);
        assert_eq!(r(Operator::Pow, 3, 4), 81);
    }

    #[test]
    fn repr_matches_python() {
        assert_eq!(py_repr(&Value::tuple(vec![Value::Int(1)])), "(1,)");
        assert_eq!(py_repr(&Value::Float(2.0)), "2.0");
        assert_eq!(
            py_repr(&Value::list(vec![Value::str("a"), Value::None])),
            "['a', None]"
        );
    }
}
