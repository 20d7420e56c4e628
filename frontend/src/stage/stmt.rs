//! Statement execution. `if`/`while`/`for` on compile-time values run now
//! (hyperparameter branches vanish, loops unroll); staged conditions are
//! reported until staged control flow lowers them to IR region ops.

use super::args::Args;
use super::control_flow::{IfArms, BROKE, CONTINUED};
use super::loops::{LoopItems, LoopKind, LoopSpec};
use super::pyops;
use super::scope::{Scope, ScopeKind};
use super::value::{Class, Closure, Namespace, StagedRows, Value};
use super::{Flow, Stager, R};
use crate::diagnostics::{Diagnostic, DiagnosticKind};
use crate::parse::span_of;
use agc_analysis::py::activity;
use agc_ir::Span;
use rustpython_parser::ast::{self, Expr, Stmt};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// Compile-time loops stop after this many iterations (a runaway `while`).
const MAX_STATIC_ITERATIONS: usize = 1_000_000;

/// A compile-time loop may stage at most this many IR ops in all its
/// iterations: beyond it the build would take many minutes (about 5 ms an
/// op), so a runaway `while` that stages work is stopped early (tens of
/// milliseconds instead of the iteration limit's seconds and gigabytes).
const MAX_UNROLLED_OPS: usize = 100_000;

impl Stager {
    /// Runs a block of statements.
    /// After a statement that may have exited through staged control flow
    /// (a staged `return`/`break`/`continue`), the rest of the block runs
    /// under an `if` on "no exit happened".
    pub fn exec_block(&mut self, body: &'static [Stmt], scope: &Rc<Scope>) -> R<Flow> {
        for (i, s) in body.iter().enumerate() {
            match self.exec(s, scope) {
                Ok(Flow::Normal) => {}
                Ok(other) => return Ok(other),
                Err(d) => return self.raise_on_path(d),
            }
            let may_exit = matches!(s, Stmt::If(_) | Stmt::While(_) | Stmt::For(_));
            if may_exit && i + 1 < body.len() {
                if let Some(exit) = self.staged_exit(scope, span_of(s))? {
                    self.guard_rest(exit, &body[i + 1..], scope, span_of(&body[i + 1]))?;
                    return Ok(Flow::Normal);
                }
            }
        }
        Ok(Flow::Normal)
    }

    /// Under staged control flow, a statement that raises a Python
    /// exception (an index out of range, a read of a variable this path did
    /// not assign, a `raise`) makes the path fail at run time, as CPython
    /// does only where it is taken; elsewhere it is the error.
    ///
    /// The exception leaves every Python call it is raised in (as in
    /// CPython) up to the innermost staged region: a helper that raises
    /// makes its caller's path fail, not return a placeholder.
    fn raise_on_path(&mut self, d: Diagnostic) -> R<Flow> {
        let regions_at_call = self
            .call_stack
            .last()
            .filter(|c| c.generation == self.generation)
            .map_or(1, |c| c.regions);
        if d.kind != DiagnosticKind::Raises || self.open_regions.len() <= regions_at_call {
            return Err(d);
        }
        let message = d.headline();
        tracing::debug!("path raises at run time: {message}");
        let never = self.scalar(0.0, agc_ir::DType::Bool, d.span)?;
        self.check(&never, message, d.span)?;
        Ok(Flow::Return(Value::Bottom))
    }

    fn exec(&mut self, s: &'static Stmt, scope: &Rc<Scope>) -> R<Flow> {
        let span = span_of(s);
        match s {
            Stmt::Expr(e) => {
                self.eval(&e.value, scope)?;
            }
            Stmt::Assign(a) => {
                let v = self.eval(&a.value, scope)?;
                for t in &a.targets {
                    self.assign(t, v.clone(), scope)?;
                }
            }
            Stmt::AnnAssign(a) => {
                if let Some(v) = &a.value {
                    let v = self.eval(v, scope)?;
                    self.assign(&a.target, v, scope)?;
                }
            }
            Stmt::AugAssign(a) => self.aug_assign(a, scope, span)?,
            Stmt::Return(r) => {
                let v = match &r.value {
                    Some(e) => self.eval(e, scope)?,
                    None => Value::None,
                };
                self.last_return = r.value.as_deref().map_or(span, span_of);
                return Ok(Flow::Return(v));
            }
            Stmt::If(i) => {
                let test = self.eval(&i.test, scope)?;
                return match pyops::truthy(&test) {
                    Some(true) => self.exec_block(&i.body, scope),
                    Some(false) => self.exec_block(&i.orelse, scope),
                    None => {
                        let cond = self.truth_tensor(&test, span_of(&*i.test))?;
                        let arms = IfArms {
                            then: &i.body,
                            orelse: &i.orelse,
                            within: std::slice::from_ref(s),
                            owner: Some(s),
                            clear_flags_in_then: false,
                        };
                        self.staged_if(cond, arms, scope, span)?;
                        Ok(Flow::Normal)
                    }
                };
            }
            Stmt::While(w) => return self.exec_while(s, w, scope),
            Stmt::For(f) => return self.exec_for(s, f, scope),
            Stmt::Break(_) => return Ok(Flow::Break),
            Stmt::Continue(_) => return Ok(Flow::Continue),
            Stmt::Pass(_) | Stmt::Global(_) | Stmt::Nonlocal(_) => {}
            Stmt::FunctionDef(d) => {
                let f = self.make_function(d, scope, span)?;
                let mut v = Value::Function(f);
                for dec in d.decorator_list.iter().rev() {
                    let dv = self.eval(dec, scope)?;
                    v = self.call(&dv, Args::positional(vec![v], span_of(dec)))?;
                }
                scope.set(d.name.as_str(), v);
            }
            Stmt::ClassDef(c) => self.exec_class(c, scope, span)?,
            Stmt::Import(i) => {
                for alias in &i.names {
                    let full = alias.name.as_str();
                    match &alias.asname {
                        Some(as_name) => scope.set(as_name.as_str(), import_module(full)),
                        None => {
                            let top = full.split('.').next().unwrap_or(full);
                            scope.set(top, import_module(top));
                        }
                    }
                }
            }
            Stmt::ImportFrom(i) => {
                let module = i.module.as_ref().map(|m| m.to_string()).unwrap_or_default();
                let m = import_module(&module);
                for alias in &i.names {
                    if alias.name.as_str() == "*" {
                        return Err(Diagnostic::unsupported(
                            span,
                            "`from ... import *` is not supported",
                        ));
                    }
                    let v = match self.get_attr(&m, alias.name.as_str(), span) {
                        Ok(v) => v,
                        Err(_) => import_module(&format!("{module}.{}", alias.name)),
                    };
                    scope.set(alias.asname.as_ref().unwrap_or(&alias.name).as_str(), v);
                }
            }
            Stmt::Raise(r) => {
                let msg = match &r.exc {
                    Some(e) => exception_message(&self.eval(e, scope)?),
                    None => "re-raise".into(),
                };
                // Under staged control flow the path fails at run time
                // (`raise_on_path`); run unconditionally it is the error.
                let (exception, text) = msg.split_once(": ").unwrap_or((&msg, ""));
                return Err(Diagnostic::raises(span, exception, text));
            }
            Stmt::Assert(a) => {
                let test = self.eval(&a.test, scope)?;
                match pyops::truthy(&test) {
                    Some(true) => {}
                    Some(false) => {
                        let msg = match &a.msg {
                            Some(m) => pyops::py_str(&self.eval(m, scope)?),
                            None => String::new(),
                        };
                        return Err(Diagnostic::raises(span, "AssertionError", msg));
                    }
                    None => {
                        let msg = match &a.msg {
                            Some(m) => {
                                format!("AssertionError: {}", pyops::py_str(&self.eval(m, scope)?))
                            }
                            None => "AssertionError".into(),
                        };
                        let holds = self.truth_tensor(&test, span)?;
                        self.check(&holds, msg, span)?;
                    }
                }
            }
            Stmt::Delete(d) => {
                for t in &d.targets {
                    self.delete(t, scope)?;
                }
            }
            _ => {
                return Err(Diagnostic::unsupported(
                    span,
                    "this statement is not supported",
                ))
            }
        }
        Ok(Flow::Normal)
    }

    /// A `while`: unrolled while its test is a compile-time value; from the
    /// first iteration whose test is staged (or after which a staged `break`
    /// or `return` may have happened), the rest is one staged loop.
    fn exec_while(
        &mut self,
        s: &'static Stmt,
        w: &'static ast::StmtWhile,
        scope: &Rc<Scope>,
    ) -> R<Flow> {
        let outer = self.enter_static_loop(scope);
        let flow = self.unroll_while(s, w, scope);
        self.leave_static_loop(scope, outer);
        flow
    }

    fn unroll_while(
        &mut self,
        s: &'static Stmt,
        w: &'static ast::StmtWhile,
        scope: &Rc<Scope>,
    ) -> R<Flow> {
        let span = span_of(w);
        let mut n = 0usize;
        let ops_before = self.func_mut().num_ops();
        loop {
            scope.set_local(CONTINUED, Value::Bool(false));
            let staged_exit = self.staged_exit(scope, span)?.is_some();
            let test = self.eval(&w.test, scope)?;
            match pyops::truthy(&test) {
                Some(true) if !staged_exit => {}
                Some(false) if !staged_exit => return self.exec_block(&w.orelse, scope),
                _ => {
                    let spec = LoopSpec {
                        kind: LoopKind::While(&w.test),
                        body: &w.body,
                        orelse: &w.orelse,
                        stmt: Some(s),
                        span,
                        continuing: true,
                    };
                    self.staged_loop(spec, scope)?;
                    return Ok(Flow::Normal);
                }
            }
            match self.exec_block(&w.body, scope)? {
                Flow::Break => return Ok(Flow::Normal),
                r @ Flow::Return(_) => return Ok(r),
                _ => {}
            }
            n += 1;
            if n > MAX_STATIC_ITERATIONS {
                return Err(Diagnostic::error(
                    span_of(&*w.test),
                    format!("compile-time loop ran over {MAX_STATIC_ITERATIONS} iterations"),
                ));
            }
            self.check_unrolled(ops_before, n, span_of(&*w.test))?;
        }
    }

    /// Fails once a compile-time loop that started with `ops_before` ops in
    /// the function has staged more than [`MAX_UNROLLED_OPS`] in `n`
    /// iterations; `span` is where the loop is decided.
    fn check_unrolled(&mut self, ops_before: usize, n: usize, span: Span) -> R<()> {
        let staged = self.func_mut().num_ops().saturating_sub(ops_before);
        if staged <= MAX_UNROLLED_OPS {
            return Ok(());
        }
        Err(Diagnostic::error(
            span,
            format!(
                "this compile-time loop unrolled {n} iterations into over {MAX_UNROLLED_OPS} staged \
                 operations, too many to compile; make it a staged loop by deciding it on a \
                 run-time value (a tensor), or make it shorter"
            ),
        ))
    }

    /// Starts a compile-time loop: its own break/continue flags, the enclosing loop's saved.
    fn enter_static_loop(&mut self, scope: &Rc<Scope>) -> [Option<Value>; 2] {
        let outer = [scope.get_here(BROKE), scope.get_here(CONTINUED)];
        scope.set_local(BROKE, Value::Bool(false));
        scope.set_local(CONTINUED, Value::Bool(false));
        outer
    }

    fn leave_static_loop(&mut self, scope: &Rc<Scope>, outer: [Option<Value>; 2]) {
        for (name, v) in [BROKE, CONTINUED].into_iter().zip(outer) {
            match v {
                Some(v) => scope.set_local(name, v),
                None => {
                    scope.remove(name);
                }
            }
        }
    }

    fn exec_for(
        &mut self,
        s: &'static Stmt,
        f: &'static ast::StmtFor,
        scope: &Rc<Scope>,
    ) -> R<Flow> {
        let mut iterable = self.eval(&f.iter, scope)?;
        let span = span_of(f);
        if let Value::TensorList(l) = &iterable {
            iterable = Value::Tensor(self.tensor_list_stack(l, span)?);
        }
        if let Value::Iterator(it) = &iterable {
            iterable = self.drain_iterator(it, span)?;
        }
        let rows =
            |t: &super::value::Tensor| matches!(t.ty.dims.first(), Some(agc_ir::Dim::Sym(_)));
        let over_rows = |items: LoopItems, t: &super::value::Tensor| LoopKind::Range {
            target: &f.target,
            start: Value::Int(0),
            stop: Value::SymInt(t.ty.dims[0].clone()),
            step: 1,
            items,
        };
        let staged = match &iterable {
            Value::StagedRange(r) => Some(LoopKind::Range {
                target: &f.target,
                start: r.0.clone(),
                stop: r.1.clone(),
                step: r.2,
                items: LoopItems::Counter,
            }),
            Value::Tensor(t) if rows(t) => {
                let r = StagedRows {
                    tensors: vec![t.clone()],
                    zipped: false,
                    enumerate_from: None,
                };
                Some(over_rows(LoopItems::Rows(r), t))
            }
            Value::StagedIter(it) => Some(over_rows(
                LoopItems::Rows(it.as_ref().clone()),
                &it.tensors[0],
            )),
            // Over a value not typed yet: a loop of unknown length that types its body.
            Value::Bottom => Some(LoopKind::Range {
                target: &f.target,
                start: Value::Int(0),
                stop: Value::Tensor(self.scalar(0.0, agc_ir::DType::I64, span)?),
                step: 1,
                items: LoopItems::Untyped,
            }),
            _ => None,
        };
        if let Some(kind) = staged {
            self.staged_loop(
                LoopSpec {
                    kind,
                    body: &f.body,
                    orelse: &f.orelse,
                    stmt: Some(s),
                    span,
                    continuing: false,
                },
                scope,
            )?;
            return Ok(Flow::Normal);
        }
        let items = self.iter_values(&iterable, span_of(&*f.iter))?;
        let outer = self.enter_static_loop(scope);
        let flow = self.unroll_for(f, items, scope);
        self.leave_static_loop(scope, outer);
        flow
    }

    /// Unrolls a `for` over compile-time items; after a staged `break` or
    /// `return`, each further iteration runs under an `if` on "no exit yet".
    fn unroll_for(
        &mut self,
        f: &'static ast::StmtFor,
        items: Vec<Value>,
        scope: &Rc<Scope>,
    ) -> R<Flow> {
        let span = span_of(f);
        let ops_before = self.func_mut().num_ops();
        for (n, item) in items.into_iter().enumerate() {
            self.check_unrolled(ops_before, n, span_of(&*f.iter))?;
            scope.set_local(CONTINUED, Value::Bool(false));
            self.assign(&f.target, item, scope)?;
            if let Some(exit) = self.staged_exit(scope, span)? {
                self.guard_rest(exit, &f.body, scope, span)?;
                continue;
            }
            match self.exec_block(&f.body, scope)? {
                Flow::Break => return Ok(Flow::Normal),
                r @ Flow::Return(_) => return Ok(r),
                _ => {}
            }
        }
        scope.set_local(CONTINUED, Value::Bool(false));
        match self.staged_exit(scope, span)? {
            Some(exit) => self
                .guard_rest(exit, &f.orelse, scope, span)
                .map(|_| Flow::Normal),
            None => self.exec_block(&f.orelse, scope),
        }
    }

    /// Where `name` was last assigned (for errors about its value), or `default`.
    pub fn assigned_at(&self, name: &str, default: Span) -> Span {
        self.last_assignment.get(name).copied().unwrap_or(default)
    }

    /// The items of an iterable: compile-time sequences, and tensors with a static first dim (rows).
    pub fn iter_values(&mut self, v: &Value, span: Span) -> R<Vec<Value>> {
        match v {
            Value::Tensor(t) => match t.ty.dims.first() {
                Some(agc_ir::Dim::Static(n))
                    if usize::try_from(*n).map_or(true, |n| n > super::limits::MAX_ITEMS) =>
                {
                    Err(Diagnostic::error(
                        span,
                        format!(
                            "iterating over the {n} rows of an array unrolls the loop, and {n} \
                             is over agc's limit of {} items: give the array a symbolic first \
                             dim (agc.f32[\"N\", ...]) so that the loop is staged",
                            super::limits::MAX_ITEMS
                        ),
                    ))
                }
                Some(agc_ir::Dim::Static(n)) => (0..*n)
                    .map(|i| self.get_item(v, &Value::Int(i), span))
                    .collect(),
                Some(_) => Err(staged_control_flow(span, "for")),
                None => Err(Diagnostic::error(span, "iteration over a 0-d array")),
            },
            Value::SymInt(_) => Err(staged_control_flow(span, "for")),
            Value::Iterator(it) => {
                let rest = self.drain_iterator(it, span)?;
                self.iter_values(&rest, span)
            }
            other => pyops::iterate(other, span),
        }
    }

    /// Binds `value` to an assignment target.
    pub fn assign(&mut self, target: &'static Expr, value: Value, scope: &Rc<Scope>) -> R<()> {
        let span = span_of(target);
        match target {
            Expr::Name(n) => {
                self.last_assignment.insert(n.id.to_string(), span);
                scope.set(n.id.as_str(), value);
                Ok(())
            }
            Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. })
                if matches!(value, Value::Bottom) =>
            {
                for e in elts {
                    let target = if let Expr::Starred(s) = e {
                        &*s.value
                    } else {
                        e
                    };
                    self.assign(target, Value::Bottom, scope)?;
                }
                Ok(())
            }
            Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. }) => {
                let items = self.iter_values(&value, span)?;
                let star = elts.iter().position(|e| matches!(e, Expr::Starred(_)));
                let fixed = elts.len() - star.is_some() as usize;
                if items.len() < fixed || (star.is_none() && items.len() != fixed) {
                    return Err(Diagnostic::error(
                        span,
                        format!(
                            "cannot unpack {} values into {} targets",
                            items.len(),
                            elts.len()
                        ),
                    ));
                }
                let mut it = items.into_iter();
                for (i, e) in elts.iter().enumerate() {
                    if Some(i) == star {
                        let rest = elts.len() - i - 1;
                        let n = it.len() - rest;
                        let taken: Vec<Value> = it.by_ref().take(n).collect();
                        if let Expr::Starred(s) = e {
                            self.assign(&s.value, Value::list(taken), scope)?;
                        }
                    } else if let Some(v) = it.next() {
                        self.assign(e, v, scope)?;
                    }
                }
                Ok(())
            }
            Expr::Attribute(a) => {
                let base = self.eval(&a.value, scope)?;
                match base {
                    Value::Instance(i) => {
                        i.attrs.borrow_mut().insert(a.attr.to_string(), value);
                        Ok(())
                    }
                    Value::Class(c) => {
                        c.attrs.borrow_mut().insert(a.attr.to_string(), value);
                        Ok(())
                    }
                    other => Err(Diagnostic::error(
                        span,
                        format!(
                            "cannot set attribute '{}' on a '{}'",
                            a.attr,
                            other.type_name()
                        ),
                    )),
                }
            }
            Expr::Subscript(s) => {
                let base = self.eval(&s.value, scope)?;
                let index = self.eval(&s.slice, scope)?;
                if matches!(base, Value::Bottom) {
                    return Ok(());
                }
                if matches!(base, Value::Tensor(_)) && (value.has_bottom() || index.has_bottom()) {
                    // A write of a recursive result not typed yet: so is the array.
                    return self.assign(&s.value, Value::Bottom, scope);
                }
                if let Value::Tensor(x) = &base {
                    // A write into a tensor rebinds the target to the updated tensor.
                    let new = Value::Tensor(self.updated(x, &index, &value, span)?);
                    return self.assign(&s.value, new, scope);
                }
                self.set_item(&base, index, value, span)
            }
            _ => Err(Diagnostic::error(span, "cannot assign to this expression")),
        }
    }

    fn set_item(&mut self, base: &Value, index: Value, value: Value, span: Span) -> R<()> {
        value.check_acyclic_in(base, span)?;
        match base {
            Value::List(l) => {
                let n = l.borrow().len() as i64;
                let i = index
                    .as_int()
                    .ok_or_else(|| Diagnostic::error(span, "list indices must be integers"))?;
                let j = if i < 0 { i + n } else { i };
                if j < 0 || j >= n {
                    return Err(Diagnostic::raises(
                        span,
                        "IndexError",
                        "list assignment index out of range",
                    ));
                }
                l.borrow_mut()[j as usize] = value;
                Ok(())
            }
            Value::Dict(d) => {
                super::expr::dict_insert(&mut d.borrow_mut(), index, value);
                Ok(())
            }
            other => Err(Diagnostic::error(
                span,
                format!(
                    "'{}' object does not support item assignment",
                    other.type_name()
                ),
            )),
        }
    }

    fn aug_assign(
        &mut self,
        a: &'static ast::StmtAugAssign,
        scope: &Rc<Scope>,
        span: Span,
    ) -> R<()> {
        let rhs = self.eval(&a.value, scope)?;
        let current = self.eval(&a.target, scope)?;
        if let (ast::Operator::Add, Value::List(l)) = (a.op, &current) {
            let extra = self.iter_values(&rhs, span)?;
            l.borrow_mut().extend(extra);
            return Ok(());
        }
        let v = self.binop(a.op, &current, &rhs, span)?;
        self.assign(&a.target, v, scope)
    }

    fn delete(&mut self, target: &'static Expr, scope: &Rc<Scope>) -> R<()> {
        let span = span_of(target);
        match target {
            Expr::Name(n) if scope.remove(n.id.as_str()) => Ok(()),
            Expr::Subscript(s) => {
                let base = self.eval(&s.value, scope)?;
                let index = self.eval(&s.slice, scope)?;
                match base {
                    Value::Dict(d) => {
                        d.borrow_mut().retain(|(k, _)| !pyops::py_eq(k, &index));
                        Ok(())
                    }
                    Value::List(l) => {
                        let n = l.borrow().len() as i64;
                        let i = index.as_int().unwrap_or(n);
                        let j = if i < 0 { i + n } else { i };
                        if j < 0 || j >= n {
                            return Err(Diagnostic::raises(
                                span,
                                "IndexError",
                                "list assignment index out of range",
                            ));
                        }
                        l.borrow_mut().remove(j as usize);
                        Ok(())
                    }
                    other => Err(Diagnostic::error(
                        span,
                        format!("cannot delete items of '{}'", other.type_name()),
                    )),
                }
            }
            _ => Err(Diagnostic::error(span, "cannot delete this target")),
        }
    }

    /// Creates a closure for a `def`.
    fn make_function(
        &mut self,
        d: &'static ast::StmtFunctionDef,
        scope: &Rc<Scope>,
        span: Span,
    ) -> R<Rc<Closure>> {
        let mut locals = activity::bound_names(&d.body);
        locals.extend(activity::parameter_names(&d.args));
        let doc = match d.body.first() {
            Some(Stmt::Expr(e)) => match &*e.value {
                Expr::Constant(ast::ExprConstant {
                    value: ast::Constant::Str(s),
                    ..
                }) => s.trim().to_string(),
                _ => String::new(),
            },
            _ => String::new(),
        };
        self.new_closure(
            d.name.as_str(),
            &d.args,
            (&d.body, None),
            locals,
            doc,
            scope,
            span,
        )
    }

    /// Creates a closure for a `lambda`.
    pub fn make_lambda(
        &mut self,
        l: &'static ast::ExprLambda,
        scope: &Rc<Scope>,
        span: Span,
    ) -> R<Value> {
        let locals = activity::parameter_names(&l.args).into_iter().collect();
        let c = self.new_closure(
            "<lambda>",
            &l.args,
            (&[], Some(&l.body)),
            locals,
            String::new(),
            scope,
            span,
        )?;
        Ok(Value::Function(c))
    }

    /// A closure over `scope`, its defaults and annotations evaluated now
    /// (as Python does at definition time).
    #[allow(clippy::too_many_arguments)]
    fn new_closure(
        &mut self,
        name: &str,
        args: &'static ast::Arguments,
        (body, lambda_body): (&'static [Stmt], Option<&'static Expr>),
        locals: std::collections::BTreeSet<String>,
        doc: String,
        scope: &Rc<Scope>,
        span: Span,
    ) -> R<Rc<Closure>> {
        let (defaults, kw_defaults, annotations) = self.eval_signature(args, scope)?;
        Ok(Rc::new(Closure {
            name: name.to_string(),
            args,
            body,
            lambda_body,
            defaults,
            kw_defaults,
            annotations,
            env: scope.clone(),
            locals: Rc::new(locals),
            span,
            doc,
        }))
    }

    #[allow(clippy::type_complexity)]
    fn eval_signature(
        &mut self,
        args: &'static ast::Arguments,
        scope: &Rc<Scope>,
    ) -> R<(Vec<Value>, HashMap<String, Value>, HashMap<String, Value>)> {
        let mut defaults = Vec::new();
        let mut annotations = HashMap::new();
        for a in args.posonlyargs.iter().chain(&args.args) {
            if let Some(d) = &a.default {
                defaults.push(self.eval(d, scope)?);
            }
            if let Some(ann) = &a.def.annotation {
                annotations.insert(a.def.arg.to_string(), self.eval(ann, scope)?);
            }
        }
        let mut kw_defaults = HashMap::new();
        for a in &args.kwonlyargs {
            if let Some(d) = &a.default {
                kw_defaults.insert(a.def.arg.to_string(), self.eval(d, scope)?);
            }
            if let Some(ann) = &a.def.annotation {
                annotations.insert(a.def.arg.to_string(), self.eval(ann, scope)?);
            }
        }
        Ok((defaults, kw_defaults, annotations))
    }

    fn exec_class(
        &mut self,
        c: &'static ast::StmtClassDef,
        scope: &Rc<Scope>,
        span: Span,
    ) -> R<()> {
        let mut bases = Vec::new();
        for b in &c.bases {
            match self.eval(b, scope)? {
                Value::Class(k) => bases.push(k),
                Value::Builtin(name, _) if &*name == "object" => {}
                Value::TupleClass(t) => {
                    return Err(super::namedtuple::subclass_error(&t, span_of(b)))
                }
                other => {
                    return Err(Diagnostic::unsupported(
                        span_of(b),
                        format!(
                            "base class of type '{}' is not supported",
                            other.type_name()
                        ),
                    ))
                }
            }
        }
        let body_scope = Scope::child(
            ScopeKind::Class,
            scope.clone(),
            Rc::default(),
            Default::default(),
        );
        match self.exec_block(&c.body, &body_scope)? {
            Flow::Normal => {}
            _ => {
                return Err(Diagnostic::error(
                    span,
                    "'return' or loop control outside function",
                ))
            }
        }
        let class = Rc::new(Class {
            name: c.name.to_string(),
            bases,
            attrs: RefCell::new(body_scope.bindings()),
        });
        let mut v = Value::Class(class);
        for dec in c.decorator_list.iter().rev() {
            let dv = self.eval(dec, scope)?;
            v = self.call(&dv, Args::positional(vec![v], span_of(dec)))?;
        }
        scope.set(c.name.as_str(), v);
        Ok(())
    }
}

/// The namespace an `import` binds.
fn import_module(name: &str) -> Value {
    let ns = match name {
        "agc" => Namespace::Agc,
        "agc.numpy" | "numpy" => Namespace::Numpy,
        "math" => Namespace::Math,
        "operator" => Namespace::Operator,
        "functools" => Namespace::Functools,
        "collections" => Namespace::Collections,
        n if n.starts_with("numpy.") => Namespace::NumpyOther,
        _ => Namespace::Opaque,
    };
    Value::Namespace(ns, Rc::from(name))
}

fn exception_message(v: &Value) -> String {
    match v {
        Value::Instance(i) => i.class.name.clone(),
        Value::Tuple(t) => t.iter().map(pyops::py_str).collect::<Vec<_>>().join(", "),
        other => pyops::py_str(other),
    }
}

/// The diagnostic for control flow on a staged value (until staged control flow lands).
pub fn staged_control_flow(span: Span, construct: &str) -> Diagnostic {
    Diagnostic::unsupported(
        span,
        format!("`{construct}` on a staged (run-time) value is not supported yet; only compile-time conditions and iterables can drive `{construct}`"),
    )
}
