//! Integer-array indexing of staged tensors: `x[idx]`, `x[:, idx]`,
//! `np.take(x, idx, axis)` and `x.take(...)`, staged as the IR `gather`
//! (numpy's `take`: the result has shape `x.shape[:axis] + idx.shape +
//! x.shape[axis+1:]`, negative indices count from the end, an index out of
//! range fails the call at run time).
//!
//! An index array is an integer tensor of rank ≥ 1, or a (nested) Python
//! list of ints or staged integer scalars; subscripts mixing them with
//! other items are staged by [`super::advanced_index`].

use super::args::Args;
use super::tensor::type_error;
use super::value::{Tensor, Value};
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{infer, DType, OpKind, Span};

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

impl Stager {
    /// An index operand: an integer tensor (a list becomes one).
    pub(super) fn index_array(&mut self, v: &Value, span: Span) -> R<Tensor> {
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
    pub(super) fn gather(
        &mut self,
        t: &Tensor,
        idx: &Tensor,
        axis: usize,
        span: Span,
    ) -> R<Tensor> {
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
