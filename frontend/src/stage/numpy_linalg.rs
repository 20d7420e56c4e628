//! `np.linalg.solve`, `inv`, `det` and `slogdet` of matrices of a static size (stacks
//! of them too), by Gauss-Jordan elimination with partial pivoting staged
//! as whole-matrix ops: `n` steps, each choosing the first row of largest
//! magnitude in the pivot column (as LAPACK's `getrf`), swapping it up,
//! scaling it and eliminating the column from every other row. Composed of
//! the supported surface, it runs on any batch size and differentiates as
//! written. A zero pivot is numpy's `LinAlgError` ("Singular matrix") for
//! `solve` and `inv`, an error status at run time; `det` is then 0, and
//! `slogdet` (the product of the pivots' signs and the sum of their
//! `log|.|`) `(0, -inf)`.

use super::args::Args;
use super::value::Value;
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{DType, Dim, Span};

/// The largest matrix eliminated (the steps are unrolled: `n` of them).
const MAX_SIZE: i64 = 256;

/// `[..., rows, cols]`-indexing helpers for a tensor of `rank` axes.
struct Axes {
    rank: usize,
}

impl Axes {
    /// `m[..., :, j]`.
    fn column(&self, j: i64) -> Value {
        let mut items = vec![Value::slice(Value::None, Value::None); self.rank - 1];
        items.push(Value::Int(j));
        Value::tuple(items)
    }

    /// `m[..., i, :]`.
    fn row(&self, i: i64) -> Value {
        let mut items = vec![Value::slice(Value::None, Value::None); self.rank - 2];
        items.extend([Value::Int(i), Value::slice(Value::None, Value::None)]);
        Value::tuple(items)
    }

    /// `m[..., :, start:]`.
    fn columns_from(&self, start: i64) -> Value {
        let mut items = vec![Value::slice(Value::None, Value::None); self.rank - 1];
        items.push(Value::slice(Value::Int(start), Value::None));
        Value::tuple(items)
    }
}

impl Stager {
    /// Calls `np.linalg.<f>` for `f` in `solve`, `inv`, `det`, `slogdet`.
    pub(super) fn numpy_linalg(&mut self, f: &str, args: &Args) -> R<Value> {
        let span = args.span;
        let name = f.trim_start_matches("linalg.");
        let a = self.np1("asarray", &args.req(0, "a", name)?, span)?;
        let (a, n) = self.square_float(&a, name, span)?;
        match name {
            "det" => {
                let pivots = self.gauss_jordan(&a, None, n, false, span)?.1;
                self.over_pivots(&a, pivots, "multiply", |_, p| Ok(p), 1.0, span)
            }
            "slogdet" => {
                let pivots = self.gauss_jordan(&a, None, n, false, span)?.1;
                let sign = self.over_pivots(
                    &a,
                    pivots.clone(),
                    "multiply",
                    |s, p| s.np1("sign", &p, span),
                    1.0,
                    span,
                )?;
                let log_abs = |s: &mut Self, p: Value| {
                    let m = s.np1("abs", &p, span)?;
                    s.np1("log", &m, span)
                };
                let logabsdet = self.over_pivots(&a, pivots, "add", log_abs, 0.0, span)?;
                let class = std::rc::Rc::new(super::value::TupleClass {
                    name: "SlogdetResult".into(),
                    fields: vec!["sign".into(), "logabsdet".into()],
                    defaults: Vec::new(),
                });
                Ok(Value::NamedTuple(
                    class,
                    std::rc::Rc::new(vec![sign, logabsdet]),
                ))
            }
            "inv" => {
                let eye = self.identity_like(&a, &Value::Int(n), span)?;
                Ok(self.gauss_jordan(&a, Some(&eye), n, true, span)?.0)
            }
            _ => {
                let b = self.np1("asarray", &args.req(1, "b", name)?, span)?;
                let b_rank = self.to_tensor(&b, None, span)?.ty.rank();
                // numpy 2: a 1-d `b` is one right-hand side; otherwise `(..., M, K)`.
                let b2 = if b_rank == 1 {
                    self.np2("expand_dims", &b, &Value::Int(-1), span)?
                } else {
                    b
                };
                let dtype = self.to_tensor(&a, None, span)?.ty.dtype;
                let b2 = self.np(
                    "asarray",
                    vec![b2],
                    vec![("dtype", Value::DType(dtype))],
                    span,
                )?;
                let x = self.gauss_jordan(&a, Some(&b2), n, true, span)?.0;
                if b_rank == 1 {
                    let last = self.to_tensor(&x, None, span)?.ty.rank() - 1;
                    let mut items = vec![Value::slice(Value::None, Value::None); last];
                    items.push(Value::Int(0));
                    return self.get_item(&x, &Value::tuple(items), span);
                }
                Ok(x)
            }
        }
    }

    /// `a` as floats (ints and bools become float64, as in numpy) and its
    /// static size `n`; an error unless it is a (stack of) square matrices.
    pub(super) fn square_float(&mut self, a: &Value, name: &str, span: Span) -> R<(Value, i64)> {
        let t = self.to_tensor(a, None, span)?;
        let rank = t.ty.rank();
        if rank < 2 {
            return Err(Diagnostic::raises(
                span,
                "LinAlgError",
                format!("{rank}-dimensional array given. Array must be at least two-dimensional"),
            ));
        }
        let n = match (&t.ty.dims[rank - 2], &t.ty.dims[rank - 1]) {
            (Dim::Static(r), Dim::Static(c)) if r == c => *r,
            (Dim::Static(_), Dim::Static(_)) => {
                return Err(Diagnostic::raises(
                    span,
                    "LinAlgError",
                    "Last 2 dimensions of the array must be square",
                ))
            }
            _ => {
                return Err(Diagnostic::unsupported(
                    span,
                    format!("np.linalg.{name} of a matrix of a run-time size is not supported by agc (its size must be static)"),
                ))
            }
        };
        if n > MAX_SIZE {
            return Err(Diagnostic::unsupported(
                span,
                format!("np.linalg.{name} of a {n}x{n} matrix: agc eliminates matrices of at most {MAX_SIZE} rows"),
            ));
        }
        let a = match t.ty.dtype {
            DType::F32 | DType::F64 => a.clone(),
            _ => self.np(
                "asarray",
                vec![a.clone()],
                vec![("dtype", Value::DType(DType::F64))],
                span,
            )?,
        };
        Ok((a, n))
    }

    /// Eliminates `[a | b]` (`a`: `(..., n, n)`, `b`: `(..., n, k)`); returns
    /// the solution `x` of `a x = b` (`a` itself, reduced, when `b` is
    /// `None`) and the pivots, each negated where its step swapped rows
    /// (their product is the determinant). With `singular_fails`, a zero
    /// pivot fails the call with numpy's message.
    fn gauss_jordan(
        &mut self,
        a: &Value,
        b: Option<&Value>,
        n: i64,
        singular_fails: bool,
        span: Span,
    ) -> R<(Value, Vec<Value>)> {
        let mut m = match b {
            None => a.clone(),
            Some(b) => self.np(
                "concatenate",
                vec![Value::tuple(vec![a.clone(), b.clone()])],
                vec![("axis", Value::Int(-1))],
                span,
            )?,
        };
        let rank = self.to_tensor(&m, None, span)?.ty.rank();
        let at = Axes { rank };
        let idx = self.np1("arange", &Value::Int(n), span)?;
        // `idx` as a column, to select rows of `(..., n, w)`.
        let idx_col = self.np2("expand_dims", &idx, &Value::Int(-1), span)?;
        let mut pivots = Vec::new();
        let mut nonzero = Vec::new();
        for j in 0..n {
            let col = self.get_item(&m, &at.column(j), span)?;
            let magnitude = self.np1("abs", &col, span)?;
            let below = self.np2("greater_equal", &idx, &Value::Int(j), span)?;
            let candidates = self.np(
                "where",
                vec![below, magnitude, Value::Float(-1.0)],
                vec![],
                span,
            )?;
            let p = self.np(
                "argmax",
                vec![candidates],
                vec![("axis", Value::Int(-1))],
                span,
            )?;
            // Swap rows j and p: row p is picked out with a one-hot mask.
            let p_col = self.np2("expand_dims", &p, &Value::Int(-1), span)?;
            let p_col = self.np2("expand_dims", &p_col, &Value::Int(-1), span)?;
            let is_p = self.np2("equal", &idx_col, &p_col, span)?;
            let zero = self.np1("zeros_like", &m, span)?;
            let picked = self.np("where", vec![is_p.clone(), m.clone(), zero], vec![], span)?;
            let row_p = self.np(
                "sum",
                vec![picked],
                vec![("axis", Value::Int(-2)), ("keepdims", Value::Bool(true))],
                span,
            )?;
            let row_j = self.get_item(&m, &at.row(j), span)?;
            let row_j = self.np2("expand_dims", &row_j, &Value::Int(-2), span)?;
            let is_j = self.np2("equal", &idx_col, &Value::Int(j), span)?;
            let swapped = self.np("where", vec![is_p, row_j, m.clone()], vec![], span)?;
            m = self.np("where", vec![is_j.clone(), row_p, swapped], vec![], span)?;
            // The determinant: the pivot, negated by a swap.
            let pivot_column = self.get_item(&m, &at.column(j), span)?;
            let pivot = self.get_item(&pivot_column, &Axes { rank: rank - 1 }.column(j), span)?;
            let moved = self.np2("not_equal", &p, &Value::Int(j), span)?;
            let neg = self.np1("negative", &pivot, span)?;
            pivots.push(self.np("where", vec![moved, neg, pivot.clone()], vec![], span)?);
            nonzero.push(self.np2("not_equal", &pivot, &Value::Float(0.0), span)?);
            // Scale row j, eliminate column j from the others.
            let row = self.get_item(&m, &at.row(j), span)?;
            // A zero pivot (a zero column: singular) scales by 1, as LAPACK
            // skips the scaling: the later pivots, and the determinant 0, stay exact.
            let is_zero = self.np2("equal", &pivot, &Value::Float(0.0), span)?;
            let divisor = self.np(
                "where",
                vec![is_zero, Value::Float(1.0), pivot.clone()],
                vec![],
                span,
            )?;
            let pivot_col = self.np2("expand_dims", &divisor, &Value::Int(-1), span)?;
            let row = self.np2("divide", &row, &pivot_col, span)?;
            let factors = self.get_item(&m, &at.column(j), span)?;
            let on_j = self.np2("equal", &idx, &Value::Int(j), span)?;
            let factors = self.np(
                "where",
                vec![on_j, Value::Float(0.0), factors],
                vec![],
                span,
            )?;
            let factors = self.np2("expand_dims", &factors, &Value::Int(-1), span)?;
            let row = self.np2("expand_dims", &row, &Value::Int(-2), span)?;
            let update = self.np2("multiply", &factors, &row, span)?;
            let eliminated = self.np2("subtract", &m, &update, span)?;
            m = self.np("where", vec![is_j, row, eliminated], vec![], span)?;
        }
        if singular_fails && !nonzero.is_empty() {
            let all_nonzero = self.np1("stack", &Value::tuple(nonzero), span)?;
            let ok = self.np1("all", &all_nonzero, span)?;
            let ok = super::tensor::staged(ok, span)?;
            self.check(&ok, "LinAlgError: Singular matrix".into(), span)?;
        }
        let x = match b {
            None => m,
            Some(_) => self.get_item(&m, &at.columns_from(n), span)?,
        };
        Ok((x, pivots))
    }

    /// `combine` (`"multiply"`, `"add"`) over `term` of each pivot of `a`,
    /// in order; `empty` (in the shape of the stack) for a 0x0 matrix.
    fn over_pivots(
        &mut self,
        a: &Value,
        pivots: Vec<Value>,
        combine: &str,
        mut term: impl FnMut(&mut Self, Value) -> R<Value>,
        empty: f64,
        span: Span,
    ) -> R<Value> {
        let mut total: Option<Value> = None;
        for p in pivots {
            let t = term(self, p)?;
            total = Some(match total {
                None => t,
                Some(acc) => self.np2(combine, &acc, &t, span)?,
            });
        }
        match total {
            Some(t) => Ok(t),
            None => {
                let axes = Value::tuple(vec![Value::Int(-2), Value::Int(-1)]);
                let none = self.np("sum", vec![a.clone()], vec![("axis", axes)], span)?;
                let zero = self.np2("multiply", &none, &Value::Float(0.0), span)?;
                self.np2("add", &zero, &Value::Float(empty), span)
            }
        }
    }
}
