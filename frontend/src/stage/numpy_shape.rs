//! Shape manipulation of the `agc.numpy` surface: `flip`, `swapaxes`,
//! `moveaxis`, `tile`, `repeat`, `roll`, `pad`
//! (constant mode), `split` and `array_split`.
//!
//! Everything is a composite of existing staged ops (slices, transposes,
//! reshapes, broadcasts, concatenations, fills), so the backend and the
//! automatic differentiation handle the results unchanged. Counts, widths
//! and shifts are compile-time ints; the array sizes may be run-time sizes
//! (sizes numpy would compute from them become run-time values then).

use super::args::Args;
use super::numpy::axes_arg;
use super::pyops;
use super::tensor::{staged, type_error};
use super::value::{SliceValue, Tensor, Value};
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{infer, BinaryOp, CmpOp, DType, Dim, OpKind, SliceDim, Span, TensorType};
use std::rc::Rc;

/// The functions this module stages, by their `np.` name.
pub const FUNCTIONS: &[&str] = &[
    "flip",
    "swapaxes",
    "moveaxis",
    "tile",
    "repeat",
    "roll",
    "pad",
    "split",
    "array_split",
];

/// A compile-time int (`what` names it in errors).
fn one_int(x: &Value, what: &str, span: Span) -> R<i64> {
    x.as_int().ok_or_else(|| {
        if x.is_staged() {
            Diagnostic::unsupported(
                span,
                format!("{what} must be compile-time ints, not run-time values"),
            )
        } else {
            Diagnostic::error(
                span,
                format!("{what} must be ints, got {}", pyops::py_repr(x)),
            )
        }
    })
}

/// A compile-time int or sequence of ints (`what` names it in errors).
fn int_list(v: &Value, what: &str, span: Span) -> R<Vec<i64>> {
    match v {
        Value::Tuple(_) | Value::List(_) => pyops::iterate(v, span)?
            .iter()
            .map(|x| one_int(x, what, span))
            .collect(),
        other => Ok(vec![one_int(other, what, span)?]),
    }
}

/// One axis normalised against `rank`.
fn axis_of(v: &Value, rank: usize, span: Span) -> R<usize> {
    let a = v
        .as_int()
        .ok_or_else(|| Diagnostic::error(span, "an axis must be a compile-time int"))?;
    infer::normalize_axis(a, rank).map_err(|e| type_error(span, e))
}

/// The permutation that moves `axis` first, keeping the others in order.
fn to_front(axis: usize, rank: usize) -> Vec<usize> {
    std::iter::once(axis)
        .chain((0..rank).filter(|&a| a != axis))
        .collect()
}

/// The inverse of a permutation.
pub(super) fn inverse(perm: &[usize]) -> Vec<usize> {
    let mut inv = vec![0; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        inv[p] = i;
    }
    inv
}

/// `v` as `rank` pairs `(before, after)`, numpy's `np.broadcast_to(v, (rank, 2))`.
fn per_axis_pairs(v: &Value, rank: usize, what: &str, span: Span) -> R<Vec<(Value, Value)>> {
    let rows: Vec<Vec<Value>> = match v {
        Value::Tuple(_) | Value::List(_) => {
            let items = pyops::iterate(v, span)?;
            if items
                .iter()
                .all(|x| !matches!(x, Value::Tuple(_) | Value::List(_)))
            {
                vec![items]
            } else {
                items
                    .iter()
                    .map(|row| pyops::iterate(row, span))
                    .collect::<R<_>>()?
            }
        }
        other => vec![vec![other.clone()]],
    };
    let bad = || {
        Diagnostic::error(
            span,
            format!("np.pad: {what} cannot be broadcast to shape ({rank}, 2)"),
        )
    };
    if rows.len() != 1 && rows.len() != rank {
        return Err(bad());
    }
    (0..rank)
        .map(|i| {
            let row = &rows[if rows.len() == 1 { 0 } else { i }];
            match row.as_slice() {
                [x] => Ok((x.clone(), x.clone())),
                [a, b] => Ok((a.clone(), b.clone())),
                _ => Err(bad()),
            }
        })
        .collect()
}

impl Stager {
    /// Calls `np.<f>` for `f` in [`FUNCTIONS`].
    pub(super) fn numpy_shape(&mut self, f: &str, args: &Args) -> R<Value> {
        let span = args.span;
        let first = |name: &str| args.req(0, name, &format!("np.{f}"));
        match f {
            "flip" => {
                let t = self.to_tensor(&first("m")?, None, span)?;
                let axes = axes_arg(args.get_some(1, "axis"), t.ty.rank(), span)?;
                let dims = (0..t.ty.rank()).map(|i| {
                    if axes.contains(&i) {
                        SliceDim {
                            start: None,
                            stop: None,
                            step: -1,
                        }
                    } else {
                        SliceDim::FULL
                    }
                });
                self.slice_dims(&t, dims.collect(), span).map(Value::Tensor)
            }
            "swapaxes" => {
                let t = self.to_tensor(&first("a")?, None, span)?;
                let a = axis_of(&args.req(1, "axis1", "np.swapaxes")?, t.ty.rank(), span)?;
                let b = axis_of(&args.req(2, "axis2", "np.swapaxes")?, t.ty.rank(), span)?;
                let mut perm: Vec<usize> = (0..t.ty.rank()).collect();
                perm.swap(a, b);
                self.permute(&t, perm, span).map(Value::Tensor)
            }
            "moveaxis" => {
                let t = self.to_tensor(&first("a")?, None, span)?;
                self.moveaxis(
                    &t,
                    &args.req(1, "source", f)?,
                    &args.req(2, "destination", f)?,
                    span,
                )
                .map(Value::Tensor)
            }
            "tile" => {
                let t = self.to_tensor(&first("A")?, None, span)?;
                let reps = int_list(&args.req(1, "reps", f)?, "np.tile repetitions", span)?;
                self.tile(&t, &reps, span).map(Value::Tensor)
            }
            "repeat" => {
                let t = self.to_tensor(&first("a")?, None, span)?;
                let reps = match int_list(&args.req(1, "repeats", f)?, "np.repeat repeats", span)?.as_slice() {
                    [r] => *r,
                    _ => return Err(Diagnostic::unsupported(span, "np.repeat with per-element repeats is not supported; repeats must be one int")),
                };
                self.repeat(&t, reps, args.get_some(2, "axis"), span)
                    .map(Value::Tensor)
            }
            "roll" => {
                let t = self.to_tensor(&first("a")?, None, span)?;
                self.roll(
                    &t,
                    &args.req(1, "shift", f)?,
                    args.get_some(2, "axis"),
                    span,
                )
                .map(Value::Tensor)
            }
            "pad" => self.pad(args),
            _ => {
                let t = self.to_tensor(&first("ary")?, None, span)?;
                let axis = axis_of(
                    &args.get(2, "axis").unwrap_or(Value::Int(0)),
                    t.ty.rank(),
                    span,
                )?;
                let pieces = self.split(
                    &t,
                    &args.req(1, "indices_or_sections", f)?,
                    axis,
                    f == "split",
                    span,
                )?;
                Ok(Value::list(pieces.into_iter().map(Value::Tensor).collect()))
            }
        }
    }

    /// A basic slice with one [`SliceDim`] per axis (no op when all are `:`).
    pub(super) fn slice_dims(&mut self, t: &Tensor, dims: Vec<SliceDim>, span: Span) -> R<Tensor> {
        if dims.iter().all(SliceDim::is_full) {
            return Ok(t.clone());
        }
        let ty = infer::slice(&t.ty, &dims).map_err(|e| type_error(span, e))?;
        self.emit(OpKind::Slice { dims }, &[t], ty, span)
    }

    /// `t` sliced by `s` along `axis` only.
    fn slice_axis(&mut self, t: &Tensor, axis: usize, s: SliceDim, span: Span) -> R<Tensor> {
        let mut dims = vec![SliceDim::FULL; t.ty.rank()];
        dims[axis] = s;
        self.slice_dims(t, dims, span)
    }

    /// `t[start:stop]` along `axis` with run-time bounds (rank-0 int values);
    /// the result's size along `axis` is a run-time size.
    fn dyn_slice_axis(
        &mut self,
        t: &Tensor,
        axis: usize,
        start: Value,
        stop: Value,
        span: Span,
    ) -> R<Tensor> {
        let perm = to_front(axis, t.ty.rank());
        let moved = self.permute(t, perm.clone(), span)?;
        let index = Value::Slice(Rc::new(SliceValue {
            start,
            stop,
            step: Value::None,
        }));
        let sliced = staged(self.get_item(&Value::Tensor(moved), &index, span)?, span)?;
        self.permute(&sliced, inverse(&perm), span)
    }

    /// A block shaped like `t` but `width` long along `axis`, filled with `value` (in `t`'s dtype).
    pub(super) fn fill_block(
        &mut self,
        t: &Tensor,
        axis: usize,
        width: i64,
        value: &Value,
        span: Span,
    ) -> R<Tensor> {
        let s = self.to_tensor_as(value, t.ty.dtype, span)?;
        if s.ty.rank() != 0 {
            return Err(Diagnostic::unsupported(
                span,
                "a fill value must be a scalar",
            ));
        }
        let mut dims = t.ty.dims.clone();
        dims[axis] = Dim::Static(width);
        self.emit(OpKind::Fill, &[&s], TensorType::new(t.ty.dtype, dims), span)
    }

    /// `np.moveaxis(t, source, destination)`.
    fn moveaxis(
        &mut self,
        t: &Tensor,
        source: &Value,
        destination: &Value,
        span: Span,
    ) -> R<Tensor> {
        let rank = t.ty.rank();
        let norm = |v: &Value, what: &str| -> R<Vec<usize>> {
            let axes: Vec<usize> = int_list(v, "np.moveaxis axes", span)?
                .into_iter()
                .map(|a| infer::normalize_axis(a, rank).map_err(|e| type_error(span, e)))
                .collect::<R<_>>()?;
            if axes.iter().enumerate().any(|(i, a)| axes[..i].contains(a)) {
                return Err(Diagnostic::error(
                    span,
                    format!("repeated axis in `{what}` argument"),
                ));
            }
            Ok(axes)
        };
        let (src, dst) = (norm(source, "source")?, norm(destination, "destination")?);
        if src.len() != dst.len() {
            return Err(Diagnostic::error(
                span,
                "`source` and `destination` arguments must have the same number of elements",
            ));
        }
        let mut order: Vec<usize> = (0..rank).filter(|a| !src.contains(a)).collect();
        let mut pairs: Vec<(usize, usize)> = dst.into_iter().zip(src).collect();
        pairs.sort_unstable();
        for (d, s) in pairs {
            order.insert(d, s);
        }
        self.permute(t, order, span)
    }

    /// `np.tile(t, reps)`: each axis becomes `(rep, size)` by broadcasting, then merged.
    fn tile(&mut self, t: &Tensor, reps: &[i64], span: Span) -> R<Tensor> {
        if reps.iter().any(|&r| r < 0) {
            return Err(Diagnostic::error(
                span,
                "negative dimensions are not allowed",
            ));
        }
        let rank = t.ty.rank().max(reps.len());
        let mut dims = t.ty.dims.clone();
        dims.splice(0..0, std::iter::repeat_n(Dim::Static(1), rank - dims.len()));
        let mut reps = reps.to_vec();
        reps.splice(0..0, std::iter::repeat_n(1, rank - reps.len()));
        let t = self.reshape_to(t, dims.clone(), span)?;
        if reps.iter().all(|&r| r == 1) {
            return Ok(t);
        }
        let pairs = |first: &dyn Fn(i64) -> Dim| -> Vec<Dim> {
            dims.iter()
                .zip(&reps)
                .flat_map(|(d, &r)| [first(r), d.clone()])
                .collect()
        };
        let spread = self.reshape_to(&t, pairs(&|_| Dim::Static(1)), span)?;
        let copies = self.broadcast_to(&spread, pairs(&Dim::Static), span)?;
        let merged = dims
            .iter()
            .zip(&reps)
            .map(|(d, &r)| infer::dim_product(&[Dim::Static(r), d.clone()]))
            .collect();
        self.reshape_to(&copies, merged, span)
    }

    /// `np.repeat(t, reps, axis)`: each element repeated `reps` times along `axis`
    /// (the flattened array when `axis` is `None`).
    fn repeat(&mut self, t: &Tensor, reps: i64, axis: Option<Value>, span: Span) -> R<Tensor> {
        if reps < 0 {
            return Err(Diagnostic::error(
                span,
                "negative dimensions are not allowed",
            ));
        }
        let (t, axis) = match axis {
            None => (self.flatten(t, span)?, 0),
            Some(a) => (t.clone(), axis_of(&a, t.ty.rank(), span)?),
        };
        let with = |n: Dim| {
            let mut dims = t.ty.dims.clone();
            dims.insert(axis + 1, n);
            dims
        };
        let spread = self.reshape_to(&t, with(Dim::Static(1)), span)?;
        let copies = self.broadcast_to(&spread, with(Dim::Static(reps)), span)?;
        let mut merged = t.ty.dims.clone();
        merged[axis] = infer::dim_product(&[t.ty.dims[axis].clone(), Dim::Static(reps)]);
        self.reshape_to(&copies, merged, span)
    }

    /// `np.roll(t, shift, axis)` with compile-time shifts.
    fn roll(&mut self, t: &Tensor, shift: &Value, axis: Option<Value>, span: Span) -> R<Tensor> {
        let shifts = int_list(shift, "np.roll shifts", span)?;
        let Some(axis) = axis else {
            let flat = self.flatten(t, span)?;
            let rolled = self.roll_axis(&flat, 0, shifts.iter().sum(), span)?;
            return self.reshape_to(&rolled, t.ty.dims.clone(), span);
        };
        let axes = int_list(&axis, "np.roll axes", span)?;
        let n = shifts.len().max(axes.len());
        if (shifts.len() != 1 && shifts.len() != n) || (axes.len() != 1 && axes.len() != n) {
            return Err(Diagnostic::error(
                span,
                "np.roll: 'shift' and 'axis' should be scalars or 1D sequences of one length",
            ));
        }
        let mut total = vec![0i64; t.ty.rank()];
        for i in 0..n {
            let a = infer::normalize_axis(axes[i % axes.len()], t.ty.rank())
                .map_err(|e| type_error(span, e))?;
            total[a] += shifts[i % shifts.len()];
        }
        let mut cur = t.clone();
        for (a, k) in total.into_iter().enumerate() {
            cur = self.roll_axis(&cur, a, k, span)?;
        }
        Ok(cur)
    }

    /// Rolls `t` by `k` along `axis`: two slices swapped; for a run-time
    /// size, a run-time window of `t` concatenated with itself.
    fn roll_axis(&mut self, t: &Tensor, axis: usize, k: i64, span: Span) -> R<Tensor> {
        match t.ty.dims[axis].clone() {
            Dim::Static(n) => {
                let k = if n == 0 { 0 } else { k.rem_euclid(n) };
                if k == 0 {
                    return Ok(t.clone());
                }
                let head = self.slice_axis(
                    t,
                    axis,
                    SliceDim {
                        start: Some(n - k),
                        stop: None,
                        step: 1,
                    },
                    span,
                )?;
                let tail = self.slice_axis(
                    t,
                    axis,
                    SliceDim {
                        start: None,
                        stop: Some(n - k),
                        step: 1,
                    },
                    span,
                )?;
                staged(
                    self.concat(
                        &[Value::Tensor(head), Value::Tensor(tail)],
                        axis as i64,
                        span,
                    )?,
                    span,
                )
            }
            d @ Dim::Sym(_) => {
                let v = Value::Tensor(t.clone());
                let doubled = staged(self.concat(&[v.clone(), v], axis as i64, span)?, span)?;
                let n = Value::Tensor(self.to_tensor(&Value::SymInt(d), Some(DType::I64), span)?);
                let kk = self.binary(BinaryOp::Mod, &Value::Int(k), &n, span)?;
                let start = self.binary(BinaryOp::Sub, &n, &kk, span)?;
                let stop = self.binary(BinaryOp::Add, &start, &n, span)?;
                let window = self.dyn_slice_axis(&doubled, axis, start, stop, span)?;
                self.reshape_to(&window, t.ty.dims.clone(), span)
            }
        }
    }

    /// `np.pad(array, pad_width, mode='constant', constant_values=0)` with compile-time widths.
    fn pad(&mut self, args: &Args) -> R<Value> {
        let span = args.span;
        args.check(
            "np.pad",
            3,
            &["array", "pad_width", "mode", "constant_values"],
        )?;
        let t = self.to_tensor(&args.req(0, "array", "np.pad")?, None, span)?;
        match args.get_some(2, "mode") {
            None => {}
            Some(Value::Str(m)) if &*m == "constant" => {}
            Some(other) => {
                return Err(Diagnostic::unsupported(
                    span,
                    format!(
                        "np.pad mode {} is not supported (only 'constant')",
                        pyops::py_repr(&other)
                    ),
                ))
            }
        }
        let rank = t.ty.rank();
        let widths = per_axis_pairs(
            &args.req(1, "pad_width", "np.pad")?,
            rank,
            "pad_width",
            span,
        )?;
        let values = per_axis_pairs(
            &args.get_some(3, "constant_values").unwrap_or(Value::Int(0)),
            rank,
            "constant_values",
            span,
        )?;
        let mut cur = t;
        for (axis, ((before, after), (vb, va))) in widths.iter().zip(&values).enumerate() {
            let (b, a) = (
                one_int(before, "np.pad widths", span)?,
                one_int(after, "np.pad widths", span)?,
            );
            if b < 0 || a < 0 {
                return Err(Diagnostic::error(
                    span,
                    "index can't contain negative values",
                ));
            }
            let mut parts = Vec::new();
            if b > 0 {
                parts.push(Value::Tensor(self.fill_block(&cur, axis, b, vb, span)?));
            }
            parts.push(Value::Tensor(cur.clone()));
            if a > 0 {
                parts.push(Value::Tensor(self.fill_block(&cur, axis, a, va, span)?));
            }
            cur = staged(self.concat(&parts, axis as i64, span)?, span)?;
        }
        Ok(Value::Tensor(cur))
    }

    /// `np.split` (`equal`) / `np.array_split` along `axis`: by a compile-time
    /// number of sections or a list of compile-time split indices.
    fn split(
        &mut self,
        t: &Tensor,
        how: &Value,
        axis: usize,
        equal: bool,
        span: Span,
    ) -> R<Vec<Tensor>> {
        if let Value::Tuple(_) | Value::List(_) = how {
            let idx = int_list(how, "np.split indices", span)?;
            let starts = std::iter::once(0).chain(idx.iter().copied());
            let stops = idx.iter().copied().map(Some).chain(std::iter::once(None));
            return starts
                .zip(stops)
                .map(|(start, stop)| {
                    self.slice_axis(
                        t,
                        axis,
                        SliceDim {
                            start: Some(start),
                            stop,
                            step: 1,
                        },
                        span,
                    )
                })
                .collect();
        }
        let sections = one_int(how, "np.split sections", span)?;
        if sections <= 0 {
            return Err(Diagnostic::error(
                span,
                "number sections must be larger than 0.",
            ));
        }
        let unequal = "array split does not result in an equal division";
        match t.ty.dims[axis].clone() {
            Dim::Static(n) => {
                if equal && n % sections != 0 {
                    return Err(Diagnostic::error(span, unequal));
                }
                let (each, extras) = (n / sections, n % sections);
                let bound = |k: i64| k * each + k.min(extras);
                (0..sections)
                    .map(|k| {
                        self.slice_axis(
                            t,
                            axis,
                            SliceDim {
                                start: Some(bound(k)),
                                stop: Some(bound(k + 1)),
                                step: 1,
                            },
                            span,
                        )
                    })
                    .collect()
            }
            d @ Dim::Sym(_) => {
                let n = Value::Tensor(self.to_tensor(&Value::SymInt(d), Some(DType::I64), span)?);
                let each = self.binary(BinaryOp::FloorDiv, &n, &Value::Int(sections), span)?;
                let extras = self.binary(BinaryOp::Mod, &n, &Value::Int(sections), span)?;
                if equal {
                    let ok = staged(
                        self.compare(CmpOp::Eq, &extras, &Value::Int(0), span)?,
                        span,
                    )?;
                    self.check(&ok, format!("ValueError: {unequal}"), span)?;
                }
                let mut bounds = Vec::new();
                for k in 0..=sections {
                    let whole = self.binary(BinaryOp::Mul, &each, &Value::Int(k), span)?;
                    let part = self.binary(BinaryOp::Min, &extras, &Value::Int(k), span)?;
                    bounds.push(self.binary(BinaryOp::Add, &whole, &part, span)?);
                }
                // Equal sections share one run-time size, so that they combine like numpy's.
                let common = equal.then(|| self.fresh_dim("split"));
                bounds
                    .windows(2)
                    .map(|w| {
                        let piece =
                            self.dyn_slice_axis(t, axis, w[0].clone(), w[1].clone(), span)?;
                        let Some(size) = &common else {
                            return Ok(piece);
                        };
                        let mut dims = piece.ty.dims.clone();
                        dims[axis] = size.clone();
                        self.reshape_to(&piece, dims, span)
                    })
                    .collect()
            }
        }
    }
}
