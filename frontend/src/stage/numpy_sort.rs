//! Sorting in the `agc.numpy` surface: `np.sort`, `np.argsort` and
//! `x.argsort()`, along any axis, NaN last as numpy puts it, ties in their
//! original order (a stable sort).
//!
//! There is no sort op: an element's place is its rank, the number of
//! elements that come before it (smaller, or equal and earlier), computed
//! from all pairwise comparisons along the axis; `argsort` inverts the ranks
//! and `sort` picks each element into its place with `where` (exact for
//! infinities and NaN, and differentiable). O(n²) along the axis, meant for
//! the short axes of top-k and beam selection.

use super::args::Args;
use super::numpy::axes_arg;
use super::tensor::staged;
use super::value::{Tensor, Value};
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{BinaryOp, CmpOp, DType, Dim, ReduceKind, Span, UnaryOp};

/// The functions this module stages, by their `np.` name.
pub const FUNCTIONS: &[&str] = &["sort", "argsort"];

impl Stager {
    /// Calls `np.<f>` for `f` in [`FUNCTIONS`].
    pub(super) fn numpy_sort(&mut self, f: &str, args: &Args) -> R<Value> {
        let span = args.span;
        args.check(f, 4, &["a", "axis", "kind", "order"])?;
        if args.get_some(3, "order").is_some() {
            return Err(Diagnostic::unsupported(
                span,
                format!("np.{f} with 'order' (structured arrays) is not supported"),
            ));
        }
        let t = self.to_tensor(&args.req(0, "a", f)?, None, span)?;
        let (t, axis) = match args.get(1, "axis").unwrap_or(Value::Int(-1)) {
            Value::None => (self.flatten(&t, span)?, 0),
            a => (t.clone(), axes_arg(Some(a), t.ty.rank(), span)?[0]),
        };
        if t.ty.rank() == 0 {
            return Err(Diagnostic::error(
                span,
                format!("np.{f} of a 0-d array needs axis=None"),
            ));
        }
        // Work with the axis last.
        let rank = t.ty.rank();
        let perm: Vec<usize> = (0..rank).filter(|&a| a != axis).chain([axis]).collect();
        let moved = self.permute(&t, perm.clone(), span)?;
        let places = self.one_hot_places(&moved, span)?;
        let out = if f == "argsort" {
            self.argsort_last(&places, &moved, span)?
        } else {
            self.sort_last(&places, &moved, span)?
        };
        self.permute(&out, super::numpy_shape::inverse(&perm), span)
            .map(Value::Tensor)
    }

    /// `places[..., r, i]`: element `i` (of the last axis of `t`) goes to place `r`.
    fn one_hot_places(&mut self, t: &Tensor, span: Span) -> R<Tensor> {
        let rank = t.ty.rank();
        let n = t.ty.dims[rank - 1].clone();
        let with_axis = |s: &mut Self, at: usize| {
            let mut dims = t.ty.dims.clone();
            dims.insert(at, Dim::Static(1));
            s.reshape_to(t, dims, span)
        };
        let mine = Value::Tensor(with_axis(self, rank)?); // [..., i, 1]: x_i
        let other = Value::Tensor(with_axis(self, rank - 1)?); // [..., 1, j]: x_j
        let mut before = staged(self.compare(CmpOp::Lt, &other, &mine, span)?, span)?;
        let mut equal = staged(self.compare(CmpOp::Eq, &other, &mine, span)?, span)?;
        if t.ty.dtype.is_float() {
            // NaN sorts after every number, and NaNs keep their order.
            let nan = |s: &mut Self, v: &Value| -> R<Tensor> {
                staged(s.compare(CmpOp::Ne, v, v, span)?, span)
            };
            let (nan_i, nan_j) = (nan(self, &mine)?, nan(self, &other)?);
            let ty = nan_j.ty.clone();
            let number_j = self.emit(agc_ir::OpKind::Unary(UnaryOp::Not), &[&nan_j], ty, span)?;
            let number_before_nan = self.and(&nan_i, &number_j, span)?;
            before = self.or(&before, &number_before_nan, span)?;
            let both_nan = self.and(&nan_i, &nan_j, span)?;
            equal = self.or(&equal, &both_nan, span)?;
        }
        // grid[i, j] = j - i: an equal element comes before when j < i.
        let grid = Value::Tensor(self.offset_grid(&n, &n, span)?);
        let earlier = staged(self.compare(CmpOp::Lt, &grid, &Value::Int(0), span)?, span)?;
        let tie_before = self.and(&equal, &earlier, span)?;
        let before = self.or(&before, &tie_before, span)?;
        let counts = self.cast(&before, DType::I64, span)?;
        let rank_of = self.reduce(ReduceKind::Sum, &counts, &[rank], false, span)?; // [..., i]
                                                                                    // places[..., r, i] = (rank_i == r)
        let mut dims = rank_of.ty.dims.clone();
        dims.insert(rank - 1, Dim::Static(1));
        let ranks = Value::Tensor(self.reshape_to(&rank_of, dims, span)?); // [..., 1, i]
        let r = self.emit(
            agc_ir::OpKind::Iota {
                start: 0.0,
                step: 1.0,
            },
            &[],
            agc_ir::TensorType::new(DType::I64, vec![n.clone()]),
            span,
        )?;
        let r = Value::Tensor(self.reshape_to(&r, vec![n, Dim::Static(1)], span)?); // [r, 1]
        staged(self.compare(CmpOp::Eq, &ranks, &r, span)?, span)
    }

    /// The index of the element at each place: `sum_i i * places[..., r, i]`.
    fn argsort_last(&mut self, places: &Tensor, t: &Tensor, span: Span) -> R<Tensor> {
        let n = t.ty.dims[t.ty.rank() - 1].clone();
        let i = self.emit(
            agc_ir::OpKind::Iota {
                start: 0.0,
                step: 1.0,
            },
            &[],
            agc_ir::TensorType::new(DType::I64, vec![n]),
            span,
        )?;
        let zero = Value::Int(0);
        let picked = staged(
            self.select(
                &Value::Tensor(places.clone()),
                &Value::Tensor(i),
                &zero,
                span,
            )?,
            span,
        )?;
        self.reduce(
            ReduceKind::Sum,
            &picked,
            &[places.ty.rank() - 1],
            false,
            span,
        )
    }

    /// The element at each place, picked with `where` (no arithmetic on the values).
    fn sort_last(&mut self, places: &Tensor, t: &Tensor, span: Span) -> R<Tensor> {
        let mut dims = t.ty.dims.clone();
        dims.insert(t.ty.rank() - 1, Dim::Static(1));
        let row = Value::Tensor(self.reshape_to(t, dims, span)?); // [..., 1, i]
        let zero = Value::Tensor(self.scalar(0.0, t.ty.dtype, span)?);
        let picked = staged(
            self.select(&Value::Tensor(places.clone()), &row, &zero, span)?,
            span,
        )?;
        if t.ty.dtype == DType::Bool {
            // Exactly one place holds each element: a sum of 0/1 counts.
            let counts = self.cast(&picked, DType::I64, span)?;
            let sums = self.reduce(
                ReduceKind::Sum,
                &counts,
                &[places.ty.rank() - 1],
                false,
                span,
            )?;
            return self.cast(&sums, DType::Bool, span);
        }
        self.reduce(
            ReduceKind::Sum,
            &picked,
            &[places.ty.rank() - 1],
            false,
            span,
        )
    }

    fn and(&mut self, a: &Tensor, b: &Tensor, span: Span) -> R<Tensor> {
        self.binary_same(BinaryOp::And, a, b, span)
    }

    fn or(&mut self, a: &Tensor, b: &Tensor, span: Span) -> R<Tensor> {
        self.binary_same(BinaryOp::Or, a, b, span)
    }
}
