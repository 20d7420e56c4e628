//! Extraction by DAG cost (`agc_opt::egg::dag`): a form that uses one
//! value twice is costed with that value once.

use agc_ir::{BinaryOp, DType, TensorType, UnaryOp};
use agc_opt::egg::analysis::{Graph, Types};
use agc_opt::egg::dag::refine;
use agc_opt::egg::extract::best_nodes;
use agc_opt::egg::lang::{Node, Op};
use egg::Id;

fn unary(eg: &mut Graph, u: UnaryOp, a: Id) -> Id {
    eg.add(Node {
        op: Op::Unary(u),
        args: vec![a],
    })
}

#[test]
fn a_shared_operand_is_paid_once() {
    // One class with two forms: p * p, p = exp(exp(x)) (tree cost 5 units:
    // p counted twice; DAG cost 3), and -exp(p) (tree and DAG cost 4).
    let mut eg = Graph::new(Types::default());
    let leaf = eg.analysis.leaf(0, TensorType::named(DType::F32, &["N"]));
    let x = eg.add(leaf);
    let e = unary(&mut eg, UnaryOp::Exp, x);
    let p = unary(&mut eg, UnaryOp::Exp, e);
    let square = eg.add(Node {
        op: Op::Binary(BinaryOp::Mul),
        args: vec![p, p],
    });
    let q = unary(&mut eg, UnaryOp::Exp, p);
    let negated = unary(&mut eg, UnaryOp::Neg, q);
    eg.union(square, negated);
    eg.rebuild();
    let class = eg.find(square);
    let tree = best_nodes(&eg);
    assert_eq!(tree[&class].op, Op::Unary(UnaryOp::Neg));
    let dag = refine(&eg, tree);
    assert_eq!(dag[&class].op, Op::Binary(BinaryOp::Mul));
    // Every other class keeps its only form.
    assert_eq!(dag[&eg.find(q)].op, Op::Unary(UnaryOp::Exp));
}
