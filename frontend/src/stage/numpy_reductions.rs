//! Reductions and products of the `agc.numpy` surface that numpy defines
//! from others, staged as the same compositions (see
//! [`super::numpy_composite`]): `average`, `ptp`, `inner`, `vdot`, `kron`,
//! `cov`, `corrcoef`; the `reduce`/`accumulate`/`outer` methods of ufuncs;
//! reductions given `where=` or `initial=`.

use super::args::Args;
use super::pyops::truthy;
use super::tensor::staged;
use super::value::{Tensor, Value};
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{DType, Dim, ReduceKind, Span};

/// The functions this module stages, by their `np.` name.
pub const FUNCTIONS: &[&str] = &["average", "ptp", "inner", "vdot", "kron", "cov", "corrcoef"];

/// The ufuncs whose `reduce`, `accumulate` and `outer` methods are staged
/// ([`Stager::ufunc_method`]), with the reduction and the running
/// reduction each method is.
const UFUNC_METHODS: &[(&str, &str, Option<&str>)] = &[
    ("add", "sum", Some("cumsum")),
    ("multiply", "prod", Some("cumprod")),
    ("maximum", "max", None),
    ("minimum", "min", None),
    ("logical_and", "all", None),
    ("logical_or", "any", None),
    ("subtract", "", None),
    ("divide", "", None),
    ("power", "", None),
    ("equal", "", None),
    ("greater", "", None),
    ("less", "", None),
    ("greater_equal", "", None),
    ("less_equal", "", None),
];

/// The ufuncs whose `accumulate` is a running maximum or minimum (numpy
/// has no function for those).
const RUNNING_EXTREMES: &[(&str, ReduceKind)] =
    &[("maximum", ReduceKind::Max), ("minimum", ReduceKind::Min)];

/// Whether `np.<ufunc>.<method>` is a staged ufunc method.
pub fn is_ufunc_method(ufunc: &str, method: &str) -> bool {
    UFUNC_METHODS.iter().any(|(u, reduce, accumulate)| {
        *u == ufunc
            && match method {
                "outer" => true,
                "reduce" => !reduce.is_empty(),
                "accumulate" => {
                    accumulate.is_some() || RUNNING_EXTREMES.iter().any(|(r, _)| r == u)
                }
                _ => false,
            }
    })
}

impl Stager {
    /// Calls `np.<f>` for `f` in [`FUNCTIONS`].
    pub(super) fn numpy_reductions(&mut self, f: &str, args: &Args) -> R<Value> {
        let span = args.span;
        let a = || args.req(0, "a", f);
        match f {
            "average" => self.average(args),
            "ptp" => {
                let mut kw = Vec::new();
                for (i, name) in [(1, "axis"), (3, "keepdims")] {
                    if let Some(v) = args.get(i, name) {
                        kw.push((name, v));
                    }
                }
                let x = a()?;
                let hi = self.np("max", vec![x.clone()], kw.clone(), span)?;
                let lo = self.np("min", vec![x], kw, span)?;
                self.np2("subtract", &hi, &lo, span)
            }
            "inner" => {
                let (x, y) = (args.req(0, "a", f)?, args.req(1, "b", f)?);
                let tx = self.to_tensor(&x, None, span)?;
                let ty = self.to_tensor(&y, None, span)?;
                if tx.ty.rank() == 0 || ty.ty.rank() == 0 {
                    return self.np2("multiply", &x, &y, span);
                }
                let axes = Value::tuple(vec![
                    Value::list(vec![Value::Int(tx.ty.rank() as i64 - 1)]),
                    Value::list(vec![Value::Int(ty.ty.rank() as i64 - 1)]),
                ]);
                self.np("tensordot", vec![x, y], vec![("axes", axes)], span)
            }
            "vdot" => {
                let (x, y) = (args.req(0, "a", f)?, args.req(1, "b", f)?);
                let x = self.np1("ravel", &x, span)?;
                let y = self.np1("ravel", &y, span)?;
                self.np2("dot", &x, &y, span)
            }
            "kron" => {
                let (x, y) = (args.req(0, "a", f)?, args.req(1, "b", f)?);
                self.kron(&x, &y, span)
            }
            "cov" | "corrcoef" => self.covariance(f, args),
            _ => Err(Diagnostic::internal(
                span,
                format!("np.{f} reached numpy_reductions"),
            )),
        }
    }

    /// `np.<ufunc>.<method>(...)` ([`is_ufunc_method`]): `reduce` is the
    /// reduction along `axis` (0 by default, as for every ufunc),
    /// `accumulate` the running one, `outer(a, b)` the ufunc of `a` with
    /// new trailing axes against `b`.
    pub(super) fn ufunc_method(&mut self, ufunc: &str, method: &str, args: &Args) -> R<Value> {
        let span = args.span;
        let (_, reduce, accumulate) = UFUNC_METHODS
            .iter()
            .find(|(u, _, _)| *u == ufunc)
            .ok_or_else(|| Diagnostic::internal(span, format!("np.{ufunc} has no methods")))?;
        match method {
            "outer" => {
                let a = self.to_tensor(&args.req(0, "A", "outer")?, None, span)?;
                let b = self.to_tensor(&args.req(1, "B", "outer")?, None, span)?;
                let dims =
                    a.ty.dims
                        .iter()
                        .cloned()
                        .chain(std::iter::repeat_n(Dim::Static(1), b.ty.rank()))
                        .collect();
                let a = Value::Tensor(self.reshape_to(&a, dims, span)?);
                self.np2(ufunc, &a, &Value::Tensor(b), span)
            }
            "accumulate" if accumulate.is_none() => self.running_extreme(ufunc, args),
            _ => {
                let f = if method == "reduce" {
                    *reduce
                } else {
                    accumulate.unwrap_or_default()
                };
                let mut forwarded = args.clone();
                if forwarded.get(1, "axis").is_none() {
                    forwarded.kw.push(("axis".into(), Value::Int(0)));
                }
                self.call_numpy(&format!("np.{f}"), None, forwarded)
            }
        }
    }

    /// `np.maximum.accumulate(array, axis=0)` / `np.minimum.accumulate`: the
    /// running maximum or minimum along `axis`, in `array`'s dtype (NaN
    /// propagates, as in numpy).
    fn running_extreme(&mut self, ufunc: &str, args: &Args) -> R<Value> {
        let span = args.span;
        let kind = RUNNING_EXTREMES
            .iter()
            .find(|(u, _)| *u == ufunc)
            .map(|(_, k)| *k)
            .ok_or_else(|| Diagnostic::internal(span, format!("np.{ufunc}.accumulate")))?;
        for (i, name) in [(2, "dtype"), (3, "out")] {
            if args.get_some(i, name).is_some() {
                return Err(Diagnostic::unsupported(
                    span,
                    format!("np.{ufunc}.accumulate() with {name}= is not supported by agc"),
                ));
            }
        }
        let t = self.to_tensor(&args.req(0, "array", "accumulate")?, None, span)?;
        if t.ty.rank() == 0 {
            return Err(Diagnostic::raises(
                span,
                "ValueError",
                "cannot accumulate on a scalar",
            ));
        }
        let axis = match args.get_some(1, "axis") {
            None => 0,
            Some(v) => v
                .as_int()
                .ok_or_else(|| Diagnostic::unsupported(span, "axis must be a compile-time int"))?,
        };
        let axis = agc_ir::infer::normalize_axis(axis, t.ty.rank())
            .map_err(|e| super::tensor::type_error(span, e))?;
        self.cumulative(kind, &t, axis, span).map(Value::Tensor)
    }

    /// A reduction given `where=` or `initial=` (function form, or method
    /// form with receiver `recv`), staged as numpy defines them: the
    /// elements outside the mask replaced by the reduction's identity (by
    /// `initial` for `max`/`min`, which have none), `initial` joined to the
    /// result; `mean` divides by the count of the mask. `None` for any
    /// other call.
    pub(super) fn masked_reduction(
        &mut self,
        f: &str,
        recv: Option<&Value>,
        args: &Args,
    ) -> Option<R<Value>> {
        let f = f
            .strip_prefix('a')
            .filter(|g| matches!(*g, "max" | "min"))
            .unwrap_or(f);
        let (fill, join): (Option<f64>, Option<&str>) = match f {
            "sum" | "nansum" => (Some(0.0), Some("add")),
            "prod" | "nanprod" => (Some(1.0), Some("multiply")),
            "max" => (None, Some("maximum")),
            "min" => (None, Some("minimum")),
            "any" => (Some(0.0), None),
            "all" => (Some(1.0), None),
            "mean" => (Some(0.0), None),
            _ => return None,
        };
        let given = |k: &str| {
            args.kw
                .iter()
                .find(|(name, v)| name == k && !matches!(v, Value::None))
                .map(|(_, v)| v.clone())
        };
        let mask = given("where").filter(|v| !matches!(v, Value::Bool(true)));
        let initial = given("initial");
        if mask.is_none() && initial.is_none() {
            return None;
        }
        Some(self.masked_reduction_of(f, recv, args, mask, initial, fill, join))
    }

    /// [`Stager::masked_reduction`] once it applies.
    #[allow(clippy::too_many_arguments)]
    fn masked_reduction_of(
        &mut self,
        f: &str,
        recv: Option<&Value>,
        args: &Args,
        mask: Option<Value>,
        initial: Option<Value>,
        fill: Option<f64>,
        join: Option<&str>,
    ) -> R<Value> {
        let span = args.span;
        if initial.is_some() && join.is_none() {
            return Err(Diagnostic::raises(
                span,
                "TypeError",
                format!("{f}() got an unexpected keyword argument 'initial'"),
            ));
        }
        let mut rest = args.clone();
        rest.kw.retain(|(k, _)| k != "where" && k != "initial");
        let x = match recv {
            Some(r) => r.clone(),
            None if !rest.pos.is_empty() => rest.pos.remove(0),
            None => {
                let at = rest.kw.iter().position(|(k, _)| k == "a").ok_or_else(|| {
                    Diagnostic::error(span, format!("{f}() missing required argument 'a'"))
                })?;
                rest.kw.remove(at).1
            }
        };
        let dtype = self.to_tensor(&x, None, span)?.ty.dtype;
        let masked = match &mask {
            None => x.clone(),
            Some(m) => {
                let replacement = match (fill, &initial) {
                    (Some(v), _) => Value::Float(v),
                    (None, Some(init)) => init.clone(),
                    (None, None) => {
                        return Err(Diagnostic::raises(
                            span,
                            "ValueError",
                            format!("reduction operation '{}' does not have an identity, so to use a where mask one has to specify 'initial'", join.unwrap_or(f)),
                        ))
                    }
                };
                let replacement = self.cast_value(&replacement, dtype, span)?;
                self.np(
                    "where",
                    vec![m.clone(), x.clone(), replacement],
                    Vec::new(),
                    span,
                )?
            }
        };
        let r = match (f, &mask) {
            ("mean", Some(m)) => {
                // The sum of the masked elements over their count.
                rest.pos.insert(0, masked);
                let total = self.call_numpy("np.sum", None, rest.clone())?;
                let ones = self.np1("ones_like", &x, span)?;
                let ones = self.cast_value(
                    &ones,
                    if dtype.is_float() { dtype } else { DType::F64 },
                    span,
                )?;
                rest.pos[0] = self.np(
                    "where",
                    vec![m.clone(), ones, Value::Float(0.0)],
                    Vec::new(),
                    span,
                )?;
                rest.kw.retain(|(k, _)| k != "dtype");
                let count = self.call_numpy("np.sum", None, rest)?;
                self.np2("divide", &total, &count, span)?
            }
            _ => {
                rest.pos.insert(0, masked);
                self.call_numpy(&format!("np.{f}"), None, rest)?
            }
        };
        match (initial, join) {
            (Some(init), Some(j)) => {
                let rd = self.to_tensor(&r, None, span)?.ty.dtype;
                let joined = self.np2(j, &r, &init, span)?;
                self.cast_value(&joined, rd, span)
            }
            _ => Ok(r),
        }
    }

    /// `np.average(a, axis=None, weights=None, returned=False, keepdims=False)`.
    fn average(&mut self, args: &Args) -> R<Value> {
        let span = args.span;
        let x = args.req(0, "a", "average")?;
        let axis = args.get(1, "axis").unwrap_or(Value::None);
        let keepdims = args.get(4, "keepdims").unwrap_or(Value::Bool(false));
        let returned = args
            .get(3, "returned")
            .is_some_and(|v| matches!(v, Value::Bool(true)));
        let reduce_kw = vec![("axis", axis.clone()), ("keepdims", keepdims.clone())];
        let Some(w) = args.get_some(2, "weights") else {
            let avg = self.np("mean", vec![x.clone()], reduce_kw, span)?;
            if !returned {
                return Ok(avg);
            }
            let count = self.average_count(&x, &avg, &axis, span)?;
            return Ok(Value::tuple(vec![avg, count]));
        };
        let t = self.to_tensor(&x, None, span)?;
        let mut wt = self.to_tensor(&w, None, span)?;
        // Result dtype: float64 for integers, else the promoted float.
        let dtype = match DType::promote(t.ty.dtype, wt.ty.dtype) {
            d if d.is_float() => d,
            _ => DType::F64,
        };
        if wt.ty.dims != t.ty.dims {
            // 1-d weights along `axis`.
            let Some(ax) = axis.as_int().filter(|_| wt.ty.rank() == 1) else {
                return Err(Diagnostic::raises(
                    span,
                    "TypeError",
                    "Axis must be specified when shapes of a and weights differ.",
                ));
            };
            let ax = agc_ir::infer::normalize_axis(ax, t.ty.rank())
                .map_err(|e| super::tensor::type_error(span, e))?;
            let mut dims = vec![Dim::Static(1); t.ty.rank()];
            dims[ax] = wt.ty.dims[0].clone();
            wt = self.reshape_to(&wt, dims, span)?;
        }
        let tx = Value::Tensor(self.cast(&t, dtype, span)?);
        let tw = Value::Tensor(self.cast(&wt, dtype, span)?);
        let full = self.np2("multiply", &tx, &tw, span)?;
        let scl_w = self.np2("add", &full, &Value::Int(0), span)?;
        let ones = self.np1("ones_like", &scl_w, span)?;
        let w_full = self.np2("multiply", &tw, &ones, span)?;
        let num = self.np("sum", vec![full], reduce_kw.clone(), span)?;
        let scl = self.np("sum", vec![w_full], reduce_kw, span)?;
        let avg = self.np2("divide", &num, &scl, span)?;
        if returned {
            let ones = self.np1("ones_like", &avg, span)?;
            let scl = self.np2("multiply", &scl, &ones, span)?;
            return Ok(Value::tuple(vec![avg, scl]));
        }
        Ok(avg)
    }

    /// The count `np.average(..., returned=True)` gives without weights:
    /// the number of elements averaged, shaped like the average.
    fn average_count(&mut self, x: &Value, avg: &Value, axis: &Value, span: Span) -> R<Value> {
        let t = self.to_tensor(x, None, span)?;
        let ones = self.np1("ones_like", &Value::Tensor(t), span)?;
        let count = self.np("sum", vec![ones], vec![("axis", axis.clone())], span)?;
        let avg_ones = self.np1("ones_like", avg, span)?;
        let dtype = self.to_tensor(avg, None, span)?.ty.dtype;
        let count = self.cast_value(&count, dtype, span)?;
        self.np2("multiply", &count, &avg_ones, span)
    }

    /// `np.kron(a, b)`: ranks made equal with leading 1s, the outer product
    /// with each pair of axes side by side, the pairs merged.
    fn kron(&mut self, x: &Value, y: &Value, span: Span) -> R<Value> {
        let tx = self.to_tensor(x, None, span)?;
        let ty = self.to_tensor(y, None, span)?;
        let rank = tx.ty.rank().max(ty.ty.rank());
        let pad = |t: &Tensor| -> Vec<Dim> {
            std::iter::repeat_n(Dim::Static(1), rank - t.ty.rank())
                .chain(t.ty.dims.iter().cloned())
                .collect()
        };
        let (dx, dy) = (pad(&tx), pad(&ty));
        let one = Dim::Static(1);
        let ax: Vec<Dim> = dx.iter().flat_map(|d| [d.clone(), one.clone()]).collect();
        let ay: Vec<Dim> = dy.iter().flat_map(|d| [one.clone(), d.clone()]).collect();
        let ex = Value::Tensor(self.reshape_to(&tx, ax, span)?);
        let ey = Value::Tensor(self.reshape_to(&ty, ay, span)?);
        let outer = staged(self.np2("multiply", &ex, &ey, span)?, span)?;
        let dims: Vec<Dim> = outer
            .ty
            .dims
            .chunks(2)
            .map(agc_ir::infer::dim_product)
            .collect();
        Ok(Value::Tensor(self.reshape_to(&outer, dims, span)?))
    }

    /// `np.cov(m, y=None, rowvar=True, bias=False, ddof=None)` (no weights)
    /// and `np.corrcoef(x, y=None, rowvar=True)`, in float64 at least.
    fn covariance(&mut self, f: &str, args: &Args) -> R<Value> {
        let span = args.span;
        for (i, name) in [(5, "fweights"), (6, "aweights")] {
            if f == "cov" && args.get_some(i, name).is_some() {
                return Err(Diagnostic::error(
                    span,
                    format!("np.cov() with {name}= is not supported by agc"),
                ));
            }
        }
        let m = args.req(0, if f == "cov" { "m" } else { "x" }, f)?;
        let t = self.to_tensor(&m, None, span)?;
        if t.ty.rank() > 2 {
            return Err(Diagnostic::raises(
                span,
                "ValueError",
                "m has more than 2 dimensions",
            ));
        }
        let dtype = match DType::promote(t.ty.dtype, DType::F64) {
            d if d.is_float() => d,
            _ => DType::F64,
        };
        let mut x = self.cast(&t, dtype, span)?;
        if let Some(y) = args.get_some(1, "y") {
            let y = self.to_tensor(&y, Some(dtype), span)?;
            let parts = Value::list(vec![Value::Tensor(x), Value::Tensor(y)]);
            let both = self.np("vstack", vec![parts], Vec::new(), span)?;
            x = staged(both, span)?;
        }
        let rowvar = args.get(2, "rowvar").map_or(Ok(true), |v| {
            truthy(&v).ok_or_else(|| Diagnostic::error(span, "rowvar must be a compile-time bool"))
        })?;
        let mut x = self.reshape_to(&x, super::numpy_arrays::atleast_dims(&x.ty.dims, 2), span)?;
        if !rowvar && t.ty.rank() == 2 {
            x = self.permute(&x, vec![1, 0], span)?;
        }
        let bias = args
            .get(3, "bias")
            .is_some_and(|v| truthy(&v) == Some(true));
        let ddof = match args.get_some(4, "ddof") {
            Some(v) => v
                .as_int()
                .ok_or_else(|| Diagnostic::error(span, "ddof must be a compile-time int"))?,
            None => i64::from(!bias),
        };
        let xv = Value::Tensor(x.clone());
        let mean = self.np(
            "mean",
            vec![xv.clone()],
            vec![("axis", Value::Int(1)), ("keepdims", Value::Bool(true))],
            span,
        )?;
        let centred = self.np2("subtract", &xv, &mean, span)?;
        let ct = staged(centred.clone(), span)?;
        let transposed = Value::Tensor(self.permute(&ct, vec![1, 0], span)?);
        let c = self.np2("matmul", &centred, &transposed, span)?;
        let n = Value::Tensor(self.sym_value(&x.ty.dims[1], span)?);
        let fact = self.np2("subtract", &n, &Value::Int(ddof), span)?;
        let fact = self.cast_value(&fact, dtype, span)?;
        let c = self.np2("divide", &c, &fact, span)?;
        let c = if f == "corrcoef" {
            self.correlation(&c, span)?
        } else {
            c
        };
        let c = self.np1("squeeze", &c, span)?;
        match args.kw.iter().find(|(k, _)| k == "dtype") {
            Some((_, d)) if !matches!(d, Value::None) => {
                self.np("asarray", vec![c], vec![("dtype", d.clone())], span)
            }
            _ => Ok(c),
        }
    }

    /// The correlation coefficients of covariance matrix `c`, clipped to [-1, 1].
    fn correlation(&mut self, c: &Value, span: Span) -> R<Value> {
        let d = self.np1("diag", c, span)?;
        let s = self.np1("sqrt", &d, span)?;
        let st = staged(s, span)?;
        let n = st.ty.dims[0].clone();
        let col = Value::Tensor(self.reshape_to(&st, vec![n.clone(), Dim::Static(1)], span)?);
        let row = Value::Tensor(self.reshape_to(&st, vec![Dim::Static(1), n], span)?);
        let c = self.np2("divide", c, &col, span)?;
        let c = self.np2("divide", &c, &row, span)?;
        self.np(
            "clip",
            vec![c, Value::Float(-1.0), Value::Float(1.0)],
            Vec::new(),
            span,
        )
    }
}
