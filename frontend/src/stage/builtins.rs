//! Python builtins (`len`, `range`, `zip`, ...), the methods of lists, dicts
//! and strings, `math`, and `agc.export`; numpy calls go to [`super::numpy`].

use super::args::Args;
use super::limits;
use super::pyint;
use super::pyops;
use super::value::{StagedRows, Value};
use super::{ExportRequest, Stager, R};
use crate::diagnostics::Diagnostic;
use std::rc::Rc;

/// The Python builtins agc knows.
pub const BUILTINS: &[&str] = &[
    "len",
    "iter",
    "next",
    "slice",
    "range",
    "zip",
    "enumerate",
    "list",
    "tuple",
    "dict",
    "int",
    "float",
    "bool",
    "str",
    "abs",
    "min",
    "max",
    "sum",
    "isinstance",
    "print",
    "reversed",
    "sorted",
    "map",
    "filter",
    "any",
    "all",
    "round",
    "pow",
    "divmod",
    "hasattr",
    "getattr",
    "setattr",
    "callable",
    "repr",
    "object",
    "super",
    "property",
    "staticmethod",
    "classmethod",
    "ValueError",
    "TypeError",
    "RuntimeError",
    "NotImplementedError",
    "AssertionError",
    "Exception",
    "IndexError",
    "KeyError",
];

/// The builtin bound to `name`, if any.
pub fn builtin(name: &str) -> Option<Value> {
    if name == "Ellipsis" {
        return Some(Value::Ellipsis);
    }
    BUILTINS
        .contains(&name)
        .then(|| Value::Builtin(Rc::from(name), None))
}

fn int_arg(v: &Value, span: agc_ir::Span, what: &str) -> R<i64> {
    v.as_int().ok_or_else(|| {
        if v.is_staged() {
            Diagnostic::unsupported(
                span,
                format!("{what} with a run-time value is not supported yet"),
            )
        } else {
            Diagnostic::error(
                span,
                format!(
                    "'{}' object cannot be interpreted as an integer",
                    v.type_name()
                ),
            )
        }
    })
}

impl Stager {
    /// Calls the builtin or library function `name` (with receiver `recv` for methods).
    pub fn call_builtin(&mut self, name: &str, recv: Option<&Value>, args: Args) -> R<Value> {
        let span = args.span;
        match (name, recv) {
            ("agc.Variable", _) => return self.make_variable(&args),
            ("agc.Variable.assign", Some(Value::Variable(k))) => {
                return self.assign_variable(*k, &args)
            }
            _ => {}
        }
        // Array functions read variables' values, also in lists; Python's
        // builtins read a variable passed directly; list and dict methods
        // keep the object.
        let args = if ["np.", "tensor.", "math.", "agc."]
            .iter()
            .any(|p| name.starts_with(p))
        {
            self.read_variables_in(args, true)
        } else if name.starts_with("list.") || name.starts_with("dict.") {
            args
        } else {
            self.read_variables_in(args, false)
        };
        let absorbs = !name.starts_with("list.") && !name.starts_with("dict.");
        if absorbs
            && (recv.is_some_and(Value::has_bottom)
                || args
                    .pos
                    .iter()
                    .chain(args.kw.iter().map(|(_, v)| v))
                    .any(Value::has_bottom))
        {
            return Ok(Value::Bottom);
        }
        if name.starts_with("np.") || name.starts_with("tensor.") {
            return self.call_numpy(name, recv, args);
        }
        match name.split_once('.') {
            Some(("operator", f)) => return self.call_operator(f, recv, args),
            Some(("functools", f)) => return self.call_functools(f, recv, args),
            Some(("collections", f)) => return self.call_collections(f, recv, args),
            _ => {}
        }
        if let Some(r) = recv {
            return self.call_method(name, r, args);
        }
        if let Some(f) = name.strip_prefix("math.") {
            return math(f, &args);
        }
        let a = &args.pos;
        let arg0 = || {
            a.first().cloned().ok_or_else(|| {
                Diagnostic::error(span, format!("{name}() takes at least one argument"))
            })
        };
        match name {
            "agc.export" => self.export(args),
            "agc.grad" => self.make_grad(&args, false),
            "agc.value_and_grad" => self.make_grad(&args, true),
            "agc.weights" => self.load_weights(&args),
            "agc.export_with" => Err(Diagnostic::internal(span, "export_with needs a receiver")),
            "iter" => self.iter_builtin(&args),
            "slice" => {
                let (start, stop, step) = match a.as_slice() {
                    [stop] => (Value::None, stop.clone(), Value::None),
                    [start, stop] => (start.clone(), stop.clone(), Value::None),
                    [start, stop, step] => (start.clone(), stop.clone(), step.clone()),
                    _ => return Err(Diagnostic::error(span, "slice expected 1 to 3 arguments")),
                };
                Ok(Value::Slice(Rc::new(super::value::SliceValue { start, stop, step })))
            }
            "next" => self.next_builtin(&args),
            "len" => {
                let v = arg0()?;
                match &v {
                    Value::TensorList(l) => Ok(Value::Tensor(l.borrow().1.clone().into_weak())),
                    Value::Tensor(t) => match t.ty.dims.first() {
                        Some(d) => Ok(super::methods::dim_value(d)),
                        None => Err(Diagnostic::error(span, "len() of unsized object (a 0-d array)")),
                    },
                    Value::Instance(_) => {
                        let m = self.get_attr(&v, "__len__", span)?;
                        self.call(&m, Args::positional(vec![], span))
                    }
                    Value::Iterator(_) => Err(Diagnostic::error(span, "object of type 'iterator' has no len()")),
                    other => Ok(Value::Int(pyops::iterate(other, span)?.len() as i64)),
                }
            }
            "range" if a.iter().any(Value::is_staged) => {
                let (start, stop, step) = match a.as_slice() {
                    [n] => (Value::Int(0), n.clone(), Value::Int(1)),
                    [s, e] => (s.clone(), e.clone(), Value::Int(1)),
                    [s, e, st] => (s.clone(), e.clone(), st.clone()),
                    _ => return Err(Diagnostic::error(span, "range expected 1 to 3 integer arguments")),
                };
                let step = match step.as_int() {
                    Some(0) => return Err(Diagnostic::error(span, "range() arg 3 must not be zero")),
                    Some(s) => s,
                    None => return Err(Diagnostic::unsupported(span, "a staged range needs a compile-time step")),
                };
                for b in [&start, &stop] {
                    if let Value::Tensor(t) = b {
                        if t.ty.rank() != 0 || !t.ty.dtype.is_int() {
                            return Err(Diagnostic::error(span, format!("range() bounds must be integers, got a tensor {}", t.ty)));
                        }
                    }
                }
                Ok(Value::StagedRange(Rc::new((start, stop, step))))
            }
            "range" => {
                let ints: Vec<i64> = a.iter().map(|v| int_arg(v, span, "range()")).collect::<R<_>>()?;
                let (start, stop, step) = match ints.as_slice() {
                    [n] => (0, *n, 1),
                    [s, e] => (*s, *e, 1),
                    [s, e, st] => (*s, *e, *st),
                    _ => return Err(Diagnostic::error(span, "range expected 1 to 3 integer arguments")),
                };
                if step == 0 {
                    return Err(Diagnostic::error(span, "range() arg 3 must not be zero"));
                }
                // The number of items, computed without overflow (i128).
                let (s0, e0, st) = (i128::from(start), i128::from(stop), i128::from(step));
                let n = if step > 0 { (e0 - s0 + st - 1).div_euclid(st) } else { (s0 - e0 - st - 1).div_euclid(-st) };
                let n = limits::check_items("range", usize::try_from(n.max(0)).ok(), span)?;
                Ok(Value::tuple((0..n as i128).map(|k| Value::Int((s0 + k * st) as i64)).collect()))
            }
            "zip" if a.iter().any(|v| matches!(v, Value::Tensor(t) if matches!(t.ty.dims.first(), Some(agc_ir::Dim::Sym(_))))) => {
                let ts = a
                    .iter()
                    .map(|v| match v {
                        Value::Tensor(t) if t.ty.rank() > 0 => Ok(t.clone()),
                        other => Err(Diagnostic::unsupported(span, format!("zip() of a run-time sized tensor with a {}", other.type_name()))),
                    })
                    .collect::<R<Vec<_>>>()?;
                if ts.iter().any(|t| t.ty.dims[0] != ts[0].ty.dims[0]) {
                    return Err(Diagnostic::unsupported(span, "zip() over tensors of different run-time lengths is not supported"));
                }
                Ok(Value::StagedIter(Rc::new(StagedRows { tensors: ts, zipped: true, enumerate_from: None })))
            }
            "enumerate" if matches!(a.first(), Some(Value::Tensor(t)) if matches!(t.ty.dims.first(), Some(agc_ir::Dim::Sym(_))))
                || matches!(a.first(), Some(Value::StagedIter(it)) if it.enumerate_from.is_none()) =>
            {
                let start = args.get_some(1, "start").and_then(|v| v.as_int()).unwrap_or(0);
                let rows = match a.first() {
                    Some(Value::StagedIter(it)) => StagedRows { enumerate_from: Some(start), ..it.as_ref().clone() },
                    Some(Value::Tensor(t)) => StagedRows { tensors: vec![t.clone()], zipped: false, enumerate_from: Some(start) },
                    _ => unreachable!("matched above"),
                };
                Ok(Value::StagedIter(Rc::new(rows)))
            }
            "reversed" if matches!(a.first(), Some(Value::StagedRange(_))) => {
                let Some(Value::StagedRange(r)) = a.first() else { unreachable!("matched above") };
                let (start, stop, step) = r.as_ref();
                // reversed(range(s, e, k)): from the last item down to s.
                let n = self.range_len(start, stop, *step, span)?;
                let last = self.binop(rustpython_parser::ast::Operator::Sub, &n, &Value::Int(1), span)?;
                let last = self.binop(rustpython_parser::ast::Operator::Mult, &last, &Value::Int(*step), span)?;
                let first = self.binop(rustpython_parser::ast::Operator::Add, start, &last, span)?;
                let end = self.binop(rustpython_parser::ast::Operator::Sub, start, &Value::Int(*step), span)?;
                Ok(Value::StagedRange(Rc::new((first, end, -step))))
            }
            "zip" => {
                let seqs: Vec<Vec<Value>> = a.iter().map(|v| self.iter_values(v, span)).collect::<R<_>>()?;
                let n = seqs.iter().map(|s| s.len()).min().unwrap_or(0);
                Ok(self.iterator_over((0..n).map(|i| Value::tuple(seqs.iter().map(|s| s[i].clone()).collect())).collect()))
            }
            "enumerate" => {
                let items = self.iter_values(&arg0()?, span)?;
                let start = args.get_some(1, "start").and_then(|v| v.as_int()).unwrap_or(0);
                Ok(self.iterator_over(
                    items.into_iter().enumerate().map(|(i, v)| Value::tuple(vec![Value::Int(start + i as i64), v])).collect(),
                ))
            }
            "list" => Ok(Value::list(match a.first() {
                Some(v) => self.iter_values(v, span)?,
                None => vec![],
            })),
            "tuple" => Ok(Value::tuple(match a.first() {
                Some(v) => self.iter_values(v, span)?,
                None => vec![],
            })),
            "dict" => {
                let mut items = Vec::new();
                if let Some(v) = a.first() {
                    match v {
                        Value::Dict(d) => items = d.borrow().clone(),
                        other => {
                            for pair in self.iter_values(other, span)? {
                                let kv = pyops::iterate(&pair, span)?;
                                if kv.len() != 2 {
                                    return Err(Diagnostic::error(span, "dictionary update sequence element has wrong length"));
                                }
                                super::expr::dict_insert(&mut items, kv[0].clone(), kv[1].clone());
                            }
                        }
                    }
                }
                for (k, v) in &args.kw {
                    super::expr::dict_insert(&mut items, Value::str(k), v.clone());
                }
                Ok(Value::Dict(Rc::new(std::cell::RefCell::new(items))))
            }
            "int" | "float" | "bool" => {
                let v = a.first().cloned().unwrap_or(Value::Int(0));
                if v.is_staged() {
                    return self.staged_scalar(name, &v, span);
                }
                convert_scalar(name, &v, span)
            }
            "str" | "repr" => Ok(Value::str(&match (name, a.first()) {
                ("str", Some(v)) => pyops::py_str(v),
                (_, Some(v)) => pyops::py_repr(v),
                _ => String::new(),
            })),
            "abs" => {
                let v = arg0()?;
                match v {
                    Value::Int(i) => Ok(Value::Int(pyint::abs(i, span)?)),
                    Value::Float(f) => Ok(Value::Float(f.abs())),
                    Value::Bool(b) => Ok(Value::Int(b as i64)),
                    // A staged Python number stays one (weak), as CPython's abs of an int.
                    Value::Tensor(t) if t.weak => match self.unary(agc_ir::UnaryOp::Abs, &Value::Tensor(t), span)? {
                        Value::Tensor(r) => Ok(Value::Tensor(r.into_weak())),
                        other => Ok(other),
                    },
                    other => self.unary(agc_ir::UnaryOp::Abs, &other, span),
                }
            }
            "min" | "max" => {
                let items = if a.len() == 1 { self.iter_values(&a[0], span)? } else { a.clone() };
                let key = args.kw.iter().find(|(k, _)| k == "key").map(|(_, v)| v.clone());
                let mut best: Option<(Value, Value)> = None;
                for it in items.clone() {
                    let k = match &key {
                        Some(f) => self.call(f, Args::positional(vec![it.clone()], span))?,
                        None => it.clone(),
                    };
                    if k.is_staged() {
                        if key.is_none() {
                            return self.staged_extremum(name, &items, span);
                        }
                        return Err(Diagnostic::error(span, format!("{name}() with a key of staged values: use np.maximum/np.minimum or np.{name}")));
                    }
                    let better = match &best {
                        None => true,
                        Some((bk, _)) => {
                            let op = if name == "min" { rustpython_parser::ast::CmpOp::Lt } else { rustpython_parser::ast::CmpOp::Gt };
                            pyops::compare(op, &k, bk, span)?.unwrap_or(false)
                        }
                    };
                    if better {
                        best = Some((k, it));
                    }
                }
                best.map(|(_, v)| v).ok_or_else(|| Diagnostic::raises(span, "ValueError", format!("{name}() arg is an empty sequence")))
            }
            "sum" => {
                let items = self.iter_values(&arg0()?, span)?;
                let mut acc = args.get(1, "start").unwrap_or(Value::Int(0));
                for it in items {
                    acc = self.binop(rustpython_parser::ast::Operator::Add, &acc, &it, span)?;
                }
                Ok(acc)
            }
            "any" | "all" => {
                let items = self.iter_values(&arg0()?, span)?;
                let mut result = name == "all";
                for it in items {
                    let t = pyops::truthy(&it).ok_or_else(|| {
                        Diagnostic::error(span, format!("{name}() over staged values: use np.{name}"))
                    })?;
                    if t != result {
                        result = t;
                        break;
                    }
                }
                Ok(Value::Bool(result))
            }
            "isinstance" => {
                let (v, t) = (arg0()?, args.req(1, "classinfo", "isinstance")?);
                let classes = match &t {
                    Value::Tuple(ts) => ts.as_ref().clone(),
                    other => vec![other.clone()],
                };
                Ok(Value::Bool(classes.iter().any(|c| is_instance(&v, c))))
            }
            "print" => {
                if a.iter().any(Value::is_staged) {
                    return Err(Diagnostic::unsupported(
                        span,
                        "print() of a staged tensor: a deployed library does no host I/O; return the value instead",
                    ));
                }
                Ok(Value::None)
            }
            "reversed" => {
                let mut items = self.iter_values(&arg0()?, span)?;
                items.reverse();
                Ok(self.iterator_over(items))
            }
            "sorted" => {
                let mut items = self.iter_values(&arg0()?, span)?;
                let mut err = None;
                items.sort_by(|x, y| match pyops::compare(rustpython_parser::ast::CmpOp::Lt, x, y, span) {
                    Ok(Some(true)) => std::cmp::Ordering::Less,
                    Ok(_) => std::cmp::Ordering::Greater,
                    Err(e) => {
                        err = Some(e);
                        std::cmp::Ordering::Equal
                    }
                });
                if args.get(1, "reverse").as_ref().and_then(pyops::truthy) == Some(true) {
                    items.reverse();
                }
                err.map_or(Ok(Value::list(items)), Err)
            }
            "map" => {
                let f = arg0()?;
                let seqs: Vec<Vec<Value>> = a[1..].iter().map(|v| self.iter_values(v, span)).collect::<R<_>>()?;
                let n = seqs.iter().map(|s| s.len()).min().unwrap_or(0);
                let mut out = Vec::new();
                for i in 0..n {
                    out.push(self.call(&f, Args::positional(seqs.iter().map(|s| s[i].clone()).collect(), span))?);
                }
                Ok(self.iterator_over(out))
            }
            "filter" => {
                let f = arg0()?;
                let mut out = Vec::new();
                for it in self.iter_values(&args.req(1, "iterable", "filter")?, span)? {
                    let keep = match &f {
                        Value::None => pyops::truthy(&it),
                        _ => pyops::truthy(&self.call(&f, Args::positional(vec![it.clone()], span))?),
                    };
                    if keep.ok_or_else(|| Diagnostic::error(span, "filter() on staged values is not supported"))? {
                        out.push(it);
                    }
                }
                Ok(self.iterator_over(out))
            }
            "round" => {
                let v = arg0()?;
                let x = v.as_f64().ok_or_else(|| Diagnostic::error(span, "round() of a staged value: use np.round"))?;
                match (args.get_some(1, "ndigits").and_then(|d| d.as_int()), &v) {
                    // round() of an int is that int (for ndigits >= 0).
                    (None, Value::Int(_) | Value::Bool(_)) => Ok(Value::Int(v.as_int().unwrap_or(0))),
                    (Some(d), Value::Int(_) | Value::Bool(_)) if d >= 0 => Ok(Value::Int(v.as_int().unwrap_or(0))),
                    (Some(d), _) => Ok(Value::Float((x * 10f64.powi(d as i32)).round_ties_even() / 10f64.powi(d as i32))),
                    (None, _) => Ok(Value::Int(pyint::from_integral_f64(x.round_ties_even(), span)?)),
                }
            }
            "pow" => self.binop(rustpython_parser::ast::Operator::Pow, &arg0()?, &args.req(1, "exp", "pow")?, span),
            "divmod" => {
                let (x, y) = (arg0()?, args.req(1, "y", "divmod")?);
                let q = self.binop(rustpython_parser::ast::Operator::FloorDiv, &x, &y, span)?;
                let r = self.binop(rustpython_parser::ast::Operator::Mod, &x, &y, span)?;
                Ok(Value::tuple(vec![q, r]))
            }
            "hasattr" => {
                let (v, n) = (arg0()?, args.req(1, "name", "hasattr")?);
                Ok(Value::Bool(self.get_attr(&v, &pyops::py_str(&n), span).is_ok()))
            }
            "getattr" => {
                let (v, n) = (arg0()?, args.req(1, "name", "getattr")?);
                match (self.get_attr(&v, &pyops::py_str(&n), span), args.get(2, "default")) {
                    (Ok(x), _) => Ok(x),
                    (Err(_), Some(d)) => Ok(d),
                    (Err(e), None) => Err(e),
                }
            }
            "setattr" => {
                let (v, n, x) = (arg0()?, args.req(1, "name", "setattr")?, args.req(2, "value", "setattr")?);
                match v {
                    Value::Instance(i) => {
                        i.attrs.borrow_mut().insert(pyops::py_str(&n), x);
                        Ok(Value::None)
                    }
                    other => Err(Diagnostic::error(span, format!("cannot set attributes on '{}'", other.type_name()))),
                }
            }
            "callable" => Ok(Value::Bool(matches!(
                arg0()?,
                Value::Function(_) | Value::BoundMethod(_) | Value::Builtin(..) | Value::Class(_)
            ))),
            "object" => Ok(Value::None),
            "property" | "staticmethod" | "classmethod" => Ok(Value::Builtin(Rc::from(name), Some(Box::new(arg0()?)))),
            "super" => Err(Diagnostic::unsupported(span, "super() is not supported; call the base class method directly (Base.__init__(self, ...))")),
            exc => Ok(Value::str(&format!(
                "{exc}: {}",
                a.iter().map(pyops::py_str).collect::<Vec<_>>().join(", ")
            ))),
        }
    }

    /// `len(range(start, stop, step))` on possibly staged bounds.
    pub fn range_len(
        &mut self,
        start: &Value,
        stop: &Value,
        step: i64,
        span: agc_ir::Span,
    ) -> R<Value> {
        use rustpython_parser::ast::Operator;
        // ceil((stop - start) / step), at least 0: (stop - start + step - sign) // step.
        let diff = self.binop(Operator::Sub, stop, start, span)?;
        let adj = self.binop(
            Operator::Add,
            &diff,
            &Value::Int(step - step.signum()),
            span,
        )?;
        let n = self.binop(Operator::FloorDiv, &adj, &Value::Int(step), span)?;
        self.call_numpy(
            "np.maximum",
            None,
            Args::positional(vec![n, Value::Int(0)], span),
        )
    }

    fn call_method(&mut self, name: &str, recv: &Value, args: Args) -> R<Value> {
        let span = args.span;
        let a = &args.pos;
        match (name, recv) {
            ("agc.export_with", Value::Dict(kw)) => {
                let f = a.first().cloned().ok_or_else(|| {
                    Diagnostic::error(span, "agc.export(...) must decorate a function")
                })?;
                let kwargs: Vec<(String, Value)> = kw
                    .borrow()
                    .iter()
                    .map(|(k, v)| (pyops::py_str(k), v.clone()))
                    .collect();
                self.register_export(f, kwargs, span)
            }
            ("agc.grad_fn", spec) => self.call_grad(spec, args),
            ("list.append", Value::TensorList(l)) => {
                self.tensor_list_append(l, &args.req(0, "object", "append")?, span)?;
                Ok(Value::None)
            }
            ("list.append", Value::List(l)) => {
                let item = args.req(0, "object", "append")?;
                item.check_acyclic_in(recv, span)?;
                l.borrow_mut().push(item);
                Ok(Value::None)
            }
            ("list.extend", Value::List(l)) => {
                let items = self.iter_values(&args.req(0, "iterable", "extend")?, span)?;
                l.borrow_mut().extend(items);
                Ok(Value::None)
            }
            ("list.insert", Value::List(l)) => {
                let i = int_arg(&args.req(0, "index", "insert")?, span, "insert")?;
                let n = l.borrow().len() as i64;
                let j = if i < 0 { (i + n).max(0) } else { i.min(n) };
                let item = args.req(1, "object", "insert")?;
                item.check_acyclic_in(recv, span)?;
                l.borrow_mut().insert(j as usize, item);
                Ok(Value::None)
            }
            ("list.pop", Value::List(l)) => {
                let n = l.borrow().len() as i64;
                let i = args.get(0, "index").and_then(|v| v.as_int()).unwrap_or(-1);
                let j = if i < 0 { i + n } else { i };
                if j < 0 || j >= n {
                    return Err(Diagnostic::raises(
                        span,
                        "IndexError",
                        "pop index out of range",
                    ));
                }
                Ok(l.borrow_mut().remove(j as usize))
            }
            ("list.reverse", Value::List(l)) => {
                l.borrow_mut().reverse();
                Ok(Value::None)
            }
            ("list.copy", Value::List(l)) => Ok(Value::list(l.borrow().clone())),
            ("list.index", seq) => {
                let x = args.req(0, "value", "index")?;
                let items = pyops::iterate(seq, span)?;
                items
                    .iter()
                    .position(|v| pyops::py_eq(v, &x))
                    .map(|i| Value::Int(i as i64))
                    .ok_or_else(|| {
                        Diagnostic::raises(span, "ValueError", "list.index(x): x not in list")
                    })
            }
            ("list.count", seq) => {
                let x = args.req(0, "value", "count")?;
                Ok(Value::Int(
                    pyops::iterate(seq, span)?
                        .iter()
                        .filter(|v| pyops::py_eq(v, &x))
                        .count() as i64,
                ))
            }
            ("dict.get", Value::Dict(d)) => {
                let k = args.req(0, "key", "get")?;
                let found = d
                    .borrow()
                    .iter()
                    .find(|(x, _)| pyops::py_eq(x, &k))
                    .map(|(_, v)| v.clone());
                Ok(found.unwrap_or_else(|| args.get(1, "default").unwrap_or(Value::None)))
            }
            ("dict.keys", Value::Dict(d)) => Ok(Value::list(
                d.borrow().iter().map(|(k, _)| k.clone()).collect(),
            )),
            ("dict.values", Value::Dict(d)) => Ok(Value::list(
                d.borrow().iter().map(|(_, v)| v.clone()).collect(),
            )),
            ("dict.items", Value::Dict(d)) => Ok(Value::list(
                d.borrow()
                    .iter()
                    .map(|(k, v)| Value::tuple(vec![k.clone(), v.clone()]))
                    .collect(),
            )),
            ("dict.copy", Value::Dict(d)) => Ok(Value::Dict(Rc::new(std::cell::RefCell::new(
                d.borrow().clone(),
            )))),
            ("dict.update", Value::Dict(d)) => {
                if let Some(Value::Dict(other)) = a.first() {
                    let items = other.borrow().clone();
                    for (k, v) in items {
                        v.check_acyclic_in(recv, span)?;
                        super::expr::dict_insert(&mut d.borrow_mut(), k, v);
                    }
                }
                for (k, v) in &args.kw {
                    v.check_acyclic_in(recv, span)?;
                    super::expr::dict_insert(&mut d.borrow_mut(), Value::str(k), v.clone());
                }
                Ok(Value::None)
            }
            ("dict.pop", Value::Dict(d)) => {
                let k = args.req(0, "key", "pop")?;
                let pos = d.borrow().iter().position(|(x, _)| pyops::py_eq(x, &k));
                match (pos, args.get(1, "default")) {
                    (Some(i), _) => Ok(d.borrow_mut().remove(i).1),
                    (None, Some(def)) => Ok(def),
                    (None, None) => Err(Diagnostic::raises(span, "KeyError", pyops::py_repr(&k))),
                }
            }
            ("dict.setdefault", Value::Dict(d)) => {
                let k = args.req(0, "key", "setdefault")?;
                let found = d
                    .borrow()
                    .iter()
                    .find(|(x, _)| pyops::py_eq(x, &k))
                    .map(|(_, v)| v.clone());
                match found {
                    Some(v) => Ok(v),
                    None => {
                        let v = args.get(1, "default").unwrap_or(Value::None);
                        v.check_acyclic_in(recv, span)?;
                        d.borrow_mut().push((k, v.clone()));
                        Ok(v)
                    }
                }
            }
            (m, Value::Str(s)) => string_method(m, s, &args),
            _ => Err(Diagnostic::internal(
                span,
                format!("no method {name} for '{}'", recv.type_name()),
            )),
        }
    }

    /// `agc.export` applied to a function (bare) or to keywords (returns a decorator).
    fn export(&mut self, args: Args) -> R<Value> {
        let span = args.span;
        match args.pos.as_slice() {
            [f] if args.kw.is_empty() => self.register_export(f.clone(), Vec::new(), span),
            [] => {
                let items = args
                    .kw
                    .iter()
                    .map(|(k, v)| (Value::str(k), v.clone()))
                    .collect();
                Ok(Value::Builtin(
                    Rc::from("agc.export_with"),
                    Some(Box::new(Value::Dict(Rc::new(std::cell::RefCell::new(
                        items,
                    ))))),
                ))
            }
            _ => Err(Diagnostic::error(
                span,
                "use @agc.export or @agc.export(name=..., **compile_time_kwargs)",
            )),
        }
    }

    fn register_export(
        &mut self,
        f: Value,
        mut kwargs: Vec<(String, Value)>,
        span: agc_ir::Span,
    ) -> R<Value> {
        let Value::Function(c) = &f else {
            return Err(Diagnostic::error(
                span,
                "@agc.export must decorate a function",
            ));
        };
        let name = match kwargs.iter().position(|(k, _)| k == "name") {
            Some(i) => pyops::py_str(&kwargs.remove(i).1),
            None => c.name.clone(),
        };
        if name.is_empty()
            || !name
                .chars()
                .all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
            || name.starts_with(|ch: char| ch.is_ascii_digit())
        {
            return Err(Diagnostic::error(
                span,
                format!("export name '{name}' is not a valid C identifier"),
            ));
        }
        if self.exports.iter().any(|e| e.name == name) {
            return Err(Diagnostic::error(
                span,
                format!("two exports are named '{name}'"),
            ));
        }
        if agc_ir::Export::RESERVED_NAMES.contains(&name.as_str()) || name.starts_with("__") {
            return Err(Diagnostic::error(
                span,
                format!("export name '{name}' is reserved by agc (the library's own C functions): export the function under another name (@agc.export(name=...))"),
            ));
        }
        if let Some(why) = self
            .exports
            .iter()
            .find_map(|e| agc_ir::Export::names_collide(&e.name, &name))
        {
            return Err(Diagnostic::error(
                span,
                format!("{why}: export one of them under another name (@agc.export(name=...))"),
            ));
        }
        self.exports.push(ExportRequest {
            name,
            func: c.clone(),
            static_kwargs: kwargs,
            span,
        });
        Ok(f)
    }
}

impl Stager {
    /// `int(x)`, `float(x)`, `bool(x)` of a staged one-element value: a
    /// staged Python number (a weak rank-0 `i64`/`f64`/`bool`; `int`
    /// truncates toward zero, as Python does).
    fn staged_scalar(&mut self, name: &str, v: &Value, span: agc_ir::Span) -> R<Value> {
        let t = self.to_tensor(v, None, span)?;
        if t.ty.rank() != 0 {
            return Err(Diagnostic::error(span, format!("{name}() of an array of shape {}: only 0-d arrays can be converted to Python scalars", t.ty.shape_string())));
        }
        let converted = match name {
            "bool" => self.truth_tensor(v, span)?,
            "int" => self.cast(&t, agc_ir::DType::I64, span)?,
            _ => self.cast(&t, agc_ir::DType::F64, span)?,
        };
        Ok(Value::Tensor(converted.into_weak()))
    }

    /// `max(a, b, ...)` / `min(...)` of numbers some of which are staged
    /// (rank-0): `np.maximum`/`np.minimum` folded over them.
    fn staged_extremum(&mut self, name: &str, items: &[Value], span: agc_ir::Span) -> R<Value> {
        let op = if name == "max" {
            agc_ir::BinaryOp::Max
        } else {
            agc_ir::BinaryOp::Min
        };
        let mut acc: Option<Value> = None;
        for it in items {
            if let Value::Tensor(t) = it {
                if t.ty.rank() != 0 {
                    return Err(Diagnostic::error(span, format!("{name}() of arrays: the truth value of an array is ambiguous; use np.{}imum", &name[..2])));
                }
            }
            acc = Some(match acc {
                None => it.clone(),
                Some(prev) => self.binary(op, &prev, it, span)?,
            });
        }
        acc.ok_or_else(|| {
            Diagnostic::raises(
                span,
                "ValueError",
                format!("{name}() arg is an empty sequence"),
            )
        })
    }
}

fn convert_scalar(name: &str, v: &Value, span: agc_ir::Span) -> R<Value> {
    Ok(match (name, v) {
        ("bool", v) => Value::Bool(pyops::truthy(v).unwrap_or(false)),
        ("int", Value::Str(s)) => Value::Int(
            s.trim()
                .parse()
                .map_err(|_| Diagnostic::error(span, "invalid literal for int()"))?,
        ),
        ("float", Value::Str(s)) => Value::Float(match s.trim().to_ascii_lowercase().as_str() {
            "inf" | "+inf" | "infinity" => f64::INFINITY,
            "-inf" | "-infinity" => f64::NEG_INFINITY,
            "nan" => f64::NAN,
            t => t
                .parse()
                .map_err(|_| Diagnostic::error(span, "could not convert string to float"))?,
        }),
        ("int", Value::Int(i)) => Value::Int(*i),
        ("int", other) => Value::Int(pyint::from_integral_f64(
            other
                .as_f64()
                .ok_or_else(|| Diagnostic::error(span, "int() argument must be a number"))?
                .trunc(),
            span,
        )?),
        (_, other) => Value::Float(
            other
                .as_f64()
                .ok_or_else(|| Diagnostic::error(span, "float() argument must be a number"))?,
        ),
    })
}

fn is_instance(v: &Value, class: &Value) -> bool {
    match class {
        Value::Class(c) => matches!(v, Value::Instance(i) if i.class.is_subclass_of(c)),
        Value::TupleClass(c) => matches!(v, Value::NamedTuple(k, _) if Rc::ptr_eq(c, k)),
        Value::Builtin(n, None) => matches!(
            (&**n, v),
            ("int", Value::Int(_) | Value::Bool(_))
                | ("float", Value::Float(_))
                | ("bool", Value::Bool(_))
                | ("str", Value::Str(_))
                | ("list", Value::List(_))
                | ("tuple", Value::Tuple(_) | Value::NamedTuple(..))
                | ("dict", Value::Dict(_))
        ),
        _ => false,
    }
}

fn math(f: &str, args: &Args) -> R<Value> {
    let span = args.span;
    let nums: Vec<f64> = args
        .pos
        .iter()
        .map(|v| {
            v.as_f64().ok_or_else(|| {
                Diagnostic::error(
                    span,
                    format!("math.{f}() needs compile-time numbers; use np.{f} on tensors"),
                )
            })
        })
        .collect::<R<_>>()?;
    let x = *nums
        .first()
        .ok_or_else(|| Diagnostic::error(span, format!("math.{f}() takes an argument")))?;
    let y = nums.get(1).copied().unwrap_or(0.0);
    Ok(match f {
        "floor" => Value::Int(pyint::from_integral_f64(x.floor(), span)?),
        "ceil" => Value::Int(pyint::from_integral_f64(x.ceil(), span)?),
        "isqrt" => Value::Int((x as i64 as f64).sqrt().floor() as i64),
        "gcd" => {
            let (mut a, mut b) = ((x as i64).abs(), (y as i64).abs());
            while b != 0 {
                (a, b) = (b, a % b);
            }
            Value::Int(a)
        }
        "prod" => {
            let items = pyops::iterate(&args.pos[0], span)?;
            let all_int = items
                .iter()
                .all(|v| matches!(v, Value::Int(_) | Value::Bool(_)));
            if all_int {
                Value::Int(items.iter().filter_map(Value::as_int).product())
            } else {
                Value::Float(items.iter().filter_map(Value::as_f64).product())
            }
        }
        "isclose" => Value::Bool((x - y).abs() <= 1e-9 * x.abs().max(y.abs())),
        _ => Value::Float(match f {
            "sqrt" => x.sqrt(),
            "exp" => x.exp(),
            "log" if nums.len() == 2 => x.ln() / y.ln(),
            "log" => x.ln(),
            "log2" => x.log2(),
            "log10" => x.log10(),
            "log1p" => x.ln_1p(),
            "expm1" => x.exp_m1(),
            "tanh" => x.tanh(),
            "sinh" => x.sinh(),
            "cosh" => x.cosh(),
            "sin" => x.sin(),
            "cos" => x.cos(),
            "tan" => x.tan(),
            "asin" => x.asin(),
            "acos" => x.acos(),
            "atan" => x.atan(),
            "atan2" => x.atan2(y),
            "hypot" => x.hypot(y),
            "fabs" => x.abs(),
            "pow" => x.powf(y),
            "erf" => erf(x),
            _ => {
                return Err(Diagnostic::unsupported(
                    span,
                    format!("math.{f} is not supported"),
                ))
            }
        }),
    })
}

/// `math.erf` by its Taylor series (exact to double precision for |x| <= 6, ±1 beyond).
fn erf(x: f64) -> f64 {
    if x.abs() > 6.0 {
        return x.signum();
    }
    let mut sum = x;
    let mut term = x;
    let mut n = 0.0;
    while term.abs() > 1e-17 * sum.abs() {
        n += 1.0;
        term *= -x * x / n;
        sum += term / (2.0 * n + 1.0);
        if n > 200.0 {
            break;
        }
    }
    sum * 2.0 / std::f64::consts::PI.sqrt()
}

fn string_method(m: &str, s: &str, args: &Args) -> R<Value> {
    let span = args.span;
    let arg = |i: usize| args.pos.get(i).map(pyops::py_str).unwrap_or_default();
    Ok(match m {
        "str.upper" => Value::str(&s.to_uppercase()),
        "str.lower" => Value::str(&s.to_lowercase()),
        "str.strip" => Value::str(s.trim()),
        "str.startswith" => Value::Bool(s.starts_with(&arg(0))),
        "str.endswith" => Value::Bool(s.ends_with(&arg(0))),
        "str.replace" => Value::str(&s.replace(&arg(0), &arg(1))),
        "str.split" => Value::list(match args.pos.first() {
            Some(sep) => s.split(&pyops::py_str(sep)).map(Value::str).collect(),
            None => s.split_whitespace().map(Value::str).collect(),
        }),
        "str.join" => {
            let items = pyops::iterate(&args.req(0, "iterable", "join")?, span)?;
            Value::str(&items.iter().map(pyops::py_str).collect::<Vec<_>>().join(s))
        }
        "str.format" => {
            let mut out = String::new();
            let mut next = 0usize;
            let mut rest = s;
            while let Some(open) = rest.find('{') {
                out.push_str(&rest[..open]);
                let close = rest[open..]
                    .find('}')
                    .map(|c| c + open)
                    .ok_or_else(|| Diagnostic::error(span, "bad format string"))?;
                let field = &rest[open + 1..close];
                let key = field.split(':').next().unwrap_or("");
                let v = if key.is_empty() {
                    next += 1;
                    args.pos.get(next - 1).cloned()
                } else if let Ok(i) = key.parse::<usize>() {
                    args.pos.get(i).cloned()
                } else {
                    args.kw
                        .iter()
                        .find(|(k, _)| k == key)
                        .map(|(_, v)| v.clone())
                };
                out.push_str(&pyops::py_str(&v.unwrap_or(Value::None)));
                rest = &rest[close + 1..];
            }
            out.push_str(rest);
            Value::str(&out)
        }
        _ => return Err(Diagnostic::internal(span, format!("no string method {m}"))),
    })
}
