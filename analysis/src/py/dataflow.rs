//! A worklist solver for may-analyses (facts are sets, joined by union)
//! over a petgraph graph, forward or backward. Liveness and reaching
//! definitions are its two instances.

use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::Direction::{Incoming, Outgoing};
use std::collections::{BTreeSet, VecDeque};

/// Which way facts flow along the edges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// From a node to its successors (reaching definitions).
    Forward,
    /// From a node to its predecessors (liveness).
    Backward,
}

/// The fixpoint, per node (indexed by `NodeIndex::index()`), in the
/// direction of flow: for a backward problem `input` is the fact at the
/// node's exit (live-out) and `output` the fact at its entry (live-in).
pub struct Solution<T> {
    /// The union of the outputs of the node's flow predecessors.
    pub input: Vec<BTreeSet<T>>,
    /// `transfer(node, input)`.
    pub output: Vec<BTreeSet<T>>,
}

/// Solves `input(n) = ∪ output(p)` over the flow predecessors `p` of `n`,
/// `output(n) = transfer(n, input(n))`, from empty sets up to the least
/// fixpoint. `transfer` must be monotone in its set argument.
pub fn solve<N, E, T: Ord + Clone>(
    graph: &DiGraph<N, E>,
    flow: Flow,
    mut transfer: impl FnMut(NodeIndex, &BTreeSet<T>) -> BTreeSet<T>,
) -> Solution<T> {
    let (from, onward) = match flow {
        Flow::Forward => (Incoming, Outgoing),
        Flow::Backward => (Outgoing, Incoming),
    };
    let count = graph.node_count();
    let mut input = vec![BTreeSet::new(); count];
    let mut output = vec![BTreeSet::new(); count];
    let mut queued = vec![true; count];
    let mut work: VecDeque<NodeIndex> = match flow {
        Flow::Forward => graph.node_indices().collect(),
        Flow::Backward => graph.node_indices().rev().collect(),
    };
    while let Some(n) = work.pop_front() {
        queued[n.index()] = false;
        let into: BTreeSet<T> = graph
            .neighbors_directed(n, from)
            .flat_map(|p| output[p.index()].iter().cloned())
            .collect();
        let out = transfer(n, &into);
        input[n.index()] = into;
        if out != output[n.index()] {
            output[n.index()] = out;
            for next in graph.neighbors_directed(n, onward) {
                if !queued[next.index()] {
                    queued[next.index()] = true;
                    work.push_back(next);
                }
            }
        }
    }
    Solution { input, output }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// a → b → c, b → a: a fact generated at c flows backward to every node.
    #[test]
    fn backward_reaches_a_fixpoint_around_a_cycle() {
        let mut g = DiGraph::<u8, ()>::new();
        let (a, b, c) = (g.add_node(0), g.add_node(1), g.add_node(2));
        g.extend_with_edges([(a, b), (b, c), (b, a)]);
        let sol = solve(&g, Flow::Backward, |n, x| {
            let mut out = x.clone();
            if n == c {
                out.insert("v");
            }
            out
        });
        for n in [a, b, c] {
            assert_eq!(sol.output[n.index()], BTreeSet::from(["v"]));
        }
        assert!(sol.input[c.index()].is_empty());
    }
}
