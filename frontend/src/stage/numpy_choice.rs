//! Comparisons and choices of the `agc.numpy` surface that numpy defines
//! in terms of other numpy functions: `isclose`, `allclose`, `array_equal`,
//! `select`, `searchsorted`, `digitize` and `take_along_axis`, staged as
//! the same compositions (see [`super::numpy_composite`]).

use super::args::Args;
use super::pyops::truthy;
use super::tensor::{staged, type_error};
use super::value::Value;
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{infer, DType, Dim, Span};

/// The functions this module stages, by their `np.` name.
pub const FUNCTIONS: &[&str] = &[
    "isclose",
    "allclose",
    "array_equal",
    "select",
    "searchsorted",
    "digitize",
    "take_along_axis",
];

impl Stager {
    /// Calls `np.<f>` for `f` in [`FUNCTIONS`].
    pub(super) fn numpy_choice(&mut self, f: &str, args: &Args) -> R<Value> {
        let span = args.span;
        match f {
            "isclose" | "allclose" => {
                let close = self.isclose(args)?;
                if f == "isclose" {
                    return Ok(close);
                }
                self.np1("all", &close, span)
            }
            "array_equal" => self.array_equal(args),
            "select" => self.select_choices(args),
            "searchsorted" => {
                if args.get_some(3, "sorter").is_some() {
                    return Err(Diagnostic::error(
                        span,
                        "np.searchsorted() with sorter= is not supported by agc; sort first",
                    ));
                }
                let side = match args.get(2, "side") {
                    None => "left".to_string(),
                    Some(Value::Str(s)) if matches!(&*s, "left" | "right") => s.to_string(),
                    Some(other) => {
                        return Err(Diagnostic::raises(
                            span,
                            "ValueError",
                            format!("side must be 'left' or 'right' (got {other:?})"),
                        ))
                    }
                };
                let a = args.req(0, "a", f)?;
                let v = args.req(1, "v", f)?;
                self.searchsorted(&a, &v, side == "right", span)
            }
            "digitize" => {
                // Increasing bins: the index of the bin each value falls in.
                let x = args.req(0, "x", f)?;
                let bins = args.req(1, "bins", f)?;
                let right = match args.get(2, "right") {
                    None => false,
                    Some(v) => truthy(&v).ok_or_else(|| {
                        Diagnostic::error(span, "right must be a compile-time bool")
                    })?,
                };
                self.searchsorted(&bins, &x, !right, span)
            }
            _ => self.take_along_axis(args),
        }
    }

    /// numpy's `isclose(a, b, rtol, atol, equal_nan)`:
    /// `|a - b| <= atol + rtol |b|` where `b` is finite, or `a == b`; `b`
    /// made a float first.
    fn isclose(&mut self, args: &Args) -> R<Value> {
        let span = args.span;
        let a = args.req(0, "a", "isclose")?;
        let b = match args.req(1, "b", "isclose")? {
            Value::Int(i) => Value::Float(i as f64),
            Value::Bool(b) => Value::Float(f64::from(u8::from(b))),
            Value::Float(x) => Value::Float(x),
            other => {
                let t = self.to_tensor(&other, None, span)?;
                let d = if t.ty.dtype.is_float() {
                    t.ty.dtype
                } else {
                    DType::F64
                };
                Value::Tensor(self.cast(&t, d, span)?)
            }
        };
        let rtol = args.get(2, "rtol").unwrap_or(Value::Float(1e-5));
        let atol = args.get(3, "atol").unwrap_or(Value::Float(1e-8));
        let equal_nan = match args.get(4, "equal_nan") {
            None => false,
            Some(v) => truthy(&v)
                .ok_or_else(|| Diagnostic::error(span, "equal_nan must be a compile-time bool"))?,
        };
        let diff = self.np2("subtract", &a, &b, span)?;
        let diff = self.np1("abs", &diff, span)?;
        let mag = self.np1("abs", &b, span)?;
        let tol = self.np2("multiply", &rtol, &mag, span)?;
        let tol = self.np2("add", &atol, &tol, span)?;
        let within = self.np2("less_equal", &diff, &tol, span)?;
        let finite = self.np1("isfinite", &b, span)?;
        let close = self.np2("logical_and", &within, &finite, span)?;
        let same = self.np2("equal", &a, &b, span)?;
        let close = self.np2("logical_or", &close, &same, span)?;
        if !equal_nan {
            return Ok(close);
        }
        let a_nan = self.np1("isnan", &a, span)?;
        let b_nan = self.np1("isnan", &b, span)?;
        let both = self.np2("logical_and", &a_nan, &b_nan, span)?;
        self.np2("logical_or", &close, &both, span)
    }

    /// `np.array_equal(a1, a2, equal_nan=False)`: `False` for shapes that
    /// differ at compile time, else whether every element is equal.
    fn array_equal(&mut self, args: &Args) -> R<Value> {
        let span = args.span;
        let a = self.to_tensor(&args.req(0, "a1", "array_equal")?, None, span)?;
        let b = self.to_tensor(&args.req(1, "a2", "array_equal")?, None, span)?;
        let differ = a.ty.rank() != b.ty.rank()
            || a.ty.dims.iter().zip(&b.ty.dims).any(|pair| match pair {
                (Dim::Static(x), Dim::Static(y)) => x != y,
                _ => false,
            });
        if differ {
            return Ok(Value::Bool(false));
        }
        if a.ty.dims != b.ty.dims {
            return Err(Diagnostic::error(
                span,
                "np.array_equal() of arrays whose run-time sizes may differ is not supported by \
                 agc; compare the shapes first",
            ));
        }
        let (a, b) = (Value::Tensor(a), Value::Tensor(b));
        let mut same = self.np2("equal", &a, &b, span)?;
        let equal_nan = args
            .get(2, "equal_nan")
            .is_some_and(|v| truthy(&v) == Some(true));
        if equal_nan {
            let a_nan = self.np1("isnan", &a, span)?;
            let b_nan = self.np1("isnan", &b, span)?;
            let both = self.np2("logical_and", &a_nan, &b_nan, span)?;
            same = self.np2("logical_or", &same, &both, span)?;
        }
        self.np1("all", &same, span)
    }

    /// `np.select(condlist, choicelist, default=0)`: the first choice whose
    /// condition holds, element by element (nested `where`s from the last).
    fn select_choices(&mut self, args: &Args) -> R<Value> {
        let span = args.span;
        let conds = super::pyops::iterate(&args.req(0, "condlist", "select")?, span)?;
        let choices = super::pyops::iterate(&args.req(1, "choicelist", "select")?, span)?;
        if conds.len() != choices.len() {
            return Err(Diagnostic::raises(
                span,
                "ValueError",
                "list of cases must be same length as list of conditions",
            ));
        }
        if conds.is_empty() {
            return Err(Diagnostic::raises(
                span,
                "ValueError",
                "select with an empty condition list is not possible",
            ));
        }
        let mut result = args.get(2, "default").unwrap_or(Value::Int(0));
        for (k, (c, v)) in conds.iter().zip(&choices).enumerate().rev() {
            let ct = self.to_tensor(c, None, span)?;
            if ct.ty.dtype != DType::Bool {
                return Err(Diagnostic::raises(
                    span,
                    "TypeError",
                    format!("invalid entry {k} in condlist: should be boolean ndarray"),
                ));
            }
            result = self.np(
                "where",
                vec![Value::Tensor(ct), v.clone(), result],
                Vec::new(),
                span,
            )?;
        }
        Ok(result)
    }

    /// `np.searchsorted(a, v, side)` for a sorted 1-d `a`: how many elements
    /// of `a` sort before each `v` (`right`: before or equal), NaN sorting
    /// after every number as numpy sorts it.
    fn searchsorted(&mut self, a: &Value, v: &Value, right: bool, span: Span) -> R<Value> {
        let at = self.to_tensor(a, None, span)?;
        if at.ty.rank() != 1 {
            return Err(Diagnostic::raises(
                span,
                "ValueError",
                "object too deep for desired array",
            ));
        }
        let vt = self.to_tensor(v, None, span)?;
        let mut dims = vt.ty.dims.clone();
        dims.push(Dim::Static(1));
        let ve = Value::Tensor(self.reshape_to(&vt, dims, span)?);
        let at = Value::Tensor(at);
        // `before(x, y)`: x sorts before y.
        let float =
            DType::promote(self.to_tensor(&at, None, span)?.ty.dtype, vt.ty.dtype).is_float();
        let before = |st: &mut Self, x: &Value, y: &Value| -> R<Value> {
            let lt = st.np2("less", x, y, span)?;
            if !float {
                return Ok(lt);
            }
            let y_nan = st.np1("isnan", y, span)?;
            let x_num = st.np1("isnan", x, span)?;
            let x_num = st.np1("logical_not", &x_num, span)?;
            let nan_after = st.np2("logical_and", &y_nan, &x_num, span)?;
            st.np2("logical_or", &lt, &nan_after, span)
        };
        let counted = if right {
            let after = before(self, &ve, &at)?;
            self.np1("logical_not", &after, span)?
        } else {
            before(self, &at, &ve)?
        };
        self.np(
            "sum",
            vec![counted],
            vec![
                ("axis", Value::Int(-1)),
                ("dtype", Value::DType(DType::I64)),
            ],
            span,
        )
    }

    /// `np.take_along_axis(arr, indices, axis)`: `arr`'s elements at
    /// `indices` along `axis`, the other axes broadcast between the two;
    /// negative indices count from the end and an index out of range makes
    /// the call fail with numpy's IndexError.
    fn take_along_axis(&mut self, args: &Args) -> R<Value> {
        let span = args.span;
        let arr = self.to_tensor(&args.req(0, "arr", "take_along_axis")?, None, span)?;
        let idx = self.to_tensor(&args.req(1, "indices", "take_along_axis")?, None, span)?;
        if !matches!(idx.ty.dtype, DType::I32 | DType::I64) {
            return Err(Diagnostic::raises(
                span,
                "IndexError",
                "`indices` must be an integer array",
            ));
        }
        let (arr, axis) = match args.get(2, "axis").unwrap_or(Value::Int(-1)) {
            Value::None => (self.flatten(&arr, span)?, 0),
            v => {
                let a = v
                    .as_int()
                    .ok_or_else(|| Diagnostic::error(span, "axis must be a compile-time int"))?;
                let axis =
                    infer::normalize_axis(a, arr.ty.rank()).map_err(|e| type_error(span, e))?;
                (arr, axis)
            }
        };
        if idx.ty.rank() != arr.ty.rank() {
            return Err(Diagnostic::raises(
                span,
                "ValueError",
                "`indices` and `arr` must have the same number of dimensions",
            ));
        }
        let rank = arr.ty.rank();
        // The axis last in both; the other axes broadcast.
        let mut perm: Vec<usize> = (0..rank).filter(|&d| d != axis).collect();
        perm.push(axis);
        let a = self.permute(&arr, perm.clone(), span)?;
        let i = self.permute(&idx, perm.clone(), span)?;
        let mut batch = Vec::new();
        for (da, di) in a.ty.dims[..rank - 1].iter().zip(&i.ty.dims[..rank - 1]) {
            batch.push(match (da, di) {
                _ if da == di => da.clone(),
                (Dim::Static(1), d) | (d, Dim::Static(1)) => d.clone(),
                _ => {
                    return Err(Diagnostic::raises(
                        span,
                        "ValueError",
                        "shape mismatch: `arr` and `indices` could not be broadcast together",
                    ))
                }
            });
        }
        let n = a.ty.dims[rank - 1].clone();
        let k = i.ty.dims[rank - 1].clone();
        let with = |last: &Dim| {
            batch
                .iter()
                .cloned()
                .chain([last.clone()])
                .collect::<Vec<_>>()
        };
        let a = self.broadcast_to(&a, with(&n), span)?;
        let i = self.broadcast_to(&i, with(&k), span)?;
        let rows = infer::dim_product(&batch);
        let a = self.reshape_to(&a, vec![rows.clone(), n.clone()], span)?;
        let i = Value::Tensor(self.reshape_to(&i, vec![rows.clone(), k], span)?);
        let i = self.cast_value(&i, DType::I64, span)?;
        // Negative indices from the end; then every index within [0, n).
        let size = Value::Tensor(self.sym_value(&n, span)?);
        let negative = self.np2("less", &i, &Value::Int(0), span)?;
        let wrapped = self.np2("add", &i, &size, span)?;
        let i = self.np("where", vec![negative, wrapped, i], Vec::new(), span)?;
        let low = self.np2("greater_equal", &i, &Value::Int(0), span)?;
        let high = self.np2("less", &i, &size, span)?;
        let inside = self.np2("logical_and", &low, &high, span)?;
        let inside = staged(self.np1("all", &inside, span)?, span)?;
        let message = format!("IndexError: index out of bounds for axis {axis} in take_along_axis");
        self.check(&inside, message, span)?;
        // Element (r, j) of the flattened rows: r * n + i[r, j].
        let r = self.np1("arange", &super::methods::dim_value(&rows), span)?;
        let r = staged(r, span)?;
        let r = Value::Tensor(self.reshape_to(&r, vec![rows, Dim::Static(1)], span)?);
        let base = self.np2("multiply", &r, &size, span)?;
        let flat_index = self.np2("add", &base, &i, span)?;
        let flat = Value::Tensor(self.flatten(&a, span)?);
        let taken = staged(self.np2("take", &flat, &flat_index, span)?, span)?;
        let taken = self.reshape_to(&taken, with(&taken.ty.dims[1].clone()), span)?;
        let back = super::numpy_shape::inverse(&perm);
        Ok(Value::Tensor(self.permute(&taken, back, span)?))
    }
}
