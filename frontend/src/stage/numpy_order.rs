//! Order statistics and NaN-ignoring reductions of the `agc.numpy`
//! surface: `median`, `quantile`, `percentile`, and `nansum`, `nanprod`,
//! `nanmax`, `nanmin`, `nanmean`, `nanvar`, `nanstd`, `nanargmax`,
//! `nanargmin`, staged as numpy defines them from other numpy functions
//! (see [`super::numpy_composite`]): a sort and the elements at the
//! (run-time) positions; the reduction of the array with its NaNs replaced
//! by the reduction's identity.

use super::args::Args;
use super::pyops::{iterate, truthy};
use super::tensor::{staged, type_error};
use super::value::{Tensor, Value};
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{infer, DType, Span};

/// The functions this module stages, by their `np.` name.
pub const FUNCTIONS: &[&str] = &[
    "median",
    "quantile",
    "percentile",
    "nansum",
    "nanprod",
    "nanmax",
    "nanmin",
    "nanmean",
    "nanvar",
    "nanstd",
    "nanargmax",
    "nanargmin",
];

impl Stager {
    /// Calls `np.<f>` for `f` in [`FUNCTIONS`].
    pub(super) fn numpy_order(&mut self, f: &str, args: &Args) -> R<Value> {
        let span = args.span;
        let a = self.to_tensor(&args.req(0, "a", f)?, None, span)?;
        match f {
            "median" => {
                let keepdims = flag(args, 4, "keepdims", span)?;
                let (sorted, axis, kept) = self.sorted_along(&a, args.get(1, "axis"), span)?;
                self.median(&sorted, axis, keepdims.then_some(kept), span)
            }
            "quantile" | "percentile" => {
                let method = args.get(5, "method");
                if method.is_some_and(|m| !matches!(&m, Value::Str(s) if &**s == "linear")) {
                    return Err(Diagnostic::unsupported(
                        span,
                        format!("np.{f} with a method other than 'linear'"),
                    ));
                }
                let keepdims = flag(args, 6, "keepdims", span)?;
                let scale = if f == "percentile" { 100.0 } else { 1.0 };
                let q = args.req(1, "q", f)?;
                let (sorted, axis, kept) = self.sorted_along(&a, args.get(2, "axis"), span)?;
                self.quantiles(&sorted, &q, scale, axis, keepdims.then_some(kept), span)
            }
            _ if !a.ty.dtype.is_float() => {
                // No NaNs: the plain reduction.
                let plain = &f[3..];
                self.call_numpy(&format!("np.{plain}"), None, args.clone())
            }
            _ => self.nan_reduction(f, &a, args),
        }
    }

    /// `a` sorted along `axis` (all its elements, flattened, for `None`);
    /// the sorted array, the axis and the result dims that keep it.
    fn sorted_along(
        &mut self,
        a: &Tensor,
        axis: Option<Value>,
        span: Span,
    ) -> R<(Tensor, usize, Vec<agc_ir::Dim>)> {
        let (t, axis, kept) = match axis.filter(|v| !matches!(v, Value::None)) {
            None => {
                let kept = vec![agc_ir::Dim::Static(1); a.ty.rank()];
                (self.flatten(a, span)?, 0, kept)
            }
            Some(v) => {
                let ax = v
                    .as_int()
                    .ok_or_else(|| Diagnostic::error(span, "axis must be a compile-time int"))?;
                let ax = infer::normalize_axis(ax, a.ty.rank()).map_err(|e| type_error(span, e))?;
                let mut kept = a.ty.dims.clone();
                kept[ax] = agc_ir::Dim::Static(1);
                (a.clone(), ax, kept)
            }
        };
        let t = if t.ty.dtype.is_float() {
            t
        } else {
            self.cast(&t, DType::F64, span)?
        };
        let sorted = self.np(
            "sort",
            vec![Value::Tensor(t)],
            vec![("axis", Value::Int(axis as i64))],
            span,
        )?;
        Ok((staged(sorted, span)?, axis, kept))
    }

    /// The elements of `sorted` at the (rank-0, run-time) position `index`
    /// along `axis`.
    fn at_position(&mut self, sorted: &Tensor, index: &Value, axis: usize, span: Span) -> R<Value> {
        let index = self.cast_value(index, DType::I64, span)?;
        self.np(
            "take",
            vec![Value::Tensor(sorted.clone()), index],
            vec![("axis", Value::Int(axis as i64))],
            span,
        )
    }

    /// numpy's median of `sorted` along `axis`: the middle element, or the
    /// mean of the middle two; NaN where the slice holds a NaN (sorted last).
    fn median(
        &mut self,
        sorted: &Tensor,
        axis: usize,
        kept: Option<Vec<agc_ir::Dim>>,
        span: Span,
    ) -> R<Value> {
        let n = Value::Tensor(self.sym_value(&sorted.ty.dims[axis], span)?);
        let hi = self.np2("floor_divide", &n, &Value::Int(2), span)?;
        let lo_even = self.np2("subtract", &hi, &Value::Int(1), span)?;
        let odd = self.np2("remainder", &n, &Value::Int(2), span)?;
        let odd = self.np2("equal", &odd, &Value::Int(1), span)?;
        let lo = self.np("where", vec![odd, hi.clone(), lo_even], Vec::new(), span)?;
        let a = self.at_position(sorted, &lo, axis, span)?;
        let b = self.at_position(sorted, &hi, axis, span)?;
        let pair = self.np("stack", vec![Value::list(vec![a, b])], Vec::new(), span)?;
        let m = self.np("mean", vec![pair], vec![("axis", Value::Int(0))], span)?;
        let last = self.np2("subtract", &n, &Value::Int(1), span)?;
        let last = self.at_position(sorted, &last, axis, span)?;
        let nan = self.np1("isnan", &last, span)?;
        let m = self.np("where", vec![nan, last, m], Vec::new(), span)?;
        self.keep(m, kept, span)
    }

    /// numpy's `quantile(a, q)` with the linear method, of `sorted` along
    /// `axis`, for a compile-time `q` (a number or a sequence of numbers;
    /// each divided by `scale`), the quantiles along a new first axis.
    fn quantiles(
        &mut self,
        sorted: &Tensor,
        q: &Value,
        scale: f64,
        axis: usize,
        kept: Option<Vec<agc_ir::Dim>>,
        span: Span,
    ) -> R<Value> {
        let number = |v: &Value| -> R<f64> {
            let x = match v {
                Value::Int(i) => *i as f64,
                Value::Float(x) => *x,
                _ => {
                    return Err(Diagnostic::error(
                        span,
                        "q must be a compile-time number or a sequence of them",
                    ))
                }
            } / scale;
            if !(0.0..=1.0).contains(&x) {
                return Err(Diagnostic::raises(
                    span,
                    "ValueError",
                    if scale == 1.0 {
                        "Quantiles must be in the range [0, 1]"
                    } else {
                        "Percentiles must be in the range [0, 100]"
                    },
                ));
            }
            Ok(x)
        };
        let many = matches!(q, Value::List(_) | Value::Tuple(_));
        let qs: Vec<f64> = if many {
            iterate(q, span)?.iter().map(number).collect::<R<_>>()?
        } else {
            vec![number(q)?]
        };
        let mut out = Vec::new();
        for x in qs {
            let r = self.quantile_one(sorted, x, many, axis, span)?;
            out.push(self.keep(r, kept.clone(), span)?);
        }
        if many {
            return self.np("stack", vec![Value::list(out)], Vec::new(), span);
        }
        Ok(out.remove(0))
    }

    /// One linear-method quantile `q` (one of a sequence: `q_array`) of
    /// `sorted` along `axis`: with
    /// `v = q (n - 1)` (as numpy computes it), numpy's `lerp` of the elements at `floor(v)` and the
    /// next by `v - floor(v)`; NaN where the slice holds a NaN.
    fn quantile_one(
        &mut self,
        sorted: &Tensor,
        q: f64,
        q_array: bool,
        axis: usize,
        span: Span,
    ) -> R<Value> {
        let n = Value::Tensor(self.sym_value(&sorted.ty.dims[axis], span)?);
        let last = self.np2("subtract", &n, &Value::Int(1), span)?;
        // numpy's virtual index for the linear method, (n q + (1 - q)) - 1,
        // in its order of operations.
        let n_f = self.cast_value(&n, DType::F64, span)?;
        let nq = self.np2("multiply", &n_f, &Value::Float(q), span)?;
        let v = self.np2("add", &nq, &Value::Float(1.0 + -q), span)?;
        let v = self.np2("subtract", &v, &Value::Float(1.0), span)?;
        let lo_f = self.np1("floor", &v, span)?;
        let lo = self.cast_value(&lo_f, DType::I64, span)?;
        let hi = self.np2("add", &lo, &Value::Int(1), span)?;
        let hi = self.np2("minimum", &hi, &last, span)?;
        // The weight: a float64 array when q is a sequence (it promotes the
        // interpolation), else a weak scalar in the array's dtype.
        let t = self.np2("subtract", &v, &lo_f, span)?;
        let t = if q_array {
            t
        } else {
            self.cast_value(&t, sorted.ty.dtype, span)?
        };
        let a = self.at_position(sorted, &lo, axis, span)?;
        let b = self.at_position(sorted, &hi, axis, span)?;
        // numpy's _lerp: a + (b - a) t, or b - (b - a)(1 - t) from t = 0.5 on.
        let d = self.np2("subtract", &b, &a, span)?;
        let up = self.np2("multiply", &d, &t, span)?;
        let up = self.np2("add", &a, &up, span)?;
        let rest = self.np2("subtract", &Value::Int(1), &t, span)?;
        let down = self.np2("multiply", &d, &rest, span)?;
        let down = self.np2("subtract", &b, &down, span)?;
        let past_half = self.np2("greater_equal", &t, &Value::Float(0.5), span)?;
        let r = self.np("where", vec![past_half, down, up], Vec::new(), span)?;
        let end = self.at_position(sorted, &last, axis, span)?;
        let nan = self.np1("isnan", &end, span)?;
        self.np("where", vec![nan, end, r], Vec::new(), span)
    }

    /// `r` reshaped to `kept` (the reduced axes as size 1) for `keepdims`.
    fn keep(&mut self, r: Value, kept: Option<Vec<agc_ir::Dim>>, span: Span) -> R<Value> {
        match kept {
            None => Ok(r),
            Some(dims) => {
                let t = staged(r, span)?;
                Ok(Value::Tensor(self.reshape_to(&t, dims, span)?))
            }
        }
    }

    /// `np.nan<f>` of a float array: the reduction of `a` with its NaNs
    /// replaced by the reduction's identity, counting only the numbers for
    /// means and variances; NaN where a slice holds nothing else.
    fn nan_reduction(&mut self, f: &str, a: &Tensor, args: &Args) -> R<Value> {
        let span = args.span;
        let av = Value::Tensor(a.clone());
        let nan = self.np1("isnan", &av, span)?;
        let with = |st: &mut Self, fill: f64| -> R<Value> {
            st.np(
                "where",
                vec![nan.clone(), Value::Float(fill), av.clone()],
                Vec::new(),
                span,
            )
        };
        let plain = |st: &mut Self, f: &str, x: Value, args: &Args| -> R<Value> {
            let mut forwarded = args.clone();
            if forwarded.pos.is_empty() {
                forwarded.kw.retain(|(k, _)| k != "a");
                forwarded.pos.push(x);
            } else {
                forwarded.pos[0] = x;
            }
            st.call_numpy(&format!("np.{f}"), None, forwarded)
        };
        match f {
            "nansum" => {
                let x = with(self, 0.0)?;
                plain(self, "sum", x, args)
            }
            "nanprod" => {
                let x = with(self, 1.0)?;
                plain(self, "prod", x, args)
            }
            "nanmax" | "nanmin" => {
                let (fill, g) = if f == "nanmax" {
                    (f64::NEG_INFINITY, "max")
                } else {
                    (f64::INFINITY, "min")
                };
                let x = with(self, fill)?;
                let m = plain(self, g, x, args)?;
                let none = plain(self, "all", nan.clone(), &reduce_args(args, 3))?;
                self.np(
                    "where",
                    vec![none, Value::Float(f64::NAN), m],
                    Vec::new(),
                    span,
                )
            }
            "nanargmax" | "nanargmin" => {
                let fill = if f == "nanargmax" {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                };
                let x = with(self, fill)?;
                plain(self, &f[3..], x, args)
            }
            "nanmean" => {
                let x = with(self, 0.0)?;
                let s = plain(self, "sum", x, args)?;
                let count = self.numbers_counted(&nan, a.ty.dtype, args, 4)?;
                self.np2("divide", &s, &count, span)
            }
            _ => {
                // nanvar, nanstd: squared distances from the mean of the numbers.
                let ddof = args.get(4, "ddof").unwrap_or(Value::Int(0));
                let mut kept = reduce_args(args, 5);
                kept.kw.retain(|(k, _)| k != "keepdims");
                kept.kw.push(("keepdims".into(), Value::Bool(true)));
                let x = with(self, 0.0)?;
                let s = plain(self, "sum", x, &kept)?;
                let count_kept = self.numbers_counted(&nan, a.ty.dtype, &kept, 4)?;
                let mean = self.np2("divide", &s, &count_kept, span)?;
                let d = self.np2("subtract", &av, &mean, span)?;
                let d = self.np(
                    "where",
                    vec![nan.clone(), Value::Float(0.0), d],
                    Vec::new(),
                    span,
                )?;
                let sq = self.np2("multiply", &d, &d, span)?;
                let ss = plain(self, "sum", sq, &reduce_args(args, 5))?;
                let count = self.numbers_counted(&nan, a.ty.dtype, &reduce_args(args, 5), 4)?;
                let dof = self.np2("subtract", &count, &ddof, span)?;
                let var = self.np2("divide", &ss, &dof, span)?;
                if f == "nanvar" {
                    return Ok(var);
                }
                self.np1("sqrt", &var, span)
            }
        }
    }

    /// How many numbers (not NaN) each slice of the reduction `args`
    /// describes holds (`keepdims` at position `keepdims_at`), in `dtype`.
    fn numbers_counted(
        &mut self,
        nan: &Value,
        dtype: DType,
        args: &Args,
        keepdims_at: usize,
    ) -> R<Value> {
        let span = args.span;
        let numbers = self.np1("logical_not", nan, span)?;
        let mut kw = vec![("dtype", Value::DType(dtype))];
        if let Some(axis) = args.get(1, "axis") {
            kw.push(("axis", axis));
        }
        if let Some(k) = args.get(keepdims_at, "keepdims") {
            kw.push(("keepdims", k));
        }
        self.np("sum", vec![numbers], kw, span)
    }
}

/// `args` of a reduction cut to the array, `axis` and `keepdims` (at
/// position `keepdims_at`), for a reduction whose other parameters differ.
fn reduce_args(args: &Args, keepdims_at: usize) -> Args {
    let mut kw = Vec::new();
    if let Some(axis) = args.get(1, "axis") {
        kw.push(("axis".to_string(), axis));
    }
    if let Some(k) = args.get(keepdims_at, "keepdims") {
        kw.push(("keepdims".to_string(), k));
    }
    Args {
        pos: args.pos.iter().take(1).cloned().collect(),
        kw,
        span: args.span,
    }
}

/// A compile-time boolean argument, false when absent.
fn flag(args: &Args, index: usize, name: &str, span: Span) -> R<bool> {
    match args.get(index, name) {
        None => Ok(false),
        Some(v) => truthy(&v)
            .ok_or_else(|| Diagnostic::error(span, format!("{name} must be a compile-time bool"))),
    }
}
