//! The function [`super::value_and_grad`] builds: `f`'s CPS form applied
//! to the seed continuation, which returns `1` as the adjoint of the first
//! result and hands the results back.

use super::clone::split_region;
use super::context::{internal, is_float, ModCx};
use super::cps::cont_type;
use super::AdError;
use crate::builder::Builder;
use agc_ir::{FuncId, Function, OpId, OpKind, TensorType, Type, Value};

impl ModCx<'_> {
    /// Builds the value-and-gradient function of `f`:
    ///
    /// ```text
    /// f.value_and_grad(params..) -> (results.., gradients..)
    ///   k = cont @f.seed()                // returns 1 for the first result
    ///   gradients = f.cps(params.., k)    // forward, k, backward
    ///   results = cont_outputs k          // what k received
    /// ```
    ///
    /// `f.cps` returns the gradients the result depends on (activity's
    /// [`top`](super::activity::Activity::top) spec); the others are zeros.
    pub fn value_and_grad(&mut self, f: FuncId, wrt: &[usize]) -> Result<FuncId, AdError> {
        let src = self.src(f)?;
        self.verify_reachable(f)?;
        check(src, wrt)?;
        let span = src.span;
        let (_, rets) = split_region(src, src.body);
        let spec = self.activity.top(self.m, f, wrt);
        let ct = cont_type(src, &rets, &spec.results, &[]);
        let seed = self.seed_function(
            &format!("{}.seed", src.name),
            &[],
            &ct.args,
            ct.results
                .iter()
                .cloned()
                .map(Type::Tensor)
                .chain(src.result_types.iter().cloned())
                .collect(),
            span,
            |g, _, args| {
                let body = g.body;
                let mut b = Builder::new(g, body, span);
                let mut outs = Vec::new();
                for (i, &y) in args.iter().enumerate() {
                    if spec.results[i] {
                        let t = b.ty(y);
                        outs.push(b.full(&t, if i == 0 { 1.0 } else { 0.0 }));
                    }
                }
                outs.extend_from_slice(args);
                Ok(outs)
            },
        )?;
        let fc = self.cps_function(spec.clone())?;
        let params: Vec<(String, Type)> = src
            .param_names
            .iter()
            .cloned()
            .zip(src.params().iter().map(|&p| src.ty(p).clone()))
            .collect();
        let name = self.unique_name(&format!("{}.value_and_grad", src.name));
        let mut g = Function::new(name, &params, span);
        g.gradient_of = Some((f, wrt.to_vec()));
        g.result_types = src.result_types.clone();
        let grad_types: Vec<TensorType> = wrt
            .iter()
            .map(|&i| src.ty(src.params()[i]).tensor().clone())
            .collect();
        g.result_types
            .extend(grad_types.iter().cloned().map(Type::Tensor));
        let body = g.body;
        let (_, k) = g.append_op(
            body,
            OpKind::MakeCont { func: seed },
            Vec::new(),
            vec![Type::Cont(ct)],
            Vec::new(),
            span,
        );
        let mut args = g.params().to_vec();
        args.push(k[0]);
        let computed: Vec<TensorType> = (0..spec.params.len())
            .filter(|&i| spec.params[i])
            .map(|i| src.ty(src.params()[i]).tensor().clone())
            .collect();
        let mut b = Builder::new(&mut g, body, span);
        let computed = b.call(fc, args, computed);
        let grads: Vec<Value> = wrt
            .iter()
            .zip(&grad_types)
            .map(
                |(&i, t)| match spec.params[..i].iter().filter(|&&on| on).count() {
                    n if spec.params[i] => computed[n],
                    _ => b.zeros(t),
                },
            )
            .collect();
        let (_, mut outs) = g.append_op(
            body,
            OpKind::ContOutputs,
            k,
            src.result_types.clone(),
            Vec::new(),
            span,
        );
        outs.extend(grads);
        Builder::new(&mut g, body, span).terminate(OpKind::Return, outs);
        let id = self.reserve();
        self.define(id, g);
        Ok(id)
    }
}

impl ModCx<'_> {
    /// Verifies `f` and every function it calls, directly or not: the rules
    /// index operands by position and rely on the verifier's arities.
    fn verify_reachable(&self, f: FuncId) -> Result<(), AdError> {
        let mut seen = vec![f];
        let mut todo = vec![f];
        while let Some(id) = todo.pop() {
            let func = self.src(id)?;
            agc_ir::verify::verify_function(func)
                .map_err(|e| internal(e.to_string(), func.span))?;
            for i in 0..func.num_ops() {
                if let OpKind::Call { callee } = func.op(OpId(i as u32)).kind {
                    if !seen.contains(&callee) {
                        seen.push(callee);
                        todo.push(callee);
                    }
                }
            }
        }
        Ok(())
    }
}

/// The differentiated function returns a float with one element first (a
/// scalar, or an array of shape `(1, .., 1)`, as autograd accepts); `wrt`
/// names float params.
fn check(f: &Function, wrt: &[usize]) -> Result<(), AdError> {
    let (_, rets) = split_region(f, f.body);
    let ret_span = f
        .region(f.body)
        .ops
        .last()
        .map_or(f.span, |&t| f.op(t).span);
    let Some(&first) = rets.first() else {
        return Err(AdError::new(
            "the differentiated function must return a scalar float, got no result",
            ret_span,
        ));
    };
    let t = f.ty(first).tensor();
    if t.static_numel() != Some(1) || !is_float(t) {
        let span = f.def_op(first).map_or(ret_span, |od| od.span);
        return Err(AdError::new(
            format!("the differentiated function must return a scalar float (or a one-element array), got {t}"),
            span,
        ));
    }
    let n = f.params().len();
    for &i in wrt {
        let Some(&p) = f.params().get(i) else {
            return Err(AdError::new(
                format!("argnums {i} is out of range for a function of {n} parameters"),
                f.span,
            ));
        };
        let t = f.ty(p).tensor();
        if !is_float(t) {
            return Err(AdError::new(
                format!(
                    "grad requires float inputs, but parameter `{}` has dtype {}: integer and bool parameters cannot be differentiated",
                    f.param_names.get(i).map_or("?", String::as_str),
                    t.dtype.numpy_name()
                ),
                f.span,
            ));
        }
    }
    Ok(())
}
