//! Staged `if` (AutoGraph's `if_stmt` on a staged condition): both branches
//! are traced into the regions of an IR `if` whose results are the variables
//! the branches assign. `return`, `break` and `continue` inside staged code
//! become flag variables; the statements after a staged exit run under an
//! `if` on those flags, so nothing executes that Python would have skipped.

use super::merge::{self, Plan};
use super::object_state;
use super::scope::Scope;
use super::value::{Tensor, Value};
use super::{Flow, Stager, R};
use agc_analysis::py::activity;
use agc_ir::{BinaryOp, OpKind, RegionId, Span, Type, UnaryOp};
use rustpython_parser::ast::Stmt;
use std::collections::BTreeSet;
use std::rc::Rc;

/// Set when a `return` ran inside staged control flow.
pub const RETURNED: &str = "__agc_returned";
/// The value of that `return`.
pub const RETVAL: &str = "__agc_retval";

/// How a diagnostic names a piece of control-flow state: `variable 'x'`,
/// or `the returned value` for [`RETVAL`].
pub fn describe_state(name: &str) -> String {
    if name == RETVAL {
        "the returned value".into()
    } else {
        format!("variable '{name}'")
    }
}

/// Set when a `break` ran inside a staged branch of the current loop.
pub const BROKE: &str = "__agc_broke";
/// Set when a `continue` ran inside a staged branch of the current loop.
pub const CONTINUED: &str = "__agc_continued";
/// The exit flags, in the order they are checked.
pub const EXIT_FLAGS: [&str; 3] = [RETURNED, BROKE, CONTINUED];

impl Stager {
    /// Traces `body` into `region`, turning its exit (return/break/continue)
    /// into flag variables. When `clear_flags`, the flags start out false
    /// (the region only runs when no exit happened before it).
    pub fn trace_region(
        &mut self,
        region: RegionId,
        body: &'static [Stmt],
        scope: &Rc<Scope>,
        clear_flags: bool,
    ) -> R<()> {
        if clear_flags {
            for flag in EXIT_FLAGS {
                if scope.get_here(flag).is_some() {
                    scope.set_local(flag, Value::Bool(false));
                }
            }
        }
        match self.in_region(region, |s| s.exec_block(body, scope))? {
            Flow::Normal => {}
            Flow::Break => scope.set_local(BROKE, Value::Bool(true)),
            Flow::Continue => scope.set_local(CONTINUED, Value::Bool(true)),
            Flow::Return(v) => {
                scope.set_local(RETURNED, Value::Bool(true));
                scope.set_local(RETVAL, v);
            }
        }
        Ok(())
    }

    /// The staged "some exit happened" flag, if any exit flag is staged.
    pub fn staged_exit(&mut self, scope: &Rc<Scope>, span: Span) -> R<Option<Tensor>> {
        let mut acc: Option<Tensor> = None;
        for flag in EXIT_FLAGS {
            if let Some(Value::Tensor(t)) = scope.get_here(flag) {
                acc = Some(match acc {
                    None => t,
                    Some(a) => self.binary_same(BinaryOp::Or, &a, &t, span)?,
                });
            }
        }
        Ok(acc)
    }

    /// Runs `rest` only where no staged exit happened.
    pub fn guard_rest(
        &mut self,
        exit: Tensor,
        rest: &'static [Stmt],
        scope: &Rc<Scope>,
        span: Span,
    ) -> R<()> {
        let ty = exit.ty.clone();
        let go_on = self.emit(OpKind::Unary(UnaryOp::Not), &[&exit], ty, span)?;
        let arms = IfArms {
            then: rest,
            orelse: &[],
            within: rest,
            owner: None,
            clear_flags_in_then: true,
        };
        self.staged_if(go_on, arms, scope, span)
    }

    /// `if cond: then else: orelse` with a staged rank-0 bool `cond`.
    pub fn staged_if(
        &mut self,
        cond: Tensor,
        arms: IfArms,
        scope: &Rc<Scope>,
        span: Span,
    ) -> R<()> {
        let IfArms {
            then: body,
            orelse,
            within,
            owner,
            clear_flags_in_then,
        } = arms;
        let mut assigned: BTreeSet<String> = activity::bound_names(body);
        assigned.extend(activity::bound_names(orelse));
        for block in [body, orelse] {
            assigned.extend(activity::item_written_names(block));
        }
        // Only what is read later leaves the `if` (unknown liveness: all of it).
        let live = self.facts.live_leaving(within);
        let (carried, dead): (BTreeSet<String>, BTreeSet<String>) = assigned
            .into_iter()
            .partition(|n| live.as_ref().is_none_or(|l| l.contains(n)));
        let mut names = carried;
        names.extend(EXIT_FLAGS.iter().map(|s| s.to_string()));
        names.insert(RETVAL.to_string());
        names.extend(super::lists::tensor_list_names(scope));
        names.extend(self.variable_state_names());
        let mut names: Vec<String> = names.into_iter().collect();
        let dead: Vec<String> = dead.into_iter().collect();
        let before: Vec<Option<Value>> = names.iter().map(|n| self.peek(scope, n)).collect();
        let dead_before: Vec<Option<Value>> = dead.iter().map(|n| self.peek(scope, n)).collect();
        let lists = super::lists::snapshot_tensor_lists(scope);
        let attrs_before = object_state::snapshot(scope);
        let containers = object_state::Containers::take(scope);
        // Undoes what a branch did, before the other branch or a new trace.
        let undo = |scope: &Rc<Scope>| {
            for (l, c) in &lists {
                *l.borrow_mut() = c.clone();
            }
            restore(scope, &names, &before);
            restore(scope, &dead, &dead_before);
            object_state::restore(scope, &attrs_before);
        };

        let f = self.func_mut();
        let (then_r, else_r) = (f.new_region(&[]), f.new_region(&[]));
        self.trace_region(then_r, body, scope, clear_flags_in_then)?;
        if self.stage_appended_lists(&containers, scope, span, &undo)? {
            return self.staged_if(cond, arms, scope, span);
        }
        // Staged lists are updated in place: keep the then-branch's contents
        // as new objects, and put the originals back for the else-branch.
        let mut after_then: Vec<Option<Value>> = names
            .iter()
            .map(|n| self.peek(scope, n).map(detach_list))
            .collect();
        let attrs_then = object_state::snapshot(scope);
        let containers_then = containers.changed();
        containers.restore(false);
        undo(scope);
        self.trace_region(else_r, orelse, scope, false)?;
        if self.stage_appended_lists(&containers, scope, span, &undo)? {
            return self.staged_if(cond, arms, scope, span);
        }
        let mut after_else: Vec<Option<Value>> =
            names.iter().map(|n| self.peek(scope, n)).collect();
        // Object attributes either branch changed are merged like variables.
        let attrs_else = object_state::snapshot(scope);
        let mut changed = object_state::changed(&attrs_before, &attrs_then);
        changed.extend(object_state::changed(&attrs_before, &attrs_else));
        for name in changed {
            if !names.contains(&name) {
                after_then.push(attrs_then.get(&name).cloned());
                after_else.push(attrs_else.get(&name).cloned());
                names.push(name);
            }
        }
        // So are lists and dicts either branch changed in place: each side as
        // a copy, and the objects themselves get their old contents back.
        let containers_else = containers.changed();
        let extra: BTreeSet<String> = containers_then
            .iter()
            .chain(&containers_else)
            .map(|(n, _)| n.clone())
            .filter(|n| !names.contains(n))
            .collect();
        for name in extra {
            let current = self.peek(scope, &name);
            after_then.push(current.clone());
            after_else.push(current);
            names.push(name);
        }
        for (changes, side) in [
            (&containers_then, &mut after_then),
            (&containers_else, &mut after_else),
        ] {
            for (name, copy) in changes {
                if let Some(i) = names.iter().position(|n| n == name) {
                    side[i] = Some(copy.clone());
                }
            }
        }
        containers.restore(false);

        let (line, _) = self.file.line_col(span.start);
        let mut plans: Vec<(usize, Plan)> = Vec::new();
        for (i, name) in names.iter().enumerate() {
            let what = format!("{} in the staged `if` at line {line}", describe_state(name));
            let pseudo = name.starts_with("__agc_");
            match (&after_then[i], &after_else[i]) {
                (None, None) => {}
                (Some(a), Some(b)) => plans.push((i, merge::plan(a, b, &what, span)?)),
                (Some(v), None) | (None, Some(v))
                    if pseudo
                        || !self.read_after_branch(
                            owner,
                            if after_then[i].is_some() {
                                orelse
                            } else {
                                body
                            },
                            name,
                        ) =>
                {
                    // A placeholder on the other side, which never reads it;
                    // a recursive result still being typed stays one.
                    if let Some(p) = merge::plan_one(v) {
                        plans.push((i, p));
                    } else if v.has_bottom() {
                        plans.push((i, Plan::Static(Value::Bottom)));
                    }
                }
                // Bound on one path only: reading it checks at run time which path ran.
                (Some(v), None) | (None, Some(v)) => plans.push((i, merge::plan_maybe_bound(v))),
            }
        }
        for (_, p) in plans.iter_mut() {
            merge::name_list_sizes(p, false, &mut |stem| self.fresh_dim(stem));
        }
        let mut yields = [Vec::new(), Vec::new()];
        for (k, (region, vals)) in [(then_r, &after_then), (else_r, &after_else)]
            .into_iter()
            .enumerate()
        {
            let out = &mut yields[k];
            let ops = self.in_region(region, |s| {
                for (i, p) in &plans {
                    s.materialize(vals[*i].as_ref(), p, span, &describe_state(&names[*i]), out)?;
                }
                // A value of an enclosing function (a closure's capture) becomes a parameter.
                out.iter()
                    .map(|t| s.localize(t, span))
                    .collect::<R<Vec<_>>>()
            })?;
            self.func_mut()
                .append_op(region, OpKind::Yield, ops, vec![], vec![], span);
        }
        let mut types = Vec::new();
        for (_, p) in &plans {
            merge::staged_types(p, &mut types);
        }
        let cond_v = self.localize(&cond, span)?;
        let region = self.region;
        let result_types = types.iter().map(|t| Type::Tensor(t.clone())).collect();
        let (_, results) = self.func_mut().append_op(
            region,
            OpKind::If,
            vec![cond_v],
            result_types,
            vec![then_r, else_r],
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
        self.bind_merged(&plans, &names, &mut values, scope);
        for (name, before) in dead.iter().zip(dead_before) {
            // Guarding the rest of a block after an exit that may have happened
            // earlier: a path that exited (a `continue` to the loop head) may still
            // read its value from before, and the path that ran the rest will not.
            if let (true, Some(v)) = (clear_flags_in_then, before) {
                scope.set_local(name, v);
                continue;
            }
            let why = format!("it is assigned in the staged `if` at line {line}, but liveness analysis found it unused afterwards (please report this bug)");
            scope.set_local(name, Value::Undefined(Rc::from(why)));
        }
        Ok(())
    }

    /// Whether `name` may be read after the branch `block` of the staged
    /// `if` statement `owner` (an empty block: its fall-through) before being
    /// assigned again. Unknown: true. A variable the other branch assigns and
    /// this one does not is an error only then (the for-else idiom assigns it
    /// on every path that reads it).
    fn read_after_branch(&self, owner: Option<&'static Stmt>, block: &[Stmt], name: &str) -> bool {
        let Some(owner @ Stmt::If(_)) = owner else {
            return true;
        };
        let live = if block.is_empty() {
            self.facts.live_after(owner).cloned()
        } else {
            self.facts.live_leaving(block)
        };
        live.is_none_or(|l| l.contains(name))
    }

    /// After a branch appended to Python lists (so their lengths differ
    /// between paths): undoes the branch, makes those lists growable staged
    /// lists, and returns true so that the `if` is traced again.
    fn stage_appended_lists(
        &mut self,
        containers: &object_state::Containers,
        scope: &Rc<Scope>,
        span: Span,
        undo: &dyn Fn(&Rc<Scope>),
    ) -> R<bool> {
        let grown = super::lists::lists_to_stage(self, containers.lists(), scope, span)?;
        if grown.is_empty() {
            return Ok(false);
        }
        containers.restore(true);
        undo(scope);
        containers.rebind_lists(scope);
        for (name, before, item) in grown {
            let staged = self.new_tensor_list(&before, &item, None, span)?;
            scope.set_local(&name, staged);
        }
        Ok(true)
    }

    /// A variable's current binding in this frame (not enclosing ones).
    pub fn peek(&self, scope: &Rc<Scope>, name: &str) -> Option<Value> {
        scope
            .get_here(name)
            .filter(|v| !matches!(v, Value::Undefined(_)))
    }
}

/// The two arms of a staged `if` and where it sits in the source.
#[derive(Clone, Copy)]
pub struct IfArms {
    /// Runs where the condition holds.
    pub then: &'static [Stmt],
    /// Runs where it does not.
    pub orelse: &'static [Stmt],
    /// The statements the staged `if` stands for: it hands on what is live
    /// on leaving them (empty: every assigned variable).
    pub within: &'static [Stmt],
    /// The statement that owns the arms (for messages naming assignment lines).
    pub owner: Option<&'static Stmt>,
    /// A guard of the rest of a block after a staged exit (`then` runs only
    /// where no exit happened): the exit flags start out false in `then`, and
    /// a variable `then` assigns that is dead after it keeps its value from
    /// before (the paths that exited may read it).
    pub clear_flags_in_then: bool,
}

/// A staged list's current contents as a new list object (others unchanged).
fn detach_list(v: Value) -> Value {
    match v {
        Value::TensorList(l) => {
            Value::TensorList(Rc::new(std::cell::RefCell::new(l.borrow().clone())))
        }
        other => other,
    }
}

/// Puts back the bindings `before` of `names`.
pub fn restore(scope: &Rc<Scope>, names: &[String], before: &[Option<Value>]) {
    for (n, v) in names.iter().zip(before) {
        match v {
            Some(v) => scope.set_local(n, v.clone()),
            None => {
                scope.remove(n);
            }
        }
    }
}
