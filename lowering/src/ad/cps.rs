//! Reverse mode in continuation-passing style, as in Lantern: a function
//! `h` becomes `h.cps(params.., k) -> adjoints of its params`, which runs
//! its forward pass, applies the continuation `k` (the rest of the program,
//! forward and backward) to its results, receives their adjoints from `k`,
//! and then runs its own backward pass, with its intermediates still in its
//! stack frame.
//!
//! A list of ops is split at the first op that calls such a function (a
//! `call` whose spec computes adjoints, see [`super::activity`], or an
//! `if` or a loop with one inside):
//!
//! ```text
//! pre; r = op(..); rest; apply k(rets)     becomes
//!
//! pre                                      // forward
//! kk = cont @K(captures.., k)              // "rest; apply k", a closure
//! d_args = h.cps(args.., kk)               // or: if c { branch(kk) } else { .. }
//! d_captures = cont_outputs kk
//! backward of pre
//! ```
//!
//! where `K(captures.., k, r) -> (adjoint of r, adjoints of the captures)`
//! (of the active ones only) is `rest` in CPS form again
//! ([`super::continuation`]), so every call in `rest` nests one frame
//! deeper. Both branches of an `if` receive the same continuation. The
//! captures of `kk` live in an environment record in the frame of the
//! function that makes it (backends: see `agc-backend`), which stays
//! alive until `h.cps` returns, after `K` ran: no tape, the native stack
//! holds every intermediate, and each forward op runs once.
//!
//! # Accumulated adjoints travel with the continuation
//!
//! The continuation of `h.cps` returns, besides the adjoints of `h`'s
//! results, the adjoints of (some of) `h`'s active parameters accumulated
//! by the rest of the program, and `h.cps` returns them with its own
//! contributions added: Lantern's mutable adjoint cells, passed along instead of mutated.
//! The adjoint of a parameter passed down a recursion is then one buffer
//! that every node updates in turn (in place where its contributions are
//! rows of a gather, [`super::sparse`]), not a tensor per node that the
//! parent adds to its own. The same holds for `K`: it returns to whoever
//! applies it (the callee, the branches of the `if`, the loop) the
//! accumulated adjoints it can hand on (of the call's operands, of every
//! value for an `if`, of the loop's free values), and outputs the others
//! to the function that made it.
//!
//! Which accumulated adjoints a continuation returns is a property of the
//! callee's [`Spec`] (`acc`), decided where the continuation is made:
//! zero adjoints are symbolic, neither materialised nor passed, so `K`
//! returns only those its code has (and outputs only those), and the
//! accumulation of an adjoint starts where its first contribution is. A
//! recursive callee and a loop take every adjoint they can, `K` returning
//! zeros for those it has none of (once, where the recursion or the loop
//! is entered), so that a recursion has one specialisation and a loop one
//! function; the seed continuation of `value_and_grad` returns only the
//! result's adjoint.
//!
//! Loops keep their own scheme ([`super::adjoint::loops`]); a call inside a
//! loop's `before` region is differentiated through [`ModCx::vjp`],
//! `h.cps` with a continuation that returns the given adjoints.
//!
//! [`ModCx::vjp`]: super::context::ModCx::vjp

use super::activity::Spec;
use super::clone::{clone_ops, split_region};
use super::context::{FnCx, Scope};
use super::continuation::{accumulated, continuation, After, Made};
use super::reverse::reverse_ops;
use super::AdError;
use agc_ir::{ContType, Function, OpId, OpKind, RegionId, Span, TensorType, Type, Value};

/// How a list of ops in CPS form ends: `apply k` to the forward values of
/// source values `rets`; `k` returns the adjoints of those `adj` marks,
/// then the accumulated adjoints of the source values `acc`.
#[derive(Clone, Copy)]
pub(crate) struct Exit<'a> {
    /// The source values `k` is applied to.
    pub rets: &'a [Value],
    /// Which of them `k` returns adjoints for.
    pub adj: &'a [bool],
    /// The values whose adjoints, accumulated after this point, `k` returns.
    pub acc: &'a [Value],
    /// The continuation (a value of the function being built).
    pub k: Value,
}

/// Emits at the end of `region` the CPS code of source `ops` followed by
/// `exit`: forward, application, backward. Afterwards `sc.adj` holds the
/// adjoints of the values the ops read from outside, and of `exit.acc`.
pub(crate) fn cps_ops(
    cx: &mut FnCx,
    region: RegionId,
    ops: &[OpId],
    exit: Exit,
    sc: &mut Scope,
) -> Result<(), AdError> {
    let Some(i) = ops.iter().position(|&op| needs_cps(cx, op)) else {
        clone_ops(cx, region, ops, sc)?;
        apply(cx, region, exit, sc)?;
        return reverse_ops(cx, region, ops, sc);
    };
    let (pre, op, rest) = (&ops[..i], ops[i], &ops[i + 1..]);
    clone_ops(cx, region, pre, sc)?;
    let od = cx.src.op(op);
    // A recursive callee and a loop take every accumulated adjoint they
    // can (one specialisation of the callee, one loop function), zeros
    // where the accumulation starts; the branches of an `if`, and other
    // callees, those that are not zero.
    let (spec, res_adj, offered, take_all) = match od.kind {
        OpKind::Call { callee } => {
            let spec = cx.call_spec(op);
            let offered = marked(&od.operands, &spec.params);
            let res_adj = spec.results.clone();
            let recursive = cx.mcx.is_recursive(callee);
            (Some(spec), res_adj, offered, recursive)
        }
        OpKind::While => {
            let free = cx.src.free_values(&od.regions);
            let offered = free.into_iter().filter(|&v| cx.needs_adj(v)).collect();
            (None, cx.adj_mask(&od.results), offered, true)
        }
        _ => {
            let offered = accumulated(cx, rest, exit, &od.results);
            (None, cx.adj_mask(&od.results), offered, false)
        }
    };
    let after = After {
        op,
        rest,
        res_adj: &res_adj,
        offered: &offered,
        take_all,
    };
    let Made { k, handed, outputs } = continuation(cx, region, after, exit, sc)?;
    match spec {
        Some(mut spec) => {
            // The callee takes the accumulated adjoint of each handed value
            // as that of the first parameter it is passed as.
            let mut taken = Vec::new();
            for (i, &v) in od.operands.iter().enumerate() {
                spec.acc[i] = spec.params[i] && handed.contains(&v) && !taken.contains(&v);
                if spec.acc[i] {
                    taken.push(v);
                }
            }
            call(cx, region, op, spec, k, sc)?
        }
        None if od.kind == OpKind::While => {
            super::adjoint::loops::cps_while(cx, region, op, k, sc)?
        }
        None => branch(cx, region, op, &res_adj, &handed, k, sc)?,
    }
    if !outputs.is_empty() {
        let types: Vec<Type> = outputs.iter().map(|&v| cx.src.ty(v).clone()).collect();
        let (_, outs) = cx.dst.append_op(
            region,
            OpKind::ContOutputs,
            vec![k],
            types,
            Vec::new(),
            od.span,
        );
        for (v, d) in outputs.into_iter().zip(outs) {
            cx.accumulate(region, od.span, sc, v, d)?;
        }
    }
    reverse_ops(cx, region, pre, sc)
}

/// True for the ops that take a continuation: a call that computes
/// adjoints, and a loop or an `if` reading active values (whose branches
/// then both receive the continuation).
fn needs_cps(cx: &mut FnCx, op: OpId) -> bool {
    let od = cx.src.op(op);
    match od.kind {
        OpKind::Call { .. } => !cx.call_spec(op).is_inactive(),
        OpKind::While => {
            od.operands.iter().any(|&v| cx.needs_adj(v))
                || cx
                    .src
                    .free_values(&od.regions)
                    .into_iter()
                    .any(|v| cx.needs_adj(v))
        }
        OpKind::If => cx
            .src
            .free_values(&od.regions)
            .into_iter()
            .any(|v| cx.needs_adj(v)),
        _ => false,
    }
}

/// The type of the continuations that receive `vals` of `f`: applied to
/// them, returning the adjoints of those `adj` marks, then those of `acc`.
pub(crate) fn cont_type(f: &Function, vals: &[Value], adj: &[bool], acc: &[Value]) -> ContType {
    let ty = |v: &Value| f.ty(*v).tensor().clone();
    cont_type_of(
        vals.iter().map(ty).collect(),
        adj,
        acc.iter().map(ty).collect(),
    )
}

/// The type of the continuations applied to values of types `args`,
/// returning the adjoints of those `adj` marks, then values of types `acc`.
pub(crate) fn cont_type_of(args: Vec<TensorType>, adj: &[bool], acc: Vec<TensorType>) -> ContType {
    let mut results: Vec<TensorType> = args
        .iter()
        .zip(adj)
        .filter(|(_, &on)| on)
        .map(|(t, _)| t.clone())
        .collect();
    results.extend(acc);
    ContType { args, results }
}

/// Applies `exit.k` to the forward values of `exit.rets` and adds the
/// adjoints it returns to theirs and to those of `exit.acc`.
fn apply(cx: &mut FnCx, region: RegionId, exit: Exit, sc: &mut Scope) -> Result<(), AdError> {
    let span = cx.src.span;
    let (adjs, acc) = apply_to(cx, region, exit, sc, span)?;
    for (&v, d) in exit.rets.iter().zip(adjs) {
        if let Some(d) = d {
            cx.accumulate(region, span, sc, v, d)?;
        }
    }
    for (&v, d) in exit.acc.iter().zip(acc) {
        cx.accumulate(region, span, sc, v, d)?;
    }
    Ok(())
}

/// Emits `apply exit.k` to the forward values of `exit.rets`; returns the
/// adjoint it gives each of them (`None` where `exit.adj` has none) and
/// the accumulated adjoints of `exit.acc`.
pub(crate) fn apply_to(
    cx: &mut FnCx,
    region: RegionId,
    exit: Exit,
    sc: &Scope,
    span: Span,
) -> Result<(Vec<Option<Value>>, Vec<Value>), AdError> {
    let mut operands = vec![exit.k];
    for &v in exit.rets {
        operands.push(cx.fwd(sc, v, span)?);
    }
    let ct = cont_type(cx.src, exit.rets, exit.adj, exit.acc);
    let types = ct.results.iter().cloned().map(Type::Tensor).collect();
    let (_, adjs) = cx
        .dst
        .append_op(region, OpKind::Apply, operands, types, Vec::new(), span);
    let mut adjs = adjs.into_iter();
    let given = exit
        .adj
        .iter()
        .map(|&on| on.then(|| adjs.next().expect("one per marked value")))
        .collect();
    Ok((given, adjs.collect()))
}

/// The values of `vs` that `mask` marks.
pub(crate) fn marked(vs: &[Value], mask: &[bool]) -> Vec<Value> {
    vs.iter()
        .zip(mask)
        .filter(|(_, &on)| on)
        .map(|(&v, _)| v)
        .collect()
}

/// `h.cps(args.., kk)` for source call `op` differentiated under `spec`;
/// adds the adjoints it returns to the arguments' (they include what `kk`
/// accumulated for them).
fn call(
    cx: &mut FnCx,
    region: RegionId,
    op: OpId,
    spec: Spec,
    kk: Value,
    sc: &mut Scope,
) -> Result<(), AdError> {
    let od = cx.src.op(op);
    let span = od.span;
    let marked = marked(&od.operands, &spec.params);
    let hc = cx.mcx.cps_function(spec)?;
    let mut args = od
        .operands
        .iter()
        .map(|&v| cx.fwd(sc, v, span))
        .collect::<Result<Vec<_>, _>>()?;
    args.push(kk);
    let types = marked.iter().map(|&v| cx.src_ty(v)).collect();
    let grads = cx.builder(region, span).call(hc, args, types);
    for (v, g) in marked.into_iter().zip(grads) {
        cx.accumulate(region, span, sc, v, g)?;
    }
    Ok(())
}

/// An `if` on the condition of source `if` op `op` whose branches are in
/// CPS form with continuation `kk` (returning the adjoints of the results
/// `res_adj` marks, then the accumulated adjoints of `handed`); yields the
/// adjoints of the active values the branches read from outside and of
/// `handed`, added to theirs.
fn branch(
    cx: &mut FnCx,
    region: RegionId,
    op: OpId,
    res_adj: &[bool],
    handed: &[Value],
    kk: Value,
    sc: &mut Scope,
) -> Result<(), AdError> {
    super::adjoint::branch::adjoint_if(cx, region, op, handed, sc, |cx, nr, r, inner| {
        let (ops, yields) = split_region(cx.src, r);
        let exit = Exit {
            rets: &yields,
            adj: res_adj,
            acc: handed,
            k: kk,
        };
        cps_ops(cx, nr, &ops, exit, inner)
    })
}
