//! Activity analysis: which values carry adjoints, per specialisation.
//!
//! A function is differentiated once per [`Spec`]: which of its parameters
//! need adjoints and which of its results receive adjoints. Inside it, a
//! value is *active* (carries an adjoint) when it is
//!
//! - *varied* ([`vary`]): a float that depends on a parameter the spec
//!   marks, and
//! - *useful* ([`useful`]): a float that a result the spec marks depends on.
//!
//! This is the activity analysis of source-transformation AD tools (L.
//! Hascoët, V. Pascual, "The Tapenade automatic differentiation tool:
//! principles, model, and specification", ACM TOMS 39(3), 2013, §3.1),
//! made context-sensitive by specialising per call pattern: a call inside
//! differentiated code is differentiated under the spec of its active
//! operands and results ([`Activity::call`]), so a parameter passed along
//! a recursion but not differentiated (an embedding table) never gets an
//! adjoint, nor does a result nobody reads (the memory cell of a TreeLSTM's
//! root). Calls are analysed through function summaries solved to a fixed
//! point over recursion ([`fixpoint`]).

pub(crate) mod fixpoint;
pub(crate) mod useful;
pub(crate) mod vary;

use super::context::is_float;
use agc_ir::{FuncId, Function, Module, RegionId, Value};
use fixpoint::{Direction, Summaries};
use std::collections::HashMap;
use std::rc::Rc;

/// One differentiation of a function: which parameters need adjoints,
/// which results receive adjoints, and which parameters' accumulated
/// adjoints the continuation returns (one flag each; never set on integer
/// or bool ones).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) struct Spec {
    /// The source function.
    pub func: FuncId,
    /// Per parameter: its adjoint is computed and returned.
    pub params: Vec<bool>,
    /// Per result: the continuation (or the caller) gives its adjoint.
    pub results: Vec<bool>,
    /// Per parameter (a subset of `params`): the continuation returns its
    /// adjoint accumulated by the rest of the program, which the function
    /// adds its own contributions to (see [`super::cps`]); the others start
    /// from zero in the function.
    pub acc: Vec<bool>,
}

impl Spec {
    /// True when the spec computes no adjoint at all.
    pub fn is_inactive(&self) -> bool {
        !self.params.contains(&true) && !self.results.contains(&true)
    }
}

/// Activity over a module: the summaries of both halves and the active
/// values per spec.
pub(crate) struct Activity {
    vary: Summaries,
    useful: Summaries,
    values: HashMap<Spec, Rc<Vec<bool>>>,
}

impl Activity {
    /// Nothing analysed yet.
    pub fn new() -> Self {
        Activity {
            vary: Summaries::new(Direction::Forward),
            useful: Summaries::new(Direction::Backward),
            values: HashMap::new(),
        }
    }

    /// The spec of `f` differentiated as a whole: its first result with
    /// respect to the parameters `wrt`, less those the result does not
    /// depend on (their gradient is zero).
    pub fn top(&mut self, m: &Module, f: FuncId, wrt: &[usize]) -> Spec {
        let func = m.func(f);
        let mut params = vec![false; func.params().len()];
        for &i in wrt {
            params[i] = is_float_value(func, func.params()[i]);
        }
        let mut results = vec![false; func.result_types.len()];
        if let Some(r) = results.first_mut() {
            *r = true;
        }
        let varied = self.vary.solve(m, f, params.clone());
        let results = and(&results, &varied);
        let useful = self.useful.solve(m, f, results.clone());
        let n = params.len();
        Spec {
            func: f,
            params: and(&params, &useful),
            results,
            acc: vec![false; n],
        }
    }

    /// The spec of a call of `callee` whose operands `args` and results
    /// `results` are active in the caller: the results keep their marks,
    /// the operands those the marked results depend on (no accumulated
    /// adjoint yet: see [`super::cps`]).
    pub fn call(&mut self, m: &Module, callee: FuncId, args: &[bool], results: &[bool]) -> Spec {
        let useful = self.useful.solve(m, callee, results.to_vec());
        Spec {
            func: callee,
            params: and(args, &useful),
            results: results.to_vec(),
            acc: vec![false; args.len()],
        }
    }

    /// The active values of `spec.func` under `spec`, indexed by value.
    pub fn values(&mut self, m: &Module, spec: &Spec) -> Rc<Vec<bool>> {
        if let Some(a) = self.values.get(spec) {
            return a.clone();
        }
        let varied = self.vary.values(m, spec.func, &spec.params);
        let useful = self.useful.values(m, spec.func, &spec.results);
        let active = Rc::new(and(&varied, &useful));
        self.values.insert(spec.clone(), active.clone());
        active
    }
}

/// Elementwise `a && b`.
fn and(a: &[bool], b: &[bool]) -> Vec<bool> {
    a.iter().zip(b).map(|(&x, &y)| x && y).collect()
}

/// True when `v` is a float tensor (the values that carry derivatives).
pub(crate) fn is_float_value(f: &Function, v: Value) -> bool {
    f.ty(v).as_tensor().is_some_and(is_float)
}

/// The operands of the terminator of region `r`.
pub(crate) fn terminator_operands(f: &Function, r: RegionId) -> Vec<Value> {
    f.region(r)
        .ops
        .last()
        .map_or(Vec::new(), |&t| f.op(t).operands.clone())
}
