//! The functions generated per [`Spec`]: the CPS form `h.cps` of a source
//! function ([`super::cps`]), its VJP (`h.cps` applied to a continuation
//! returning given adjoints), and the seed continuations.

use super::activity::Spec;
use super::clone::split_region;
use super::context::{FnCx, ModCx, Scope};
use super::cps::{cont_type, cps_ops, marked, Exit};
use super::AdError;
use crate::builder::Builder;
use agc_ir::{FuncId, Function, OpKind, Span, TensorType, Type, Value};
use std::rc::Rc;

impl ModCx<'_> {
    /// The (cached) CPS form `h.cps(params.., k) -> adjoints` of source
    /// function `h = spec.func`: `k` returns the adjoints of the results
    /// `spec.results` marks, then the adjoints of the parameters `spec.acc`
    /// marks accumulated by the rest of the program; `h.cps` returns the
    /// adjoints of the parameters `spec.params` marks (those of `spec.acc`
    /// with `k`'s added).
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
        let acc = marked(src.params(), &spec.acc);
        let k = cont_type(src, &rets, &spec.results, &acc);
        params.push(("k".into(), Type::Cont(k)));
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
            acc: &acc,
            k: *gparams.last().expect("the continuation parameter"),
        };
        cps_ops(&mut cx, body, &ops, exit, &mut sc)?;
        let outs: Vec<Value> = wanted
            .iter()
            .map(|&p| cx.adj_or_zeros(body, src.span, &mut sc, p))
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
        Builder::new(&mut g, body, span).terminate(OpKind::Return, outs);
        let id = self.reserve();
        self.define(id, g);
        Ok(id)
    }

    /// The (cached) VJP function of `spec`, `h.vjp(params.., adjoints of
    /// the results spec.results marks..) -> adjoints of the parameters
    /// spec.params marks`: `h.cps` with a continuation that returns the given
    /// adjoints (`spec.acc` marks nothing); in direct mode (see
    /// [`super::direct`]), a recomputation of the callee's forward pass.
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
        let dparams: Vec<TensorType> = marked(h.params(), &spec.params)
            .iter()
            .map(|&p| h.ty(p).tensor().clone())
            .collect();
        let ct = cont_type(h, &rets, &spec.results, &[]);
        let dres: Vec<Type> = ct.results.iter().cloned().map(Type::Tensor).collect();
        let seed = self.seed_function(
            &format!("{}.seed", h.name),
            &dres,
            &ct.args,
            dres.clone(),
            span,
            |_, captures, _| Ok(captures.to_vec()),
        )?;
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
        let mut b = Builder::new(&mut g, body, span);
        let grads = b.call(hc, args, dparams);
        b.terminate(OpKind::Return, grads);
        self.define(id, g);
        Ok(id)
    }
}
