//! Adjoint of `if`: an `if` on the same condition whose branches recompute
//! their forward ops, run their adjoints seeded with the adjoints of the
//! `if`'s results, add their contributions to the adjoints of the active
//! values they read from outside (as accumulated so far), and yield those
//! either branch changed (a branch that contributes nothing yields what came
//! in; zeros only where nothing came in). The yields replace the adjoints
//! outside.
//!
//! Recomputing instead of yielding the branch intermediates out of the
//! forward `if` keeps the forward pass unchanged and needs no placeholder
//! values for the branch not taken.

use super::super::clone::{clone_ops, split_region};
use super::super::context::{FnCx, Scope};
use super::super::reverse::reverse_ops;
use super::super::sparse::Adj;
use super::super::AdError;
use agc_ir::{OpId, OpKind, RegionId, TensorType, Value};
use std::collections::HashMap;

/// Emits the backward pass of source `if` op `op` at the end of `region`.
pub(crate) fn reverse_if(
    cx: &mut FnCx,
    region: RegionId,
    op: OpId,
    sc: &mut Scope,
) -> Result<(), AdError> {
    let od = cx.src.op(op);
    if !cx
        .src
        .free_values(&od.regions)
        .into_iter()
        .any(|v| cx.needs_adj(v))
    {
        return Ok(());
    }
    let span = od.span;
    let seeds: Vec<Option<Value>> = od
        .results
        .iter()
        .map(|&r| cx.adj(region, span, sc, r))
        .collect();
    adjoint_if(cx, region, op, &[], sc, |cx, nr, r, inner| {
        let (ops, yields) = split_region(cx.src, r);
        clone_ops(cx, nr, &ops, inner)?;
        for (seed, y) in seeds.iter().zip(&yields) {
            if let Some(g) = *seed {
                cx.accumulate(nr, span, inner, *y, g)?;
            }
        }
        reverse_ops(cx, nr, &ops, inner)
    })
}

/// An `if` on the condition of source `if` op `op` whose branches `fill`
/// builds (given the new region, the source region and a scope seeing the
/// forward values and the adjoints outside) and then yield the adjoints
/// that either branch changed, of the active values the source branches
/// read from outside and of `handed` (values whose accumulated adjoints the
/// branches receive); those replace theirs. A branch that does not touch
/// an adjoint yields it as it came in (zeros only where none came in), and
/// an adjoint neither branch touches is not yielded at all.
pub(crate) fn adjoint_if(
    cx: &mut FnCx,
    region: RegionId,
    op: OpId,
    handed: &[Value],
    sc: &mut Scope,
    mut fill: impl FnMut(&mut FnCx, RegionId, RegionId, &mut Scope) -> Result<(), AdError>,
) -> Result<(), AdError> {
    let src = cx.src;
    let od = src.op(op);
    let span = od.span;
    let mut free: Vec<Value> = src
        .free_values(&od.regions)
        .into_iter()
        .filter(|&v| cx.needs_adj(v))
        .collect();
    for &v in handed {
        if !free.contains(&v) {
            free.push(v);
        }
    }
    let cond = cx.fwd(sc, od.operands[0], span)?;
    let incoming: HashMap<Value, Adj> = free
        .iter()
        .filter_map(|v| sc.adj.get(v).map(|a| (*v, a.clone())))
        .collect();
    let mut built = Vec::new();
    for &r in &od.regions {
        let nr = cx.dst.new_region(&[]);
        let mut inner = Scope {
            fwd: sc.fwd.clone(),
            adj: incoming.clone(),
        };
        fill(cx, nr, r, &mut inner)?;
        built.push((nr, inner));
    }
    free.retain(|v| {
        built
            .iter()
            .any(|(_, inner)| !Adj::same(incoming.get(v), inner.adj.get(v)))
    });
    let mut branches = Vec::new();
    for (nr, mut inner) in built {
        let outs: Vec<Value> = free
            .iter()
            .map(|&v| cx.adj_or_zeros(nr, span, &mut inner, v))
            .collect();
        cx.builder(nr, span).terminate(OpKind::Yield, outs);
        branches.push(nr);
    }
    let types: Vec<TensorType> = free.iter().map(|&v| cx.src_ty(v)).collect();
    let grads = cx
        .builder(region, span)
        .op(OpKind::If, vec![cond], types, branches);
    for (v, g) in free.into_iter().zip(grads) {
        sc.adj.insert(v, Adj::Dense(g));
    }
    Ok(())
}
