//! Re-entrant staged functions (Snek's `__def_staged`/`__call_staged`,
//! Lantern's recursive functions): a Python function that calls itself from
//! inside staged control flow opened by an enclosing call of itself cannot
//! be inlined (its depth is only known at run time), so that call becomes
//! an IR call to a function specialised on the call's compile-time
//! arguments and tensor types, cached per specialisation (TF Eager's trace
//! cache). Mutual recursion works the same way, for whichever function
//! re-enters first.
//!
//! The result type is found first: the body is traced into a scratch
//! function where the recursive call yields [`Value::Bottom`], which every
//! operation absorbs and every merge ignores, so the base case decides the
//! type. Then the body is traced for real, recursive calls staging `call`
//! ops to the function being built.

use super::args::Args;
use super::merge::{self, Plan};
use super::structure::{canonical_types, rebuild_arg, shape_key};
use super::value::{Closure, Tensor, Value};
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{FuncId, Function, OpKind, Span, Type};
use std::rc::Rc;

/// The most tensors the arguments of one staged recursive call may hold,
/// and the longest description of their structure (its specialisation key).
const MAX_RECURSIVE_TENSORS: usize = 10_000;
const MAX_RECURSIVE_KEY: usize = 100_000;

/// A specialisation of a recursive function: being typed, or built.
#[derive(Clone, Debug)]
pub enum Specialisation {
    /// The result type is being discovered: recursive calls give `Bottom`.
    Typing,
    /// Built (or being built) as this function with this result plan; the
    /// tensors of the enclosing function it captured, passed after the
    /// arguments (known once it is built).
    Staged(FuncId, Plan, Rc<Vec<Tensor>>),
}

impl Stager {
    /// True when calling `c` now re-enters a call of `c` through staged
    /// control flow opened inside that call.
    pub fn is_staged_reentry(&self, c: &Rc<Closure>) -> bool {
        self.call_stack
            .iter()
            .rev()
            .find(|a| Rc::ptr_eq(&a.closure, c) && a.generation == self.generation)
            .is_some_and(|a| self.open_regions.len() > a.regions)
    }

    /// Stages a call of the recursive function `c`.
    pub fn staged_recursive_call(&mut self, c: &Rc<Closure>, args: Args) -> R<Value> {
        let span = args.span;
        // Keywords and defaults bound as Python binds them, so that calls
        // binding the same values share a specialisation.
        let args = super::calls::normalise_arguments(c, args)?;
        let values: Vec<&Value> = args
            .pos
            .iter()
            .chain(args.kw.iter().map(|(_, v)| v))
            .collect();
        if values.iter().any(|v| v.has_bottom()) {
            // An argument is itself a recursive result whose type is being found.
            return Ok(Value::Bottom);
        }
        let mut leaves: Vec<Tensor> = Vec::new();
        let mut shapes = Vec::new();
        for a in values {
            shapes.push(self.flatten_arg(a, false, &mut leaves, span)?);
        }
        let form = ArgForm {
            positional: args.pos.len(),
            keywords: args.kw.iter().map(|(k, _)| k.clone()).collect(),
        };
        let generic = canonical_types(&leaves, "?");
        let key = format!(
            "{:p}|{}|{}",
            Rc::as_ptr(c),
            shapes
                .iter()
                .map(|s| shape_key(s, &generic))
                .collect::<Vec<_>>()
                .join("|"),
            env_tensors(c)
        );
        if leaves.len() > MAX_RECURSIVE_TENSORS || key.len() > MAX_RECURSIVE_KEY {
            // Arguments that grow at every level (`f((x, x), n - 1)`) make a new,
            // larger specialisation per level: exponentially many tensors.
            return Err(Diagnostic::error(
                span,
                format!(
                    "the arguments of this staged recursive call of '{}' grow at every level \
                     ({} tensors, described by {} characters; agc's limits are \
                     {MAX_RECURSIVE_TENSORS} and {MAX_RECURSIVE_KEY}): the recursion's depth is \
                     only known at run time, so keep the arguments' structure the same at \
                     every level",
                    c.name,
                    leaves.len(),
                    key.len()
                ),
            ));
        }
        let (fid, plan, captured) = match self.specialisations.get(&key).cloned() {
            Some(Specialisation::Typing) => return Ok(Value::Bottom),
            Some(Specialisation::Staged(fid, plan, captured)) => (fid, plan, captured),
            // While another specialisation's type is being found, a new one
            // is not built yet: its result is absorbed too.
            None if self
                .specialisations
                .values()
                .any(|s| matches!(s, Specialisation::Typing)) =>
            {
                return Ok(Value::Bottom)
            }
            None => self.specialise(c, &key, &shapes, &leaves, &form, span)?,
        };
        // The callee names its own run-time sizes; its results speak of the
        // caller's sizes where they are the arguments' sizes.
        let callee = self.module.func(fid);
        let mut renames: std::collections::HashMap<String, agc_ir::Dim> =
            std::collections::HashMap::new();
        for (p, t) in callee.params().iter().zip(&leaves) {
            for (d, actual) in callee.ty(*p).tensor().dims.iter().zip(&t.ty.dims) {
                if let agc_ir::Dim::Sym(n) = d {
                    renames.insert(n.clone(), actual.clone());
                }
            }
        }
        let plan = merge::rename_dims(&plan, &renames);
        let mut types = Vec::new();
        merge::staged_types(&plan, &mut types);
        let operands = leaves
            .iter()
            .chain(captured.iter())
            .map(|t| self.localize(t, span))
            .collect::<R<Vec<_>>>()?;
        let region = self.region;
        let result_types: Vec<Type> = types.iter().map(|t| Type::Tensor(t.clone())).collect();
        let (_, results) = self.func_mut().append_op(
            region,
            OpKind::Call { callee: fid },
            operands,
            result_types,
            vec![],
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
        Ok(merge::rebuild(&plan, &mut values))
    }

    /// Types, then builds, the IR function for one specialisation.
    fn specialise(
        &mut self,
        c: &Rc<Closure>,
        key: &str,
        shapes: &[super::structure::Shape],
        leaves: &[Tensor],
        form: &ArgForm,
        span: Span,
    ) -> R<(FuncId, Plan, Rc<Vec<Tensor>>)> {
        // The function is generic over the run-time sizes of its arguments.
        let prefix = format!("{}.r{}.n", c.name, self.module.funcs.len());
        let params: Vec<(String, Type)> = canonical_types(leaves, &prefix)
            .into_iter()
            .enumerate()
            .map(|(i, t)| (format!("arg{i}"), Type::Tensor(t)))
            .collect();
        // 1. The result type, with recursive calls absorbed.
        self.specialisations
            .insert(key.to_string(), Specialisation::Typing);
        let scratch = Function::new(format!("{}_typing", c.name), &params, span);
        let (saved, tensors) = self.begin_function(scratch);
        // Tensors of the enclosing function it closes over become extra parameters.
        self.captures = Some(Vec::new());
        let tensors = keep_weak(tensors, leaves);
        let args: Vec<Value> = shapes.iter().map(|s| rebuild_arg(s, &tensors)).collect();
        let typed = self.call_closure(c, form.args(args, span));
        self.discard_function(saved);
        let result = typed?;
        let plan = merge::plan_one(&result).ok_or_else(|| {
            Diagnostic::error(
                span,
                format!(
                    "cannot find the result type of the recursive function '{}': it must return tensors or numbers, and have a path that does not recurse",
                    c.name
                ),
            )
        })?;
        // 2. The function itself.
        let fid = self.module.add_function(Function::new(
            format!("{}.r{}", c.name, self.module.funcs.len()),
            &params,
            span,
        ));
        self.specialisations.insert(
            key.to_string(),
            Specialisation::Staged(fid, plan.clone(), Rc::new(Vec::new())),
        );
        let real = Function::new(format!("{}.r{}", c.name, fid.index()), &params, c.span);
        let (saved, tensors) = self.begin_function(real);
        self.captures = Some(Vec::new());
        let tensors = keep_weak(tensors, leaves);
        let args: Vec<Value> = shapes.iter().map(|s| rebuild_arg(s, &tensors)).collect();
        let outs = self.call_closure(c, form.args(args, span)).and_then(|r| {
            let mut outs = Vec::new();
            self.materialize(
                Some(&r),
                &plan,
                span,
                &format!("the result of recursive function '{}'", c.name),
                &mut outs,
            )?;
            Ok(outs)
        });
        let captures: Vec<(Tensor, Tensor)> = self.captures.clone().unwrap_or_default();
        self.end_function_into(saved, outs, span, fid)?;
        self.pass_captures_to_recursive_calls(fid, leaves.len(), &captures, c, span)?;
        let captured = Rc::new(
            captures
                .into_iter()
                .map(|(outer, _)| outer)
                .collect::<Vec<_>>(),
        );
        self.specialisations.insert(
            key.to_string(),
            Specialisation::Staged(fid, plan.clone(), captured.clone()),
        );
        Ok((fid, plan, captured))
    }

    /// The recursive calls staged inside `fid` before its captures were all
    /// known pass its capture parameters too. A call from another function
    /// under construction (mutual recursion) cannot know them.
    fn pass_captures_to_recursive_calls(
        &mut self,
        fid: FuncId,
        arity: usize,
        captures: &[(Tensor, Tensor)],
        c: &Rc<Closure>,
        span: Span,
    ) -> R<()> {
        if captures.is_empty() {
            return Ok(());
        }
        let params: Vec<agc_ir::Value> = captures.iter().map(|(_, p)| p.value).collect();
        for (g, func) in self.module.funcs.iter_mut().enumerate() {
            for i in 0..func.num_ops() {
                let op = agc_ir::OpId(i as u32);
                if !matches!(func.op(op).kind, OpKind::Call { callee } if callee == fid)
                    || func.op(op).operands.len() != arity
                {
                    continue;
                }
                if g != fid.index() {
                    return Err(Diagnostic::unsupported(
                        span,
                        format!("the mutually recursive function '{}' uses tensors of the function around it; pass them as arguments", c.name),
                    ));
                }
                func.append_operands(op, &params);
            }
        }
        Ok(())
    }
}

/// The tensors bound where `c` was defined (its closure's frame), by
/// identity: a specialisation captures some of them, so rebinding one makes
/// a new specialisation.
fn env_tensors(c: &Closure) -> String {
    let mut ids: Vec<String> = c
        .env
        .bindings()
        .into_iter()
        .filter_map(|(name, v)| match v {
            Value::Tensor(t) => Some(format!("{name}={}@{}", t.value, t.origin)),
            _ => None,
        })
        .collect();
    ids.sort();
    ids.join(",")
}

/// Parameters standing for staged Python numbers stay weak.
fn keep_weak(params: Vec<Tensor>, leaves: &[Tensor]) -> Vec<Tensor> {
    params
        .into_iter()
        .zip(leaves)
        .map(|(p, l)| if l.weak { p.into_weak() } else { p })
        .collect()
}

/// How a recursive call's flattened argument values split into positional
/// and keyword arguments (see [`super::calls::normalise_arguments`]).
struct ArgForm {
    /// How many come first, by position.
    positional: usize,
    /// The keywords of the rest, in order.
    keywords: Vec<String>,
}

impl ArgForm {
    /// The call's arguments from its values in this form.
    fn args(&self, mut values: Vec<Value>, span: Span) -> Args {
        let kw = self
            .keywords
            .iter()
            .cloned()
            .zip(values.split_off(self.positional))
            .collect();
        Args {
            pos: values,
            kw,
            span,
        }
    }
}
