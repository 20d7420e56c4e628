//! Extraction by DAG cost: a value used twice is built once, so a form
//! that shares an e-class with another form of the program is cheaper than
//! the tree cost ([`super::extract`], which counts a shared operand once
//! per use) says.
//!
//! [`refine`] starts from the tree optimum and, greedily, gives each
//! e-class the node whose DAG cost (the own costs of the classes it
//! reaches, each once) is least, until no class changes or
//! [`MAX_ROUNDS`] rounds have run (the greedy DAG extraction of the
//! extraction literature; not a global optimum, which is NP-hard, but never
//! worse for a class than the tree choice it starts from). A node that
//! would reach its own class is skipped, so the choice stays acyclic.
//! Graphs of more than [`MAX_CLASSES`] classes keep the tree choice (each
//! class's reach set costs up to the graph's size).

use super::analysis::Graph;
use super::cost::WorkAndBytes;
use super::lang::Node;
use egg::{CostFunction, Id};
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

/// Rounds of improvement at most.
pub const MAX_ROUNDS: usize = 8;

/// The largest graph (in classes) refined.
pub const MAX_CLASSES: usize = 1_000;

/// The classes a choice reaches, with each one's own cost.
type Reach = BTreeMap<Id, f64>;

/// `best` (the tree optimum of every class that has one) improved by DAG
/// cost (see the module doc).
pub fn refine(eg: &Graph, mut best: HashMap<Id, Node>) -> HashMap<Id, Node> {
    if eg.number_of_classes() > MAX_CLASSES {
        return best;
    }
    let mut cost_fn = WorkAndBytes { eg };
    let mut classes: Vec<Id> = best.keys().copied().collect();
    classes.sort();
    // Reach sets of the current choices, filled on demand.
    let mut reach: HashMap<Id, Rc<Reach>> = HashMap::new();
    for _ in 0..MAX_ROUNDS {
        let mut changed = false;
        for &class in &classes {
            if eg[class].nodes.len() < 2 {
                continue; // nothing to choose
            }
            let current = reach_of(eg, &best, &mut reach, &mut cost_fn, class);
            let mut chosen: Option<(f64, Node, Reach)> = None;
            for node in &eg[class].nodes {
                if *node == best[&class] {
                    continue;
                }
                let Some(set) = node_reach(eg, &best, &mut reach, &mut cost_fn, class, node) else {
                    continue;
                };
                let total: f64 = set.values().sum();
                let bar = chosen.as_ref().map_or(current.values().sum(), |c| c.0);
                if total < bar {
                    chosen = Some((total, node.clone(), set));
                }
            }
            if let Some((_, node, set)) = chosen {
                best.insert(class, node);
                // Reach sets that went through this class are stale.
                reach.retain(|_, r| !r.contains_key(&class));
                reach.insert(class, Rc::new(set));
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    best
}

/// The reach set of `class`'s current choice.
fn reach_of(
    eg: &Graph,
    best: &HashMap<Id, Node>,
    reach: &mut HashMap<Id, Rc<Reach>>,
    cost_fn: &mut WorkAndBytes,
    class: Id,
) -> Rc<Reach> {
    if let Some(r) = reach.get(&class) {
        return r.clone();
    }
    let node = best[&class].clone();
    let r = Rc::new(
        node_reach(eg, best, reach, cost_fn, class, &node)
            .expect("the current choices are acyclic"),
    );
    reach.insert(class, r.clone());
    r
}

/// The reach set of `node` as the choice of `class`: its own cost and its
/// operands' current reach sets; `None` when an operand has no choice or
/// reaches `class` (a cycle).
fn node_reach(
    eg: &Graph,
    best: &HashMap<Id, Node>,
    reach: &mut HashMap<Id, Rc<Reach>>,
    cost_fn: &mut WorkAndBytes,
    class: Id,
    node: &Node,
) -> Option<Reach> {
    let mut set = Reach::new();
    for &a in &node.args {
        let a = eg.find(a);
        if a == class || !best.contains_key(&a) {
            return None;
        }
        let r = reach_of(eg, best, reach, cost_fn, a);
        if r.contains_key(&class) {
            return None;
        }
        set.extend(r.iter().map(|(k, v)| (*k, *v)));
    }
    set.insert(class, cost_fn.cost(node, |_| 0.0));
    Some(set)
}
