//! Sequences and sampled functions of the `agc.numpy` surface, staged as
//! the compositions numpy defines them by (see [`super::numpy_composite`]):
//! `geomspace` (through `logspace`) and `gradient` (central differences
//! inside, one-sided ones at the edges, uniform or coordinate spacing).

use super::args::Args;
use super::numpy_series::slice_on;
use super::value::Value;
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{DType, Dim, Span};
use rustpython_parser::ast::Operator;

/// The functions this module stages, by their `np.` name.
pub const FUNCTIONS: &[&str] = &["geomspace", "gradient"];

impl Stager {
    /// Calls `np.<f>` for `f` in [`FUNCTIONS`].
    pub(super) fn numpy_sampled(&mut self, f: &str, args: &Args) -> R<Value> {
        match f {
            "geomspace" => self.geomspace(args),
            _ => self.gradient(args),
        }
    }

    /// `np.geomspace(start, stop, num=50, endpoint=True, dtype=None,
    /// axis=0)`: numpy's `logspace` of the magnitudes' `log10`s times the
    /// sign of `start`, with the ends set to `start` and `stop` exactly.
    fn geomspace(&mut self, args: &Args) -> R<Value> {
        let span = args.span;
        args.check(
            "geomspace",
            6,
            &["start", "stop", "num", "endpoint", "dtype", "axis"],
        )?;
        if args
            .get_some(5, "axis")
            .is_some_and(|a| !matches!(a, Value::Int(0)))
        {
            return Err(Diagnostic::unsupported(
                span,
                "np.geomspace() with an axis other than 0 is not supported by agc",
            ));
        }
        let num = args.get(2, "num").unwrap_or(Value::Int(50));
        let endpoint = args.get(3, "endpoint").unwrap_or(Value::Bool(true));
        let as_float = |s: &mut Self, v: Value| -> R<Value> {
            let t = s.np1("asarray", &v, span)?;
            s.np2("multiply", &t, &Value::Float(1.0), span)
        };
        let (start, stop) = (
            args.req(0, "start", "geomspace")?,
            args.req(1, "stop", "geomspace")?,
        );
        for end in [&start, &stop] {
            if matches!(end, Value::Int(0)) || matches!(end, Value::Float(x) if *x == 0.0) {
                return Err(Diagnostic::raises(
                    span,
                    "ValueError",
                    "Geometric sequence cannot include zero",
                ));
            }
        }
        let start = as_float(self, start)?;
        let stop = as_float(self, stop)?;
        let sign = self.np1("sign", &start, span)?;
        let (from, to) = (
            self.np2("divide", &start, &sign, span)?,
            self.np2("divide", &stop, &sign, span)?,
        );
        let (lo, hi) = (
            self.np1("log10", &from, span)?,
            self.np1("log10", &to, span)?,
        );
        let r = self.np(
            "logspace",
            vec![lo, hi],
            vec![
                ("num", num.clone()),
                ("endpoint", endpoint.clone()),
                ("base", Value::Float(10.0)),
            ],
            span,
        )?;
        // The ends exactly (numpy assigns them).
        let count = match &num {
            Value::Int(n) => *n,
            _ => {
                return Err(Diagnostic::unsupported(
                    span,
                    "np.geomspace(): 'num' must be a compile-time int",
                ))
            }
        };
        let rank = self.to_tensor(&r, None, span)?.ty.rank();
        let mut parts = Vec::new();
        if count > 0 {
            // An end as a one-element leading axis.
            let as_row = |s: &mut Self, v: &Value| {
                s.np(
                    "expand_dims",
                    vec![v.clone()],
                    vec![("axis", Value::Int(0))],
                    span,
                )
            };
            parts.push(as_row(self, &from)?);
            let (lo_cut, hi_cut) = match (count, super::pyops::truthy(&endpoint)) {
                (1, _) => (None, None),
                (_, Some(true)) => (Some(1), Some(-1)),
                _ => (Some(1), None),
            };
            if let Some(a) = lo_cut {
                let stop = hi_cut.map_or(Value::None, Value::Int);
                let mid = self.get_item(&r, &slice_on(0, rank, Value::Int(a), stop), span)?;
                parts.push(mid);
            }
            if hi_cut.is_some() {
                parts.push(as_row(self, &to)?);
            }
        } else {
            parts.push(r.clone());
        }
        let joined = match parts.len() {
            1 => parts.remove(0),
            _ => self.np1("concatenate", &Value::tuple(parts), span)?,
        };
        let out = self.np2("multiply", &joined, &sign, span)?;
        match args.get_some(4, "dtype") {
            Some(d) => self.np("asarray", vec![out], vec![("dtype", d)], span),
            None => Ok(out),
        }
    }

    /// `np.gradient(f, *varargs, axis=None, edge_order=1)`: along each axis,
    /// central differences inside and one-sided differences of order
    /// `edge_order` at the ends, for a uniform spacing (a scalar, default 1)
    /// or coordinates (a 1-d array per axis); one array for one axis, else a
    /// tuple. Integer samples become float64.
    fn gradient(&mut self, args: &Args) -> R<Value> {
        let span = args.span;
        let f = self.np1("asarray", &args.req(0, "f", "gradient")?, span)?;
        let mut t = self.to_tensor(&f, None, span)?;
        if !t.ty.dtype.is_float() {
            t = self.cast(&t, DType::F64, span)?;
        }
        let f = Value::Tensor(t.clone());
        let rank = t.ty.rank();
        let axes: Vec<usize> = match args.kw.iter().find(|(k, _)| k == "axis") {
            None | Some((_, Value::None)) => (0..rank).collect(),
            Some((_, a)) => super::numpy::axes_arg(Some(a.clone()), rank, span)?,
        };
        let edge_order = match args.kw.iter().find(|(k, _)| k == "edge_order") {
            None => 1,
            Some((_, Value::Int(k))) if matches!(k, 1 | 2) => *k,
            Some(_) => {
                return Err(Diagnostic::raises(
                    span,
                    "ValueError",
                    "'edge_order' greater than 2 not supported",
                ))
            }
        };
        let spacing: Vec<Value> = match args.pos.len() - 1 {
            0 => vec![Value::Float(1.0); axes.len()],
            1 => vec![args.pos[1].clone(); axes.len()],
            n if n == axes.len() => args.pos[1..].to_vec(),
            _ => {
                return Err(Diagnostic::raises(
                    span,
                    "TypeError",
                    "invalid number of arguments",
                ))
            }
        };
        let mut out = Vec::new();
        for (&axis, h) in axes.iter().zip(spacing) {
            if let Dim::Static(n) = t.ty.dims[axis] {
                if n < edge_order + 1 {
                    return Err(Diagnostic::raises(
                        span,
                        "ValueError",
                        "Shape of array too small to calculate a numerical gradient, at least \
                         (edge_order + 1) elements are required.",
                    ));
                }
            }
            out.push(self.gradient_along(&f, axis, rank, h, edge_order, span)?);
        }
        Ok(match out.len() {
            1 => out.remove(0),
            _ => Value::tuple(out),
        })
    }

    /// The gradient of `f` along `axis` for spacing `h` (a scalar or the
    /// axis's coordinates).
    fn gradient_along(
        &mut self,
        f: &Value,
        axis: usize,
        rank: usize,
        h: Value,
        edge_order: i64,
        span: Span,
    ) -> R<Value> {
        let cut = |s: &mut Self, v: &Value, a: i64, b: Option<i64>| {
            let stop = b.map_or(Value::None, Value::Int);
            s.get_item(v, &slice_on(axis, rank, Value::Int(a), stop), span)
        };
        // A Python scalar spacing stays weakly typed (float32 samples give
        // float32 gradients, as in numpy).
        let coordinates = self.to_tensor(&h, None, span)?.ty.rank() == 1;
        // Along the axis, as a column of the coordinate differences: shape
        // [.., n, ..] with ones elsewhere.
        let column = |s: &mut Self, v: &Value| -> R<Value> {
            let mut shape = vec![Value::Int(1); rank];
            shape[axis] = Value::Int(-1);
            s.np2("reshape", v, &Value::tuple(shape), span)
        };
        let (f_lo, f_mid, f_hi) = (
            cut(self, f, 0, Some(-2))?,
            cut(self, f, 1, Some(-1))?,
            cut(self, f, 2, None)?,
        );
        let sub = |s: &mut Self, a: &Value, b: &Value| s.np2("subtract", a, b, span);
        let mul = |s: &mut Self, a: &Value, b: &Value| s.np2("multiply", a, b, span);
        let div = |s: &mut Self, a: &Value, b: &Value| s.np2("divide", a, b, span);
        let add = |s: &mut Self, a: &Value, b: &Value| s.np2("add", a, b, span);
        // Element i along the axis, the axis kept (of length 1 even where
        // the axis has a run-time length).
        let at = |s: &mut Self, v: &Value, i: i64| -> R<Value> {
            let mut items = vec![Value::slice(Value::None, Value::None); rank];
            items[axis] = Value::Int(i);
            let r = s.get_item(v, &Value::tuple(items), span)?;
            s.np(
                "expand_dims",
                vec![r],
                vec![("axis", Value::Int(axis as i64))],
                span,
            )
        };
        let (f0, f1) = (at(self, f, 0)?, at(self, f, 1)?);
        let (fl, fl1) = (at(self, f, -1)?, at(self, f, -2)?);
        if coordinates && edge_order == 2 {
            return Err(Diagnostic::unsupported(
                span,
                "np.gradient() with coordinates and edge_order=2 is not supported by agc",
            ));
        }
        // First-order differences at the ends, over the first and last steps.
        let one_sided =
            |s: &mut Self, first_step: &Value, last_step: &Value| -> R<(Value, Value)> {
                let first = sub(s, &f1, &f0)?;
                let last = sub(s, &fl, &fl1)?;
                Ok((div(s, &first, first_step)?, div(s, &last, last_step)?))
            };
        let (inside, first, last) = if coordinates {
            let dx = self.np1("diff", &h, span)?;
            let dx = column(self, &dx)?;
            let d1 = cut(self, &dx, 0, Some(-1))?;
            let d2 = cut(self, &dx, 1, None)?;
            // numpy's second-order weights for uneven steps.
            let sum = add(self, &d1, &d2)?;
            let d1s = mul(self, &d1, &sum)?;
            let d2s = mul(self, &d2, &sum)?;
            let neg_d2 = self.np1("negative", &d2, span)?;
            let a = div(self, &neg_d2, &d1s)?;
            let diff21 = sub(self, &d2, &d1)?;
            let d12 = mul(self, &d1, &d2)?;
            let b = div(self, &diff21, &d12)?;
            let c = div(self, &d1, &d2s)?;
            let terms = [
                mul(self, &a, &f_lo)?,
                mul(self, &b, &f_mid)?,
                mul(self, &c, &f_hi)?,
            ];
            let ab = add(self, &terms[0], &terms[1])?;
            let inside = add(self, &ab, &terms[2])?;
            let (dx0, dxl) = (at(self, &dx, 0)?, at(self, &dx, -1)?);
            let (first, last) = one_sided(self, &dx0, &dxl)?;
            (inside, first, last)
        } else {
            // Python arithmetic, as numpy's: a scalar spacing stays a Python float.
            let two_h = self.binop(Operator::Mult, &Value::Float(2.0), &h, span)?;
            let inside = sub(self, &f_hi, &f_lo)?;
            let inside = div(self, &inside, &two_h)?;
            if edge_order == 1 {
                let (first, last) = one_sided(self, &h, &h)?;
                (inside, first, last)
            } else {
                // numpy's a f0 + b f1 + c f2 with (a, b, c) = (-1.5, 2, -0.5) / h,
                // and the mirror image at the end.
                let weigh = |s: &mut Self, w: [f64; 3], v: [&Value; 3]| -> R<Value> {
                    let mut total: Option<Value> = None;
                    for k in 0..3 {
                        let coef = s.binop(Operator::Div, &Value::Float(w[k]), &h, span)?;
                        let term = mul(s, &coef, v[k])?;
                        total = Some(match total {
                            None => term,
                            Some(t) => add(s, &t, &term)?,
                        });
                    }
                    Ok(total.expect("three terms"))
                };
                let (f2, fl2) = (at(self, f, 2)?, at(self, f, -3)?);
                let first = weigh(self, [-1.5, 2.0, -0.5], [&f0, &f1, &f2])?;
                let last = weigh(self, [0.5, -2.0, 1.5], [&fl2, &fl1, &fl])?;
                (inside, first, last)
            }
        };
        self.np(
            "concatenate",
            vec![Value::tuple(vec![first, inside, last])],
            vec![("axis", Value::Int(axis as i64))],
            span,
        )
    }
}
