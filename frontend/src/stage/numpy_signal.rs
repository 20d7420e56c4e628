//! Convolution and interpolation of the `agc.numpy` surface: `convolve`,
//! `correlate` and `interp`, staged as compositions of the supported
//! surface (see [`super::numpy_composite`]), so dtypes, run-time sizes and
//! gradients come from those.
//!
//! A convolution is a sum of shifted copies of the longer input, one per
//! element of the other, whose length must be known at compile time (it is
//! unrolled, up to [`MAX_UNROLLED_TERMS`]); the longer one may have a
//! run-time length. `interp` finds each point's interval with
//! `searchsorted` and evaluates numpy's formula there, with numpy's
//! special cases (exact knots, values beyond the ends, NaN).

use super::args::Args;
use super::numpy_series::slice_on;
use super::value::Value;
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{DType, Dim, Span};
use rustpython_parser::ast::Operator;

/// The functions this module stages, by their `np.` name.
pub const FUNCTIONS: &[&str] = &["convolve", "correlate", "interp"];

/// The most terms a convolution unrolls (the compile-time length of its
/// shorter input).
const MAX_UNROLLED_TERMS: i64 = 4096;

impl Stager {
    /// Calls `np.<f>` for `f` in [`FUNCTIONS`].
    pub(super) fn numpy_signal(&mut self, f: &str, args: &Args) -> R<Value> {
        match f {
            "interp" => self.interp(args),
            _ => self.convolution(f, args),
        }
    }

    /// `np.convolve(a, v, mode='full')` and `np.correlate(a, v,
    /// mode='valid')` (numpy's `correlate(a, v)` is `convolve(a, v[::-1])`):
    /// the full convolution, then numpy's `same` or `valid` part of it.
    fn convolution(&mut self, f: &str, args: &Args) -> R<Value> {
        let span = args.span;
        args.check(f, 3, &["a", "v", "mode"])?;
        let a = self.signal_operand(&args.req(0, "a", f)?, "a", span)?;
        let mut v = self.signal_operand(&args.req(1, "v", f)?, "v", span)?;
        let default = if f == "convolve" { "full" } else { "valid" };
        let mode = match args.get_some(2, "mode") {
            None => default.to_string(),
            Some(Value::Str(s)) if matches!(&*s, "full" | "same" | "valid") => s.to_string(),
            Some(Value::Int(k)) if (0..=2).contains(&k) => {
                ["valid", "same", "full"][k as usize].to_string()
            }
            Some(other) => {
                return Err(Diagnostic::raises(
                    span,
                    "ValueError",
                    format!("mode must be one of 'valid', 'same', or 'full' (got {other:?})"),
                ))
            }
        };
        if f == "correlate" {
            v = self.np1("flip", &v, span)?;
        }
        let (n, m) = (self.length(&a, span)?, self.length(&v, span)?);
        let full = self.full_convolution(&a, &v, f, span)?;
        let (start, len) = match mode.as_str() {
            "full" => return Ok(full),
            "same" => {
                // Centred: from (min - 1) // 2, but from min // 2 for a
                // correlation whose first input is the shorter (numpy
                // correlates the other way round and reverses).
                let shorter = self.py_extreme("minimum", &n, &m, span)?;
                let less = self.binop(Operator::Sub, &shorter, &Value::Int(1), span)?;
                let mut start = self.binop(Operator::FloorDiv, &less, &Value::Int(2), span)?;
                if f == "correlate" {
                    let half = self.binop(Operator::FloorDiv, &shorter, &Value::Int(2), span)?;
                    start = match (&n, &m) {
                        (Value::Int(n), Value::Int(m)) if n < m => half,
                        (Value::Int(_), Value::Int(_)) => start,
                        _ => {
                            let first_shorter = self.np2("less", &n, &m, span)?;
                            self.np("where", vec![first_shorter, half, start], Vec::new(), span)?
                        }
                    };
                }
                (start, self.py_extreme("maximum", &n, &m, span)?)
            }
            _ => {
                let shorter = self.py_extreme("minimum", &n, &m, span)?;
                let longer = self.py_extreme("maximum", &n, &m, span)?;
                let start = self.binop(Operator::Sub, &shorter, &Value::Int(1), span)?;
                let diff = self.binop(Operator::Sub, &longer, &shorter, span)?;
                (
                    start,
                    self.binop(Operator::Add, &diff, &Value::Int(1), span)?,
                )
            }
        };
        let stop = self.binop(Operator::Add, &start, &len, span)?;
        self.get_item(&full, &slice_on(0, 1, start, stop), span)
    }

    /// A convolution operand: a 1-d array (a scalar is one element); numpy's
    /// errors for arrays of more dimensions and empty ones.
    fn signal_operand(&mut self, x: &Value, name: &str, span: Span) -> R<Value> {
        let x = self.np1("asarray", x, span)?;
        let t = self.to_tensor(&x, None, span)?;
        match t.ty.rank() {
            0 => self.np2("reshape", &x, &Value::tuple(vec![Value::Int(1)]), span),
            1 if t.ty.dims[0] == Dim::Static(0) => Err(Diagnostic::raises(
                span,
                "ValueError",
                format!("{name} cannot be empty"),
            )),
            1 => Ok(x),
            _ => Err(Diagnostic::raises(
                span,
                "ValueError",
                "object too deep for desired array",
            )),
        }
    }

    /// The length of a 1-d array as a Python value (an int, or a run-time size).
    fn length(&mut self, x: &Value, span: Span) -> R<Value> {
        let t = self.to_tensor(x, None, span)?;
        Ok(super::methods::dim_value(&t.ty.dims[0]))
    }

    /// The smaller (`f` = `"minimum"`) or larger of two lengths: an int when
    /// both are, else a run-time value.
    fn py_extreme(&mut self, f: &str, a: &Value, b: &Value, span: Span) -> R<Value> {
        match (a, b) {
            (Value::Int(x), Value::Int(y)) => Ok(Value::Int(if f == "minimum" {
                *x.min(y)
            } else {
                *x.max(y)
            })),
            _ => self.np2(f, a, b, span),
        }
    }

    /// The full convolution of two 1-d arrays (length `n + m - 1`): the sum,
    /// over the elements `s[j]` of the one of compile-time length `k`, of
    /// `s[j]` times the other zero-padded by `k - 1` on both sides and cut
    /// at `k - 1 - j`.
    fn full_convolution(&mut self, a: &Value, v: &Value, f: &str, span: Span) -> R<Value> {
        let static_len = |s: &mut Self, x: &Value| -> R<Option<i64>> {
            Ok(match s.to_tensor(x, None, span)?.ty.dims[0] {
                Dim::Static(n) => Some(n),
                Dim::Sym(_) => None,
            })
        };
        let (short, long, k) = match (static_len(self, a)?, static_len(self, v)?) {
            (Some(n), Some(m)) if n < m => (a, v, n),
            (_, Some(m)) => (v, a, m),
            (Some(n), None) => (a, v, n),
            (None, None) => {
                return Err(Diagnostic::unsupported(
                    span,
                    format!("np.{f}(): one of the inputs must have a length known at compile time"),
                ))
            }
        };
        if k > MAX_UNROLLED_TERMS {
            return Err(Diagnostic::unsupported(
                span,
                format!(
                    "np.{f}(): the shorter input has {k} elements; agc unrolls at most \
                     {MAX_UNROLLED_TERMS} (convolve longer signals with FFT-free code: a staged loop)"
                ),
            ));
        }
        let long_t = self.to_tensor(long, None, span)?;
        let zeros = self.np(
            "zeros",
            vec![Value::Int(k - 1)],
            vec![("dtype", Value::DType(long_t.ty.dtype))],
            span,
        )?;
        let padded = self.np1(
            "concatenate",
            &Value::tuple(vec![zeros.clone(), long.clone(), zeros]),
            span,
        )?;
        // Term j is padded[k - 1 - j : len(padded) - j]: static bounds, so every
        // term has the same (possibly symbolic) length.
        let mut total: Option<Value> = None;
        for j in 0..k {
            let stop = if j == 0 { Value::None } else { Value::Int(-j) };
            let bounds = slice_on(0, 1, Value::Int(k - 1 - j), stop);
            let shifted = self.get_item(&padded, &bounds, span)?;
            let sj = self.get_item(short, &Value::Int(j), span)?;
            let term = self.np2("multiply", &sj, &shifted, span)?;
            total = Some(match total {
                None => term,
                Some(t) => self.np2("add", &t, &term, span)?,
            });
        }
        Ok(total.expect("a convolution operand is not empty"))
    }

    /// `np.interp(x, xp, fp, left=None, right=None, period=None)`: float64
    /// values of the piecewise-linear function through `(xp, fp)` at `x`,
    /// as numpy computes them: `slope * (x - xp[j]) + fp[j]` on the interval
    /// `xp[j] <= x < xp[j + 1]` (from the other end if that is NaN), `fp[j]`
    /// at a knot, `left`/`right` (default `fp[0]`/`fp[-1]`) outside, NaN at NaN.
    fn interp(&mut self, args: &Args) -> R<Value> {
        let span = args.span;
        args.check("interp", 6, &["x", "xp", "fp", "left", "right", "period"])?;
        if args.get_some(5, "period").is_some() {
            return Err(Diagnostic::unsupported(
                span,
                "np.interp() with period= is not supported by agc",
            ));
        }
        let as_f64 = |s: &mut Self, v: Value| -> R<Value> {
            s.np(
                "asarray",
                vec![v],
                vec![("dtype", Value::DType(DType::F64))],
                span,
            )
        };
        let x = as_f64(self, args.req(0, "x", "interp")?)?;
        let xp = as_f64(self, args.req(1, "xp", "interp")?)?;
        let fp = as_f64(self, args.req(2, "fp", "interp")?)?;
        let (xp_t, fp_t) = (
            self.to_tensor(&xp, None, span)?,
            self.to_tensor(&fp, None, span)?,
        );
        if xp_t.ty.rank() != 1 || fp_t.ty.rank() != 1 {
            return Err(Diagnostic::raises(
                span,
                "ValueError",
                "object too deep for desired array",
            ));
        }
        if let (Dim::Static(a), Dim::Static(b)) = (&xp_t.ty.dims[0], &fp_t.ty.dims[0]) {
            if a != b {
                return Err(Diagnostic::raises(
                    span,
                    "ValueError",
                    "fp and xp are not of the same length.",
                ));
            }
            if *a == 0 {
                return Err(Diagnostic::raises(
                    span,
                    "ValueError",
                    "array of sample points is empty",
                ));
            }
        }
        let at = |s: &mut Self, t: &Value, i: &Value| s.get_item(t, i, span);
        let (first_x, last_x) = (
            at(self, &xp, &Value::Int(0))?,
            at(self, &xp, &Value::Int(-1))?,
        );
        let (first_f, last_f) = (
            at(self, &fp, &Value::Int(0))?,
            at(self, &fp, &Value::Int(-1))?,
        );
        let left = match args.get_some(3, "left") {
            Some(v) => as_f64(self, v)?,
            None => first_f.clone(),
        };
        let right = match args.get_some(4, "right") {
            Some(v) => as_f64(self, v)?,
            None => last_f.clone(),
        };
        // j: xp[j] <= x < xp[j + 1]; the interval used is j clipped into [0, n - 2].
        let n = self.length(&xp, span)?;
        let after = self.np(
            "searchsorted",
            vec![xp.clone(), x.clone()],
            vec![("side", Value::str("right"))],
            span,
        )?;
        let j = self.np2("subtract", &after, &Value::Int(1), span)?;
        let top = self.binop(Operator::Sub, &n, &Value::Int(2), span)?;
        let top = self.py_extreme("maximum", &top, &Value::Int(0), span)?;
        let lo = self.np(
            "clip",
            vec![j.clone(), Value::Int(0), top],
            Vec::new(),
            span,
        )?;
        let last = self.binop(Operator::Sub, &n, &Value::Int(1), span)?;
        let hi = self.np2("add", &lo, &Value::Int(1), span)?;
        let hi = self.np(
            "clip",
            vec![hi, Value::Int(0), last.clone()],
            Vec::new(),
            span,
        )?;
        let (x0, x1) = (at(self, &xp, &lo)?, at(self, &xp, &hi)?);
        let (f0, f1) = (at(self, &fp, &lo)?, at(self, &fp, &hi)?);
        let rise = self.np2("subtract", &f1, &f0, span)?;
        let run = self.np2("subtract", &x1, &x0, span)?;
        let slope = self.np2("divide", &rise, &run, span)?;
        let from = |s: &mut Self, xk: &Value, fk: &Value| -> R<Value> {
            let dx = s.np2("subtract", &x, xk, span)?;
            let scaled = s.np2("multiply", &slope, &dx, span)?;
            s.np2("add", &scaled, fk, span)
        };
        let forward = from(self, &x0, &f0)?;
        let backward = from(self, &x1, &f1)?;
        let nan = self.np1("isnan", &forward, span)?;
        let mut y = self.np("where", vec![nan, backward, forward], Vec::new(), span)?;
        let still_nan = self.np1("isnan", &y, span)?;
        let flat = self.np2("equal", &f0, &f1, span)?;
        let both = self.np2("logical_and", &still_nan, &flat, span)?;
        y = self.np("where", vec![both, f0.clone(), y], Vec::new(), span)?;
        let choose = |s: &mut Self, cond: Value, then: &Value, y: Value| -> R<Value> {
            s.np("where", vec![cond, then.clone(), y], Vec::new(), span)
        };
        let on_knot = self.np2("equal", &x, &x0, span)?;
        y = choose(self, on_knot, &f0, y)?;
        let at_end = self.np2("equal", &j, &last, span)?;
        y = choose(self, at_end, &last_f, y)?;
        let beyond = self.np2("greater", &x, &last_x, span)?;
        y = choose(self, beyond, &right, y)?;
        let before = self.np2("less", &x, &first_x, span)?;
        y = choose(self, before, &left, y)?;
        // NaN at NaN, except with one sample point (numpy's comparisons then
        // fall through to fp[0]).
        let x_nan = self.np1("isnan", &x, span)?;
        let x_nan = match &n {
            Value::Int(1) => return Ok(y),
            Value::Int(_) => x_nan,
            _ => {
                let several = self.np2("greater", &n, &Value::Int(1), span)?;
                self.np2("logical_and", &x_nan, &several, span)?
            }
        };
        choose(self, x_nan, &Value::Float(f64::NAN), y)
    }
}
