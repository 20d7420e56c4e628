//! Calls: binding arguments to parameters and tracing user functions inline
//! (specialisation on the compile-time arguments), constructing class
//! instances, and dispatching builtins.

use super::args::Args;
use super::scope::{Scope, ScopeKind};
use super::value::{Closure, Instance, Value};
use super::{Flow, Stager, MAX_CALL_DEPTH, R};
use crate::diagnostics::Diagnostic;
use agc_analysis::py::activity;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

impl Stager {
    /// Calls any callable value.
    pub fn call(&mut self, func: &Value, args: Args) -> R<Value> {
        let span = args.span;
        match func {
            Value::Function(c) => self.call_closure(c, args),
            Value::BoundMethod(m) => {
                let (recv, f) = (&m.0, &m.1);
                let mut args = args;
                args.pos.insert(0, recv.clone());
                self.call(f, args)
            }
            Value::Class(class) => {
                let inst = Value::Instance(Rc::new(Instance {
                    class: class.clone(),
                    attrs: RefCell::default(),
                }));
                if let Some(init) = class.lookup("__init__") {
                    let mut a = args;
                    a.pos.insert(0, inst.clone());
                    self.call(&init, a)?;
                } else if !args.pos.is_empty() || !args.kw.is_empty() {
                    return Err(Diagnostic::error(
                        span,
                        format!("{}() takes no arguments", class.name),
                    ));
                }
                Ok(inst)
            }
            Value::Instance(i) => match i.class.lookup("__call__") {
                Some(_) => {
                    let m = self.get_attr(func, "__call__", span)?;
                    self.call(&m, args)
                }
                None => Err(Diagnostic::error(
                    span,
                    format!("'{}' object is not callable", i.class.name),
                )),
            },
            // A `staticmethod` object outside a class is callable (Python 3.10+);
            // `classmethod` and `property` objects are not.
            Value::Builtin(name, Some(f)) if &**name == "staticmethod" => self.call(f, args),
            Value::Builtin(name, Some(_)) if matches!(&**name, "classmethod" | "property") => Err(
                Diagnostic::error(span, format!("'{name}' object is not callable")),
            ),
            Value::Builtin(name, recv) => self.call_builtin(name, recv.as_deref(), args),
            Value::TupleClass(c) => self.construct_namedtuple(c, args),
            Value::DType(d) => self.call_builtin(&format!("np.{}", d.numpy_name()), None, args),
            // A method of a recursive result whose type is still being found.
            Value::Bottom => Ok(Value::Bottom),
            other => Err(Diagnostic::error(
                span,
                format!("'{}' object is not callable", other.type_name()),
            )),
        }
    }

    /// Binds `args` to the closure's parameters and runs its body in a new frame.
    pub fn call_closure(&mut self, c: &Rc<Closure>, args: Args) -> R<Value> {
        let span = args.span;
        if self.call_depth >= MAX_CALL_DEPTH {
            let err = Diagnostic::error(
                span,
                format!(
                    "maximum compile-time recursion depth ({MAX_CALL_DEPTH}) exceeded in '{}'",
                    c.name
                ),
            );
            // Staged recursion that specialises anew at every level: a compile-time argument changes.
            let prefix = format!("{:p}|", Rc::as_ptr(c));
            let staged_levels = self
                .specialisations
                .keys()
                .filter(|k| k.starts_with(&prefix))
                .count();
            return Err(if staged_levels > 1 {
                err.with_note(format!(
                    "'{}' recursed through staged control flow with a different compile-time argument at each level, so each level is a new specialisation; pass a run-time value instead (e.g. np.int64(i) for a Python int i) so that one function serves every level",
                    c.name
                ))
            } else {
                err
            });
        }
        let frame = Scope::child(
            ScopeKind::Function,
            c.env.clone(),
            c.locals.clone(),
            activity::declared_outer(c.body)
                .into_iter()
                .filter(|n| !is_nonlocal(c, n))
                .collect(),
        );
        if self.is_staged_reentry(c) {
            return self.staged_recursive_call(c, args);
        }
        bind_arguments(c, args, &frame)?;
        self.call_depth += 1;
        self.call_stack.push(super::ActiveCall {
            closure: c.clone(),
            generation: self.generation,
            regions: self.open_regions.len(),
        });
        let result = match c.lambda_body {
            Some(e) => self.eval(e, &frame),
            None => self.exec_block(c.body, &frame).and_then(|flow| match flow {
                Flow::Return(v) => self.merge_staged_return(&frame, v, span),
                Flow::Normal => {
                    self.check_no_fall_off(c, &frame)?;
                    self.merge_staged_return(&frame, Value::None, span)
                }
                Flow::Break | Flow::Continue => {
                    Err(Diagnostic::error(span, "'break' outside loop"))
                }
            }),
        };
        self.call_stack.pop();
        self.call_depth -= 1;
        result.map_err(|d| {
            if d.kind == crate::diagnostics::DiagnosticKind::Internal
                || d.span == span
                || self.call_depth == 0
            {
                return d;
            }
            let (line, col) = self.file.line_col(span.start);
            d.with_note(format!(
                "in '{}', called from line {line}, column {col}",
                c.name
            ))
        })
    }
}

impl Stager {
    /// Rejects a function whose body ended with a value returned under staged
    /// control flow while some path runs off its end (where Python returns
    /// `None`): no staged value can stand for both.
    fn check_no_fall_off(&self, c: &Closure, frame: &Rc<Scope>) -> R<()> {
        use super::control_flow::{RETURNED, RETVAL};
        let returned = frame
            .get_here(RETVAL)
            .filter(|v| !matches!(v, Value::None | Value::Bottom));
        let (Some(Value::Tensor(_)), Some(_), Some(last)) =
            (frame.get_here(RETURNED), returned, c.body.last())
        else {
            return Ok(());
        };
        if self.facts.falls_off(c.body) != Some(true) {
            return Ok(());
        }
        let (line, _) = self.file.line_col(self.last_return.start);
        Err(Diagnostic::error(
            crate::parse::span_of(last),
            format!(
                "'{}' returns a value on some paths (line {line}) but runs off its end after this statement on others, where Python returns None; return a value on every path",
                c.name
            ),
        ))
    }

    /// A function's result when some `return` ran under staged control flow:
    /// the returned value where the flag is set, the fall-through value elsewhere.
    fn merge_staged_return(
        &mut self,
        frame: &Rc<Scope>,
        fallthrough: Value,
        span: agc_ir::Span,
    ) -> R<Value> {
        use super::control_flow::{RETURNED, RETVAL};
        match (frame.get_here(RETURNED), frame.get_here(RETVAL)) {
            (Some(Value::Tensor(flag)), Some(ret)) => {
                if matches!(fallthrough, Value::None) {
                    // Every path that reaches the end returned under the flag.
                    return Ok(ret);
                }
                self.select_value(&flag, &ret, &fallthrough, span)
            }
            (Some(Value::Bool(true)), Some(ret)) => Ok(ret),
            _ => Ok(fallthrough),
        }
    }

    /// Elementwise choice between two values of the same structure.
    fn select_value(
        &mut self,
        flag: &super::value::Tensor,
        a: &Value,
        b: &Value,
        span: agc_ir::Span,
    ) -> R<Value> {
        match (a, b) {
            (Value::Tuple(x), Value::Tuple(y)) if x.len() == y.len() => {
                let items = x
                    .iter()
                    .zip(y.iter())
                    .map(|(p, q)| self.select_value(flag, p, q, span))
                    .collect::<R<_>>()?;
                Ok(Value::tuple(items))
            }
            _ => {
                let what = "the value returned under staged control flow";
                match super::merge::plan(a, b, what, span)? {
                    super::merge::Plan::Static(v) => Ok(v),
                    _ => self.select(&Value::Tensor(flag.clone()), a, b, span),
                }
            }
        }
    }
}

fn is_nonlocal(c: &Closure, name: &str) -> bool {
    let mut found = false;
    agc_analysis::py::walk::all_stmts(c.body, false, &mut |s| {
        if let rustpython_parser::ast::Stmt::Nonlocal(n) = s {
            found |= n.names.iter().any(|x| x.as_str() == name);
        }
    });
    found
}

/// The arguments of a call of `c` as Python binds them, in a canonical
/// form: every positional parameter's value by position (defaults filled
/// in), then what `*args` takes; every keyword-only parameter's value by
/// keyword, then what `**kwargs` takes. Calls that bind the same values
/// normalise to the same form (a staged recursive call is keyed by it).
pub fn normalise_arguments(c: &Closure, args: Args) -> R<Args> {
    let span = args.span;
    let resolved = resolve_arguments(c, args)?;
    let mut values = resolved.values;
    let mut pos: Vec<Value> = positional_names(c)
        .iter()
        .filter_map(|n| values.remove(*n))
        .collect();
    pos.extend(resolved.extra_pos);
    let mut kw: Vec<(String, Value)> = c
        .args
        .kwonlyargs
        .iter()
        .filter_map(|a| values.remove_entry(a.def.arg.as_str()))
        .collect();
    kw.extend(resolved.extra_kw);
    Ok(Args { pos, kw, span })
}

/// The names of `c`'s positional parameters, in order.
fn positional_names(c: &Closure) -> Vec<&str> {
    c.args
        .posonlyargs
        .iter()
        .chain(&c.args.args)
        .map(|a| a.def.arg.as_str())
        .collect()
}

/// What a call binds to `c`'s named parameters, and the positional and
/// keyword arguments left for `*args` and `**kwargs`.
struct Resolved {
    values: HashMap<String, Value>,
    extra_pos: Vec<Value>,
    extra_kw: Vec<(String, Value)>,
}

/// Python's argument binding: positional, keywords, defaults, `*args`, `**kwargs`.
fn bind_arguments(c: &Closure, args: Args, frame: &Rc<Scope>) -> R<()> {
    let span = args.span;
    let Resolved {
        values: mut bound,
        extra_pos,
        extra_kw,
    } = resolve_arguments(c, args)?;
    let positional = positional_names(c);
    match &c.args.vararg {
        Some(va) => {
            bound.insert(va.arg.to_string(), Value::tuple(extra_pos));
        }
        None if !extra_pos.is_empty() => {
            return Err(Diagnostic::error(
                span,
                format!(
                    "{}() takes {} positional arguments but {} were given",
                    c.name,
                    positional.len(),
                    positional.len() + extra_pos.len()
                ),
            ))
        }
        None => {}
    }
    match &c.args.kwarg {
        Some(ka) => {
            let items = extra_kw
                .into_iter()
                .map(|(k, v)| (Value::str(&k), v))
                .collect();
            bound.insert(
                ka.arg.to_string(),
                Value::Dict(Rc::new(RefCell::new(items))),
            );
        }
        None => {
            if let Some((k, _)) = extra_kw.first() {
                return Err(Diagnostic::error(
                    span,
                    format!("{}() got an unexpected keyword argument '{k}'", c.name),
                ));
            }
        }
    }
    for (k, v) in bound {
        frame.set(&k, v);
    }
    Ok(())
}

/// Binds the named parameters of `c` (positional, keywords, defaults); the
/// rest goes to `*args` and `**kwargs`.
fn resolve_arguments(c: &Closure, args: Args) -> R<Resolved> {
    let span = args.span;
    let positional = positional_names(c);
    let mut bound: HashMap<String, Value> = HashMap::new();
    let mut extra_pos = Vec::new();
    for (i, v) in args.pos.into_iter().enumerate() {
        match positional.get(i) {
            Some(name) => {
                bound.insert(name.to_string(), v);
            }
            None => extra_pos.push(v),
        }
    }
    let mut extra_kw = Vec::new();
    let kwonly: Vec<&str> = c
        .args
        .kwonlyargs
        .iter()
        .map(|a| a.def.arg.as_str())
        .collect();
    let posonly = c.args.posonlyargs.len();
    for (k, v) in args.kw {
        let is_param =
            positional.iter().skip(posonly).any(|p| *p == k) || kwonly.contains(&k.as_str());
        if is_param {
            if bound.contains_key(&k) {
                return Err(Diagnostic::error(
                    span,
                    format!("{}() got multiple values for argument '{k}'", c.name),
                ));
            }
            bound.insert(k, v);
        } else {
            extra_kw.push((k, v));
        }
    }
    // Defaults align with the end of the positional parameters.
    let first_default = positional.len() - c.defaults.len();
    for (i, name) in positional.iter().enumerate() {
        if !bound.contains_key(*name) {
            if i >= first_default {
                bound.insert(name.to_string(), c.defaults[i - first_default].clone());
            } else {
                return Err(Diagnostic::error(
                    span,
                    format!("{}() missing required positional argument '{name}'", c.name),
                ));
            }
        }
    }
    for name in &kwonly {
        if !bound.contains_key(*name) {
            match c.kw_defaults.get(*name) {
                Some(d) => {
                    bound.insert(name.to_string(), d.clone());
                }
                None => {
                    return Err(Diagnostic::error(
                        span,
                        format!("{}() missing required keyword argument '{name}'", c.name),
                    ))
                }
            }
        }
    }
    Ok(Resolved {
        values: bound,
        extra_pos,
        extra_kw,
    })
}
