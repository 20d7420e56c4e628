//! The state of one differentiation: [`ModCx`] for the module (generated
//! functions, caches, fresh names), [`FnCx`] for the function being built,
//! and [`Scope`] for the forward and adjoint values visible in the region
//! being built.
//!
//! Source functions (read) are always the module's original functions;
//! generated functions (written) are built as standalone [`Function`]s and
//! appended when the differentiation succeeds, so a failure leaves the
//! module untouched. A generated function's [`FuncId`] is reserved before its
//! body is built, so recursive VJPs and loop functions can call themselves.

use super::activity::{Activity, Spec};
use super::sparse::{Adj, Contribution};
use super::AdError;
use crate::builder::Builder;
use agc_ir::{
    DType, Dim, FuncId, Function, Module, OpId, OpKind, RegionId, Span, TensorType, Value,
};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// Module-level state: the source module and the generated functions.
pub(crate) struct ModCx<'m> {
    /// The module being differentiated (read only).
    pub m: &'m Module,
    new: Vec<Function>,
    /// Cached VJP functions per spec.
    pub vjps: HashMap<Spec, FuncId>,
    /// Cached CPS forms per spec.
    pub cps: HashMap<Spec, FuncId>,
    /// Generate direct-style code, without continuations (see [`super::direct`]).
    pub direct: bool,
    /// Cached loop functions per (spec of the source function, `while` op, form).
    pub loops: HashMap<(Spec, OpId, super::adjoint::loops::LoopForm), FuncId>,
    /// Which values carry adjoints, per spec.
    pub activity: Activity,
    recursive: HashMap<FuncId, bool>,
    names: HashSet<String>,
    syms: Option<HashSet<String>>,
    next_sym: usize,
}

impl<'m> ModCx<'m> {
    /// A context over `m`.
    pub fn new(m: &'m Module) -> Self {
        ModCx {
            m,
            new: Vec::new(),
            vjps: HashMap::new(),
            cps: HashMap::new(),
            direct: false,
            loops: HashMap::new(),
            activity: Activity::new(),
            recursive: HashMap::new(),
            names: m.funcs.iter().map(|f| f.name.clone()).collect(),
            syms: None,
            next_sym: 0,
        }
    }

    /// The generated functions, in [`FuncId`] order after the module's own.
    pub fn finish(self) -> Vec<Function> {
        self.new
    }

    /// A source function.
    pub fn src(&self, id: FuncId) -> Result<&'m Function, AdError> {
        self.m
            .funcs
            .get(id.index())
            .ok_or_else(|| AdError::new(format!("no function {id} in the module"), Span::UNKNOWN))
    }

    /// Reserves the id of a function to be defined later with [`ModCx::define`].
    pub fn reserve(&mut self) -> FuncId {
        self.new.push(Function::new("", &[], Span::UNKNOWN));
        FuncId((self.m.funcs.len() + self.new.len() - 1) as u32)
    }

    /// Defines a reserved function.
    pub fn define(&mut self, id: FuncId, f: Function) {
        let slot = id.index() - self.m.funcs.len();
        self.new[slot] = f;
    }

    /// True when source function `f` may call itself (through any chain of
    /// calls).
    pub fn is_recursive(&mut self, f: FuncId) -> bool {
        if let Some(&r) = self.recursive.get(&f) {
            return r;
        }
        let mut seen = HashSet::new();
        let mut todo = vec![f];
        let mut found = false;
        while let Some(g) = todo.pop() {
            let func = self.m.func(g);
            for i in 0..func.num_ops() {
                if let OpKind::Call { callee } = func.op(OpId(i as u32)).kind {
                    found |= callee == f;
                    if seen.insert(callee) {
                        todo.push(callee);
                    }
                }
            }
        }
        self.recursive.insert(f, found);
        found
    }

    /// A function name based on `base` that no function of the module uses.
    pub fn unique_name(&mut self, base: &str) -> String {
        let mut name = base.to_string();
        let mut n = 1;
        while self.names.contains(&name) {
            n += 1;
            name = format!("{base}.{n}");
        }
        self.names.insert(name.clone());
        name
    }

    /// A symbolic dim name used nowhere in the module, for sizes the
    /// generated code computes at run time.
    pub fn fresh_sym(&mut self) -> Dim {
        let m = self.m;
        let used = self.syms.get_or_insert_with(|| {
            let mut s = HashSet::new();
            for f in &m.funcs {
                for v in 0..f.num_values() {
                    let Some(t) = f.ty(Value(v as u32)).as_tensor() else {
                        continue;
                    };
                    for d in &t.dims {
                        if let Dim::Sym(n) = d {
                            s.insert(n.clone());
                        }
                    }
                }
            }
            s
        });
        loop {
            self.next_sym += 1;
            let name = format!("_ad{}", self.next_sym);
            if !used.contains(&name) {
                return Dim::Sym(name);
            }
        }
    }

    /// The active values of `spec`'s function under it.
    pub fn active(&mut self, spec: &Spec) -> Rc<Vec<bool>> {
        self.activity.values(self.m, spec)
    }
}

/// The forward values (source value → value in the function being built) and
/// the adjoints accumulated so far, for one region being built.
#[derive(Clone, Default)]
pub(crate) struct Scope {
    /// Forward values.
    pub fwd: HashMap<Value, Value>,
    /// Adjoints (sums of the contributions seen so far).
    pub adj: HashMap<Value, Adj>,
}

/// Function-level state: the source function and the function being built.
pub(crate) struct FnCx<'a, 'm> {
    /// The module context.
    pub mcx: &'a mut ModCx<'m>,
    /// The source function's id.
    pub src_id: FuncId,
    /// The source function.
    pub src: &'m Function,
    /// Which adjoints it computes.
    pub spec: Rc<Spec>,
    /// Which source values carry adjoints.
    pub active: Rc<Vec<bool>>,
    /// The function being built.
    pub dst: &'a mut Function,
}

impl FnCx<'_, '_> {
    /// True when source value `v` carries an adjoint.
    pub fn needs_adj(&self, v: Value) -> bool {
        self.active[v.index()]
    }

    /// Which of `vs` carry adjoints.
    pub fn adj_mask(&self, vs: &[Value]) -> Vec<bool> {
        vs.iter().map(|&v| self.needs_adj(v)).collect()
    }

    /// The spec source call `op` is differentiated under: its active
    /// operands and results.
    pub fn call_spec(&mut self, op: OpId) -> Spec {
        let od = self.src.op(op);
        let OpKind::Call { callee } = od.kind else {
            unreachable!("call_spec of a {}", od.kind.name())
        };
        let (args, results) = (self.adj_mask(&od.operands), self.adj_mask(&od.results));
        let m = self.mcx.m;
        self.mcx.activity.call(m, callee, &args, &results)
    }

    /// The source type of `v`.
    pub fn src_ty(&self, v: Value) -> TensorType {
        self.src.ty(v).tensor().clone()
    }

    /// A builder at the end of `region`.
    pub fn builder(&mut self, region: RegionId, span: Span) -> Builder<'_> {
        Builder::new(self.dst, region, span)
    }

    /// The forward value of source value `v`.
    pub fn fwd(&self, sc: &Scope, v: Value, span: Span) -> Result<Value, AdError> {
        sc.fwd
            .get(&v)
            .copied()
            .ok_or_else(|| internal(format!("forward value of {v} is not available"), span))
    }

    /// Adds `g` (a tensor, or rows of one) to the adjoint of source value
    /// `v` (dropped when `v` carries none).
    pub fn accumulate(
        &mut self,
        region: RegionId,
        span: Span,
        sc: &mut Scope,
        v: Value,
        g: impl Into<Contribution>,
    ) -> Result<(), AdError> {
        if !self.needs_adj(v) {
            return Ok(());
        }
        let g = match g.into() {
            Contribution::Dense(g) => {
                let want = self.src_ty(v);
                let g = self.builder(region, span).retype(g, &want).map_err(|_| {
                    internal(
                        format!(
                            "adjoint of {v} has type {}, expected {want}",
                            self.dst.ty(g)
                        ),
                        span,
                    )
                })?;
                Contribution::Dense(g)
            }
            rows => rows,
        };
        let sum = match sc.adj.remove(&v) {
            Some(prev) => prev
                .add(g, &mut self.builder(region, span))
                .map_err(|e| internal(e.to_string(), span))?,
            None => Adj::of(g),
        };
        sc.adj.insert(v, sum);
        Ok(())
    }

    /// The adjoint of `v` as a tensor (rows scattered into zeros, once),
    /// `None` when nothing reached it.
    pub fn adj(&mut self, region: RegionId, span: Span, sc: &mut Scope, v: Value) -> Option<Value> {
        let t = self.src_ty(v);
        let g = sc.adj.get(&v)?.dense(&mut self.builder(region, span), &t);
        sc.adj.insert(v, Adj::Dense(g));
        Some(g)
    }

    /// The adjoint of `v` as a tensor, or zeros of its type when nothing
    /// reached it.
    pub fn adj_or_zeros(
        &mut self,
        region: RegionId,
        span: Span,
        sc: &mut Scope,
        v: Value,
    ) -> Value {
        match self.adj(region, span, sc, v) {
            Some(g) => g,
            None => {
                let t = self.src_ty(v);
                self.builder(region, span).zeros(&t)
            }
        }
    }
}

/// An internal error: generated code that does not type-check, a missing value.
pub(crate) fn internal(message: String, span: Span) -> AdError {
    AdError::new(
        format!("internal error in automatic differentiation: {message}"),
        span,
    )
}

/// True for the dtypes that carry gradients.
pub(crate) fn is_float(t: &TensorType) -> bool {
    matches!(t.dtype, DType::F32 | DType::F64)
}
