//! Adjoint of a `call` that is not in CPS position (inside a loop's
//! backward function, or in direct style): a call of the VJP function of
//! the call's spec, `h.vjp(params.., adjoints of the active results..) ->
//! adjoints of the parameters the spec marks`
//! ([`ModCx::vjp`](super::super::context::ModCx)), which runs the callee's
//! CPS form with a continuation returning the given adjoints.

use super::super::context::{FnCx, Scope};
use super::super::cps::marked;
use super::super::AdError;
use agc_ir::{OpId, RegionId, TensorType};

/// Emits the backward pass of source call `op` at the end of `region`.
pub(crate) fn reverse_call(
    cx: &mut FnCx,
    region: RegionId,
    op: OpId,
    sc: &mut Scope,
) -> Result<(), AdError> {
    let od = cx.src.op(op);
    let span = od.span;
    let spec = cx.call_spec(op);
    if !spec.params.contains(&true) {
        return Ok(());
    }
    let (params, results) = (
        marked(&od.operands, &spec.params),
        marked(&od.results, &spec.results),
    );
    let vjp = cx.mcx.vjp(spec)?;
    let mut args = od
        .operands
        .iter()
        .map(|&v| cx.fwd(sc, v, span))
        .collect::<Result<Vec<_>, _>>()?;
    for v in results {
        args.push(cx.adj_or_zeros(region, span, sc, v));
    }
    let types: Vec<TensorType> = params.iter().map(|&v| cx.src_ty(v)).collect();
    let grads = cx.builder(region, span).call(vjp, args, types);
    for (v, g) in params.into_iter().zip(grads) {
        cx.accumulate(region, span, sc, v, g)?;
    }
    Ok(())
}
