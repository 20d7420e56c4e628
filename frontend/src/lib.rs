//! agc frontend: Python source → staged agc IR.
//!
//! The pipeline is [`parse`] (rustpython-parser) → [`unsupported::check`]
//! (one place that rejects the Python agc does not stage) → the staging
//! interpreter ([`stage::Stager`]) runs the module body now, collecting
//! `@agc.export` functions, then traces each export into an IR
//! [`agc_ir::Function`]. Every problem is a [`diagnostics::Diagnostic`] at the
//! user's span, rendered as `file:line:col: error: ...` with a caret.

pub mod diagnostics;
pub mod parse;
pub mod source;
pub mod stage;
pub mod unsupported;

use diagnostics::Diagnostic;
use source::SourceFile;
use stage::scope::Scope;
use stage::{Flow, Stager};
use std::rc::Rc;

/// Parses, checks and stages `file` into an IR module named `module_name`.
pub fn stage_module(file: &SourceFile, module_name: &str) -> Result<agc_ir::Module, Diagnostic> {
    let body = parse::parse_module(file)?;
    unsupported::check(body)?;
    let mut stager = Stager::new(Rc::new(file.clone()));
    stager.facts = stage::flow_facts::FlowFacts::of_module(body);
    let globals = Scope::module();
    globals.set("__name__", stage::value::Value::str(module_name));
    stager.module_scope = Some(globals.clone());
    match stager.exec_block(body, &globals)? {
        Flow::Normal => {}
        _ => {
            return Err(Diagnostic::error(
                agc_ir::Span::new(0, 1),
                "'return', 'break' or 'continue' outside a function",
            ))
        }
    }
    if stager.exports.is_empty() {
        return Err(Diagnostic::error(
            agc_ir::Span::new(0, 1),
            "no exported functions: decorate the entry points with @agc.export",
        ));
    }
    stager.module.name = module_name.to_string();
    stager.declare_variables(&globals)?;
    for req in stager.exports.clone() {
        let (id, assigns) = stager.stage_export(&req)?;
        let doc = req.func.doc.clone();
        stager.module.exports.push(agc_ir::Export {
            func: id,
            c_name: req.name.clone(),
            doc,
            assigns,
        });
    }
    let mut module = std::mem::take(&mut stager.module);
    module.line_starts = std::iter::once(0)
        .chain(file.text.match_indices('\n').map(|(i, _)| i as u32 + 1))
        .collect();
    agc_ir::verify::verify_module(&module).map_err(|e| {
        tracing::debug!(ir = %agc_ir::print::print_module(&module), "staged module fails verification");
        Diagnostic::internal(agc_ir::Span::UNKNOWN, e.to_string())
    })?;
    tracing::debug!(exports = module.exports.len(), "staged module");
    Ok(module)
}
