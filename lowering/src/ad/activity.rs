//! Activity analysis: which values carry adjoints.
//!
//! A value is *active* when it is a float tensor that depends on an active
//! seed (a differentiated parameter). Only active values get adjoints, so the
//! backward pass never computes the gradient of a constant or an integer.
//! The analysis runs forward over the structured IR: an op's float results
//! are active when one of its operands is; an `if` result when either branch
//! yields an active value; a `while`'s state is iterated to a fixed point
//! (the state only grows, so this takes at most one pass per state value).
//! Integer and bool values are never active.

use super::context::is_float;
use agc_ir::{Function, OpId, OpKind, RegionId, Value};

/// The active values of `f` given the active `seeds`, indexed by value.
pub(crate) fn analyze(f: &Function, seeds: &[Value]) -> Vec<bool> {
    let mut a = Activity {
        f,
        active: vec![false; f.num_values()],
    };
    for &s in seeds {
        a.set(s, true);
    }
    a.region(f.body);
    a.active
}

struct Activity<'f> {
    f: &'f Function,
    active: Vec<bool>,
}

impl Activity<'_> {
    /// Marks `v` active when `on` and `v` is a float; returns whether it changed.
    fn set(&mut self, v: Value, on: bool) -> bool {
        let on = on && is_float(self.f.ty(v).tensor());
        let changed = on && !self.active[v.index()];
        self.active[v.index()] |= on;
        changed
    }

    fn terminator_operands(&self, r: RegionId) -> Vec<Value> {
        self.f
            .region(r)
            .ops
            .last()
            .map_or(Vec::new(), |&t| self.f.op(t).operands.clone())
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
                    for (res, y) in od.results.iter().zip(self.terminator_operands(r)) {
                        self.set(*res, self.active[y.index()]);
                    }
                }
            }
            OpKind::While => {
                let (before, after) = (od.regions[0], od.regions[1]);
                for (p, x) in self.f.region(before).params.iter().zip(&od.operands) {
                    self.set(*p, self.active[x.index()]);
                }
                loop {
                    self.region(before);
                    let forwarded = self.terminator_operands(before);
                    for (p, x) in self.f.region(after).params.iter().zip(&forwarded[1..]) {
                        self.set(*p, self.active[x.index()]);
                    }
                    self.region(after);
                    let next = self.terminator_operands(after);
                    let mut changed = false;
                    for (p, x) in self.f.region(before).params.iter().zip(&next) {
                        changed |= self.set(*p, self.active[x.index()]);
                    }
                    if !changed {
                        break;
                    }
                }
                let forwarded = self.terminator_operands(before);
                for (res, x) in od.results.iter().zip(&forwarded[1..]) {
                    self.set(*res, self.active[x.index()]);
                }
            }
            _ => {
                let on = od.operands.iter().any(|x| self.active[x.index()]);
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
    fn only_floats_reached_from_seeds_are_active() {
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
        let active = analyze(&f, &[p[0]]);
        let on = |v: agc_ir::Value| active[v.index()];
        assert!(on(p[0]) && on(xe));
        assert!(!on(p[1]) && !on(e), "w is not differentiated");
        assert!(!on(i) && !on(back), "nothing flows through an integer");
    }
}
