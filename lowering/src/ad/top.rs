//! The function [`super::value_and_grad`] builds: `f`'s forward pass, the
//! seed `1` on its first result, the backward pass, and the results.

use super::clone::{clone_ops, split_region};
use super::context::{internal, is_float, FnCx, ModCx, Mode, Scope};
use super::reverse::reverse_ops;
use super::AdError;
use agc_ir::{FuncId, Function, OpId, OpKind, Type};

impl ModCx<'_> {
    /// Builds (and reserves the id of) the value-and-gradient function of `f`.
    pub fn value_and_grad(&mut self, f: FuncId, wrt: &[usize]) -> Result<FuncId, AdError> {
        let src = self.src(f)?;
        self.verify_reachable(f)?;
        check(src, wrt)?;
        let active = self.activity(f, Mode::Top, wrt)?;
        let params: Vec<(String, Type)> = src
            .param_names
            .iter()
            .cloned()
            .zip(src.params().iter().map(|&p| src.ty(p).clone()))
            .collect();
        let name = self.unique_name(&format!("{}.value_and_grad", src.name));
        let mut g = Function::new(name, &params, src.span);
        g.result_types = src.result_types.clone();
        g.result_types
            .extend(wrt.iter().map(|&i| src.ty(src.params()[i]).clone()));
        let id = self.reserve();
        let body = g.body;
        let mut cx = FnCx {
            mcx: self,
            src_id: f,
            src,
            mode: Mode::Top,
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
        let dtype = src.ty(rets[0]).tensor().dtype;
        let one = cx.builder(body, src.span).scalar(dtype, 1.0);
        cx.accumulate(body, src.span, &mut sc, rets[0], one)?;
        reverse_ops(&mut cx, body, &ops, &mut sc)?;
        for &i in wrt {
            let p = src.params()[i];
            outs.push(cx.adj_or_zeros(body, src.span, &sc, p));
        }
        cx.builder(body, src.span).terminate(OpKind::Return, outs);
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

/// The differentiated function returns a scalar float first; `wrt` names float params.
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
    if t.rank() != 0 || !is_float(t) {
        let span = f.def_op(first).map_or(ret_span, |od| od.span);
        return Err(AdError::new(
            format!("the differentiated function must return a scalar float, got {t}"),
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
