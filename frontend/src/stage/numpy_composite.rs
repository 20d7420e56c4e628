//! `agc.numpy` functions that numpy itself defines in terms of other numpy
//! functions, staged the same way: each is a composition of calls of the
//! supported surface ([`Stager::call_numpy`]), so dtypes, broadcasting,
//! run-time sizes and gradients come from those.
//!
//! Elementwise: `positive`, `trunc`/`fix`, `cbrt`, `hypot`, `fmax`/`fmin`,
//! `heaviside`, `float_power`, `deg2rad`/`radians`, `rad2deg`/`degrees`,
//! `sinc`, `tan`, `arcsinh`/`arccosh`/`arctanh`. Arrays: `identity`,
//! `atleast_1d/2d/3d`, `ascontiguousarray`, `diff`. Reductions and products:
//! `average`, `ptp`, `inner`, `vdot`, `kron`, `cov`, `corrcoef`. Tests and
//! choices are in [`super::numpy_choice`].

use super::args::Args;
use super::pyops::truthy;
use super::tensor::staged;
use super::value::{SliceValue, Tensor, Value};
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{DType, Dim, Span};
use std::f64::consts::{LN_2, PI};
use std::rc::Rc;

/// The functions this module stages, by their `np.` name.
pub const FUNCTIONS: &[&str] = &[
    "positive",
    "trunc",
    "fix",
    "cbrt",
    "hypot",
    "fmax",
    "fmin",
    "heaviside",
    "float_power",
    "deg2rad",
    "radians",
    "rad2deg",
    "degrees",
    "sinc",
    "tan",
    "arcsinh",
    "arccosh",
    "arctanh",
    "copysign",
    "signbit",
    "rint",
    "identity",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "ascontiguousarray",
    "diff",
    "fliplr",
    "flipud",
    "rot90",
    "append",
    "hsplit",
    "vsplit",
    "dsplit",
    "logspace",
    "meshgrid",
    "tri",
    "average",
    "ptp",
    "inner",
    "vdot",
    "kron",
    "cov",
    "corrcoef",
];

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

/// Whether `np.<ufunc>.<method>` is a staged ufunc method.
pub fn is_ufunc_method(ufunc: &str, method: &str) -> bool {
    UFUNC_METHODS.iter().any(|(u, reduce, accumulate)| {
        *u == ufunc
            && match method {
                "outer" => true,
                "reduce" => !reduce.is_empty(),
                "accumulate" => accumulate.is_some(),
                _ => false,
            }
    })
}

impl Stager {
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

    /// `np.<f>(pos..., kw...)` through the supported surface.
    pub(super) fn np(
        &mut self,
        f: &str,
        pos: Vec<Value>,
        kw: Vec<(&str, Value)>,
        span: Span,
    ) -> R<Value> {
        let args = Args {
            pos,
            kw: kw.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
            span,
        };
        self.call_numpy(&format!("np.{f}"), None, args)
    }

    /// `np.<f>(x)` of one value.
    pub(super) fn np1(&mut self, f: &str, x: &Value, span: Span) -> R<Value> {
        self.np(f, vec![x.clone()], Vec::new(), span)
    }

    /// `np.<f>(a, b)` of two values.
    pub(super) fn np2(&mut self, f: &str, a: &Value, b: &Value, span: Span) -> R<Value> {
        self.np(f, vec![a.clone(), b.clone()], Vec::new(), span)
    }

    /// Calls `np.<f>` for `f` in [`FUNCTIONS`].
    pub(super) fn numpy_composite(&mut self, f: &str, args: &Args) -> R<Value> {
        let span = args.span;
        let x = || args.req(0, "x", f);
        let x12 = || Ok::<_, Diagnostic>((args.req(0, "x1", f)?, args.req(1, "x2", f)?));
        match f {
            "positive" => {
                let t = self.to_tensor(&x()?, None, span)?;
                if t.ty.dtype == DType::Bool {
                    return Err(Diagnostic::raises(
                        span,
                        "TypeError",
                        "ufunc 'positive' did not contain a loop with signature matching types",
                    ));
                }
                Ok(Value::Tensor(t))
            }
            "trunc" | "fix" => {
                let t = Value::Tensor(self.to_tensor(&x()?, None, span)?);
                let below = self.np2("less", &t, &Value::Int(0), span)?;
                let up = self.np1("ceil", &t, span)?;
                let down = self.np1("floor", &t, span)?;
                self.np("where", vec![below, up, down], Vec::new(), span)
            }
            "cbrt" => {
                // In float64, where 1/3 is close enough that perfect cubes come out exact.
                let t = self.float_operand(&x()?, f, span)?;
                let wide = Value::Tensor(self.cast(&t, DType::F64, span)?);
                let mag = self.np1("abs", &wide, span)?;
                let root = self.np2("power", &mag, &Value::Float(1.0 / 3.0), span)?;
                let sign = self.np1("sign", &wide, span)?;
                let r = self.np2("multiply", &sign, &root, span)?;
                self.cast_value(&r, t.ty.dtype, span)
            }
            "hypot" => {
                let (a, b) = x12()?;
                let (a, b) = self.float_pair(&a, &b, f, span)?;
                self.hypot(&Value::Tensor(a), &Value::Tensor(b), span)
            }
            "fmax" | "fmin" => {
                // maximum/minimum, except that a NaN loses to a number.
                let (a, b) = x12()?;
                let m = self.np2(
                    if f == "fmax" { "maximum" } else { "minimum" },
                    &a,
                    &b,
                    span,
                )?;
                let b_nan = self.np1("isnan", &b, span)?;
                let a_nan = self.np1("isnan", &a, span)?;
                let m = self.np("where", vec![a_nan, b.clone(), m], Vec::new(), span)?;
                self.np("where", vec![b_nan, a, m], Vec::new(), span)
            }
            "heaviside" => {
                let (a, b) = x12()?;
                let (a, b) = self.float_pair(&a, &b, f, span)?;
                let (a, b) = (Value::Tensor(a), Value::Tensor(b));
                let pos = self.np2("greater", &a, &Value::Int(0), span)?;
                let neg = self.np2("less", &a, &Value::Int(0), span)?;
                let nan = self.np1("isnan", &a, span)?;
                let r = self.np("where", vec![pos, Value::Int(1), b], Vec::new(), span)?;
                let r = self.np("where", vec![neg, Value::Int(0), r], Vec::new(), span)?;
                self.np("where", vec![nan, a, r], Vec::new(), span)
            }
            "float_power" => {
                let (a, b) = x12()?;
                let a = Value::Tensor(self.to_tensor(&a, Some(DType::F64), span)?);
                let b = Value::Tensor(self.to_tensor(&b, Some(DType::F64), span)?);
                self.np2("power", &a, &b, span)
            }
            "deg2rad" | "radians" | "rad2deg" | "degrees" => {
                let t = Value::Tensor(self.float_operand(&x()?, f, span)?);
                let k = if matches!(f, "deg2rad" | "radians") {
                    PI / 180.0
                } else {
                    180.0 / PI
                };
                self.np2("multiply", &t, &Value::Float(k), span)
            }
            "sinc" => {
                // numpy's own: y = pi * where(x == 0, 1e-20, x); sin(y) / y.
                let t = Value::Tensor(self.float_operand(&x()?, f, span)?);
                let zero = self.np2("equal", &t, &Value::Int(0), span)?;
                let safe = self.np(
                    "where",
                    vec![zero, Value::Float(1e-20), t],
                    Vec::new(),
                    span,
                )?;
                let y = self.np2("multiply", &Value::Float(PI), &safe, span)?;
                let s = self.np1("sin", &y, span)?;
                self.np2("divide", &s, &y, span)
            }
            "tan" => self.in_float64(&x()?, f, span, |st, w, span| {
                let s = st.np1("sin", w, span)?;
                let c = st.np1("cos", w, span)?;
                st.np2("divide", &s, &c, span)
            }),
            "arcsinh" | "arccosh" | "arctanh" => self.in_float64(&x()?, f, span, |st, w, span| {
                st.inverse_hyperbolic(f, w, span)
            }),
            "copysign" => {
                let (a, b) = x12()?;
                let (a, b) = self.float_pair(&a, &b, f, span)?;
                let (a, b) = (Value::Tensor(a), Value::Tensor(b));
                let negative = self.signbit(&b, span)?;
                let mag = self.np1("abs", &a, span)?;
                let neg = self.np1("negative", &mag, span)?;
                self.np("where", vec![negative, neg, mag], Vec::new(), span)
            }
            "signbit" => {
                let t = Value::Tensor(self.to_tensor(&x()?, None, span)?);
                self.signbit(&t, span)
            }
            "rint" => {
                let t = Value::Tensor(self.float_operand(&x()?, f, span)?);
                self.np1("round", &t, span)
            }
            _ => self.numpy_composite_arrays(f, args),
        }
    }

    /// `body` applied to `v` as a float: in float64, the result cast back to
    /// the operand's float dtype (float32 stays float32).
    fn in_float64(
        &mut self,
        v: &Value,
        f: &str,
        span: Span,
        body: impl FnOnce(&mut Self, &Value, Span) -> R<Value>,
    ) -> R<Value> {
        let t = self.float_operand(v, f, span)?;
        let wide = Value::Tensor(self.cast(&t, DType::F64, span)?);
        let r = body(self, &wide, span)?;
        self.cast_value(&r, t.ty.dtype, span)
    }

    /// A staged value cast to `dtype`.
    pub(super) fn cast_value(&mut self, v: &Value, dtype: DType, span: Span) -> R<Value> {
        let t = self.to_tensor(v, None, span)?;
        Ok(Value::Tensor(self.cast(&t, dtype, span)?))
    }

    /// `hypot(a, b)` = `m sqrt(1 + (n/m)^2)` with `m`, `n` the larger and the
    /// smaller magnitude (no overflow of the squares), 0 where both are 0,
    /// and infinity where either is infinite (even beside a NaN).
    fn hypot(&mut self, a: &Value, b: &Value, span: Span) -> R<Value> {
        let a = self.np1("abs", a, span)?;
        let b = self.np1("abs", b, span)?;
        let m = self.np2("maximum", &a, &b, span)?;
        let n = self.np2("minimum", &a, &b, span)?;
        let zero = self.np2("equal", &m, &Value::Int(0), span)?;
        let safe_m = self.np(
            "where",
            vec![zero.clone(), Value::Int(1), m.clone()],
            Vec::new(),
            span,
        )?;
        let q = self.np2("divide", &n, &safe_m, span)?;
        let q2 = self.np2("multiply", &q, &q, span)?;
        let s = self.np2("add", &q2, &Value::Int(1), span)?;
        let r = self.np1("sqrt", &s, span)?;
        let r = self.np2("multiply", &m, &r, span)?;
        let r = self.np("where", vec![zero, Value::Int(0), r], Vec::new(), span)?;
        let a_inf = self.np1("isinf", &a, span)?;
        let b_inf = self.np1("isinf", &b, span)?;
        let inf = self.np2("logical_or", &a_inf, &b_inf, span)?;
        self.np(
            "where",
            vec![inf, Value::Float(f64::INFINITY), r],
            Vec::new(),
            span,
        )
    }

    /// `log(1 + x)` accurate for tiny `x` (Goldberg): with `u = 1 + x`
    /// rounded, `log(u) x / (u - 1)`, and `x` itself where `u == 1`.
    pub(super) fn log1p(&mut self, x: &Value, span: Span) -> R<Value> {
        let u = self.np2("add", x, &Value::Int(1), span)?;
        let one = self.np2("equal", &u, &Value::Int(1), span)?;
        let inf = self.np2("equal", &u, &Value::Float(f64::INFINITY), span)?;
        let l = self.np1("log", &u, span)?;
        let um1 = self.np2("subtract", &u, &Value::Int(1), span)?;
        let safe = self.np(
            "where",
            vec![one.clone(), Value::Int(1), um1],
            Vec::new(),
            span,
        )?;
        let r = self.np2("multiply", &l, x, span)?;
        let r = self.np2("divide", &r, &safe, span)?;
        let r = self.np("where", vec![inf, u, r], Vec::new(), span)?;
        self.np("where", vec![one, x.clone(), r], Vec::new(), span)
    }

    /// `exp(x) - 1` accurate for tiny `x` (Kahan): with `u = exp(x)`,
    /// `(u - 1) x / log(u)`, `x` where `u == 1`, -1 where `u - 1 == -1`.
    pub(super) fn expm1(&mut self, x: &Value, span: Span) -> R<Value> {
        let u = self.np1("exp", x, span)?;
        let um1 = self.np2("subtract", &u, &Value::Int(1), span)?;
        let one = self.np2("equal", &u, &Value::Int(1), span)?;
        let minus_one = self.np2("equal", &um1, &Value::Int(-1), span)?;
        let inf = self.np1("isinf", &u, span)?;
        let flat = self.np2("logical_or", &one, &minus_one, span)?;
        let l = self.np1("log", &u, span)?;
        let safe = self.np("where", vec![flat, Value::Int(1), l], Vec::new(), span)?;
        let r = self.np2("multiply", &um1, x, span)?;
        let r = self.np2("divide", &r, &safe, span)?;
        let r = self.np("where", vec![inf, u, r], Vec::new(), span)?;
        let r = self.np(
            "where",
            vec![minus_one, Value::Int(-1), r],
            Vec::new(),
            span,
        )?;
        self.np("where", vec![one, x.clone(), r], Vec::new(), span)
    }

    /// `arcsinh`, `arccosh` or `arctanh` of a float64 `w`, in forms without
    /// cancellation near 0 (1 for arccosh) or overflow of squares far out.
    fn inverse_hyperbolic(&mut self, f: &str, w: &Value, span: Span) -> R<Value> {
        let half = Value::Float(0.5);
        match f {
            "arctanh" => {
                // 0.5 log1p(2x / (1 - x))
                let two_x = self.np2("multiply", &Value::Float(2.0), w, span)?;
                let den = self.np2("subtract", &Value::Float(1.0), w, span)?;
                let q = self.np2("divide", &two_x, &den, span)?;
                let l = self.log1p(&q, span)?;
                self.np2("multiply", &half, &l, span)
            }
            "arcsinh" => {
                // sign(x) log1p(a + a^2 / (1 + sqrt(1 + a^2))), a = |x|; log(a) + ln 2 far out.
                let a = self.np1("abs", w, span)?;
                let a2 = self.np2("multiply", &a, &a, span)?;
                let s = self.np2("add", &a2, &Value::Float(1.0), span)?;
                let s = self.np1("sqrt", &s, span)?;
                let s = self.np2("add", &s, &Value::Float(1.0), span)?;
                let t = self.np2("divide", &a2, &s, span)?;
                let t = self.np2("add", &a, &t, span)?;
                let near = self.log1p(&t, span)?;
                let far = self.far_log(&a, span)?;
                let big = self.np2("greater", &a, &Value::Float(1e150), span)?;
                let r = self.np("where", vec![big, far, near], Vec::new(), span)?;
                let sign = self.np1("sign", w, span)?;
                let r = self.np2("multiply", &sign, &r, span)?;
                // sign(±0) is ±0 times a finite number: keeps the zero's sign.
                let zero = self.np2("equal", w, &Value::Int(0), span)?;
                self.np("where", vec![zero, w.clone(), r], Vec::new(), span)
            }
            _ => {
                // log1p(t + sqrt(2t + t^2)), t = x - 1; log(x) + ln 2 far out; NaN below 1.
                let t = self.np2("subtract", w, &Value::Float(1.0), span)?;
                let two_t = self.np2("multiply", &Value::Float(2.0), &t, span)?;
                let t2 = self.np2("multiply", &t, &t, span)?;
                let s = self.np2("add", &two_t, &t2, span)?;
                let s = self.np1("sqrt", &s, span)?;
                let s = self.np2("add", &t, &s, span)?;
                let near = self.log1p(&s, span)?;
                let far = self.far_log(w, span)?;
                let big = self.np2("greater", w, &Value::Float(1e150), span)?;
                self.np("where", vec![big, far, near], Vec::new(), span)
            }
        }
    }

    /// `log(a) + ln 2`: arcsinh and arccosh of a huge `a`.
    fn far_log(&mut self, a: &Value, span: Span) -> R<Value> {
        let l = self.np1("log", a, span)?;
        self.np2("add", &l, &Value::Float(LN_2), span)
    }

    /// The array functions of [`FUNCTIONS`] (see [`Stager::numpy_composite`]).
    fn numpy_composite_arrays(&mut self, f: &str, args: &Args) -> R<Value> {
        let span = args.span;
        let a = || args.req(0, "a", f);
        match f {
            "identity" => {
                let n = args.req(0, "n", f)?;
                let mut kw = Vec::new();
                if let Some(d) = args.get_some(1, "dtype") {
                    kw.push(("dtype", d));
                }
                self.np("eye", vec![n], kw, span)
            }
            "atleast_1d" | "atleast_2d" | "atleast_3d" => {
                let rank = usize::from(f.as_bytes()[8] - b'0');
                let mut out = Vec::new();
                for v in &args.pos {
                    let t = self.to_tensor(v, None, span)?;
                    let dims = atleast_dims(&t.ty.dims, rank);
                    out.push(Value::Tensor(self.reshape_to(&t, dims, span)?));
                }
                match out.len() {
                    0 => Err(Diagnostic::error(span, format!("np.{f}() needs an array"))),
                    1 => Ok(out.remove(0)),
                    _ => Ok(Value::tuple(out)),
                }
            }
            "ascontiguousarray" => {
                let mut kw = Vec::new();
                if let Some(d) = args.get_some(1, "dtype") {
                    kw.push(("dtype", d));
                }
                self.np("asarray", vec![a()?], kw, span)
            }
            "diff" => self.diff(args),
            "fliplr" | "flipud" => {
                let m = args.req(0, "m", f)?;
                let rank = self.to_tensor(&m, None, span)?.ty.rank();
                let axis = i64::from(f == "fliplr");
                if rank <= axis as usize {
                    return Err(Diagnostic::raises(
                        span,
                        "ValueError",
                        format!("Input must be >= {}-d.", axis + 1),
                    ));
                }
                self.np("flip", vec![m], vec![("axis", Value::Int(axis))], span)
            }
            "rot90" => self.rot90(args),
            "append" => {
                let arr = self.np1("asarray", &args.req(0, "arr", f)?, span)?;
                let values = self.np1("asarray", &args.req(1, "values", f)?, span)?;
                match args.get_some(2, "axis") {
                    None => {
                        let a = self.np1("ravel", &arr, span)?;
                        let v = self.np1("ravel", &values, span)?;
                        self.np1("concatenate", &Value::tuple(vec![a, v]), span)
                    }
                    Some(axis) => self.np(
                        "concatenate",
                        vec![Value::tuple(vec![arr, values])],
                        vec![("axis", axis)],
                        span,
                    ),
                }
            }
            "hsplit" | "vsplit" | "dsplit" => {
                let ary = args.req(0, "ary", f)?;
                let parts = args.req(1, "indices_or_sections", f)?;
                let rank = self.to_tensor(&ary, None, span)?.ty.rank();
                let (axis, least) = match f {
                    "hsplit" => (usize::from(rank > 1), 1),
                    "vsplit" => (0, 2),
                    _ => (2, 3),
                };
                if rank < least {
                    return Err(Diagnostic::raises(
                        span,
                        "ValueError",
                        format!("{f} only works on arrays of {least} or more dimensions"),
                    ));
                }
                self.np(
                    "split",
                    vec![ary, parts],
                    vec![("axis", Value::Int(axis as i64))],
                    span,
                )
            }
            "logspace" => {
                let mut lin = args.clone();
                lin.kw
                    .retain(|(k, _)| !matches!(k.as_str(), "base" | "dtype" | "axis"));
                lin.pos.truncate(4);
                let y = self.call_numpy("np.linspace", None, lin)?;
                let base = args.get(4, "base").unwrap_or(Value::Float(10.0));
                let base = self.np(
                    "asarray",
                    vec![base],
                    vec![("dtype", Value::DType(DType::F64))],
                    span,
                )?;
                let r = self.np2("power", &base, &y, span)?;
                match args.get_some(5, "dtype") {
                    Some(d) => self.np("asarray", vec![r], vec![("dtype", d)], span),
                    None => Ok(r),
                }
            }
            "meshgrid" => self.meshgrid(args),
            "tri" => {
                // numpy's greater_equal.outer(arange(N), arange(-k, M - k)).
                let n = args.req(0, "N", f)?;
                let m = args.get_some(1, "M").unwrap_or(n.clone());
                let k = args.get(2, "k").unwrap_or(Value::Int(0));
                let rows = self.np1("arange", &n, span)?;
                let lo = self.np1("negative", &k, span)?;
                let hi = self.np2("subtract", &m, &k, span)?;
                let cols = self.np2("arange", &lo, &hi, span)?;
                let r = self.ufunc_method(
                    "greater_equal",
                    "outer",
                    &Args::positional(vec![rows, cols], span),
                )?;
                let dtype = args
                    .get_some(3, "dtype")
                    .unwrap_or(Value::DType(DType::F64));
                self.np("asarray", vec![r], vec![("dtype", dtype)], span)
            }
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
                format!("np.{f} reached numpy_composite"),
            )),
        }
    }

    /// Whether the sign bit of each element of `t` is set: negative
    /// numbers and -0.0 (NaN counts as positive).
    fn signbit(&mut self, t: &Value, span: Span) -> R<Value> {
        let neg = self.np2("less", t, &Value::Int(0), span)?;
        if !self.to_tensor(t, None, span)?.ty.dtype.is_float() {
            return Ok(neg);
        }
        let zero = self.np2("equal", t, &Value::Int(0), span)?;
        let inv = self.np2("divide", &Value::Float(1.0), t, span)?;
        let neg_zero = self.np2("less", &inv, &Value::Int(0), span)?;
        let neg_zero = self.np2("logical_and", &zero, &neg_zero, span)?;
        self.np2("logical_or", &neg, &neg_zero, span)
    }

    /// `np.rot90(m, k=1, axes=(0, 1))`: as numpy, flips and a transpose.
    fn rot90(&mut self, args: &Args) -> R<Value> {
        let span = args.span;
        let m = args.req(0, "m", "rot90")?;
        let rank = self.to_tensor(&m, None, span)?.ty.rank();
        let k = match args.get(1, "k") {
            None => 1,
            Some(v) => v
                .as_int()
                .ok_or_else(|| Diagnostic::error(span, "k must be a compile-time int"))?,
        }
        .rem_euclid(4);
        let axes = match args.get(2, "axes") {
            None => vec![0, 1],
            Some(v) => super::pyops::iterate(&v, span)?
                .iter()
                .map(|a| {
                    a.as_int()
                        .ok_or_else(|| Diagnostic::error(span, "axes must be compile-time ints"))
                })
                .collect::<R<Vec<i64>>>()?,
        };
        if axes.len() != 2 || rank < 2 {
            return Err(Diagnostic::raises(
                span,
                "ValueError",
                "len(axes) must be 2.",
            ));
        }
        let (a0, a1) = (
            agc_ir::infer::normalize_axis(axes[0], rank)
                .map_err(|e| super::tensor::type_error(span, e))?,
            agc_ir::infer::normalize_axis(axes[1], rank)
                .map_err(|e| super::tensor::type_error(span, e))?,
        );
        if a0 == a1 {
            return Err(Diagnostic::raises(
                span,
                "ValueError",
                "Axes must be different.",
            ));
        }
        let flip = |st: &mut Self, v: Value, axis: usize| {
            st.np(
                "flip",
                vec![v],
                vec![("axis", Value::Int(axis as i64))],
                span,
            )
        };
        let mut perm: Vec<Value> = (0..rank as i64).map(Value::Int).collect();
        perm.swap(a0, a1);
        let perm = Value::tuple(perm);
        match k {
            0 => Ok(m),
            2 => {
                let r = flip(self, m, a0)?;
                flip(self, r, a1)
            }
            1 => {
                let r = flip(self, m, a1)?;
                self.np("transpose", vec![r, perm], Vec::new(), span)
            }
            _ => {
                let r = self.np("transpose", vec![m, perm], Vec::new(), span)?;
                flip(self, r, a1)
            }
        }
    }

    /// `np.meshgrid(*xi, indexing='xy', sparse=False)`: each 1-d input
    /// along its own axis (the first two swapped for `xy`), broadcast to the
    /// full grid unless `sparse`.
    fn meshgrid(&mut self, args: &Args) -> R<Value> {
        let span = args.span;
        let xy = match args.kw.iter().find(|(k, _)| k == "indexing") {
            None => true,
            Some((_, Value::Str(s))) if matches!(&**s, "xy" | "ij") => &**s == "xy",
            Some(_) => {
                return Err(Diagnostic::raises(
                    span,
                    "ValueError",
                    "Valid values for `indexing` are 'xy' and 'ij'.",
                ))
            }
        };
        let sparse = args
            .kw
            .iter()
            .any(|(k, v)| k == "sparse" && truthy(v) == Some(true));
        let mut xs = Vec::new();
        for v in &args.pos {
            let t = self.to_tensor(v, None, span)?;
            xs.push(self.flatten(&t, span)?);
        }
        let n = xs.len();
        let mut shape: Vec<Dim> = xs.iter().map(|t| t.ty.dims[0].clone()).collect();
        if xy && n > 1 {
            shape.swap(0, 1);
        }
        let mut out = Vec::new();
        for (i, t) in xs.iter().enumerate() {
            let at = if xy && n > 1 && i < 2 { 1 - i } else { i };
            let mut dims = vec![Dim::Static(1); n];
            dims[at] = t.ty.dims[0].clone();
            let r = self.reshape_to(t, dims, span)?;
            let r = if sparse {
                r
            } else {
                self.broadcast_to(&r, shape.clone(), span)?
            };
            out.push(Value::Tensor(r));
        }
        Ok(Value::tuple(out))
    }

    /// `np.diff(a, n=1, axis=-1)`: `a[1:] - a[:-1]` along `axis`, `n` times
    /// (`!=` for bools, as numpy).
    fn diff(&mut self, args: &Args) -> R<Value> {
        let span = args.span;
        for (i, name) in [(3, "prepend"), (4, "append")] {
            if args.get_some(i, name).is_some() {
                return Err(Diagnostic::error(
                    span,
                    format!("np.diff() with {name}= is not supported by agc; concatenate first"),
                ));
            }
        }
        let n = match args.get(1, "n") {
            None => 1,
            Some(v) => v.as_int().filter(|n| *n >= 0).ok_or_else(|| {
                Diagnostic::error(span, "np.diff(): n must be a compile-time int >= 0")
            })?,
        };
        let mut t = self.to_tensor(&args.req(0, "a", "diff")?, None, span)?;
        let rank = t.ty.rank();
        if rank == 0 {
            return Err(Diagnostic::raises(
                span,
                "ValueError",
                "diff requires input that is at least one dimensional",
            ));
        }
        let axis = match args.get(2, "axis") {
            None => -1,
            Some(v) => v
                .as_int()
                .ok_or_else(|| Diagnostic::error(span, "axis must be a compile-time int"))?,
        };
        let axis = agc_ir::infer::normalize_axis(axis, rank)
            .map_err(|e| super::tensor::type_error(span, e))?;
        let slice = |start: Value, stop: Value| {
            let full = SliceValue {
                start: Value::None,
                stop: Value::None,
                step: Value::None,
            };
            let mut items = vec![Value::Slice(Rc::new(full)); rank];
            items[axis] = Value::Slice(Rc::new(SliceValue {
                start,
                stop,
                step: Value::None,
            }));
            Value::tuple(items)
        };
        let op = if t.ty.dtype == DType::Bool {
            "not_equal"
        } else {
            "subtract"
        };
        for _ in 0..n {
            let v = Value::Tensor(t.clone());
            let upper = self.get_item(&v, &slice(Value::Int(1), Value::None), span)?;
            let lower = self.get_item(&v, &slice(Value::None, Value::Int(-1)), span)?;
            t = staged(self.np2(op, &upper, &lower, span)?, span)?;
        }
        Ok(Value::Tensor(t))
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
        let mut x = self.reshape_to(&x, atleast_dims(&x.ty.dims, 2), span)?;
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

/// `dims` with axes of size 1 added to reach `rank`, as numpy's
/// `atleast_<rank>d` adds them: `(n,)` becomes `(1, n)` and `(1, n, 1)`,
/// `(m, n)` becomes `(m, n, 1)`.
pub(super) fn atleast_dims(dims: &[Dim], rank: usize) -> Vec<Dim> {
    let one = Dim::Static(1);
    if dims.len() >= rank {
        return dims.to_vec();
    }
    match (dims.len(), rank) {
        (1, 3) => vec![one.clone(), dims[0].clone(), one],
        (2, 3) => vec![dims[0].clone(), dims[1].clone(), one],
        (n, r) => std::iter::repeat_n(one, r - n)
            .chain(dims.iter().cloned())
            .collect(),
    }
}
