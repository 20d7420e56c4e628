//! Layout: transposes, reshapes, broadcasts, slices and casts that cancel
//! or compose. Data movement only, so every rule is exact.

use super::{attr, NodeRule, Rhs, Rule};
use crate::egg::analysis::Graph;
use crate::egg::lang::Node;
use agc_ir::infer::reshape_allowed;
use agc_ir::OpKind;

/// The family's rules.
pub fn rules() -> Vec<Rule> {
    vec![
        NodeRule::named("identity-layout", identity_layout),
        NodeRule::named("transpose-transpose", transpose_transpose),
        NodeRule::named("reshape-reshape", reshape_reshape),
    ]
}

/// A transpose by the identity, a reshape or broadcast to the operand's own
/// type, a slice taking every axis whole, a cast to the operand's dtype:
/// the operand itself.
fn identity_layout(eg: &Graph, node: &Node) -> Option<Rhs> {
    let (kind, ty) = attr(eg, node)?;
    let is_identity = match kind {
        OpKind::Transpose { perm } => perm.iter().enumerate().all(|(i, p)| i == *p),
        OpKind::Reshape | OpKind::BroadcastTo | OpKind::Cast => true,
        OpKind::Slice { dims } => dims.iter().all(|d| d.is_full()),
        _ => false,
    };
    let x = *node.args.first()?;
    (is_identity && eg[x].data.ty == *ty).then_some(Rhs::Class(x))
}

/// `transpose(transpose(x, p), q)` is `transpose(x, [p[q[i]]])`, or `x`
/// when that is the identity.
fn transpose_transpose(eg: &Graph, node: &Node) -> Option<Rhs> {
    let (OpKind::Transpose { perm: q }, ty) = attr(eg, node)? else {
        return None;
    };
    eg[node.args[0]].nodes.iter().find_map(|inner| {
        let (OpKind::Transpose { perm: p }, _) = attr(eg, inner)? else {
            return None;
        };
        let x = inner.args[0];
        let perm: Vec<usize> = q.iter().map(|&i| p[i]).collect();
        if perm.iter().enumerate().all(|(i, p)| i == *p) {
            return (eg[x].data.ty == *ty).then_some(Rhs::Class(x));
        }
        Some(Rhs::Attr(OpKind::Transpose { perm }, ty.clone(), vec![x]))
    })
}

/// `reshape(reshape(x))` is one reshape of `x` (or `x` when the outer
/// type is `x`'s), when that reshape is well typed.
fn reshape_reshape(eg: &Graph, node: &Node) -> Option<Rhs> {
    let (OpKind::Reshape, ty) = attr(eg, node)? else {
        return None;
    };
    eg[node.args[0]].nodes.iter().find_map(|inner| {
        let (OpKind::Reshape, _) = attr(eg, inner)? else {
            return None;
        };
        let x = inner.args[0];
        if eg[x].data.ty == *ty {
            return Some(Rhs::Class(x));
        }
        // Only where the one reshape is provably well typed (symbolic
        // sizes the verifier cannot equate keep both).
        reshape_allowed(&eg[x].data.ty, ty).then(|| Rhs::Attr(OpKind::Reshape, ty.clone(), vec![x]))
    })
}
