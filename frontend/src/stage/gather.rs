//! Integer-array indexing of staged tensors: `x[idx]`, `x[:, idx]`,
//! `np.take(x, idx, axis)` and `x.take(...)`, staged as the IR `gather`
//! (numpy's `take`: the result has shape `x.shape[:axis] + idx.shape +
//! x.shape[axis+1:]`, negative indices count from the end, an index out of
//! range fails the call at run time).
//!
//! An index array is an integer tensor of rank ≥ 1, or a (nested) Python
//! list of ints or staged integer scalars. In a subscript it may be the
//! only array item, after full slices (`x[:, :, idx]`) and before basic
//! items (slices, `None`, `...`), the one combination whose result keeps
//! numpy's axis order without broadcasting index arrays together. Boolean
//! masks select a data-dependent number of elements and are rejected.

use super::args::Args;
use super::tensor::type_error;
use super::value::{SliceValue, Tensor, Value};
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{infer, DType, OpKind, Span};
use std::rc::Rc;

/// The functions this module stages, by their `np.` name.
pub const FUNCTIONS: &[&str] = &["take"];

/// True for a subscript item that is an index array (or a boolean mask).
pub(super) fn is_array_index(v: &Value) -> bool {
    match v {
        Value::Tensor(t) => t.ty.rank() >= 1 || t.ty.dtype == DType::Bool,
        Value::List(_) => true,
        _ => false,
    }
}

fn full_slice() -> Value {
    Value::Slice(Rc::new(SliceValue {
        start: Value::None,
        stop: Value::None,
        step: Value::None,
    }))
}

fn is_full_slice(v: &Value) -> bool {
    matches!(v, Value::Slice(s) if matches!((&s.start, &s.stop, &s.step), (Value::None, Value::None, Value::None)))
}

impl Stager {
    /// `t[items]` where some item is an index array (see [`is_array_index`]).
    pub(super) fn index_with_array(
        &mut self,
        t: &Tensor,
        items: &[Value],
        span: Span,
    ) -> R<Tensor> {
        let arrays: Vec<usize> = (0..items.len())
            .filter(|&i| is_array_index(&items[i]))
            .collect();
        let k = arrays[0];
        if let Value::Tensor(m) = &items[k] {
            if m.ty.dtype == DType::Bool {
                return Err(Diagnostic::unsupported(
                    span,
                    "boolean mask indexing selects a run-time number of elements, which agc cannot stage; use np.where(mask, x, 0) or a sum over the mask",
                ));
            }
        }
        let basic = |v: &Value| matches!(v, Value::Slice(_) | Value::None | Value::Ellipsis);
        if arrays.len() > 1
            || !items[..k].iter().all(is_full_slice)
            || !items[k + 1..].iter().all(basic)
        {
            return Err(Diagnostic::unsupported(
                span,
                "an index array must be the only array or integer index, after full slices `:` only (as in x[idx] or x[:, idx]); index in two steps",
            ));
        }
        if k >= t.ty.rank() {
            return Err(Diagnostic::error(
                span,
                format!(
                    "too many indices for array: array is {}-dimensional, but {} were indexed",
                    t.ty.rank(),
                    k + 1
                ),
            ));
        }
        let idx = self.index_array(&items[k], span)?;
        let picked = self.gather(t, &idx, k, span)?;
        let rest = &items[k + 1..];
        if rest.is_empty() {
            return Ok(picked);
        }
        let mut again: Vec<Value> = (0..k + idx.ty.rank()).map(|_| full_slice()).collect();
        again.extend_from_slice(rest);
        match self.get_item(&Value::Tensor(picked), &Value::tuple(again), span)? {
            Value::Tensor(r) => Ok(r),
            other => Err(Diagnostic::internal(
                span,
                format!("indexing a tensor gave {}", other.type_name()),
            )),
        }
    }

    /// An index operand: an integer tensor (a list becomes one).
    fn index_array(&mut self, v: &Value, span: Span) -> R<Tensor> {
        let t = self.to_tensor(v, None, span)?;
        if !matches!(t.ty.dtype, DType::I32 | DType::I64) {
            return Err(Diagnostic::error(
                span,
                format!("IndexError: arrays used as indices must be of integer (or boolean) type, got {}", t.ty.dtype),
            ));
        }
        Ok(t)
    }

    /// The IR `gather` of `t` by `idx` along `axis`.
    fn gather(&mut self, t: &Tensor, idx: &Tensor, axis: usize, span: Span) -> R<Tensor> {
        let ty = infer::gather(&t.ty, &idx.ty, axis).map_err(|e| type_error(span, e))?;
        self.emit(OpKind::Gather { axis }, &[t, idx], ty, span)
    }

    /// `np.take(a, indices, axis=None)` (also `a.take(indices, axis)`):
    /// without an axis, `a` is flattened first.
    pub(super) fn numpy_take(&mut self, args: &Args) -> R<Value> {
        let span = args.span;
        args.check("take", 3, &["a", "indices", "axis", "mode"])?;
        if let Some(mode) = args.get_some(3, "mode") {
            if !matches!(&mode, Value::Str(s) if &**s == "raise") {
                return Err(Diagnostic::unsupported(
                    span,
                    "np.take supports only mode='raise'",
                ));
            }
        }
        let a = self.to_tensor(&args.req(0, "a", "take")?, None, span)?;
        let idx = self.index_array(&args.req(1, "indices", "take")?, span)?;
        let (src, axis) = match args.get_some(2, "axis") {
            None => (self.flatten(&a, span)?, 0),
            Some(v) => {
                let ax = v.as_int().ok_or_else(|| {
                    Diagnostic::unsupported(span, "np.take: 'axis' must be a compile-time int")
                })?;
                (
                    a.clone(),
                    infer::normalize_axis(ax, a.ty.rank()).map_err(|e| type_error(span, e))?,
                )
            }
        };
        Ok(Value::Tensor(self.gather(&src, &idx, axis, span)?))
    }
}
