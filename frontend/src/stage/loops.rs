//! Staged loops (AutoGraph's `while_stmt`/`for_stmt` on staged values): a
//! `while` whose condition is staged, and a `for` over a staged `range` or
//! over the first axis of a tensor of run-time length, become one IR `while`
//! op whose state is the variables the body reassigns.
//!
//! The body is traced twice: once into a scratch region, to learn which
//! variables change and their types (a Python `0.0` accumulating tensors
//! becomes a tensor state), then for real. A variable whose dtype or shape
//! changes across iterations is an error naming both types. `break`,
//! `continue` and `return` set flags (see [`super::control_flow`]); the loop
//! condition includes "no break, no return", so no extra iteration runs.

use super::control_flow::{restore, BROKE, CONTINUED, EXIT_FLAGS, RETURNED, RETVAL};
use super::merge::{self, Plan};
use super::scope::Scope;
use super::value::{Tensor, Value};
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use crate::parse::span_of;
use agc_analysis::py::activity;
use agc_ir::{BinaryOp, CmpOp, DType, OpKind, RegionId, Span, TensorType, Type, UnaryOp};
use rustpython_parser::ast::{Expr, Stmt};
use std::collections::BTreeSet;
use std::rc::Rc;

/// What drives a staged loop.
pub enum LoopKind {
    /// `while test:`
    While(&'static Expr),
    /// `for target in range(start, stop, step)` (counter held in a hidden variable).
    Range {
        /// The loop target.
        target: &'static Expr,
        /// First value.
        start: Value,
        /// Bound (exclusive).
        stop: Value,
        /// Compile-time step.
        step: i64,
        /// What each iteration binds to the target.
        items: LoopItems,
    },
}

/// What a staged `for` binds to its target, from the counter `i`.
pub enum LoopItems {
    /// `i` itself (`for i in range(...)`).
    Counter,
    /// `t[i]` (`for row in t`).
    Rows(Tensor),
    /// `(start + i, t[i])` (`for k, row in enumerate(t, start)`).
    Enumerate(Tensor, i64),
    /// `(a[i], b[i], ...)` (`for x, y in zip(a, b)`).
    Zip(Vec<Tensor>),
}

/// A staged loop to trace.
pub struct LoopSpec {
    /// What drives it.
    pub kind: LoopKind,
    /// The body.
    pub body: &'static [Stmt],
    /// The `else:` block (runs when the loop ends without `break`).
    pub orelse: &'static [Stmt],
    /// The loop statement's span.
    pub span: Span,
    /// The rest of a loop whose first iterations were unrolled: its exit
    /// flags already belong to this loop, and are kept (not reset, not restored).
    pub continuing: bool,
}

impl Stager {
    /// Traces a staged loop into an IR `while` op.
    pub fn staged_loop(&mut self, spec: LoopSpec, scope: &Rc<Scope>) -> R<()> {
        let span = spec.span;
        let (line, _) = self.file.line_col(span.start);
        let counter = format!("__agc_counter{}", self.open_regions.len());
        let mut names: BTreeSet<String> = activity::bound_names(spec.body);
        names.extend(EXIT_FLAGS.iter().map(|s| s.to_string()));
        names.insert(RETVAL.into());
        if let LoopKind::Range { target, start, .. } = &spec.kind {
            activity::target_names(target, &mut names);
            names.insert(counter.clone());
            scope.set_local(&counter, start.clone());
        }
        let outer_flags: Vec<Option<Value>> = [BROKE, CONTINUED].iter().map(|n| scope.get_here(n)).collect();
        if !spec.continuing {
            scope.set_local(BROKE, Value::Bool(false));
        }
        scope.set_local(CONTINUED, Value::Bool(false));
        if scope.get_here(RETURNED).is_none() {
            scope.set_local(RETURNED, Value::Bool(false));
        }
        names.extend(tensor_list_names(scope));
        let mut names: Vec<String> = names.into_iter().collect();
        let mut initial: Vec<Option<Value>> = names.iter().map(|n| self.peek(scope, n)).collect();

        // 1. Probe: which variables change, and to what types.
        let lists = snapshot_lists(scope);
        let dicts = snapshot_dicts(scope);
        let staged_lists = snapshot_tensor_lists(scope);
        let probe = self.func_mut().new_region(&[]);
        // The probe's counter is staged, so what depends on it shows as changing.
        let probed = self.in_region(probe, |s| {
            s.stage_counter(scope, &counter, span)?;
            s.loop_body(&spec, &counter, scope)
        });
        probed?;
        let after_probe: Vec<Option<Value>> = names.iter().map(|n| self.peek(scope, n)).collect();
        restore(scope, &names, &initial);
        let grown = grown_lists(&lists);
        for (_, list, items) in lists {
            *list.borrow_mut() = items;
        }
        for (list, contents) in staged_lists {
            *list.borrow_mut() = contents;
        }
        for (dict, items) in dicts {
            *dict.borrow_mut() = items;
        }
        let mut plans: Vec<(usize, Plan)> = Vec::new();
        // Lists the body appends tensors to become staged lists.
        for (name, before, item) in grown {
            let list = self.new_tensor_list(&spec, &before, &item, span)?;
            scope.set_local(&name, list.clone());
            plans.push((names.len(), merge::plan_one(&list).ok_or_else(|| Diagnostic::internal(span, "staged list plan"))?));
            names.push(name);
            initial.push(Some(list));
        }
        let mut body_local = Vec::new();
        for (i, name) in names.iter().enumerate() {
            let what = format!("loop variable '{name}' of the staged loop at line {line}");
            if plans.iter().any(|(j, _)| *j == i) {
                continue;
            }
            match (&initial[i], after_probe.get(i).unwrap_or(&None)) {
                (Some(a), Some(b)) => {
                    let p = if name == &counter { merge::plan_one(a).ok_or_else(|| Diagnostic::internal(span, "bad loop counter"))? } else { merge::plan(a, b, &what, self.assigned_at(name, span))? };
                    if !matches!(p, Plan::Static(_)) {
                        plans.push((i, p));
                    }
                }
                (None, Some(b)) if name == RETVAL => {
                    if let Some(p) = merge::plan_one(b) {
                        plans.push((i, p));
                    }
                }
                (None, Some(_)) => body_local.push(i),
                _ => {}
            }
        }
        // 2. The loop op: initial state, then the two regions.
        let mut init = Vec::new();
        for (i, p) in &plans {
            self.materialize(initial[*i].as_ref(), p, span, &format!("loop variable '{}'", names[*i]), &mut init)?;
        }
        let mut types = Vec::new();
        for (_, p) in &plans {
            merge::staged_types(p, &mut types);
        }
        let state_types: Vec<Type> = types.iter().map(|t| Type::Tensor(t.clone())).collect();
        let f = self.func_mut();
        let (before, after) = (f.new_region(&state_types), f.new_region(&state_types));

        self.bind_state(before, &plans, &names, &types, scope);
        self.in_region(before, |s| {
            let c = s.loop_condition(&spec, &counter, scope)?;
            let params = s.func_mut().region(before).params.clone();
            let mut ops = vec![s.localize(&c, span)?];
            ops.extend(params);
            s.func_mut().append_op(before, OpKind::Condition, ops, vec![], vec![], span);
            Ok(())
        })?;

        self.bind_state(after, &plans, &names, &types, scope);
        self.in_region(after, |s| {
            s.loop_body(&spec, &counter, scope)?;
            let mut next = Vec::new();
            for (i, p) in &plans {
                let v = s.peek(scope, &names[*i]);
                let what = format!("loop variable '{}' of the staged loop at line {line}", names[*i]);
                let at = s.assigned_at(&names[*i], span);
                s.materialize(v.as_ref(), p, at, &what, &mut next)?;
            }
            let ops = next.iter().map(|t| s.localize(t, span)).collect::<R<Vec<_>>>()?;
            s.func_mut().append_op(after, OpKind::Yield, ops, vec![], vec![], span);
            Ok(())
        })?;

        let region = self.region;
        let init_values = init.iter().map(|t| self.localize(t, span)).collect::<R<Vec<_>>>()?;
        let (_, results) = self.func_mut().append_op(region, OpKind::While, init_values, state_types, vec![before, after], span);
        let origin = self.generation;
        let mut values = results.into_iter().zip(types).map(|(value, ty)| Tensor { value, ty, origin, region, weak: false });
        restore(scope, &names, &initial);
        for (i, p) in &plans {
            scope.set_local(&names[*i], merge::rebuild(p, &mut values));
        }
        for i in body_local {
            let why = format!("it is assigned only inside the staged loop at line {line}; assign it before the loop to use it afterwards");
            scope.set_local(&names[i], Value::Undefined(Rc::from(why)));
        }
        // 3. `else:` runs when no break happened; then the loop's own flags end.
        if !spec.orelse.is_empty() {
            match scope.get_here(BROKE) {
                Some(Value::Tensor(b)) => {
                    let ty = b.ty.clone();
                    let no_break = self.emit(OpKind::Unary(UnaryOp::Not), &[&b], ty, span)?;
                    self.staged_if(no_break, spec.orelse, &[], scope, span, false)?;
                }
                _ => {
                    self.exec_block(spec.orelse, scope)?;
                }
            }
        }
        for (n, v) in [BROKE, CONTINUED].iter().zip(outer_flags) {
            if spec.continuing {
                break;
            }
            match v {
                Some(v) => scope.set_local(n, v),
                None => {
                    scope.remove(n);
                }
            }
        }
        scope.remove(&counter);
        Ok(())
    }

    /// Binds the state variables to a region's parameters.
    fn bind_state(&mut self, r: RegionId, plans: &[(usize, Plan)], names: &[String], types: &[TensorType], scope: &Rc<Scope>) {
        let origin = self.generation;
        let params = self.func_mut().region(r).params.clone();
        let mut values = params.into_iter().zip(types.iter().cloned()).map(|(value, ty)| Tensor { value, ty, origin, region: r, weak: false });
        for (i, p) in plans {
            scope.set_local(&names[*i], merge::rebuild(p, &mut values));
        }
    }

    /// The loop condition, a rank-0 bool tensor: the user's test (or the
    /// range bound), and no `break`/`return` so far.
    fn loop_condition(&mut self, spec: &LoopSpec, counter: &str, scope: &Rc<Scope>) -> R<Tensor> {
        let span = spec.span;
        let test = match &spec.kind {
            LoopKind::While(test) => {
                let v = self.eval(test, scope)?;
                match super::pyops::truthy(&v) {
                    Some(b) => self.scalar(b as i64 as f64, DType::Bool, span)?,
                    None => self.truth_tensor(&v, span_of(*test))?,
                }
            }
            LoopKind::Range { stop, step, .. } => {
                let i = scope.get_here(counter).unwrap_or(Value::Int(0));
                let op = if *step > 0 { CmpOp::Lt } else { CmpOp::Gt };
                match self.compare(op, &i, stop, span)? {
                    Value::Tensor(t) => t,
                    _ => return Err(Diagnostic::internal(span, "range comparison was not staged")),
                }
            }
        };
        let mut cond = test;
        for flag in [BROKE, RETURNED] {
            if let Some(Value::Tensor(f)) = scope.get_here(flag) {
                let ty = f.ty.clone();
                let not_f = self.emit(OpKind::Unary(UnaryOp::Not), &[&f], ty, span)?;
                cond = self.binary_same(BinaryOp::And, &cond, &not_f, span)?;
            }
        }
        Ok(cond)
    }

    /// One iteration: the target binding (for `for`), the body, the counter step.
    fn loop_body(&mut self, spec: &LoopSpec, counter: &str, scope: &Rc<Scope>) -> R<()> {
        let span = spec.span;
        for flag in [BROKE, CONTINUED, RETURNED] {
            scope.set_local(flag, Value::Bool(false));
        }
        if let LoopKind::Range { target, items, .. } = &spec.kind {
            let i = scope.get_here(counter).unwrap_or(Value::Int(0));
            let item = match items {
                LoopItems::Counter => i.clone(),
                LoopItems::Rows(t) => Value::Tensor(self.dyn_index(t, &[i.clone()], span)?),
                LoopItems::Enumerate(t, start) => {
                    let k = self.binop(rustpython_parser::ast::Operator::Add, &i, &Value::Int(*start), span)?;
                    Value::tuple(vec![k, Value::Tensor(self.dyn_index(t, &[i.clone()], span)?)])
                }
                LoopItems::Zip(ts) => {
                    let rows = ts.iter().map(|t| self.dyn_index(t, &[i.clone()], span).map(Value::Tensor)).collect::<R<_>>()?;
                    Value::tuple(rows)
                }
            };
            self.assign(target, item, scope)?;
        }
        let region = self.region;
        self.trace_region(region, spec.body, scope, false)?;
        if let LoopKind::Range { step, .. } = &spec.kind {
            let i = scope.get_here(counter).unwrap_or(Value::Int(0));
            let next = self.binop(rustpython_parser::ast::Operator::Add, &i, &Value::Int(*step), span)?;
            scope.set_local(counter, next);
        }
        Ok(())
    }

    /// Makes the loop counter a staged (weak) integer, if it is not one already.
    fn stage_counter(&mut self, scope: &Rc<Scope>, counter: &str, span: Span) -> R<()> {
        if let Some(v @ (Value::Int(_) | Value::SymInt(_))) = scope.get_here(counter) {
            let t = self.to_tensor(&v, Some(DType::I64), span)?.into_weak();
            scope.set_local(counter, Value::Tensor(t));
        }
        Ok(())
    }

    /// `t[i0, i1, ..]` with run-time integer indices on the leading axes.
    pub fn dyn_index(&mut self, t: &Tensor, indices: &[Value], span: Span) -> R<Tensor> {
        if indices.len() > t.ty.rank() {
            return Err(Diagnostic::error(span, format!("too many indices for array: array is {}-dimensional", t.ty.rank())));
        }
        let mut idx = Vec::new();
        for v in indices {
            let x = self.to_tensor(v, Some(DType::I64), span)?;
            if x.ty.rank() != 0 || !matches!(x.ty.dtype, DType::I32 | DType::I64) {
                return Err(Diagnostic::error(span, format!("array indices must be integers, got {}", x.ty)));
            }
            idx.push(self.cast(&x, DType::I64, span)?);
        }
        let ty = TensorType::new(t.ty.dtype, t.ty.dims[indices.len()..].to_vec());
        let mut operands = vec![t];
        operands.extend(idx.iter());
        self.emit(OpKind::DynIndex { axes: indices.len() }, &operands, ty, span)
    }
}

type ListSnapshot = Vec<(String, Rc<std::cell::RefCell<Vec<Value>>>, Vec<Value>)>;

/// The contents of the lists bound in this frame, to undo the probe's appends.
fn snapshot_lists(scope: &Rc<Scope>) -> ListSnapshot {
    scope
        .bindings()
        .into_iter()
        .filter_map(|(name, v)| match v {
            Value::List(l) => {
                let items = l.borrow().clone();
                Some((name, l, items))
            }
            _ => None,
        })
        .collect()
}

/// The contents of the dicts bound in this frame, to undo the probe's updates.
#[allow(clippy::type_complexity)]
fn snapshot_dicts(scope: &Rc<Scope>) -> Vec<(Rc<std::cell::RefCell<Vec<(Value, Value)>>>, Vec<(Value, Value)>)> {
    scope
        .bindings()
        .into_values()
        .filter_map(|v| match v {
            Value::Dict(d) => {
                let items = d.borrow().clone();
                Some((d, items))
            }
            _ => None,
        })
        .collect()
}

/// The staged lists bound in this frame and their current (buffer, length).
pub fn snapshot_tensor_lists(scope: &Rc<Scope>) -> Vec<(Rc<std::cell::RefCell<(Tensor, Tensor)>>, (Tensor, Tensor))> {
    scope
        .bindings()
        .into_values()
        .filter_map(|v| match v {
            Value::TensorList(l) => {
                let c = l.borrow().clone();
                Some((l, c))
            }
            _ => None,
        })
        .collect()
}

/// Names bound to staged lists in this frame (state of any loop or branch that appends).
pub fn tensor_list_names(scope: &Rc<Scope>) -> Vec<String> {
    scope.bindings().into_iter().filter(|(_, v)| matches!(v, Value::TensorList(_))).map(|(n, _)| n).collect()
}

/// Lists the probe appended to: their names, items before the loop, and the first appended item.
fn grown_lists(lists: &ListSnapshot) -> Vec<(String, Vec<Value>, Value)> {
    lists
        .iter()
        .filter_map(|(name, l, before)| {
            let now = l.borrow();
            (now.len() > before.len()).then(|| (name.clone(), before.clone(), now[before.len()].clone()))
        })
        .collect()
}

impl Stager {
    /// An empty staged list for the items a loop appends, one per iteration
    /// at most: its capacity is the loop's trip count.
    fn new_tensor_list(&mut self, spec: &LoopSpec, initial: &[Value], item: &Value, span: Span) -> R<Value> {
        let unsupported = |why: &str| {
            Diagnostic::unsupported(span, format!("appending to a list in this staged loop is not supported: {why}"))
        };
        // The capacity is the trip count: a size when the loop walks a
        // tensor's rows or `range(size)`, else computed at run time.
        let (capacity, size) = match &spec.kind {
            LoopKind::Range { items: LoopItems::Rows(t) | LoopItems::Enumerate(t, _), .. } => (t.ty.dims[0].clone(), None),
            LoopKind::Range { items: LoopItems::Zip(ts), .. } => (ts[0].ty.dims[0].clone(), None),
            LoopKind::Range { start, stop: Value::SymInt(d), step: 1, .. } if start.as_int() == Some(0) => (d.clone(), None),
            LoopKind::Range { start, stop, step, .. } => {
                let n = self.range_len(start, stop, *step, span)?;
                let n = self.to_tensor_as(&n, DType::I64, span)?;
                let name = format!("{}.capacity", self.localize(&n, span)?);
                (agc_ir::Dim::Sym(name), Some(n))
            }
            LoopKind::While(_) => return Err(unsupported("in a `while` loop the number of appends is not known before the loop; use a `for` loop")),
        };
        let t = self.to_tensor(item, None, span)?;
        let mut dims = vec![capacity];
        dims.extend(t.ty.dims.iter().cloned());
        let zero = self.scalar(0.0, t.ty.dtype, span)?;
        let mut operands = vec![&zero];
        operands.extend(size.iter());
        let mut buffer = self.emit(OpKind::Fill, &operands, TensorType::new(t.ty.dtype, dims), span)?;
        if !initial.is_empty() {
            // Items already in the list come first; the capacity grows by their number.
            let items: Vec<Value> = initial.iter().map(|v| self.to_tensor_as(v, t.ty.dtype, span).map(Value::Tensor)).collect::<R<_>>()?;
            let head = self.stack(&items, 0, span)?;
            if let Value::Tensor(joined) = self.concat(&[head, Value::Tensor(buffer.clone())], 0, span)? {
                buffer = joined;
            }
        }
        let len = self.scalar(initial.len() as f64, DType::I64, span)?;
        Ok(Value::TensorList(Rc::new(std::cell::RefCell::new((buffer, len)))))
    }

    /// `l.append(x)` on a staged list.
    pub fn tensor_list_append(&mut self, l: &Rc<std::cell::RefCell<(Tensor, Tensor)>>, x: &Value, span: Span) -> R<()> {
        let (buf, len) = l.borrow().clone();
        let x = self.to_tensor_as(x, buf.ty.dtype, span)?;
        if x.ty.dims[..] != buf.ty.dims[1..] {
            return Err(Diagnostic::error(
                span,
                format!("a staged list of {} items cannot take an item of shape {}", TensorType::new(buf.ty.dtype, buf.ty.dims[1..].to_vec()).shape_string(), x.ty.shape_string()),
            ));
        }
        let ty = buf.ty.clone();
        let buf2 = self.emit(OpKind::DynUpdate { axes: 1, accumulate: false }, &[&buf, &x, &len], ty, span)?;
        let len2 = match self.binary(BinaryOp::Add, &Value::Tensor(len), &Value::Int(1), span)? {
            Value::Tensor(t) => t,
            _ => return Err(Diagnostic::internal(span, "length increment was not staged")),
        };
        *l.borrow_mut() = (buf2, len2);
        Ok(())
    }

    /// The items of a staged list as one tensor (`np.stack(l)`).
    pub fn tensor_list_stack(&mut self, l: &Rc<std::cell::RefCell<(Tensor, Tensor)>>, span: Span) -> R<Tensor> {
        let (buf, len) = l.borrow().clone();
        let zero = self.scalar(0.0, DType::I64, span)?;
        let mut dims = buf.ty.dims.clone();
        let lv = self.localize(&len, span)?;
        dims[0] = agc_ir::Dim::Sym(format!("{}[:{lv}]", buf.ty.dims[0]));
        self.emit(OpKind::DynSlice, &[&buf, &zero, &len], TensorType::new(buf.ty.dtype, dims), span)
    }
}
