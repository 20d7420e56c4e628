//! `collections.namedtuple`: a compile-time class ([`Value::TupleClass`])
//! whose instances ([`Value::NamedTuple`]) are tuples with named fields, which
//! may hold tensors. An instance indexes, unpacks and iterates as a tuple,
//! and crosses staged control flow and `agc.grad` field by field (see
//! [`super::value::SeqKind`]); `p.x`, `p._replace(x=...)`, `p._asdict()`,
//! `P._make(items)` and `P._fields` work as in Python.

use super::args::Args;
use super::pyops;
use super::value::{TupleClass, Value};
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::Span;
use std::cell::RefCell;
use std::rc::Rc;

/// The functions of `collections` that agc stages.
pub const COLLECTIONS_FUNCTIONS: &[&str] = &["namedtuple"];

const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
        && !KEYWORDS.contains(&s)
}

fn method(name: &str, recv: &Value) -> Value {
    Value::Builtin(
        Rc::from(format!("collections.namedtuple.{name}")),
        Some(Box::new(recv.clone())),
    )
}

fn dict(items: Vec<(Value, Value)>) -> Value {
    Value::Dict(Rc::new(RefCell::new(items)))
}

/// `base.name` for a namedtuple instance or class; `None` if it has no such attribute.
pub fn attr(base: &Value, name: &str) -> Option<Value> {
    let class = match base {
        Value::NamedTuple(c, _) | Value::TupleClass(c) => c,
        _ => return None,
    };
    match (base, name) {
        (_, "_fields") => Some(Value::tuple(
            class.fields.iter().map(|f| Value::str(f)).collect(),
        )),
        (_, "_field_defaults") => {
            let first = class.fields.len() - class.defaults.len();
            Some(dict(
                class.fields[first..]
                    .iter()
                    .map(|f| Value::str(f))
                    .zip(class.defaults.iter().cloned())
                    .collect(),
            ))
        }
        (Value::TupleClass(_), "__name__") => Some(Value::str(&class.name)),
        (Value::TupleClass(_), "_make") => Some(method("_make", base)),
        (Value::NamedTuple(_, items), field) => {
            match class.fields.iter().position(|f| f == field) {
                Some(i) => Some(items[i].clone()),
                None if matches!(field, "_replace" | "_asdict") => Some(method(field, base)),
                None if matches!(field, "count" | "index") => Some(Value::Builtin(
                    Rc::from(format!("list.{field}")),
                    Some(Box::new(base.clone())),
                )),
                None => None,
            }
        }
        _ => None,
    }
}

impl Stager {
    /// Calls `collections.<f>`, or a namedtuple method `namedtuple.<m>` on `recv`.
    pub fn call_collections(&mut self, f: &str, recv: Option<&Value>, args: Args) -> R<Value> {
        let span = args.span;
        match (f, recv) {
            ("namedtuple", None) => namedtuple_class(&args),
            ("namedtuple._make", Some(Value::TupleClass(c))) => {
                let items = self.iter_values(&args.req(0, "iterable", "_make")?, span)?;
                if items.len() != c.fields.len() {
                    return Err(Diagnostic::error(
                        span,
                        format!(
                            "TypeError: Expected {} arguments, got {}",
                            c.fields.len(),
                            items.len()
                        ),
                    ));
                }
                Ok(Value::NamedTuple(c.clone(), Rc::new(items)))
            }
            ("namedtuple._replace", Some(Value::NamedTuple(c, items))) => {
                if !args.pos.is_empty() {
                    return Err(Diagnostic::error(
                        span,
                        "_replace() takes keyword arguments only",
                    ));
                }
                let mut items = items.as_ref().clone();
                for (k, v) in args.kw {
                    let i = c.fields.iter().position(|f| *f == k).ok_or_else(|| {
                        Diagnostic::error(
                            span,
                            format!("ValueError: Got unexpected field names: ['{k}']"),
                        )
                    })?;
                    items[i] = v;
                }
                Ok(Value::NamedTuple(c.clone(), Rc::new(items)))
            }
            ("namedtuple._asdict", Some(Value::NamedTuple(c, items))) => Ok(dict(
                c.fields
                    .iter()
                    .map(|f| Value::str(f))
                    .zip(items.iter().cloned())
                    .collect(),
            )),
            _ => Err(Diagnostic::unsupported(
                span,
                format!("collections.{f} is not supported by agc (only namedtuple is)"),
            )),
        }
    }

    /// `P(...)`: binds the arguments to the fields (defaults fill the last ones).
    pub fn construct_namedtuple(&mut self, c: &Rc<TupleClass>, args: Args) -> R<Value> {
        let span = args.span;
        let n = c.fields.len();
        if args.pos.len() > n {
            return Err(Diagnostic::error(
                span,
                format!(
                    "{}() takes {n} positional arguments but {} were given",
                    c.name,
                    args.pos.len()
                ),
            ));
        }
        let mut items: Vec<Option<Value>> = args
            .pos
            .into_iter()
            .map(Some)
            .chain(std::iter::repeat(None))
            .take(n)
            .collect();
        for (k, v) in args.kw {
            let i = c.fields.iter().position(|f| *f == k).ok_or_else(|| {
                Diagnostic::error(
                    span,
                    format!("{}() got an unexpected keyword argument '{k}'", c.name),
                )
            })?;
            if items[i].replace(v).is_some() {
                return Err(Diagnostic::error(
                    span,
                    format!("{}() got multiple values for argument '{k}'", c.name),
                ));
            }
        }
        let first_default = n - c.defaults.len();
        let items = items
            .into_iter()
            .enumerate()
            .map(|(i, v)| {
                v.or_else(|| i.checked_sub(first_default).map(|d| c.defaults[d].clone()))
                    .ok_or_else(|| {
                        Diagnostic::error(
                            span,
                            format!("{}() missing required argument '{}'", c.name, c.fields[i]),
                        )
                    })
            })
            .collect::<R<Vec<_>>>()?;
        Ok(Value::NamedTuple(c.clone(), Rc::new(items)))
    }
}

/// `collections.namedtuple(typename, field_names, *, rename=False, defaults=None)`.
fn namedtuple_class(args: &Args) -> R<Value> {
    let span = args.span;
    args.check(
        "namedtuple",
        2,
        &["typename", "field_names", "rename", "defaults", "module"],
    )?;
    let name = match args.req(0, "typename", "namedtuple")? {
        Value::Str(s) if is_identifier(&s) => s.to_string(),
        other => {
            return Err(Diagnostic::error(
                span,
                format!(
                    "ValueError: Type names and field names must be valid identifiers: {}",
                    pyops::py_repr(&other)
                ),
            ))
        }
    };
    let fields: Vec<String> = match args.req(1, "field_names", "namedtuple")? {
        Value::Str(s) => s
            .replace(',', " ")
            .split_whitespace()
            .map(String::from)
            .collect(),
        other => pyops::iterate(&other, span)?
            .iter()
            .map(pyops::py_str)
            .collect(),
    };
    let rename = args
        .get(2, "rename")
        .as_ref()
        .and_then(pyops::truthy)
        .unwrap_or(false);
    let mut seen: Vec<String> = Vec::new();
    for (i, f) in fields.into_iter().enumerate() {
        let bad = !is_identifier(&f) || f.starts_with('_') || seen.contains(&f);
        match (bad, rename) {
            (false, _) => seen.push(f),
            (true, true) => seen.push(format!("_{i}")),
            (true, false) if seen.contains(&f) => {
                return Err(Diagnostic::error(
                    span,
                    format!("ValueError: Encountered duplicate field name: '{f}'"),
                ))
            }
            (true, false) => {
                return Err(Diagnostic::error(
                    span,
                    format!("ValueError: invalid field name for a namedtuple: '{f}'"),
                ))
            }
        }
    }
    let defaults = match args.get_some(3, "defaults") {
        Some(d) => pyops::iterate(&d, span)?,
        None => Vec::new(),
    };
    if defaults.len() > seen.len() {
        return Err(Diagnostic::error(
            span,
            "TypeError: Got more default values than field names",
        ));
    }
    Ok(Value::TupleClass(Rc::new(TupleClass {
        name,
        fields: seen,
        defaults,
    })))
}

/// The error for `class C(P)` with `P` a namedtuple.
pub fn subclass_error(c: &TupleClass, span: Span) -> Diagnostic {
    Diagnostic::unsupported(span, format!("subclassing the namedtuple '{}' is not supported; write functions that take it instead", c.name))
}
