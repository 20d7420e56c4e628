//! Array functions of the `agc.numpy` surface that numpy defines from
//! others, staged as the same compositions (see
//! [`super::numpy_composite`]): `identity`, `atleast_1d/2d/3d`,
//! `ascontiguousarray`, `diff`, `fliplr`, `flipud`, `rot90`, `append`,
//! `hsplit`/`vsplit`/`dsplit`, `logspace`, `meshgrid`, `tri` and `indices`.

use super::args::Args;
use super::pyops::truthy;
use super::tensor::staged;
use super::value::Value;
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{DType, Dim};

/// The functions this module stages, by their `np.` name.
pub const FUNCTIONS: &[&str] = &[
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
    "indices",
];

impl Stager {
    /// Calls `np.<f>` for `f` in [`FUNCTIONS`].
    pub(super) fn numpy_arrays(&mut self, f: &str, args: &Args) -> R<Value> {
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
                let base = self.cast_value(&base, DType::F64, span)?;
                let r = self.np2("power", &base, &y, span)?;
                match args.get_some(5, "dtype") {
                    Some(d) => self.np("asarray", vec![r], vec![("dtype", d)], span),
                    None => Ok(r),
                }
            }
            "meshgrid" => self.meshgrid(args),
            "indices" => self.indices(args),
            "tri" => {
                // numpy's greater_equal.outer(arange(N), arange(-k, M - k)).
                let n = args.req(0, "N", f)?;
                let m = args.get_some(1, "M").unwrap_or(n.clone());
                let k = args.get(2, "k").unwrap_or(Value::Int(0));
                let rows = self.np1("arange", &n, span)?;
                // `arange(M) - k`: the columns of `arange(-k, M - k)`, and as
                // many as `M` says (a symbolic dim's size stays that dim).
                let cols = self.np1("arange", &m, span)?;
                let cols = self.np2("subtract", &cols, &k, span)?;
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
            _ => Err(Diagnostic::internal(
                span,
                format!("np.{f} reached numpy_arrays"),
            )),
        }
    }

    /// `np.indices(dimensions, dtype=int, sparse=False)`: for each axis, its
    /// index (`arange` along that axis), broadcast to `dimensions` and
    /// stacked, or each left unbroadcast (a tuple) when `sparse`.
    fn indices(&mut self, args: &Args) -> R<Value> {
        let span = args.span;
        let dims = super::pyops::iterate(&args.req(0, "dimensions", "indices")?, span)?;
        let dtype = args
            .get_some(1, "dtype")
            .unwrap_or(Value::DType(DType::I64));
        let sparse = args.get(2, "sparse").unwrap_or(Value::Bool(false));
        let sparse = truthy(&sparse).ok_or_else(|| {
            Diagnostic::unsupported(span, "np.indices(): sparse must be a compile-time bool")
        })?;
        let mut grids = Vec::new();
        for (axis, d) in dims.iter().enumerate() {
            let ix = self.np(
                "arange",
                vec![d.clone()],
                vec![("dtype", dtype.clone())],
                span,
            )?;
            let mut shape = vec![Value::Int(1); dims.len()];
            shape[axis] = Value::Int(-1);
            let ix = self.np2("reshape", &ix, &Value::tuple(shape), span)?;
            grids.push(if sparse {
                ix
            } else {
                self.np2("broadcast_to", &ix, &Value::tuple(dims.clone()), span)?
            });
        }
        if sparse {
            return Ok(Value::tuple(grids));
        }
        if grids.is_empty() {
            return self.np(
                "zeros",
                vec![Value::tuple(vec![Value::Int(0)])],
                vec![("dtype", dtype)],
                span,
            );
        }
        self.np1("stack", &Value::tuple(grids), span)
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
        let slice = |start, stop| super::numpy_series::slice_on(axis, rank, start, stop);
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
