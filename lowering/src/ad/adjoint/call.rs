//! Adjoint of `call`: a call of the callee's VJP function
//! `h.vjp(params.., adjoint of each float result..) -> adjoint of each float param`.
//!
//! The VJP is generated once per callee and cached *before* its body is
//! built, so a recursive callee gets a recursive VJP. Its body recomputes the
//! callee's forward pass (calls inside stay plain forward calls), seeds the
//! adjoints of the returned values, runs the backward pass, and returns the
//! adjoints of the float parameters (zeros for those nothing reached). In the
//! VJP every float parameter is active, whatever the caller's activity.

use super::super::clone::{clone_ops, split_region};
use super::super::context::{is_float, FnCx, ModCx, Mode, Scope};
use super::super::reverse::reverse_ops;
use super::super::AdError;
use agc_ir::{FuncId, Function, OpId, OpKind, RegionId, TensorType, Type, Value};

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
    let vjp = vjp_function(cx.mcx, callee)?;
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

/// The (cached) VJP function of `callee`.
fn vjp_function(mcx: &mut ModCx, callee: FuncId) -> Result<FuncId, AdError> {
    if let Some(&id) = mcx.vjps.get(&callee) {
        return Ok(id);
    }
    let h = mcx.src(callee)?;
    let id = mcx.reserve();
    mcx.vjps.insert(callee, id);
    let active = mcx.activity(callee, Mode::Vjp, &[])?;
    let (ops, rets) = split_region(h, h.body);
    let fres = float_positions(h, &rets);
    let fparams = float_positions(h, h.params());
    let mut params: Vec<(String, Type)> = h
        .param_names
        .iter()
        .cloned()
        .zip(h.params().iter().map(|&p| h.ty(p).clone()))
        .collect();
    params.extend(
        fres.iter()
            .map(|&i| (format!("adj_result{i}"), h.result_types[i].clone())),
    );
    let name = mcx.unique_name(&format!("{}.vjp", h.name));
    let mut g = Function::new(name, &params, h.span);
    g.result_types = fparams
        .iter()
        .map(|&i| h.ty(h.params()[i]).clone())
        .collect();
    let body = g.body;
    let gparams = g.params().to_vec();
    let mut cx = FnCx {
        mcx: &mut *mcx,
        src_id: callee,
        src: h,
        mode: Mode::Vjp,
        active,
        dst: &mut g,
    };
    let mut sc = Scope::default();
    for (&p, &q) in h.params().iter().zip(&gparams) {
        sc.fwd.insert(p, q);
    }
    clone_ops(&mut cx, body, &ops, &mut sc)?;
    for (k, &i) in fres.iter().enumerate() {
        cx.accumulate(
            body,
            h.span,
            &mut sc,
            rets[i],
            gparams[h.params().len() + k],
        )?;
    }
    reverse_ops(&mut cx, body, &ops, &mut sc)?;
    let outs: Vec<Value> = fparams
        .iter()
        .map(|&i| cx.adj_or_zeros(body, h.span, &sc, h.params()[i]))
        .collect();
    cx.builder(body, h.span).terminate(OpKind::Return, outs);
    mcx.define(id, g);
    Ok(id)
}
