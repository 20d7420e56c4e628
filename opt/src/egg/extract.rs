//! Extraction: the cheapest e-node of every e-class, in O(E log E).
//!
//! egg's `Extractor` relaxes every class until no cost changes; a class is
//! visited in hash order, so a chain of n ops can take n sweeps over all n
//! classes (20,000 chained `.T` spent 47 of 72 s there). The cost here
//! ([`WorkAndBytes`]) is a node's own non-negative cost plus its operands'
//! costs, so it never falls below an operand's: Knuth's generalisation of
//! Dijkstra's algorithm settles classes cheapest first, and a node is costed
//! once, when the last of its operands is settled. The result is the same
//! optimum as egg's (ties may pick another node of equal cost).

use super::analysis::Graph;
use super::cost::WorkAndBytes;
use super::lang::Node;
use egg::{CostFunction, Id};
use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, HashMap};

/// A costed candidate: node `node` of class `class`.
struct Candidate {
    cost: f64,
    class: Id,
    node: usize,
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Candidate {}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> Ordering {
        self.cost
            .total_cmp(&other.cost)
            .then(self.class.cmp(&other.class))
            .then(self.node.cmp(&other.node))
    }
}

/// The cheapest node of every e-class of `eg` that has a finite-cost node
/// (every class whose values can be computed from the leaves).
pub fn best_nodes(eg: &Graph) -> HashMap<Id, Node> {
    let mut cost_fn = WorkAndBytes { eg };
    // For each class, the (class, node) pairs that take it as an operand;
    // for each node, how many distinct operand classes are still unsettled.
    let mut users: HashMap<Id, Vec<(Id, usize)>> = HashMap::new();
    let mut waiting: HashMap<(Id, usize), usize> = HashMap::new();
    let mut heap = BinaryHeap::new();
    let mut settled: HashMap<Id, (f64, Node)> = HashMap::new();
    for class in eg.classes() {
        for (k, node) in class.nodes.iter().enumerate() {
            let mut operands: Vec<Id> = node.args.iter().map(|&a| eg.find(a)).collect();
            operands.sort_unstable();
            operands.dedup();
            if operands.is_empty() {
                let cost = cost_fn.cost(node, |_| 0.0);
                heap.push(Reverse(Candidate {
                    cost,
                    class: class.id,
                    node: k,
                }));
            } else {
                waiting.insert((class.id, k), operands.len());
                for a in operands {
                    users.entry(a).or_default().push((class.id, k));
                }
            }
        }
    }
    while let Some(Reverse(Candidate { cost, class, node })) = heap.pop() {
        if settled.contains_key(&class) {
            continue;
        }
        settled.insert(class, (cost, eg[class].nodes[node].clone()));
        for &(user, k) in users.get(&class).map_or(&[][..], Vec::as_slice) {
            if settled.contains_key(&user) {
                continue;
            }
            let left = waiting.get_mut(&(user, k)).expect("a waiting node");
            *left -= 1;
            if *left == 0 {
                let n = &eg[user].nodes[k];
                let cost = cost_fn.cost(n, |a| settled[&eg.find(a)].0);
                heap.push(Reverse(Candidate {
                    cost,
                    class: user,
                    node: k,
                }));
            }
        }
    }
    settled
        .into_iter()
        .map(|(class, (_, node))| (class, node))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::egg::analysis::Types;
    use crate::egg::lang::Op;
    use agc_ir::{BinaryOp, DType, Dim, TensorType, UnaryOp};
    use egg::{Extractor, Runner};

    /// A saturated e-graph of `(-(-(x * y)) + x)` nested `depth` times, with
    /// the optimiser's rules.
    fn saturated(depth: usize) -> (Graph, Id) {
        let t = TensorType::new(DType::F32, vec![Dim::Sym("N".into())]);
        let mut eg = Graph::new(Types::default());
        let x = eg.analysis.leaf(0, t.clone());
        let x = eg.add(x);
        let y = eg.analysis.leaf(1, t);
        let y = eg.add(y);
        let mut acc = x;
        for _ in 0..depth {
            let m = eg.add(Node {
                op: Op::Binary(BinaryOp::Mul),
                args: vec![acc, y],
            });
            let n = eg.add(Node {
                op: Op::Unary(UnaryOp::Neg),
                args: vec![m],
            });
            let n = eg.add(Node {
                op: Op::Unary(UnaryOp::Neg),
                args: vec![n],
            });
            acc = eg.add(Node {
                op: Op::Binary(BinaryOp::Add),
                args: vec![n, x],
            });
        }
        let runner = Runner::default()
            .with_egraph(eg)
            .with_iter_limit(8)
            .run(&crate::egg::rules::all(false));
        let root = runner.egraph.find(acc);
        (runner.egraph, root)
    }

    /// The tree cost of class `c` built from the chosen nodes.
    fn tree_cost(eg: &Graph, best: &HashMap<Id, Node>, c: Id) -> f64 {
        let node = &best[&eg.find(c)];
        WorkAndBytes { eg }.cost(node, |a| tree_cost(eg, best, a))
    }

    /// Negations in the expression of class `c` built from the chosen nodes.
    fn negations(eg: &Graph, best: &HashMap<Id, Node>, c: Id) -> usize {
        let node = &best[&eg.find(c)];
        let own = usize::from(matches!(node.op, Op::Unary(UnaryOp::Neg)));
        own + node
            .args
            .iter()
            .map(|&a| negations(eg, best, a))
            .sum::<usize>()
    }

    #[test]
    fn the_same_optimum_as_eggs_extractor() {
        for depth in [1, 3, 12] {
            let (eg, root) = saturated(depth);
            let best = best_nodes(&eg);
            let ex = Extractor::new(&eg, WorkAndBytes { eg: &eg });
            for class in eg.classes() {
                let theirs = ex.find_best_cost(class.id);
                let ours = tree_cost(&eg, &best, class.id);
                assert!(
                    (ours - theirs).abs() <= 1e-9 * theirs.abs(),
                    "{ours} vs {theirs}"
                );
            }
            // The double negations are gone from the root's expression.
            assert_eq!(negations(&eg, &best, root), 0);
        }
    }
}
