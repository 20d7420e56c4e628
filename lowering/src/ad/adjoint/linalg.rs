//! Adjoint of `np.matmul` with numpy's 1-D and batch rules: 1-D operands are
//! promoted to matrices (`(k,)` → `(1, k)` on the left, `(k, 1)` on the
//! right), the adjoint is reshaped to the promoted result, the matrix rules
//! `da = g @ bᵀ`, `db = aᵀ @ g` apply with batch broadcasting, and each
//! contribution is summed over broadcast batch axes and reshaped back.

use super::{unbroadcast, DenseGrads, Rule, RuleError};
use crate::builder::{BResult, Builder};
use agc_ir::{infer, Dim, Value};

/// Swaps the last two axes.
fn swap_last(b: &mut Builder, v: Value) -> BResult {
    let n = b.ty(v).rank();
    let mut perm: Vec<usize> = (0..n).collect();
    perm.swap(n - 2, n - 1);
    b.transpose(v, perm)
}

/// `a @ b`.
pub(crate) fn matmul(r: &mut Rule) -> Result<DenseGrads, RuleError> {
    let (a, bm, g) = (r.x[0], r.x[1], r.g);
    let (ta, tb) = (r.ty(a), r.ty(bm));
    let b = &mut r.b;
    let a2 = if ta.rank() == 1 {
        b.reshape(a, &[Dim::Static(1), ta.dims[0].clone()])?
    } else {
        a
    };
    let b2 = if tb.rank() == 1 {
        b.reshape(bm, &[tb.dims[0].clone(), Dim::Static(1)])?
    } else {
        bm
    };
    let (ta2, tb2) = (b.ty(a2), b.ty(b2));
    let y2 = infer::matmul(&ta2, &tb2)?;
    let g2 = b.reshape(g, &y2.dims)?;
    let da = r.when(0, |r| {
        let bt = swap_last(&mut r.b, b2)?;
        let d = r.b.matmul(g2, bt)?;
        let d = unbroadcast(&mut r.b, d, &ta2)?;
        Ok(r.b.reshape(d, &ta.dims)?)
    })?;
    let db = r.when(1, |r| {
        let at = swap_last(&mut r.b, a2)?;
        let d = r.b.matmul(at, g2)?;
        let d = unbroadcast(&mut r.b, d, &tb2)?;
        Ok(r.b.reshape(d, &tb.dims)?)
    })?;
    Ok(vec![da, db])
}
