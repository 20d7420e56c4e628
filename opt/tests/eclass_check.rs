//! The e-graph check (`agc_opt::egg::check`): it accepts the classes the
//! rules make and catches a union of two different values.

use agc_ir::{DType, TensorType, UnaryOp};
use agc_opt::egg::analysis::{Graph, Types};
use agc_opt::egg::check::check_classes;
use agc_opt::egg::extract::best_nodes;
use agc_opt::egg::lang::{Node, Op};

/// `x`, `-x` and `-(-x)` over `f32[N]`: the leaf's class, and `-x`'s.
fn graph() -> (Graph, egg::Id, egg::Id, egg::Id) {
    let mut eg = Graph::new(Types::default());
    let leaf = eg.analysis.leaf(0, TensorType::named(DType::F32, &["N"]));
    let x = eg.add(leaf);
    let neg = |a| Node {
        op: Op::Unary(UnaryOp::Neg),
        args: vec![a],
    };
    let nx = eg.add(neg(x));
    let nnx = eg.add(neg(nx));
    (eg, x, nx, nnx)
}

#[test]
fn a_true_union_passes() {
    let (mut eg, x, _, nnx) = graph();
    eg.union(x, nnx);
    eg.rebuild();
    check_classes(&eg, &best_nodes(&eg), true);
}

#[test]
#[should_panic(expected = "holds different values")]
fn a_wrong_union_is_caught() {
    let (mut eg, x, nx, _) = graph();
    eg.union(x, nx);
    eg.rebuild();
    check_classes(&eg, &best_nodes(&eg), true);
}

#[test]
#[should_panic(expected = "two different leaves")]
fn a_union_of_two_leaves_is_caught() {
    let (mut eg, x, _, _) = graph();
    let leaf = eg.analysis.leaf(1, TensorType::named(DType::F32, &["N"]));
    let y = eg.add(leaf);
    eg.union(x, y);
    eg.rebuild();
    check_classes(&eg, &best_nodes(&eg), true);
}
