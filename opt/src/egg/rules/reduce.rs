//! Reductions whose rewrite is exact: a max, min or product over axes of
//! size 1 is the element itself, bit for bit, NaN and `-0.0` included (not
//! a sum, which adds it to `0.0` and turns `-0.0` into `0.0`). Nested
//! reductions are not merged: for sums that reorders additions, and even a
//! max of maxes is not exact, since which of `0.0` and `-0.0` a max returns
//! depends on the order it meets them (the semantic test found it).

use super::{attr, NodeRule, Rhs, Rule};
use crate::egg::analysis::Graph;
use crate::egg::lang::Node;
use agc_ir::infer::reshape_allowed;
use agc_ir::{Dim, OpKind, ReduceKind, TensorType};

/// The family's rules.
pub fn rules() -> Vec<Rule> {
    vec![NodeRule::named("reduce-singleton-axes", singleton_axes)]
}

/// A max, min or product over axes of static size 1 only: the operand,
/// reshaped to the result's type when the axes are dropped.
fn singleton_axes(eg: &Graph, _ty: &TensorType, node: &Node) -> Option<Rhs> {
    let (OpKind::Reduce { kind, axes, .. }, ty) = attr(eg, node)? else {
        return None;
    };
    let x = node.args[0];
    let xt = &eg[x].data.ty;
    if *kind == ReduceKind::Sum || !axes.iter().all(|&a| xt.dims[a] == Dim::Static(1)) {
        return None;
    }
    if xt == ty {
        return Some(Rhs::Class(x));
    }
    reshape_allowed(xt, ty).then(|| Rhs::Attr(OpKind::Reshape, ty.clone(), vec![x]))
}
