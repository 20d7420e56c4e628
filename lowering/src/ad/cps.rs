//! Reverse mode in continuation-passing style, as in Lantern: a function
//! `h` becomes `h.cps(params.., k) -> adjoints of its params`, which runs
//! its forward pass, applies the continuation `k` (the rest of the program,
//! forward and backward) to its results, receives their adjoints from `k`,
//! and then runs its own backward pass, with its intermediates still in its
//! stack frame.
//!
//! A list of ops is split at the first op that calls such a function (a
//! `call` with an active operand, or an `if` with one inside):
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
//! is `rest` in CPS form again, so every call in `rest` nests one frame
//! deeper. Both branches of an `if` receive the same continuation. The
//! captures of `kk` live in an environment record in the frame of the
//! function that makes it (backends: see `agc-backend`), which stays
//! alive until `h.cps` returns, after `K` ran: no tape, the native stack
//! holds every intermediate, and each forward op runs once.
//!
//! Loops keep their own scheme ([`super::adjoint::loops`]); a call inside a
//! loop is differentiated through [`ModCx::vjp`], `h.cps` with a
//! continuation that returns the given adjoints.

use super::clone::{clone_ops, split_region};
use super::context::{is_float, FnCx, ModCx, Mode, Scope};
use super::reverse::reverse_ops;
use super::AdError;
use agc_ir::{ContType, FuncId, Function, OpId, OpKind, RegionId, Span, TensorType, Type, Value};
use std::collections::{BTreeSet, HashSet};

/// Emits at the end of `region` the CPS code of source `ops` followed by
/// applying continuation `k` (a value of the function being built) to the
/// forward values of `rets`: forward, application, backward. Afterwards
/// `sc.adj` holds the adjoints of the values the ops read from outside.
pub(crate) fn cps_ops(
    cx: &mut FnCx,
    region: RegionId,
    ops: &[OpId],
    rets: &[Value],
    k: Value,
    sc: &mut Scope,
) -> Result<(), AdError> {
    let Some(i) = ops.iter().position(|&op| needs_cps(cx, op)) else {
        clone_ops(cx, region, ops, sc)?;
        apply(cx, region, rets, k, sc)?;
        return reverse_ops(cx, region, ops, sc);
    };
    let (pre, op, rest) = (&ops[..i], ops[i], &ops[i + 1..]);
    clone_ops(cx, region, pre, sc)?;
    let (kk, captured) = continuation(cx, region, op, rest, rets, k, sc)?;
    let od = cx.src.op(op);
    match od.kind {
        OpKind::Call { callee } => call(cx, region, op, callee, kk, sc)?,
        OpKind::While => super::adjoint::loops::cps_while(cx, region, op, kk, sc)?,
        _ => branch(cx, region, op, kk, sc)?,
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

/// True for the ops that take a continuation: a call with an active
/// operand, and a loop or an `if` reading active values (whose branches
/// then both receive the continuation).
fn needs_cps(cx: &FnCx, op: OpId) -> bool {
    let od = cx.src.op(op);
    match od.kind {
        OpKind::Call { .. } => od.operands.iter().any(|&v| cx.needs_adj(v)),
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
/// them, returning the adjoints of the float ones.
pub(crate) fn cont_type(f: &Function, vals: &[Value]) -> ContType {
    cont_type_of(vals.iter().map(|&v| f.ty(v).tensor().clone()).collect())
}

/// The type of the continuations applied to values of types `args`.
pub(crate) fn cont_type_of(args: Vec<TensorType>) -> ContType {
    let results = args.iter().filter(|t| is_float(t)).cloned().collect();
    ContType { args, results }
}

/// Applies `k` to the forward values of `rets` and adds the adjoints it
/// returns to those of the float ones.
fn apply(
    cx: &mut FnCx,
    region: RegionId,
    rets: &[Value],
    k: Value,
    sc: &mut Scope,
) -> Result<(), AdError> {
    let span = cx.src.span;
    let adjs = apply_to(cx, region, rets, k, sc, span)?;
    for (&v, d) in rets.iter().zip(adjs) {
        if let Some(d) = d {
            cx.accumulate(region, span, sc, v, d)?;
        }
    }
    Ok(())
}

/// Emits `apply k` to the forward values of source values `vals`; returns
/// the adjoint it gives each of them (`None` for the non-float ones).
pub(crate) fn apply_to(
    cx: &mut FnCx,
    region: RegionId,
    vals: &[Value],
    k: Value,
    sc: &Scope,
    span: Span,
) -> Result<Vec<Option<Value>>, AdError> {
    let mut operands = vec![k];
    for &v in vals {
        operands.push(cx.fwd(sc, v, span)?);
    }
    let ct = cont_type(cx.src, vals);
    let types = ct.results.iter().cloned().map(Type::Tensor).collect();
    let (_, adjs) = cx
        .dst
        .append_op(region, OpKind::Apply, operands, types, Vec::new(), span);
    let mut adjs = adjs.into_iter();
    Ok(vals
        .iter()
        .map(|&v| is_float(cx.src.ty(v).tensor()).then(|| adjs.next().expect("one per float")))
        .collect())
}

/// Makes the continuation of source `op` in `region`: a function `K` for
/// `rest` then applying `k` to `rets`, closed over what it reads. Returns
/// the closure and the active captures whose adjoints `K` outputs.
fn continuation(
    cx: &mut FnCx,
    region: RegionId,
    op: OpId,
    rest: &[OpId],
    rets: &[Value],
    k: Value,
    sc: &Scope,
) -> Result<(Value, Vec<Value>), AdError> {
    let src = cx.src;
    let od = src.op(op);
    let results = od.results.clone();
    let captures = free_values_of_ops(src, rest, rets, &results);
    let active: Vec<Value> = captures
        .iter()
        .copied()
        .filter(|&v| cx.needs_adj(v))
        .collect();
    let ct = cont_type(src, &results);
    let outer = cx.dst.ty(k).clone();

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
        mode: cx.mode,
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
    cps_ops(&mut kcx, body, rest, rets, kparams[n], &mut ksc)?;
    let mut outs = Vec::new();
    for &v in results.iter().filter(|&&v| is_float(src.ty(v).tensor())) {
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
    operands.push(k);
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

/// `h.cps(args.., kk)` for source call `op`; adds the adjoints it returns
/// to the float arguments'.
fn call(
    cx: &mut FnCx,
    region: RegionId,
    op: OpId,
    callee: FuncId,
    kk: Value,
    sc: &mut Scope,
) -> Result<(), AdError> {
    let od = cx.src.op(op);
    let span = od.span;
    let hc = cx.mcx.cps_function(callee, Mode::Vjp, &[])?;
    let mut args = od
        .operands
        .iter()
        .map(|&v| cx.fwd(sc, v, span))
        .collect::<Result<Vec<_>, _>>()?;
    args.push(kk);
    let floats: Vec<Value> = od
        .operands
        .iter()
        .copied()
        .filter(|&v| is_float(cx.src.ty(v).tensor()))
        .collect();
    let types = floats.iter().map(|&v| cx.src_ty(v)).collect();
    let grads = cx.builder(region, span).call(hc, args, types);
    for (v, g) in floats.into_iter().zip(grads) {
        cx.accumulate(region, span, sc, v, g)?;
    }
    Ok(())
}

/// An `if` on the condition of source `if` op `op` whose branches are in
/// CPS form with continuation `kk`; yields the adjoints of the active
/// values the branches read from outside, added to theirs.
fn branch(
    cx: &mut FnCx,
    region: RegionId,
    op: OpId,
    kk: Value,
    sc: &mut Scope,
) -> Result<(), AdError> {
    super::adjoint::branch::adjoint_if(cx, region, op, sc, |cx, nr, r, inner| {
        let (ops, yields) = split_region(cx.src, r);
        cps_ops(cx, nr, &ops, &yields, kk, inner)
    })
}

impl ModCx<'_> {
    /// The (cached) CPS form `h.cps(params.., k) -> adjoints` of source
    /// function `h`: under [`Mode::Vjp`] the adjoints of all its float
    /// parameters, under [`Mode::Top`] those of the parameters `wrt`.
    pub fn cps_function(
        &mut self,
        h: FuncId,
        mode: Mode,
        wrt: &[usize],
    ) -> Result<FuncId, AdError> {
        if let Some(&id) = self.cps.get(&(h, mode)) {
            return Ok(id);
        }
        let src = self.src(h)?;
        let id = self.reserve();
        self.cps.insert((h, mode), id);
        let active = self.activity(h, mode, wrt)?;
        let (ops, rets) = split_region(src, src.body);
        let wanted: Vec<Value> = match mode {
            Mode::Top => wrt.iter().map(|&i| src.params()[i]).collect(),
            Mode::Vjp => src
                .params()
                .iter()
                .copied()
                .filter(|&p| is_float(src.ty(p).tensor()))
                .collect(),
        };
        let mut params: Vec<(String, Type)> = src
            .param_names
            .iter()
            .cloned()
            .zip(src.params().iter().map(|&p| src.ty(p).clone()))
            .collect();
        params.push(("k".into(), Type::Cont(cont_type(src, &rets))));
        let name = self.unique_name(&format!("{}.cps", src.name));
        let mut g = Function::new(name, &params, src.span);
        g.result_types = wanted.iter().map(|&p| src.ty(p).clone()).collect();
        let body = g.body;
        let gparams = g.params().to_vec();
        let mut cx = FnCx {
            mcx: &mut *self,
            src_id: h,
            src,
            mode,
            active,
            dst: &mut g,
        };
        let mut sc = Scope::default();
        for (&p, &q) in src.params().iter().zip(&gparams) {
            sc.fwd.insert(p, q);
        }
        let k = *gparams.last().expect("the continuation parameter");
        cps_ops(&mut cx, body, &ops, &rets, k, &mut sc)?;
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

    /// The (cached) VJP function of `callee`, `h.vjp(params.., adjoints of
    /// the float results..) -> adjoints of the float params`: `h.cps` with
    /// a continuation that returns the given adjoints (in direct mode, see
    /// [`super::direct`], a recomputation of the callee's forward pass).
    pub fn vjp(&mut self, callee: FuncId) -> Result<FuncId, AdError> {
        if let Some(&id) = self.vjps.get(&callee) {
            return Ok(id);
        }
        let id = self.reserve();
        self.vjps.insert(callee, id);
        if self.direct {
            self.direct_vjp(callee, id)?;
            return Ok(id);
        }
        let h = self.src(callee)?;
        let span = h.span;
        let (_, rets) = split_region(h, h.body);
        let ct = cont_type(h, &rets);
        let dres: Vec<Type> = ct.results.iter().cloned().map(Type::Tensor).collect();
        let seed = self.seed_function(
            &format!("{}.seed", h.name),
            &dres,
            &ct.args,
            dres.clone(),
            span,
            |_, captures, _| Ok(captures.to_vec()),
        )?;
        let hc = self.cps_function(callee, Mode::Vjp, &[])?;
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
        let floats: Vec<TensorType> = h
            .params()
            .iter()
            .map(|&p| h.ty(p).tensor().clone())
            .filter(is_float)
            .collect();
        g.result_types = floats.iter().cloned().map(Type::Tensor).collect();
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
        let grads = b.call(hc, args, floats);
        b.terminate(OpKind::Return, grads);
        self.define(id, g);
        Ok(id)
    }
}
