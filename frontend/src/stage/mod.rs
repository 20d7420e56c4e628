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
//! ops with numpy's promotion rules; [`numpy`] (with [`numpy_math`],
//! [`numpy_shape`], [`numpy_diag`], [`numpy_contract`]), [`methods`] and
//! [`index`] (with [`gather`]) are the `agc.numpy` surface; [`builtins`] the Python builtins; [`export`] turns
//! `@agc.export` functions into IR functions.

pub mod advanced_index;
pub mod args;
pub mod builtins;
pub mod calls;
pub mod control_flow;
pub mod einsum;
pub mod export;
pub mod expr;
pub mod flow_facts;
pub mod gather;
pub mod grad;
pub mod index;
pub mod iterators;
pub mod keywords;
pub mod limits;
pub mod list_items;
pub mod lists;
pub mod literal;
pub mod loops;
pub mod merge;
pub mod methods;
pub mod namedtuple;
pub mod numpy;
pub mod numpy_arrays;
pub mod numpy_choice;
pub mod numpy_cholesky;
pub mod numpy_composite;
pub mod numpy_contract;
pub mod numpy_diag;
pub mod numpy_join;
pub mod numpy_linalg;
pub mod numpy_math;
pub mod numpy_moments;
pub mod numpy_order;
pub mod numpy_products;
pub mod numpy_reductions;
pub mod numpy_sampled;
pub mod numpy_series;
pub mod numpy_shape;
pub mod numpy_signal;
pub mod numpy_signatures;
pub mod numpy_sized;
pub mod numpy_sort;
pub mod object_state;
pub mod operator;
pub mod pyint;
pub mod pyops;
pub mod recursion;
pub mod scope;
pub mod setitem;
pub mod stmt;
pub mod structure;
pub mod tensor;
pub mod value;
pub mod variables;
pub mod weights;

use crate::diagnostics::Diagnostic;
use agc_ir::{Function, RegionId, Span};
use std::collections::HashMap;
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
    /// Module-level array computations (numpy at module scope): pure ops with
    /// no parameters, copied on demand into the exports that use them.
    pub prelude: Function,
    /// Which function is being staged: 0 for the module body (the prelude),
    /// a fresh number for each IR function staged after that.
    pub generation: u32,
    /// The last generation number handed out.
    pub generations: u32,
    /// The IR module being built (exports, differentiated and recursive functions).
    pub module: agc_ir::Module,
    /// Prelude values already copied into the current export.
    pub imported: HashMap<agc_ir::Value, agc_ir::Value>,
    /// For each symbolic dim staged in the current function, a tensor that has it.
    pub sym_sources: HashMap<String, (value::Tensor, usize)>,
    /// Ops staged in the current function, by kind, operands and type (hash-consing).
    pub staged_ops: HashMap<String, value::Tensor>,
    /// Tensors of enclosing functions the current function captured, each
    /// with the parameter that carries it in; `None` where capturing is not allowed.
    pub captures: Option<Vec<(value::Tensor, value::Tensor)>>,
    /// The generations of the functions enclosing the current one.
    pub enclosing: Vec<u32>,
    /// Where ops are appended.
    pub region: RegionId,
    /// The regions open around `region` (outermost first): values staged in
    /// them are visible.
    pub open_regions: Vec<RegionId>,
    /// Exports found so far.
    pub exports: Vec<ExportRequest>,
    /// Current depth of nested Python calls (bounded).
    pub call_depth: usize,
    /// The user-function calls in progress, innermost last.
    pub call_stack: Vec<ActiveCall>,
    /// Specialisations of staged recursive functions, by key.
    pub specialisations: HashMap<String, recursion::Specialisation>,
    /// Where each variable name was last assigned (for errors about loop state).
    pub last_assignment: HashMap<String, Span>,
    /// The span of the most recent `return` statement (for result errors).
    pub last_return: Span,
    /// The source being staged (for notes that name lines).
    pub file: std::rc::Rc<crate::source::SourceFile>,
    /// How many fresh symbolic dims were made (see [`Stager::fresh_dim`]).
    pub fresh_dims: usize,
    /// Liveness and reaching definitions of the module's function bodies.
    pub facts: flow_facts::FlowFacts,
    /// The module's `agc.Variable`s.
    pub variables: Vec<variables::VariableState>,
    /// The module's global scope (where variables' current values are bound
    /// while an export is staged).
    pub module_scope: Option<std::rc::Rc<scope::Scope>>,
    /// Ops of the current function that loop probes staged and dropped (not
    /// counted against [`tensor::MAX_FUNCTION_OPS`]).
    pub probe_ops: usize,
    /// How many loop probes of the current function enclose what is being
    /// staged (a loop inside a probe is traced for its state's types only).
    pub probe_depth: usize,
}

/// A user-function call in progress.
pub struct ActiveCall {
    /// The function.
    pub closure: std::rc::Rc<value::Closure>,
    /// The IR function it is being staged into.
    pub generation: u32,
    /// How many regions were open when it started.
    pub regions: usize,
}

/// The staging state of an enclosing IR function, while a nested one is staged.
pub struct SavedFunction {
    func: Option<Function>,
    region: RegionId,
    open_regions: Vec<RegionId>,
    generation: u32,
    imported: HashMap<agc_ir::Value, agc_ir::Value>,
    sym_sources: HashMap<String, (value::Tensor, usize)>,
    staged_ops: HashMap<String, value::Tensor>,
    captures: Option<Vec<(value::Tensor, value::Tensor)>>,
    probe_ops: usize,
    probe_depth: usize,
}

/// How deep compile-time Python calls may nest before we report runaway recursion.
pub const MAX_CALL_DEPTH: usize = 200;

impl Stager {
    /// A fresh interpreter for `file`.
    pub fn new(file: std::rc::Rc<crate::source::SourceFile>) -> Self {
        Stager {
            func: None,
            prelude: Function::new("__module__", &[], Span::UNKNOWN),
            generation: 0,
            generations: 0,
            module: agc_ir::Module::new(""),
            imported: HashMap::new(),
            sym_sources: HashMap::new(),
            staged_ops: HashMap::new(),
            captures: None,
            enclosing: Vec::new(),
            region: RegionId(0),
            open_regions: vec![RegionId(0)],
            exports: Vec::new(),
            call_depth: 0,
            call_stack: Vec::new(),
            specialisations: HashMap::new(),
            last_return: Span::UNKNOWN,
            last_assignment: HashMap::new(),
            file,
            fresh_dims: 0,
            facts: flow_facts::FlowFacts::default(),
            variables: Vec::new(),
            module_scope: None,
            probe_ops: 0,
            probe_depth: 0,
        }
    }

    /// Starts staging a new IR function, saving the one in progress; returns
    /// the saved state and the new function's parameters as tensors.
    pub fn begin_function(&mut self, f: Function) -> (SavedFunction, Vec<value::Tensor>) {
        self.generations += 1;
        let body = f.body;
        let origin = self.generations;
        let params: Vec<value::Tensor> = f
            .params()
            .iter()
            .map(|&v| value::Tensor {
                value: v,
                ty: f.ty(v).tensor().clone(),
                origin,
                region: body,
                weak: false,
            })
            .collect();
        let saved = SavedFunction {
            func: self.func.replace(f),
            region: std::mem::replace(&mut self.region, body),
            open_regions: std::mem::replace(&mut self.open_regions, vec![body]),
            generation: std::mem::replace(&mut self.generation, origin),
            imported: std::mem::take(&mut self.imported),
            sym_sources: std::mem::take(&mut self.sym_sources),
            staged_ops: std::mem::take(&mut self.staged_ops),
            captures: self.captures.take(),
            probe_ops: std::mem::take(&mut self.probe_ops),
            probe_depth: std::mem::take(&mut self.probe_depth),
        };
        self.enclosing.push(saved.generation);
        (saved, params)
    }

    /// Drops the function begun by [`Stager::begin_function`] and restores the saved state.
    pub fn discard_function(&mut self, saved: SavedFunction) {
        self.func = saved.func;
        self.region = saved.region;
        self.open_regions = saved.open_regions;
        self.generation = saved.generation;
        self.imported = saved.imported;
        self.sym_sources = saved.sym_sources;
        self.staged_ops = saved.staged_ops;
        self.captures = saved.captures;
        self.probe_ops = saved.probe_ops;
        self.probe_depth = saved.probe_depth;
        self.enclosing.pop();
    }

    /// Ends the function begun by [`Stager::begin_function`]: returns `outs`,
    /// verifies it, adds it to the module and restores the saved state.
    pub fn end_function(
        &mut self,
        saved: SavedFunction,
        outs: R<Vec<value::Tensor>>,
        span: Span,
    ) -> R<agc_ir::FuncId> {
        let f = self.finish_function(saved, outs, span)?;
        Ok(self.module.add_function(f))
    }

    /// Like [`Stager::end_function`], storing the function at a reserved id.
    pub fn end_function_into(
        &mut self,
        saved: SavedFunction,
        outs: R<Vec<value::Tensor>>,
        span: Span,
        id: agc_ir::FuncId,
    ) -> R<()> {
        let f = self.finish_function(saved, outs, span)?;
        self.module.funcs[id.index()] = f;
        Ok(())
    }

    fn finish_function(
        &mut self,
        saved: SavedFunction,
        outs: R<Vec<value::Tensor>>,
        span: Span,
    ) -> R<Function> {
        let finished = outs.and_then(|outs| {
            let values = outs
                .iter()
                .map(|t| self.localize(t, span))
                .collect::<R<Vec<_>>>()?;
            let f = self.func_mut();
            f.result_types = outs
                .iter()
                .map(|t| agc_ir::Type::Tensor(t.ty.clone()))
                .collect();
            let body = f.body;
            f.append_op(body, agc_ir::OpKind::Return, values, vec![], vec![], span);
            Ok(())
        });
        let f = self.func.take();
        self.discard_function(saved);
        finished?;
        let f = f.ok_or_else(|| Diagnostic::internal(span, "lost the function being staged"))?;
        agc_ir::verify::verify_function(&f).map_err(|e| {
            tracing::debug!(ir = %agc_ir::print::print_function(&f), "staged function fails verification");
            Diagnostic::internal(span, e.to_string())
        })?;
        Ok(f)
    }

    /// The IR function being built: the current export, or the module prelude.
    pub fn func_mut(&mut self) -> &mut Function {
        self.func.as_mut().unwrap_or(&mut self.prelude)
    }

    /// The IR value of `t` in the current function, copying module-level
    /// arrays in from the prelude.
    pub fn localize(&mut self, t: &value::Tensor, span: Span) -> R<agc_ir::Value> {
        if t.origin == self.generation {
            if !self.open_regions.contains(&t.region) {
                return Err(Diagnostic::error(
                    span,
                    "this value was computed inside a staged `if` or loop and escapes it through a Python object; assign it to a variable instead",
                ));
            }
            return Ok(t.value);
        }
        if t.origin != 0 {
            if self.enclosing.contains(&t.origin) {
                if let Some(captures) = &self.captures {
                    if let Some((_, p)) = captures
                        .iter()
                        .find(|(o, _)| o.value == t.value && o.origin == t.origin)
                    {
                        return Ok(p.value);
                    }
                    let f = self.func_mut();
                    let name = format!("capture{}", f.params().len());
                    let value = f.add_param(name, agc_ir::Type::Tensor(t.ty.clone()));
                    let body = f.body;
                    let param = value::Tensor {
                        value,
                        ty: t.ty.clone(),
                        origin: self.generation,
                        region: body,
                        weak: t.weak,
                    };
                    self.captures
                        .get_or_insert_with(Vec::new)
                        .push((t.clone(), param));
                    return Ok(value);
                }
                return Err(Diagnostic::unsupported(
                    span,
                    "this staged function cannot use tensors of the function around it; pass them as arguments",
                ));
            }
            return Err(Diagnostic::error(
                span,
                "a tensor staged in one exported function cannot be used in another",
            ));
        }
        Ok(self.import_from_prelude(t.value))
    }

    fn import_from_prelude(&mut self, v: agc_ir::Value) -> agc_ir::Value {
        if let Some(&x) = self.imported.get(&v) {
            return x;
        }
        let (op, index) = match self.prelude.value(v).def {
            agc_ir::ValueDef::Result { op, index } => (op, index),
            agc_ir::ValueDef::Param { .. } => unreachable!("the prelude has no parameters"),
        };
        let data = self.prelude.op(op).clone();
        let operands = data
            .operands
            .iter()
            .map(|&o| self.import_from_prelude(o))
            .collect();
        let types = data
            .results
            .iter()
            .map(|&r| self.prelude.ty(r).clone())
            .collect();
        let f = self.func_mut();
        let body = f.body;
        let (_, results) = f.append_op(body, data.kind, operands, types, vec![], data.span);
        for (&old, &new) in data.results.iter().zip(&results) {
            self.imported.insert(old, new);
        }
        results[index]
    }
}
