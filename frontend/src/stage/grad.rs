//! `agc.grad(f, argnums)` and `agc.value_and_grad(f, argnums)` inside staged
//! code: `f` is traced into its own IR function for the argument types at
//! the call, the AD pass (`agc_lowering::ad`) appends its value-and-gradient
//! function, and the call site stages a call to it. Arguments may be tensors
//! or tuples/lists/dicts of tensors; gradients come back in the same
//! structure. Compile-time arguments are baked into the traced function.

use super::args::Args;
use super::pyops;
use super::structure::{leaf_indices, rebuild_arg, rebuild_grad};
use super::value::{Tensor, Value};
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{Function, OpKind, Type};
use std::rc::Rc;

impl Stager {
    /// `agc.grad(f, argnums=0)` / `agc.value_and_grad(...)`: a callable.
    pub fn make_grad(&mut self, args: &Args, with_value: bool) -> R<Value> {
        let name = if with_value {
            "agc.value_and_grad"
        } else {
            "agc.grad"
        };
        args.check(name, 2, &["fun", "argnums"])?;
        let f = args.req(0, "fun", name)?;
        let argnums = args.get(1, "argnums").unwrap_or(Value::Int(0));
        Ok(Value::Builtin(
            Rc::from("agc.grad_fn"),
            Some(Box::new(Value::tuple(vec![
                f,
                argnums,
                Value::Bool(with_value),
            ]))),
        ))
    }

    /// Calls a function made by [`Stager::make_grad`].
    pub fn call_grad(&mut self, spec: &Value, args: Args) -> R<Value> {
        let span = args.span;
        let parts = pyops::iterate(spec, span)?;
        let (f, argnums, with_value) =
            (&parts[0], &parts[1], pyops::truthy(&parts[2]) == Some(true));
        let (nums, single) = match argnums {
            Value::Tuple(_) | Value::List(_) => (pyops::iterate(argnums, span)?, false),
            other => (vec![other.clone()], true),
        };
        let n = args.pos.len() as i64;
        let nums: Vec<usize> = nums
            .iter()
            .map(|v| match v.as_int() {
                Some(i) if -n <= i && i < n => {
                    Ok(if i < 0 { (i + n) as usize } else { i as usize })
                }
                _ => Err(Diagnostic::error(
                    span,
                    format!(
                        "argnums {} is out of range for {n} positional arguments",
                        pyops::py_repr(v)
                    ),
                )),
            })
            .collect::<R<_>>()?;
        // Flatten the arguments into parameters.
        let mut leaves: Vec<Tensor> = Vec::new();
        let mut shapes = Vec::new();
        for (i, a) in args.pos.iter().enumerate() {
            shapes.push(self.flatten_arg(a, nums.contains(&i), &mut leaves, span)?);
        }
        let params: Vec<(String, Type)> = leaves
            .iter()
            .enumerate()
            .map(|(i, t)| (format!("arg{i}"), Type::Tensor(t.ty.clone())))
            .collect();
        let fname = match f {
            Value::Function(c) => c.name.clone(),
            _ => "f".into(),
        };
        let traced = Function::new(
            format!("{fname}.grad{}", self.module.funcs.len()),
            &params,
            span,
        );
        let (saved, param_tensors) = self.begin_function(traced);
        // Tensors of the enclosing function that `f` closes over become extra
        // (undifferentiated) parameters.
        self.captures = Some(Vec::new());
        let call_args: Vec<Value> = shapes
            .iter()
            .map(|s| rebuild_arg(s, &param_tensors))
            .collect();
        let out = self
            .call(
                f,
                Args {
                    pos: call_args,
                    kw: args.kw.clone(),
                    span,
                },
            )
            .and_then(|r| {
                let t = match &r {
                    Value::Tensor(t) => t.clone(),
                    other if super::tensor::kind_of(other).is_some() => {
                        self.to_tensor(other, None, span)?
                    }
                    other => {
                        return Err(Diagnostic::error(
                            span,
                            format!(
                                "the function passed to agc.grad must return a scalar, got a {}",
                                other.type_name()
                            ),
                        ))
                    }
                };
                // A scalar, or one element in any rank, as autograd accepts (its value keeps that shape).
                if t.ty.static_numel() != Some(1) || !t.ty.dtype.is_float() {
                    return Err(Diagnostic::error(
                        span,
                        format!("the function passed to agc.grad must return a float scalar (or a one-element array), got {}", t.ty),
                    ));
                }
                // A result that is a tensor of the enclosing function (`lambda v: y`)
                // becomes a capture now, before the captures are collected below.
                self.localize(&t, span)?;
                Ok(vec![t])
            });
        let captured: Vec<Tensor> = self
            .captures
            .iter()
            .flatten()
            .map(|(outer, _)| outer.clone())
            .collect();
        let fid = self.end_function(saved, out, span)?;
        // Parameters to differentiate: the leaves of the chosen arguments.
        let wrt: Vec<usize> = nums
            .iter()
            .flat_map(|&i| leaf_indices(&shapes[i]))
            .collect();
        let vjp = agc_lowering::ad::value_and_grad(&mut self.module, fid, &wrt).map_err(|e| {
            Diagnostic::error(if e.span.is_unknown() { span } else { e.span }, e.message)
        })?;
        let result_types = self.module.func(vjp).result_types.clone();
        let operands = leaves
            .iter()
            .chain(&captured)
            .map(|t| self.localize(t, span))
            .collect::<R<Vec<_>>>()?;
        let region = self.region;
        let (_, results) = self.func_mut().append_op(
            region,
            OpKind::Call { callee: vjp },
            operands,
            result_types.clone(),
            vec![],
            span,
        );
        let origin = self.generation;
        let outs: Vec<Tensor> = results
            .into_iter()
            .zip(result_types)
            .map(|(value, ty)| Tensor {
                value,
                ty: ty.tensor().clone(),
                origin,
                region,
                weak: false,
            })
            .collect();
        let value = Value::Tensor(outs[0].clone());
        let mut grads = outs[1..].iter().cloned();
        let per_arg: Vec<Value> = nums
            .iter()
            .map(|&i| rebuild_grad(&shapes[i], &mut grads))
            .collect();
        let g = if single {
            per_arg.into_iter().next().unwrap_or(Value::None)
        } else {
            Value::tuple(per_arg)
        };
        Ok(if with_value {
            Value::tuple(vec![value, g])
        } else {
            g
        })
    }
}
