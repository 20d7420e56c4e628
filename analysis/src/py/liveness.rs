//! Liveness: the names whose current value may still be read.
//!
//! Backward may-analysis over the [`Cfg`]: `live_in = uses ∪ (live_out −
//! defs)`. A staged loop carries the names live at its header; a staged `if`
//! merges the names its branches bind that are live after it. Names read but
//! never bound in the function (parameters, globals, builtins) may appear.
//! Results are keyed by statement address: keep the AST where it was.

use super::cfg::{key, Cfg, StmtNodes};
use super::dataflow::{solve, Flow};
use rustpython_parser::ast::Stmt;
use rustpython_parser::text_size::TextRange;
use std::collections::{BTreeSet, HashMap};

/// Live names at each statement of one function body.
pub struct Liveness {
    live_in: Vec<BTreeSet<String>>,
    live_out: Vec<BTreeSet<String>>,
    stmts: HashMap<usize, StmtNodes>,
    /// The graph's edges, as node indices.
    edges: Vec<(usize, usize)>,
    /// Each node's source range (none for entry and exit).
    ranges: Vec<Option<TextRange>>,
}

impl Liveness {
    /// Liveness over a function body (builds its [`Cfg`]).
    pub fn analyse(body: &[Stmt]) -> Liveness {
        Liveness::of(&Cfg::build(body))
    }

    /// Liveness over a built graph.
    pub fn of(cfg: &Cfg) -> Liveness {
        let graph = cfg.graph();
        let sol = solve(graph, Flow::Backward, |n, out| {
            let node = &graph[n];
            let mut live: BTreeSet<String> = out.difference(&node.defs).cloned().collect();
            live.extend(node.uses.iter().cloned());
            live
        });
        Liveness {
            live_in: sol.output,
            live_out: sol.input,
            stmts: cfg.statements().map(|(s, n)| (key(s), n)).collect(),
            edges: graph
                .edge_indices()
                .filter_map(|e| graph.edge_endpoints(e))
                .map(|(u, t)| (u.index(), t.index()))
                .collect(),
            ranges: graph.node_weights().map(|n| n.range).collect(),
        }
    }

    /// The names live when control leaves `s` for what follows it: after a
    /// simple statement, the live-in of its successors (for the last
    /// statement of a loop body, the loop header; for `return`, nothing; for
    /// `break`, after the loop; for `continue`, the loop header); after a
    /// compound statement, the point after the whole statement. `None` if `s`
    /// is not in the body.
    pub fn live_after(&self, s: &Stmt) -> Option<&BTreeSet<String>> {
        let n = self.stmts.get(&key(s))?;
        self.live_out.get(n.after.index())
    }

    /// The names live where control goes when it leaves the code spanning
    /// `range` (one or more whole statements) by any way: falling through,
    /// `break`, `continue` or `return` (which leaves nothing live). What a
    /// staged region that lowers these exits to flags must hand on.
    pub fn live_leaving(&self, range: TextRange) -> BTreeSet<String> {
        let inside = |n: usize| self.ranges[n].is_some_and(|r| range.contains_range(r));
        let mut live = BTreeSet::new();
        for &(u, t) in &self.edges {
            if inside(u) && !inside(t) {
                live.extend(self.live_in[t].iter().cloned());
            }
        }
        live
    }

    /// For a `while` or `for` statement, the names live at its header: read
    /// in the body before being (re)bound in that iteration, or live after
    /// the loop. A `for` loop's iterable is not included (it is evaluated
    /// once, before). `None` for other statements.
    pub fn live_at_loop_head(&self, s: &Stmt) -> Option<&BTreeSet<String>> {
        if !matches!(s, Stmt::While(_) | Stmt::For(_) | Stmt::AsyncFor(_)) {
            return None;
        }
        let n = self.stmts.get(&key(s))?;
        self.live_in.get(n.head.index())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::py::cfg::tests::{function, names, stmt};
    use rustpython_parser::ast::Ranged;

    fn head(src: &str, line: &str) -> BTreeSet<String> {
        let body = function(src);
        let live = Liveness::analyse(&body);
        live.live_at_loop_head(stmt(&body, src, line))
            .cloned()
            .unwrap_or_default()
    }

    fn after(src: &str, line: &str) -> BTreeSet<String> {
        let body = function(src);
        let live = Liveness::analyse(&body);
        live.live_after(stmt(&body, src, line))
            .cloned()
            .unwrap_or_default()
    }

    const ACCUMULATE: &str = "
def f(xs, n):
    s = 0
    last = 0
    for x in xs:
        t = x * 2
        u = t + 1
        s = s + u
        last = x
    return s, last
";

    #[test]
    fn loop_head_holds_accumulators_and_names_read_after_not_temporaries() {
        assert_eq!(head(ACCUMULATE, "for x in xs"), names(&["last", "s"]));
        assert_eq!(after(ACCUMULATE, "for x in xs"), names(&["last", "s"]));
        assert_eq!(after(ACCUMULATE, "t = x * 2"), names(&["s", "t", "x"]));
        assert_eq!(after(ACCUMULATE, "last = x"), names(&["last", "s"]));
        assert_eq!(after(ACCUMULATE, "s = 0"), names(&["s", "xs"]));
    }

    #[test]
    fn for_target_is_live_at_head_only_if_read_after_the_loop() {
        let src = "
def f(xs):
    for x in xs:
        pass
    return x
";
        assert_eq!(head(src, "for x in xs"), names(&["x"]));
    }

    #[test]
    fn names_both_branches_bind_but_nobody_reads_are_dead_after_the_if() {
        let src = "
def f(c):
    if c:
        y = 1
        z = y
    else:
        y = 2
        z = 3
    return z
";
        assert_eq!(after(src, "if c"), names(&["z"]));
        assert_eq!(after(src, "y = 1"), names(&["y"]));
        assert_eq!(after(src, "y = 2"), names(&[]));
    }

    #[test]
    fn leaving_a_statement_includes_what_break_and_continue_reach() {
        let src = "
def f(x, t, n):
    hit = -1
    for i in range(n):
        if x[i] > t:
            tmp = i * 2
            hit = tmp
            break
        if x[i] < 0:
            skip = i
            continue
    else:
        hit = 1000
    return hit
";
        let body = function(src);
        let live = Liveness::analyse(&body);
        let leaving = |line: &str| live.live_leaving(stmt(&body, src, line).range());
        // Falling through reaches the next `if`; `break` reaches `return hit`.
        assert_eq!(leaving("if x[i] > t"), names(&["hit", "i", "t", "x"]));
        assert_eq!(after(src, "if x[i] > t"), names(&["i", "t", "x"]));
        // `continue` reaches the loop head, which needs nothing `skip` gives.
        assert_eq!(leaving("if x[i] < 0"), names(&["t", "x"]));
        // The loop is left by `break` (hit read after) and through `else`.
        assert_eq!(leaving("for i in range(n)"), names(&["hit"]));
    }

    #[test]
    fn closures_read_their_free_names_where_they_are_called() {
        let src = "
def f(xs):
    scale = 2
    def g(v):
        return v * scale
    h = lambda: offset
    offset = 1
    for x in xs:
        scale = x
        offset = x
    return g(3) + h()
";
        assert_eq!(
            head(src, "for x in xs"),
            names(&["g", "h", "offset", "scale"])
        );
        // Creating a closure reads its free names too (`offset`, before it is bound).
        assert_eq!(after(src, "scale = 2"), names(&["offset", "scale", "xs"]));
        assert_eq!(after(src, "def g"), names(&["g", "offset", "scale", "xs"]));
    }

    const JUMPS: &str = "
def f(xs):
    a = 0
    b = 0
    for x in xs:
        if x > 10:
            break
        if x < 0:
            continue
        if x == 5:
            return a
        a = x
        b = x
    return b
";

    #[test]
    fn break_continue_and_return_go_where_python_sends_them() {
        assert_eq!(head(JUMPS, "for x in xs"), names(&["a", "b"]));
        assert_eq!(after(JUMPS, "break"), names(&["b"]));
        assert_eq!(after(JUMPS, "continue"), names(&["a", "b"]));
        assert_eq!(after(JUMPS, "return a"), names(&[]));
        assert_eq!(after(JUMPS, "a = x"), names(&["a", "x"]));
        assert_eq!(after(JUMPS, "b = x"), names(&["a", "b"]));
        assert_eq!(after(JUMPS, "for x in xs"), names(&["b"]));
    }

    #[test]
    fn while_else_runs_only_when_the_test_fails() {
        let src = "
def f(n):
    i = 0
    found = -1
    while i < n:
        if i == 3:
            found = i
            break
        i = i + 1
    else:
        found = n
    return found
";
        assert_eq!(head(src, "while i < n"), names(&["i", "n"]));
        assert_eq!(after(src, "while i < n"), names(&["found"]));
        assert_eq!(after(src, "break"), names(&["found"]));
        assert_eq!(after(src, "found = -1"), names(&["i", "n"]));
        assert_eq!(after(src, "i = i + 1"), names(&["i", "n"]));
    }

    #[test]
    fn for_else_rebinding_the_target_kills_it_at_the_head() {
        let src = "
def f(xs):
    for x in xs:
        if x:
            break
    else:
        x = None
    return x
";
        assert_eq!(head(src, "for x in xs"), names(&[]));
        assert_eq!(after(src, "break"), names(&["x"]));
        assert_eq!(after(src, "for x in xs"), names(&["x"]));
    }

    #[test]
    fn while_true_leaves_only_through_break() {
        let src = "
def f(k):
    y = 0
    while True:
        y = k
        if y:
            break
    return y
";
        assert_eq!(head(src, "while True"), names(&["k"]));
    }

    #[test]
    fn globals_are_not_locals() {
        let src = "
def f(xs):
    global total
    for x in xs:
        total = total + x
";
        assert_eq!(head(src, "for x in xs"), names(&[]));
    }

    #[test]
    fn try_is_conservative_every_protected_point_may_reach_handlers_and_finally() {
        let src = "
def f(a):
    x = 1
    try:
        x = g()
        y = h(x)
    except E as e:
        return x + e
    finally:
        z = 1
    return y
";
        // `x = 1` may be what the handler reads (`g()` may raise); `y` is read
        // after the `finally`, which every path (the exceptional ones too) enters.
        assert_eq!(after(src, "x = 1"), names(&["E", "g", "h", "x", "y"]));
        assert_eq!(after(src, "y = h(x)"), names(&["E", "x", "y"]));
        assert_eq!(after(src, "try"), names(&["y"]));
        assert_eq!(after(src, "z = 1"), names(&["y"]));
    }

    #[test]
    fn with_binds_its_targets_and_match_may_take_any_case() {
        let src = "
def f(path, cmd):
    with open(path) as fh:
        data = fh.read()
    out = 0
    match cmd:
        case [x, y] if x > data:
            out = y
        case {'k': v}:
            out = v
        case _:
            pass
    return out
";
        assert_eq!(after(src, "with open"), names(&["cmd", "data"]));
        assert_eq!(after(src, "data = fh"), names(&["cmd", "data"]));
        assert_eq!(after(src, "out = 0"), names(&["cmd", "data", "out"]));
        assert_eq!(after(src, "match cmd"), names(&["out"]));
        assert_eq!(after(src, "out = y"), names(&["out"]));
    }

    #[test]
    fn only_loops_have_a_head_and_foreign_statements_have_nothing() {
        let body = function(ACCUMULATE);
        let live = Liveness::analyse(&body);
        assert!(live
            .live_at_loop_head(stmt(&body, ACCUMULATE, "s = 0"))
            .is_none());
        let other = function(ACCUMULATE);
        assert!(live.live_after(&other[0]).is_none());
    }
}
