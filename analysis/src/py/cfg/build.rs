//! Building the control-flow graph: one walk over the function body that
//! adds nodes and edges, resolving `break`/`continue`/`return` and
//! exceptions against the enclosing loops, `try` handlers and `finally`
//! blocks (see the parent module for the modelling choices).

use super::names::Names;
use super::{key, Cfg, Node, NodeKind, StmtNodes};
use petgraph::graph::{DiGraph, NodeIndex};
use rustpython_parser::ast::{self, Expr, Ranged, Stmt};
use rustpython_parser::text_size::{TextRange, TextSize};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Where a jump (`break`, `continue`, `return`, an exception) goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Jump {
    Break,
    Continue,
    Return,
    Raise,
}

/// An enclosing construct that jumps resolve against.
enum Ctx {
    /// A loop: `continue` goes to `head`, `break` to `after`.
    Loop { head: NodeIndex, after: NodeIndex },
    /// A `try` body: exceptions may go to each handler.
    Catch(Vec<NodeIndex>),
    /// A `try` with a `finally`: every jump goes to `entry` first; `pending`
    /// collects the kinds of jump to resume from the `finally`'s end.
    Finally {
        entry: NodeIndex,
        pending: Vec<Jump>,
    },
}

/// The graph under construction and the constructs enclosing the current statement.
pub(super) struct Builder<'a> {
    graph: DiGraph<Node<'a>, ()>,
    exit: NodeIndex,
    outer: BTreeSet<String>,
    ctx: Vec<Ctx>,
    stmts: HashMap<usize, (&'a Stmt, StmtNodes)>,
}

impl<'a> Builder<'a> {
    /// The graph of `body`, leaving out the names in `outer`.
    pub(super) fn run(body: &'a [Stmt], outer: BTreeSet<String>) -> Cfg<'a> {
        let mut graph = DiGraph::new();
        let bare = |kind| Node {
            kind,
            stmt: None,
            expr: None,
            range: None,
            defs: BTreeSet::new(),
            uses: BTreeSet::new(),
            mutates: BTreeSet::new(),
            captures: BTreeSet::new(),
        };
        let entry = graph.add_node(bare(NodeKind::Entry));
        let exit = graph.add_node(bare(NodeKind::Exit));
        let mut b = Builder {
            graph,
            exit,
            outer,
            ctx: Vec::new(),
            stmts: HashMap::new(),
        };
        let ends = b.block(body, vec![entry]);
        b.edges(&ends, exit);
        propagate_captures(&mut b.graph);
        let falls_off = ends
            .iter()
            .any(|&end| petgraph::algo::has_path_connecting(&b.graph, entry, end, None));
        Cfg {
            graph: b.graph,
            entry,
            exit,
            stmts: b.stmts,
            falls_off,
        }
    }

    fn node(
        &mut self,
        kind: NodeKind,
        stmt: &'a Stmt,
        expr: Option<&'a Expr>,
        range: TextRange,
        names: Names,
    ) -> NodeIndex {
        let local = |set: BTreeSet<String>| {
            set.into_iter()
                .filter(|n| !self.outer.contains(n))
                .collect()
        };
        let node = Node {
            kind,
            stmt: Some(stmt),
            expr,
            range: Some(range),
            defs: local(names.defs),
            uses: local(
                names
                    .uses
                    .into_iter()
                    .chain(names.captures.iter().cloned())
                    .collect(),
            ),
            mutates: local(names.mutates),
            captures: local(names.captures),
        };
        let n = self.graph.add_node(node);
        if self.ctx.iter().any(|c| !matches!(c, Ctx::Loop { .. })) {
            self.jump(n, Jump::Raise);
        }
        n
    }

    fn expr_node(&mut self, kind: NodeKind, stmt: &'a Stmt, e: &'a Expr) -> NodeIndex {
        let mut names = Names::default();
        names.read(e);
        self.node(kind, stmt, Some(e), e.range(), names)
    }

    /// A Join node for `stmt`, entered from `preds`.
    fn join(&mut self, stmt: &'a Stmt, preds: &[NodeIndex]) -> NodeIndex {
        let n = self.node(NodeKind::Join, stmt, None, stmt.range(), Names::default());
        self.edges(preds, n);
        n
    }

    fn edges(&mut self, from: &[NodeIndex], to: NodeIndex) {
        for &f in from {
            self.graph.update_edge(f, to, ());
        }
    }

    /// Adds the edges of `jump` leaving `from`, resolved against the enclosing constructs.
    fn jump(&mut self, from: NodeIndex, jump: Jump) {
        let mut targets = Vec::new();
        let mut resolved = false;
        for c in self.ctx.iter_mut().rev() {
            match c {
                Ctx::Loop { head, after } => match jump {
                    Jump::Break => targets.push(*after),
                    Jump::Continue => targets.push(*head),
                    Jump::Return | Jump::Raise => continue,
                },
                Ctx::Catch(handlers) => {
                    if jump == Jump::Raise {
                        targets.extend(handlers.iter().copied());
                    }
                    continue;
                }
                Ctx::Finally { entry, pending } => {
                    targets.push(*entry);
                    if !pending.contains(&jump) {
                        pending.push(jump);
                    }
                }
            }
            resolved = true;
            break;
        }
        if !resolved {
            targets.push(self.exit);
        }
        for t in targets {
            self.graph.update_edge(from, t, ());
        }
    }

    /// Builds `body` entered from `preds`; returns the nodes that fall through its end.
    fn block(&mut self, body: &'a [Stmt], mut ends: Vec<NodeIndex>) -> Vec<NodeIndex> {
        for s in body {
            ends = self.stmt(s, ends);
        }
        ends
    }

    /// Builds statement `s` entered from `preds`; returns the nodes that fall through it.
    fn stmt(&mut self, s: &'a Stmt, preds: Vec<NodeIndex>) -> Vec<NodeIndex> {
        let nodes = match s {
            Stmt::If(i) => self.if_stmt(s, i, &preds),
            Stmt::While(w) => self.while_stmt(s, w, &preds),
            Stmt::For(l) => self.for_stmt(s, (&l.target, &l.iter), &l.body, &l.orelse, &preds),
            Stmt::AsyncFor(l) => self.for_stmt(s, (&l.target, &l.iter), &l.body, &l.orelse, &preds),
            Stmt::With(w) => self.with_stmt(s, &w.items, &w.body, &preds),
            Stmt::AsyncWith(w) => self.with_stmt(s, &w.items, &w.body, &preds),
            Stmt::Try(t) => {
                self.try_stmt(s, (&t.body, &t.handlers), &t.orelse, &t.finalbody, &preds)
            }
            Stmt::TryStar(t) => {
                self.try_stmt(s, (&t.body, &t.handlers), &t.orelse, &t.finalbody, &preds)
            }
            Stmt::Match(m) => self.match_stmt(s, m, &preds),
            _ => return self.simple(s, &preds),
        };
        self.stmts.insert(key(s), (s, nodes));
        vec![nodes.after]
    }

    /// A simple statement: one node; `return`, `raise`, `break` and `continue` jump.
    fn simple(&mut self, s: &'a Stmt, preds: &[NodeIndex]) -> Vec<NodeIndex> {
        let n = self.node(NodeKind::Simple, s, None, s.range(), Names::simple(s));
        self.edges(preds, n);
        self.stmts
            .insert(key(s), (s, StmtNodes { head: n, after: n }));
        let jump = match s {
            Stmt::Return(_) => Jump::Return,
            Stmt::Raise(_) => Jump::Raise,
            Stmt::Break(_) => Jump::Break,
            Stmt::Continue(_) => Jump::Continue,
            _ => return vec![n],
        };
        self.jump(n, jump);
        Vec::new()
    }

    fn if_stmt(&mut self, s: &'a Stmt, i: &'a ast::StmtIf, preds: &[NodeIndex]) -> StmtNodes {
        let test = self.expr_node(NodeKind::Test, s, &i.test);
        self.edges(preds, test);
        let mut ends = self.block(&i.body, vec![test]);
        ends.extend(self.block(&i.orelse, vec![test]));
        StmtNodes {
            head: test,
            after: self.join(s, &ends),
        }
    }

    fn while_stmt(&mut self, s: &'a Stmt, w: &'a ast::StmtWhile, preds: &[NodeIndex]) -> StmtNodes {
        let after = self.join(s, &[]);
        let test = self.expr_node(NodeKind::Test, s, &w.test);
        self.edges(preds, test);
        let ends = self.in_loop(test, after, &w.body, test);
        self.edges(&ends, test);
        let always =
            matches!(&*w.test, Expr::Constant(c) if matches!(c.value, ast::Constant::Bool(true)));
        let exits = if always { Vec::new() } else { vec![test] };
        let ends = self.block(&w.orelse, exits);
        self.edges(&ends, after);
        StmtNodes { head: test, after }
    }

    fn for_stmt(
        &mut self,
        s: &'a Stmt,
        (target, iter): (&'a Expr, &'a Expr),
        body: &'a [Stmt],
        orelse: &'a [Stmt],
        preds: &[NodeIndex],
    ) -> StmtNodes {
        let after = self.join(s, &[]);
        let it = self.expr_node(NodeKind::Iter, s, iter);
        self.edges(preds, it);
        let head = self.node(NodeKind::Header, s, None, s.range(), Names::default());
        self.edges(&[it], head);
        let mut names = Names::default();
        names.bind(target);
        let bind = self.node(NodeKind::Target, s, Some(target), target.range(), names);
        self.edges(&[head], bind);
        let ends = self.in_loop(head, after, body, bind);
        self.edges(&ends, head);
        let ends = self.block(orelse, vec![head]);
        self.edges(&ends, after);
        StmtNodes { head, after }
    }

    /// Builds a loop body entered from `first`, with `continue` going to `head` and `break` to `after`.
    fn in_loop(
        &mut self,
        head: NodeIndex,
        after: NodeIndex,
        body: &'a [Stmt],
        first: NodeIndex,
    ) -> Vec<NodeIndex> {
        self.ctx.push(Ctx::Loop { head, after });
        let ends = self.block(body, vec![first]);
        self.ctx.pop();
        ends
    }

    fn with_stmt(
        &mut self,
        s: &'a Stmt,
        items: &'a [ast::WithItem],
        body: &'a [Stmt],
        preds: &[NodeIndex],
    ) -> StmtNodes {
        let mut names = Names::default();
        for i in items {
            names.read(&i.context_expr);
            if let Some(v) = &i.optional_vars {
                names.bind(v);
            }
        }
        let head = self.node(NodeKind::With, s, None, header(s.range(), body), names);
        self.edges(preds, head);
        let ends = self.block(body, vec![head]);
        StmtNodes {
            head,
            after: self.join(s, &ends),
        }
    }

    fn try_stmt(
        &mut self,
        s: &'a Stmt,
        protected: (&'a [Stmt], &'a [ast::ExceptHandler]),
        orelse: &'a [Stmt],
        finalbody: &'a [Stmt],
        preds: &[NodeIndex],
    ) -> StmtNodes {
        if finalbody.is_empty() {
            let (head, ends) = self.try_parts(s, protected, orelse, preds);
            return StmtNodes {
                head,
                after: self.join(s, &ends),
            };
        }
        let entry = self.node(
            NodeKind::Join,
            s,
            None,
            header(s.range(), finalbody),
            Names::default(),
        );
        self.ctx.push(Ctx::Finally {
            entry,
            pending: Vec::new(),
        });
        let (head, ends) = self.try_parts(s, protected, orelse, preds);
        let pending = match self.ctx.pop() {
            Some(Ctx::Finally { pending, .. }) => pending,
            _ => Vec::new(),
        };
        self.edges(&ends, entry);
        let ends = self.block(finalbody, vec![entry]);
        for jump in pending {
            for &e in &ends {
                self.jump(e, jump);
            }
        }
        StmtNodes {
            head,
            after: self.join(s, &ends),
        }
    }

    /// The `try` body, handlers and `else`: returns the Try node and the normal ends.
    fn try_parts(
        &mut self,
        s: &'a Stmt,
        (body, handlers): (&'a [Stmt], &'a [ast::ExceptHandler]),
        orelse: &'a [Stmt],
        preds: &[NodeIndex],
    ) -> (NodeIndex, Vec<NodeIndex>) {
        let mut caught = Vec::new();
        for ast::ExceptHandler::ExceptHandler(h) in handlers {
            let mut names = Names::default();
            if let Some(t) = &h.type_ {
                names.read(t);
            }
            if let Some(name) = &h.name {
                names.defs.insert(name.to_string());
            }
            let n = self.node(
                NodeKind::Handler,
                s,
                h.type_.as_deref(),
                header(h.range, &h.body),
                names,
            );
            caught.push((n, &h.body[..]));
        }
        self.ctx
            .push(Ctx::Catch(caught.iter().map(|(n, _)| *n).collect()));
        let head = self.node(
            NodeKind::Try,
            s,
            None,
            header(s.range(), body),
            Names::default(),
        );
        self.edges(preds, head);
        let ends = self.block(body, vec![head]);
        self.ctx.pop();
        let mut ends = self.block(orelse, ends);
        for (n, body) in caught {
            ends.extend(self.block(body, vec![n]));
        }
        (head, ends)
    }

    fn match_stmt(&mut self, s: &'a Stmt, m: &'a ast::StmtMatch, preds: &[NodeIndex]) -> StmtNodes {
        let head = self.expr_node(NodeKind::Match, s, &m.subject);
        self.edges(preds, head);
        let mut ends = vec![head];
        let mut previous = None;
        for c in &m.cases {
            let mut names = Names::default();
            names.pattern(&c.pattern);
            let case = self.node(NodeKind::Case, s, None, c.pattern.range(), names);
            self.edges(&[head], case);
            self.edges(previous.as_slice(), case);
            let last = match &c.guard {
                Some(g) => {
                    let guard = self.expr_node(NodeKind::Test, s, g);
                    self.edges(&[case], guard);
                    guard
                }
                None => case,
            };
            ends.extend(self.block(&c.body, vec![last]));
            previous = Some(last);
        }
        ends.extend(previous);
        StmtNodes {
            head,
            after: self.join(s, &ends),
        }
    }
}

/// The header line of a compound statement spanning `range`: up to its first body statement.
fn header(range: TextRange, body: &[Stmt]) -> TextRange {
    let end: TextSize = body.first().map_or(range.end(), |b| b.start());
    TextRange::new(range.start(), end.max(range.start()))
}

/// Makes every node reading a name that holds a closure read the closure's
/// free names too (see the module doc).
fn propagate_captures(graph: &mut DiGraph<Node<'_>, ()>) {
    let mut held: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let reads = |held: &BTreeMap<String, BTreeSet<String>>, n: &Node| -> BTreeSet<String> {
        let via_names = n.uses.iter().filter_map(|u| held.get(u)).flatten();
        n.captures.iter().chain(via_names).cloned().collect()
    };
    let mut changed = true;
    while changed {
        changed = false;
        for n in graph.node_weights() {
            let r = reads(&held, n);
            if r.is_empty() {
                continue;
            }
            for name in n.defs.iter().chain(&n.mutates) {
                let set = held.entry(name.clone()).or_default();
                let before = set.len();
                set.extend(r.iter().cloned());
                changed |= set.len() != before;
            }
        }
    }
    for n in graph.node_weights_mut() {
        let r = reads(&held, n);
        n.uses.extend(r);
    }
}
