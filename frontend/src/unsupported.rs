//! The one place that rejects Python agc does not stage, before staging
//! starts (AutoGraph's `unsupported_features_checker`), naming the construct.

use crate::diagnostics::Diagnostic;
use crate::parse::span_of;
use agc_analysis::py::walk;
use rustpython_parser::ast::{Expr, Stmt};

/// Returns the first unsupported construct in `body`, if any.
pub fn check(body: &[Stmt]) -> Result<(), Diagnostic> {
    let mut found: Option<Diagnostic> = None;
    let mut note = |d: Diagnostic| {
        if found.is_none() {
            found = Some(d);
        }
    };
    walk::all_stmts(body, true, &mut |s| {
        let what = match s {
            Stmt::Try(_) | Stmt::TryStar(_) => Some("`try` statements are not supported: a deployed library has no exceptions; validate inputs with `if` and return early instead"),
            Stmt::With(_) => Some("`with` statements are not supported"),
            Stmt::AsyncWith(_) | Stmt::AsyncFor(_) | Stmt::AsyncFunctionDef(_) => Some("`async` code is not supported"),
            Stmt::Match(_) => Some("`match` statements are not supported; use `if`/`elif`"),
            Stmt::TypeAlias(_) => Some("`type` aliases are not supported"),
            _ => None,
        };
        if let Some(w) = what {
            note(Diagnostic::unsupported(span_of(s), w));
        }
        walk::stmt_exprs(s, &mut |e| {
            walk::all_exprs(e, &mut |x| {
                let what = match x {
                    Expr::Yield(_) | Expr::YieldFrom(_) => {
                        Some("generators (`yield`) are not supported")
                    }
                    Expr::Await(_) => Some("`await` is not supported"),
                    Expr::NamedExpr(_) => Some("assignment expressions (`:=`) are not supported"),
                    Expr::Set(_) | Expr::SetComp(_) => Some("sets are not supported"),
                    _ => None,
                };
                if let Some(w) = what {
                    note(Diagnostic::unsupported(span_of(x), w));
                }
            })
        });
    });
    found.map_or(Ok(()), Err)
}
