//! Control-flow graph of one Python function body.
//!
//! Nodes are the function's [`NodeKind::Entry`] and [`NodeKind::Exit`], one
//! node per simple statement, header nodes for compound statements and a
//! [`NodeKind::Join`] after each compound statement (where its paths meet, so
//! that "after the statement" is one node). Each node records the names it
//! binds (`defs`), reads (`uses`) and mutates through an attribute or
//! subscript target (`mutates`, which does not kill the name). Names declared
//! `global`/`nonlocal` in the body are not locals and appear nowhere.
//!
//! Modelling choices:
//! - `for`: Iter (evaluates the iterable once) → Header (each iteration starts
//!   here; `continue` and the body's end come back here) → Target (binds the
//!   loop target) → body; Header → `else` → Join on exhaustion. `while`: the
//!   Test node is the header. `break` goes to the loop's Join (skipping
//!   `else`); `while True` has no exit edge from its test.
//! - `try`: conservative. Every node of the `try` body (and the Try node
//!   itself, for an exception raised before any statement completes) has an
//!   edge to every handler of every enclosing `try`, and to the innermost
//!   enclosing `finally`. A `finally` is one block entered from every normal
//!   and abrupt path (`return`, `break`, `continue`, exceptions); from its end
//!   control continues normally and, for each kind of abrupt path that entered
//!   it, onward to that path's target (so the paths merge: a may-analysis
//!   over-approximates). A handler binds its `as` name.
//! - `with`: a With node reads the context expressions and binds the `as`
//!   targets, then the body; a context manager swallowing an exception is not
//!   modelled.
//! - `match`: the Match node reads the subject and may go to every `case` (and
//!   past all of them); a Case node reads its pattern's values and binds the
//!   captures, then a Test node reads the guard; a failed guard goes on to
//!   the next case (with the captures bound).
//! - Closures: a nested `def`/`class`, a `lambda` or a generator expression
//!   reads its free names when it runs, which this graph cannot see. So the
//!   node creating it reads them, a name the closure is stored into (created
//!   there, or bound/mutated by a node reading a name that holds a closure)
//!   holds it, and every node reading such a name reads them too (a call
//!   `g()`, `return g`). A closure reached only through a container
//!   (`fs.append(g)` then `fs[0]()`) is not followed past the `append`.
//!   Comprehensions run at once: their free names are read where they stand.
//!
//! Statements are looked up by address ([`Cfg::node_of`]): the AST must stay
//! where it was when the graph was built.

mod build;
mod names;

use super::activity;
use build::Builder;
use petgraph::graph::{DiGraph, NodeIndex};
use rustpython_parser::ast::{Expr, Stmt};
use rustpython_parser::text_size::TextRange;
use std::collections::{BTreeSet, HashMap};

/// What a CFG node stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// Function entry (where parameters are bound).
    Entry,
    /// Function exit: `return`, an uncaught exception, the end of the body.
    Exit,
    /// A simple statement (assignment, expression, `return`, `def`, ...).
    Simple,
    /// The test of an `if` or a `while` (a `while` test is its loop header),
    /// or a `case` guard.
    Test,
    /// A `for` loop's iterable, evaluated once before the loop.
    Iter,
    /// A `for` loop's header: where each iteration starts (back-edge target).
    Header,
    /// A `for` loop's target, bound at the start of each iteration.
    Target,
    /// A `with` statement's context expressions and `as` targets.
    With,
    /// The start of a `try` statement.
    Try,
    /// An `except` clause: its type expression and `as` name.
    Handler,
    /// A `match` statement's subject.
    Match,
    /// One `case` pattern: its value expressions and captures (its guard is
    /// a Test node after it).
    Case,
    /// Where the paths of a compound statement meet, or a `finally` entry.
    Join,
}

/// One CFG node.
#[derive(Clone, Debug)]
pub struct Node<'a> {
    /// What it stands for.
    pub kind: NodeKind,
    /// The statement it comes from (the compound statement for header,
    /// handler, case and join nodes); `None` for entry and exit.
    pub stmt: Option<&'a Stmt>,
    /// The expression it evaluates: an `if`/`while` test, a `for` iterable or
    /// target, a `match` subject or `case` guard, an `except` type.
    pub expr: Option<&'a Expr>,
    /// Where its bindings are made: the statement, the `for` target, the
    /// header line of a `with`/`except`, a `case` pattern; `None` for entry and exit.
    pub range: Option<TextRange>,
    /// Names it binds (assignment, `for`/`with`/`except` targets, imports,
    /// `def`/`class` names, walrus targets, `del` targets).
    pub defs: BTreeSet<String>,
    /// Names it reads, closures' free names included (see the module doc).
    pub uses: BTreeSet<String>,
    /// Names whose value it changes in place (`x.a = v`, `x[i] = v`, `del x[i]`).
    pub mutates: BTreeSet<String>,
    /// Free names of the closures it creates (already in `uses`).
    pub captures: BTreeSet<String>,
}

/// The nodes one statement maps to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StmtNodes {
    /// Its node (simple statement) or header node: the `if`/`while` Test, the
    /// `for` Header, the With, Try or Match node.
    pub head: NodeIndex,
    /// The point after it: its own node (simple statement) or its Join node
    /// (compound statement); what follows it in the source comes after this.
    pub after: NodeIndex,
}

/// The control-flow graph of one function body.
pub struct Cfg<'a> {
    graph: DiGraph<Node<'a>, ()>,
    entry: NodeIndex,
    exit: NodeIndex,
    stmts: HashMap<usize, (&'a Stmt, StmtNodes)>,
    falls_off: bool,
}

/// The key [`Cfg::node_of`] looks statements up by: their address.
pub(crate) fn key(s: &Stmt) -> usize {
    s as *const Stmt as usize
}

impl<'a> Cfg<'a> {
    /// Builds the graph of a function body.
    pub fn build(body: &'a [Stmt]) -> Cfg<'a> {
        Builder::run(body, activity::declared_outer(body))
    }

    /// The graph.
    pub fn graph(&self) -> &DiGraph<Node<'a>, ()> {
        &self.graph
    }

    /// The entry node.
    pub fn entry(&self) -> NodeIndex {
        self.entry
    }

    /// The exit node.
    pub fn exit(&self) -> NodeIndex {
        self.exit
    }

    /// Whether some path runs off the end of the body (Python returns
    /// `None` there) rather than leaving by `return` or an exception.
    pub fn falls_off(&self) -> bool {
        self.falls_off
    }

    /// The node of statement `s` (its header node for a compound statement);
    /// `None` if `s` is not in this body.
    pub fn node_of(&self, s: &Stmt) -> Option<NodeIndex> {
        self.nodes_of(s).map(|n| n.head)
    }

    /// The head and after nodes of statement `s`; `None` if `s` is not in this body.
    pub fn nodes_of(&self, s: &Stmt) -> Option<StmtNodes> {
        self.stmts.get(&key(s)).map(|(_, n)| *n)
    }

    /// Every statement of the body (nested blocks included, nested function
    /// bodies not) with its nodes, in no particular order.
    pub fn statements(&self) -> impl Iterator<Item = (&'a Stmt, StmtNodes)> + '_ {
        self.stmts.values().copied()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::py::walk;
    use rustpython_parser::ast::{self, Ranged};
    use rustpython_parser::{parse, Mode};

    /// The body of the first function in `src`.
    pub(crate) fn function(src: &str) -> Vec<Stmt> {
        let Ok(ast::Mod::Module(m)) = parse(src, Mode::Module, "<t>") else {
            panic!("not a module: {src}");
        };
        m.body
            .into_iter()
            .find_map(|s| match s {
                Stmt::FunctionDef(d) => Some(d.body),
                Stmt::AsyncFunctionDef(d) => Some(d.body),
                _ => None,
            })
            .unwrap_or_default()
    }

    /// The statement of `body` (nested blocks included) whose source starts with `line`.
    pub(crate) fn stmt<'a>(body: &'a [Stmt], src: &str, line: &str) -> &'a Stmt {
        let mut found = None;
        walk::all_stmts(body, false, &mut |s| {
            let text = &src[usize::from(s.start())..usize::from(s.end())];
            if found.is_none() && text.starts_with(line) {
                found = Some(s);
            }
        });
        found.unwrap_or_else(|| panic!("no statement `{line}`"))
    }

    /// A set of names.
    pub(crate) fn names(list: &[&str]) -> BTreeSet<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn kinds(cfg: &Cfg, from: NodeIndex) -> Vec<NodeKind> {
        let mut k: Vec<NodeKind> = cfg
            .graph()
            .neighbors(from)
            .map(|n| cfg.graph()[n].kind)
            .collect();
        k.sort_by_key(|k| format!("{k:?}"));
        k
    }

    #[test]
    fn falls_off_only_where_a_path_reaches_the_end() {
        let cases = [
            ("def f(x):\n    return x\n", false),
            ("def f(x):\n    if x:\n        return 1\n", true),
            (
                "def f(x):\n    if x:\n        return 1\n    else:\n        return 2\n",
                false,
            ),
            (
                "def f(x):\n    if x:\n        return 1\n    raise ValueError\n",
                false,
            ),
            (
                "def f(x):\n    while True:\n        if x:\n            return 1\n",
                false,
            ),
            ("def f(x):\n    while x:\n        return 1\n", true),
            (
                "def f(x):\n    for i in x:\n        return i\n    return 0\n",
                false,
            ),
            ("def f(x):\n    x = 1\n", true),
        ];
        for (src, expected) in cases {
            let body = function(src);
            assert_eq!(Cfg::build(&body).falls_off(), expected, "{src}");
        }
    }

    #[test]
    fn every_statement_kind_gets_nodes() {
        let src = "
async def f(a, *r, k=1, **kw):
    import os.path, numpy as np
    from m import p as q
    global g
    x: int = a
    y: int
    x += 1
    x.attr[0] = 2
    del x.attr[0], y
    assert a, 'm'
    type T = list[int]
    async with open(a) as (u, v), lock:
        pass
    async for i in r:
        continue
    with ctx() as w:
        raise E from w
    try:
        pass
    except* ValueError as e:
        pass
    try:
        pass
    except (TypeError, KeyError) as e:
        pass
    else:
        pass
    finally:
        pass
    match a:
        case [1, *rest] if rest:
            pass
        case {'k': vv, **more}:
            pass
        case Point(x=0, y=yy) | None:
            pass
        case _:
            pass
    class C(Base, metaclass=M):
        z = a
    @dec
    def inner(b=a) -> R:
        nonlocal x
        return [b for b in x if (t := b)]
    while x:
        break
    else:
        pass
    if a:
        return await a
    elif k:
        yield r
    lam = lambda q=a: q + kw
    return (z for z in kw)
";
        let body = function(src);
        let cfg = Cfg::build(&body);
        let mut count = 0;
        walk::all_stmts(&body, false, &mut |s| {
            assert!(cfg.node_of(s).is_some(), "no node for {s:?}");
            count += 1;
        });
        assert_eq!(count, 39);
        let node = |line| &cfg.graph()[cfg.node_of(stmt(&body, src, line)).unwrap_or(cfg.entry())];
        assert_eq!(node("import os").defs, names(&["np", "os"]));
        assert_eq!(node("from m").defs, names(&["q"]));
        assert_eq!(node("x.attr[0] = 2").uses, names(&["x"]));
        assert_eq!(node("x.attr[0] = 2").mutates, names(&["x"]));
        assert!(node("x.attr[0] = 2").defs.is_empty());
        assert_eq!(node("del x.attr").defs, names(&["y"]));
        assert_eq!(node("x += 1").uses, names(&["x"]));
        assert_eq!(node("y: int").defs, names(&[]));
        assert_eq!(node("async with").defs, names(&["u", "v"]));
        assert_eq!(node("async with").uses, names(&["a", "lock", "open"]));
        assert_eq!(node("class C").uses, names(&["Base", "M", "a"]));
        // `x` is the outer function's (nonlocal); `b` is the comprehension's, `t` inner's.
        assert_eq!(node("def inner").uses, names(&["R", "a", "dec", "x"]));
        assert_eq!(node("lam = ").uses, names(&["a", "kw"]));
        assert_eq!(node("return (z").uses, names(&["kw"]));
        assert!(node("global g").uses.is_empty());
    }

    #[test]
    fn for_loop_is_iter_header_target_and_break_skips_else() {
        let src = "
def f(xs):
    for x in xs:
        if x:
            break
    else:
        pass
";
        let body = function(src);
        let cfg = Cfg::build(&body);
        let g = cfg.graph();
        let Some(nodes) = cfg.nodes_of(&body[0]) else {
            panic!("no loop nodes")
        };
        assert_eq!(g[nodes.head].kind, NodeKind::Header);
        assert_eq!(g[nodes.after].kind, NodeKind::Join);
        assert_eq!(kinds(&cfg, cfg.entry()), [NodeKind::Iter]);
        assert_eq!(
            kinds(&cfg, nodes.head),
            [NodeKind::Simple, NodeKind::Target]
        );
        let brk = cfg
            .node_of(stmt(&body, src, "break"))
            .unwrap_or(cfg.entry());
        assert_eq!(g.neighbors(brk).collect::<Vec<_>>(), [nodes.after]);
        let pass = cfg.node_of(stmt(&body, src, "pass")).unwrap_or(cfg.entry());
        assert_eq!(g.neighbors(pass).collect::<Vec<_>>(), [nodes.after]);
        let join_if = cfg
            .nodes_of(stmt(&body, src, "if x"))
            .map(|n| n.after)
            .unwrap_or(cfg.entry());
        assert_eq!(g.neighbors(join_if).collect::<Vec<_>>(), [nodes.head]);
    }

    #[test]
    fn try_bodies_reach_handlers_and_finally_resumes_jumps() {
        let src = "
def f():
    for i in r:
        try:
            a = 1
            continue
        except E:
            b = 2
        finally:
            c = 3
";
        let body = function(src);
        let cfg = Cfg::build(&body);
        let g = cfg.graph();
        let node = |line| cfg.node_of(stmt(&body, src, line)).unwrap_or(cfg.entry());
        let a = node("a = 1");
        assert!(g.neighbors(a).any(|n| g[n].kind == NodeKind::Handler));
        let out_of_continue = |kind| {
            g.neighbors(node("continue"))
                .filter(|n| g[*n].kind == kind)
                .collect::<Vec<_>>()
        };
        assert_eq!(out_of_continue(NodeKind::Handler).len(), 1);
        let fin = out_of_continue(NodeKind::Join);
        assert_eq!(fin.len(), 1);
        assert!(g.neighbors(fin[0]).any(|n| n == node("c = 3")));
        let resumed = g.neighbors(node("c = 3")).collect::<Vec<_>>();
        assert!(
            resumed.contains(&node("for i in r")),
            "continue resumes at the loop header"
        );
        assert!(resumed.contains(&cfg.nodes_of(stmt(&body, src, "try")).map_or(a, |n| n.after)));
    }
}
