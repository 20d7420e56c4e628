//! The rewrite rules, one file per family. Every rule but the matmul
//! chain's is exact: the rewritten value equals the original bit for bit
//! for every input (NaN payloads and signs aside), including the sign of
//! zero, so no rule needs `--fast-math`; a reordered matmul chain is
//! within a stated error bound ([`matmul`]). There is no unrestricted
//! commutativity or associativity: a rule only ever removes or merges
//! work, or offers a matmul chain's cheapest order.
//!
//! Rules over attribute-free ops are egg patterns; rules that read
//! attributes (permutations, target shapes) are Rust functions
//! ([`NodeRule`]) over one e-node.

mod fast_math;
mod identities;
mod layout;
pub mod matmul;
mod negation;
mod reduce;
mod select;

use super::analysis::{Graph, Types};
use super::lang::Node;
use agc_ir::{OpKind, TensorType};
use egg::{Applier, Id, PatternAst, Rewrite, SearchMatches, Searcher, Subst, Symbol, Var};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A rewrite of the optimiser.
pub type Rule = Rewrite<Node, Types>;

/// Every rule, in a fixed order (output is deterministic); with
/// `fast_math`, also those that assume finite values ([`fast_math`]).
pub fn all(fast_math: bool) -> Vec<Rule> {
    let mut rules = negation::rules();
    rules.extend(identities::rules());
    rules.extend(layout::rules());
    rules.extend(matmul::rules());
    rules.extend(select::rules());
    rules.extend(reduce::rules());
    if fast_math {
        rules.extend(fast_math::rules());
    }
    rules
}

/// What a [`NodeRule`] says an e-node also equals.
pub enum Rhs {
    /// An existing e-class.
    Class(Id),
    /// An attribute op (kind, result type, operands).
    Attr(OpKind, TensorType, Vec<Id>),
    /// A tree of 2-D products over existing e-classes (a chain's order).
    MatMuls(matmul::MatMulTree),
    /// An attribute-free e-node over existing e-classes.
    Node(Node),
}

/// A rule written in Rust: `rewrite` looks at one e-node (and the type of
/// its e-class) and returns what its e-class also equals.
///
/// egg searches every rule before it applies any, on the same graph: the
/// search keeps what `rewrite` found per e-class for the apply that
/// follows, so `rewrite` (a matmul chain's order search, say) runs once per
/// e-node and round, not twice. What was found stays true when other rules
/// have changed the graph in between: an equality, once found, holds.
pub struct NodeRule {
    rewrite: fn(&Graph, &TensorType, &Node) -> Option<Rhs>,
    found: Arc<Mutex<HashMap<Id, Vec<Rhs>>>>,
}

impl NodeRule {
    /// The rule as an egg rewrite named `name`.
    pub fn named(name: &str, rewrite: fn(&Graph, &TensorType, &Node) -> Option<Rhs>) -> Rule {
        let found = Arc::new(Mutex::new(HashMap::new()));
        let rule = |found| NodeRule { rewrite, found };
        Rewrite::new(name, rule(found.clone()), rule(found)).expect("a rule without variables")
    }
}

impl NodeRule {
    /// What the e-nodes of `eclass` also equal.
    fn rewrites(&self, eg: &Graph, eclass: Id) -> Vec<Rhs> {
        let class = &eg[eclass];
        class
            .nodes
            .iter()
            .filter_map(|n| (self.rewrite)(eg, &class.data.ty, n))
            .collect()
    }
}

impl Searcher<Node, Types> for NodeRule {
    fn search_eclass_with_limit(
        &self,
        eg: &Graph,
        eclass: Id,
        _limit: usize,
    ) -> Option<SearchMatches<'_, Node>> {
        let rhs = self.rewrites(eg, eclass);
        if rhs.is_empty() {
            return None;
        }
        self.found.lock().unwrap().insert(eclass, rhs);
        Some(SearchMatches {
            eclass,
            substs: vec![Subst::default()],
            ast: None,
        })
    }

    fn vars(&self) -> Vec<Var> {
        Vec::new()
    }
}

impl Applier<Node, Types> for NodeRule {
    fn apply_one(
        &self,
        eg: &mut Graph,
        eclass: Id,
        _subst: &Subst,
        _ast: Option<&PatternAst<Node>>,
        _rule: Symbol,
    ) -> Vec<Id> {
        let found = self.found.lock().unwrap().remove(&eclass);
        let rhs = found.unwrap_or_else(|| self.rewrites(eg, eclass));
        let mut changed = Vec::new();
        for rhs in rhs {
            let id = match rhs {
                Rhs::Class(id) => id,
                Rhs::Attr(kind, ty, args) => {
                    let n = eg.analysis.attr(kind, ty, args);
                    eg.add(n)
                }
                Rhs::MatMuls(tree) => tree.add_to(eg),
                Rhs::Node(n) => eg.add(n),
            };
            if eg.union(eclass, id) {
                changed.push(eclass);
            }
        }
        changed
    }
}

/// The attribute op of `node` (kind and result type), if it is one.
pub fn attr<'g>(eg: &'g Graph, node: &Node) -> Option<&'g (OpKind, TensorType)> {
    match node.op {
        super::lang::Op::Attr(i) => Some(eg.analysis.attr_of(i)),
        _ => None,
    }
}

/// A condition for pattern rules: `?var`'s e-class has the matched class's type
/// (so dropping an op that would have broadcast it is not allowed).
pub fn same_type(var: &str) -> impl Fn(&mut Graph, Id, &Subst) -> bool {
    let var: Var = var.parse().expect("a pattern variable");
    move |eg, class, subst| eg[subst[var]].data.ty == eg[class].data.ty
}

/// A condition: `?var` is a splat of exactly `value` (compared bit for bit,
/// so `-0.0` and `0.0` differ).
pub fn splat_of(var: &str, value: f64) -> impl Fn(&mut Graph, Id, &Subst) -> bool {
    let var: Var = var.parse().expect("a pattern variable");
    move |eg, _, subst| eg[subst[var]].data.splat.map(f64::to_bits) == Some(value.to_bits())
}
