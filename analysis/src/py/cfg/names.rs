//! What one CFG node binds, reads and mutates: Python's binding rules for
//! assignment targets, imports, `def`/`class`, walrus, `del` and `case`
//! patterns, and the scoping of lambdas, comprehensions and nested functions.

use super::super::{activity, walk};
use super::build::Builder;
use rustpython_parser::ast::{self, Expr, Stmt};
use std::collections::BTreeSet;

/// The names one node binds, reads and mutates, and its closures' free names.
#[derive(Default)]
pub(super) struct Names {
    pub(super) defs: BTreeSet<String>,
    pub(super) uses: BTreeSet<String>,
    pub(super) mutates: BTreeSet<String>,
    pub(super) captures: BTreeSet<String>,
}

impl Names {
    /// The names of a simple (not compound) statement.
    pub(super) fn simple(s: &Stmt) -> Names {
        let mut n = Names::default();
        match s {
            Stmt::Assign(a) => {
                n.read(&a.value);
                a.targets.iter().for_each(|t| n.bind(t));
            }
            Stmt::AugAssign(a) => {
                n.read(&a.value);
                n.bind(&a.target);
                if let Expr::Name(x) = &*a.target {
                    n.uses.insert(x.id.to_string());
                }
            }
            Stmt::AnnAssign(a) => {
                n.read(&a.annotation);
                match &a.value {
                    Some(v) => {
                        n.read(v);
                        n.bind(&a.target);
                    }
                    None if !matches!(&*a.target, Expr::Name(_)) => n.read(&a.target),
                    None => {}
                }
            }
            Stmt::Delete(d) => d.targets.iter().for_each(|t| n.bind(t)),
            Stmt::Import(i) => n.defs.extend(i.names.iter().map(|a| match &a.asname {
                Some(alias) => alias.to_string(),
                None => a.name.split('.').next().unwrap_or_default().to_string(),
            })),
            Stmt::ImportFrom(i) => n.defs.extend(
                i.names
                    .iter()
                    .filter(|a| a.name.as_str() != "*")
                    .map(|a| a.asname.as_ref().unwrap_or(&a.name).to_string()),
            ),
            Stmt::FunctionDef(d) => n.function(
                &d.name,
                &d.args,
                &d.body,
                &d.decorator_list,
                d.returns.as_deref(),
                &d.type_params,
            ),
            Stmt::AsyncFunctionDef(d) => n.function(
                &d.name,
                &d.args,
                &d.body,
                &d.decorator_list,
                d.returns.as_deref(),
                &d.type_params,
            ),
            Stmt::ClassDef(d) => {
                d.decorator_list
                    .iter()
                    .chain(&d.bases)
                    .for_each(|e| n.read(e));
                d.keywords.iter().for_each(|k| n.read(&k.value));
                n.type_params(&d.type_params);
                n.captures.extend(scope_reads(None, &d.body));
                n.defs.insert(d.name.to_string());
            }
            Stmt::TypeAlias(t) => {
                n.type_params(&t.type_params);
                n.read(&t.value);
                n.bind(&t.name);
            }
            _ => walk::stmt_exprs(s, &mut |e| n.read(e)),
        }
        n
    }

    fn function(
        &mut self,
        name: &ast::Identifier,
        args: &ast::Arguments,
        body: &[Stmt],
        decorators: &[Expr],
        returns: Option<&Expr>,
        type_params: &[ast::TypeParam],
    ) {
        decorators.iter().chain(returns).for_each(|e| self.read(e));
        for a in args
            .posonlyargs
            .iter()
            .chain(&args.args)
            .chain(&args.kwonlyargs)
        {
            a.default
                .iter()
                .chain(&a.def.annotation)
                .for_each(|e| self.read(e));
        }
        for a in args.vararg.iter().chain(&args.kwarg) {
            a.annotation.iter().for_each(|e| self.read(e));
        }
        self.type_params(type_params);
        self.captures.extend(scope_reads(Some(args), body));
        self.defs.insert(name.to_string());
    }

    fn type_params(&mut self, params: &[ast::TypeParam]) {
        for p in params {
            if let ast::TypeParam::TypeVar(t) = p {
                t.bound.iter().for_each(|b| self.read(b));
            }
        }
    }

    /// Reads expression `e` (walrus targets are bound).
    pub(super) fn read(&mut self, e: &Expr) {
        match e {
            Expr::Name(n) if n.ctx == ast::ExprContext::Load => {
                self.uses.insert(n.id.to_string());
            }
            Expr::NamedExpr(n) => {
                self.read(&n.value);
                self.bind(&n.target);
            }
            Expr::Lambda(l) => {
                for a in l
                    .args
                    .posonlyargs
                    .iter()
                    .chain(&l.args.args)
                    .chain(&l.args.kwonlyargs)
                {
                    a.default.iter().for_each(|d| self.read(d));
                }
                let mut body = Names::default();
                body.read(&l.body);
                let params = activity::parameter_names(&l.args);
                let Names {
                    defs,
                    uses,
                    captures,
                    ..
                } = body;
                let free = uses
                    .into_iter()
                    .chain(captures)
                    .filter(|n| !params.contains(n) && !defs.contains(n));
                self.captures.extend(free);
            }
            Expr::ListComp(c) => self.comprehension(&[&c.elt], &c.generators, false),
            Expr::SetComp(c) => self.comprehension(&[&c.elt], &c.generators, false),
            Expr::DictComp(c) => self.comprehension(&[&c.key, &c.value], &c.generators, false),
            Expr::GeneratorExp(c) => self.comprehension(&[&c.elt], &c.generators, true),
            _ => walk::expr_children(e, &mut |c| self.read(c)),
        }
    }

    /// A comprehension: the first iterable is read here, the rest in the
    /// comprehension's scope (lazily, for a generator expression); walrus
    /// targets bind in the enclosing scope.
    fn comprehension(&mut self, elts: &[&Expr], generators: &[ast::Comprehension], lazy: bool) {
        let mut inner = Names::default();
        let mut locals = BTreeSet::new();
        for (i, g) in generators.iter().enumerate() {
            if i == 0 {
                self.read(&g.iter);
            } else {
                inner.read(&g.iter);
            }
            activity::target_names(&g.target, &mut locals);
            inner.read(&g.target);
            g.ifs.iter().for_each(|e| inner.read(e));
        }
        elts.iter().for_each(|e| inner.read(e));
        let Names {
            defs,
            uses,
            captures,
            ..
        } = inner;
        let free = uses.into_iter().filter(|n| !locals.contains(n));
        if lazy {
            self.captures.extend(free);
        } else {
            self.uses.extend(free);
        }
        self.captures
            .extend(captures.into_iter().filter(|n| !locals.contains(n)));
        self.defs.extend(defs);
    }

    /// Binds assignment target `t`: names are bound; an attribute or
    /// subscript target reads its parts and mutates its root name.
    pub(super) fn bind(&mut self, t: &Expr) {
        match t {
            Expr::Name(n) => {
                self.defs.insert(n.id.to_string());
            }
            Expr::Tuple(x) => x.elts.iter().for_each(|e| self.bind(e)),
            Expr::List(x) => x.elts.iter().for_each(|e| self.bind(e)),
            Expr::Starred(x) => self.bind(&x.value),
            Expr::Attribute(_) | Expr::Subscript(_) => {
                self.read(t);
                let mut root = t;
                while let Expr::Attribute(ast::ExprAttribute { value, .. })
                | Expr::Subscript(ast::ExprSubscript { value, .. }) = root
                {
                    root = &**value;
                }
                if let Expr::Name(n) = root {
                    self.mutates.insert(n.id.to_string());
                }
            }
            _ => self.read(t),
        }
    }

    /// A `case` pattern: reads its value expressions, binds its captures.
    pub(super) fn pattern(&mut self, p: &ast::Pattern) {
        use ast::Pattern as P;
        match p {
            P::MatchValue(v) => self.read(&v.value),
            P::MatchSingleton(_) => {}
            P::MatchSequence(s) => s.patterns.iter().for_each(|p| self.pattern(p)),
            P::MatchMapping(m) => {
                m.keys.iter().for_each(|k| self.read(k));
                m.patterns.iter().for_each(|p| self.pattern(p));
                self.defs.extend(m.rest.iter().map(|r| r.to_string()));
            }
            P::MatchClass(c) => {
                self.read(&c.cls);
                c.patterns
                    .iter()
                    .chain(&c.kwd_patterns)
                    .for_each(|p| self.pattern(p));
            }
            P::MatchStar(s) => self.defs.extend(s.name.iter().map(|n| n.to_string())),
            P::MatchAs(a) => {
                a.pattern.iter().for_each(|p| self.pattern(p));
                self.defs.extend(a.name.iter().map(|n| n.to_string()));
            }
            P::MatchOr(o) => o.patterns.iter().for_each(|p| self.pattern(p)),
        }
    }
}

/// The free names a nested scope reads: for a function (`params` given),
/// the names its body (nested scopes included) reads that are not its own
/// locals; for a class body, every name it reads.
fn scope_reads(params: Option<&ast::Arguments>, body: &[Stmt]) -> BTreeSet<String> {
    let inner = Builder::run(body, BTreeSet::new());
    let mut uses = BTreeSet::new();
    let mut locals = BTreeSet::new();
    for n in inner.graph.node_weights() {
        uses.extend(n.uses.iter().cloned());
        locals.extend(n.defs.iter().cloned());
    }
    let Some(args) = params else {
        return uses;
    };
    locals.extend(activity::parameter_names(args));
    for n in activity::declared_outer(body) {
        locals.remove(&n);
    }
    uses.retain(|u| !locals.contains(u));
    uses
}
