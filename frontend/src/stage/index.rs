//! Subscripts: sequences and dicts at compile time, `agc.f32[...]` specs,
//! and numpy basic indexing of staged tensors (ints, slices, `None`, `...`).

use super::args::Args;
use super::pyops;
use super::value::{SliceValue, Tensor, Value};
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{infer, Dim, OpKind, SliceDim, Span, TensorType};

/// One item of a tensor index, after `...` is expanded.
enum IndexItem {
    Int(i64),
    Slice(SliceDim),
    NewAxis,
}

fn opt_int(v: &Value, span: Span) -> R<Option<i64>> {
    match v {
        Value::None => Ok(None),
        other => other
            .as_int()
            .map(Some)
            .ok_or_else(|| Diagnostic::unsupported(span, format!("slice bounds must be compile-time ints, got '{}'", other.type_name()))),
    }
}

fn slice_dim(s: &SliceValue, span: Span) -> R<SliceDim> {
    let step = opt_int(&s.step, span)?.unwrap_or(1);
    if step == 0 {
        return Err(Diagnostic::error(span, "slice step cannot be zero"));
    }
    Ok(SliceDim { start: opt_int(&s.start, span)?, stop: opt_int(&s.stop, span)?, step })
}

impl Stager {
    /// `base[index]`.
    pub fn get_item(&mut self, base: &Value, index: &Value, span: Span) -> R<Value> {
        match base {
            Value::Tensor(t) => self.index_tensor(t, index, span).map(Value::Tensor),
            Value::SpecFactory(d) => spec(*d, index, span),
            Value::Dict(d) => d
                .borrow()
                .iter()
                .find(|(k, _)| pyops::py_eq(k, index))
                .map(|(_, v)| v.clone())
                .ok_or_else(|| Diagnostic::error(span, format!("KeyError: {}", pyops::py_repr(index)))),
            Value::List(_) | Value::Tuple(_) | Value::Str(_) => {
                let items = pyops::iterate(base, span)?;
                let rebuild = |xs: Vec<Value>| match base {
                    Value::List(_) => Value::list(xs),
                    Value::Tuple(_) => Value::tuple(xs),
                    _ => Value::str(&xs.iter().map(pyops::py_str).collect::<String>()),
                };
                match index {
                    Value::Slice(s) => {
                        let sd = slice_dim(s, span)?;
                        let (start, _) = sd.bounds_for(items.len() as i64);
                        let n = sd.len_for(items.len() as i64);
                        Ok(rebuild((0..n).map(|k| items[(start + k * sd.step) as usize].clone()).collect()))
                    }
                    other => {
                        let i = other.as_int().ok_or_else(|| {
                            Diagnostic::error(span, format!("{} indices must be integers, not {}", base.type_name(), other.type_name()))
                        })?;
                        let n = items.len() as i64;
                        let j = if i < 0 { i + n } else { i };
                        if j < 0 || j >= n {
                            return Err(Diagnostic::error(span, format!("{} index out of range", base.type_name())));
                        }
                        Ok(items[j as usize].clone())
                    }
                }
            }
            Value::Instance(i) if i.class.lookup("__getitem__").is_some() => {
                let m = self.get_attr(base, "__getitem__", span)?;
                self.call(&m, Args::positional(vec![index.clone()], span))
            }
            other => Err(Diagnostic::error(span, format!("'{}' object is not subscriptable", other.type_name()))),
        }
    }

    fn index_tensor(&mut self, t: &Tensor, index: &Value, span: Span) -> R<Tensor> {
        let raw: Vec<Value> = match index {
            Value::Tuple(items) => items.as_ref().clone(),
            other => vec![other.clone()],
        };
        let consumed = raw.iter().filter(|v| !matches!(v, Value::None | Value::Ellipsis)).count();
        if consumed > t.ty.rank() {
            return Err(Diagnostic::error(
                span,
                format!("too many indices for array: array is {}-dimensional, but {consumed} were indexed", t.ty.rank()),
            ));
        }
        if raw.iter().filter(|v| matches!(v, Value::Ellipsis)).count() > 1 {
            return Err(Diagnostic::error(span, "an index can only have a single ellipsis ('...')"));
        }
        let mut items = Vec::new();
        for v in &raw {
            match v {
                Value::Ellipsis => {
                    items.extend((0..t.ty.rank() - consumed).map(|_| IndexItem::Slice(SliceDim::FULL)));
                }
                Value::None => items.push(IndexItem::NewAxis),
                Value::Slice(s) => items.push(IndexItem::Slice(slice_dim(s, span)?)),
                Value::Tensor(_) | Value::List(_) | Value::SymInt(_) => {
                    return Err(Diagnostic::unsupported(
                        span,
                        "indexing with a staged value or an array is not supported yet; use compile-time ints and slices",
                    ))
                }
                other => items.push(IndexItem::Int(other.as_int().ok_or_else(|| {
                    Diagnostic::error(span, format!("only integers, slices, None and ... are valid indices, not {}", other.type_name()))
                })?)),
            }
        }
        let used = items.iter().filter(|i| !matches!(i, IndexItem::NewAxis)).count();
        items.extend((used..t.ty.rank()).map(|_| IndexItem::Slice(SliceDim::FULL)));
        // Per-axis slices and the final dims.
        let mut slices = Vec::new();
        let mut final_dims = Vec::new();
        let mut axis = 0;
        for item in &items {
            match item {
                IndexItem::NewAxis => final_dims.push(Dim::Static(1)),
                IndexItem::Int(i) => {
                    let dim = &t.ty.dims[axis];
                    if let Dim::Static(n) = dim {
                        if *i < -n || *i >= *n {
                            return Err(Diagnostic::error(
                                span,
                                format!("index {i} is out of bounds for axis {axis} with size {n}"),
                            ));
                        }
                    }
                    let start = match dim {
                        Dim::Static(n) if *i < 0 => i + n,
                        _ => *i,
                    };
                    let stop = if start == -1 { None } else { Some(start + 1) };
                    slices.push(SliceDim { start: Some(start), stop, step: 1 });
                    axis += 1;
                }
                IndexItem::Slice(s) => {
                    final_dims.push(infer::slice_dim(&t.ty.dims[axis], s));
                    slices.push(*s);
                    axis += 1;
                }
            }
        }
        let mut cur = t.clone();
        if slices.iter().any(|s| !s.is_full()) {
            let ty = infer::slice(&t.ty, &slices).map_err(|e| super::tensor::type_error(span, e))?;
            cur = self.emit(OpKind::Slice { dims: slices }, &[t], ty, span)?;
        }
        self.reshape_to(&cur, final_dims, span)
    }
}

/// `agc.f32[d0, d1, ...]`: ints are static dims, strings symbolic ones.
fn spec(dtype: agc_ir::DType, index: &Value, span: Span) -> R<Value> {
    let items: Vec<Value> = match index {
        Value::Tuple(t) => t.as_ref().clone(),
        other => vec![other.clone()],
    };
    let dims = items
        .iter()
        .map(|v| match v {
            Value::Int(n) if *n >= 0 => Ok(Dim::Static(*n)),
            Value::Str(s) if !s.is_empty() && !s.starts_with('_') => Ok(Dim::Sym(s.to_string())),
            other => Err(Diagnostic::error(
                span,
                format!("a tensor spec dim must be a non-negative int or a name, got {}", pyops::py_repr(other)),
            )),
        })
        .collect::<R<Vec<_>>>()?;
    Ok(Value::Spec(TensorType::new(dtype, dims)))
}
