//! Item assignment into tensors: `x[i] = v`, `x[i, j] = v`, `x[:, j] = v`,
//! `x[a:b, 2] = v`, `x[mask] = v`, with compile-time or run-time integer
//! indices. Staged tensors are values, so the write builds the updated
//! tensor and rebinds the target it names. Unlike numpy, other names bound
//! to the same array (`alias = x`) or to a view of it (`r = x[0]`) keep the
//! old values: identical staged expressions are one value (hash-consing), so
//! the stager cannot tell an alias from an equal array built twice.
//!
//! The index is taken apart axis by axis: leading integer indices become
//! one `dyn_update` (bounds-checked at run time, negative indices from the
//! end); an integer index on a later axis moves that axis to the front; a
//! step-1 slice splits the axis into before/inside/after and writes inside.
//! `v` is cast to `x`'s dtype (numpy's setitem casting) and broadcast to
//! the indexed part.

use super::value::{SliceValue, Tensor, Value};
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{infer, DType, Dim, OpKind, SliceDim, Span, TensorType};

/// One index item of an assignment target, per axis of `x`.
#[derive(Clone)]
enum Item {
    /// An integer index (compile-time or staged).
    At(Value),
    /// A slice with compile-time bounds.
    Range(SliceDim),
}

impl Item {
    fn is_full(&self) -> bool {
        matches!(self, Item::Range(s) if s.is_full())
    }
}

impl Stager {
    /// `x` with `x[index] = v` applied.
    pub fn updated(&mut self, x: &Tensor, index: &Value, v: &Value, span: Span) -> R<Tensor> {
        let raw: Vec<Value> = match index {
            Value::Tuple(items) => items.as_ref().clone(),
            other => vec![other.clone()],
        };
        if let [Value::Tensor(mask)] = raw.as_slice() {
            if mask.ty.dtype == DType::Bool {
                return self.masked_write(x, mask, v, span);
            }
        }
        let items = self.assignment_items(x, &raw, span)?;
        self.write(x, &items, v, span)
    }

    /// `x[mask] = v` with a scalar `v`: `np.where(mask, v, x)`.
    fn masked_write(&mut self, x: &Tensor, mask: &Tensor, v: &Value, span: Span) -> R<Tensor> {
        let val = self.to_tensor_as(v, x.ty.dtype, span)?;
        if val.ty.rank() != 0 {
            return Err(Diagnostic::unsupported(span, "assigning an array through a boolean mask is not supported; assign a scalar, or use np.where"));
        }
        // A mask over the leading axes selects whole sub-arrays.
        let r = mask.ty.rank();
        if r > x.ty.rank() || mask.ty.dims[..] != x.ty.dims[..r] {
            return Err(Diagnostic::error(
                span,
                format!(
                    "boolean index of shape {} does not match the indexed array of shape {}",
                    mask.ty.shape_string(),
                    x.ty.shape_string()
                ),
            ));
        }
        let mut dims = mask.ty.dims.clone();
        dims.extend((r..x.ty.rank()).map(|_| Dim::Static(1)));
        let mask = self.reshape_to(mask, dims, span)?;
        match self.select(
            &Value::Tensor(mask),
            &Value::Tensor(val),
            &Value::Tensor(x.clone()),
            span,
        )? {
            Value::Tensor(t) => Ok(t),
            _ => Err(Diagnostic::internal(span, "masked write was not staged")),
        }
    }

    /// One item per axis of `x`: `...` spelled out, missing trailing axes full.
    fn assignment_items(&mut self, x: &Tensor, raw: &[Value], span: Span) -> R<Vec<Item>> {
        let rank = x.ty.rank();
        let consumed = raw.iter().filter(|v| !matches!(v, Value::Ellipsis)).count();
        if consumed > rank {
            return Err(Diagnostic::error(span, format!("too many indices for array: array is {rank}-dimensional, but {consumed} were indexed")));
        }
        let mut items = Vec::new();
        for v in raw {
            match v {
                Value::Ellipsis => items.extend((0..rank - consumed).map(|_| Item::Range(SliceDim::FULL))),
                Value::Slice(s) => items.push(Item::Range(compile_time_slice(s, span)?)),
                Value::None => return Err(Diagnostic::unsupported(span, "np.newaxis in an assignment target is not supported")),
                Value::Int(_) | Value::SymInt(_) => items.push(Item::At(v.clone())),
                Value::Tensor(t) if t.ty.rank() == 0 && t.ty.dtype.is_int() => items.push(Item::At(v.clone())),
                other => {
                    return Err(Diagnostic::unsupported(
                        span,
                        format!("assigning through an index of type {} is not supported; use integers, slices or a boolean mask", other.type_name()),
                    ))
                }
            }
        }
        items.extend((items.len()..rank).map(|_| Item::Range(SliceDim::FULL)));
        Ok(items)
    }

    /// `x` with the part `items` selects replaced by `v`.
    fn write(&mut self, x: &Tensor, items: &[Item], v: &Value, span: Span) -> R<Tensor> {
        let Some(k) = items.iter().position(|i| !i.is_full()) else {
            let val = self.to_tensor_as(v, x.ty.dtype, span)?;
            return self.fit(&val, &x.ty.dims, span);
        };
        match &items[k] {
            Item::At(_) if k == 0 => {
                let n = items
                    .iter()
                    .take_while(|i| matches!(i, Item::At(_)))
                    .count();
                let idx: Vec<Tensor> = items[..n]
                    .iter()
                    .map(|i| match i {
                        Item::At(v) => self.to_tensor_as(v, DType::I64, span),
                        Item::Range(_) => unreachable!("counted integer items"),
                    })
                    .collect::<R<_>>()?;
                let rest = &items[n..];
                let part = if rest.iter().all(Item::is_full) {
                    let val = self.to_tensor_as(v, x.ty.dtype, span)?;
                    self.fit(&val, &x.ty.dims[n..], span)?
                } else {
                    let ints: Vec<Value> = idx.iter().cloned().map(Value::Tensor).collect();
                    let sub = self.dyn_index(x, &ints, span)?;
                    self.write(&sub, rest, v, span)?
                };
                let mut operands = vec![x, &part];
                operands.extend(idx.iter());
                self.emit(
                    OpKind::DynUpdate {
                        axes: n,
                        accumulate: false,
                    },
                    &operands,
                    x.ty.clone(),
                    span,
                )
            }
            Item::At(_) => {
                // Move axis k to the front, write there, move it back.
                let mut perm = vec![k];
                perm.extend((0..x.ty.rank()).filter(|&a| a != k));
                let moved = self.permuted(x, &perm, span)?;
                let mut moved_items = vec![items[k].clone()];
                moved_items.extend(items[..k].iter().cloned());
                moved_items.extend(items[k + 1..].iter().cloned());
                let written = self.write(&moved, &moved_items, v, span)?;
                let mut back = vec![0; perm.len()];
                for (i, &p) in perm.iter().enumerate() {
                    back[p] = i;
                }
                self.permuted(&written, &back, span)
            }
            Item::Range(s) => self.write_range(x, items, k, *s, v, span),
        }
    }

    /// Writes through the slice `s` on axis `k`: the axis is split into the
    /// parts before, inside and after the slice, and the inside is written.
    fn write_range(
        &mut self,
        x: &Tensor,
        items: &[Item],
        k: usize,
        s: SliceDim,
        v: &Value,
        span: Span,
    ) -> R<Tensor> {
        if s.step != 1 {
            return Err(Diagnostic::unsupported(
                span,
                "assigning to a slice with a step other than 1 is not supported",
            ));
        }
        let range = |lo: Option<i64>, hi: Option<i64>| SliceDim {
            start: lo,
            stop: hi,
            step: 1,
        };
        let pieces: [Option<SliceDim>; 3] = match &x.ty.dims[k] {
            Dim::Static(n) => {
                let (a, b) = s.bounds_for(*n);
                if b <= a {
                    return Ok(x.clone()); // an empty slice: nothing to write
                }
                [
                    (a > 0).then(|| range(Some(0), Some(a))),
                    Some(range(Some(a), Some(b))),
                    (b < *n).then(|| range(Some(b), Some(*n))),
                ]
            }
            Dim::Sym(_) => {
                // Clamping keeps before ≤ inside ≤ after only when both bounds count from the same end.
                if matches!((s.start, s.stop), (Some(a), Some(b)) if (a >= 0) != (b >= 0)) {
                    return Err(Diagnostic::unsupported(
                        span,
                        "assigning to a slice of a run-time-sized axis whose bounds count from different ends is not supported",
                    ));
                }
                [
                    s.start.map(|a| range(None, Some(a))),
                    Some(s),
                    s.stop.map(|b| range(Some(b), None)),
                ]
            }
        };
        let mut parts = Vec::new();
        for (i, piece) in pieces.iter().enumerate() {
            let Some(piece) = piece else { continue };
            let mut dims = vec![SliceDim::FULL; x.ty.rank()];
            dims[k] = *piece;
            let part = if piece.is_full() {
                x.clone()
            } else {
                let ty =
                    infer::slice(&x.ty, &dims).map_err(|e| super::tensor::type_error(span, e))?;
                self.emit(OpKind::Slice { dims }, &[x], ty, span)?
            };
            let part = if i == 1 {
                let mut inner = items.to_vec();
                inner[k] = Item::Range(SliceDim::FULL);
                self.write(&part, &inner, v, span)?
            } else {
                part
            };
            parts.push(Value::Tensor(part));
        }
        let joined = match parts.len() {
            1 => parts.pop().unwrap_or(Value::None),
            _ => self.concat(&parts, k as i64, span)?,
        };
        let Value::Tensor(joined) = joined else {
            return Err(Diagnostic::internal(span, "slice write was not staged"));
        };
        // The pieces add up to the axis: keep `x`'s own name for its size.
        if joined.ty == x.ty {
            return Ok(joined);
        }
        self.emit(OpKind::Reshape, &[&joined], x.ty.clone(), span)
    }

    /// `val` broadcast to `dims`, with numpy's message when it cannot be.
    fn fit(&mut self, val: &Tensor, dims: &[Dim], span: Span) -> R<Tensor> {
        match infer::broadcast_dims(&val.ty.dims, dims) {
            Ok(b) if b == dims => self.broadcast_to(val, dims.to_vec(), span),
            _ => Err(Diagnostic::error(
                span,
                format!(
                    "could not broadcast input array from shape {} into shape {}",
                    val.ty.shape_string(),
                    TensorType::new(val.ty.dtype, dims.to_vec()).shape_string()
                ),
            )),
        }
    }

    fn permuted(&mut self, x: &Tensor, perm: &[usize], span: Span) -> R<Tensor> {
        let ty = infer::transpose(&x.ty, perm).map_err(|e| super::tensor::type_error(span, e))?;
        self.emit(
            OpKind::Transpose {
                perm: perm.to_vec(),
            },
            &[x],
            ty,
            span,
        )
    }
}

/// A slice whose bounds must be known at compile time.
fn compile_time_slice(s: &SliceValue, span: Span) -> R<SliceDim> {
    let bound = |v: &Value| {
        match v {
        Value::None => Ok(None),
        other => other
            .as_int()
            .map(Some)
            .ok_or_else(|| Diagnostic::unsupported(span, "assigning to a slice with run-time bounds is not supported; use compile-time bounds or integer indices")),
    }
    };
    let step = bound(&s.step)?.unwrap_or(1);
    if step == 0 {
        return Err(Diagnostic::error(span, "slice step cannot be zero"));
    }
    Ok(SliceDim {
        start: bound(&s.start)?,
        stop: bound(&s.stop)?,
        step,
    })
}
