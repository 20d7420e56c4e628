//! Moments in the `agc.numpy` surface: the element count and the mean over
//! axes, and `var`/`std` with `ddof`, as numpy computes them:
//! `sum((x - mean(x))**2) / max(n - ddof, 0)`, and its square root.
//!
//! `std` differentiates as autograd's: where at most one element is reduced
//! its gradient is zero (the plain square root would give `0 * inf`, NaN).

use super::tensor::staged;
use super::value::{Tensor, Value};
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{BinaryOp, CmpOp, DType, Dim, OpKind, ReduceKind, Span, TensorType, UnaryOp};

impl Stager {
    /// The number of elements over `axes`, as a rank-0 tensor of `dtype`.
    pub(super) fn count(
        &mut self,
        t: &Tensor,
        axes: &[usize],
        dtype: DType,
        span: Span,
    ) -> R<Tensor> {
        let mut static_part = 1i64;
        let mut acc: Option<Tensor> = None;
        for &a in axes {
            match &t.ty.dims[a] {
                Dim::Static(n) => static_part *= n,
                Dim::Sym(_) => {
                    let d = self.emit(
                        OpKind::Dim { axis: a },
                        &[t],
                        TensorType::scalar(DType::I64),
                        span,
                    )?;
                    let d = self.cast(&d, dtype, span)?;
                    acc = Some(match acc {
                        None => d,
                        Some(prev) => self.binary_same(BinaryOp::Mul, &prev, &d, span)?,
                    });
                }
            }
        }
        let s = self.scalar(static_part as f64, dtype, span)?;
        match acc {
            None => Ok(s),
            Some(a) if static_part == 1 => Ok(a),
            Some(a) => self.binary_same(BinaryOp::Mul, &a, &s, span),
        }
    }

    /// The mean over `axes` (`dtype`, else the float type of `t`, float64 for integers).
    pub(super) fn mean(
        &mut self,
        t: &Tensor,
        axes: &[usize],
        keepdims: bool,
        dtype: Option<DType>,
        span: Span,
    ) -> R<Tensor> {
        if let Some(d) = dtype.filter(|d| !d.is_float()) {
            return Err(Diagnostic::unsupported(
                span,
                format!(
                    "a mean, var or std with dtype {d} is not supported: numpy accumulates \
                     in {d} and truncates the quotient; use a float dtype and cast the result"
                ),
            ));
        }
        let d = dtype.unwrap_or(if t.ty.dtype.is_float() {
            t.ty.dtype
        } else {
            DType::F64
        });
        let tf = self.cast(t, d, span)?;
        let s = self.reduce(ReduceKind::Sum, &tf, axes, keepdims, span)?;
        let n = self.count(t, axes, d, span)?;
        self.binary_same(BinaryOp::Div, &s, &n, span)
    }

    /// `np.var` (`std` false) or `np.std` of `t` over `axes`: the sum of the
    /// squared deviations divided by `max(n - ddof, 0)`, as numpy divides.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn var_std(
        &mut self,
        std: bool,
        t: &Tensor,
        axes: &[usize],
        keepdims: bool,
        dtype: Option<DType>,
        ddof: f64,
        span: Span,
    ) -> R<Tensor> {
        let m = self.mean(t, axes, true, dtype, span)?;
        let tf = self.cast(t, m.ty.dtype, span)?;
        let diff = self.binary_same(BinaryOp::Sub, &tf, &m, span)?;
        let sq = self.binary_same(BinaryOp::Mul, &diff, &diff, span)?;
        let sum = self.reduce(ReduceKind::Sum, &sq, axes, keepdims, span)?;
        let n = self.count(t, axes, sum.ty.dtype, span)?;
        let denom = if ddof == 0.0 {
            n.clone()
        } else {
            let ddof_t = self.scalar(ddof, n.ty.dtype, span)?;
            let zero = self.scalar(0.0, n.ty.dtype, span)?;
            let left = self.binary_same(BinaryOp::Sub, &n, &ddof_t, span)?;
            self.binary_same(BinaryOp::Max, &left, &zero, span)?
        };
        let var = self.binary_same(BinaryOp::Div, &sum, &denom, span)?;
        if !std {
            return Ok(var);
        }
        let static_count: Option<i64> = axes.iter().map(|&a| t.ty.dims[a].as_static()).product();
        match static_count {
            Some(n) if n > 1 => self.sqrt(&var, span),
            Some(_) => self.constant_std(&var, span),
            None => {
                // At run time: where n > 1, sqrt(sum / denom), with both replaced by 1
                // elsewhere so that no adjoint meets 1/0; elsewhere the constant.
                let one = Value::Tensor(self.scalar(1.0, n.ty.dtype, span)?);
                let several = self.compare(CmpOp::Gt, &Value::Tensor(n), &one, span)?;
                let safe_sum = staged(
                    self.select(&several, &Value::Tensor(sum), &one, span)?,
                    span,
                )?;
                let safe_denom = staged(
                    self.select(&several, &Value::Tensor(denom), &one, span)?,
                    span,
                )?;
                let safe_var = self.binary_same(BinaryOp::Div, &safe_sum, &safe_denom, span)?;
                let root = Value::Tensor(self.sqrt(&safe_var, span)?);
                let constant = Value::Tensor(self.constant_std(&var, span)?);
                staged(self.select(&several, &root, &constant, span)?, span)
            }
        }
    }

    /// `np.sqrt(t)` of a float tensor.
    fn sqrt(&mut self, t: &Tensor, span: Span) -> R<Tensor> {
        self.emit(OpKind::Unary(UnaryOp::Sqrt), &[t], t.ty.clone(), span)
    }

    /// The standard deviation over at most one element, without a gradient:
    /// NaN where `var` is (an empty reduction, a non-finite input, `ddof` ≥ 1), else 0.
    fn constant_std(&mut self, var: &Tensor, span: Span) -> R<Tensor> {
        let v = Value::Tensor(var.clone());
        let nan = self.compare(CmpOp::Ne, &v, &v, span)?;
        let d = var.ty.dtype;
        let (not_a_number, zero) = (
            Value::Tensor(self.scalar(f64::NAN, d, span)?),
            Value::Tensor(self.scalar(0.0, d, span)?),
        );
        staged(self.select(&nan, &not_a_number, &zero, span)?, span)
    }
}
