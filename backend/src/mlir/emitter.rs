//! The per-function text emitter: fresh SSA names, the map from IR values to
//! MLIR values, the table of run-time sizes of symbolic dims, and helpers for
//! `tensor.empty`, index arithmetic and `linalg.generic`.
//!
//! Symbolic dims: every symbol (`B`, `(B*28)`, `(B-1)`, `B[::2]`) is bound once to
//! an SSA `index` value: parameters' symbols at function entry, new symbols
//! of an op's result right after the op ([`FnEmitter::bind_new_syms`]) or,
//! for ops that invent sizes (reshape, slice, concat), by the op's emitter
//! before it builds its result. Equal names are equal sizes, so a bound
//! symbol is reused wherever the name appears. The table is a stack of
//! scopes: a region (if/while, later) opens one with
//! [`FnEmitter::push_scope`], sees every enclosing binding, and drops its
//! own with [`FnEmitter::pop_scope`], since SSA values defined inside an MLIR
//! region do not dominate the code after it.

use super::types;
use crate::BackendError;
use agc_ir::{Dim, Function, TensorType, Value};
use std::collections::HashMap;
use std::fmt::Write;

/// One operand of a `linalg.generic`: SSA name, tensor type and the result
/// expressions of its indexing map over the loop dims (`["d0", "0"]`).
pub struct GenericOperand {
    /// The tensor's SSA name.
    pub name: String,
    /// Its MLIR tensor type.
    pub ty: String,
    /// Its element type (the block argument's type).
    pub elem: String,
    /// Map results over `d0..d{loops-1}`; empty for a rank-0 tensor.
    pub map: Vec<String>,
}

/// A `linalg.generic` to emit: loop iterator kinds, inputs and outputs.
pub struct GenericSpec {
    /// `"parallel"` or `"reduction"`, one per loop.
    pub iterators: Vec<&'static str>,
    /// Inputs.
    pub ins: Vec<GenericOperand>,
    /// Outputs (inits); one result per output.
    pub outs: Vec<GenericOperand>,
}

/// Emits the body of one function as MLIR text.
pub struct FnEmitter<'f> {
    /// The function being lowered.
    pub f: &'f Function,
    out: String,
    indent: usize,
    next: u32,
    vals: HashMap<Value, String>,
    /// Each module function as calls see it, by `FuncId` index.
    pub callees: Vec<super::control::Callee>,
    /// Staged loops around the op being emitted.
    pub loop_depth: usize,
    /// The loop depth at which each op result was defined (parameters and
    /// loop-carried values are absent: see [`FnEmitter::loop_invariant`]).
    pub def_depth: HashMap<Value, usize>,
    /// Symbol scopes, innermost last.
    syms: Vec<HashMap<String, String>>,
    /// Byte offsets at which the source lines start (empty: lines unknown).
    pub line_starts: Vec<u32>,
    /// The function's MLIR symbol (to name its module-level globals).
    pub symbol: String,
    /// Module-level definitions the function needs (constant messages).
    pub globals: Vec<String>,
    /// The module's continuation functions (for `cont`, `apply`, `cont_outputs`).
    pub conts: std::rc::Rc<super::continuation::ContTable>,
    /// Uses of each value of `f` ([`Function::use_counts`]).
    uses: Vec<u32>,
    /// How the module's functions read weights.
    pub weights: std::rc::Rc<super::weight::WeightUse>,
    /// The serial of the open block at each indentation (see [`Self::note_once`]).
    blocks: Vec<u64>,
    next_block: u64,
    /// Facts noted, with the indentation and block serial they hold in.
    facts: HashMap<String, (usize, u64)>,
    /// The scalar each rank-0 tensor made by [`super::rank0::wrap`] holds.
    pub(super) rank0_elements: HashMap<String, String>,
    /// Lines for the entry block of the function, before its body
    /// ([`Self::stack_slot`]).
    entry: String,
    /// The results of the `dyn_update`s written as slices
    /// ([`super::index::sliced_updates`]).
    pub sliced_updates: std::collections::HashSet<Value>,
    /// The control ops whose results go through chain breaks
    /// ([`super::chain_break::broken_chains`]).
    pub broken_chains: std::collections::HashSet<agc_ir::OpId>,
}

impl<'f> FnEmitter<'f> {
    /// An emitter for `f` with an empty body.
    pub fn new(f: &'f Function) -> Self {
        FnEmitter {
            f,
            out: String::new(),
            indent: 2,
            next: 0,
            vals: HashMap::new(),
            callees: Vec::new(),
            loop_depth: 0,
            def_depth: HashMap::new(),
            syms: vec![HashMap::new()],
            line_starts: Vec::new(),
            symbol: String::new(),
            globals: Vec::new(),
            conts: Default::default(),
            uses: f.use_counts(),
            blocks: Vec::new(),
            next_block: 0,
            facts: HashMap::new(),
            rank0_elements: HashMap::new(),
            weights: Default::default(),
            entry: String::new(),
            sliced_updates: super::index::sliced_updates(f),
            broken_chains: super::chain_break::broken_chains(f),
        }
    }

    /// Whether `v` is defined outside the innermost staged loop around the
    /// op being emitted (so loop-invariant-code-motion can hoist what is
    /// computed from it alone). A function parameter is; a region
    /// parameter (loop state, a branch's) counts as defined here.
    pub fn loop_invariant(&self, v: Value) -> bool {
        if self.loop_depth == 0 {
            return false;
        }
        let depth = match self.f.value(v).def {
            agc_ir::ValueDef::Param { region, .. } if region == self.f.body => 0,
            agc_ir::ValueDef::Param { .. } => self.loop_depth,
            agc_ir::ValueDef::Result { .. } => {
                self.def_depth.get(&v).copied().unwrap_or(self.loop_depth)
            }
        };
        depth < self.loop_depth
    }

    /// How many operands in `f` name `v`.
    pub fn use_count(&self, v: Value) -> u32 {
        self.uses[v.index()]
    }

    /// The 1-based source line of a span, 0 when unknown.
    pub fn line_of(&self, span: agc_ir::Span) -> u32 {
        if span.is_unknown() || self.line_starts.is_empty() {
            return 0;
        }
        self.line_starts.partition_point(|&s| s <= span.start) as u32
    }

    /// The text emitted so far, after the entry block's lines.
    pub fn finish(self) -> String {
        self.entry + &self.out
    }

    /// A `memref.alloca` of type `ty` (a static shape) in the function's
    /// entry block: one slot in the frame, however often the code that uses
    /// it runs (an alloca in a loop's body would grow the stack at every
    /// iteration).
    pub fn stack_slot(&mut self, ty: &str) -> String {
        let slot = self.fresh("slot");
        let _ = writeln!(self.entry, "    {slot} = memref.alloca() : {ty}");
        slot
    }

    /// A fresh SSA name, `%<hint><n>`.
    pub fn fresh(&mut self, hint: &str) -> String {
        self.next += 1;
        format!("%{hint}{}", self.next)
    }

    /// Emits one line at the current indentation.
    pub fn line(&mut self, s: &str) {
        self.open_blocks();
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    /// Brings [`Self::blocks`] to the current indentation: a line here
    /// closes every deeper block, and opens a block at each level not open.
    fn open_blocks(&mut self) {
        self.blocks.truncate(self.indent + 1);
        while self.blocks.len() <= self.indent {
            self.next_block += 1;
            self.blocks.push(self.next_block);
        }
    }

    /// True the first time `fact` is noted in the blocks enclosing the
    /// current line (then it holds for every line after it in them, which
    /// it dominates), false when it was noted already.
    pub fn note_once(&mut self, fact: String) -> bool {
        self.open_blocks();
        if let Some(&(depth, block)) = self.facts.get(&fact) {
            if depth <= self.indent && self.blocks[depth] == block {
                return false;
            }
        }
        self.facts
            .insert(fact, (self.indent, self.blocks[self.indent]));
        true
    }

    /// Indents the lines that follow one level deeper (entering a block).
    pub fn enter(&mut self) {
        self.indent += 1;
    }

    /// Undoes one [`FnEmitter::enter`].
    pub fn leave(&mut self) {
        self.indent -= 1;
    }

    /// Emits `%new = <rhs>` and returns `%new`.
    pub fn assign(&mut self, rhs: &str) -> String {
        let name = self.fresh("v");
        self.line(&format!("{name} = {rhs}"));
        name
    }

    /// `arith.constant <lit> : <ty>`.
    pub fn constant(&mut self, lit: &str, ty: &str) -> String {
        if ty == "i1" {
            // `true`/`false` are already typed; `: i1` would not parse.
            return self.assign(&format!("arith.constant {lit}"));
        }
        self.assign(&format!("arith.constant {lit} : {ty}"))
    }

    /// An `index` constant.
    pub fn index_const(&mut self, n: i64) -> String {
        self.constant(&n.to_string(), "index")
    }

    /// A binary `arith` op on two values of type `ty`: `arith.<op> a, b : ty`.
    pub fn arith(&mut self, op: &str, a: &str, b: &str, ty: &str) -> String {
        self.assign(&format!("arith.{op} {a}, {b} : {ty}"))
    }

    /// `arith.cmpi <pred>, a, b : ty`.
    pub fn cmpi(&mut self, pred: &str, a: &str, b: &str, ty: &str) -> String {
        self.assign(&format!("arith.cmpi {pred}, {a}, {b} : {ty}"))
    }

    /// `arith.select c, a, b : ty`.
    pub fn select(&mut self, c: &str, a: &str, b: &str, ty: &str) -> String {
        self.assign(&format!("arith.select {c}, {a}, {b} : {ty}"))
    }

    /// The MLIR value of an IR value.
    pub fn val(&self, v: Value) -> Result<String, BackendError> {
        self.vals
            .get(&v)
            .cloned()
            .ok_or_else(|| BackendError::Mlir(format!("value {v} used before it was lowered")))
    }

    /// Records the MLIR value of an IR value.
    pub fn set_val(&mut self, v: Value, name: String) {
        self.vals.insert(v, name);
    }

    /// The tensor type of an IR value.
    pub fn ty(&self, v: Value) -> &'f TensorType {
        self.f.ty(v).tensor()
    }

    /// The SSA `index` bound to a symbol, if any.
    pub fn sym(&self, name: &str) -> Option<String> {
        self.syms
            .iter()
            .rev()
            .find_map(|scope| scope.get(name))
            .cloned()
    }

    /// Binds a symbol to an SSA `index` (first binding wins).
    pub fn bind_sym(&mut self, name: &str, ssa: String) {
        if self.sym(name).is_none() {
            self.syms.last_mut().unwrap().insert(name.to_string(), ssa);
        }
    }

    /// Opens a symbol scope (entering a region).
    pub fn push_scope(&mut self) {
        self.syms.push(HashMap::new());
    }

    /// Closes the innermost symbol scope (leaving a region).
    pub fn pop_scope(&mut self) {
        assert!(self.syms.len() > 1, "the function scope cannot be popped");
        self.syms.pop();
    }

    /// A fresh id for the `agc.call` attribute of a read site's
    /// `to_buffer`s: CSE would merge equal `to_buffer`s of two sites, and
    /// bufferization takes the read to happen at the first of them.
    pub fn read_id(&mut self) -> String {
        self.fresh("").trim_start_matches('%').to_string()
    }

    /// `bufferization.to_buffer t read_only` from tensor type `from` to
    /// memref type `to`, tagged with read site `id` (see [`Self::read_id`]).
    pub fn read_buffer(&mut self, t: &str, id: &str, from: &str, to: &str) -> String {
        self.assign(&format!(
            "bufferization.to_buffer {t} read_only {{agc.call = {id} : i64}} : {from} to {to}"
        ))
    }

    /// [`Self::read_buffer`] of tensor `t` (of type `ty`) as `to`, the memref
    /// type in which a callee takes it ([`types::param_memref`]). A static
    /// row-major layout at any offset is read at the fully dynamic layout and
    /// cast to it: asked for directly, one-shot bufferization (MLIR 22) may
    /// copy an `scf.if` result that merges such a parameter with a new buffer
    /// into an allocation of that layout, which is invalid (fuzz 1601-117).
    /// The cast holds: a static-shape tensor reaching a call is a buffer of
    /// its own or a contiguous view (`gather::is_contiguous`).
    pub fn read_param(&mut self, t: &str, id: &str, ty: &TensorType, to: &str) -> String {
        let from = types::tensor(ty);
        if ty.rank() == 0 || to == types::memref(ty) {
            return self.read_buffer(t, id, &from, to);
        }
        let dynamic = types::strided_memref(ty);
        let read = self.read_buffer(t, id, &from, &dynamic);
        self.cast_memref(&read, &dynamic, to)
    }

    /// Rank-0 tensor `t` (of type `ty`) as an argument of a call, in the
    /// memref type `to` the callee takes: its element stored into a
    /// [`Self::stack_slot`] of this function. A call returns before the
    /// slot is written again, and the callee (and the continuations it
    /// makes, applied while it runs) only reads it; a heap buffer per scalar
    /// argument was a fifth of the allocations of a recursion's gradient.
    pub fn scalar_arg(&mut self, t: &str, ty: &TensorType, to: &str) -> String {
        let element = super::rank0::element(self, t, ty);
        let mt = types::memref(ty);
        let slot = self.stack_slot(&mt);
        self.line(&format!("memref.store {element}, {slot}[] : {mt}"));
        self.cast_memref(&slot, &mt, to)
    }

    /// Memref `m` of type `from` as type `to`, cast only when they differ.
    pub fn cast_memref(&mut self, m: &str, from: &str, to: &str) -> String {
        if from == to {
            m.to_string()
        } else {
            self.assign(&format!("memref.cast {m} : {from} to {to}"))
        }
    }

    /// Emits `body` inside an `scf.execute_region ... no_inline` yielding
    /// its values, of MLIR types `tys`: ops there stay where they are.
    /// Returns the region's results.
    ///
    /// For reads of tensors through `bufferization.to_buffer` by a call:
    /// bufferization takes the read to happen at the `to_buffer`, and
    /// loop-invariant-code-motion would hoist a `to_buffer` of a
    /// loop-invariant tensor out of the loop, letting the loop overwrite
    /// that buffer in place before the call reads it (fuzzer seed 4008's
    /// program 211: a sum read the loop's other tensor).
    pub fn pinned(
        &mut self,
        tys: &[String],
        body: impl FnOnce(&mut Self) -> Result<Vec<String>, BackendError>,
    ) -> Result<Vec<String>, BackendError> {
        let r = self.fresh("pinned");
        let (lhs, names) = super::control::results(&r, tys.len());
        self.line(&format!(
            "{lhs}scf.execute_region -> ({}) no_inline {{",
            tys.join(", ")
        ));
        self.enter();
        self.push_scope();
        let vs = body(self);
        self.pop_scope();
        let vs = vs?;
        if tys.is_empty() {
            self.line("scf.yield");
        } else {
            self.line(&format!("scf.yield {} : {}", vs.join(", "), tys.join(", ")));
        }
        self.leave();
        self.line("}");
        Ok(names)
    }

    /// Binds every symbolic dim of `ty` not bound yet with `tensor.dim` of
    /// the tensor `t` (of type `ty`).
    pub fn bind_new_syms(&mut self, t: &str, ty: &TensorType) {
        for (axis, d) in ty.dims.iter().enumerate() {
            if let Dim::Sym(s) = d {
                if self.sym(s).is_none() {
                    let c = self.index_const(axis as i64);
                    let size = self.assign(&format!("tensor.dim {t}, {c} : {}", types::tensor(ty)));
                    self.bind_sym(s, size);
                }
            }
        }
    }

    /// The run-time size of a dim as an SSA `index`: a bound symbol, or one
    /// computed from bound symbols by its name ([`FnEmitter::eval_sym`]).
    pub fn dim_size(&mut self, d: &Dim) -> Result<String, BackendError> {
        match d {
            Dim::Static(n) => Ok(self.index_const(*n)),
            Dim::Sym(s) => self.eval_sym(s).ok_or_else(|| {
                BackendError::Unsupported(format!("size of symbolic dim `{s}` is unknown here"))
            }),
        }
    }

    /// The size named by a symbol, computed from the bound symbols it is
    /// made of, following the names `agc_ir::infer` gives derived sizes:
    /// `(A+B+3)` (concat), `(A-2)` (trim, at least 0), `(A*B*4)` (reshape),
    /// `A[1::2]` (slice; `A` itself may be derived), integers. The result
    /// is bound to the name; `None` if some part is unknown.
    pub fn eval_sym(&mut self, name: &str) -> Option<String> {
        if let Some(v) = self.sym(name) {
            return Some(v);
        }
        let v = self
            .eval_derived(name)
            .or_else(|| super::gather::dyn_slice_size(self, name))?;
        self.bind_sym(name, v.clone());
        Some(v)
    }

    fn eval_derived(&mut self, name: &str) -> Option<String> {
        if let Ok(n) = name.parse::<i64>() {
            return (n >= 0).then(|| self.index_const(n));
        }
        if let Some(open) = name.strip_suffix(']').and_then(|_| matching_open(name)) {
            let (base, spec) = (&name[..open], &name[open + 1..name.len() - 1]);
            let parts: Vec<&str> = spec.split(':').collect();
            let [start, stop, step] = parts[..] else {
                return None;
            };
            let bound = |p: &str| -> Option<Option<i64>> {
                if p.is_empty() {
                    Some(None)
                } else {
                    p.parse().ok().map(Some)
                }
            };
            let s = agc_ir::SliceDim {
                start: bound(start)?,
                stop: bound(stop)?,
                step: if step.is_empty() {
                    1
                } else {
                    step.parse().ok()?
                },
            };
            if s.step == 0 {
                return None;
            }
            let n = self.eval_sym(base)?;
            return Some(super::gather::runtime_bounds(self, &n, &s).1);
        }
        let inner = name.strip_prefix('(')?.strip_suffix(')')?;
        if matching_close(name) != Some(name.len() - 1) {
            return None;
        }
        let (terms, ops) = split_top(inner, &['+', '-']);
        if terms.len() > 1 {
            let mut acc = self.eval_sym(terms[0])?;
            for (t, op) in terms[1..].iter().zip(ops) {
                let v = self.eval_sym(t)?;
                acc = self.arith(if op == '+' { "addi" } else { "subi" }, &acc, &v, "index");
            }
            let zero = self.index_const(0);
            return Some(self.arith("maxsi", &acc, &zero, "index"));
        }
        let (factors, _) = split_top(inner, &['*']);
        if factors.len() > 1 {
            let mut acc = self.eval_sym(factors[0])?;
            for f in &factors[1..] {
                let v = self.eval_sym(f)?;
                acc = self.arith("muli", &acc, &v, "index");
            }
            return Some(acc);
        }
        self.eval_sym(inner)
    }

    /// Run-time sizes of all dims of `ty`.
    pub fn dim_sizes(&mut self, ty: &TensorType) -> Result<Vec<String>, BackendError> {
        ty.dims.iter().map(|d| self.dim_size(d)).collect()
    }

    /// `tensor.empty` of type `ty`, its dynamic sizes from the symbol table.
    pub fn empty(&mut self, ty: &TensorType) -> Result<String, BackendError> {
        let sizes = self.dim_sizes(ty)?;
        Ok(self.empty_sized(ty, &sizes))
    }

    /// `tensor.empty` of type `ty` with the run-time sizes `sizes` (one
    /// `index` per dim; those of static dims are ignored), after the check
    /// that its byte size can be allocated ([`super::alloc_size`]).
    ///
    /// Each carries its own `agc.buffer` number, so that CSE does not merge
    /// the empties of a function into one value: one-shot bufferization
    /// would then see every op writing into the same alias set, and its
    /// conflict analysis grows with the square of the function's size (a
    /// 2,000-line model took over 10 minutes at -O0).
    pub fn empty_sized(&mut self, ty: &TensorType, sizes: &[String]) -> String {
        super::alloc_size::check(self, ty, sizes);
        let dynamic: Vec<&str> = ty
            .dims
            .iter()
            .zip(sizes)
            .filter(|(d, _)| matches!(d, Dim::Sym(_)))
            .map(|(_, s)| s.as_str())
            .collect();
        self.next += 1;
        let id = self.next;
        self.assign(&format!(
            "tensor.empty({}) {{agc.buffer = {id} : i64}} : {}",
            dynamic.join(", "),
            types::tensor(ty)
        ))
    }

    /// Makes the tensor `t` of IR type `ty`, whose sizes come from elsewhere
    /// (a callee, or an op that computed them), agree with the symbols
    /// bound here: every symbolic dim bound already is compared at run time
    /// with the tensor's size. Equal names are equal sizes in the IR, so
    /// they agree unless the IR is wrong; if not, the runtime's
    /// `agc_rt_raise_size` reports an internal error and zeros of the
    /// bound sizes stand in, so that the code after it reads no memory
    /// outside a tensor. Returns the tensor to use.
    pub fn conform(&mut self, t: &str, ty: &TensorType) -> Result<String, BackendError> {
        let mut checks = Vec::new();
        for (axis, d) in ty.dims.iter().enumerate() {
            if let Dim::Sym(s) = d {
                if let Some(bound) = self.sym(s) {
                    checks.push((axis, bound));
                }
            }
        }
        if checks.is_empty() {
            return Ok(t.to_string());
        }
        let tt = types::tensor(ty);
        let mut ok = self.constant("true", "i1");
        let mut reports = Vec::new();
        for (axis, bound) in checks {
            let c = self.index_const(axis as i64);
            let got = self.assign(&format!("tensor.dim {t}, {c} : {tt}"));
            let eq = self.cmpi("eq", &got, &bound, "index");
            ok = self.arith("andi", &ok, &eq, "i1");
            reports.push((axis, got, bound));
        }
        let t = t.to_string();
        let zero = if ty.dtype.is_float() {
            types::scalar_lit(ty.dtype, 0.0)
        } else {
            types::int_lit(ty.dtype, 0)
        };
        self.scf_if(
            &ok,
            &tt,
            |_| Ok(t),
            |e| {
                let (axis, got, bound) = &reports[0];
                let g = e.assign(&format!("arith.index_cast {got} : index to i64"));
                let b = e.assign(&format!("arith.index_cast {bound} : index to i64"));
                let a = e.constant(&axis.to_string(), "i64");
                e.line(&format!(
                    "func.call @agc_rt_raise_size({g}, {b}, {a}) : (i64, i64, i64) -> ()"
                ));
                e.filled(ty, &zero)
            },
        )
    }

    /// An empty tensor of `ty` filled with the scalar literal `lit`.
    pub fn filled(&mut self, ty: &TensorType, lit: &str) -> Result<String, BackendError> {
        let sizes = self.dim_sizes(ty)?;
        self.filled_sized(ty, sizes, lit)
    }

    /// A tensor of `ty` with the run-time sizes `sizes` (one `index` per
    /// dim; those of static dims are ignored) filled with `lit`.
    pub fn filled_sized(
        &mut self,
        ty: &TensorType,
        sizes: Vec<String>,
        lit: &str,
    ) -> Result<String, BackendError> {
        let e = self.empty_sized(ty, &sizes);
        let el = types::elem(ty.dtype);
        let c = self.constant(lit, el);
        let t = types::tensor(ty);
        Ok(self.assign(&format!(
            "linalg.fill ins({c} : {el}) outs({e} : {t}) -> {t}"
        )))
    }

    /// A nest of `scf.for` loops over `sizes` threading the tensor `init` (of
    /// MLIR type `ty`) through: `step(e, ivs, acc)` gives the tensor after one
    /// innermost iteration; returns the tensor after the whole nest.
    pub fn threaded_loop_nest(
        &mut self,
        sizes: &[String],
        init: &str,
        ty: &str,
        step: impl FnOnce(&mut Self, &[String], &str) -> Result<String, BackendError>,
    ) -> Result<String, BackendError> {
        let (zero, one) = (self.index_const(0), self.index_const(1));
        let (mut ivs, mut results, mut acc) = (Vec::new(), Vec::new(), init.to_string());
        for size in sizes {
            let (iv, t, r) = (self.fresh("i"), self.fresh("t"), self.fresh("nest"));
            self.line(&format!("{r} = scf.for {iv} = {zero} to {size} step {one} iter_args({t} = {acc}) -> ({ty}) {{"));
            self.enter();
            ivs.push(iv);
            results.push(r);
            acc = t;
        }
        let mut inner = step(self, &ivs, &acc)?;
        for r in results.iter().rev() {
            self.line(&format!("scf.yield {inner} : {ty}"));
            self.leave();
            self.line("}");
            inner = r.clone();
        }
        Ok(inner)
    }

    /// A tensor of type `ty` whose element at each index is `element(e,
    /// coords)` (`coords`: the `index` values of the result's axes), as a
    /// `linalg.generic` with no inputs (MLIR's `tensor.generate`, bufferized
    /// like every other kernel).
    pub fn generate(
        &mut self,
        ty: &TensorType,
        element: impl FnOnce(&mut Self, &[String]) -> Result<String, BackendError>,
    ) -> Result<String, BackendError> {
        let rank = ty.rank();
        let init = self.empty(ty)?;
        let spec = GenericSpec {
            iterators: vec!["parallel"; rank],
            ins: vec![],
            outs: vec![operand(&init, ty, identity_map(rank))],
        };
        let r = self.generic(&spec, |e, _| {
            let coords: Vec<String> = (0..rank)
                .map(|i| e.assign(&format!("linalg.index {i} : index")))
                .collect();
            Ok(vec![element(e, &coords)?])
        })?;
        r.into_iter()
            .next()
            .ok_or_else(|| BackendError::Unsupported("linalg.generic gave no result".into()))
    }

    /// Emits a `linalg.generic`; `body` gets the block arguments (inputs
    /// then outputs) and returns the yielded values. Returns the results.
    pub fn generic(
        &mut self,
        spec: &GenericSpec,
        body: impl FnOnce(&mut Self, &[String]) -> Result<Vec<String>, BackendError>,
    ) -> Result<Vec<String>, BackendError> {
        let loops = spec.iterators.len();
        let dims: Vec<String> = (0..loops).map(|i| format!("d{i}")).collect();
        let map = |o: &GenericOperand| {
            format!(
                "affine_map<({}) -> ({})>",
                dims.join(", "),
                o.map.join(", ")
            )
        };
        let maps: Vec<String> = spec.ins.iter().chain(&spec.outs).map(map).collect();
        let iters: Vec<String> = spec.iterators.iter().map(|i| format!("\"{i}\"")).collect();
        let result = self.fresh("g");
        let lhs = if spec.outs.len() == 1 {
            result.clone()
        } else {
            format!("{result}:{}", spec.outs.len())
        };
        let operands = |os: &[GenericOperand]| {
            let names: Vec<&str> = os.iter().map(|o| o.name.as_str()).collect();
            let tys: Vec<&str> = os.iter().map(|o| o.ty.as_str()).collect();
            format!("{} : {}", names.join(", "), tys.join(", "))
        };
        let mut head = format!(
            "{lhs} = linalg.generic {{indexing_maps = [{}], iterator_types = [{}]}}",
            maps.join(", "),
            iters.join(", ")
        );
        if !spec.ins.is_empty() {
            write!(head, " ins({})", operands(&spec.ins)).unwrap();
        }
        write!(head, " outs({}) {{", operands(&spec.outs)).unwrap();
        self.line(&head);
        let args: Vec<String> = spec
            .ins
            .iter()
            .chain(&spec.outs)
            .map(|_| self.fresh("a"))
            .collect();
        let decl: Vec<String> = spec
            .ins
            .iter()
            .chain(&spec.outs)
            .zip(&args)
            .map(|(o, a)| format!("{a}: {}", o.elem))
            .collect();
        self.line(&format!("^bb0({}):", decl.join(", ")));
        self.indent += 1;
        let yields = body(self, &args)?;
        let ytys: Vec<&str> = spec.outs.iter().map(|o| o.elem.as_str()).collect();
        self.line(&format!(
            "linalg.yield {} : {}",
            yields.join(", "),
            ytys.join(", ")
        ));
        self.indent -= 1;
        let rtys: Vec<&str> = spec.outs.iter().map(|o| o.ty.as_str()).collect();
        if rtys.len() == 1 {
            self.line(&format!("}} -> {}", rtys[0]));
        } else {
            self.line(&format!("}} -> ({})", rtys.join(", ")));
        }
        Ok(if spec.outs.len() == 1 {
            vec![result]
        } else {
            (0..spec.outs.len())
                .map(|i| format!("{result}#{i}"))
                .collect()
        })
    }

    /// `func.return` of `values` of MLIR types `tys`.
    pub fn func_return(&mut self, values: &[String], tys: &[String]) {
        if values.is_empty() {
            self.line("func.return");
        } else {
            self.line(&format!(
                "func.return {} : {}",
                values.join(", "),
                tys.join(", ")
            ));
        }
    }

    /// `scf.if cond -> (tys..)` whose branches `then` and `els` emit their
    /// ops and return the values they yield; returns the results.
    pub fn scf_if_results(
        &mut self,
        cond: &str,
        tys: &[String],
        then: impl FnOnce(&mut Self) -> Result<Vec<String>, BackendError>,
        els: impl FnOnce(&mut Self) -> Result<Vec<String>, BackendError>,
    ) -> Result<Vec<String>, BackendError> {
        let r = self.fresh("if");
        let (lhs, names) = super::control::results(&r, tys.len());
        let arrow = if tys.is_empty() {
            String::new()
        } else {
            format!(" -> ({})", tys.join(", "))
        };
        self.line(&format!("{lhs}scf.if {cond}{arrow} {{"));
        let yield_line = |vals: &[String]| {
            if vals.is_empty() {
                "scf.yield".to_string()
            } else {
                format!("scf.yield {} : {}", vals.join(", "), tys.join(", "))
            }
        };
        self.indent += 1;
        let a = then(self)?;
        self.line(&yield_line(&a));
        self.indent -= 1;
        self.line("} else {");
        self.indent += 1;
        let b = els(self)?;
        self.line(&yield_line(&b));
        self.indent -= 1;
        self.line("}");
        Ok(names)
    }

    /// Zeros of each of `tys` standing in for results a skipped body or an
    /// impossible branch would have computed: the sizes bound here, 0 for
    /// the others, and a buffer of its own each (they may be returned
    /// uncopied, and CSE would merge equal fills).
    pub fn placeholders(&mut self, tys: &[&TensorType]) -> Result<Vec<String>, BackendError> {
        // Sizes computed here are bound in this scope only (a region's).
        self.push_scope();
        let mut out = Vec::new();
        for &t in tys {
            let sizes = t
                .dims
                .iter()
                .map(|d| self.dim_size(d).unwrap_or_else(|_| self.index_const(0)))
                .collect();
            let zeros = self.filled_sized(t, sizes, &types::zero_lit(t.dtype))?;
            let tt = types::tensor(t);
            out.push(self.assign(&format!(
                "bufferization.alloc_tensor() copy({zeros}) : {tt}"
            )));
        }
        self.pop_scope();
        Ok(out)
    }

    /// Emits an `scf.if` yielding one value of type `ty`; each branch
    /// closure emits its ops and returns the yielded value.
    pub fn scf_if(
        &mut self,
        cond: &str,
        ty: &str,
        then: impl FnOnce(&mut Self) -> Result<String, BackendError>,
        els: impl FnOnce(&mut Self) -> Result<String, BackendError>,
    ) -> Result<String, BackendError> {
        let r = self.fresh("if");
        self.line(&format!("{r} = scf.if {cond} -> ({ty}) {{"));
        self.indent += 1;
        let a = then(self)?;
        self.line(&format!("scf.yield {a} : {ty}"));
        self.indent -= 1;
        self.line("} else {");
        self.indent += 1;
        let b = els(self)?;
        self.line(&format!("scf.yield {b} : {ty}"));
        self.indent -= 1;
        self.line("}");
        Ok(r)
    }
}

/// The index of the `[` that matches the final `]` of `s`.
fn matching_open(s: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in s.char_indices().rev() {
        match c {
            ']' | ')' => depth += 1,
            '[' | '(' => {
                depth -= 1;
                if depth == 0 {
                    return (c == '[').then_some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The index of the `)` that matches the leading `(` of `s`.
fn matching_close(s: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Splits `s` at the operators `ops` outside brackets (and not inside a
/// slice's `[..]`); returns the parts and the operators between them.
fn split_top<'s>(s: &'s str, ops: &[char]) -> (Vec<&'s str>, Vec<char>) {
    let (mut parts, mut seps) = (Vec::new(), Vec::new());
    let (mut depth, mut from) = (0i32, 0usize);
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            c if depth == 0 && ops.contains(&c) && i > from => {
                parts.push(&s[from..i]);
                seps.push(c);
                from = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[from..]);
    (parts, seps)
}

/// Indexing-map results reading an operand of dims `src` inside a loop nest
/// over `dst` (numpy broadcasting: right-aligned, a static 1 against any
/// other size reads index 0).
pub fn broadcast_map(src: &[Dim], dst: &[Dim]) -> Vec<String> {
    let lead = dst.len() - src.len();
    src.iter()
        .enumerate()
        .map(|(i, d)| {
            let j = lead + i;
            if *d == Dim::Static(1) && dst[j] != Dim::Static(1) {
                "0".to_string()
            } else {
                format!("d{j}")
            }
        })
        .collect()
}

/// The identity map results over `rank` loops.
pub fn identity_map(rank: usize) -> Vec<String> {
    (0..rank).map(|i| format!("d{i}")).collect()
}

/// A generic operand for the IR-typed tensor `name` with map results `map`.
pub fn operand(name: &str, ty: &TensorType, map: Vec<String>) -> GenericOperand {
    GenericOperand {
        name: name.to_string(),
        ty: types::tensor(ty),
        elem: types::elem(ty.dtype).to_string(),
        map,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agc_ir::{DType, Span};

    #[test]
    fn symbols_bound_in_a_region_scope_do_not_escape_it() {
        let t = TensorType::new(DType::F32, vec![Dim::Sym("B".into())]);
        let f = Function::new("f", &[("x".into(), t.clone().into())], Span::UNKNOWN);
        let mut e = FnEmitter::new(&f);
        e.bind_new_syms("%arg0", &t);
        let b = e.sym("B").unwrap();
        e.push_scope();
        e.bind_sym("B", "%other".into());
        e.bind_sym("T", "%t".into());
        assert_eq!(e.sym("B"), Some(b.clone()), "outer binding wins");
        assert_eq!(e.sym("T").as_deref(), Some("%t"));
        e.pop_scope();
        assert_eq!(e.sym("T"), None);
        assert_eq!(e.dim_size(&Dim::Sym("B".into())).unwrap(), b);
        assert!(e.dim_size(&Dim::Sym("Q".into())).is_err());
    }

    #[test]
    fn broadcast_maps_right_align_and_pin_unit_dims() {
        let s = |n: &str| Dim::Sym(n.into());
        let dst = [s("B"), Dim::Static(4)];
        assert_eq!(broadcast_map(&[Dim::Static(4)], &dst), vec!["d1"]);
        assert_eq!(
            broadcast_map(&[s("B"), Dim::Static(1)], &dst),
            vec!["d0", "0"]
        );
        assert_eq!(broadcast_map(&[], &dst), Vec::<String>::new());
        assert_eq!(
            broadcast_map(&[Dim::Static(1)], &[Dim::Static(1)]),
            vec!["d0"]
        );
    }
}
