//! Adjoints of reductions: `sum` broadcasts the adjoint back; `max`/`min`
//! share it equally among the tied extrema (JAX's and autograd's rule);
//! `prod` gives each element the product of the others, exactly, even with
//! zeros (no division by zero: one zero gets the product of the rest, two or
//! more zeros give zero everywhere).

use super::{DenseGrads, Rule, RuleError};
use agc_ir::{BinaryOp, CmpOp, Dim, ReduceKind, Value};

/// `reduce.<kind>(x, axes)`; with or without `keepdims`, the adjoint is
/// first reshaped to the kept shape.
pub(crate) fn reduce(
    r: &mut Rule,
    kind: ReduceKind,
    axes: &[usize],
) -> Result<DenseGrads, RuleError> {
    let dx = r.when(0, |r| {
        let (x, y, g) = (r.x[0], r.y, r.g);
        let tx = r.ty(x);
        let kept: Vec<Dim> = tx
            .dims
            .iter()
            .enumerate()
            .map(|(i, d)| {
                if axes.contains(&i) {
                    Dim::Static(1)
                } else {
                    d.clone()
                }
            })
            .collect();
        let b = &mut r.b;
        let gk = b.reshape(g, &kept)?;
        let dt = tx.dtype;
        let d: Value = match kind {
            ReduceKind::Sum => b.broadcast_to(gk, &tx.dims)?,
            ReduceKind::Max | ReduceKind::Min => {
                let yk = b.reshape(y, &kept)?;
                let hit = b.compare(CmpOp::Eq, x, yk)?;
                let mask = b.cast(hit, dt);
                let count = b.reduce(ReduceKind::Sum, mask, axes.to_vec(), true);
                let share = b.binary(BinaryOp::Div, gk, count)?;
                b.mul(share, mask)?
            }
            ReduceKind::Prod => {
                let (zero, one) = (b.scalar(dt, 0.0), b.scalar(dt, 1.0));
                let z = b.compare(CmpOp::Eq, x, zero)?;
                let safe = b.select(z, one, x)?;
                let nonzero_prod = b.reduce(ReduceKind::Prod, safe, axes.to_vec(), true);
                let zf = b.cast(z, dt);
                let zeros = b.reduce(ReduceKind::Sum, zf, axes.to_vec(), true);
                let no_zero = b.compare(CmpOp::Eq, zeros, zero)?;
                let one_zero = b.compare(CmpOp::Eq, zeros, one)?;
                let the_zero = b.binary(BinaryOp::And, z, one_zero)?;
                let others = b.binary(BinaryOp::Div, nonzero_prod, safe)?;
                let at_zero = b.select(the_zero, nonzero_prod, zero)?;
                let d = b.select(no_zero, others, at_zero)?;
                b.mul(gk, d)?
            }
        };
        Ok(d)
    })?;
    Ok(vec![dx])
}
