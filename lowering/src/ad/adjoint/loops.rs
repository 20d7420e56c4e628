//! Adjoint of `while`, after Lantern's shift/reset backpropagator: the
//! native stack holds each iteration's state.
//!
//! A loop is differentiated by a generated *recursive* function
//! ```text
//! L(state.., free.., k) -> (adj_state.., adj_free..)
//!   (c, args..) = before(state)                     // this iteration, forward
//!   (adj_args.., adj_free1..) = if c {
//!       kl = cont @R(free.., k)                      // the rest of the loop:
//!                                                    //   R(next) = L(next, free, k)
//!       after(args) in CPS form, applying kl to next // forward, rest, backward
//!       yield adj_args, adj_free2 (from after, seeded by kl)
//!   } else { yield apply k(args) }                   // exit: the rest of the program
//!   backward of `before` seeded with adj_args
//!   return adj_state, adj_free1 + contributions of `before`
//! ```
//! where `free` are the values the loop's regions read from outside and
//! `k` the continuation of what follows the loop ([`LoopForm::Cps`]),
//! which returns the adjoints of the loop's results and the adjoints of the
//! free values accumulated after the loop (as `kl` those accumulated by the
//! later iterations and after the loop, so a free value gathered at every
//! iteration has one adjoint, updated in place, see `super::super::cps`): the
//! loop runs once, inside `L`, and so do the calls and loops in its body;
//! iteration `i`'s state lives in frame `i` until the rest of the program
//! and the later iterations' backward passes have returned. In direct style
//! (gradients of gradients, see `super::super::direct`) and for loops in a
//! loop's `before` region, `L` is given the adjoints of the loop's results
//! instead of `k`, after the forward `while` ran, and calls the next
//! iteration directly ([`LoopForm::Backward`]). `L` is cached per source
//! loop and form.

use super::super::clone::{clone_ops, split_region};
use super::super::context::{FnCx, Scope};
use super::super::cps::{apply_to, cont_type, cont_type_of, cps_ops, Exit};
use super::super::reverse::reverse_ops;
use super::super::AdError;
use agc_ir::{FuncId, Function, OpId, OpKind, RegionId, TensorType, Type, Value};

/// Which values of a loop carry adjoints.
struct LoopAdj {
    /// The `before` region's params (the state).
    state: Vec<Value>,
    /// All free values of the regions.
    free: Vec<Value>,
    /// Positions of the active state values.
    state_adj: Vec<usize>,
    /// Which state values are active.
    state_on: Vec<bool>,
    /// Positions of the active results.
    res_adj: Vec<usize>,
    /// Which results are active.
    res_on: Vec<bool>,
    /// Positions of the active values the `condition` forwards (those of
    /// the active results and of the active `after` params).
    fwd_adj: Vec<usize>,
    /// The active free values.
    free_adj: Vec<Value>,
}

impl LoopAdj {
    fn new(cx: &FnCx, op: OpId) -> Self {
        let od = cx.src.op(op);
        let state = cx.src.region(od.regions[0]).params.clone();
        let free = cx.src.free_values(&od.regions);
        let (state_on, res_on) = (cx.adj_mask(&state), cx.adj_mask(&od.results));
        let (_, forwarded) = split_region(cx.src, od.regions[0]);
        LoopAdj {
            fwd_adj: (1..forwarded.len())
                .filter(|&i| cx.needs_adj(forwarded[i]))
                .map(|i| i - 1)
                .collect(),
            state_adj: (0..state.len()).filter(|&i| state_on[i]).collect(),
            state_on,
            res_adj: (0..od.results.len()).filter(|&i| res_on[i]).collect(),
            res_on,
            free_adj: free.iter().copied().filter(|&v| cx.needs_adj(v)).collect(),
            state,
            free,
        }
    }

    /// Types of `L`'s results: adjoints of the active state, then of the active free values.
    fn result_types(&self, cx: &FnCx) -> Vec<TensorType> {
        let st = self.state_adj.iter().map(|&i| cx.src_ty(self.state[i]));
        st.chain(self.free_adj.iter().map(|&v| cx.src_ty(v)))
            .collect()
    }
}

/// Emits the backward pass of source `while` op `op` at the end of `region`.
pub(crate) fn reverse_while(
    cx: &mut FnCx,
    region: RegionId,
    op: OpId,
    sc: &mut Scope,
) -> Result<(), AdError> {
    let od = cx.src.op(op);
    let span = od.span;
    let la = LoopAdj::new(cx, op);
    if la.state_adj.is_empty() && la.free_adj.is_empty() {
        return Ok(());
    }
    let mut extra = Vec::new();
    for &i in &la.res_adj {
        extra.push(cx.adj_or_zeros(region, span, sc, od.results[i]));
    }
    call_loop_function(cx, region, op, &la, LoopForm::Backward, extra, sc)
}

/// The CPS form of source `while` op `op` at the end of `region`, with
/// continuation `k` for what follows the loop: the loop runs once, inside
/// `L`, which applies `k` where the loop exits.
pub(crate) fn cps_while(
    cx: &mut FnCx,
    region: RegionId,
    op: OpId,
    k: Value,
    sc: &mut Scope,
) -> Result<(), AdError> {
    let la = LoopAdj::new(cx, op);
    call_loop_function(cx, region, op, &la, LoopForm::Cps, vec![k], sc)
}

/// Calls `L(state.., free.., extra..)` and adds the adjoints it returns.
fn call_loop_function(
    cx: &mut FnCx,
    region: RegionId,
    op: OpId,
    la: &LoopAdj,
    form: LoopForm,
    extra: Vec<Value>,
    sc: &mut Scope,
) -> Result<(), AdError> {
    let od = cx.src.op(op);
    let span = od.span;
    let l = loop_function(cx, op, la, form)?;
    let mut args = od
        .operands
        .iter()
        .chain(&la.free)
        .map(|&v| cx.fwd(sc, v, span))
        .collect::<Result<Vec<_>, _>>()?;
    args.extend(extra);
    // The results are typed as what they are adjoints of here: sizes named
    // in `L` (its state) may have other names, or other sizes, at this call.
    let targets: Vec<Value> = la
        .state_adj
        .iter()
        .map(|&i| od.operands[i])
        .chain(la.free_adj.iter().copied())
        .collect();
    let types = targets.iter().map(|&v| cx.src_ty(v)).collect();
    let grads = cx.builder(region, span).call(l, args, types);
    for (&v, g) in targets.iter().zip(grads) {
        cx.accumulate(region, span, sc, v, g)?;
    }
    Ok(())
}

/// What `L` receives after the state and the free values, and does where
/// the loop exits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum LoopForm {
    /// The adjoints of the loop's active results, returned at the exit
    /// (the forward `while` ran before).
    Backward,
    /// A continuation for what follows the loop, applied at the exit
    /// (the loop's only forward run is inside `L`).
    Cps,
}

/// The (cached) recursive backward function of loop `op`.
fn loop_function(cx: &mut FnCx, op: OpId, la: &LoopAdj, form: LoopForm) -> Result<FuncId, AdError> {
    let key = ((*cx.spec).clone(), op, form);
    if let Some(&id) = cx.mcx.loops.get(&key) {
        return Ok(id);
    }
    let src = cx.src;
    let od = src.op(op);
    let span = od.span;
    let id = cx.mcx.reserve();
    cx.mcx.loops.insert(key, id);
    let ty = |v: Value| src.ty(v).clone();
    let mut params: Vec<(String, Type)> = la
        .state
        .iter()
        .enumerate()
        .map(|(i, &v)| (format!("state{i}"), ty(v)))
        .collect();
    params.extend(
        la.free
            .iter()
            .enumerate()
            .map(|(i, &v)| (format!("free{i}"), ty(v))),
    );
    match form {
        LoopForm::Backward => params.extend(
            la.res_adj
                .iter()
                .map(|&i| (format!("adj_result{i}"), ty(od.results[i]))),
        ),
        LoopForm::Cps => params.push((
            "k".into(),
            Type::Cont(cont_type(src, &od.results, &la.res_on, &la.free_adj)),
        )),
    }
    let suffix = if form == LoopForm::Cps { "cps" } else { "vjp" };
    let name = cx
        .mcx
        .unique_name(&format!("{}.while{}.{suffix}", src.name, op.0));
    let mut lf = Function::new(name, &params, span);
    let result_types = la.result_types(cx);
    lf.result_types = result_types.iter().cloned().map(Type::from).collect();
    let body = lf.body;
    let lp = lf.params().to_vec();
    let (ns, nf) = (la.state.len(), la.free.len());
    let mut lcx = FnCx {
        mcx: &mut *cx.mcx,
        src_id: cx.src_id,
        src,
        spec: cx.spec.clone(),
        active: cx.active.clone(),
        dst: &mut lf,
    };
    let mut sc = Scope::default();
    for (&v, &p) in la.state.iter().chain(&la.free).zip(&lp) {
        sc.fwd.insert(v, p);
    }
    // This iteration's `before`, forward.
    let (bops, cond) = split_region(src, od.regions[0]);
    clone_ops(&mut lcx, body, &bops, &mut sc)?;
    let c = lcx.fwd(&sc, cond[0], span)?;
    // Then: `after` forward, the rest of the loop, `after` backward.
    let then = lcx.dst.new_region(&[]);
    let mut inner = Scope {
        fwd: sc.fwd.clone(),
        adj: Default::default(),
    };
    let after = od.regions[1];
    for (&p, &a) in src.region(after).params.iter().zip(&cond[1..]) {
        let fa = lcx.fwd(&sc, a, span)?;
        inner.fwd.insert(p, fa);
    }
    let (aops, next) = split_region(src, after);
    match form {
        LoopForm::Backward => {
            clone_ops(&mut lcx, then, &aops, &mut inner)?;
            let mut rec_args = next
                .iter()
                .map(|&v| lcx.fwd(&inner, v, span))
                .collect::<Result<Vec<_>, _>>()?;
            rec_args.extend_from_slice(&lp[ns..]);
            let targets: Vec<Value> = la
                .state_adj
                .iter()
                .map(|&i| next[i])
                .chain(la.free_adj.iter().copied())
                .collect();
            let types = targets.iter().map(|&v| lcx.src_ty(v)).collect();
            let rest = lcx.builder(then, span).call(id, rec_args, types);
            for (&v, g) in targets.iter().zip(rest) {
                lcx.accumulate(then, span, &mut inner, v, g)?;
            }
            reverse_ops(&mut lcx, then, &aops, &mut inner)?;
        }
        LoopForm::Cps => {
            // `after` in CPS form; its continuation runs the rest of the loop.
            let rest = rest_of_loop(&mut lcx, id, op, la)?;
            let mut captures = lp[ns..ns + nf].to_vec();
            captures.push(lp[ns + nf]);
            let state: Vec<agc_ir::TensorType> = la.state.iter().map(|&v| lcx.src_ty(v)).collect();
            let free: Vec<agc_ir::TensorType> =
                la.free_adj.iter().map(|&v| lcx.src_ty(v)).collect();
            let (_, kl) = lcx.dst.append_op(
                then,
                OpKind::MakeCont { func: rest },
                captures,
                vec![Type::Cont(cont_type_of(state, &la.state_on, free))],
                Vec::new(),
                span,
            );
            // The rest of the loop returns the free values' accumulated adjoints.
            let exit = Exit {
                rets: &next,
                adj: &la.state_on,
                acc: &la.free_adj,
                k: kl[0],
            };
            cps_ops(&mut lcx, then, &aops, exit, &mut inner)?;
        }
    }
    let aparams = &src.region(after).params;
    let outs: Vec<Value> = la
        .fwd_adj
        .iter()
        .map(|&i| aparams[i])
        .chain(la.free_adj.iter().copied())
        .map(|v| lcx.adj_or_zeros(then, span, &mut inner, v))
        .collect();
    lcx.builder(then, span).terminate(OpKind::Yield, outs);
    // Else: the loop exits with this iteration's args.
    let exit = lcx.dst.new_region(&[]);
    // The adjoint of each result the rest of the program gives, and (in
    // CPS form) the free values' adjoints it accumulated.
    let (given, acc): (Vec<Option<Value>>, Vec<Value>) = match form {
        LoopForm::Backward => {
            let mut adj = lp[ns + nf..].iter();
            let given = la
                .res_on
                .iter()
                .map(|&on| on.then(|| *adj.next().expect("one per active result")))
                .collect();
            let zeros = la
                .free_adj
                .iter()
                .map(|&v| {
                    let t = lcx.src_ty(v);
                    lcx.builder(exit, span).zeros(&t)
                })
                .collect();
            (given, zeros)
        }
        LoopForm::Cps => {
            let at_exit = Exit {
                rets: &cond[1..],
                adj: &la.res_on,
                acc: &la.free_adj,
                k: lp[ns + nf],
            };
            apply_to(&mut lcx, exit, at_exit, &sc, span)?
        }
    };
    let mut outs = Vec::new();
    for &i in &la.fwd_adj {
        match given[i] {
            Some(g) => outs.push(g),
            None => {
                let t = lcx.src_ty(cond[1 + i]);
                outs.push(lcx.builder(exit, span).zeros(&t));
            }
        }
    }
    outs.extend(acc);
    lcx.builder(exit, span).terminate(OpKind::Yield, outs);
    // Typed as this iteration's args: on the exit path the loop's results are them.
    let targets: Vec<Value> = la
        .fwd_adj
        .iter()
        .map(|&i| cond[1 + i])
        .chain(la.free_adj.iter().copied())
        .collect();
    let types = targets.iter().map(|&v| lcx.src_ty(v)).collect();
    let adj_args = lcx
        .builder(body, span)
        .op(OpKind::If, vec![c], types, vec![then, exit]);
    // This iteration's `before`, backward.
    for (&v, g) in targets.iter().zip(adj_args) {
        lcx.accumulate(body, span, &mut sc, v, g)?;
    }
    reverse_ops(&mut lcx, body, &bops, &mut sc)?;
    let outs: Vec<Value> = la
        .state_adj
        .iter()
        .map(|&i| la.state[i])
        .chain(la.free_adj.iter().copied())
        .map(|v| lcx.adj_or_zeros(body, span, &mut sc, v))
        .collect();
    lcx.builder(body, span).terminate(OpKind::Return, outs);
    cx.mcx.define(id, lf);
    Ok(id)
}

/// The continuation "the rest of the loop" of `L` (id `l`) in CPS form:
/// `R(free.., k, next..) -> (adjoints of the active state.., accumulated
/// adjoints of the active free values..)`, which calls `L(next.., free.., k)`.
fn rest_of_loop(cx: &mut FnCx, l: FuncId, op: OpId, la: &LoopAdj) -> Result<FuncId, AdError> {
    let src = cx.src;
    let span = src.op(op).span;
    let mut params: Vec<(String, Type)> = la
        .free
        .iter()
        .enumerate()
        .map(|(i, &v)| (format!("free{i}"), src.ty(v).clone()))
        .collect();
    params.push((
        "k".into(),
        Type::Cont(cont_type(
            src,
            &src.op(op).results,
            &la.res_on,
            &la.free_adj,
        )),
    ));
    params.extend(
        la.state
            .iter()
            .enumerate()
            .map(|(i, &v)| (format!("next{i}"), src.ty(v).clone())),
    );
    let name = cx
        .mcx
        .unique_name(&format!("{}.while{}.rest", src.name, op.0));
    let mut g = Function::new(name, &params, span);
    let types = la.result_types(cx);
    g.result_types = types.iter().cloned().map(Type::Tensor).collect();
    let ps = g.params().to_vec();
    let nf = la.free.len();
    let mut args = ps[nf + 1..].to_vec();
    args.extend_from_slice(&ps[..nf + 1]);
    let body = g.body;
    let mut b = crate::builder::Builder::new(&mut g, body, span);
    let adj = b.call(l, args, types);
    b.terminate(OpKind::Return, adj);
    let id = cx.mcx.reserve();
    cx.mcx.define(id, g);
    Ok(id)
}
