//! Adjoints of run-time indexing: `dyn_index` contributes its adjoint as
//! rows of the source's adjoint, added with `dyn_update_add` (see
//! [`super::super::sparse`]); `dyn_slice` pads its adjoint with zero rows above
//! and below (sizes from the same clamped bounds as Python's slice);
//! `dyn_update` routes the adjoint of the written part to the value and the
//! rest to the tensor.

use super::super::sparse::{Contribution, Place, Rows};
use super::{unbroadcast, Grads, Rule, RuleError};
use crate::builder::{BResult, Builder};
use agc_ir::{BinaryOp, CmpOp, Dim, OpKind, TensorType, Value};

/// Rules of the run-time indexing family.
pub(crate) fn apply(r: &mut Rule, kind: &OpKind) -> Result<Grads, RuleError> {
    let (x, g) = (r.x[0], r.g);
    let tx = r.ty(x);
    match *kind {
        OpKind::DynIndex { axes } => {
            let idx = r.x[1..=axes].to_vec();
            let dx = r.want[0].then_some(Contribution::Rows(Rows {
                rows: g,
                place: Place::Index(idx),
            }));
            Ok(std::iter::once(dx).chain((0..axes).map(|_| None)).collect())
        }
        OpKind::DynSlice => {
            let (start, stop) = (r.x[1], r.x[2]);
            let dx = r.when(0, |r| dyn_slice(r, start, stop))?;
            Ok(vec![dx.map(Contribution::Dense), None, None])
        }
        OpKind::DynUpdate { axes, accumulate } => {
            let v = r.x[1];
            let idx = r.x[2..2 + axes].to_vec();
            let dx = r.when(0, |r| {
                if accumulate {
                    return Ok(g);
                }
                let zero = r.b.scalar(tx.dtype, 0.0);
                Ok(r.b.dyn_update(g, zero, &idx, false))
            })?;
            let dv = r.when(1, |r| {
                let tv = r.ty(v);
                let part = r.b.dyn_index(g, &idx);
                Ok(unbroadcast(&mut r.b, part, &tv)?)
            })?;
            Ok([dx, dv]
                .into_iter()
                .map(|d| d.map(Contribution::Dense))
                .chain(idx.iter().map(|_| None))
                .collect())
        }
        _ => Err(RuleError::Unsupported(format!(
            "`{}` is not an indexing op",
            kind.name()
        ))),
    }
}

/// Python's `slice.indices(n)` for a step-1 bound: `min(max(v < 0 ? v + n : v, 0), n)`.
fn clamp_bound(b: &mut Builder, v: Value, n: Value) -> BResult {
    let zero = b.index(0);
    let neg = b.compare(CmpOp::Lt, v, zero)?;
    let shifted = b.add(v, n)?;
    let norm = b.select(neg, shifted, v)?;
    let lo = b.binary(BinaryOp::Max, norm, zero)?;
    b.binary(BinaryOp::Min, lo, n)
}

/// `x[start:stop]` along axis 0: zeros of `x`'s type with the adjoint in rows `start..stop`.
fn dyn_slice(r: &mut Rule, start: Value, stop: Value) -> Result<Value, RuleError> {
    let (x, g) = (r.x[0], r.g);
    let tx = r.ty(x);
    let fresh = (r.mcx.fresh_sym(), r.mcx.fresh_sym());
    let n = r.b.dim(x, 0);
    Ok(pad_rows(&mut r.b, g, &tx, n, start, stop, fresh)?)
}

/// The adjoint of `x[start:stop]` (step 1, Python's clamping) along axis 0
/// of a tensor of type `full` with `n` rows: `g` between zero blocks, whose
/// run-time sizes are named by the two `fresh` dims.
pub(crate) fn pad_rows(
    b: &mut Builder,
    g: Value,
    full: &TensorType,
    n: Value,
    start: Value,
    stop: Value,
    fresh: (Dim, Dim),
) -> BResult {
    let s = clamp_bound(b, start, n)?;
    let e = clamp_bound(b, stop, n)?;
    let e = b.binary(BinaryOp::Max, e, s)?;
    let zero = b.index(0);
    let z = b.zeros(full);
    let before = b.dyn_slice(z, zero, s, fresh.0);
    let after = b.dyn_slice(z, e, n, fresh.1);
    let whole = b.concat(vec![before, g, after], 0)?;
    // Back to the full type: the same rows, under the name of its first dim.
    Ok(b.dyn_slice(whole, zero, n, full.dims[0].clone()))
}
