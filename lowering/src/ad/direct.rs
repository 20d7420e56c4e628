//! Direct-style gradients, for code that is differentiated again.
//!
//! The CPS form of a gradient ([`super::cps`]) has continuation values,
//! which have no adjoints: a function that calls a gradient (a gradient
//! norm, a Hessian-vector product) cannot be differentiated through it.
//! Before such a function is differentiated, each call of a gradient
//! function in the code it reaches is retargeted to a *direct-style* twin
//! computing the same values with plain IR: the forward ops, the seed, the
//! adjoint rules in reverse order; an `if` recomputes its branches, a loop
//! runs again inside its backward function, and a call's adjoint is the
//! callee's VJP, which recomputes the callee's forward pass (so recursion
//! costs O(N·depth) there). The twin is then differentiated in CPS form like
//! any code.

use super::activity::Spec;
use super::clone::{clone_ops, split_region};
use super::context::{FnCx, ModCx, Scope};
use super::cps::marked;
use super::reverse::reverse_ops;
use super::AdError;
use agc_ir::{FuncId, Function, Module, OpId, OpKind, Type, Value};
use std::collections::HashMap;
use std::rc::Rc;

/// Retargets every call of a gradient function in the code `f` reaches
/// (gradients of gradients included) to its direct-style twin, appended to `m`.
pub fn use_direct_gradients(m: &mut Module, f: FuncId) -> Result<(), AdError> {
    let mut twins: HashMap<(FuncId, Vec<usize>), FuncId> = HashMap::new();
    let mut seen = vec![f];
    let mut todo = vec![f];
    while let Some(id) = todo.pop() {
        let calls: Vec<(OpId, FuncId)> = {
            let func = m.func(id);
            (0..func.num_ops())
                .map(|i| OpId(i as u32))
                .filter_map(|op| match func.op(op).kind {
                    OpKind::Call { callee } => Some((op, callee)),
                    _ => None,
                })
                .collect()
        };
        for (op, callee) in calls {
            let target = match m.func(callee).gradient_of.clone() {
                Some(key) => {
                    let twin = match twins.get(&key) {
                        Some(&t) => t,
                        None => {
                            use_direct_gradients(m, key.0)?;
                            let t = direct_value_and_grad(m, key.0, &key.1)?;
                            twins.insert(key, t);
                            t
                        }
                    };
                    m.funcs[id.index()].retarget_call(op, twin);
                    twin
                }
                None => callee,
            };
            if !seen.contains(&target) {
                seen.push(target);
                todo.push(target);
            }
        }
    }
    Ok(())
}

/// Appends the direct-style value-and-gradient function of `f` to `m`.
fn direct_value_and_grad(m: &mut Module, f: FuncId, wrt: &[usize]) -> Result<FuncId, AdError> {
    let (id, new) = {
        let mut mcx = ModCx::new(m);
        mcx.direct = true;
        let id = mcx.direct_top(f, wrt)?;
        (id, mcx.finish())
    };
    for func in new {
        m.add_function(func);
    }
    Ok(id)
}

impl ModCx<'_> {
    /// `f`'s forward pass, the seed `1` on its first result, the backward pass.
    fn direct_top(&mut self, f: FuncId, wrt: &[usize]) -> Result<FuncId, AdError> {
        let src = self.src(f)?;
        let spec = self.activity.top(self.m, f, wrt);
        let active = self.active(&spec);
        let name = self.unique_name(&format!("{}.value_and_grad_direct", src.name));
        let mut g = Function::new(name, &params_of(src), src.span);
        g.result_types = src.result_types.clone();
        g.result_types
            .extend(wrt.iter().map(|&i| src.ty(src.params()[i]).clone()));
        let id = self.reserve();
        let body = g.body;
        let mut cx = FnCx {
            mcx: self,
            src_id: f,
            src,
            spec: Rc::new(spec),
            active,
            dst: &mut g,
        };
        let mut sc = Scope::default();
        for (&p, &q) in src.params().iter().zip(cx.dst.params().to_vec().iter()) {
            sc.fwd.insert(p, q);
        }
        let (ops, rets) = split_region(src, src.body);
        clone_ops(&mut cx, body, &ops, &mut sc)?;
        let mut outs = rets
            .iter()
            .map(|&v| cx.fwd(&sc, v, src.span))
            .collect::<Result<Vec<_>, _>>()?;
        let seed_type = src.ty(rets[0]).tensor().clone();
        let one = cx.builder(body, src.span).full(&seed_type, 1.0);
        cx.accumulate(body, src.span, &mut sc, rets[0], one)?;
        reverse_ops(&mut cx, body, &ops, &mut sc)?;
        for &i in wrt {
            outs.push(cx.adj_or_zeros(body, src.span, &mut sc, src.params()[i]));
        }
        cx.builder(body, src.span).terminate(OpKind::Return, outs);
        self.define(id, g);
        Ok(id)
    }

    /// The direct-style VJP of `spec` (whose id is reserved as `id`):
    /// recomputes its function's forward pass, seeds the adjoints of the
    /// results the spec marks, runs the backward pass, returns the adjoints
    /// of the parameters the spec marks.
    pub(crate) fn direct_vjp(&mut self, spec: Spec, id: FuncId) -> Result<(), AdError> {
        let callee = spec.func;
        let h = self.src(callee)?;
        let active = self.active(&spec);
        let (ops, rets) = split_region(h, h.body);
        let (dres, dparams) = (
            marked(&rets, &spec.results),
            marked(h.params(), &spec.params),
        );
        let mut params = params_of(h);
        params.extend(
            dres.iter()
                .enumerate()
                .map(|(i, &v)| (format!("adj_result{i}"), h.ty(v).clone())),
        );
        let name = self.unique_name(&format!("{}.vjp", h.name));
        let mut g = Function::new(name, &params, h.span);
        g.result_types = dparams.iter().map(|&p| h.ty(p).clone()).collect();
        let body = g.body;
        let gparams = g.params().to_vec();
        let mut cx = FnCx {
            mcx: &mut *self,
            src_id: callee,
            src: h,
            spec: Rc::new(spec),
            active,
            dst: &mut g,
        };
        let mut sc = Scope::default();
        for (&p, &q) in h.params().iter().zip(&gparams) {
            sc.fwd.insert(p, q);
        }
        clone_ops(&mut cx, body, &ops, &mut sc)?;
        for (&v, &seed) in dres.iter().zip(&gparams[h.params().len()..]) {
            cx.accumulate(body, h.span, &mut sc, v, seed)?;
        }
        reverse_ops(&mut cx, body, &ops, &mut sc)?;
        let outs: Vec<Value> = dparams
            .iter()
            .map(|&p| cx.adj_or_zeros(body, h.span, &mut sc, p))
            .collect();
        cx.builder(body, h.span).terminate(OpKind::Return, outs);
        self.define(id, g);
        Ok(())
    }
}

/// A function's parameters as (name, type) pairs.
fn params_of(f: &Function) -> Vec<(String, Type)> {
    f.param_names
        .iter()
        .cloned()
        .zip(f.params().iter().map(|&p| f.ty(p).clone()))
        .collect()
}
