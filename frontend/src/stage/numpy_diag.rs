//! Diagonals and triangles of the `agc.numpy` surface: `triu`, `tril`,
//! `diag`, `diagonal`, `trace`, `diagflat`, and `triu_indices` /
//! `tril_indices` (constant index arrays, their size known at compile time).
//!
//! All are masks built from the grid `col - row` (two `iota`s) applied with
//! `where`, then summed where a diagonal is extracted: composites of staged
//! ops that work for run-time sizes and differentiate as they are.

use super::args::Args;
use super::numpy::dtype_arg;
use super::tensor::staged;
use super::value::{Tensor, Value};
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{
    infer, BinaryOp, CmpOp, ConstData, DType, Dim, OpKind, ReduceKind, SliceDim, Span, TensorType,
};

/// The functions this module stages, by their `np.` name.
pub const FUNCTIONS: &[&str] = &[
    "triu",
    "tril",
    "diag",
    "diagonal",
    "trace",
    "diagflat",
    "triu_indices",
    "tril_indices",
];

/// A compile-time int argument with a default.
fn int_arg(args: &Args, index: usize, name: &str, default: i64) -> R<i64> {
    match args.get_some(index, name) {
        None => Ok(default),
        Some(v) => v.as_int().ok_or_else(|| {
            Diagnostic::unsupported(args.span, format!("'{name}' must be a compile-time int"))
        }),
    }
}

/// The permutation moving `axis1` and `axis2` last (in that order), the others kept in order.
fn last_two(axis1: i64, axis2: i64, rank: usize, span: Span) -> R<Vec<usize>> {
    if rank < 2 {
        return Err(Diagnostic::error(
            span,
            "diag requires an array of at least two dimensions",
        ));
    }
    let norm = |a| infer::normalize_axis(a, rank).map_err(|e| super::tensor::type_error(span, e));
    let (a, b) = (norm(axis1)?, norm(axis2)?);
    if a == b {
        return Err(Diagnostic::error(
            span,
            "axis1 and axis2 cannot be the same",
        ));
    }
    Ok((0..rank)
        .filter(|&i| i != a && i != b)
        .chain([a, b])
        .collect())
}

impl Stager {
    /// Calls `np.<f>` for `f` in [`FUNCTIONS`].
    pub(super) fn numpy_diag(&mut self, f: &str, args: &Args) -> R<Value> {
        let span = args.span;
        match f {
            "triu_indices" | "tril_indices" => return self.triangle_indices(f, args),
            "diagflat" => {
                let flat = self.np1("ravel", &args.req(0, "v", "np.diagflat")?, span)?;
                let k = Value::Int(int_arg(args, 1, "k", 0)?);
                return self.np2("diag", &flat, &k, span);
            }
            _ => {}
        }
        let t = self.to_tensor(
            &args.req(0, if f == "diag" { "v" } else { "a" }, &format!("np.{f}"))?,
            None,
            span,
        )?;
        match f {
            "triu" | "tril" => {
                let k = int_arg(args, 1, "k", 0)?;
                let (rows, cols) = match t.ty.dims.as_slice() {
                    [] => {
                        return Err(Diagnostic::error(
                            span,
                            format!("np.{f} needs an array of at least one dimension"),
                        ))
                    }
                    [n] => (n.clone(), n.clone()),
                    [.., r, c] => (r.clone(), c.clone()),
                };
                let grid = Value::Tensor(self.offset_grid(&rows, &cols, span)?);
                let op = if f == "tril" { CmpOp::Le } else { CmpOp::Ge };
                let mask = self.compare(op, &grid, &Value::Int(k), span)?;
                let zero = Value::Tensor(self.scalar(0.0, t.ty.dtype, span)?);
                self.select(&mask, &Value::Tensor(t), &zero, span)
            }
            "diag" => {
                let k = int_arg(args, 1, "k", 0)?;
                match t.ty.rank() {
                    1 => self.diag_matrix(&t, k, span).map(Value::Tensor),
                    2 => self.diagonal(&t, k, 0, 1, span).map(Value::Tensor),
                    _ => Err(Diagnostic::error(span, "Input must be 1- or 2-d.")),
                }
            }
            "diagonal" => {
                let (offset, a1, a2) = (
                    int_arg(args, 1, "offset", 0)?,
                    int_arg(args, 2, "axis1", 0)?,
                    int_arg(args, 3, "axis2", 1)?,
                );
                self.diagonal(&t, offset, a1, a2, span).map(Value::Tensor)
            }
            _ => {
                let (offset, a1, a2) = (
                    int_arg(args, 1, "offset", 0)?,
                    int_arg(args, 2, "axis1", 0)?,
                    int_arg(args, 3, "axis2", 1)?,
                );
                let d = dtype_arg(args.get(4, "dtype"), span)?.unwrap_or(match t.ty.dtype {
                    DType::Bool | DType::I32 => DType::I64,
                    other => other,
                });
                let t = self.cast(&t, d, span)?;
                let picked = self.diagonal_mask(&t, offset, a1, a2, span)?;
                let rank = picked.ty.rank();
                self.reduce(ReduceKind::Sum, &picked, &[rank - 2, rank - 1], false, span)
                    .map(Value::Tensor)
            }
        }
    }

    /// `np.triu_indices(n, k=0, m=None)` / `np.tril_indices`: the row and
    /// the column indices of the triangle's elements in row-major order, as
    /// two constant `i64` arrays.
    fn triangle_indices(&mut self, f: &str, args: &Args) -> R<Value> {
        let span = args.span;
        let n = args
            .req(0, "n", &format!("np.{f}"))?
            .as_int()
            .ok_or_else(|| {
                Diagnostic::unsupported(span, format!("np.{f}(): n must be a compile-time int"))
            })?;
        let k = int_arg(args, 1, "k", 0)?;
        let m = int_arg(args, 2, "m", n)?;
        let (n, m) = (n.max(0), m.max(0));
        let cells = usize::try_from(n)
            .ok()
            .zip(usize::try_from(m).ok())
            .and_then(|(n, m)| n.checked_mul(m));
        super::limits::check_items(&format!("np.{f}"), cells, span)?;
        let upper = f == "triu_indices";
        let (mut rows, mut cols) = (Vec::new(), Vec::new());
        for i in 0..n {
            for j in 0..m {
                let offset = j - i;
                if (upper && offset >= k) || (!upper && offset <= k) {
                    rows.push(i);
                    cols.push(j);
                }
            }
        }
        let ty = TensorType::static_shape(DType::I64, &[rows.len() as i64]);
        let rows = self.constant(ConstData::Int(rows), ty.clone(), span)?;
        let cols = self.constant(ConstData::Int(cols), ty, span)?;
        Ok(Value::tuple(vec![Value::Tensor(rows), Value::Tensor(cols)]))
    }

    /// `col - row` as an `i64` tensor of shape `(rows, cols)`.
    pub(super) fn offset_grid(&mut self, rows: &Dim, cols: &Dim, span: Span) -> R<Tensor> {
        let iota = |s: &mut Self, d: &Dim| {
            s.emit(
                OpKind::Iota {
                    start: 0.0,
                    step: 1.0,
                },
                &[],
                TensorType::new(DType::I64, vec![d.clone()]),
                span,
            )
        };
        let r = iota(self, rows)?;
        let r = self.reshape_to(&r, vec![rows.clone(), Dim::Static(1)], span)?;
        let c = iota(self, cols)?;
        self.binary_same(BinaryOp::Sub, &c, &r, span)
    }

    /// `t` with `axis1`, `axis2` moved last and everything off the `offset`
    /// diagonal of those two axes zeroed.
    fn diagonal_mask(
        &mut self,
        t: &Tensor,
        offset: i64,
        axis1: i64,
        axis2: i64,
        span: Span,
    ) -> R<Tensor> {
        let perm = last_two(axis1, axis2, t.ty.rank(), span)?;
        let moved = self.permute(t, perm, span)?;
        let n = moved.ty.rank();
        let grid =
            Value::Tensor(self.offset_grid(&moved.ty.dims[n - 2], &moved.ty.dims[n - 1], span)?);
        let mask = self.compare(CmpOp::Eq, &grid, &Value::Int(offset), span)?;
        let zero = Value::Tensor(self.scalar(0.0, t.ty.dtype, span)?);
        staged(
            self.select(&mask, &Value::Tensor(moved), &zero, span)?,
            span,
        )
    }

    /// `np.diagonal(t, offset, axis1, axis2)`: the other axes, then the diagonal.
    pub(super) fn diagonal(
        &mut self,
        t: &Tensor,
        offset: i64,
        axis1: i64,
        axis2: i64,
        span: Span,
    ) -> R<Tensor> {
        let work = if t.ty.dtype == DType::Bool {
            self.cast(t, DType::I64, span)?
        } else {
            t.clone()
        };
        let picked = self.diagonal_mask(&work, offset, axis1, axis2, span)?;
        let n = picked.ty.rank();
        let (rows, cols) = (picked.ty.dims[n - 2].clone(), picked.ty.dims[n - 1].clone());
        let per_row = self.reduce(ReduceKind::Sum, &picked, &[n - 1], false, span)?;
        // The diagonal's rows: from `-offset` (below the main diagonal), as many as fit.
        let start = (-offset).max(0);
        let rows_slice = match (&rows, &cols) {
            (Dim::Static(r), Dim::Static(c)) => {
                let len = (r - start).min(c - offset.max(0)).max(0);
                SliceDim { start: Some(start.min(*r)), stop: Some(start.min(*r) + len), step: 1 }
            }
            (r, c) if r == c && offset >= 0 => SliceDim { start: None, stop: (offset > 0).then_some(-offset), step: 1 },
            (r, c) if r == c => SliceDim { start: Some(start), stop: None, step: 1 },
            _ => {
                return Err(Diagnostic::unsupported(
                    span,
                    format!("the diagonal of a {rows} x {cols} matrix: with run-time sizes the matrix must be square (one size name on both axes)"),
                ))
            }
        };
        let mut dims = vec![SliceDim::FULL; n - 1];
        dims[n - 2] = rows_slice;
        let d = self.slice_dims(&per_row, dims, span)?;
        self.cast(&d, t.ty.dtype, span)
    }

    /// `np.diag(v, k)` of a 1-D `v`: the square matrix with `v` on diagonal `k`.
    fn diag_matrix(&mut self, v: &Tensor, k: i64, span: Span) -> R<Tensor> {
        let padded = if k == 0 {
            v.clone()
        } else {
            let zeros = self.fill_block(v, 0, k.abs(), &Value::Int(0), span)?;
            staged(
                self.concat(&[Value::Tensor(v.clone()), Value::Tensor(zeros)], 0, span)?,
                span,
            )?
        };
        let m = padded.ty.dims[0].clone();
        // Row r holds v[r] (k >= 0); column c holds v[c] (k < 0).
        let shape = if k >= 0 {
            vec![m.clone(), Dim::Static(1)]
        } else {
            vec![Dim::Static(1), m.clone()]
        };
        let values = self.reshape_to(&padded, shape, span)?;
        let grid = Value::Tensor(self.offset_grid(&m, &m, span)?);
        let mask = self.compare(CmpOp::Eq, &grid, &Value::Int(k), span)?;
        let zero = Value::Tensor(self.scalar(0.0, v.ty.dtype, span)?);
        staged(
            self.select(&mask, &Value::Tensor(values), &zero, span)?,
            span,
        )
    }
}
