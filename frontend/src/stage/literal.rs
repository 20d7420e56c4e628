//! `np.array` of nested Python sequences (`[[1, 2], [3, x]]`): a constant
//! when every element is a compile-time number, else the staged elements
//! stacked. numpy makes Python numbers in a literal int64, float64 or bool
//! arrays (they are not weak scalars here), so `[x_f32, 2.0]` is float64.

use super::value::{Tensor, Value};
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{ConstData, DType, Span, TensorType};

/// The items of a literal's sequence level (lists, tuples, namedtuples).
fn items_of(v: &Value) -> Option<Vec<Value>> {
    match v {
        Value::List(l) => Some(l.borrow().clone()),
        Value::Tuple(t) | Value::NamedTuple(_, t) => Some(t.as_ref().clone()),
        _ => None,
    }
}

/// The nesting shape of a literal and its elements in row-major order.
fn flatten(
    v: &Value,
    shape: &mut Vec<i64>,
    depth: usize,
    out: &mut Vec<Value>,
    span: Span,
) -> R<()> {
    let ragged = || {
        Diagnostic::error(
            span,
            "setting an array element with a sequence: the nested lists are ragged",
        )
    };
    let Some(items) = items_of(v) else {
        if depth != shape.len() {
            return Err(ragged());
        }
        out.push(v.clone());
        return Ok(());
    };
    if depth == shape.len() {
        if depth == super::tensor::MAX_RANK {
            return Err(Diagnostic::error(
                span,
                format!(
                    "setting an array element with a sequence: the requested array would \
                     exceed the maximum number of dimensions of {}",
                    super::tensor::MAX_RANK
                ),
            ));
        }
        shape.push(items.len() as i64);
    } else if shape[depth] != items.len() as i64 {
        return Err(ragged());
    }
    items
        .iter()
        .try_for_each(|it| flatten(it, shape, depth + 1, out, span))
}

/// The dtype numpy gives an array of these elements (float64 for none).
fn literal_dtype(elems: &[Value], span: Span) -> R<DType> {
    let dtypes = elems
        .iter()
        .map(|e| match e {
            Value::Tensor(t) => Ok(t.ty.dtype),
            Value::TensorList(l) => Ok(l.borrow().0.ty.dtype),
            Value::Bool(_) => Ok(DType::Bool),
            Value::Int(_) | Value::SymInt(_) => Ok(DType::I64),
            Value::Float(_) => Ok(DType::F64),
            other => Err(Diagnostic::error(
                span,
                format!("cannot put a '{}' in an array", other.type_name()),
            )),
        })
        .collect::<R<Vec<_>>>()?;
    Ok(dtypes
        .into_iter()
        .reduce(DType::promote)
        .unwrap_or(DType::F64))
}

/// The type `np.array(v)` has, without staging anything; `None` if `v` is
/// not an array literal (or a ragged one).
pub fn literal_type(v: &Value) -> Option<TensorType> {
    if let Value::TensorList(l) = v {
        // Its length is a run-time size named where it is stacked.
        let buf = &l.borrow().0.ty;
        let mut dims = vec![agc_ir::Dim::Sym("list length".into())];
        dims.extend(buf.dims[1..].iter().cloned());
        return Some(TensorType::new(buf.dtype, dims));
    }
    let (mut shape, mut elems) = (Vec::new(), Vec::new());
    flatten(v, &mut shape, 0, &mut elems, Span::UNKNOWN).ok()?;
    let dtype = literal_dtype(&elems, Span::UNKNOWN).ok()?;
    let mut dims: Vec<agc_ir::Dim> = shape.into_iter().map(agc_ir::Dim::Static).collect();
    let inner = elems.iter().map(|e| match e {
        Value::Tensor(t) => t.ty.dims.clone(),
        _ => Vec::new(),
    });
    let mut inner = inner.collect::<Vec<_>>();
    inner.dedup();
    match inner.as_slice() {
        [] => {}
        [one] => dims.extend(one.iter().cloned()),
        _ => return None,
    }
    Some(TensorType::new(dtype, dims))
}

impl Stager {
    /// `np.array(nested sequences)`, of `dtype` when given.
    pub(super) fn array_literal(
        &mut self,
        v: &Value,
        dtype: Option<DType>,
        span: Span,
    ) -> R<Tensor> {
        let mut shape = Vec::new();
        let mut elems = Vec::new();
        flatten(v, &mut shape, 0, &mut elems, span)?;
        let d = match dtype {
            Some(d) => d,
            None => literal_dtype(&elems, span)?,
        };
        if elems.iter().any(|e| {
            matches!(
                e,
                Value::Tensor(_) | Value::SymInt(_) | Value::TensorList(_)
            )
        }) {
            // Staged elements: stack the items of the outer level.
            let items = items_of(v)
                .ok_or_else(|| Diagnostic::internal(span, "flatten accepted a sequence"))?;
            let parts = items
                .iter()
                .map(|it| self.to_tensor_as(it, d, span).map(Value::Tensor))
                .collect::<R<Vec<_>>>()?;
            return super::tensor::staged(self.stack(&parts, 0, span)?, span);
        }
        let data = match d {
            DType::I64 | DType::I32 => {
                ConstData::Int(elems.iter().map(|e| e.as_int().unwrap_or(0)).collect())
            }
            _ => ConstData::Float(elems.iter().map(|e| e.as_f64().unwrap_or(0.0)).collect()),
        };
        self.constant(data.cast(d), TensorType::static_shape(d, &shape), span)
    }
}
