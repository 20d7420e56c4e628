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
//! (of the active ones only) is `rest` in CPS form again, so every call in
//! `rest` nests one frame deeper. Both branches of an `if` receive the same continuation. The
//! captures of `kk` live in an environment record in the frame of the
//! function that makes it (backends: see `agc-backend`), which stays
//! alive until `h.cps` returns, after `K` ran: no tape, the native stack
//! holds every intermediate, and each forward op runs once.
//!
//! Loops keep their own scheme ([`super::adjoint::loops`]); a call inside a
//! loop is differentiated through [`ModCx::vjp`], `h.cps` with a
//! continuation that returns the given adjoints.

use super::activity::Spec;
use super::clone::{clone_ops, split_region};
use super::context::{FnCx, ModCx, Scope};
use super::dim_witness::{dim_witnesses, dominating_values};
use super::reverse::reverse_ops;
use super::AdError;
use agc_ir::{ContType, FuncId, Function, OpId, OpKind, RegionId, Span, TensorType, Type, Value};
use std::collections::{BTreeSet, HashSet};
use std::rc::Rc;

/// How a list of ops in CPS form ends: `apply k` to the forward values of
/// source values `rets`; `k` returns the adjoints of those `adj` marks.
#[derive(Clone, Copy)]
pub(crate) struct Exit<'a> {
    /// The source values `k` is applied to.
    pub rets: &'a [Value],
    /// Which of them `k` returns adjoints for.
    pub adj: &'a [bool],
    /// The continuation (a value of the function being built).
    pub k: Value,
}

/// Emits at the end of `region` the CPS code of source `ops` followed by
/// `exit`: forward, application, backward. Afterwards `sc.adj` holds the
/// adjoints of the values the ops read from outside.
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
    let spec = match od.kind {
        OpKind::Call { .. } => Some(cx.call_spec(op)),
        _ => None,
    };
    let res_adj = match &spec {
        Some(spec) => spec.results.clone(),
        None => cx.adj_mask(&od.results),
    };
    let (kk, captured) = continuation(cx, region, op, &res_adj, rest, exit, sc)?;
    match spec {
        Some(spec) => call(cx, region, op, spec, kk, sc)?,
        None if od.kind == OpKind::While => {
            super::adjoint::loops::cps_while(cx, region, op, kk, sc)?
        }
        None => branch(cx, region, op, &res_adj, kk, sc)?,
    }
    if !captured.is_empty() {
        let types: Vec<Type> = captured.iter().map(|&v| cx.src.ty(v).clone()).collect();
        let (_, outs) = cx.dst.append_op(
            region,
            OpKind::ContOutputs,
            vec![kk],
            types,
            Vec::new(),
            od.span,
        );
        for (v, d) in captured.into_iter().zip(outs) {
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
                || super::clone::free_values(cx.src, &od.regions)
                    .into_iter()
                    .any(|v| cx.needs_adj(v))
        }
        OpKind::If => super::clone::free_values(cx.src, &od.regions)
            .into_iter()
            .any(|v| cx.needs_adj(v)),
        _ => false,
    }
}

/// The type of the continuations that receive `vals` of `f`: applied to
/// them, returning the adjoints of those `adj` marks.
pub(crate) fn cont_type(f: &Function, vals: &[Value], adj: &[bool]) -> ContType {
    cont_type_of(
        vals.iter().map(|&v| f.ty(v).tensor().clone()).collect(),
        adj,
    )
}

/// The type of the continuations applied to values of types `args`,
/// returning the adjoints of those `adj` marks.
pub(crate) fn cont_type_of(args: Vec<TensorType>, adj: &[bool]) -> ContType {
    let results = args
        .iter()
        .zip(adj)
        .filter(|(_, &on)| on)
        .map(|(t, _)| t.clone())
        .collect();
    ContType { args, results }
}

/// Applies `exit.k` to the forward values of `exit.rets` and adds the
/// adjoints it returns to theirs.
fn apply(cx: &mut FnCx, region: RegionId, exit: Exit, sc: &mut Scope) -> Result<(), AdError> {
    let span = cx.src.span;
    let adjs = apply_to(cx, region, exit, sc, span)?;
    for (&v, d) in exit.rets.iter().zip(adjs) {
        if let Some(d) = d {
            cx.accumulate(region, span, sc, v, d)?;
        }
    }
    Ok(())
}

/// Emits `apply exit.k` to the forward values of `exit.rets`; returns the
/// adjoint it gives each of them (`None` where `exit.adj` has none).
pub(crate) fn apply_to(
    cx: &mut FnCx,
    region: RegionId,
    exit: Exit,
    sc: &Scope,
    span: Span,
) -> Result<Vec<Option<Value>>, AdError> {
    let mut operands = vec![exit.k];
    for &v in exit.rets {
        operands.push(cx.fwd(sc, v, span)?);
    }
    let ct = cont_type(cx.src, exit.rets, exit.adj);
    let types = ct.results.iter().cloned().map(Type::Tensor).collect();
    let (_, adjs) = cx
        .dst
        .append_op(region, OpKind::Apply, operands, types, Vec::new(), span);
    let mut adjs = adjs.into_iter();
    Ok(exit
        .adj
        .iter()
        .map(|&on| on.then(|| adjs.next().expect("one per marked value")))
        .collect())
}

/// Makes the continuation of source `op` in `region`: a function `K` for
/// `rest` then `exit`, closed over what it reads, returning the adjoints
/// of the results of `op` that `res_adj` marks. Returns the closure and
/// the active captures whose adjoints `K` outputs.
fn continuation(
    cx: &mut FnCx,
    region: RegionId,
    op: OpId,
    res_adj: &[bool],
    rest: &[OpId],
    exit: Exit,
    sc: &Scope,
) -> Result<(Value, Vec<Value>), AdError> {
    let src = cx.src;
    let od = src.op(op);
    let results = od.results.clone();
    let mut captures = free_values_of_ops(src, rest, exit.rets, &results);
    let active: Vec<Value> = captures
        .iter()
        .copied()
        .filter(|&v| cx.needs_adj(v))
        .collect();
    let visible: Vec<Value> = dominating_values(src, op)
        .into_iter()
        .filter(|v| sc.fwd.contains_key(v))
        .collect();
    let bound: Vec<Value> = captures.iter().chain(&results).copied().collect();
    captures.extend(dim_witnesses(src, rest, &bound, &visible));
    let ct = cont_type(src, &results, res_adj);
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
    kf.result_types = ct.results.iter().cloned().map(Type::Tensor).collect();
    kf.result_types
        .extend(active.iter().map(|&v| src.ty(v).clone()));
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
    let mut outs = Vec::new();
    for (&v, _) in results.iter().zip(res_adj).filter(|(_, &on)| on) {
        outs.push(kcx.adj_or_zeros(body, od.span, &ksc, v));
    }
    for &v in &active {
        outs.push(kcx.adj_or_zeros(body, od.span, &ksc, v));
    }
    kcx.builder(body, od.span).terminate(OpKind::Return, outs);
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
    Ok((kk[0], active))
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

/// `h.cps(args.., kk)` for source call `op` differentiated under `spec`;
/// adds the adjoints it returns to the arguments'.
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

/// The values of `vs` that `mask` marks.
pub(crate) fn marked(vs: &[Value], mask: &[bool]) -> Vec<Value> {
    vs.iter()
        .zip(mask)
        .filter(|(_, &on)| on)
        .map(|(&v, _)| v)
        .collect()
}

/// An `if` on the condition of source `if` op `op` whose branches are in
/// CPS form with continuation `kk` (returning the adjoints of the results
/// `res_adj` marks); yields the adjoints of the active values the branches
/// read from outside, added to theirs.
fn branch(
    cx: &mut FnCx,
    region: RegionId,
    op: OpId,
    res_adj: &[bool],
    kk: Value,
    sc: &mut Scope,
) -> Result<(), AdError> {
    super::adjoint::branch::adjoint_if(cx, region, op, sc, |cx, nr, r, inner| {
        let (ops, yields) = split_region(cx.src, r);
        let exit = Exit {
            rets: &yields,
            adj: res_adj,
            k: kk,
        };
        cps_ops(cx, nr, &ops, exit, inner)
    })
}

impl ModCx<'_> {
    /// The (cached) CPS form `h.cps(params.., k) -> adjoints` of source
    /// function `h = spec.func`: `k` returns the adjoints of the results
    /// `spec.results` marks, `h.cps` those of the parameters `spec.params`
    /// marks, in order.
    pub fn cps_function(&mut self, spec: Spec) -> Result<FuncId, AdError> {
        if let Some(&id) = self.cps.get(&spec) {
            return Ok(id);
        }
        let h = spec.func;
        let src = self.src(h)?;
        let id = self.reserve();
        self.cps.insert(spec.clone(), id);
        let active = self.active(&spec);
        let (ops, rets) = split_region(src, src.body);
        let wanted = marked(src.params(), &spec.params);
        let mut params: Vec<(String, Type)> = src
            .param_names
            .iter()
            .cloned()
            .zip(src.params().iter().map(|&p| src.ty(p).clone()))
            .collect();
        params.push(("k".into(), Type::Cont(cont_type(src, &rets, &spec.results))));
        let name = self.unique_name(&format!("{}.cps", src.name));
        let mut g = Function::new(name, &params, src.span);
        g.result_types = wanted.iter().map(|&p| src.ty(p).clone()).collect();
        let body = g.body;
        let gparams = g.params().to_vec();
        let spec = Rc::new(spec);
        let mut cx = FnCx {
            mcx: &mut *self,
            src_id: h,
            src,
            spec: spec.clone(),
            active,
            dst: &mut g,
        };
        let mut sc = Scope::default();
        for (&p, &q) in src.params().iter().zip(&gparams) {
            sc.fwd.insert(p, q);
        }
        let exit = Exit {
            rets: &rets,
            adj: &spec.results,
            k: *gparams.last().expect("the continuation parameter"),
        };
        cps_ops(&mut cx, body, &ops, exit, &mut sc)?;
        let outs: Vec<Value> = wanted
            .iter()
            .map(|&p| cx.adj_or_zeros(body, src.span, &sc, p))
            .collect();
        cx.builder(body, src.span).terminate(OpKind::Return, outs);
        self.define(id, g);
        Ok(id)
    }

    /// A continuation function `name(captures.., args..) -> (results..)`
    /// whose body `build` fills: given a builder context, the capture
    /// parameters and the argument parameters, it returns the values to
    /// return. For the seeds of [`super::top`] and [`ModCx::vjp`].
    pub fn seed_function(
        &mut self,
        name: &str,
        captures: &[Type],
        args: &[TensorType],
        results: Vec<Type>,
        span: Span,
        build: impl FnOnce(&mut Function, &[Value], &[Value]) -> Result<Vec<Value>, AdError>,
    ) -> Result<FuncId, AdError> {
        let mut params: Vec<(String, Type)> = captures
            .iter()
            .enumerate()
            .map(|(i, t)| (format!("capture{i}"), t.clone()))
            .collect();
        params.extend(
            args.iter()
                .enumerate()
                .map(|(i, t)| (format!("arg{i}"), Type::Tensor(t.clone()))),
        );
        let name = self.unique_name(name);
        let mut g = Function::new(name, &params, span);
        g.result_types = results;
        let ps = g.params().to_vec();
        let outs = build(&mut g, &ps[..captures.len()], &ps[captures.len()..])?;
        let body = g.body;
        crate::builder::Builder::new(&mut g, body, span).terminate(OpKind::Return, outs);
        let id = self.reserve();
        self.define(id, g);
        Ok(id)
    }

    /// The (cached) VJP function of `spec`, `h.vjp(params.., adjoints of
    /// the results spec.results marks..) -> adjoints of the parameters
    /// spec.params marks`: `h.cps` with a continuation that returns the given
    /// adjoints (in direct mode, see [`super::direct`], a recomputation of
    /// the callee's forward pass).
    pub fn vjp(&mut self, spec: Spec) -> Result<FuncId, AdError> {
        if let Some(&id) = self.vjps.get(&spec) {
            return Ok(id);
        }
        let id = self.reserve();
        self.vjps.insert(spec.clone(), id);
        if self.direct {
            self.direct_vjp(spec, id)?;
            return Ok(id);
        }
        let h = self.src(spec.func)?;
        let span = h.span;
        let (_, rets) = split_region(h, h.body);
        let ct = cont_type(h, &rets, &spec.results);
        let dres: Vec<Type> = ct.results.iter().cloned().map(Type::Tensor).collect();
        let seed = self.seed_function(
            &format!("{}.seed", h.name),
            &dres,
            &ct.args,
            dres.clone(),
            span,
            |_, captures, _| Ok(captures.to_vec()),
        )?;
        let dparams: Vec<TensorType> = marked(h.params(), &spec.params)
            .iter()
            .map(|&p| h.ty(p).tensor().clone())
            .collect();
        let hc = self.cps_function(spec)?;
        let mut params: Vec<(String, Type)> = h
            .param_names
            .iter()
            .cloned()
            .zip(h.params().iter().map(|&p| h.ty(p).clone()))
            .collect();
        params.extend(
            dres.iter()
                .enumerate()
                .map(|(i, t)| (format!("adj_result{i}"), t.clone())),
        );
        let name = self.unique_name(&format!("{}.vjp", h.name));
        let mut g = Function::new(name, &params, span);
        g.result_types = dparams.iter().cloned().map(Type::Tensor).collect();
        let ps = g.params().to_vec();
        let n = h.params().len();
        let body = g.body;
        let (_, kk) = g.append_op(
            body,
            OpKind::MakeCont { func: seed },
            ps[n..].to_vec(),
            vec![Type::Cont(ct)],
            Vec::new(),
            span,
        );
        let mut args = ps[..n].to_vec();
        args.push(kk[0]);
        let mut b = crate::builder::Builder::new(&mut g, body, span);
        let grads = b.call(hc, args, dparams);
        b.terminate(OpKind::Return, grads);
        self.define(id, g);
        Ok(id)
    }
}
