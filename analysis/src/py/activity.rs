//! Activity analysis: the names a block of statements binds and reads.
//!
//! Python's scoping rule makes every name bound anywhere in a function body
//! local to the whole function (unless declared `global`/`nonlocal`);
//! [`bound_names`] computes that set. Staged control flow (a staged `if` or
//! loop) carries exactly the variables its body binds that are read later;
//! [`bound_names`] and [`read_names`] give the two halves.
//!
//! Requires nothing; runs on the AST directly. Nested function and class
//! bodies are separate scopes: only their names are bound here.
//! Comprehension targets live in the comprehension's own scope.

use super::walk;
use rustpython_parser::ast::{self, Expr, Stmt};
use std::collections::BTreeSet;

/// Names bound by an assignment target (`a`, `a, (b, *c)`); attribute and
/// subscript targets bind nothing.
pub fn target_names(target: &Expr, out: &mut BTreeSet<String>) {
    match target {
        Expr::Name(n) => {
            out.insert(n.id.to_string());
        }
        Expr::Tuple(t) => t.elts.iter().for_each(|e| target_names(e, out)),
        Expr::List(l) => l.elts.iter().for_each(|e| target_names(e, out)),
        Expr::Starred(s) => target_names(&s.value, out),
        _ => {}
    }
}

fn stmt_binds(s: &Stmt, out: &mut BTreeSet<String>) {
    match s {
        Stmt::FunctionDef(d) => {
            out.insert(d.name.to_string());
        }
        Stmt::AsyncFunctionDef(d) => {
            out.insert(d.name.to_string());
        }
        Stmt::ClassDef(d) => {
            out.insert(d.name.to_string());
        }
        Stmt::Assign(a) => a.targets.iter().for_each(|t| target_names(t, out)),
        Stmt::AugAssign(a) => target_names(&a.target, out),
        Stmt::AnnAssign(a) => target_names(&a.target, out),
        Stmt::For(l) => target_names(&l.target, out),
        Stmt::AsyncFor(l) => target_names(&l.target, out),
        Stmt::Delete(d) => d.targets.iter().for_each(|t| target_names(t, out)),
        Stmt::With(w) => w
            .items
            .iter()
            .filter_map(|i| i.optional_vars.as_deref())
            .for_each(|t| target_names(t, out)),
        Stmt::Import(i) => i.names.iter().for_each(|a| {
            let name = a.asname.as_ref().map_or_else(
                || a.name.split('.').next().unwrap_or_default().to_string(),
                |n| n.to_string(),
            );
            out.insert(name);
        }),
        Stmt::ImportFrom(i) => i.names.iter().for_each(|a| {
            out.insert(a.asname.as_ref().unwrap_or(&a.name).to_string());
        }),
        _ => {}
    }
}

/// Names declared `global` or `nonlocal` in `body` (not in nested defs).
pub fn declared_outer(body: &[Stmt]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    walk::all_stmts(body, false, &mut |s| match s {
        Stmt::Global(g) => out.extend(g.names.iter().map(|n| n.to_string())),
        Stmt::Nonlocal(g) => out.extend(g.names.iter().map(|n| n.to_string())),
        _ => {}
    });
    out
}

/// Names bound anywhere in `body` (not inside nested defs or comprehensions),
/// walrus targets included, minus `global`/`nonlocal` declarations.
pub fn bound_names(body: &[Stmt]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    walk::all_stmts(body, false, &mut |s| {
        stmt_binds(s, &mut out);
        walk::stmt_exprs(s, &mut |e| {
            walk::all_exprs(e, &mut |x| {
                if let Expr::NamedExpr(n) = x {
                    target_names(&n.target, &mut out);
                }
            })
        });
    });
    for n in declared_outer(body) {
        out.remove(&n);
    }
    out
}

/// Names whose items are assigned in `body` (`x[i] = v`, `x[i][j] += v`,
/// not inside nested defs): the tensors an item write rebinds.
pub fn item_written_names(body: &[Stmt]) -> BTreeSet<String> {
    fn base(target: &Expr, out: &mut BTreeSet<String>) {
        match target {
            Expr::Subscript(s) => match &*s.value {
                Expr::Name(n) => {
                    out.insert(n.id.to_string());
                }
                inner => base(inner, out),
            },
            Expr::Tuple(t) => t.elts.iter().for_each(|e| base(e, out)),
            Expr::List(l) => l.elts.iter().for_each(|e| base(e, out)),
            Expr::Starred(s) => base(&s.value, out),
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    walk::all_stmts(body, false, &mut |s| match s {
        Stmt::Assign(a) => a.targets.iter().for_each(|t| base(t, &mut out)),
        Stmt::AugAssign(a) => base(&a.target, &mut out),
        Stmt::AnnAssign(a) => base(&a.target, &mut out),
        Stmt::For(l) => base(&l.target, &mut out),
        _ => {}
    });
    out
}

/// Attributes of names assigned in `body` (`obj.attr = v`, `obj.attr += v`,
/// in tuple targets too, not inside nested defs), as `obj.attr`.
pub fn attribute_written_names(body: &[Stmt]) -> BTreeSet<String> {
    fn attr(target: &Expr, out: &mut BTreeSet<String>) {
        match target {
            Expr::Attribute(a) => {
                if let Expr::Name(n) = &*a.value {
                    out.insert(format!("{}.{}", n.id, a.attr));
                }
            }
            Expr::Tuple(t) => t.elts.iter().for_each(|e| attr(e, out)),
            Expr::List(l) => l.elts.iter().for_each(|e| attr(e, out)),
            Expr::Starred(s) => attr(&s.value, out),
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    walk::all_stmts(body, false, &mut |s| match s {
        Stmt::Assign(a) => a.targets.iter().for_each(|t| attr(t, &mut out)),
        Stmt::AugAssign(a) => attr(&a.target, &mut out),
        Stmt::AnnAssign(a) => attr(&a.target, &mut out),
        Stmt::For(l) => attr(&l.target, &mut out),
        _ => {}
    });
    out
}

/// Names a function's parameters bind.
pub fn parameter_names(args: &ast::Arguments) -> Vec<String> {
    let mut out: Vec<String> = args
        .posonlyargs
        .iter()
        .chain(&args.args)
        .map(|a| a.def.arg.to_string())
        .collect();
    out.extend(args.vararg.iter().map(|a| a.arg.to_string()));
    out.extend(args.kwonlyargs.iter().map(|a| a.def.arg.to_string()));
    out.extend(args.kwarg.iter().map(|a| a.arg.to_string()));
    out
}

/// Names read (loaded) anywhere in `body`, nested scopes included.
pub fn read_names(body: &[Stmt]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    walk::all_stmts(body, true, &mut |s| {
        walk::stmt_exprs(s, &mut |e| {
            walk::all_exprs(e, &mut |x| {
                if let Expr::Name(n) = x {
                    if n.ctx == ast::ExprContext::Load {
                        out.insert(n.id.to_string());
                    }
                }
            })
        });
        if let Stmt::AugAssign(a) = s {
            target_names(&a.target, &mut out);
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustpython_parser::{parse, Mode};

    fn body(src: &str) -> Vec<Stmt> {
        match parse(src, Mode::Module, "<test>").unwrap() {
            ast::Mod::Module(m) => m.body,
            _ => unreachable!(),
        }
    }

    #[test]
    fn bound_names_follow_python_scoping() {
        let b = body(
            "a = 1\nb, (c, *d) = x\nfor i in r:\n    e += 1\ndef f():\n    inner = 2\nimport numpy as np\nglobal g\ng = 3\n[k for k in r]\nx.y = 1\n",
        );
        let names: Vec<String> = bound_names(&b).into_iter().collect();
        assert_eq!(names, ["a", "b", "c", "d", "e", "f", "i", "np"]);
    }

    #[test]
    fn item_written_names_are_the_bases_of_subscript_targets() {
        let b = body("x[0] = 1\ny[i][j] += 2\na, z[1] = 3, 4\nw.v[0] = 5\nq = 6\ndef f():\n    inner[0] = 7\n");
        let names: Vec<String> = item_written_names(&b).into_iter().collect();
        assert_eq!(names, ["x", "y", "z"]);
    }

    #[test]
    fn read_names_include_augmented_targets() {
        let b = body("y = x + 1\nz += y\n");
        let names: Vec<String> = read_names(&b).into_iter().collect();
        assert_eq!(names, ["x", "y", "z"]);
    }
}
