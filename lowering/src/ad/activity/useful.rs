//! The backward half of activity: *useful* values, the floats some
//! useful result depends on.
//!
//! The analysis runs backward over the structured IR, from the operands of
//! the `return` marked useful: an op's float operands are useful when one
//! of its results is; an `if` branch's yielded values when the `if`'s
//! results are, then the branch backward; a `while` is iterated to a fixed
//! point (a useful result makes the forwarded value of the `condition`
//! useful, a useful state makes the `after` region's yielded value and the
//! initial value useful); a call's operands are those its callee's summary
//! marks for the useful results ([`super::fixpoint`]). Integer and bool
//! values are never useful: no derivative flows through them.

use super::{is_float_value, terminator_operands};
use agc_ir::{FuncId, Function, OpId, OpKind, RegionId, Value};

/// The useful values of `f` (indexed by value) when the results marked in
/// `results` are; `callee(g, mask)` says which parameters of `g` are useful
/// when its results `mask` are.
pub(crate) fn analyze(
    f: &Function,
    results: &[bool],
    callee: &mut dyn FnMut(FuncId, Vec<bool>) -> Vec<bool>,
) -> Vec<bool> {
    let mut a = Useful {
        f,
        useful: vec![false; f.num_values()],
        changed: false,
        callee,
    };
    for (&v, &on) in terminator_operands(f, f.body).iter().zip(results) {
        a.set(v, on);
    }
    a.region(f.body);
    a.useful
}

struct Useful<'f, 'c> {
    f: &'f Function,
    useful: Vec<bool>,
    /// Set when a value became useful (for the fixed points of loops).
    changed: bool,
    callee: &'c mut dyn FnMut(FuncId, Vec<bool>) -> Vec<bool>,
}

impl Useful<'_, '_> {
    /// Marks `v` useful when `on` and `v` is a float.
    fn set(&mut self, v: Value, on: bool) {
        let on = on && is_float_value(self.f, v);
        if on && !self.useful[v.index()] {
            self.useful[v.index()] = true;
            self.changed = true;
        }
    }

    fn on(&self, v: Value) -> bool {
        self.useful[v.index()]
    }

    /// The ops of `r` backward (its terminator's operands are seeded by the caller).
    fn region(&mut self, r: RegionId) {
        for &op in self.f.region(r).ops.iter().rev() {
            self.op(op);
        }
    }

    fn op(&mut self, op: OpId) {
        let od = self.f.op(op);
        match od.kind {
            OpKind::Return | OpKind::Yield | OpKind::Condition => {}
            OpKind::If => {
                for &r in &od.regions {
                    for (res, y) in od.results.iter().zip(terminator_operands(self.f, r)) {
                        self.set(y, self.on(*res));
                    }
                    self.region(r);
                }
            }
            OpKind::While => {
                let (before, after) = (od.regions[0], od.regions[1]);
                let state = self.f.region(before).params.clone();
                let args = self.f.region(after).params.clone();
                let outer = std::mem::take(&mut self.changed);
                let mut grew = false;
                loop {
                    self.changed = false;
                    let forwarded = terminator_operands(self.f, before);
                    for (i, &x) in forwarded[1..].iter().enumerate() {
                        self.set(x, self.on(od.results[i]) || self.on(args[i]));
                    }
                    self.region(before);
                    for (&p, y) in state.iter().zip(terminator_operands(self.f, after)) {
                        self.set(y, self.on(p));
                    }
                    self.region(after);
                    grew |= self.changed;
                    if !self.changed {
                        break;
                    }
                }
                self.changed = outer || grew;
                for (&p, &x) in state.iter().zip(&od.operands) {
                    self.set(x, self.on(p));
                }
            }
            OpKind::Call { callee } => {
                let mask: Vec<bool> = od.results.iter().map(|&r| self.on(r)).collect();
                if !mask.contains(&true) {
                    return;
                }
                for (&x, on) in od.operands.iter().zip((self.callee)(callee, mask)) {
                    self.set(x, on);
                }
            }
            _ => {
                if od.results.iter().any(|&r| self.on(r)) {
                    for &x in &od.operands {
                        self.set(x, true);
                    }
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
    fn only_floats_a_useful_result_reads_are_useful() {
        let f32s = TensorType::scalar(DType::F32);
        let params = [
            ("x".to_string(), f32s.clone().into()),
            ("w".to_string(), f32s.clone().into()),
        ];
        let mut f = Function::new("f", &params, Span::UNKNOWN);
        let (body, p) = (f.body, f.params().to_vec());
        let mut b = Builder::new(&mut f, body, Span::UNKNOWN);
        let e = b.unary(UnaryOp::Exp, p[1]);
        let i = b.cast(p[0], DType::I32);
        let back = b.cast(i, DType::F32);
        let y = b.mul(back, e).unwrap();
        let unused = b.unary(UnaryOp::Sin, p[0]);
        b.terminate(OpKind::Return, vec![y, unused]);
        let useful = analyze(&f, &[true, false], &mut |_, _| unreachable!("no calls"));
        let on = |v: agc_ir::Value| useful[v.index()];
        assert!(on(y) && on(e) && on(p[1]) && on(back));
        assert!(!on(i) && !on(p[0]), "nothing flows back through an integer");
        assert!(!on(unused), "the second result is not useful");
    }
}
