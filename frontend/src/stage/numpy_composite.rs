//! `agc.numpy` functions that numpy itself defines in terms of other numpy
//! functions, staged the same way: each is a composition of calls of the
//! supported surface ([`Stager::call_numpy`]), so dtypes, broadcasting,
//! run-time sizes and gradients come from those.
//!
//! This module: the helpers that call the surface ([`Stager::np`]) and the
//! elementwise functions `positive`, `trunc`/`fix`, `cbrt`, `hypot`,
//! `fmax`/`fmin`, `heaviside`, `float_power`, `deg2rad`/`radians`,
//! `rad2deg`/`degrees`, `sinc`, `tan`, `arcsinh`/`arccosh`/`arctanh`,
//! `copysign`, `signbit`, `rint`, and accurate `log1p`/`expm1`. Arrays are in
//! [`super::numpy_arrays`], reductions and products in
//! [`super::numpy_reductions`], tests and choices in [`super::numpy_choice`],
//! order statistics in [`super::numpy_order`], polynomials, integrals and
//! running totals in [`super::numpy_series`], `cross` and matrix-product
//! chains in [`super::numpy_products`].

use super::args::Args;
use super::value::Value;
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{DType, Span};
use std::f64::consts::{LN_2, PI};

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
];

impl Stager {
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
            _ => Err(Diagnostic::internal(
                span,
                format!("np.{f} reached numpy_composite"),
            )),
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
}
