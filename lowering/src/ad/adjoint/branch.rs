//! Adjoint of `if`: an `if` on the same condition whose branches recompute
//! their forward ops, run their adjoints seeded with the adjoints of the
//! `if`'s results, and yield the adjoints of the active values they read from
//! outside (zeros for those a branch does not touch). Those yields are then
//! added to the adjoints outside.
//!
//! Recomputing instead of yielding the branch intermediates out of the
//! forward `if` keeps the forward pass unchanged and needs no placeholder
//! values for the branch not taken.

use super::super::clone::{clone_ops, free_values, split_region};
use super::super::context::{FnCx, Scope};
use super::super::reverse::reverse_ops;
use super::super::AdError;
use agc_ir::{OpId, OpKind, RegionId, TensorType, Value};

/// Emits the backward pass of source `if` op `op` at the end of `region`.
pub(crate) fn reverse_if(
    cx: &mut FnCx,
    region: RegionId,
    op: OpId,
    sc: &mut Scope,
) -> Result<(), AdError> {
    let src = cx.src;
    let od = src.op(op);
    let span = od.span;
    let free: Vec<Value> = free_values(src, &od.regions)
        .into_iter()
        .filter(|&v| cx.needs_adj(v))
        .collect();
    if free.is_empty() {
        return Ok(());
    }
    let cond = cx.fwd(sc, od.operands[0], span)?;
    let mut branches = Vec::new();
    for &r in &od.regions {
        let nr = cx.dst.new_region(&[]);
        let mut inner = Scope {
            fwd: sc.fwd.clone(),
            adj: Default::default(),
        };
        let (ops, yields) = split_region(src, r);
        clone_ops(cx, nr, &ops, &mut inner)?;
        for (res, y) in od.results.iter().zip(&yields) {
            if let Some(&g) = sc.adj.get(res) {
                cx.accumulate(nr, span, &mut inner, *y, g)?;
            }
        }
        reverse_ops(cx, nr, &ops, &mut inner)?;
        let outs: Vec<Value> = free
            .iter()
            .map(|&v| cx.adj_or_zeros(nr, span, &inner, v))
            .collect();
        cx.builder(nr, span).terminate(OpKind::Yield, outs);
        branches.push(nr);
    }
    let types: Vec<TensorType> = free.iter().map(|&v| cx.src_ty(v)).collect();
    let grads = cx
        .builder(region, span)
        .op(OpKind::If, vec![cond], types, branches);
    for (v, g) in free.into_iter().zip(grads) {
        cx.accumulate(region, span, sc, v, g)?;
    }
    Ok(())
}
