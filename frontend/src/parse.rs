//! Parsing with rustpython-parser; syntax errors become diagnostics.

use crate::diagnostics::Diagnostic;
use crate::source::SourceFile;
use agc_ir::Span;
use rustpython_parser::ast::{self, Ranged};
use rustpython_parser::{parse, Mode};

/// Parses a module. The AST is leaked: it lives as long as the compilation,
/// and staged closures keep `'static` references into it.
pub fn parse_module(file: &SourceFile) -> Result<&'static [ast::Stmt], Diagnostic> {
    match parse(&file.text, Mode::Module, &file.path) {
        Ok(ast::Mod::Module(m)) => Ok(Box::leak(m.body.into_boxed_slice())),
        Ok(_) => Err(Diagnostic::internal(
            Span::UNKNOWN,
            "parser returned a non-module",
        )),
        Err(e) => {
            let at = u32::from(e.offset);
            Err(Diagnostic::error(
                Span::new(at, at + 1),
                format!("invalid syntax: {}", e.error),
            ))
        }
    }
}

/// The span of any AST node.
pub fn span_of<T: Ranged>(node: &T) -> Span {
    let r = node.range();
    Span::new(r.start().into(), r.end().into())
}
