//! Contractions and running sums of the `agc.numpy` surface: `tensordot`,
//! `einsum`, `np.linalg.norm`, `cumsum`, `cumprod` and `count_nonzero`.
//!
//! Contractions become one matmul per pair of operands (axes permuted and
//! merged so that batch, free and contracted axes are contiguous), so they
//! run on the backend's matmul kernels and differentiate through its adjoint.
//! `cumsum`/`cumprod` reduce a triangular `where` mask (no sequential loop),
//! which is exact for infinities and run-time lengths (O(n²) along the axis).

use super::args::Args;
use super::numpy::{axes_arg, dtype_arg};
use super::tensor::{staged, type_error};
use super::value::{Tensor, Value};
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{infer, BinaryOp, CmpOp, DType, Dim, OpKind, ReduceKind, Span, UnaryOp};

/// The functions this module stages, by their `np.` name (`linalg.norm` is `np.linalg.norm`).
pub const FUNCTIONS: &[&str] = &["tensordot", "einsum", "cumsum", "cumprod", "count_nonzero"];

/// The identity of a reduction of `dtype` elements (the lowest value for a
/// maximum, the highest for a minimum).
fn reduction_identity(kind: ReduceKind, dtype: DType) -> f64 {
    let (lowest, highest) = match dtype {
        DType::Bool => (0.0, 1.0),
        DType::I32 => (f64::from(i32::MIN), f64::from(i32::MAX)),
        DType::I64 => (i64::MIN as f64, i64::MAX as f64),
        DType::F32 | DType::F64 => (f64::NEG_INFINITY, f64::INFINITY),
    };
    match kind {
        ReduceKind::Prod => 1.0,
        ReduceKind::Max => lowest,
        ReduceKind::Min => highest,
        _ => 0.0,
    }
}

/// The dtype `sum` gives (and `cumsum`, `cumprod`, `trace`): bools and int32 widen to int64.
fn sum_dtype(d: DType) -> DType {
    match d {
        DType::Bool | DType::I32 => DType::I64,
        other => other,
    }
}

/// A compile-time axis list: an int or a sequence of ints.
fn axis_list(v: &Value, span: Span) -> R<Vec<i64>> {
    let items = match v {
        Value::Tuple(_) | Value::List(_) => super::pyops::iterate(v, span)?,
        other => vec![other.clone()],
    };
    items
        .iter()
        .map(|x| {
            x.as_int()
                .ok_or_else(|| Diagnostic::error(span, "tensordot axes must be compile-time ints"))
        })
        .collect()
}

impl Stager {
    /// Calls `np.<f>` for `f` in [`FUNCTIONS`] or `linalg.norm`.
    pub(super) fn numpy_contract(&mut self, f: &str, args: &Args) -> R<Value> {
        let span = args.span;
        match f {
            "tensordot" => {
                let (ts, _) =
                    self.promote(&[&args.req(0, "a", f)?, &args.req(1, "b", f)?], span)?;
                let (a, b) = (&ts[0], &ts[1]);
                let (ax_a, ax_b) = match args.get(2, "axes").unwrap_or(Value::Int(2)) {
                    v @ (Value::Tuple(_) | Value::List(_)) => {
                        match super::pyops::iterate(&v, span)?.as_slice() {
                            [x, y] => (axis_list(x, span)?, axis_list(y, span)?),
                            _ => {
                                return Err(Diagnostic::error(
                                    span,
                                    "tensordot: axes must be an int or a pair of axis lists",
                                ))
                            }
                        }
                    }
                    v => {
                        let n = v.as_int().ok_or_else(|| {
                            Diagnostic::error(span, "tensordot: axes must be a compile-time int")
                        })?;
                        if n < 0 || n as usize > a.ty.rank() || n as usize > b.ty.rank() {
                            return Err(Diagnostic::error(
                                span,
                                "tensordot: axes exceeds the dimensions of an operand",
                            ));
                        }
                        let ra = a.ty.rank() as i64;
                        ((ra - n..ra).collect(), (0..n).collect())
                    }
                };
                if ax_a.len() != ax_b.len() {
                    return Err(Diagnostic::error(span, "shape-mismatch for sum"));
                }
                let norm = |axes: &[i64], rank: usize| -> R<Vec<usize>> {
                    axes.iter()
                        .map(|&x| infer::normalize_axis(x, rank).map_err(|e| type_error(span, e)))
                        .collect()
                };
                let pairs: Vec<(usize, usize)> = norm(&ax_a, a.ty.rank())?
                    .into_iter()
                    .zip(norm(&ax_b, b.ty.rank())?)
                    .collect();
                self.contract_pair(a, b, &[], &pairs, span)
                    .map(Value::Tensor)
            }
            "einsum" => self.einsum(args),
            "cumsum" | "cumprod" => {
                let t = self.to_tensor(&args.req(0, "a", f)?, None, span)?;
                let d = dtype_arg(args.get(2, "dtype"), span)?.unwrap_or(sum_dtype(t.ty.dtype));
                let t = self.cast(&t, d, span)?;
                let (t, axis) = match args.get_some(1, "axis") {
                    None => (self.flatten(&t, span)?, 0),
                    Some(a) => (t.clone(), axes_arg(Some(a), t.ty.rank(), span)?[0]),
                };
                let kind = if f == "cumsum" {
                    ReduceKind::Sum
                } else {
                    ReduceKind::Prod
                };
                self.cumulative(kind, &t, axis, span).map(Value::Tensor)
            }
            "count_nonzero" => {
                let t = self.to_tensor(&args.req(0, "a", f)?, None, span)?;
                let nonzero = staged(
                    self.compare(CmpOp::Ne, &Value::Tensor(t.clone()), &Value::Int(0), span)?,
                    span,
                )?;
                let ones = self.cast(&nonzero, DType::I64, span)?;
                let axes = axes_arg(args.get_some(1, "axis"), t.ty.rank(), span)?;
                let keepdims = args
                    .get(2, "keepdims")
                    .as_ref()
                    .and_then(super::pyops::truthy)
                    .unwrap_or(false);
                self.reduce(ReduceKind::Sum, &ones, &axes, keepdims, span)
                    .map(Value::Tensor)
            }
            _ => self.norm(args),
        }
    }

    /// Contracts `a` and `b` (one dtype) with one matmul: the result's axes
    /// are the `batch` pairs, then `a`'s free axes, then `b`'s; `contracted`
    /// pairs are summed over. Paired axes must have equal sizes.
    pub(super) fn contract_pair(
        &mut self,
        a: &Tensor,
        b: &Tensor,
        batch: &[(usize, usize)],
        contracted: &[(usize, usize)],
        span: Span,
    ) -> R<Tensor> {
        for &(i, j) in batch.iter().chain(contracted) {
            if a.ty.dims[i] != b.ty.dims[j] {
                return Err(Diagnostic::error(
                    span,
                    format!(
                        "shape-mismatch for sum: axis {i} of size {} against axis {j} of size {}",
                        a.ty.dims[i], b.ty.dims[j]
                    ),
                ));
            }
        }
        let paired_a: Vec<usize> = batch.iter().chain(contracted).map(|p| p.0).collect();
        let paired_b: Vec<usize> = batch.iter().chain(contracted).map(|p| p.1).collect();
        let free_a: Vec<usize> = (0..a.ty.rank()).filter(|i| !paired_a.contains(i)).collect();
        let free_b: Vec<usize> = (0..b.ty.rank()).filter(|i| !paired_b.contains(i)).collect();
        let dims = |t: &Tensor, axes: &[usize]| -> Vec<Dim> {
            axes.iter().map(|&i| t.ty.dims[i].clone()).collect()
        };
        let batch_dims = dims(a, &batch.iter().map(|p| p.0).collect::<Vec<_>>());
        let (ca, cb): (Vec<usize>, Vec<usize>) = contracted.iter().copied().unzip();
        let k = infer::dim_product(&dims(a, &ca));
        // a: (batch, free_a, contracted) -> (batch, Fa, K); b: (batch, contracted, free_b) -> (batch, K, Fb).
        let perm_a: Vec<usize> = batch
            .iter()
            .map(|p| p.0)
            .chain(free_a.iter().copied())
            .chain(ca)
            .collect();
        let perm_b: Vec<usize> = batch
            .iter()
            .map(|p| p.1)
            .chain(cb)
            .chain(free_b.iter().copied())
            .collect();
        let pa = self.permute(a, perm_a, span)?;
        let pb = self.permute(b, perm_b, span)?;
        let with =
            |tail: [Dim; 2]| -> Vec<Dim> { batch_dims.iter().cloned().chain(tail).collect() };
        let ma = self.reshape_to(
            &pa,
            with([infer::dim_product(&dims(a, &free_a)), k.clone()]),
            span,
        )?;
        let mb = self.reshape_to(&pb, with([k, infer::dim_product(&dims(b, &free_b))]), span)?;
        let ty = infer::matmul(&ma.ty, &mb.ty).map_err(|e| type_error(span, e))?;
        let m = self.emit(OpKind::MatMul, &[&ma, &mb], ty, span)?;
        let out: Vec<Dim> = batch_dims
            .iter()
            .cloned()
            .chain(dims(a, &free_a))
            .chain(dims(b, &free_b))
            .collect();
        self.reshape_to(&m, out, span)
    }

    /// Running sums, products, maxima or minima of `t` along `axis`:
    /// element `i` reduces the elements `j <= i` (the others are the
    /// reduction's identity).
    pub(super) fn cumulative(
        &mut self,
        kind: ReduceKind,
        t: &Tensor,
        axis: usize,
        span: Span,
    ) -> R<Tensor> {
        let rank = t.ty.rank();
        let perm: Vec<usize> = (0..rank).filter(|&a| a != axis).chain([axis]).collect();
        let moved = self.permute(t, perm.clone(), span)?;
        let n = t.ty.dims[axis].clone();
        let mut column = moved.ty.dims.clone();
        column.push(Dim::Static(1));
        let column = self.reshape_to(&moved, column, span)?;
        let grid = Value::Tensor(self.offset_grid(&n, &n, span)?);
        let upper = self.compare(CmpOp::Ge, &grid, &Value::Int(0), span)?;
        let identity = reduction_identity(kind, t.ty.dtype);
        let identity = Value::Tensor(self.scalar(identity, t.ty.dtype, span)?);
        let terms = staged(
            self.select(&upper, &Value::Tensor(column), &identity, span)?,
            span,
        )?;
        let sums = self.reduce(kind, &terms, &[rank - 1], false, span)?;
        self.permute(&sums, super::numpy_shape::inverse(&perm), span)
    }

    /// `np.linalg.norm(x, ord=None, axis=None, keepdims=False)`: without
    /// `ord`, the 2-norm of vectors and the Frobenius norm of matrices
    /// (`sqrt(sum(x*x))`); with it, numpy's vector norms (`inf`, `-inf`, 0,
    /// 1, any p) over one axis and its matrix norms (`fro`, 1, -1, `inf`,
    /// `-inf`) over two.
    fn norm(&mut self, args: &Args) -> R<Value> {
        let span = args.span;
        args.check("np.linalg.norm", 4, &["x", "ord", "axis", "keepdims"])?;
        let t = self.to_tensor(&args.req(0, "x", "np.linalg.norm")?, None, span)?;
        let t = if t.ty.dtype.is_float() {
            t
        } else {
            self.cast(&t, DType::F64, span)?
        };
        let axis = args.get_some(2, "axis");
        if let Some(a @ (Value::Tuple(_) | Value::List(_))) = &axis {
            if super::pyops::iterate(a, span)?.len() > 2 {
                return Err(Diagnostic::error(
                    span,
                    "Improper number of dimensions to norm.",
                ));
            }
        }
        let ord = args.get_some(1, "ord");
        if ord.is_some() && axis.is_none() && t.ty.rank() > 2 {
            return Err(Diagnostic::raises(
                span,
                "ValueError",
                "Improper number of dimensions to norm.",
            ));
        }
        let axes = axes_arg(axis.clone(), t.ty.rank(), span)?;
        let keepdims = args
            .get(3, "keepdims")
            .as_ref()
            .and_then(super::pyops::truthy)
            .unwrap_or(false);
        match ord {
            None => self.frobenius(&t, &axes, keepdims, span),
            Some(Value::Str(s)) if &*s == "fro" && axes.len() == 2 => {
                self.frobenius(&t, &axes, keepdims, span)
            }
            Some(ord) => {
                let p = match &ord {
                    Value::Int(i) => *i as f64,
                    Value::Float(x) => *x,
                    _ => {
                        return Err(Diagnostic::unsupported(
                            span,
                            format!("np.linalg.norm with ord={ord:?} is not supported"),
                        ))
                    }
                };
                match axes.len() {
                    1 => return self.vector_norm(&t, p, axes[0], keepdims, span),
                    2 => {}
                    _ => {
                        return Err(Diagnostic::raises(
                            span,
                            "ValueError",
                            "Improper number of dimensions to norm.",
                        ))
                    }
                }
                // The matrix norm's (row, column) axes in the order given.
                let ordered = match &axis {
                    Some(a @ (Value::Tuple(_) | Value::List(_))) => super::pyops::iterate(a, span)?
                        .iter()
                        .map(|v| {
                            let i = v.as_int().ok_or_else(|| {
                                Diagnostic::error(span, "axis must be compile-time ints")
                            })?;
                            infer::normalize_axis(i, t.ty.rank()).map_err(|e| type_error(span, e))
                        })
                        .collect::<R<Vec<usize>>>()?,
                    _ => axes.clone(),
                };
                self.matrix_norm(&t, p, &ordered, keepdims, span)
            }
        }
    }

    /// `sqrt(sum(x*x))` over `axes`.
    fn frobenius(&mut self, t: &Tensor, axes: &[usize], keepdims: bool, span: Span) -> R<Value> {
        let sq = self.binary_same(BinaryOp::Mul, t, t, span)?;
        let s = self.reduce(ReduceKind::Sum, &sq, axes, keepdims, span)?;
        let ty = s.ty.clone();
        self.emit(OpKind::Unary(UnaryOp::Sqrt), &[&s], ty, span)
            .map(Value::Tensor)
    }

    /// numpy's vector norm of order `p` over `axis`.
    fn vector_norm(
        &mut self,
        t: &Tensor,
        p: f64,
        axis: usize,
        keepdims: bool,
        span: Span,
    ) -> R<Value> {
        if p == 2.0 {
            return self.frobenius(t, &[axis], keepdims, span);
        }
        let abs = self.emit(OpKind::Unary(UnaryOp::Abs), &[t], t.ty.clone(), span)?;
        let kw = |keep: bool| {
            vec![
                ("axis", Value::Int(axis as i64)),
                ("keepdims", Value::Bool(keep)),
            ]
        };
        let abs_v = Value::Tensor(abs);
        if p.is_infinite() {
            let f = if p > 0.0 { "max" } else { "min" };
            return self.np(f, vec![abs_v], kw(keepdims), span);
        }
        if p == 0.0 {
            let nonzero = self.np2("not_equal", &Value::Tensor(t.clone()), &Value::Int(0), span)?;
            let nonzero = self.np(
                "asarray",
                vec![nonzero],
                vec![("dtype", Value::DType(t.ty.dtype))],
                span,
            )?;
            return self.np("sum", vec![nonzero], kw(keepdims), span);
        }
        if p == 1.0 {
            return self.np("sum", vec![abs_v], kw(keepdims), span);
        }
        let powered = self.np2("power", &abs_v, &Value::Float(p), span)?;
        let s = self.np("sum", vec![powered], kw(keepdims), span)?;
        self.np2("power", &s, &Value::Float(1.0 / p), span)
    }

    /// numpy's matrix norm of order `p` (1, -1: over columns; inf, -inf:
    /// over rows) over the two `axes`.
    fn matrix_norm(
        &mut self,
        t: &Tensor,
        p: f64,
        axes: &[usize],
        keepdims: bool,
        span: Span,
    ) -> R<Value> {
        let (row, col) = (axes[0], axes[1]);
        let (summed, across) = match p {
            p if p.abs() == 1.0 => (row, col),
            p if p.is_infinite() => (col, row),
            _ => {
                return Err(Diagnostic::unsupported(
                    span,
                    format!("np.linalg.norm of a matrix with ord={p} is not supported (it needs singular values)"),
                ))
            }
        };
        let abs = self.emit(OpKind::Unary(UnaryOp::Abs), &[t], t.ty.clone(), span)?;
        let sums = self.reduce(ReduceKind::Sum, &abs, &[summed], true, span)?;
        let f = if p > 0.0 { "max" } else { "min" };
        let r = self.np(
            f,
            vec![Value::Tensor(sums)],
            vec![
                ("axis", Value::Int(across as i64)),
                ("keepdims", Value::Bool(true)),
            ],
            span,
        )?;
        if keepdims {
            return Ok(r);
        }
        let r = super::tensor::staged(r, span)?;
        let dims =
            r.ty.dims
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != row && *i != col)
                .map(|(_, d)| d.clone())
                .collect();
        Ok(Value::Tensor(self.reshape_to(&r, dims, span)?))
    }
}
