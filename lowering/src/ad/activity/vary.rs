//! The forward half of activity: *varied* values, the floats that depend
//! on a varied parameter.
//!
//! The analysis runs forward over the structured IR: an op's float results
//! are varied when one of its operands is; an `if` result when either
//! branch yields a varied value; a `while`'s state is iterated to a fixed
//! point (the state only grows, so this takes at most one pass per state
//! value); a call's results are those its callee's summary marks for the
//! varied operands ([`super::fixpoint`]). Integer and bool values are never
//! varied.

use super::{is_float_value, terminator_operands};
use agc_ir::{FuncId, Function, OpId, OpKind, RegionId, Value};

/// The varied values of `f` (indexed by value) when the parameters marked
/// in `params` are; `callee(g, mask)` says which results of `g` are varied
/// when its parameters `mask` are.
pub(crate) fn analyze(
    f: &Function,
    params: &[bool],
    callee: &mut dyn FnMut(FuncId, Vec<bool>) -> Vec<bool>,
) -> Vec<bool> {
    let mut a = Vary {
        f,
        varied: vec![false; f.num_values()],
        callee,
    };
    for (&p, &on) in f.params().iter().zip(params) {
        a.set(p, on);
    }
    a.region(f.body);
    a.varied
}

struct Vary<'f, 'c> {
    f: &'f Function,
    varied: Vec<bool>,
    callee: &'c mut dyn FnMut(FuncId, Vec<bool>) -> Vec<bool>,
}

impl Vary<'_, '_> {
    /// Marks `v` varied when `on` and `v` is a float; returns whether it changed.
    fn set(&mut self, v: Value, on: bool) -> bool {
        let on = on && is_float_value(self.f, v);
        let changed = on && !self.varied[v.index()];
        self.varied[v.index()] |= on;
        changed
    }

    fn region(&mut self, r: RegionId) {
        for &op in &self.f.region(r).ops {
            self.op(op);
        }
    }

    fn op(&mut self, op: OpId) {
        let od = self.f.op(op);
        match od.kind {
            OpKind::If => {
                for &r in &od.regions {
                    self.region(r);
                    for (res, y) in od.results.iter().zip(terminator_operands(self.f, r)) {
                        self.set(*res, self.varied[y.index()]);
                    }
                }
            }
            OpKind::While => {
                let (before, after) = (od.regions[0], od.regions[1]);
                for (p, x) in self.f.region(before).params.iter().zip(&od.operands) {
                    self.set(*p, self.varied[x.index()]);
                }
                loop {
                    self.region(before);
                    let forwarded = terminator_operands(self.f, before);
                    for (p, x) in self.f.region(after).params.iter().zip(&forwarded[1..]) {
                        self.set(*p, self.varied[x.index()]);
                    }
                    self.region(after);
                    let next = terminator_operands(self.f, after);
                    let mut changed = false;
                    for (p, x) in self.f.region(before).params.iter().zip(&next) {
                        changed |= self.set(*p, self.varied[x.index()]);
                    }
                    if !changed {
                        break;
                    }
                }
                let forwarded = terminator_operands(self.f, before);
                for (res, x) in od.results.iter().zip(&forwarded[1..]) {
                    self.set(*res, self.varied[x.index()]);
                }
            }
            OpKind::Call { callee } => {
                let mask = od.operands.iter().map(|x| self.varied[x.index()]).collect();
                let out = (self.callee)(callee, mask);
                for (&res, on) in od.results.iter().zip(out) {
                    self.set(res, on);
                }
            }
            _ => {
                let on = od.operands.iter().any(|x| self.varied[x.index()]);
                for &res in &od.results {
                    self.set(res, on);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::analyze;
    use crate::builder::Builder;
    use agc_ir::{DType, Function, OpKind, Span, TensorType, UnaryOp};

    #[test]
    fn only_floats_reached_from_varied_params_are_varied() {
        let f32s = TensorType::scalar(DType::F32);
        let params = [
            ("x".to_string(), f32s.clone().into()),
            ("w".to_string(), f32s.clone().into()),
        ];
        let mut f = Function::new("f", &params, Span::UNKNOWN);
        let (body, p) = (f.body, f.params().to_vec());
        let mut b = Builder::new(&mut f, body, Span::UNKNOWN);
        let e = b.unary(UnaryOp::Exp, p[1]);
        let xe = b.mul(p[0], e).unwrap();
        let i = b.cast(xe, DType::I32);
        let back = b.cast(i, DType::F32);
        b.terminate(OpKind::Return, vec![xe, back]);
        let varied = analyze(&f, &[true, false], &mut |_, _| unreachable!("no calls"));
        let on = |v: agc_ir::Value| varied[v.index()];
        assert!(on(p[0]) && on(xe));
        assert!(!on(p[1]) && !on(e), "w is not varied");
        assert!(!on(i) && !on(back), "nothing flows through an integer");
    }
}
