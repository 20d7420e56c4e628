//! Polynomials, differences, integrals and running totals of the
//! `agc.numpy` surface, staged as the compositions numpy defines them by
//! (see [`super::numpy_composite`]): `polyval`, `trapezoid`, `ediff1d`,
//! `cumulative_sum` and `cumulative_prod`.

use super::args::Args;
use super::value::Value;
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{infer, Dim, Span};

/// The functions this module stages, by their `np.` name.
pub const FUNCTIONS: &[&str] = &[
    "polyval",
    "trapezoid",
    "ediff1d",
    "cumulative_sum",
    "cumulative_prod",
];

/// The index `x[..., start:stop, ...]` with the slice on `axis` of `rank` axes.
pub(super) fn slice_on(axis: usize, rank: usize, start: Value, stop: Value) -> Value {
    let mut items: Vec<Value> = (0..rank)
        .map(|_| Value::slice(Value::None, Value::None))
        .collect();
    items[axis] = Value::slice(start, stop);
    Value::tuple(items)
}

/// A compile-time int argument (an axis), `None` when absent or `None`.
fn int_arg(args: &Args, index: usize, name: &str) -> R<Option<i64>> {
    match args.get_some(index, name) {
        None => Ok(None),
        Some(v) => v.as_int().map(Some).ok_or_else(|| {
            Diagnostic::unsupported(args.span, format!("'{name}' must be a compile-time int"))
        }),
    }
}

impl Stager {
    /// Calls `np.<f>` for `f` in [`FUNCTIONS`].
    pub(super) fn numpy_series(&mut self, f: &str, args: &Args) -> R<Value> {
        match f {
            "polyval" => self.polyval(args),
            "trapezoid" => self.trapezoid(args),
            "ediff1d" => self.ediff1d(args),
            _ => self.cumulative_total(f, args),
        }
    }

    /// `np.polyval(p, x)`: Horner's rule from `zeros_like(x)`, as numpy
    /// (`y = y * x + pv` for each coefficient, highest power first).
    fn polyval(&mut self, args: &Args) -> R<Value> {
        let span = args.span;
        let p = self.np1("asarray", &args.req(0, "p", "polyval")?, span)?;
        let x = self.np1("asarray", &args.req(1, "x", "polyval")?, span)?;
        let count = match self.to_tensor(&p, None, span)?.ty.dims.first() {
            Some(Dim::Static(n)) => *n,
            Some(Dim::Sym(_)) => {
                return Err(Diagnostic::unsupported(
                    span,
                    "np.polyval(): the number of coefficients must be known at compile time",
                ))
            }
            None => {
                return Err(Diagnostic::raises(
                    span,
                    "TypeError",
                    "iteration over a 0-d array",
                ))
            }
        };
        let mut y = self.np1("zeros_like", &x, span)?;
        for i in 0..count {
            let pv = self.get_item(&p, &Value::Int(i), span)?;
            let yx = self.np2("multiply", &y, &x, span)?;
            y = self.np2("add", &yx, &pv, span)?;
        }
        Ok(y)
    }

    /// `np.trapezoid(y, x=None, dx=1.0, axis=-1)`: `sum(d * (y[1:] + y[:-1]) / 2)`
    /// along `axis`, `d` the spacing (`dx`, or `diff(x)`).
    fn trapezoid(&mut self, args: &Args) -> R<Value> {
        let span = args.span;
        let y = self.np1("asarray", &args.req(0, "y", "trapezoid")?, span)?;
        let rank = self.to_tensor(&y, None, span)?.ty.rank();
        let axis = int_arg(args, 3, "axis")?.unwrap_or(-1);
        let axis = if rank == 0 {
            // numpy indexes a 0-d array with the slices: an IndexError.
            return Err(Diagnostic::raises(
                span,
                "IndexError",
                "too many indices for array: array is 0-dimensional, but 1 were indexed",
            ));
        } else {
            infer::normalize_axis(axis, rank).map_err(|e| super::tensor::type_error(span, e))?
        };
        let d = match args.get_some(1, "x") {
            None => args.get(2, "dx").unwrap_or(Value::Float(1.0)),
            Some(x) => {
                let x = self.np1("asarray", &x, span)?;
                let x_rank = self.to_tensor(&x, None, span)?.ty.rank();
                if x_rank == 1 {
                    let d = self.np1("diff", &x, span)?;
                    let mut shape = vec![Value::Int(1); rank];
                    shape[axis] = Value::Int(-1);
                    self.np2("reshape", &d, &Value::tuple(shape), span)?
                } else {
                    self.np(
                        "diff",
                        vec![x],
                        vec![("axis", Value::Int(axis as i64))],
                        span,
                    )?
                }
            }
        };
        let upper = self.get_item(&y, &slice_on(axis, rank, Value::Int(1), Value::None), span)?;
        let lower = self.get_item(&y, &slice_on(axis, rank, Value::None, Value::Int(-1)), span)?;
        let sum = self.np2("add", &upper, &lower, span)?;
        let scaled = self.np2("multiply", &d, &sum, span)?;
        let half = self.np2("divide", &scaled, &Value::Float(2.0), span)?;
        self.np(
            "sum",
            vec![half],
            vec![("axis", Value::Int(axis as i64))],
            span,
        )
    }

    /// `np.ediff1d(ary, to_end=None, to_begin=None)`: the differences of the
    /// flattened array, with `to_begin` and `to_end` (flattened, in `ary`'s
    /// dtype) around them.
    fn ediff1d(&mut self, args: &Args) -> R<Value> {
        let span = args.span;
        let flat = self.np1("ravel", &args.req(0, "ary", "ediff1d")?, span)?;
        let dtype = Value::DType(self.to_tensor(&flat, None, span)?.ty.dtype);
        let upper = self.get_item(&flat, &slice_on(0, 1, Value::Int(1), Value::None), span)?;
        let lower = self.get_item(&flat, &slice_on(0, 1, Value::None, Value::Int(-1)), span)?;
        let diff = self.np2("subtract", &upper, &lower, span)?;
        let mut parts = Vec::new();
        let around = |s: &mut Self, v: Option<Value>| -> R<Option<Value>> {
            v.map(|v| {
                let v = s.np1("ravel", &v, span)?;
                s.np("asarray", vec![v], vec![("dtype", dtype.clone())], span)
            })
            .transpose()
        };
        let begin = around(self, args.get_some(2, "to_begin"))?;
        let end = around(self, args.get_some(1, "to_end"))?;
        parts.extend(begin);
        parts.push(diff);
        parts.extend(end);
        if parts.len() == 1 {
            return Ok(parts.remove(0));
        }
        self.np1("concatenate", &Value::tuple(parts), span)
    }

    /// `np.cumulative_sum` / `np.cumulative_prod(x, axis=None, dtype=None,
    /// include_initial=False)`: `cumsum`/`cumprod` along `axis` (which a
    /// 1-d `x` may leave out), after the identity when `include_initial`.
    fn cumulative_total(&mut self, f: &str, args: &Args) -> R<Value> {
        let span = args.span;
        let x = self.np1("asarray", &args.req(0, "x", f)?, span)?;
        let rank = self.to_tensor(&x, None, span)?.ty.rank();
        if args.get_some(3, "out").is_some() {
            return Err(out_unsupported(f, span));
        }
        let axis = match (int_arg(args, 1, "axis")?, rank) {
            (Some(a), _) => a,
            (None, 1) => 0,
            (None, 0) => {
                return Err(Diagnostic::raises(
                    span,
                    "ValueError",
                    "The input must be non-scalar.",
                ))
            }
            (None, _) => {
                return Err(Diagnostic::raises(
                    span,
                    "ValueError",
                    "Axis must be specified when array has more than one dimension",
                ))
            }
        };
        let (running, identity) = if f == "cumulative_sum" {
            ("cumsum", "zeros_like")
        } else {
            ("cumprod", "ones_like")
        };
        let mut kw = vec![("axis", Value::Int(axis))];
        if let Some(d) = args.get_some(2, "dtype") {
            kw.push(("dtype", d));
        }
        let r = self.np(running, vec![x.clone()], kw, span)?;
        let include = args.get(4, "include_initial").unwrap_or(Value::Bool(false));
        let include = super::pyops::truthy(&include).ok_or_else(|| {
            Diagnostic::unsupported(
                span,
                format!("np.{f}(): include_initial must be a compile-time bool"),
            )
        })?;
        if !include {
            return Ok(r);
        }
        let axis =
            infer::normalize_axis(axis, rank).map_err(|e| super::tensor::type_error(span, e))?;
        // The shape of one slice along `axis`, even where `axis` is empty.
        let one = self.np(
            "sum",
            vec![r.clone()],
            vec![
                ("axis", Value::Int(axis as i64)),
                ("keepdims", Value::Bool(true)),
            ],
            span,
        )?;
        let initial = self.np1(identity, &one, span)?;
        self.np(
            "concatenate",
            vec![Value::tuple(vec![initial, r])],
            vec![("axis", Value::Int(axis as i64))],
            span,
        )
    }
}

/// The error for an `out=` argument, which staged code cannot write into.
fn out_unsupported(f: &str, span: Span) -> Diagnostic {
    Diagnostic::unsupported(span, format!("np.{f}() with out= is not supported by agc"))
}
