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

use super::control_flow::{restore, IfArms, BROKE, CONTINUED, EXIT_FLAGS, RETURNED, RETVAL};
use super::lists::snapshot_tensor_lists;
use super::merge::{self, Plan};
use super::object_state;
use super::scope::Scope;
use super::value::{StagedRows, Tensor, Value};
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
    /// Rows of tensors: `t[i]`, `(a[i], b[i])`, `(start + i, t[i])`, ...
    Rows(StagedRows),
    /// Items of a value with no type yet (a recursive result while its
    /// function is being typed): the target is [`Value::Bottom`] too.
    Untyped,
}

/// A staged loop to trace.
pub struct LoopSpec {
    /// What drives it.
    pub kind: LoopKind,
    /// The body.
    pub body: &'static [Stmt],
    /// The `else:` block (runs when the loop ends without `break`).
    pub orelse: &'static [Stmt],
    /// The loop statement (for the dataflow facts about it); `None`: carry
    /// every variable the body assigns.
    pub stmt: Option<&'static Stmt>,
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
        names.extend(activity::item_written_names(spec.body));
        names.extend(EXIT_FLAGS.iter().map(|s| s.to_string()));
        names.insert(RETVAL.into());
        if let LoopKind::Range { target, start, .. } = &spec.kind {
            activity::target_names(target, &mut names);
            names.insert(counter.clone());
            // `range` yields Python ints, whatever the types of its bounds.
            let first = match start {
                Value::Tensor(t) => Value::Tensor(self.cast(t, DType::I64, span)?.into_weak()),
                other => other.clone(),
            };
            scope.set_local(&counter, first);
        }
        let outer_flags: Vec<Option<Value>> = [BROKE, CONTINUED]
            .iter()
            .map(|n| scope.get_here(n))
            .collect();
        if !spec.continuing {
            scope.set_local(BROKE, Value::Bool(false));
        }
        scope.set_local(CONTINUED, Value::Bool(false));
        if scope.get_here(RETURNED).is_none() {
            scope.set_local(RETURNED, Value::Bool(false));
        }
        names.extend(super::lists::tensor_list_names(scope));
        names.extend(self.variable_state_names());
        let mut names: Vec<String> = names.into_iter().collect();
        let mut initial: Vec<Option<Value>> = names.iter().map(|n| self.peek(scope, n)).collect();

        // 1. Probe: which variables change, and to what types. The probe's
        // counter is staged, and so is every compile-time number the body
        // changed in an earlier probe: what depends on them shows as changing
        // too, until nothing new does (`s = s + i` with `i` the changing one).
        let mut widened: BTreeSet<usize> = BTreeSet::new();
        // Variables with no value before the loop that an iteration may read
        // before assigning (on a path after an earlier iteration assigned
        // them): unbound at first; their type is found by a probe that reads
        // them as a value still being typed.
        let head_live = spec
            .stmt
            .and_then(|s| self.facts.live_at_loop_head(s))
            .cloned()
            .unwrap_or_default();
        let mut unbound: Vec<(usize, Option<Plan>)> = names
            .iter()
            .enumerate()
            .filter(|(i, n)| {
                initial[*i].is_none() && head_live.contains(*n) && !n.starts_with("__agc_")
            })
            .map(|(i, _)| (i, None))
            .collect();
        let (containers, staged_lists, attrs_before, mut after_probe) = loop {
            let containers = object_state::Containers::take(scope);
            let staged_lists = snapshot_tensor_lists(scope);
            let attrs_before = object_state::snapshot(scope);
            let probe = self.func_mut().new_region(&[]);
            let (ops_before, probe_ops_before) = (self.func_mut().num_ops(), self.probe_ops);
            self.probe_depth += 1;
            let probed = self.in_region(probe, |s| {
                s.stage_counter(scope, &counter, span)?;
                for &i in widened.iter().filter(|&&i| !names[i].starts_with("__agc_")) {
                    s.stage_counter(scope, &names[i], span)?;
                }
                for (i, plan) in &unbound {
                    let v = match plan {
                        Some(p) => s.unbound_placeholder(p, span)?,
                        None => Value::Bottom,
                    };
                    scope.set_local(&names[*i], v);
                }
                s.loop_body(&spec, &counter, scope)
            });
            self.probe_depth -= 1;
            // The probe's ops (those of probes nested in it included) are
            // dropped: not the program's size.
            self.probe_ops = probe_ops_before + (self.func_mut().num_ops() - ops_before);
            probed?;
            let after_probe: Vec<Option<Value>> =
                names.iter().map(|n| self.peek(scope, n)).collect();
            restore(scope, &names, &initial);
            // The counter and the exit flags are staged by the loop itself.
            widened.extend(
                names
                    .iter()
                    .enumerate()
                    .filter(|(_, n)| n.starts_with("__agc_"))
                    .map(|(i, _)| i),
            );
            let newly = changed_numbers(&initial, &after_probe, &widened);
            let mut typed = false;
            for (i, plan) in unbound.iter_mut() {
                if let (None, Some(b)) = (&plan, &after_probe[*i]) {
                    if !b.has_bottom() {
                        *plan = Some(merge::plan_maybe_bound(b));
                        typed = true;
                    }
                }
            }
            // Anything the body decides at compile time (a branch taken, a
            // `break`) may depend on the newly staged numbers: probe again.
            if newly.is_empty() && !typed {
                break (containers, staged_lists, attrs_before, after_probe);
            }
            widened.extend(newly);
            object_state::restore(scope, &attrs_before);
            containers.rebind_lists(scope);
            containers.restore(true);
            for (list, contents) in staged_lists {
                *list.borrow_mut() = contents;
            }
        };
        // Object attributes the body changed (directly or in a method) are state
        // too, and so are those it assigns (the probe may have assigned a value
        // equal to the one before, which the loop's state will not be).
        let attrs_after = object_state::snapshot(scope);
        object_state::restore(scope, &attrs_before);
        let mut attr_state = object_state::changed(&attrs_before, &attrs_after);
        attr_state.extend(
            activity::attribute_written_names(spec.body)
                .into_iter()
                .filter(|n| attrs_before.contains_key(n) && attrs_after.contains_key(n)),
        );
        for name in attr_state {
            if !names.contains(&name) {
                initial.push(attrs_before.get(&name).cloned());
                after_probe.push(attrs_after.get(&name).cloned());
                names.push(name);
            }
        }
        // A compile-time list cannot lose items at run time: `pop` would run once, at compile time.
        if let Some((name, before, after)) = containers.shrunk().into_iter().next() {
            let why = format!(
                "the staged loop at line {line} removes items from the compile-time list '{name}' ({before} items before an iteration, {after} after), which would run once at compile time, not once per iteration; make it an array (np.array) and index it with a run-time counter"
            );
            return Err(Diagnostic::error(span, why));
        }
        let grown = super::lists::lists_to_stage(self, containers.lists(), scope, span)?;
        // Lists and dicts the body changed in place (not by appending tensors) are state too.
        for (name, copy) in containers.changed() {
            if grown.iter().any(|(g, ..)| *g == name) {
                continue;
            }
            match names.iter().position(|n| *n == name) {
                Some(i) => after_probe[i] = Some(copy),
                None => {
                    initial.push(self.peek(scope, &name));
                    after_probe.push(Some(copy));
                    names.push(name);
                }
            }
        }
        containers.rebind_lists(scope);
        containers.restore(true);
        for (list, contents) in staged_lists {
            *list.borrow_mut() = contents;
        }
        let mut plans: Vec<(usize, Plan)> = Vec::new();
        // Lists the body appends tensors to become staged lists.
        for (name, before, item) in grown {
            let room = self.trip_count(&spec, span)?;
            let list = self.new_tensor_list(&before, &item, room, span)?;
            scope.set_local(&name, list.clone());
            plans.push((
                names.len(),
                merge::plan_one(&list)
                    .ok_or_else(|| Diagnostic::internal(span, "staged list plan"))?,
            ));
            names.push(name);
            initial.push(Some(list));
        }
        // The loop carries what is live at its head (read before being
        // reassigned in an iteration) or on leaving it (by `break` too);
        // unknown liveness: all of it.
        let live = spec.stmt.and_then(|s| {
            let mut live = self.facts.live_at_loop_head(s)?.clone();
            live.extend(self.facts.live_leaving(std::slice::from_ref(s))?);
            Some(live)
        });
        // Attributes (`obj.attr`) are always carried: the object may be reachable elsewhere.
        let carried = |n: &String| {
            n.starts_with("__agc_")
                || n.contains('.')
                || live.as_ref().is_none_or(|l| l.contains(n))
        };
        let mut dead = Vec::new();
        for (i, name) in names.iter().enumerate() {
            let what = format!("loop variable '{name}' of the staged loop at line {line}");
            if plans.iter().any(|(j, _)| *j == i) {
                continue;
            }
            if !carried(name) && !matches!(&initial[i], Some(Value::TensorList(_))) {
                dead.push(i);
                continue;
            }
            match (&initial[i], after_probe.get(i).unwrap_or(&None)) {
                (Some(a), Some(b)) => {
                    let p = if name == &counter {
                        merge::plan_one(a)
                            .ok_or_else(|| Diagnostic::internal(span, "bad loop counter"))?
                    } else {
                        merge::plan(a, b, &what, self.assigned_at(name, span))?
                    };
                    if !matches!(p, Plan::Static(_)) {
                        plans.push((i, p));
                    }
                }
                // A staged loop's result: a placeholder where no `return` ran.
                (None, Some(b)) if name == RETVAL => {
                    if let Some(p) = merge::plan_one(b) {
                        plans.push((i, p));
                    }
                }
                // No value before the loop: bound once an iteration assigns
                // it; a read checks at run time that one did.
                (None, Some(b)) => plans.push((i, merge::plan_maybe_bound(b))),
                _ => {}
            }
        }
        // A staged list may grow in the body: its size is a loop-local name.
        for (_, p) in plans.iter_mut() {
            merge::name_list_sizes(p, true, &mut |stem| self.fresh_dim(stem));
        }
        // 2. The loop op: initial state, then the two regions.
        let mut init = Vec::new();
        for (i, p) in &plans {
            self.materialize(
                initial[*i].as_ref(),
                p,
                span,
                &format!("loop variable '{}'", names[*i]),
                &mut init,
            )?;
        }
        let mut types = Vec::new();
        for (_, p) in &plans {
            merge::staged_types(p, &mut types);
        }
        let state_types: Vec<Type> = types.iter().map(|t| Type::Tensor(t.clone())).collect();
        let f = self.func_mut();
        let (before, after) = (f.new_region(&state_types), f.new_region(&state_types));

        if self.probe_depth > 0 {
            self.stand_in_regions(before, after, span)?;
        } else {
            self.bind_state(before, &plans, &names, &types, scope);
            self.in_region(before, |s| {
                let c = s.loop_condition(&spec, &counter, scope)?;
                let params = s.func_mut().region(before).params.clone();
                let mut ops = vec![s.localize(&c, span)?];
                ops.extend(params);
                s.func_mut()
                    .append_op(before, OpKind::Condition, ops, vec![], vec![], span);
                Ok(())
            })?;

            self.bind_state(after, &plans, &names, &types, scope);
            self.in_region(after, |s| {
                s.loop_body(&spec, &counter, scope)?;
                let mut next = Vec::new();
                for (i, p) in &plans {
                    let v = s.peek(scope, &names[*i]);
                    let what = format!(
                        "loop variable '{}' of the staged loop at line {line}",
                        names[*i]
                    );
                    let at = s.assigned_at(&names[*i], span);
                    s.materialize(v.as_ref(), p, at, &what, &mut next)?;
                }
                let ops = next
                    .iter()
                    .map(|t| s.localize(t, span))
                    .collect::<R<Vec<_>>>()?;
                s.func_mut()
                    .append_op(after, OpKind::Yield, ops, vec![], vec![], span);
                Ok(())
            })?;
        }

        let region = self.region;
        let init_values = init
            .iter()
            .map(|t| self.localize(t, span))
            .collect::<R<Vec<_>>>()?;
        let (_, results) = self.func_mut().append_op(
            region,
            OpKind::While,
            init_values,
            state_types,
            vec![before, after],
            span,
        );
        let origin = self.generation;
        let mut values = results.into_iter().zip(types).map(|(value, ty)| Tensor {
            value,
            ty,
            origin,
            region,
            weak: false,
        });
        restore(scope, &names, &initial);
        self.bind_merged(&plans, &names, &mut values, scope);
        for i in dead {
            let why = format!("it is assigned in the staged loop at line {line}, but liveness analysis found it unused afterwards (please report this bug)");
            scope.set_local(&names[i], Value::Undefined(Rc::from(why)));
        }
        // 3. `else:` runs when no break happened; then the loop's own flags end.
        if !spec.orelse.is_empty() {
            match scope.get_here(BROKE) {
                Some(Value::Tensor(b)) => {
                    let ty = b.ty.clone();
                    let no_break = self.emit(OpKind::Unary(UnaryOp::Not), &[&b], ty, span)?;
                    let arms = IfArms {
                        then: spec.orelse,
                        orelse: &[],
                        within: spec.orelse,
                        owner: spec.stmt,
                        clear_flags_in_then: false,
                    };
                    self.staged_if(no_break, arms, scope, span)?;
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

    /// The regions of a loop staged inside an enclosing loop's probe: no
    /// iteration, the state passed through. The enclosing probe needs only
    /// the types of this loop's state (which its own probe found), and the
    /// enclosing loop's real pass traces this loop whole; tracing its body
    /// again here would trace the innermost of `d` nested loops `2^d` times.
    fn stand_in_regions(&mut self, before: RegionId, after: RegionId, span: Span) -> R<()> {
        self.in_region(before, |s| {
            let stop = s.scalar(0.0, DType::Bool, span)?;
            let mut ops = vec![s.localize(&stop, span)?];
            ops.extend(s.func_mut().region(before).params.clone());
            s.func_mut()
                .append_op(before, OpKind::Condition, ops, vec![], vec![], span);
            Ok(())
        })?;
        let params = self.func_mut().region(after).params.clone();
        self.func_mut()
            .append_op(after, OpKind::Yield, params, vec![], vec![], span);
        Ok(())
    }

    /// A value of `plan` (a [`Plan::MaybeBound`]) that is not bound.
    fn unbound_placeholder(&mut self, plan: &Plan, span: Span) -> R<Value> {
        let mut tensors = Vec::new();
        self.materialize(None, plan, span, "an unbound variable", &mut tensors)?;
        Ok(merge::rebuild(plan, &mut tensors.into_iter()))
    }

    /// Binds the state variables to a region's parameters.
    fn bind_state(
        &mut self,
        r: RegionId,
        plans: &[(usize, Plan)],
        names: &[String],
        types: &[TensorType],
        scope: &Rc<Scope>,
    ) {
        let origin = self.generation;
        let params = self.func_mut().region(r).params.clone();
        let mut values = params
            .into_iter()
            .zip(types.iter().cloned())
            .map(|(value, ty)| Tensor {
                value,
                ty,
                origin,
                region: r,
                weak: false,
            });
        self.bind_merged(plans, names, &mut values, scope);
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
                    _ => {
                        return Err(Diagnostic::internal(
                            span,
                            "range comparison was not staged",
                        ))
                    }
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
                LoopItems::Untyped => Value::Bottom,
                LoopItems::Rows(r) => {
                    let mut rows: Vec<Value> = r
                        .tensors
                        .iter()
                        .map(|t| {
                            self.dyn_index(t, std::slice::from_ref(&i), span)
                                .map(Value::Tensor)
                        })
                        .collect::<R<_>>()?;
                    let item = if r.zipped {
                        Value::tuple(rows)
                    } else {
                        rows.remove(0)
                    };
                    match r.enumerate_from {
                        Some(start) => Value::tuple(vec![
                            self.binop(
                                rustpython_parser::ast::Operator::Add,
                                &i,
                                &Value::Int(start),
                                span,
                            )?,
                            item,
                        ]),
                        None => item,
                    }
                }
            };
            self.assign(target, item, scope)?;
        }
        let region = self.region;
        self.trace_region(region, spec.body, scope, false)?;
        if let LoopKind::Range { step, .. } = &spec.kind {
            let i = scope.get_here(counter).unwrap_or(Value::Int(0));
            let next = self.binop(
                rustpython_parser::ast::Operator::Add,
                &i,
                &Value::Int(*step),
                span,
            )?;
            scope.set_local(counter, next);
        }
        Ok(())
    }

    /// Makes a compile-time number bound to `name` (the loop counter, or a
    /// variable the probe found changing) a staged weak scalar of its kind.
    fn stage_counter(&mut self, scope: &Rc<Scope>, name: &str, span: Span) -> R<()> {
        let dtype = match scope.get_here(name) {
            Some(Value::Int(_) | Value::SymInt(_)) => DType::I64,
            Some(Value::Float(_)) => DType::F64,
            Some(Value::Bool(_)) => DType::Bool,
            _ => return Ok(()),
        };
        let v = scope.get_here(name).unwrap_or(Value::Int(0));
        let t = self.to_tensor(&v, Some(dtype), span)?.into_weak();
        scope.set_local(name, Value::Tensor(t));
        Ok(())
    }

    /// `t[i0, i1, ..]` with run-time integer indices on the leading axes.
    pub fn dyn_index(&mut self, t: &Tensor, indices: &[Value], span: Span) -> R<Tensor> {
        if indices.len() > t.ty.rank() {
            return Err(Diagnostic::error(
                span,
                format!(
                    "too many indices for array: array is {}-dimensional",
                    t.ty.rank()
                ),
            ));
        }
        let mut idx = Vec::new();
        for v in indices {
            let x = self.to_tensor(v, Some(DType::I64), span)?;
            if x.ty.rank() != 0 || !matches!(x.ty.dtype, DType::I32 | DType::I64) {
                return Err(Diagnostic::error(
                    span,
                    format!("array indices must be integers, got {}", x.ty),
                ));
            }
            idx.push(self.cast(&x, DType::I64, span)?);
        }
        let ty = TensorType::new(t.ty.dtype, t.ty.dims[indices.len()..].to_vec());
        let mut operands = vec![t];
        operands.extend(idx.iter());
        self.emit(
            OpKind::DynIndex {
                axes: indices.len(),
            },
            &operands,
            ty,
            span,
        )
    }
}

impl Stager {
    /// The number of iterations of a loop, when known before it runs.
    fn trip_count(&mut self, spec: &LoopSpec, span: Span) -> R<Option<Tensor>> {
        let rows = |s: &mut Stager, t: &Tensor| {
            s.emit(
                OpKind::Dim { axis: 0 },
                &[t],
                TensorType::scalar(DType::I64),
                span,
            )
            .map(Some)
        };
        match &spec.kind {
            LoopKind::Range {
                items: LoopItems::Rows(r),
                ..
            } => rows(self, &r.tensors[0]),
            LoopKind::Range {
                start, stop, step, ..
            } => {
                let n = self.range_len(start, stop, *step, span)?;
                self.to_tensor_as(&n, DType::I64, span).map(Some)
            }
            LoopKind::While(_) => Ok(None),
        }
    }
}

/// The state variables holding a compile-time number before the loop that
/// the probe saw changed (a staged value, another type or another value
/// after one iteration), and not yet staged in the probe.
fn changed_numbers(
    initial: &[Option<Value>],
    after: &[Option<Value>],
    widened: &BTreeSet<usize>,
) -> Vec<usize> {
    (0..initial.len())
        .filter(|i| !widened.contains(i))
        .filter(|&i| match (&initial[i], &after[i]) {
            (Some(a), Some(b)) if is_number(a) => {
                b.is_staged() || a.type_name() != b.type_name() || !super::pyops::py_eq(a, b)
            }
            _ => false,
        })
        .collect()
}

/// A compile-time Python number (what a probe may stage).
fn is_number(v: &Value) -> bool {
    matches!(
        v,
        Value::Int(_) | Value::SymInt(_) | Value::Float(_) | Value::Bool(_)
    )
}
