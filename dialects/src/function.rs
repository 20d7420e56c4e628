//! Functions and modules: arenas of values, ops and regions, with spans.
//!
//! Invariants (checked by [`crate::verify`]):
//! - every operand is defined before its use, in the same region or an
//!   enclosing one (ops are listed in execution order);
//! - each region ends with exactly one terminator, and only there;
//! - result types agree with [`crate::infer`].

use crate::entities::{FuncId, OpId, RegionId, Value};
use crate::ops::OpKind;
use crate::span::Span;
use crate::types::Type;

/// Where a value comes from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ValueDef {
    /// Parameter `index` of `region` (the body region's params are the function's).
    Param {
        /// The region.
        region: RegionId,
        /// Position among its params.
        index: usize,
    },
    /// Result `index` of `op`.
    Result {
        /// The op.
        op: OpId,
        /// Position among its results.
        index: usize,
    },
}

/// An SSA value: its type and definition.
#[derive(Clone, PartialEq, Debug)]
pub struct ValueData {
    /// The value's type.
    pub ty: Type,
    /// Its definition.
    pub def: ValueDef,
}

/// An operation.
#[derive(Clone, PartialEq, Debug)]
pub struct OpData {
    /// What it does.
    pub kind: OpKind,
    /// Inputs, in order.
    pub operands: Vec<Value>,
    /// Outputs, in order.
    pub results: Vec<Value>,
    /// Nested regions (control flow), in order.
    pub regions: Vec<RegionId>,
    /// The user's source location that produced it.
    pub span: Span,
}

/// A region: parameters and a list of ops in execution order.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct RegionData {
    /// Values bound on entry.
    pub params: Vec<Value>,
    /// Ops, the last one a terminator.
    pub ops: Vec<OpId>,
}

/// A function: a body region whose params are the function's parameters.
#[derive(Clone, PartialEq, Debug)]
pub struct Function {
    /// Symbol name (the exported C name for entry points).
    pub name: String,
    /// Source names of the parameters, for diagnostics and headers.
    pub param_names: Vec<String>,
    /// Result types.
    pub result_types: Vec<Type>,
    /// The body.
    pub body: RegionId,
    /// Where the function was defined.
    pub span: Span,
    values: Vec<ValueData>,
    ops: Vec<OpData>,
    regions: Vec<RegionData>,
}

impl Function {
    /// A function with the given parameter types and an empty body.
    pub fn new(name: impl Into<String>, params: &[(String, Type)], span: Span) -> Self {
        let mut f = Function {
            name: name.into(),
            param_names: params.iter().map(|(n, _)| n.clone()).collect(),
            result_types: Vec::new(),
            body: RegionId(0),
            span,
            values: Vec::new(),
            ops: Vec::new(),
            regions: Vec::new(),
        };
        let body = f.new_region(&params.iter().map(|(_, t)| t.clone()).collect::<Vec<_>>());
        f.body = body;
        f
    }

    /// Creates a detached region with parameters of the given types.
    pub fn new_region(&mut self, param_types: &[Type]) -> RegionId {
        let region = RegionId(self.regions.len() as u32);
        self.regions.push(RegionData::default());
        let params = param_types
            .iter()
            .enumerate()
            .map(|(index, ty)| self.new_value(ty.clone(), ValueDef::Param { region, index }))
            .collect();
        self.regions[region.index()].params = params;
        region
    }

    fn new_value(&mut self, ty: Type, def: ValueDef) -> Value {
        let v = Value(self.values.len() as u32);
        self.values.push(ValueData { ty, def });
        v
    }

    /// Adds a parameter at the end of the function's parameter list.
    pub fn add_param(&mut self, name: impl Into<String>, ty: Type) -> Value {
        let index = self.regions[self.body.index()].params.len();
        let v = self.new_value(
            ty,
            ValueDef::Param {
                region: self.body,
                index,
            },
        );
        self.regions[self.body.index()].params.push(v);
        self.param_names.push(name.into());
        v
    }

    /// Appends an op at the end of `region` and returns its results.
    pub fn append_op(
        &mut self,
        region: RegionId,
        kind: OpKind,
        operands: Vec<Value>,
        result_types: Vec<Type>,
        regions: Vec<RegionId>,
        span: Span,
    ) -> (OpId, Vec<Value>) {
        let op = OpId(self.ops.len() as u32);
        let results: Vec<Value> = result_types
            .into_iter()
            .enumerate()
            .map(|(index, ty)| self.new_value(ty, ValueDef::Result { op, index }))
            .collect();
        self.ops.push(OpData {
            kind,
            operands,
            results: results.clone(),
            regions,
            span,
        });
        self.regions[region.index()].ops.push(op);
        (op, results)
    }

    /// The function's parameters.
    pub fn params(&self) -> &[Value] {
        &self.regions[self.body.index()].params
    }

    /// A value's data.
    pub fn value(&self, v: Value) -> &ValueData {
        &self.values[v.index()]
    }

    /// A value's type.
    pub fn ty(&self, v: Value) -> &Type {
        &self.values[v.index()].ty
    }

    /// An op's data.
    pub fn op(&self, op: OpId) -> &OpData {
        &self.ops[op.index()]
    }

    /// Adds operands at the end of an op's (a call of a function whose
    /// parameters grew after the call was staged: a recursive function's captures).
    pub fn append_operands(&mut self, op: OpId, extra: &[Value]) {
        self.ops[op.index()].operands.extend_from_slice(extra);
    }

    /// A region's data.
    pub fn region(&self, r: RegionId) -> &RegionData {
        &self.regions[r.index()]
    }

    /// Number of values (for side tables indexed by [`Value`]).
    pub fn num_values(&self) -> usize {
        self.values.len()
    }

    /// Number of ops.
    pub fn num_ops(&self) -> usize {
        self.ops.len()
    }

    /// Number of regions.
    pub fn num_regions(&self) -> usize {
        self.regions.len()
    }

    /// The op that defines `v`, if it is an op result.
    pub fn def_op(&self, v: Value) -> Option<&OpData> {
        match self.value(v).def {
            ValueDef::Result { op, .. } => Some(self.op(op)),
            ValueDef::Param { .. } => None,
        }
    }

    /// Replaces the op list of a region (used by passes that rebuild a body).
    pub fn set_region_ops(&mut self, r: RegionId, ops: Vec<OpId>) {
        self.regions[r.index()].ops = ops;
    }
}

/// What the export of a function looks like from C: the name of each
/// parameter as written in Python, for headers and error messages.
#[derive(Clone, PartialEq, Debug)]
pub struct Export {
    /// The function implementing it.
    pub func: FuncId,
    /// The exported name: the C symbol and the `agc.load` method name.
    pub c_name: String,
    /// Python docstring or empty.
    pub doc: String,
}

/// A compilation unit: functions plus the exported entry points.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Module {
    /// Module name (the library's NAME).
    pub name: String,
    /// All functions.
    pub funcs: Vec<Function>,
    /// Entry points, in source order.
    pub exports: Vec<Export>,
    /// Byte offset of the start of each line of the model's source, so that
    /// spans can be turned into line numbers (e.g. in run-time error messages).
    pub line_starts: Vec<u32>,
}

impl Module {
    /// An empty module.
    pub fn new(name: impl Into<String>) -> Self {
        Module {
            name: name.into(),
            funcs: Vec::new(),
            exports: Vec::new(),
            line_starts: Vec::new(),
        }
    }

    /// The 1-based source line of a span (0 when unknown).
    pub fn line_of(&self, span: crate::Span) -> u32 {
        if span.is_unknown() || self.line_starts.is_empty() {
            return 0;
        }
        self.line_starts.partition_point(|&s| s <= span.start) as u32
    }

    /// Adds a function.
    pub fn add_function(&mut self, f: Function) -> FuncId {
        self.funcs.push(f);
        FuncId(self.funcs.len() as u32 - 1)
    }

    /// A function by handle.
    pub fn func(&self, id: FuncId) -> &Function {
        &self.funcs[id.index()]
    }
}
