//! Adjoint of a `call` that is not in CPS position (inside a loop's
//! backward function): a call of the callee's VJP function
//! `h.vjp(params.., adjoint of each float result..) -> adjoint of each float
//! param` ([`ModCx::vjp`](super::super::context::ModCx)), which runs the
//! callee's CPS form with a continuation returning the given adjoints. In
//! the VJP every float parameter is active, whatever the caller's activity.

use super::super::context::{is_float, FnCx, Scope};
use super::super::AdError;
use agc_ir::{FuncId, Function, OpId, RegionId, TensorType, Value};

/// Positions of the float values among `vs` of `f`.
fn float_positions(f: &Function, vs: &[Value]) -> Vec<usize> {
    (0..vs.len())
        .filter(|&i| is_float(f.ty(vs[i]).tensor()))
        .collect()
}

/// Emits the backward pass of source call `op` of `callee` at the end of `region`.
pub(crate) fn reverse_call(
    cx: &mut FnCx,
    region: RegionId,
    op: OpId,
    callee: FuncId,
    sc: &mut Scope,
) -> Result<(), AdError> {
    let src = cx.src;
    let od = src.op(op);
    let span = od.span;
    let h = cx.mcx.src(callee)?;
    let fparams = float_positions(h, h.params());
    if !fparams.iter().any(|&i| cx.needs_adj(od.operands[i])) {
        return Ok(());
    }
    let vjp = cx.mcx.vjp(callee)?;
    let mut args = od
        .operands
        .iter()
        .map(|&v| cx.fwd(sc, v, span))
        .collect::<Result<Vec<_>, _>>()?;
    for i in float_positions(src, &od.results) {
        args.push(cx.adj_or_zeros(region, span, sc, od.results[i]));
    }
    let types: Vec<TensorType> = fparams.iter().map(|&i| cx.src_ty(od.operands[i])).collect();
    let grads = cx.builder(region, span).call(vjp, args, types);
    for (&i, g) in fparams.iter().zip(grads) {
        cx.accumulate(region, span, sc, od.operands[i], g)?;
    }
    Ok(())
}
