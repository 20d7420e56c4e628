//! Child enumeration for the Python AST: the expressions and statements
//! directly inside a node. Every analysis walks the tree through these two
//! functions so that a new node kind is handled in one place.

use rustpython_parser::ast::{self, Expr, Stmt};

/// Calls `f` on each expression directly inside `s` (not inside nested statements).
pub fn stmt_exprs<'a>(s: &'a Stmt, f: &mut dyn FnMut(&'a Expr)) {
    match s {
        Stmt::FunctionDef(d) => {
            d.decorator_list.iter().for_each(&mut *f);
            arguments_exprs(&d.args, f);
            d.returns.iter().for_each(|e| f(e));
        }
        Stmt::AsyncFunctionDef(d) => d.decorator_list.iter().for_each(f),
        Stmt::ClassDef(d) => {
            d.decorator_list.iter().for_each(&mut *f);
            d.bases.iter().for_each(&mut *f);
            d.keywords.iter().for_each(|k| f(&k.value));
        }
        Stmt::Return(r) => r.value.iter().for_each(|e| f(e)),
        Stmt::Delete(d) => d.targets.iter().for_each(f),
        Stmt::Assign(a) => {
            a.targets.iter().for_each(&mut *f);
            f(&a.value);
        }
        Stmt::AugAssign(a) => {
            f(&a.target);
            f(&a.value);
        }
        Stmt::AnnAssign(a) => {
            f(&a.target);
            f(&a.annotation);
            a.value.iter().for_each(|e| f(e));
        }
        Stmt::For(l) => {
            f(&l.target);
            f(&l.iter);
        }
        Stmt::AsyncFor(l) => {
            f(&l.target);
            f(&l.iter);
        }
        Stmt::While(w) => f(&w.test),
        Stmt::If(i) => f(&i.test),
        Stmt::With(w) => w.items.iter().for_each(|i| f(&i.context_expr)),
        Stmt::Raise(r) => {
            r.exc.iter().for_each(|e| f(e));
            r.cause.iter().for_each(|e| f(e));
        }
        Stmt::Assert(a) => {
            f(&a.test);
            a.msg.iter().for_each(|e| f(e));
        }
        Stmt::Expr(e) => f(&e.value),
        _ => {}
    }
}

fn arguments_exprs<'a>(args: &'a ast::Arguments, f: &mut dyn FnMut(&'a Expr)) {
    for a in args
        .posonlyargs
        .iter()
        .chain(&args.args)
        .chain(&args.kwonlyargs)
    {
        a.default.iter().for_each(|e| f(e));
        a.def.annotation.iter().for_each(|e| f(e));
    }
}

/// Calls `f` on each block of statements directly inside `s` (bodies, else branches, handlers).
pub fn stmt_blocks<'a>(s: &'a Stmt, f: &mut dyn FnMut(&'a [Stmt])) {
    match s {
        Stmt::FunctionDef(d) => f(&d.body),
        Stmt::AsyncFunctionDef(d) => f(&d.body),
        Stmt::ClassDef(d) => f(&d.body),
        Stmt::For(l) => {
            f(&l.body);
            f(&l.orelse);
        }
        Stmt::AsyncFor(l) => {
            f(&l.body);
            f(&l.orelse);
        }
        Stmt::While(w) => {
            f(&w.body);
            f(&w.orelse);
        }
        Stmt::If(i) => {
            f(&i.body);
            f(&i.orelse);
        }
        Stmt::With(w) => f(&w.body),
        Stmt::AsyncWith(w) => f(&w.body),
        Stmt::Try(t) => {
            f(&t.body);
            for h in &t.handlers {
                let ast::ExceptHandler::ExceptHandler(h) = h;
                f(&h.body);
            }
            f(&t.orelse);
            f(&t.finalbody);
        }
        Stmt::TryStar(t) => {
            f(&t.body);
            f(&t.orelse);
            f(&t.finalbody);
        }
        Stmt::Match(m) => m.cases.iter().for_each(|c| f(&c.body)),
        _ => {}
    }
}

/// Calls `f` on each expression directly inside `e`.
pub fn expr_children<'a>(e: &'a Expr, f: &mut dyn FnMut(&'a Expr)) {
    match e {
        Expr::BoolOp(b) => b.values.iter().for_each(f),
        Expr::NamedExpr(n) => {
            f(&n.target);
            f(&n.value);
        }
        Expr::BinOp(b) => {
            f(&b.left);
            f(&b.right);
        }
        Expr::UnaryOp(u) => f(&u.operand),
        Expr::Lambda(l) => {
            arguments_exprs(&l.args, f);
            f(&l.body);
        }
        Expr::IfExp(i) => {
            f(&i.test);
            f(&i.body);
            f(&i.orelse);
        }
        Expr::Dict(d) => {
            d.keys.iter().flatten().for_each(&mut *f);
            d.values.iter().for_each(f);
        }
        Expr::Set(s) => s.elts.iter().for_each(f),
        Expr::ListComp(c) => comprehension(&c.elt, None, &c.generators, f),
        Expr::SetComp(c) => comprehension(&c.elt, None, &c.generators, f),
        Expr::GeneratorExp(c) => comprehension(&c.elt, None, &c.generators, f),
        Expr::DictComp(c) => comprehension(&c.key, Some(&c.value), &c.generators, f),
        Expr::Await(a) => f(&a.value),
        Expr::Yield(y) => y.value.iter().for_each(|e| f(e)),
        Expr::YieldFrom(y) => f(&y.value),
        Expr::Compare(c) => {
            f(&c.left);
            c.comparators.iter().for_each(f);
        }
        Expr::Call(c) => {
            f(&c.func);
            c.args.iter().for_each(&mut *f);
            c.keywords.iter().for_each(|k| f(&k.value));
        }
        Expr::FormattedValue(v) => f(&v.value),
        Expr::JoinedStr(j) => j.values.iter().for_each(f),
        Expr::Attribute(a) => f(&a.value),
        Expr::Subscript(s) => {
            f(&s.value);
            f(&s.slice);
        }
        Expr::Starred(s) => f(&s.value),
        Expr::List(l) => l.elts.iter().for_each(f),
        Expr::Tuple(t) => t.elts.iter().for_each(f),
        Expr::Slice(s) => {
            s.lower.iter().for_each(|e| f(e));
            s.upper.iter().for_each(|e| f(e));
            s.step.iter().for_each(|e| f(e));
        }
        Expr::Constant(_) | Expr::Name(_) => {}
    }
}

fn comprehension<'a>(
    elt: &'a Expr,
    value: Option<&'a Expr>,
    generators: &'a [ast::Comprehension],
    f: &mut dyn FnMut(&'a Expr),
) {
    for g in generators {
        f(&g.iter);
        f(&g.target);
        g.ifs.iter().for_each(&mut *f);
    }
    f(elt);
    value.iter().for_each(|e| f(e));
}

/// Calls `f` on every statement of `body`, recursively, including nested
/// function and class bodies when `into_defs` is true.
pub fn all_stmts<'a>(body: &'a [Stmt], into_defs: bool, f: &mut dyn FnMut(&'a Stmt)) {
    for s in body {
        f(s);
        let is_def = matches!(
            s,
            Stmt::FunctionDef(_) | Stmt::AsyncFunctionDef(_) | Stmt::ClassDef(_)
        );
        if into_defs || !is_def {
            stmt_blocks(s, &mut |b| all_stmts(b, into_defs, f));
        }
    }
}

/// Calls `f` on every expression inside `e`, `e` included, recursively.
pub fn all_exprs<'a>(e: &'a Expr, f: &mut dyn FnMut(&'a Expr)) {
    f(e);
    expr_children(e, &mut |c| all_exprs(c, f));
}
