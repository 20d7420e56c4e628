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
use super::cost::own_cost;
use super::lang::Node;
use egg::Id;
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
pub fn refine(eg: &Graph, best: HashMap<Id, Node>) -> HashMap<Id, Node> {
    if eg.number_of_classes() > MAX_CLASSES {
        return best;
    }
    let mut classes: Vec<Id> = best.keys().copied().collect();
    classes.sort();
    let mut r = Refiner {
        eg,
        best,
        reach: HashMap::new(),
    };
    for _ in 0..MAX_ROUNDS {
        let mut changed = false;
        for &class in &classes {
            if eg[class].nodes.len() < 2 {
                continue; // nothing to choose
            }
            let mut bar: f64 = r.reach_of(class).values().sum();
            let mut chosen: Option<(Node, Reach)> = None;
            for node in &eg[class].nodes {
                if *node == r.best[&class] {
                    continue;
                }
                let Some(set) = r.node_reach(class, node) else {
                    continue;
                };
                let total: f64 = set.values().sum();
                if total < bar {
                    bar = total;
                    chosen = Some((node.clone(), set));
                }
            }
            if let Some((node, set)) = chosen {
                r.best.insert(class, node);
                // Reach sets that went through this class are stale.
                r.reach.retain(|_, s| !s.contains_key(&class));
                r.reach.insert(class, Rc::new(set));
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    r.best
}

/// The choices being improved and the reach sets of the current ones
/// (filled on demand).
struct Refiner<'g> {
    eg: &'g Graph,
    best: HashMap<Id, Node>,
    reach: HashMap<Id, Rc<Reach>>,
}

impl Refiner<'_> {
    /// The reach set of `class`'s current choice.
    fn reach_of(&mut self, class: Id) -> Rc<Reach> {
        if let Some(r) = self.reach.get(&class) {
            return r.clone();
        }
        let node = self.best[&class].clone();
        let r = Rc::new(
            self.node_reach(class, &node)
                .expect("the current choices are acyclic"),
        );
        self.reach.insert(class, r.clone());
        r
    }

    /// The reach set of `node` as the choice of `class`: its own cost and
    /// its operands' current reach sets; `None` when an operand has no
    /// choice or reaches `class` (a cycle).
    fn node_reach(&mut self, class: Id, node: &Node) -> Option<Reach> {
        let eg = self.eg;
        let mut set = Reach::new();
        for &a in &node.args {
            let a = eg.find(a);
            if a == class || !self.best.contains_key(&a) {
                return None;
            }
            let r = self.reach_of(a);
            if r.contains_key(&class) {
                return None;
            }
            set.extend(r.iter().map(|(k, v)| (*k, *v)));
        }
        set.insert(class, own_cost(eg, node, &eg[class].data.ty));
        Some(set)
    }
}
