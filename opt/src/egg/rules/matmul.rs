//! Matrix products: a chain `a·b·c·…` of 2-D products reordered, so that
//! extraction, which costs a product `m×k · k×n` at `2·m·k·n` flops plus
//! the bytes it writes ([`crate::egg::cost`]), can pick the cheapest
//! order: `[1000×10]·[10×1000]·[1000×1]` as `a·(b·c)`, 20 kflop, instead of
//! `(a·b)·c`, 22 Mflop.
//!
//! Two associativity rules would reach every order too, but a chain of n
//! matrices needs about n/2 rounds of them and O(n³) e-nodes matched over
//! and over (40 matrices: 25 rounds, 155 ms). The rule here does what
//! those rounds would let extraction find, directly: at a product it
//! flattens the chain below it (through the 2-D products of each operand's
//! e-class), finds the cheapest order by the matrix-chain dynamic programme
//! under the extraction's own cost, and adds that order to the product's
//! e-class. Each sub-chain's class gets its own optimum the same way, so
//! the result is also cheapest where a sub-chain is shared. Chains of more
//! than [`MAX_CHAIN`] matrices are left as they are (the programme is cubic).
//!
//! Also here: the row-vector-times-transposed-matrix form reverse-mode AD
//! gives the adjoint of a matrix-vector product, turned back into that
//! product (exact: the same products summed in the same order).
//!
//! Chains: only 2-D operands; with a 1-D or batched operand numpy's promotion
//! rules give the inner products other shapes. Integer and boolean
//! products are exact in any order (wrapping arithmetic is a ring; `or` of
//! `and`s a semiring). Floating-point ones are not: each order rounds
//! differently. For finite inputs whose partial products do not overflow,
//! any two orders of `a·b·c` are within the usual bound of a product chain,
//! `|x − x̂| ≤ γ(k₁ + k₂) · (|a|·|b|·|c|)` elementwise, with
//! `γ(n) = n·u / (1 − n·u)`, `u` the unit roundoff and `k₁`, `k₂` the
//! contracted dims (the tests check it; longer chains add their dims);
//! where a partial product overflows, one order can give `inf` and the
//! other a finite value, as with any compiler that reorders products.

use super::{attr, NodeRule, Rhs, Rule};
use crate::egg::analysis::Graph;
use crate::egg::cost::dim_size;
use crate::egg::lang::{Node, Op};
use agc_ir::{Dim, OpKind, TensorType};
use egg::Id;

/// The longest chain (in matrices) the rule reorders.
pub const MAX_CHAIN: usize = 64;

/// The family's rules.
pub fn rules() -> Vec<Rule> {
    vec![
        NodeRule::named("matmul-chain-order", chain_order),
        NodeRule::named("vector-times-transpose", vector_times_transpose),
    ]
}

/// `reshape(reshape(g, [1, n]) · transpose(W), [m])`, the form reverse-mode
/// AD gives the adjoint of `W · g` (a row vector times a transposed
/// matrix), is `W · g`: each element is the same products summed in the
/// same order (over `n`), so the rewrite is exact, and no `[1, n]`,
/// `[n, m]` or `[1, m]` value is made.
fn vector_times_transpose(eg: &Graph, _ty: &TensorType, node: &Node) -> Option<Rhs> {
    let (OpKind::Reshape, ty) = attr(eg, node)? else {
        return None;
    };
    if ty.rank() != 1 {
        return None;
    }
    let product = eg[node.args[0]].nodes.iter().find(|n| n.op == Op::MatMul)?;
    let row = eg[product.args[0]].nodes.iter().find_map(|n| {
        let (OpKind::Reshape, t) = attr(eg, n)? else {
            return None;
        };
        let g = n.args[0];
        (t.rank() == 2 && t.dims[0] == Dim::Static(1) && eg[g].data.ty.rank() == 1).then_some(g)
    })?;
    let matrix = eg[product.args[1]].nodes.iter().find_map(|n| {
        let (OpKind::Transpose { perm }, _) = attr(eg, n)? else {
            return None;
        };
        (perm[..] == [1, 0]).then_some(n.args[0])
    })?;
    let (w, g) = (&eg[matrix].data.ty, &eg[row].data.ty);
    (w.dims[1] == g.dims[0] && w.dims[0] == ty.dims[0]).then(|| {
        Rhs::MatMuls(MatMulTree::Product(
            Box::new(MatMulTree::Leaf(matrix)),
            Box::new(MatMulTree::Leaf(row)),
        ))
    })
}

/// A product tree over e-classes: what the rule adds.
#[derive(Clone, Debug)]
pub enum MatMulTree {
    /// An operand of the chain.
    Leaf(Id),
    /// The product of two subtrees.
    Product(Box<MatMulTree>, Box<MatMulTree>),
}

impl MatMulTree {
    /// Adds the tree's products to `eg`; returns the root's e-class.
    pub fn add_to(&self, eg: &mut Graph) -> Id {
        match self {
            MatMulTree::Leaf(id) => *id,
            MatMulTree::Product(l, r) => {
                let args = vec![l.add_to(eg), r.add_to(eg)];
                eg.add(Node {
                    op: Op::MatMul,
                    args,
                })
            }
        }
    }
}

/// The cheapest order of the chain below `node`, when `node` is a 2-D
/// product over a chain of 3 to [`MAX_CHAIN`] matrices.
fn chain_order(eg: &Graph, _ty: &TensorType, node: &Node) -> Option<Rhs> {
    if node.op != Op::MatMul {
        return None;
    }
    let leaves = chain(eg, node)?;
    (leaves.len() >= 3).then(|| Rhs::MatMuls(cheapest(eg, &leaves)))
}

/// The first product of `class` whose operands are 2-D, if any.
fn product_of(eg: &Graph, class: Id) -> Option<&Node> {
    eg[class]
        .nodes
        .iter()
        .find(|n| n.op == Op::MatMul && n.args.iter().all(|a| eg[*a].data.ty.rank() == 2))
}

/// The matrices of the chain `node` multiplies, in order: its operands,
/// each replaced by the operands of its class's first 2-D product, until
/// no operand has one. `None` unless every value is 2-D and the chain has
/// at most [`MAX_CHAIN`] matrices (which also stops a cyclic e-graph).
fn chain(eg: &Graph, node: &Node) -> Option<Vec<Id>> {
    let two_d = |id: Id| eg[id].data.ty.rank() == 2;
    if !node.args.iter().all(|a| two_d(*a)) {
        return None;
    }
    let mut leaves = Vec::new();
    // Operands still to expand, the next one last.
    let mut todo: Vec<Id> = node.args.iter().rev().copied().collect();
    while let Some(class) = todo.pop() {
        match product_of(eg, class) {
            Some(p) => todo.extend(p.args.iter().rev()),
            None => leaves.push(class),
        }
        if leaves.len() + todo.len() > MAX_CHAIN {
            return None;
        }
    }
    Some(leaves)
}

/// The order of `leaves` (matrices, in order) of least cost: the
/// matrix-chain dynamic programme over `2·m·k·n` flops plus the bytes of
/// each product, as [`crate::egg::cost::own_cost`] counts a product.
fn cheapest(eg: &Graph, leaves: &[Id]) -> MatMulTree {
    let n = leaves.len();
    let ty = |i: usize| &eg[leaves[i]].data.ty;
    // dims[i] × dims[i + 1] is matrix i.
    let mut dims: Vec<f64> = leaves
        .iter()
        .map(|&l| dim_size(&eg[l].data.ty.dims[0]))
        .collect();
    dims.push(dim_size(&ty(n - 1).dims[1]));
    let bytes = ty(0).dtype.byte_size() as f64;
    // best[i][j]: (least cost, split) of matrices i..=j.
    let mut best = vec![vec![(0.0f64, 0usize); n]; n];
    for len in 2..=n {
        for i in 0..=n - len {
            let j = i + len - 1;
            let out = dims[i] * dims[j + 1];
            best[i][j] = (i..j)
                .map(|k| {
                    let own = 2.0 * out * dims[k + 1] + bytes * out;
                    (best[i][k].0 + best[k + 1][j].0 + own, k)
                })
                .min_by(|a, b| a.0.total_cmp(&b.0))
                .expect("a chain of two or more");
        }
    }
    fn tree(best: &[Vec<(f64, usize)>], leaves: &[Id], i: usize, j: usize) -> MatMulTree {
        if i == j {
            return MatMulTree::Leaf(leaves[i]);
        }
        let k = best[i][j].1;
        MatMulTree::Product(
            Box::new(tree(best, leaves, i, k)),
            Box::new(tree(best, leaves, k + 1, j)),
        )
    }
    tree(&best, leaves, 0, n - 1)
}
