//! `@agc.export` functions become IR functions: annotated parameters are
//! staged tensors, compile-time keyword arguments are bound, the body is
//! traced, and the returned tensors (a tensor or a tuple of them) become the
//! function's results.

use super::args::Args;
use super::value::{Tensor, Value};
use super::{ExportRequest, Stager, R};
use crate::diagnostics::Diagnostic;
use crate::parse::span_of;
use agc_ir::{Function, Span, Type};

impl Stager {
    /// Stages one export into a verified IR function of the module; returns
    /// it and the variables it assigns ([`agc_ir::Export::assigns`]).
    pub fn stage_export(&mut self, req: &ExportRequest) -> R<(agc_ir::FuncId, Vec<usize>)> {
        let c = &req.func;
        let mut params: Vec<(String, Type)> = Vec::new();
        let mut call = Args {
            span: req.span,
            ..Args::default()
        };
        let positional: Vec<_> = c.args.posonlyargs.iter().chain(&c.args.args).collect();
        let first_default = positional.len() - c.defaults.len();
        let mut staged_slots = Vec::new();
        for (i, a) in positional.iter().enumerate() {
            let name = a.def.arg.to_string();
            let v = self.export_param(
                req,
                &name,
                span_of(&a.def),
                (i >= first_default).then(|| c.defaults[i - first_default].clone()),
            )?;
            match v {
                Some(v) => call.pos.push(v),
                None => {
                    staged_slots.push((true, call.pos.len()));
                    call.pos.push(Value::None);
                    params.push((name.clone(), param_type(c, &name)));
                }
            }
        }
        for a in &c.args.kwonlyargs {
            let name = a.def.arg.to_string();
            match self.export_param(
                req,
                &name,
                span_of(&a.def),
                c.kw_defaults.get(&name).cloned(),
            )? {
                Some(v) => call.kw.push((name, v)),
                None => {
                    staged_slots.push((false, call.kw.len()));
                    call.kw.push((name.clone(), Value::None));
                    params.push((name.clone(), param_type(c, &name)));
                }
            }
        }
        if let Some((k, _)) = req
            .static_kwargs
            .iter()
            .find(|(k, _)| !c.locals.contains(k) || !has_param(c, k))
        {
            return Err(Diagnostic::error(
                req.span,
                format!("'{k}' is not a parameter of '{}'", c.name),
            ));
        }
        let user_params = params.len();
        for (k, v) in self.variables.iter().enumerate() {
            params.push((format!("__agc_var{k}"), Type::Tensor(v.ty().clone())));
        }
        let f = Function::new(req.name.clone(), &params, c.span);
        let (saved, tensors) = self.begin_function(f);
        self.last_return = Span::UNKNOWN;
        for (k, t) in tensors[user_params..].iter().enumerate() {
            self.variables[k].entry = Some(t.clone());
            self.set_variable_value(k, t.clone());
        }
        for ((positional, slot), t) in staged_slots.into_iter().zip(tensors) {
            let v = Value::Tensor(t);
            if positional {
                call.pos[slot] = v;
            } else {
                call.kw[slot].1 = v;
            }
        }
        let outs = self.call_closure(c, call).and_then(|r| {
            let mut outs = Vec::new();
            let at = if self.last_return.is_unknown() {
                c.span
            } else {
                self.last_return
            };
            self.flatten_result(&r, at, &req.name, &mut outs)?;
            Ok(outs)
        });
        // The variables whose value changed are results too, after the export's own.
        let mut assigns = Vec::new();
        let outs = outs.map(|mut outs| {
            for (k, v) in self.variables.iter().enumerate() {
                let cur = self.variable_value(k);
                if v.entry
                    .as_ref()
                    .is_some_and(|e| cur.value != e.value || cur.origin != e.origin)
                {
                    assigns.push(k);
                    outs.push(cur);
                }
            }
            outs
        });
        for k in 0..self.variables.len() {
            self.variables[k].entry = None;
            if let Some(s) = &self.module_scope {
                s.remove(&format!("{}{k}", super::scope::VARIABLE_STATE));
            }
        }
        let id = self.end_function(saved, outs, c.span)?;
        Ok((id, assigns))
    }

    /// The compile-time value bound to an export parameter, or `None` if it is a staged tensor.
    fn export_param(
        &mut self,
        req: &ExportRequest,
        name: &str,
        span: Span,
        default: Option<Value>,
    ) -> R<Option<Value>> {
        if let Some((_, v)) = req.static_kwargs.iter().find(|(k, _)| k == name) {
            return Ok(Some(v.clone()));
        }
        match req.func.annotations.get(name) {
            Some(Value::Spec(_)) => Ok(None),
            Some(Value::SpecFactory(dtype)) => {
                let dtype = match dtype {
                    agc_ir::DType::Bool => "bool_".to_string(),
                    d => d.to_string(),
                };
                Err(Diagnostic::error(
                    span,
                    format!("parameter '{name}' of exported function '{}' is annotated with agc.{dtype}, a dtype without a shape: write agc.{dtype}[()] for a scalar or give the shape, as in agc.{dtype}[\"B\", 784]", req.func.name),
                ))
            }
            Some(other) => Err(Diagnostic::error(
                span,
                format!("parameter '{name}' of exported function '{}' is annotated with a {}, not a tensor spec like agc.f32[...]", req.func.name, other.type_name()),
            )),
            None => default.map(Some).ok_or_else(|| {
                Diagnostic::error(
                    span,
                    format!("parameter '{name}' of exported function '{}' needs a tensor annotation such as agc.f32[\"B\", 784] (or a compile-time value bound with @agc.export({name}=...))", req.func.name),
                )
            }),
        }
    }

    fn flatten_result(
        &mut self,
        v: &Value,
        span: Span,
        name: &str,
        out: &mut Vec<Tensor>,
    ) -> R<()> {
        match v {
            Value::Tuple(_) | Value::List(_) | Value::NamedTuple(..) => {
                for item in super::pyops::iterate(v, span)? {
                    self.flatten_result(&item, span, name, out)?;
                }
                Ok(())
            }
            Value::None => Err(Diagnostic::error(span, format!("exported function '{name}' returns None; it must return a tensor or a tuple of tensors"))),
            Value::Variable(k) => {
                out.push(self.variable_value(*k));
                Ok(())
            }
            Value::Tensor(t) => {
                out.push(t.clone());
                Ok(())
            }
            other => match super::tensor::kind_of(other) {
                Some(_) => {
                    let t = self.to_tensor(other, None, span)?;
                    out.push(t);
                    Ok(())
                }
                None => Err(Diagnostic::error(
                    span,
                    format!("exported function '{name}' returns a {}; it must return tensors", other.type_name()),
                )),
            },
        }
    }
}

fn param_type(c: &super::value::Closure, name: &str) -> Type {
    match c.annotations.get(name) {
        Some(Value::Spec(t)) => Type::Tensor(t.clone()),
        _ => unreachable!("export_param returned None only for tensor specs"),
    }
}

fn has_param(c: &super::value::Closure, name: &str) -> bool {
    agc_analysis::py::activity::parameter_names(c.args)
        .iter()
        .any(|p| p == name)
}
