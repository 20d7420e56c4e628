//! `agc.Variable(initial)`: state that exports read and assign.
//!
//! A variable is a compile-time object ([`Value::Variable`]) whose current
//! value is a staged tensor: at module level its initial value (a prelude
//! tensor), inside an export a hidden parameter of the export's function
//! (every export takes every variable, after its own parameters) until
//! `v.assign(new)` rebinds it. The values assigned last become hidden
//! results of the export ([`agc_ir::Export::assigns`]), and the module's
//! init function returns the initial values ([`agc_ir::Module::init`]).
//!
//! Tensor operations (operators, indexing, numpy and builtin calls, the
//! results of an export) read a variable's current value; user functions
//! receive the variable itself, so that they can assign it. While an export
//! is staged the current values are bound in the module scope under state
//! names ([`super::scope::VARIABLE_STATE`]), which staged `if`s and loops
//! carry like variables: assigning is allowed anywhere in the export's own
//! IR function (not inside a staged recursive function).

use super::args::Args;
use super::value::{Tensor, Value};
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{Span, TensorType};
use std::rc::Rc;

/// One variable while the module is staged.
#[derive(Clone, Debug)]
pub struct VariableState {
    /// Its initial value (a module-level tensor).
    pub initial: Tensor,
    /// The name given with `name=`, if any.
    pub name: Option<String>,
    /// The value it had when the export began (its hidden parameter; `None` outside exports).
    pub entry: Option<Tensor>,
    /// Where it was created.
    pub span: Span,
}

impl VariableState {
    /// Its dtype and shape.
    pub fn ty(&self) -> &TensorType {
        &self.initial.ty
    }
}

impl Stager {
    /// `agc.Variable(initial, name=None)`.
    pub fn make_variable(&mut self, args: &Args) -> R<Value> {
        let span = args.span;
        let mut name = None;
        for (k, v) in &args.kw {
            match (k.as_str(), v) {
                ("name", Value::Str(s)) => name = Some(s.to_string()),
                ("name", Value::None) => {}
                _ => {
                    return Err(Diagnostic::error(
                        span,
                        format!("agc.Variable() got an unexpected keyword argument '{k}'"),
                    ))
                }
            }
        }
        let [initial] = args.pos.as_slice() else {
            return Err(Diagnostic::error(
                span,
                "agc.Variable takes one argument: its initial value",
            ));
        };
        if self.func.is_some() {
            return Err(Diagnostic::error(
                span,
                "agc.Variable creates state: create it at module level, outside exported functions",
            ));
        }
        let initial = match self.read_variables(initial) {
            Value::Tensor(t) => t,
            other => self.to_tensor(&other, None, span)?,
        };
        if initial.ty.dims.iter().any(|d| d.as_static().is_none()) {
            return Err(Diagnostic::error(
                span,
                format!("a variable has a static shape, not {}", initial.ty),
            ));
        }
        self.variables.push(VariableState {
            initial,
            name,
            entry: None,
            span,
        });
        Ok(Value::Variable(self.variables.len() - 1))
    }

    /// The current value of variable `k`.
    pub fn variable_value(&self, k: usize) -> Tensor {
        let v = &self.variables[k];
        match self
            .module_scope
            .as_ref()
            .and_then(|s| s.get_here(&state_name(k)))
        {
            Some(Value::Tensor(t)) if v.entry.is_some() => t,
            _ => v.initial.clone(),
        }
    }

    /// Binds variable `k`'s current value (in an export being staged).
    pub fn set_variable_value(&self, k: usize, t: Tensor) {
        if let Some(s) = &self.module_scope {
            s.set_local(&state_name(k), Value::Tensor(t));
        }
    }

    /// The state names staged control flow carries: every variable's, while an export is staged.
    pub fn variable_state_names(&self) -> Vec<String> {
        (0..self.variables.len())
            .filter(|&k| self.variables[k].entry.is_some())
            .map(state_name)
            .collect()
    }

    /// `v`, or its current value if it is a variable.
    pub fn read_variable(&self, v: &Value) -> Value {
        match v {
            Value::Variable(k) => Value::Tensor(self.variable_value(*k)),
            other => other.clone(),
        }
    }

    /// `v` with every variable (also inside tuples and lists, which are
    /// copied) replaced by its current value: what array arguments read.
    pub fn read_variables(&self, v: &Value) -> Value {
        match v {
            Value::Variable(k) => Value::Tensor(self.variable_value(*k)),
            Value::Tuple(items) if items.iter().any(holds_variable) => {
                Value::tuple(items.iter().map(|x| self.read_variables(x)).collect())
            }
            Value::List(items) if items.borrow().iter().any(holds_variable) => Value::list(
                items
                    .borrow()
                    .iter()
                    .map(|x| self.read_variables(x))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    /// `args` with the variables among them read: inside tuples and lists
    /// too when `deep` (numpy's array arguments), else only variables
    /// passed directly (Python's builtins, which keep the objects in a list).
    pub fn read_variables_in(&self, args: Args, deep: bool) -> Args {
        let read = |v: &Value| {
            if deep {
                self.read_variables(v)
            } else {
                self.read_variable(v)
            }
        };
        Args {
            pos: args.pos.iter().map(read).collect(),
            kw: args.kw.iter().map(|(k, v)| (k.clone(), read(v))).collect(),
            span: args.span,
        }
    }

    /// An attribute of variable `k`: `assign`, `value`, or the value's own.
    pub fn variable_attr(&mut self, k: usize, name: &str, span: Span) -> R<Value> {
        match name {
            "assign" => Ok(Value::Builtin(
                Rc::from("agc.Variable.assign"),
                Some(Box::new(Value::Variable(k))),
            )),
            "value" => Ok(Value::Tensor(self.variable_value(k))),
            _ => {
                let t = Value::Tensor(self.variable_value(k));
                self.get_attr(&t, name, span)
            }
        }
    }

    /// `v.assign(new)`: rebinds variable `k` in the export being staged.
    pub fn assign_variable(&mut self, k: usize, args: &Args) -> R<Value> {
        let span = args.span;
        let [new] = args.pos.as_slice() else {
            return Err(Diagnostic::error(
                span,
                "assign takes one argument: the new value",
            ));
        };
        match &self.variables[k].entry {
            None => {
                return Err(Diagnostic::error(
                    span,
                    "a variable is assigned outside an exported function",
                ))
            }
            Some(e) if e.origin != self.generation => {
                return Err(Diagnostic::unsupported(
                    span,
                    "a variable is assigned inside a staged recursive function; return the new value and assign it in the exported function",
                ))
            }
            Some(_) => {}
        }
        let ty = self.variables[k].ty().clone();
        let new = self.read_variables(new);
        let mut new = self.to_tensor(&new, Some(ty.dtype), span)?;
        if new.weak {
            new = self.cast(&new, ty.dtype, span)?;
        }
        if new.ty != ty {
            let new_ty = new.ty.clone();
            return Err(Diagnostic::error(
                span,
                format!("a variable of type {ty} cannot be assigned a value of type {new_ty}"),
            ));
        }
        self.set_variable_value(k, new);
        Ok(Value::None)
    }
}

impl Stager {
    /// Names the variables (by `name=`, else the module-level name bound to
    /// them, else `var<k>`), declares them in the module and stages the init
    /// function that computes their initial values.
    pub fn declare_variables(&mut self, globals: &Rc<super::scope::Scope>) -> R<()> {
        if self.variables.is_empty() {
            return Ok(());
        }
        let mut bound: Vec<(String, usize)> = globals
            .bindings()
            .into_iter()
            .filter_map(|(name, v)| match v {
                Value::Variable(k) => Some((name, k)),
                _ => None,
            })
            .collect();
        bound.sort();
        let mut names: Vec<String> = Vec::new();
        for (k, v) in self.variables.iter().enumerate() {
            let name = v
                .name
                .clone()
                .or_else(|| bound.iter().find(|(_, j)| *j == k).map(|(n, _)| n.clone()))
                .unwrap_or_else(|| format!("var{k}"));
            if names.contains(&name) {
                return Err(Diagnostic::error(
                    v.span,
                    format!("two variables are named '{name}': give them distinct names with agc.Variable(..., name=...)"),
                ));
            }
            names.push(name);
        }
        for (v, name) in self.variables.iter().zip(&names) {
            self.module.variables.push(agc_ir::VariableDecl {
                name: name.clone(),
                ty: v.ty().clone(),
            });
        }
        let span = self.variables[0].span;
        let f = agc_ir::Function::new("__agc_init__", &[], span);
        let (saved, _) = self.begin_function(f);
        let initial: Vec<Tensor> = self.variables.iter().map(|v| v.initial.clone()).collect();
        let id = self.end_function(saved, Ok(initial), span)?;
        self.module.init = Some(id);
        Ok(())
    }
}

/// The state name of variable `k`'s current value.
fn state_name(k: usize) -> String {
    format!("{}{k}", super::scope::VARIABLE_STATE)
}

/// Whether `v` is a variable or a tuple or list holding one.
fn holds_variable(v: &Value) -> bool {
    match v {
        Value::Variable(_) => true,
        Value::Tuple(items) => items.iter().any(holds_variable),
        Value::List(items) => items.borrow().iter().any(holds_variable),
        _ => false,
    }
}
