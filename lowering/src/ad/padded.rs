//! Sums of zero-padded adjoints.
//!
//! The adjoint of a slice `x[a:b]` along an axis is the slice's adjoint
//! padded with zeros to `x`'s shape (a concatenation, [`super::adjoint`]'s
//! layout rules). When a value is sliced several times (an LSTM's gates
//! `g[:, :H]`, `g[:, H:2H]`, ...), the adjoints of the slices are such
//! concatenations, and adding them makes one full-size buffer per slice and
//! one add per pair. [`add`] instead merges two concatenations whose
//! non-zero pieces do not overlap into one: each piece once, zeros only in
//! the gaps. The merged value differs from the sum only where a piece holds
//! `-0.0` (which stays `-0.0` instead of `-0.0 + 0.0 = +0.0`), as JAX's
//! symbolic zeros do.

use crate::builder::Builder;
use agc_ir::{ConstData, Dim, Function, OpKind, TensorType, Value};

/// A non-zero piece of a concatenation: where it starts along the axis,
/// its extent there, and its value.
struct Piece {
    start: i64,
    len: i64,
    value: Value,
}

/// `x + y` as one concatenation when both are concatenations along the same
/// axis, of the same type, with static extents along it and non-zero pieces
/// that do not overlap; `None` otherwise (the caller adds them).
pub(crate) fn add(b: &mut Builder, x: Value, y: Value) -> Option<Value> {
    let ty = b.f.ty(x).as_tensor()?.clone();
    if b.f.ty(y).as_tensor()? != &ty {
        return None;
    }
    let (axis, mut pieces) = nonzero_pieces(b.f, x)?;
    let (axis_y, more) = nonzero_pieces(b.f, y)?;
    if axis != axis_y {
        return None;
    }
    let overlap = |p: &Piece, q: &Piece| p.start < q.start + q.len && q.start < p.start + p.len;
    if pieces.iter().any(|p| more.iter().any(|q| overlap(p, q))) {
        return None;
    }
    pieces.extend(more);
    pieces.sort_by_key(|p| p.start);
    let total = ty.dims[axis].as_static()?;
    let with = |k: i64| {
        let mut d = ty.dims.clone();
        d[axis] = Dim::Static(k);
        TensorType::new(ty.dtype, d)
    };
    let mut parts = Vec::new();
    let mut at = 0;
    for p in &pieces {
        if p.start > at {
            parts.push(b.zeros(&with(p.start - at)));
        }
        parts.push(p.value);
        at = p.start + p.len;
    }
    if total > at {
        parts.push(b.zeros(&with(total - at)));
    }
    b.concat(parts, axis).ok()
}

/// The axis and the non-zero pieces of `v`, when a concatenation with
/// static extents along its axis makes it.
fn nonzero_pieces(f: &Function, v: Value) -> Option<(usize, Vec<Piece>)> {
    let od = f.def_op(v)?;
    let OpKind::Concat { axis } = od.kind else {
        return None;
    };
    let mut pieces = Vec::new();
    let mut start = 0;
    for &part in &od.operands {
        let len = f.ty(part).as_tensor()?.dims[axis].as_static()?;
        if !is_zero_fill(f, part) {
            pieces.push(Piece {
                start,
                len,
                value: part,
            });
        }
        start += len;
    }
    Some((axis, pieces))
}

/// Whether `v` is a fill with a zero constant.
fn is_zero_fill(f: &Function, v: Value) -> bool {
    let Some(od) = f.def_op(v) else {
        return false;
    };
    if od.kind != OpKind::Fill {
        return false;
    }
    match f.def_op(od.operands[0]).map(|c| &c.kind) {
        Some(OpKind::Const(ConstData::Float(x))) => x.iter().all(|&e| e == 0.0),
        Some(OpKind::Const(ConstData::Int(x))) => x.iter().all(|&e| e == 0),
        _ => false,
    }
}
