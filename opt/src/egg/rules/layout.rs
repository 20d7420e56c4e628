//! Layout: transposes, reshapes, broadcasts, slices and casts that cancel
//! or compose, and explicit broadcasts that an elementwise op's implicit
//! one makes unnecessary. Data movement only, so every rule is exact.

use super::{attr, NodeRule, Rhs, Rule};
use crate::egg::analysis::Graph;
use crate::egg::lang::{Node, Op};
use agc_ir::infer::{broadcast_all, reshape_allowed};
use agc_ir::{OpKind, TensorType};

/// The family's rules.
pub fn rules() -> Vec<Rule> {
    vec![
        NodeRule::named("broadcast-into-elementwise", broadcast_into_elementwise),
        NodeRule::named("identity-layout", identity_layout),
        NodeRule::named("transpose-transpose", transpose_transpose),
        NodeRule::named("reshape-reshape", reshape_reshape),
    ]
}

/// A transpose by the identity, a reshape or broadcast to the operand's own
/// type, a slice taking every axis whole, a cast to the operand's dtype:
/// the operand itself.
fn identity_layout(eg: &Graph, _ty: &TensorType, node: &Node) -> Option<Rhs> {
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
fn transpose_transpose(eg: &Graph, _ty: &TensorType, node: &Node) -> Option<Rhs> {
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
fn reshape_reshape(eg: &Graph, _ty: &TensorType, node: &Node) -> Option<Rhs> {
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

/// An elementwise op (arithmetic, comparison, `np.where`) with an operand
/// `broadcast_to(x)`, `x` a scalar, is the same op on `x` where numpy's
/// implicit broadcasting of the operands gives the same result shape (AD
/// makes such broadcasts for the adjoints of broadcast operands): the
/// broadcast copy is then not made. Only scalars: the same rewrite of a
/// column broadcast (`[200, 1]` to `[200, 10]` in the SGD step's gradient)
/// made the step 7% slower (the backend's fused loops read the explicit
/// broadcast better than the implicit one).
fn broadcast_into_elementwise(eg: &Graph, ty: &TensorType, node: &Node) -> Option<Rhs> {
    if !matches!(node.op, Op::Binary(_) | Op::Compare(_) | Op::Select) {
        return None;
    }
    (0..node.args.len()).find_map(|i| {
        let x = eg[node.args[i]].nodes.iter().find_map(|n| {
            let (OpKind::BroadcastTo, _) = attr(eg, n)? else {
                return None;
            };
            (eg[n.args[0]].data.ty.rank() == 0).then_some(n.args[0])
        })?;
        let mut args = node.args.clone();
        args[i] = x;
        let tys: Vec<&TensorType> = args.iter().map(|&a| &eg[a].data.ty).collect();
        (broadcast_all(&tys).ok()? == ty.dims).then_some(Rhs::Node(Node { op: node.op, args }))
    })
}
