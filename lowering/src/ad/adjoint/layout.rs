//! Adjoints of layout ops: reshape, transpose, broadcast_to, concat, slice.
//!
//! `concat` slices the adjoint back into pieces (static `slice` when every
//! offset is known, else `dyn_slice` on the axis moved to the front, with
//! offsets from `dim`). `slice` scatters the adjoint into zeros axis by
//! axis: step 1 pads with zero blocks through `concat`; other steps on a
//! static axis multiply by a constant 0/1 selection matrix; step 1 on a
//! run-time-sized axis pads as the `dyn_slice` adjoint does (with the bounds
//! clamped at run time); `::-1` is its own adjoint. Other steps on
//! run-time-sized axes are not supported yet.

use super::index::pad_rows;
use super::{unbroadcast, DenseGrads, Rule, RuleError};
use crate::builder::{BResult, Builder};
use agc_ir::{ConstData, Dim, OpKind, SliceDim, TensorType, Value};

/// Rules of the layout family.
pub(crate) fn apply(r: &mut Rule, kind: &OpKind) -> Result<DenseGrads, RuleError> {
    let tx = r.ty(r.x[0]);
    Ok(match kind {
        OpKind::Reshape => vec![r.when(0, |r| Ok(r.b.reshape(r.g, &tx.dims)?))?],
        OpKind::Transpose { perm } => {
            let inv = inverse(perm);
            vec![r.when(0, |r| Ok(r.b.transpose(r.g, inv)?))?]
        }
        OpKind::BroadcastTo => vec![r.when(0, |r| Ok(unbroadcast(&mut r.b, r.g, &tx)?))?],
        OpKind::Concat { axis } => concat(r, *axis)?,
        OpKind::Slice { dims } => vec![r.when(0, |r| slice(r, dims))?],
        _ => {
            return Err(RuleError::Unsupported(format!(
                "`{}` is not a layout op",
                kind.name()
            )))
        }
    })
}

/// The inverse of a permutation.
fn inverse(perm: &[usize]) -> Vec<usize> {
    let mut inv = vec![0; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        inv[p] = i;
    }
    inv
}

/// The permutation that moves `axis` to the front.
fn to_front(rank: usize, axis: usize) -> Vec<usize> {
    std::iter::once(axis)
        .chain((0..rank).filter(|&i| i != axis))
        .collect()
}

fn concat(r: &mut Rule, axis: usize) -> Result<DenseGrads, RuleError> {
    let types: Vec<TensorType> = r.x.iter().map(|&v| r.ty(v)).collect();
    let sizes: Option<Vec<i64>> = types.iter().map(|t| t.dims[axis].as_static()).collect();
    let rank = types[0].rank();
    let g = r.g;
    let mut out = Vec::new();
    match sizes {
        Some(sizes) => {
            let mut off = 0;
            for (i, n) in sizes.into_iter().enumerate() {
                out.push(r.when(i, |r| {
                    let mut dims = vec![SliceDim::FULL; rank];
                    dims[axis] = SliceDim {
                        start: Some(off),
                        stop: Some(off + n),
                        step: 1,
                    };
                    Ok(r.b.slice(g, dims)?)
                })?);
                off += n;
            }
        }
        None => {
            let perm = to_front(rank, axis);
            let gt = r.b.transpose(g, perm.clone())?;
            let mut off = r.b.index(0);
            for (i, t) in types.iter().enumerate() {
                let n = r.b.dim(r.x[i], axis);
                let stop = r.b.add(off, n)?;
                out.push(r.when(i, |r| {
                    let piece = r.b.dyn_slice(gt, off, stop, t.dims[axis].clone());
                    Ok(r.b.transpose(piece, inverse(&perm))?)
                })?);
                off = stop;
            }
        }
    }
    Ok(out)
}

fn slice(r: &mut Rule, dims: &[SliceDim]) -> Result<Value, RuleError> {
    let tx = r.ty(r.x[0]);
    let mut cur = r.g;
    for (axis, s) in dims.iter().enumerate() {
        if s.is_full() {
            continue;
        }
        cur = match &tx.dims[axis] {
            Dim::Static(n) => expand_static(&mut r.b, cur, axis, *n, s)?,
            _ => expand_run_time(r, cur, axis, s)?,
        };
    }
    Ok(cur)
}

/// `::-1`, its own adjoint.
const REVERSED: SliceDim = SliceDim {
    start: None,
    stop: None,
    step: -1,
};

/// Pads `cur` (sliced along the run-time-sized `axis`) with zero blocks,
/// through the `dyn_slice` adjoint on the axis moved to the front; or
/// reverses it back (`::-1`); or spreads it out first (other steps, see
/// [`super::strided`]).
fn expand_run_time(r: &mut Rule, cur: Value, axis: usize, s: &SliceDim) -> BResult {
    let x = r.x[0];
    let tx = r.ty(x);
    let t = r.b.ty(cur);
    let perm = to_front(t.rank(), axis);
    let front = r.b.transpose(cur, perm.clone())?;
    let mut full = r.b.ty(front);
    full.dims[0] = tx.dims[axis].clone();
    let n = r.b.dim(x, axis);
    if s.step != 1 && *s != REVERSED {
        let spread = super::strided::expand_rows(r, front, &full, n, s)?;
        return r.b.transpose(spread, inverse(&perm));
    }
    let fresh = (r.mcx.fresh_sym(), r.mcx.fresh_sym());
    let b = &mut r.b;
    if *s == REVERSED {
        let rev = b.slice(
            front,
            std::iter::once(REVERSED)
                .chain(vec![SliceDim::FULL; t.rank() - 1])
                .collect(),
        )?;
        let zero = b.index(0);
        // The same rows under the name of `x`'s dim.
        let back = b.dyn_slice(rev, zero, n, full.dims[0].clone());
        return b.transpose(back, inverse(&perm));
    }
    let start = match s.start {
        Some(v) => b.index(v),
        None => b.index(0),
    };
    let stop = match s.stop {
        Some(v) => b.index(v),
        None => n,
    };
    let padded = pad_rows(b, front, &full, n, start, stop, fresh)?;
    b.transpose(padded, inverse(&perm))
}

/// Scatters `cur` (sliced along static `axis` of size `n` by `s`) into zeros.
fn expand_static(b: &mut Builder, cur: Value, axis: usize, n: i64, s: &SliceDim) -> BResult {
    let t = b.ty(cur);
    let len = s.len_for(n);
    let (start, _) = s.bounds_for(n);
    let with = |k: i64| {
        let mut d = t.dims.clone();
        d[axis] = Dim::Static(k);
        TensorType::new(t.dtype, d)
    };
    if len == 0 {
        return Ok(b.zeros(&with(n)));
    }
    if s.step == 1 {
        let mut parts = Vec::new();
        if start > 0 {
            parts.push(b.zeros(&with(start)));
        }
        parts.push(cur);
        if n - start - len > 0 {
            parts.push(b.zeros(&with(n - start - len)));
        }
        return b.concat(parts, axis);
    }
    // Selection matrix P[j, start + j*step] = 1, applied along the last axis.
    let mut p = vec![0.0; (len * n) as usize];
    for j in 0..len {
        p[(j * n + start + j * s.step) as usize] = 1.0;
    }
    let pt = TensorType::static_shape(t.dtype, &[len, n]);
    let pm = b.op1(
        OpKind::Const(ConstData::Float(p).cast(t.dtype)),
        Vec::new(),
        pt,
    );
    let rank = t.rank();
    let perm: Vec<usize> = (0..rank)
        .filter(|&i| i != axis)
        .chain(std::iter::once(axis))
        .collect();
    let moved = b.transpose(cur, perm.clone())?;
    let spread = b.matmul(moved, pm)?;
    b.transpose(spread, inverse(&perm))
}
