//! Rewriting a function by copying it: a pass walks the source function's
//! regions in execution order and, for each op, keeps it (copied with its
//! operands renamed), drops it (its results standing for values already
//! copied), or emits something else in its place. The copy has fresh,
//! dense arenas: ops a pass leaves behind are simply not copied, so no
//! pass needs to delete anything in place.

use agc_ir::{Function, OpId, RegionId, Type, Value};

/// What a pass does at each op of the source function.
pub trait Visit {
    /// Handles `op` of the source, appending whatever replaces it to region
    /// `at` of the copy (usually [`Copier::keep`]).
    fn op(&mut self, c: &mut Copier, at: RegionId, op: OpId);
    /// Called before the ops of a nested region are visited.
    fn enter(&mut self, _c: &Copier, _region: RegionId) {}
    /// Called after the ops of a nested region were visited.
    fn leave(&mut self, _c: &Copier, _region: RegionId) {}
}

/// A function being copied from `src` into `dst`.
pub struct Copier<'s> {
    /// The function being rewritten.
    pub src: &'s Function,
    /// The copy under construction.
    pub dst: Function,
    map: Vec<Option<Value>>,
}

impl<'s> Copier<'s> {
    /// Copies `src` through `visit` and returns the copy.
    pub fn run(src: &'s Function, visit: &mut impl Visit) -> Function {
        let params: Vec<(String, Type)> = src
            .param_names
            .iter()
            .zip(src.params())
            .map(|(n, v)| (n.clone(), src.ty(*v).clone()))
            .collect();
        let mut dst = Function::new(src.name.clone(), &params, src.span);
        dst.result_types = src.result_types.clone();
        dst.gradient_of = src.gradient_of.clone();
        dst.outlined = src.outlined;
        let mut c = Copier {
            src,
            map: vec![None; src.num_values()],
            dst,
        };
        for (p, q) in src.params().iter().zip(c.dst.params().to_vec()) {
            c.alias(*p, q);
        }
        let body = c.dst.body;
        c.region(visit, src.body, body);
        c.dst
    }

    /// A copier from `src` into `dst`, a function built elsewhere (for a
    /// pass that moves part of `src` into a new function): no value of
    /// `src` stands for one of `dst` yet.
    pub fn onto(src: &'s Function, dst: Function) -> Self {
        Copier {
            src,
            map: vec![None; src.num_values()],
            dst,
        }
    }

    /// The copy of source value `v`.
    ///
    /// Panics when `v` has no copy yet: a pass used a value before the op
    /// defining it was handled (operands are always defined first in the
    /// source, so this is a bug in the pass).
    pub fn mapped(&self, v: Value) -> Value {
        self.map[v.index()].unwrap_or_else(|| panic!("{v} used before it was copied"))
    }

    /// The copy of `v` if it has one.
    pub fn try_mapped(&self, v: Value) -> Option<Value> {
        self.map[v.index()]
    }

    /// Makes source value `from` stand for copy value `to`.
    pub fn alias(&mut self, from: Value, to: Value) {
        self.map[from.index()] = Some(to);
    }

    /// Visits the ops of source region `src_r`, appending to copy region `at`.
    pub fn region(&mut self, visit: &mut impl Visit, src_r: RegionId, at: RegionId) {
        for &op in &self.src.region(src_r).ops {
            visit.op(self, at, op);
        }
    }

    /// Copies `op` unchanged (operands renamed; nested regions visited
    /// through `visit`) to the end of `at`; returns the copy's results.
    pub fn keep(&mut self, visit: &mut impl Visit, at: RegionId, op: OpId) -> Vec<Value> {
        let od = self.src.op(op);
        let operands = od.operands.iter().map(|v| self.mapped(*v)).collect();
        let mut regions = Vec::with_capacity(od.regions.len());
        for &r in &od.regions {
            let params = &self.src.region(r).params;
            let types: Vec<Type> = params.iter().map(|p| self.src.ty(*p).clone()).collect();
            let nr = self.dst.new_region(&types);
            for (p, q) in params.iter().zip(self.dst.region(nr).params.clone()) {
                self.alias(*p, q);
            }
            visit.enter(self, r);
            self.region(visit, r, nr);
            visit.leave(self, r);
            regions.push(nr);
        }
        let types = od.results.iter().map(|v| self.src.ty(*v).clone()).collect();
        let (_, results) =
            self.dst
                .append_op(at, od.kind.clone(), operands, types, regions, od.span);
        for (r, n) in od.results.iter().zip(&results) {
            self.alias(*r, *n);
        }
        results
    }
}

/// Counts the ops reachable from a function's body (nested regions
/// included): the ops a backend would see.
pub fn live_ops(f: &Function) -> usize {
    f.ops_within(f.body).len()
}

/// A [`Visit`] that copies every op as it is.
pub struct KeepAll;

impl Visit for KeepAll {
    fn op(&mut self, c: &mut Copier, at: RegionId, op: OpId) {
        c.keep(self, at, op);
    }
}
