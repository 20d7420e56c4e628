//! Reaching definitions: which bindings of a name may be the current one.
//!
//! Forward may-analysis over the [`Cfg`]: a node's bindings replace (kill)
//! every earlier binding of the same names. A definition is a name and the
//! source range of its binding (see [`super::cfg::Node::range`]); the
//! function's parameters are defined at its entry. The staging frontend
//! asks it whether a variable a loop binds also exists before the loop (a
//! loop-carried variable) or only inside it. Results are keyed by statement
//! address: keep the AST where it was.

use super::cfg::{key, Cfg, NodeKind, StmtNodes};
use super::dataflow::{solve, Flow};
use rustpython_parser::ast::{Ranged, Stmt};
use rustpython_parser::text_size::TextRange;
use std::cmp::Ordering;
use std::collections::{BTreeSet, HashMap};

/// One definition: a name and where it is bound.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Def {
    /// The name bound.
    pub name: String,
    /// The binding's source range; `None` for a parameter (bound at entry).
    pub range: Option<TextRange>,
}

impl Def {
    fn order_key(&self) -> (&str, Option<(u32, u32)>) {
        (
            &self.name,
            self.range.map(|r| (r.start().into(), r.end().into())),
        )
    }
}

impl Ord for Def {
    fn cmp(&self, other: &Self) -> Ordering {
        self.order_key().cmp(&other.order_key())
    }
}

impl PartialOrd for Def {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The definitions reaching each statement of one function body.
pub struct ReachingDefs {
    reach_in: Vec<BTreeSet<Def>>,
    stmts: HashMap<usize, StmtNodes>,
    all: BTreeSet<Def>,
}

impl ReachingDefs {
    /// Reaching definitions over a function body with parameters `params` (builds its [`Cfg`]).
    pub fn analyse(body: &[Stmt], params: &[String]) -> ReachingDefs {
        ReachingDefs::of(&Cfg::build(body), params)
    }

    /// Reaching definitions over a built graph.
    pub fn of(cfg: &Cfg, params: &[String]) -> ReachingDefs {
        let graph = cfg.graph();
        let generated: Vec<BTreeSet<Def>> = graph
            .node_indices()
            .map(|n| {
                let node = &graph[n];
                let def = |name: &String| Def {
                    name: name.clone(),
                    range: node.range,
                };
                match node.kind {
                    NodeKind::Entry => params
                        .iter()
                        .map(|name| Def {
                            name: name.clone(),
                            range: None,
                        })
                        .collect(),
                    _ => node.defs.iter().map(def).collect(),
                }
            })
            .collect();
        let sol = solve(graph, Flow::Forward, |n, reach| {
            let gen = &generated[n.index()];
            let killed = |d: &Def| gen.iter().any(|g| g.name == d.name);
            let mut out: BTreeSet<Def> = reach.iter().filter(|d| !killed(d)).cloned().collect();
            out.extend(gen.iter().cloned());
            out
        });
        ReachingDefs {
            reach_in: sol.input,
            stmts: cfg.statements().map(|(s, n)| (key(s), n)).collect(),
            all: generated.into_iter().flatten().collect(),
        }
    }

    /// The definitions reaching the entry of `s`; for a compound statement,
    /// of its header node (for a loop, the header, so definitions coming
    /// round the back edge are included). `None` if `s` is not in the body.
    pub fn reaching(&self, s: &Stmt) -> Option<&BTreeSet<Def>> {
        let n = self.stmts.get(&key(s))?;
        self.reach_in.get(n.head.index())
    }

    /// Whether a definition of `name` made outside `loop_stmt` (before it, a
    /// parameter, or — for a `for` loop — in its iterable) reaches its
    /// header: `name` is carried into the loop, not created inside it.
    pub fn reaching_from_outside_loop(&self, loop_stmt: &Stmt, name: &str) -> bool {
        let iterable = match loop_stmt {
            Stmt::For(l) => Some(l.iter.range()),
            Stmt::AsyncFor(l) => Some(l.iter.range()),
            _ => None,
        };
        let outside = |r: TextRange| {
            !loop_stmt.range().contains_range(r) || iterable.is_some_and(|i| i.contains_range(r))
        };
        self.reaching(loop_stmt).is_some_and(|defs| {
            defs.iter()
                .any(|d| d.name == name && d.range.is_none_or(outside))
        })
    }

    /// Where `name` is bound inside `block` (nested blocks included, nested
    /// functions not), in source order.
    pub fn defs_in(&self, block: &[Stmt], name: &str) -> Vec<TextRange> {
        let (Some(first), Some(last)) = (block.first(), block.last()) else {
            return Vec::new();
        };
        let span = TextRange::new(first.start(), last.end().max(first.start()));
        self.all
            .iter()
            .filter(|d| d.name == name)
            .filter_map(|d| d.range)
            .filter(|r| span.contains_range(*r))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::py::cfg::tests::{function, stmt};

    /// `(name, source text of the binding or "<param>")` for each def of `defs`.
    fn shown(src: &str, defs: &BTreeSet<Def>) -> BTreeSet<(String, String)> {
        defs.iter()
            .map(|d| {
                let at = d.range.map_or("<param>".into(), |r| {
                    src[usize::from(r.start())..usize::from(r.end())].to_string()
                });
                (d.name.clone(), at)
            })
            .collect()
    }

    fn pairs(list: &[(&str, &str)]) -> BTreeSet<(String, String)> {
        list.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    const LOOP: &str = "
def f(xs, n):
    a = 0
    for x in xs:
        b = x
        a = a + b
    return a
";

    #[test]
    fn loop_carried_names_reach_the_header_from_outside() {
        let body = function(LOOP);
        let params = ["xs".to_string(), "n".to_string()];
        let defs = ReachingDefs::analyse(&body, &params);
        let l = stmt(&body, LOOP, "for x in xs");
        assert!(defs.reaching_from_outside_loop(l, "a"));
        assert!(defs.reaching_from_outside_loop(l, "n"));
        assert!(!defs.reaching_from_outside_loop(l, "b"));
        assert!(!defs.reaching_from_outside_loop(l, "x"));
        assert!(!defs.reaching_from_outside_loop(l, "nowhere"));
        let at_head = defs.reaching(l).map(|d| shown(LOOP, d)).unwrap_or_default();
        let expected = [
            ("a", "a = 0"),
            ("a", "a = a + b"),
            ("b", "b = x"),
            ("n", "<param>"),
            ("x", "x"),
            ("xs", "<param>"),
        ];
        assert_eq!(at_head, pairs(&expected));
        let at_return = defs
            .reaching(stmt(&body, LOOP, "return a"))
            .map(|d| shown(LOOP, d))
            .unwrap_or_default();
        assert_eq!(at_return, pairs(&expected));
        let Stmt::For(f) = l else { panic!("not a for") };
        let sites: Vec<&str> = defs
            .defs_in(&f.body, "a")
            .iter()
            .map(|r| &LOOP[usize::from(r.start())..usize::from(r.end())])
            .collect();
        assert_eq!(sites, ["a = a + b"]);
        assert!(defs.defs_in(&[], "a").is_empty());
    }

    #[test]
    fn both_branches_of_an_if_reach_the_join() {
        let src = "
def f(c):
    y = 0
    if c:
        y = 1
    else:
        y = 2
    return y
";
        let body = function(src);
        let defs = ReachingDefs::analyse(&body, &["c".to_string()]);
        let at = defs
            .reaching(stmt(&body, src, "return y"))
            .map(|d| shown(src, d))
            .unwrap_or_default();
        assert_eq!(
            at,
            pairs(&[("c", "<param>"), ("y", "y = 1"), ("y", "y = 2")])
        );
    }

    #[test]
    fn while_loop_defs_come_round_the_back_edge() {
        let src = "
def f(n):
    i = 0
    while i < n:
        t = i
        i = t + 1
";
        let body = function(src);
        let defs = ReachingDefs::analyse(&body, &["n".to_string()]);
        let l = stmt(&body, src, "while");
        let at = defs.reaching(l).map(|d| shown(src, d)).unwrap_or_default();
        assert_eq!(
            at,
            pairs(&[
                ("i", "i = 0"),
                ("i", "i = t + 1"),
                ("n", "<param>"),
                ("t", "t = i")
            ])
        );
        assert!(defs.reaching_from_outside_loop(l, "i"));
        assert!(!defs.reaching_from_outside_loop(l, "t"));
    }
}
