//! The staging interpreter: runs the model's Python now and stages tensor
//! computations into the agc IR (LMS-style staging on values).
//!
//! [`Stager`] walks the AST. Values ([`value::Value`]) are either compile-time
//! Python objects, on which every construct runs at once, or staged tensors,
//! for which ops are appended to the IR function being built. Each staged op
//! carries the span of the expression that produced it.
//!
//! Layout: [`stmt`] and [`expr`] interpret statements and expressions;
//! [`calls`] binds arguments and calls functions and classes; [`pyops`] is
//! Python's own arithmetic on compile-time values; [`tensor`] builds typed IR
//! ops with numpy's promotion rules; [`numpy`], [`methods`] and [`index`] are
//! the `agc.numpy` surface; [`builtins`] the Python builtins; [`export`] turns
//! `@agc.export` functions into IR functions.

pub mod args;
pub mod builtins;
pub mod calls;
pub mod export;
pub mod expr;
pub mod index;
pub mod methods;
pub mod numpy;
pub mod pyops;
pub mod scope;
pub mod stmt;
pub mod tensor;
pub mod value;

use crate::diagnostics::Diagnostic;
use agc_ir::{Function, RegionId, Span};
use value::Value;

/// Result of staging steps.
pub type R<T> = Result<T, Diagnostic>;

/// How a statement finished.
#[derive(Debug)]
pub enum Flow {
    /// Fell through.
    Normal,
    /// `break`
    Break,
    /// `continue`
    Continue,
    /// `return value`
    Return(Value),
}

/// An `@agc.export` request recorded while the module body ran.
#[derive(Clone, Debug)]
pub struct ExportRequest {
    /// Exported name.
    pub name: String,
    /// The function.
    pub func: std::rc::Rc<value::Closure>,
    /// Compile-time keyword arguments bound by the decorator.
    pub static_kwargs: Vec<(String, Value)>,
    /// The decorator's span.
    pub span: Span,
}

/// The interpreter state.
pub struct Stager {
    /// The IR function being staged into, while staging an export.
    pub func: Option<Function>,
    /// Where ops are appended.
    pub region: RegionId,
    /// Exports found so far.
    pub exports: Vec<ExportRequest>,
    /// Current depth of nested Python calls (bounded).
    pub call_depth: usize,
    /// Spans of the calls in progress, innermost last (for notes).
    pub call_stack: Vec<(String, Span)>,
    /// The source being staged (for notes that name lines).
    pub file: std::rc::Rc<crate::source::SourceFile>,
}

/// How deep compile-time Python calls may nest before we report runaway recursion.
pub const MAX_CALL_DEPTH: usize = 200;

impl Stager {
    /// A fresh interpreter for `file`.
    pub fn new(file: std::rc::Rc<crate::source::SourceFile>) -> Self {
        Stager { func: None, region: RegionId(0), exports: Vec::new(), call_depth: 0, call_stack: Vec::new(), file }
    }

    /// The IR function being built, or an error if tensors appear outside an export.
    pub fn func_mut(&mut self, span: Span) -> R<&mut Function> {
        self.func.as_mut().ok_or_else(|| {
            Diagnostic::error(span, "tensor operations run only inside functions called from an `@agc.export` function")
        })
    }
}
