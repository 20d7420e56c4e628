//! Adjoint of a strided slice (`x[a::s]`, `x[a::-s]`, `|s| > 1`) along a
//! run-time-sized axis: the adjoint's rows are spread `|s|` apart by
//! interleaving them with `|s| - 1` zero rows (a concat and a reshape), then
//! placed from the first selected row with the step-1 padding of
//! [`super::index::pad_rows`], which also cuts what runs past the end. A
//! negative step works on the reversed axis and reverses back.

use super::index::pad_rows;
use super::Rule;
use crate::builder::BResult;
use agc_ir::{infer, BinaryOp, CmpOp, Dim, SliceDim, TensorType, Value};

/// `::-1` along one axis.
const REVERSED: SliceDim = SliceDim {
    start: None,
    stop: None,
    step: -1,
};

/// The adjoint of `x[s]` along run-time-sized axis 0 of `x`'s type `full`
/// (axis moved to the front by the caller): `g` holds the selected rows.
pub(crate) fn expand_rows(
    r: &mut Rule,
    g: Value,
    full: &TensorType,
    n: Value,
    s: &SliceDim,
) -> BResult {
    let step = s.step.abs();
    let fresh = (r.mcx.fresh_sym(), r.mcx.fresh_sym());
    let b = &mut r.b;
    let t = b.ty(g);
    // Interleave: (m, ..) -> (m, 1, ..) ++ zeros (m, step-1, ..) -> (m*step, ..).
    let mut column = t.dims.clone();
    column.insert(1, Dim::Static(1));
    let col = b.reshape(g, &column)?;
    let mut gap = column.clone();
    gap[1] = Dim::Static(step - 1);
    let zeros = b.zeros(&TensorType::new(t.dtype, gap));
    let grid = b.concat(vec![col, zeros], 1)?;
    let mut spread = t.dims.clone();
    spread[0] = infer::dim_product(&[t.dims[0].clone(), Dim::Static(step)]);
    let spread = b.reshape(grid, &spread)?;
    // The first selected row, counted along the step's direction.
    let first = match (s.start, s.step > 0) {
        (Some(v), _) => b.index(v),
        (None, true) => b.index(0),
        (None, false) => b.index(-1),
    };
    let zero = b.index(0);
    let negative = b.compare(CmpOp::Lt, first, zero)?;
    let wrapped = b.add(first, n)?;
    let first = b.select(negative, wrapped, first)?;
    let start = if s.step > 0 {
        let lo = b.binary(BinaryOp::Max, first, zero)?;
        b.binary(BinaryOp::Min, lo, n)?
    } else {
        // Python clamps a negative step's start to [-1, n-1]; reversed, row n-1-start.
        let minus_one = b.index(-1);
        let one = b.index(1);
        let last = b.binary(BinaryOp::Sub, n, one)?;
        let lo = b.binary(BinaryOp::Max, first, minus_one)?;
        let clamped = b.binary(BinaryOp::Min, lo, last)?;
        b.binary(BinaryOp::Sub, last, clamped)?
    };
    let rows = b.dim(spread, 0);
    let stop = b.add(start, rows)?;
    let placed = pad_rows(b, spread, full, n, start, stop, fresh)?;
    if s.step > 0 {
        return Ok(placed);
    }
    let reversed = b.slice(
        placed,
        std::iter::once(REVERSED)
            .chain(vec![SliceDim::FULL; full.rank() - 1])
            .collect(),
    )?;
    // The same rows under the name of `x`'s dim.
    Ok(b.dyn_slice(reversed, zero, n, full.dims[0].clone()))
}
