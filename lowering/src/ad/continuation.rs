//! The continuation of an op in CPS form ([`super::cps`]): a function
//! `K(captures.., k, results..)` running the rest of the op list in CPS
//! form, closed over the values it reads.
//!
//! `K` returns the adjoints of the op's results its consumer wants, then
//! the accumulated adjoints it hands to its consumer (the callee, the
//! branches of an `if`, a loop), and *outputs* the accumulated adjoints of
//! the other values to the function that made it (`cont_outputs`): those
//! of the active values it reads and of the values whose accumulated
//! adjoints the outer continuation returns ([`Exit::acc`]). Both lists are
//! known once `K`'s body is built, and hold only the values `K` has an
//! adjoint for: an adjoint that is zero because nothing after the op
//! contributes to it is neither materialised nor passed.

use super::context::{FnCx, Scope};
use super::cps::{cont_type, cps_ops, Exit};
use super::dim_witness::{dim_witnesses, dominating_values};
use super::AdError;
use agc_ir::{Function, OpId, OpKind, RegionId, Type, Value};
use std::collections::{BTreeSet, HashSet};

/// The values whose accumulated adjoints the continuation of an op with
/// `results`, running `rest` then `exit`, produces: the active values
/// `rest` reads from outside, then those of `exit.acc`.
pub(crate) fn accumulated(cx: &FnCx, rest: &[OpId], exit: Exit, results: &[Value]) -> Vec<Value> {
    let mut vals: Vec<Value> = free_values_of_ops(cx.src, rest, exit.rets, results)
        .into_iter()
        .filter(|&v| cx.needs_adj(v))
        .collect();
    for &v in exit.acc {
        if !vals.contains(&v) {
            vals.push(v);
        }
    }
    vals
}

/// The op a continuation follows and what its consumer may take from it.
#[derive(Clone, Copy)]
pub(crate) struct After<'a> {
    /// The op (a call, an `if`, a `while`).
    pub op: OpId,
    /// The ops after it, up to the exit.
    pub rest: &'a [OpId],
    /// Which of the op's results get adjoints from the continuation.
    pub res_adj: &'a [bool],
    /// The values whose accumulated adjoints the consumer can take.
    pub offered: &'a [Value],
    /// The consumer takes them all (zeros where `K` has none), not only
    /// those `K` has.
    pub take_all: bool,
}

/// A continuation made by [`continuation`].
pub(crate) struct Made {
    /// The closure (a value of the function being built).
    pub k: Value,
    /// The offered values whose accumulated adjoints it returns, in order.
    pub handed: Vec<Value>,
    /// The values whose accumulated adjoints it outputs.
    pub outputs: Vec<Value>,
}

/// Makes the continuation of `after.op` in `region`: a function `K` for
/// `after.rest` then `exit`, closed over what it reads, returning the
/// adjoints of the results `after.res_adj` marks, then the accumulated
/// adjoints of the offered values it has one for (of all of them with
/// `after.take_all`), once each, and outputting those of the other values
/// it has one for.
pub(crate) fn continuation(
    cx: &mut FnCx,
    region: RegionId,
    after: After,
    exit: Exit,
    sc: &Scope,
) -> Result<Made, AdError> {
    let After {
        op,
        rest,
        res_adj,
        offered,
        take_all,
    } = after;
    let src = cx.src;
    let od = src.op(op);
    let results = od.results.clone();
    // Also the values whose accumulated adjoints the outer continuation
    // returns (applying it takes their sizes), and those `K` may return
    // zeros for.
    let mut captures = free_values_of_ops(src, rest, exit.rets, &results);
    captures.extend(exit.acc);
    if take_all {
        captures.extend(offered);
    }
    captures.sort();
    captures.dedup();
    // And a witness of each symbolic size `K` makes but receives no tensor of.
    let visible: Vec<Value> = dominating_values(src, op)
        .into_iter()
        .filter(|v| sc.fwd.contains_key(v))
        .collect();
    let bound: Vec<Value> = captures.iter().chain(&results).copied().collect();
    captures.extend(dim_witnesses(src, rest, &bound, &visible));
    let outer = cx.dst.ty(exit.k).clone();

    let mut params: Vec<(String, Type)> = captures
        .iter()
        .map(|&v| (format!("capture{}", v.index()), src.ty(v).clone()))
        .collect();
    params.push(("k".into(), outer));
    params.extend(
        results
            .iter()
            .map(|&v| (format!("arg{}", v.index()), src.ty(v).clone())),
    );
    let name = cx.mcx.unique_name(&format!("{}.k", src.name));
    let mut kf = Function::new(name, &params, od.span);
    let id = cx.mcx.reserve();
    let body = kf.body;
    let kparams = kf.params().to_vec();
    let mut kcx = FnCx {
        mcx: &mut *cx.mcx,
        src_id: cx.src_id,
        src,
        spec: cx.spec.clone(),
        active: cx.active.clone(),
        dst: &mut kf,
    };
    let mut ksc = Scope::default();
    let n = captures.len();
    for (&v, &p) in captures.iter().zip(&kparams) {
        ksc.fwd.insert(v, p);
    }
    for (&v, &p) in results.iter().zip(&kparams[n + 1..]) {
        ksc.fwd.insert(v, p);
    }
    let kexit = Exit {
        k: kparams[n],
        ..exit
    };
    cps_ops(&mut kcx, body, rest, kexit, &mut ksc)?;
    let mut handed: Vec<Value> = Vec::new();
    for &v in offered {
        if (take_all || ksc.adj.contains_key(&v)) && !handed.contains(&v) {
            handed.push(v);
        }
    }
    let outputs: Vec<Value> = accumulated(&kcx, rest, exit, &results)
        .into_iter()
        .filter(|v| ksc.adj.contains_key(v) && !handed.contains(v))
        .collect();
    let mut outs = Vec::new();
    for (&v, _) in results.iter().zip(res_adj).filter(|(_, &on)| on) {
        outs.push(kcx.adj_or_zeros(body, od.span, &mut ksc, v));
    }
    for &v in handed.iter().chain(&outputs) {
        outs.push(kcx.adj_or_zeros(body, od.span, &mut ksc, v));
    }
    kcx.builder(body, od.span).terminate(OpKind::Return, outs);
    let ct = cont_type(src, &results, res_adj, &handed);
    kf.result_types = ct.results.iter().cloned().map(Type::Tensor).collect();
    kf.result_types
        .extend(outputs.iter().map(|&v| src.ty(v).clone()));
    cx.mcx.define(id, kf);

    let mut operands = captures
        .iter()
        .map(|&v| cx.fwd(sc, v, od.span))
        .collect::<Result<Vec<_>, _>>()?;
    operands.push(exit.k);
    let (_, kk) = cx.dst.append_op(
        region,
        OpKind::MakeCont { func: id },
        operands,
        vec![Type::Cont(ct)],
        Vec::new(),
        od.span,
    );
    Ok(Made {
        k: kk[0],
        handed,
        outputs,
    })
}

/// The source values `ops` (at any depth) and `rets` read that are defined
/// neither by them nor in `bound`, in value order.
fn free_values_of_ops(f: &Function, ops: &[OpId], rets: &[Value], bound: &[Value]) -> Vec<Value> {
    let mut defined: HashSet<Value> = bound.iter().copied().collect();
    let mut used: BTreeSet<Value> = rets.iter().copied().collect();
    let mut stack: Vec<OpId> = ops.to_vec();
    while let Some(op) = stack.pop() {
        let od = f.op(op);
        used.extend(od.operands.iter().copied());
        defined.extend(od.results.iter().copied());
        for &r in &od.regions {
            defined.extend(f.region(r).params.iter().copied());
            stack.extend(f.region(r).ops.iter().copied());
        }
    }
    used.into_iter().filter(|v| !defined.contains(v)).collect()
}
