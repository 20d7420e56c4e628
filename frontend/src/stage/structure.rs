//! The structure of call arguments: which parts are staged tensors (leaves,
//! that become parameters of a traced IR function) and which are
//! compile-time values baked into it. Used by `agc.grad` and by staged
//! recursive functions.

use super::pyops;
use super::value::{SeqKind, Tensor, Value};
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{DType, Span};
use std::rc::Rc;

/// How one argument maps to the traced function's parameters.
pub enum Shape {
    /// Baked in at compile time.
    Static(Value),
    /// Parameter number `.0`.
    Leaf(usize),
    /// A tuple, list or namedtuple of parts.
    Seq(Vec<Shape>, SeqKind),
    /// A dict with these keys and parts.
    Dict(Vec<(Value, Shape)>),
}

impl Stager {
    /// Flattens an argument into tensor leaves; `differentiated` arguments
    /// must be made of tensors (or Python floats, staged as float64).
    pub fn flatten_arg(
        &mut self,
        a: &Value,
        differentiated: bool,
        leaves: &mut Vec<Tensor>,
        span: Span,
    ) -> R<Shape> {
        Ok(match a {
            Value::Tensor(t) => {
                leaves.push(t.clone());
                Shape::Leaf(leaves.len() - 1)
            }
            Value::Float(_) if differentiated => {
                let t = self.to_tensor(a, Some(DType::F64), span)?;
                leaves.push(t);
                Shape::Leaf(leaves.len() - 1)
            }
            // A run-time size is a value of the caller's: pass it in (as a Python int).
            Value::SymInt(agc_ir::Dim::Sym(_)) => {
                let t = self.to_tensor(a, Some(DType::I64), span)?;
                leaves.push(t);
                Shape::Leaf(leaves.len() - 1)
            }
            Value::Tuple(_) | Value::List(_) | Value::NamedTuple(..) => {
                let kind = SeqKind::of(a)
                    .ok_or_else(|| Diagnostic::internal(span, "a sequence without a kind"))?;
                let items = pyops::iterate(a, span)?;
                let parts = items
                    .iter()
                    .map(|x| self.flatten_arg(x, differentiated, leaves, span))
                    .collect::<R<_>>()?;
                Shape::Seq(parts, kind)
            }
            Value::Dict(d) => {
                let items = d.borrow().clone();
                let parts = items
                    .into_iter()
                    .map(|(k, v)| Ok((k, self.flatten_arg(&v, differentiated, leaves, span)?)))
                    .collect::<R<_>>()?;
                Shape::Dict(parts)
            }
            other if differentiated => {
                return Err(Diagnostic::error(
                    span,
                    format!(
                        "agc.grad cannot differentiate with respect to a {}",
                        other.type_name()
                    ),
                ))
            }
            other => Shape::Static(other.clone()),
        })
    }
}

/// A key for the compile-time part of a shape and its leaves' types: two
/// calls with equal keys share one staged function.
pub fn shape_key(s: &Shape, leaves: &[agc_ir::TensorType]) -> String {
    match s {
        Shape::Static(v) => format!("{}:{}", v.type_name(), pyops::py_repr(v)),
        Shape::Leaf(i) => leaves[*i].to_string(),
        Shape::Seq(parts, kind) => {
            let inner = parts
                .iter()
                .map(|p| shape_key(p, leaves))
                .collect::<Vec<_>>()
                .join(",");
            match kind {
                SeqKind::List => format!("[{inner}]"),
                SeqKind::Tuple => format!("({inner})"),
                SeqKind::Named(c) => format!("{}@{:p}({inner})", c.name, Rc::as_ptr(c)),
            }
        }
        Shape::Dict(parts) => {
            let inner: Vec<String> = parts
                .iter()
                .map(|(k, p)| format!("{}={}", pyops::py_repr(k), shape_key(p, leaves)))
                .collect();
            format!("{{{}}}", inner.join(","))
        }
    }
}

/// The leaves' types with their symbolic dims renamed in order of first
/// appearance (`prefix0`, `prefix1`, ...): the run-time sizes a specialisation
/// is generic over, keeping which of them are equal.
pub fn canonical_types(leaves: &[Tensor], prefix: &str) -> Vec<agc_ir::TensorType> {
    let mut names: Vec<String> = Vec::new();
    leaves
        .iter()
        .map(|t| {
            let dims =
                t.ty.dims
                    .iter()
                    .map(|d| match d {
                        agc_ir::Dim::Sym(n) => {
                            let k = names.iter().position(|x| x == n).unwrap_or_else(|| {
                                names.push(n.clone());
                                names.len() - 1
                            });
                            agc_ir::Dim::Sym(format!("{prefix}{k}"))
                        }
                        d => d.clone(),
                    })
                    .collect();
            agc_ir::TensorType::new(t.ty.dtype, dims)
        })
        .collect()
}

/// The argument value for a shape, with parameters in place of leaves.
pub fn rebuild_arg(s: &Shape, params: &[Tensor]) -> Value {
    match s {
        Shape::Static(v) => v.clone(),
        Shape::Leaf(i) => Value::Tensor(params[*i].clone()),
        Shape::Seq(parts, kind) => {
            kind.build(parts.iter().map(|p| rebuild_arg(p, params)).collect())
        }
        Shape::Dict(parts) => Value::Dict(Rc::new(std::cell::RefCell::new(
            parts
                .iter()
                .map(|(k, p)| (k.clone(), rebuild_arg(p, params)))
                .collect(),
        ))),
    }
}

/// The parameter numbers of a shape's leaves.
pub fn leaf_indices(s: &Shape) -> Vec<usize> {
    match s {
        Shape::Static(_) => vec![],
        Shape::Leaf(i) => vec![*i],
        Shape::Seq(parts, _) => parts.iter().flat_map(leaf_indices).collect(),
        Shape::Dict(parts) => parts.iter().flat_map(|(_, p)| leaf_indices(p)).collect(),
    }
}

/// A value of the shape's structure from one tensor per leaf (compile-time parts become `None`).
pub fn rebuild_grad(s: &Shape, grads: &mut impl Iterator<Item = Tensor>) -> Value {
    match s {
        Shape::Static(_) => Value::None,
        Shape::Leaf(_) => grads.next().map(Value::Tensor).unwrap_or(Value::None),
        Shape::Seq(parts, kind) => {
            kind.build(parts.iter().map(|p| rebuild_grad(p, grads)).collect())
        }
        Shape::Dict(parts) => Value::Dict(Rc::new(std::cell::RefCell::new(
            parts
                .iter()
                .map(|(k, p)| (k.clone(), rebuild_grad(p, grads)))
                .collect(),
        ))),
    }
}
