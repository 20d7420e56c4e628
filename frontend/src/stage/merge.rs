//! Merging the values a variable takes on two control-flow paths (the two
//! branches of a staged `if`, or a loop's state before and after its body)
//! into one staged type, and materialising each path's value in that type.
//!
//! A value that is the same compile-time object on both paths stays a
//! compile-time value. Tuples merge element by element. Numbers and tensors
//! become one tensor type: Python scalars adopt the other side's dtype
//! (NEP 50) and broadcast to its shape; two tensors must agree exactly.

use super::pyops;
use super::tensor::{kind_of, result_dtype};
use super::value::{SeqKind, Tensor, Value};
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{Dim, OpKind, Span, TensorType};

/// How a variable crosses a merge point.
#[derive(Clone, Debug)]
pub enum Plan {
    /// The same compile-time value on every path.
    Static(Value),
    /// A staged tensor of this type; `true` for a staged Python number.
    Staged(TensorType, bool),
    /// A tuple, list or namedtuple merged element-wise.
    Seq(Vec<Plan>, SeqKind),
    /// A dict merged key by key (same keys, same order).
    Dict(Vec<(Value, Plan)>),
    /// A staged list: its buffer type (the length is a rank-0 `i64`).
    TensorList(TensorType),
    /// A value bound on some paths only: its plan, then a rank-0 `bool`
    /// saying whether it is bound.
    MaybeBound(Box<Plan>),
}

/// The plan for a variable bound on one path only: its value where bound,
/// and whether it is (a compile-time value stays one).
pub fn plan_maybe_bound(v: &Value) -> Plan {
    let inner = match v {
        Value::MaybeBound(m) => &m.value,
        other => other,
    };
    Plan::MaybeBound(Box::new(
        plan_one(inner).unwrap_or_else(|| Plan::Static(inner.clone())),
    ))
}

/// The plan for a value seen on one path only (the other path leaves it undefined).
pub fn plan_one(v: &Value) -> Option<Plan> {
    match v {
        Value::MaybeBound(_) => Some(plan_maybe_bound(v)),
        Value::TensorList(l) => Some(Plan::TensorList(l.borrow().0.ty.clone())),
        Value::Tensor(t) => Some(Plan::Staged(t.ty.clone(), t.weak)),
        Value::Tuple(_) | Value::List(_) | Value::NamedTuple(..) => {
            let items = pyops::iterate(v, Span::UNKNOWN).ok()?;
            let plans = items.iter().map(plan_one).collect::<Option<Vec<_>>>()?;
            Some(Plan::Seq(plans, SeqKind::of(v)?))
        }
        Value::Dict(d) => {
            let items = d.borrow().clone();
            let plans = items
                .iter()
                .map(|(k, x)| plan_one(x).map(|p| (k.clone(), p)))
                .collect::<Option<Vec<_>>>()?;
            Some(Plan::Dict(plans))
        }
        other => kind_of(other).map(|k| Plan::Staged(TensorType::scalar(result_dtype(&[k])), true)),
    }
}

/// The plan for a variable seen as `a` on one path and `b` on the other.
/// `what` names the variable and the construct, for messages.
pub fn plan(a: &Value, b: &Value, what: &str, span: Span) -> R<Plan> {
    let incompatible = |detail: String| Diagnostic::error(span, format!("{what}: {detail}"));
    // A recursive call's result while its type is being found takes the other side's type.
    match (a.has_bottom(), b.has_bottom()) {
        (true, true) => return Ok(Plan::Static(Value::Bottom)),
        (true, false) => {
            return plan_one(b).ok_or_else(|| {
                incompatible("a recursive result meets a value that cannot be staged".into())
            })
        }
        (false, true) => {
            return plan_one(a).ok_or_else(|| {
                incompatible("a recursive result meets a value that cannot be staged".into())
            })
        }
        _ => {}
    }
    if let (Value::MaybeBound(_), _) | (_, Value::MaybeBound(_)) = (a, b) {
        let inner = |v: &Value| match v {
            Value::MaybeBound(m) => m.value.clone(),
            other => other.clone(),
        };
        return Ok(Plan::MaybeBound(Box::new(plan(
            &inner(a),
            &inner(b),
            what,
            span,
        )?)));
    }
    if !a.is_staged() && !b.is_staged() && pyops::py_eq(a, b) {
        return Ok(Plan::Static(a.clone()));
    }
    match (a, b) {
        (Value::TensorList(x), Value::TensorList(y)) => {
            let (tx, ty) = (x.borrow().0.ty.clone(), y.borrow().0.ty.clone());
            let item = |t: &TensorType| TensorType::new(t.dtype, t.dims[1..].to_vec());
            if !super::list_items::fits(&item(&tx), &item(&ty)) {
                return Err(incompatible(format!(
                    "a list of {} items on one path and of {} items on the other",
                    item(&tx),
                    item(&ty)
                )));
            }
            // A size one path changed (the buffer grew, the first item sized
            // the items) gets a name of its own.
            let dims = tx.dims.iter().zip(&ty.dims).map(|(a, b)| {
                if a == b {
                    a.clone()
                } else {
                    Dim::Sym(UNNAMED_SIZE.into())
                }
            });
            Ok(Plan::TensorList(TensorType::new(tx.dtype, dims.collect())))
        }
        (
            Value::Tuple(_) | Value::List(_) | Value::NamedTuple(..),
            Value::Tuple(_) | Value::List(_) | Value::NamedTuple(..),
        ) => {
            let (xs, ys) = (pyops::iterate(a, span)?, pyops::iterate(b, span)?);
            if xs.len() != ys.len() {
                return Err(incompatible(format!(
                    "sequences of lengths {} and {}",
                    xs.len(),
                    ys.len()
                )));
            }
            let plans = xs
                .iter()
                .zip(&ys)
                .map(|(x, y)| plan(x, y, what, span))
                .collect::<R<_>>()?;
            let kind = SeqKind::of(a)
                .ok_or_else(|| Diagnostic::internal(span, "a sequence without a kind"))?;
            Ok(Plan::Seq(plans, kind))
        }
        (Value::Dict(x), Value::Dict(y)) => {
            let (xs, ys) = (x.borrow().clone(), y.borrow().clone());
            if xs.len() != ys.len()
                || xs
                    .iter()
                    .zip(&ys)
                    .any(|((k1, _), (k2, _))| !pyops::py_eq(k1, k2))
            {
                return Err(incompatible("dicts with different keys".into()));
            }
            let plans = xs
                .iter()
                .zip(&ys)
                .map(|((k, p), (_, q))| plan(p, q, what, span).map(|pl| (k.clone(), pl)))
                .collect::<R<_>>()?;
            Ok(Plan::Dict(plans))
        }
        (Value::Tensor(x), Value::Tensor(y)) => {
            if x.ty.dtype != y.ty.dtype {
                return Err(incompatible(format!(
                    "dtype {} on one path and {} on the other",
                    x.ty.dtype.numpy_name(),
                    y.ty.dtype.numpy_name()
                )));
            }
            if x.ty.dims != y.ty.dims {
                return Err(incompatible(format!(
                    "shape {} on one path and {} on the other",
                    x.ty.shape_string(),
                    y.ty.shape_string()
                )));
            }
            Ok(Plan::Staged(x.ty.clone(), x.weak && y.weak))
        }
        _ => match (kind_of(a), kind_of(b)) {
            (Some(ka), Some(kb)) => {
                let dtype = result_dtype(&[ka, kb]);
                let dims = match (a, b) {
                    (Value::Tensor(t), _) | (_, Value::Tensor(t)) => t.ty.dims.clone(),
                    _ => Vec::new(),
                };
                if let (Value::Tensor(t), _) | (_, Value::Tensor(t)) = (a, b) {
                    if t.ty.dtype != dtype {
                        return Err(incompatible(format!(
                            "a {} tensor on one path and a Python number that needs {} on the other",
                            t.ty.dtype.numpy_name(),
                            dtype.numpy_name()
                        )));
                    }
                }
                let weak = ![a, b]
                    .iter()
                    .any(|v| matches!(kind_of(v), Some(super::tensor::Kind::Strong(_))));
                Ok(Plan::Staged(TensorType::new(dtype, dims), weak))
            }
            _ => Err(incompatible(format!(
                "different compile-time values ({} and {}) that cannot be staged",
                short(a),
                short(b)
            ))),
        },
    }
}

fn short(v: &Value) -> String {
    match v {
        Value::Tensor(t) => format!("a tensor {}", t.ty),
        other => format!("{} {}", other.type_name(), pyops::py_repr(other)),
    }
}

impl Stager {
    /// Appends to the current region the tensors carrying `v` under `plan`
    /// (`None`: a placeholder of zeros, for a path where the variable is unused).
    pub fn materialize(
        &mut self,
        v: Option<&Value>,
        plan: &Plan,
        span: Span,
        what: &str,
        out: &mut Vec<Tensor>,
    ) -> R<()> {
        match plan {
            Plan::Static(_) => Ok(()),
            Plan::MaybeBound(inner) => {
                let (value, bound) = match v {
                    Some(Value::MaybeBound(m)) => (Some(&m.value), Some(m.bound.clone())),
                    Some(other) => (Some(other), None),
                    None => (None, None),
                };
                self.materialize(value, inner, span, what, out)?;
                let bound = match bound {
                    Some(b) => b,
                    None => {
                        self.scalar(value.is_some() as i64 as f64, agc_ir::DType::Bool, span)?
                    }
                };
                out.push(bound);
                Ok(())
            }
            Plan::TensorList(ty) => match v {
                Some(Value::TensorList(l)) => {
                    let (buf, len) = l.borrow().clone();
                    out.push(buf);
                    out.push(len);
                    Ok(())
                }
                None | Some(Value::Bottom) => {
                    let zero = self.scalar(0.0, ty.dtype, span)?;
                    out.push(self.emit(OpKind::Fill, &[&zero], ty.clone(), span)?);
                    out.push(self.scalar(0.0, agc_ir::DType::I64, span)?);
                    Ok(())
                }
                Some(other) => Err(Diagnostic::error(
                    span,
                    format!(
                        "{what}: a staged list on one path and a {} on the other",
                        other.type_name()
                    ),
                )),
            },
            Plan::Dict(plans) => {
                for (k, p) in plans {
                    let item = match v {
                        Some(Value::Dict(d)) => d
                            .borrow()
                            .iter()
                            .find(|(x, _)| pyops::py_eq(x, k))
                            .map(|(_, x)| x.clone()),
                        _ => None,
                    };
                    self.materialize(item.as_ref(), p, span, what, out)?;
                }
                Ok(())
            }
            Plan::Seq(plans, _) => {
                let items = match v.filter(|x| !matches!(x, Value::Bottom)) {
                    Some(v) => pyops::iterate(v, span)?.into_iter().map(Some).collect(),
                    None => vec![None; plans.len()],
                };
                if items.len() != plans.len() {
                    return Err(Diagnostic::error(
                        span,
                        format!("{what}: a sequence changes length"),
                    ));
                }
                for (item, p) in items.iter().zip(plans) {
                    self.materialize(item.as_ref(), p, span, what, out)?;
                }
                Ok(())
            }
            Plan::Staged(ty, _) => {
                let t = match v.filter(|x| !matches!(x, Value::Bottom)) {
                    None => {
                        let zero = self.scalar(0.0, ty.dtype, span)?;
                        if ty.dims.is_empty() {
                            zero
                        } else {
                            self.emit(OpKind::Fill, &[&zero], ty.clone(), span)?
                        }
                    }
                    Some(Value::Tensor(t)) if t.ty.dtype != ty.dtype => {
                        return Err(Diagnostic::error(
                            span,
                            format!(
                                "{what}: dtype changes from {} to {}",
                                ty.dtype.numpy_name(),
                                t.ty.dtype.numpy_name()
                            ),
                        ))
                    }
                    Some(Value::Tensor(t)) if t.ty.dims != ty.dims => {
                        return Err(Diagnostic::error(
                            span,
                            format!(
                                "{what}: shape changes from {} to {}",
                                ty.shape_string(),
                                t.ty.shape_string()
                            ),
                        ))
                    }
                    Some(other) => {
                        if kind_of(other).is_none() {
                            return Err(Diagnostic::error(
                                span,
                                format!("{what}: a {} cannot be staged", other.type_name()),
                            ));
                        }
                        let t = self.to_tensor_as(other, ty.dtype, span)?;
                        self.broadcast_to(&t, ty.dims.clone(), span)?
                    }
                };
                out.push(t);
                Ok(())
            }
        }
    }
}

impl Stager {
    /// Binds each planned variable (`plans` index `names`) to its value
    /// rebuilt from the merged IR `values`.
    pub fn bind_merged(
        &mut self,
        plans: &[(usize, Plan)],
        names: &[String],
        values: &mut impl Iterator<Item = Tensor>,
        scope: &std::rc::Rc<super::scope::Scope>,
    ) {
        for (i, p) in plans {
            let v = rebuild(p, values);
            if let Value::TensorList(l) = &v {
                self.register_sym_sources(&l.borrow().0);
            }
            scope.set_local(&names[*i], v);
        }
    }
}

/// Rebuilds a variable's value from its plan and the merged IR values.
pub fn rebuild(plan: &Plan, values: &mut impl Iterator<Item = Tensor>) -> Value {
    match plan {
        Plan::Static(v) => v.clone(),
        Plan::MaybeBound(inner) => {
            let value = rebuild(inner, values);
            match values.next() {
                Some(bound) => {
                    Value::MaybeBound(std::rc::Rc::new(super::value::MaybeBound { value, bound }))
                }
                None => Value::None,
            }
        }
        Plan::Staged(_, weak) => values
            .next()
            .map(|t| Value::Tensor(if *weak { t.into_weak() } else { t }))
            .unwrap_or(Value::None),
        Plan::TensorList(_) => match (values.next(), values.next()) {
            (Some(buf), Some(len)) => {
                Value::TensorList(std::rc::Rc::new(std::cell::RefCell::new((buf, len))))
            }
            _ => Value::None,
        },
        Plan::Dict(plans) => Value::Dict(std::rc::Rc::new(std::cell::RefCell::new(
            plans
                .iter()
                .map(|(k, p)| (k.clone(), rebuild(p, values)))
                .collect(),
        ))),
        Plan::Seq(plans, kind) => kind.build(plans.iter().map(|p| rebuild(p, values)).collect()),
    }
}

/// The plan with symbolic dims renamed (`renames` maps old names to dims).
pub fn rename_dims(plan: &Plan, renames: &std::collections::HashMap<String, agc_ir::Dim>) -> Plan {
    let rename = |t: &TensorType| {
        let dims = t
            .dims
            .iter()
            .map(|d| match d {
                agc_ir::Dim::Sym(n) => renames.get(n).cloned().unwrap_or_else(|| d.clone()),
                other => other.clone(),
            })
            .collect();
        TensorType::new(t.dtype, dims)
    };
    match plan {
        Plan::Static(v) => Plan::Static(v.clone()),
        Plan::Staged(t, weak) => Plan::Staged(rename(t), *weak),
        Plan::TensorList(t) => Plan::TensorList(rename(t)),
        Plan::MaybeBound(inner) => Plan::MaybeBound(Box::new(rename_dims(inner, renames))),
        Plan::Seq(plans, kind) => Plan::Seq(
            plans.iter().map(|p| rename_dims(p, renames)).collect(),
            kind.clone(),
        ),
        Plan::Dict(plans) => Plan::Dict(
            plans
                .iter()
                .map(|(k, p)| (k.clone(), rename_dims(p, renames)))
                .collect(),
        ),
    }
}

/// Placeholder for a staged list's buffer size that differs between two
/// paths; [`name_list_sizes`] gives it a fresh name.
const UNNAMED_SIZE: &str = "?";

/// Names the buffer and item sizes of the staged lists in `plan` with
/// `fresh(stem)`: all that may change when `all` (a loop's state: the
/// buffer may grow in any iteration, and items sized by the first append
/// get their size in one), else only those two paths disagree on.
pub fn name_list_sizes(plan: &mut Plan, all: bool, fresh: &mut dyn FnMut(&str) -> Dim) {
    match plan {
        Plan::TensorList(t) => {
            for (axis, d) in t.dims.iter_mut().enumerate() {
                let changes = *d == Dim::Sym(UNNAMED_SIZE.into())
                    || (all && (axis == 0 || super::list_items::sized_by_append(d)));
                if changes {
                    *d = fresh(if axis == 0 {
                        "capacity"
                    } else {
                        super::list_items::ITEM_STEM
                    });
                }
            }
        }
        Plan::MaybeBound(inner) => name_list_sizes(inner, all, fresh),
        Plan::Seq(plans, _) => plans
            .iter_mut()
            .for_each(|p| name_list_sizes(p, all, fresh)),
        Plan::Dict(plans) => plans
            .iter_mut()
            .for_each(|(_, p)| name_list_sizes(p, all, fresh)),
        Plan::Static(_) | Plan::Staged(..) => {}
    }
}

/// The tensor types a plan carries, in order.
pub fn staged_types(plan: &Plan, out: &mut Vec<TensorType>) {
    match plan {
        Plan::Static(_) => {}
        Plan::Staged(t, _) => out.push(t.clone()),
        Plan::TensorList(t) => {
            out.push(t.clone());
            out.push(TensorType::scalar(agc_ir::DType::I64));
        }
        Plan::MaybeBound(inner) => {
            staged_types(inner, out);
            out.push(TensorType::scalar(agc_ir::DType::Bool));
        }
        Plan::Seq(plans, _) => plans.iter().for_each(|p| staged_types(p, out)),
        Plan::Dict(plans) => plans.iter().for_each(|(_, p)| staged_types(p, out)),
    }
}
