//! The `operator` and `functools` modules: Python's operators as functions
//! (`operator.add`, `operator.lt`, `itemgetter`, ...), `functools.reduce`
//! and `functools.partial`.
//!
//! Each operator function dispatches exactly as the operator it names, so it
//! works on compile-time values, staged tensors and user objects alike. The
//! callables that `itemgetter`, `attrgetter`, `methodcaller` and `partial`
//! make are builtins whose receiver holds what they were made with.

use super::args::Args;
use super::value::Value;
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::Span;
use rustpython_parser::ast::{CmpOp, Operator, UnaryOp};
use std::rc::Rc;

/// The functions of `operator` that agc stages.
pub const OPERATOR_FUNCTIONS: &[&str] = &[
    "add",
    "sub",
    "mul",
    "truediv",
    "floordiv",
    "mod",
    "pow",
    "matmul",
    "and_",
    "or_",
    "xor",
    "lshift",
    "rshift",
    "concat",
    "lt",
    "le",
    "eq",
    "ne",
    "ge",
    "gt",
    "neg",
    "pos",
    "abs",
    "invert",
    "inv",
    "not_",
    "truth",
    "index",
    "getitem",
    "contains",
    "countOf",
    "indexOf",
    "is_",
    "is_not",
    "itemgetter",
    "attrgetter",
    "methodcaller",
];

/// The functions of `functools` that agc stages.
pub const FUNCTOOLS_FUNCTIONS: &[&str] = &["reduce", "partial"];

fn binary_operator(name: &str) -> Option<Operator> {
    Some(match name {
        "add" | "concat" => Operator::Add,
        "sub" => Operator::Sub,
        "mul" => Operator::Mult,
        "truediv" => Operator::Div,
        "floordiv" => Operator::FloorDiv,
        "mod" => Operator::Mod,
        "pow" => Operator::Pow,
        "matmul" => Operator::MatMult,
        "and_" => Operator::BitAnd,
        "or_" => Operator::BitOr,
        "xor" => Operator::BitXor,
        "lshift" => Operator::LShift,
        "rshift" => Operator::RShift,
        _ => return None,
    })
}

fn comparison(name: &str) -> Option<CmpOp> {
    Some(match name {
        "lt" => CmpOp::Lt,
        "le" => CmpOp::LtE,
        "eq" => CmpOp::Eq,
        "ne" => CmpOp::NotEq,
        "ge" => CmpOp::GtE,
        "gt" => CmpOp::Gt,
        "is_" => CmpOp::Is,
        "is_not" => CmpOp::IsNot,
        _ => return None,
    })
}

fn unary_operator(name: &str) -> Option<UnaryOp> {
    Some(match name {
        "neg" => UnaryOp::USub,
        "pos" => UnaryOp::UAdd,
        "invert" | "inv" => UnaryOp::Invert,
        "not_" => UnaryOp::Not,
        _ => return None,
    })
}

/// A callable builtin `name` that remembers `state` (its receiver).
fn maker(name: &str, state: Value) -> Value {
    Value::Builtin(Rc::from(name), Some(Box::new(state)))
}

/// The `N` positional arguments of a call that takes exactly those.
fn exactly<'a, const N: usize>(args: &'a Args, f: &str) -> R<&'a [Value; N]> {
    match <&[Value; N]>::try_from(args.pos.as_slice()) {
        Ok(a) if args.kw.is_empty() => Ok(a),
        _ => Err(Diagnostic::error(
            args.span,
            format!(
                "{f} expected {N} positional arguments, got {}",
                args.pos.len()
            ),
        )),
    }
}

impl Stager {
    /// Calls `operator.<f>`, or applies a getter `operator.<f>` made earlier (`recv`: its state).
    pub fn call_operator(&mut self, f: &str, recv: Option<&Value>, args: Args) -> R<Value> {
        let span = args.span;
        let what = format!("operator.{f}");
        if let Some(state) = recv {
            return self.apply_getter(f, state, &args);
        }
        if let Some(op) = binary_operator(f) {
            let [a, b] = exactly::<2>(&args, &what)?;
            return self.binop(op, a, b, span);
        }
        if let Some(op) = comparison(f) {
            let [a, b] = exactly::<2>(&args, &what)?;
            return self.compare_values(op, a, b, span);
        }
        if let Some(op) = unary_operator(f) {
            let [a] = exactly::<1>(&args, &what)?;
            return self.unaryop(op, a, span);
        }
        match f {
            "abs" | "truth" => {
                exactly::<1>(&args, &what)?;
                self.call_builtin(if f == "abs" { "abs" } else { "bool" }, None, args)
            }
            "index" => {
                let [a] = exactly::<1>(&args, &what)?;
                match a {
                    Value::Int(_) | Value::Bool(_) => {
                        Ok(Value::Int(a.as_int().unwrap_or_default()))
                    }
                    Value::Tensor(t) if t.ty.rank() == 0 && t.ty.dtype.is_int() => Ok(a.clone()),
                    other => Err(Diagnostic::error(
                        span,
                        format!(
                            "'{}' object cannot be interpreted as an integer",
                            other.type_name()
                        ),
                    )),
                }
            }
            "getitem" => {
                let [a, b] = exactly::<2>(&args, &what)?;
                self.get_item(a, b, span)
            }
            "contains" => {
                let [a, b] = exactly::<2>(&args, &what)?;
                self.compare_values(CmpOp::In, b, a, span)
            }
            "countOf" | "indexOf" => {
                let [a, b] = exactly::<2>(&args, &what)?;
                let items = self.iter_values(a, span)?;
                let equal = items
                    .iter()
                    .map(|x| self.compare_values(CmpOp::Eq, x, b, span))
                    .collect::<R<Vec<_>>>()?;
                let truths = equal
                    .iter()
                    .map(|v| {
                        super::pyops::truthy(v).ok_or_else(|| {
                            Diagnostic::error(span, format!("{what} of staged values"))
                        })
                    })
                    .collect::<R<Vec<_>>>()?;
                if f == "countOf" {
                    return Ok(Value::Int(truths.iter().filter(|&&t| t).count() as i64));
                }
                let at = truths.iter().position(|&t| t).ok_or_else(|| {
                    Diagnostic::raises(span, "ValueError", "sequence.index(x): x not in sequence")
                })?;
                Ok(Value::Int(at as i64))
            }
            "itemgetter" | "attrgetter" => {
                if args.pos.is_empty() || !args.kw.is_empty() {
                    return Err(Diagnostic::error(
                        span,
                        format!("{what} expected at least one positional argument"),
                    ));
                }
                if f == "attrgetter" && args.pos.iter().any(|v| !matches!(v, Value::Str(_))) {
                    return Err(Diagnostic::error(span, "attribute name must be a string"));
                }
                Ok(maker(&what, Value::tuple(args.pos)))
            }
            "methodcaller" => {
                let name = args.pos.first().cloned().ok_or_else(|| {
                    Diagnostic::error(
                        span,
                        "methodcaller needs one argument, the name of the method",
                    )
                })?;
                if !matches!(name, Value::Str(_)) {
                    return Err(Diagnostic::error(span, "method name must be a string"));
                }
                let kw = args
                    .kw
                    .iter()
                    .map(|(k, v)| (Value::str(k), v.clone()))
                    .collect();
                let state = Value::tuple(vec![
                    name,
                    Value::tuple(args.pos[1..].to_vec()),
                    Value::Dict(Rc::new(std::cell::RefCell::new(kw))),
                ]);
                Ok(maker(&what, state))
            }
            _ => Err(Diagnostic::unsupported(
                span,
                format!("{what} is not supported by agc"),
            )),
        }
    }

    /// Applies an `itemgetter`, `attrgetter` or `methodcaller` (`state`: what it was made with) to its object.
    fn apply_getter(&mut self, f: &str, state: &Value, args: &Args) -> R<Value> {
        let span = args.span;
        let [obj] = exactly::<1>(args, &format!("operator.{f}() object"))?;
        let parts = super::pyops::iterate(state, span)?;
        match f {
            "methodcaller" => {
                let (Some(name), Some(pos), Some(Value::Dict(kw))) =
                    (parts.first(), parts.get(1), parts.get(2))
                else {
                    return Err(Diagnostic::internal(span, "a methodcaller's state"));
                };
                let m = self.get_attr(obj, &super::pyops::py_str(name), span)?;
                let kw = kw
                    .borrow()
                    .iter()
                    .map(|(k, v)| (super::pyops::py_str(k), v.clone()))
                    .collect();
                self.call(
                    &m,
                    Args {
                        pos: super::pyops::iterate(pos, span)?,
                        kw,
                        span,
                    },
                )
            }
            _ => {
                let mut got = Vec::new();
                for key in &parts {
                    got.push(if f == "itemgetter" {
                        self.get_item(obj, key, span)?
                    } else {
                        self.dotted_attr(obj, key, span)?
                    });
                }
                Ok(if got.len() == 1 {
                    got.remove(0)
                } else {
                    Value::tuple(got)
                })
            }
        }
    }

    /// `obj.a.b.c` for the attribute path `"a.b.c"`.
    fn dotted_attr(&mut self, obj: &Value, path: &Value, span: Span) -> R<Value> {
        let mut cur = obj.clone();
        for name in super::pyops::py_str(path).split('.') {
            cur = self.get_attr(&cur, name, span)?;
        }
        Ok(cur)
    }

    /// Calls `functools.<f>`, or a `partial` made earlier (`recv`: its function and arguments).
    pub fn call_functools(&mut self, f: &str, recv: Option<&Value>, args: Args) -> R<Value> {
        let span = args.span;
        match (f, recv) {
            ("partial", Some(state)) => {
                let parts = super::pyops::iterate(state, span)?;
                let (Some(func), Some(pos), Some(Value::Dict(kw))) =
                    (parts.first(), parts.get(1), parts.get(2))
                else {
                    return Err(Diagnostic::internal(span, "a partial's state"));
                };
                let mut all = Args {
                    pos: super::pyops::iterate(pos, span)?,
                    kw: Vec::new(),
                    span,
                };
                all.pos.extend(args.pos);
                all.kw = kw
                    .borrow()
                    .iter()
                    .map(|(k, v)| (super::pyops::py_str(k), v.clone()))
                    .filter(|(k, _)| !args.kw.iter().any(|(n, _)| n == k))
                    .collect();
                all.kw.extend(args.kw);
                self.call(func, all)
            }
            ("partial", None) => {
                let func = args
                    .pos
                    .first()
                    .cloned()
                    .ok_or_else(|| Diagnostic::error(span, "partial() needs a function"))?;
                let kw = args
                    .kw
                    .iter()
                    .map(|(k, v)| (Value::str(k), v.clone()))
                    .collect();
                let state = Value::tuple(vec![
                    func,
                    Value::tuple(args.pos[1..].to_vec()),
                    Value::Dict(Rc::new(std::cell::RefCell::new(kw))),
                ]);
                Ok(maker("functools.partial", state))
            }
            ("reduce", None) => {
                if !(2..=3).contains(&args.pos.len()) || !args.kw.is_empty() {
                    return Err(Diagnostic::error(
                        span,
                        "reduce() takes a function, an iterable and an optional initial value",
                    ));
                }
                let mut items = self.iter_values(&args.pos[1], span)?.into_iter();
                let mut acc = match args.pos.get(2) {
                    Some(v) => v.clone(),
                    None => items.next().ok_or_else(|| {
                        Diagnostic::raises(
                            span,
                            "TypeError",
                            "reduce() of empty iterable with no initial value",
                        )
                    })?,
                };
                for it in items {
                    acc = self.call(&args.pos[0], Args::positional(vec![acc, it], span))?;
                }
                Ok(acc)
            }
            _ => Err(Diagnostic::unsupported(
                span,
                format!("functools.{f} is not supported by agc"),
            )),
        }
    }
}
