//! Module and function emission: the `func.func` wrapper, binding of
//! parameter symbols, dispatch of each IR op to its pattern emitter, and
//! the copies that keep returned buffers from aliasing one another.
//!
//! Result ownership: the buffer-deallocation pipeline makes every returned
//! memref owned by the caller, cloning a parameter, a constant or a view of
//! them, but it does not notice two result slots holding the same owned
//! buffer (`return %r, %r`, which CSE also creates from distinct but equal
//! IR ops), and the caller would free it twice. So a result slot after the
//! first goes through `bufferization.alloc_tensor() copy(...)`, a fresh
//! buffer filled with a contiguous `memcpy`, unless `result_alias` proves
//! its buffer is its own (a fresh value that CSE cannot merge with an
//! earlier slot's); the placeholders of a skipped body are distinct
//! allocations for the same reason.

use super::continuation::{self, ContTable};
use super::emitter::FnEmitter;
use super::{
    alloc_size, approx, capture_lifetime, chain_break, checks, constant, contraction, control,
    counted_loop, elementwise, fusion, gather, index, layout, pairwise_sum, reduce, result_alias,
    take, types, weight,
};
use crate::BackendError;
use agc_ir::{BinaryOp, Function, Module, OpData, OpId, OpKind, RegionId};
use std::rc::Rc;
use weight::{Placement, WeightUse};

/// The prefix of every emitted function symbol: `agc_impl_<name>`.
pub const IMPL_PREFIX: &str = "agc_impl_";

/// The runtime functions generated code may call (`runtime/src/error.rs`);
/// declarations that no code uses leave no trace in the object.
const RUNTIME_DECLS: &str = "  func.func private @agc_rt_raise_index(i64, i64, i64, i64)
  func.func private @agc_rt_raise_empty(i64)
  func.func private @agc_rt_raise_message(i64, i64, i64)
  func.func private @agc_rt_raise_size(i64, i64, i64)
  func.func private @agc_rt_enter() -> i32
  func.func private @agc_rt_ok() -> i32
";

/// Emits a whole module as MLIR text (one `func.func` per IR function).
pub fn emit_module(m: &Module, opts: &EmitOptions) -> Result<Emitted, BackendError> {
    let weights = Rc::new(WeightUse {
        placement: opts.weights,
        fast_math: opts.fast_math,
        gpu: opts.gpu,
        approx_calls: !opts.gpu && approx::count(m) > approx::inline_limit(),
        nweights: m.weights.len(),
        packed: Default::default(),
    });
    let symbols = function_symbols(m);
    let reached = reached_functions(m);
    let callees: Vec<control::Callee> = symbols
        .iter()
        .zip(&reached)
        .map(|(symbol, r)| control::Callee {
            symbol: symbol.clone(),
            takes_views: r.takes_views(),
        })
        .collect();
    let conts = Rc::new(ContTable::of(m, &symbols));
    let mut out = String::from("module {\n");
    for (i, f) in m.funcs.iter().enumerate() {
        out.push_str(&emit_function_in(
            f,
            &callees,
            i,
            reached[i].called(),
            &m.line_starts,
            conts.clone(),
            weights.clone(),
        )?);
    }
    if !conts.is_empty() {
        out.push_str(&conts.emit(m));
    }
    for (i, f) in m.funcs.iter().enumerate() {
        if reached[i].called() {
            out.push_str(&control::buffer_call_decl(&callees[i], f));
        }
    }
    if weights.approx_calls {
        out.push_str(&approx::definitions());
    }
    out.push_str(&weight::declarations(m, &weights, contraction::NR));
    out.push_str(RUNTIME_DECLS);
    out.push_str(alloc_size::RUNTIME_DECLS);
    out.push_str(pairwise_sum::RUNTIME_DECLS);
    out.push_str(contraction::RUNTIME_DECLS);
    out.push_str("}\n");
    let packed = weights.packed.borrow().clone();
    Ok(Emitted { text: out, packed })
}

/// What [`emit_module`] is asked for.
#[derive(Clone, Copy, Debug, Default)]
pub struct EmitOptions {
    /// Where the weights are.
    pub weights: Placement,
    /// `--fast-math`: float `+ - * /` may be reassociated and contracted
    /// (results may differ from numpy in the last bits; NaN and infinity
    /// behave as without it).
    pub fast_math: bool,
    /// Emit for a GPU target (`--target cuda`).
    pub gpu: bool,
}

/// A module's MLIR text, and the packed weights it reads (in table-slot order).
#[derive(Debug)]
pub struct Emitted {
    /// The MLIR module.
    pub text: String,
    /// The weights the code reads packed for the GEMM ([`weight::PackedWeight`]).
    pub packed: Vec<weight::PackedWeight>,
}

/// The MLIR symbol of each function of `m`, by `FuncId` index:
/// `agc_impl_<name>`, with `__<index>` where several functions share a
/// name or the name is not a C identifier (its other characters become
/// `_`), and `_`s appended until it is unique and does not end in the
/// suffix of the call declarations (`__m`). The C entry points call
/// `_mlir_ciface_<symbol>`.
pub fn function_symbols(m: &Module) -> Vec<String> {
    let mut count = std::collections::HashMap::new();
    for f in &m.funcs {
        *count.entry(f.name.as_str()).or_insert(0usize) += 1;
    }
    let mut used = std::collections::HashSet::new();
    m.funcs
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let mut sym = format!("{IMPL_PREFIX}{}", c_safe(&f.name));
            if count[f.name.as_str()] > 1 || c_safe(&f.name) != f.name {
                sym = format!("{sym}__{i}");
            }
            while used.contains(&sym)
                || sym.ends_with(control::BUFFER_CALL_SUFFIX)
                || sym.ends_with(continuation::ENTRY_SUFFIX)
                || sym.ends_with(continuation::RAW_CALL_SUFFIX)
            {
                sym.push('_');
            }
            used.insert(sym.clone());
            sym
        })
        .collect()
}

/// `name` with every character but `[A-Za-z0-9_]` replaced by `_`.
fn c_safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// How other functions reach a function of the module.
#[derive(Clone, Copy, Debug, Default)]
struct Reached {
    /// Some `call` op calls it (through `@<symbol>__m`, see `control::call`).
    by_call: bool,
    /// Some `cont` op closes over it (the continuation machinery calls it).
    by_cont: bool,
}

impl Reached {
    /// Whether it is reached at all (and so checks the stack on entry).
    fn called(self) -> bool {
        self.by_call || self.by_cont
    }

    /// Whether its parameters of static shape are taken at any offset
    /// ([`types::param_memref`]): only calls pass views; the continuation
    /// machinery builds identity-layout descriptors.
    fn takes_views(self) -> bool {
        self.by_call && !self.by_cont
    }
}

/// For each function of `m`, how calls and continuations reach it.
fn reached_functions(m: &Module) -> Vec<Reached> {
    let mut reached = vec![Reached::default(); m.funcs.len()];
    for f in &m.funcs {
        let mut regions = vec![f.body];
        while let Some(r) = regions.pop() {
            for &op in &f.region(r).ops {
                let od = f.op(op);
                match od.kind {
                    OpKind::Call { callee } => {
                        if let Some(c) = reached.get_mut(callee.index()) {
                            c.by_call = true;
                        }
                    }
                    OpKind::MakeCont { func } => {
                        if let Some(c) = reached.get_mut(func.index()) {
                            c.by_cont = true;
                        }
                    }
                    _ => {}
                }
                regions.extend(od.regions.iter().copied());
            }
        }
    }
    reached
}

/// True when `f` contains a `call` op (so that its callers run it on a
/// large stack).
pub fn makes_calls(f: &Function) -> bool {
    let mut regions = vec![f.body];
    while let Some(r) = regions.pop() {
        for &op in &f.region(r).ops {
            let od = f.op(op);
            if matches!(od.kind, OpKind::Call { .. }) {
                return true;
            }
            regions.extend(od.regions.iter().copied());
        }
    }
    false
}

/// A test function of params `x` (and `y` when `with_y`) of type `t`
/// returning `x op z op z ... op z` (`n` ops; `z` is `y`, or `x`).
#[cfg(test)]
pub fn chain_function(op: BinaryOp, t: &agc_ir::TensorType, n: usize, with_y: bool) -> Function {
    let ty = agc_ir::Type::Tensor(t.clone());
    let mut params = vec![("x".to_string(), ty.clone())];
    if with_y {
        params.push(("y".into(), ty));
    }
    let mut f = Function::new("f", &params, agc_ir::Span::UNKNOWN);
    let (body, x) = (f.body, f.params()[0]);
    let z = *f.params().last().unwrap_or(&x);
    let mut acc = x;
    for _ in 0..n {
        let (_, r) = f.append_op(
            body,
            OpKind::Binary(op),
            vec![acc, z],
            vec![t.clone().into()],
            vec![],
            agc_ir::Span::UNKNOWN,
        );
        acc = r[0];
    }
    f.append_op(
        body,
        OpKind::Return,
        vec![acc],
        vec![],
        vec![],
        agc_ir::Span::UNKNOWN,
    );
    f.result_types = vec![t.clone().into()];
    f
}

/// Emits one function as `func.func @agc_impl_<name>` (without the rest of
/// its module, so it may not contain calls).
#[cfg(test)]
pub fn emit_function(f: &Function) -> Result<String, BackendError> {
    emit_function_in(
        f,
        &[control::Callee {
            symbol: format!("{IMPL_PREFIX}{}", f.name),
            takes_views: false,
        }],
        0,
        false,
        &[],
        Default::default(),
        Default::default(),
    )
}

/// Emits function `index` of `callees` (the module's functions by `FuncId`
/// index) as `func.func @<symbol>`. A function that is `called` checks the
/// stack at its entry (see [`guarded_body`]). `line_starts` are the
/// module's (`agc_ir::Module::line_starts`), for run-time error messages;
/// `conts` its continuation functions.
fn emit_function_in(
    f: &Function,
    callees: &[control::Callee],
    index: usize,
    called: bool,
    line_starts: &[u32],
    conts: Rc<ContTable>,
    weights: Rc<WeightUse>,
) -> Result<String, BackendError> {
    let mut e = FnEmitter::new(f);
    e.weights = weights;
    let symbol = callees[index].symbol.as_str();
    e.symbol = symbol.to_string();
    e.callees = callees.to_vec();
    e.line_starts = line_starts.to_vec();
    e.conts = conts;
    let mut params = Vec::new();
    for (i, &p) in f.params().iter().enumerate() {
        let name = format!("%arg{i}");
        if f.ty(p).as_cont().is_some() {
            params.push(format!("{name}: i64"));
            e.set_val(p, name);
            continue;
        }
        let ty = e.ty(p);
        let tensor_ty = types::tensor(ty);
        let param_ty = callees[index].param_memref(ty);
        let name = if param_ty != types::memref(ty) {
            // Calls pass views at any offset (`control::call`); the body
            // reads the parameter as a tensor it never writes.
            params.push(format!("{name}: {param_ty}"));
            e.assign(&format!(
                "bufferization.to_tensor {name} restrict : {param_ty} to {tensor_ty}"
            ))
        } else {
            params.push(format!(
                "{name}: {tensor_ty} {{bufferization.writable = false}}"
            ));
            name
        };
        e.set_val(p, name.clone());
        e.bind_new_syms(&name, ty);
    }
    let returned = if called {
        guarded_body(&mut e)?
    } else {
        emit_region(&mut e, f.body)?.1
    };
    emit_return(&mut e, &returned, f.body)?;
    let results: Vec<String> = f
        .result_types
        .iter()
        .map(|t| types::tensor(t.tensor()))
        .collect();
    let mut out = format!(
        "  func.func @{}({}) -> ({}) attributes {{llvm.emit_c_interface{}}} {{\n",
        symbol,
        params.join(", "),
        results.join(", "),
        if f.outlined {
            ", passthrough = [\"noinline\"]"
        } else {
            ""
        }
    );
    let globals = std::mem::take(&mut e.globals);
    out.push_str(&e.finish());
    out.push_str("  }\n");
    for g in &globals {
        out.push_str(g);
    }
    Ok(out)
}

/// The body of a function that calls may reach, inside
/// `scf.if (agc_rt_enter() != 0)`: the runtime's check of the stack depth
/// (and of an error raised earlier in the call). When it fails, the body is
/// skipped and the function returns placeholders: zeros, with the sizes the
/// result types give when they can be computed from the parameters' sizes,
/// 0 for sizes only the body could know. Returns the results.
fn guarded_body(e: &mut FnEmitter) -> Result<Vec<String>, BackendError> {
    let f = e.f;
    let go = e.assign("func.call @agc_rt_enter() : () -> i32");
    let zero = e.constant("0", "i32");
    let ok = e.cmpi("ne", &go, &zero, "i32");
    let tys: Vec<String> = f
        .result_types
        .iter()
        .map(|t| types::tensor(t.tensor()))
        .collect();
    e.scf_if_results(
        &ok,
        &tys,
        |e| {
            e.push_scope();
            let (_, returned) = emit_region(e, f.body)?;
            e.pop_scope();
            Ok(returned)
        },
        |e| {
            let results: Vec<&agc_ir::TensorType> =
                f.result_types.iter().map(|t| t.tensor()).collect();
            e.placeholders(&results)
        },
    )
}

/// Emits the ops of a region in order, except its terminator, whose kind
/// and operands (as MLIR values) it returns.
pub(super) fn emit_region(
    e: &mut FnEmitter,
    r: RegionId,
) -> Result<(OpKind, Vec<String>), BackendError> {
    let f = e.f;
    let capture_ends = capture_lifetime::capture_ends(f, r);
    let mut pending = fusion::Pending::default();
    for (&op, ends) in f.region(r).ops.iter().zip(&capture_ends) {
        let od = f.op(op);
        if fusion::fusable(e, od) && ends.is_empty() {
            pending.add(e, op).map_err(|err| in_op(err, op, od))?;
            continue;
        }
        pending.before(e, od).map_err(|err| in_op(err, op, od))?;
        if od.kind.is_terminator() {
            pending.finish(e).map_err(|err| in_op(err, op, od))?;
            let names = od
                .operands
                .iter()
                .map(|&v| e.val(v))
                .collect::<Result<_, _>>()?;
            return Ok((od.kind.clone(), names));
        }
        let mut results = emit_op(e, od).map_err(|err| in_op(err, op, od))?;
        if e.broken_chains.contains(&op) {
            results = (od.results.iter().zip(results))
                .map(|(&v, t)| chain_break::break_chain(e, t, f.ty(v).tensor()))
                .collect();
        }
        for (&v, name) in od.results.iter().zip(results) {
            e.def_depth.insert(v, e.loop_depth);
            e.set_val(v, name.clone());
            if let Some(t) = f.ty(v).as_tensor() {
                e.bind_new_syms(&name, t);
            }
        }
        keep_captures(e, ends)?;
    }
    Err(BackendError::Mlir(format!("region {r} has no terminator")))
}

/// Reads again the captures of the `cont` ops `conts` (see `capture_lifetime`).
fn keep_captures(e: &mut FnEmitter, conts: &[OpId]) -> Result<(), BackendError> {
    for &k in conts {
        continuation::keep_captures(e, e.f.op(k)).map_err(|err| in_op(err, k, e.f.op(k)))?;
    }
    Ok(())
}

/// Says which op an error comes from: the innermost op's source span for
/// an unsupported construct (the user's `file:line:col`), the op itself
/// otherwise.
fn in_op(err: BackendError, op: OpId, od: &OpData) -> BackendError {
    match err {
        BackendError::Unsupported(m) if !od.span.is_unknown() => {
            BackendError::UnsupportedAt(m, od.span)
        }
        BackendError::Unsupported(m) => {
            BackendError::Unsupported(format!("{op} ({}): {m}", od.kind.name()))
        }
        BackendError::Mlir(m) => BackendError::Mlir(format!("{op} ({}): {m}", od.kind.name())),
        other => other,
    }
}

/// Lowers one non-terminator op; returns its results.
fn emit_op(e: &mut FnEmitter, od: &OpData) -> Result<Vec<String>, BackendError> {
    let one = match &od.kind {
        OpKind::If => return control::if_op(e, od),
        OpKind::While => {
            e.loop_depth += 1;
            let results = match counted_loop::counted(e.f, od) {
                Some(c) => counted_loop::for_op(e, od, &c),
                None => control::while_op(e, od),
            };
            e.loop_depth -= 1;
            return results;
        }
        OpKind::Call { .. } => return control::call(e, od),
        OpKind::MakeCont { .. } => return continuation::make_cont(e, od),
        OpKind::Apply => return continuation::apply(e, od),
        OpKind::ContOutputs => return continuation::outputs(e, od),
        OpKind::Const(data) => constant::constant(e, od, data),
        OpKind::Weight(k) => Ok(weight::weight(e, od, *k)),
        OpKind::Iota { start, step } => constant::iota(e, od, *start, *step),
        OpKind::Dim { axis } => constant::dim(e, od, *axis),
        OpKind::Binary(BinaryOp::Add) => match contraction::accumulated_product(e, od) {
            Some((product, acc)) => contraction::accumulate(e, product, acc),
            None => elementwise::emit(e, od),
        },
        OpKind::Fill
        | OpKind::Unary(_)
        | OpKind::Binary(_)
        | OpKind::Compare(_)
        | OpKind::Select
        | OpKind::Cast
        | OpKind::BroadcastTo => elementwise::emit(e, od),
        OpKind::MatMul => contraction::emit(e, od),
        OpKind::Reduce { .. } | OpKind::ArgReduce { .. } => reduce::emit(e, od),
        OpKind::Reshape => layout::reshape(e, od),
        OpKind::Transpose { perm } => layout::transpose(e, od, perm),
        OpKind::Slice { dims } => gather::slice(e, od, dims),
        OpKind::Concat { axis } => gather::concat(e, od, *axis),
        OpKind::DynSlice => gather::dyn_slice(e, od),
        OpKind::Assert { message } => {
            let line = e.line_of(od.span);
            checks::assert(e, od, message, line)?;
            return Ok(Vec::new());
        }
        OpKind::DynIndex { .. } => index::dyn_index(e, od, e.line_of(od.span)),
        OpKind::DynUpdate { axes, accumulate } => {
            index::dyn_update(e, od, *axes, *accumulate, e.line_of(od.span))
        }
        OpKind::Gather { axis } => take::gather(e, od, *axis, e.line_of(od.span)),
        OpKind::ScatterAdd { axis } => take::scatter_add(e, od, *axis, e.line_of(od.span)),
        OpKind::Return | OpKind::Yield | OpKind::Condition => Err(BackendError::Mlir(
            "a terminator in the middle of a region".into(),
        )),
    }?;
    Ok(vec![one])
}

/// `return` of the body's terminator operands (`values`), with a fresh copy
/// of each one after the first that may share its buffer with an earlier
/// one (see `result_alias`).
fn emit_return(e: &mut FnEmitter, values: &[String], body: RegionId) -> Result<(), BackendError> {
    let f = e.f;
    let term = *f
        .region(body)
        .ops
        .last()
        .expect("the body ends in a terminator");
    let mut names = Vec::new();
    let mut tys = Vec::new();
    let own = result_alias::own_buffers(f);
    for (i, (&v, x)) in f.op(term).operands.iter().zip(values).enumerate() {
        let x = x.clone();
        let ty = types::tensor(e.ty(v));
        if own[i] {
            names.push(x);
        } else {
            names.push(e.assign(&format!("bufferization.alloc_tensor() copy({x}) : {ty}")));
        }
        tys.push(ty);
    }
    e.func_return(&names, &tys);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use agc_ir::{BinaryOp, DType, Dim, Span, TensorType, Type};

    #[test]
    fn signature_binds_symbols_and_copies_later_results() {
        let t = TensorType::new(DType::F32, vec![Dim::Sym("B".into()), Dim::Static(4)]);
        let mut f = Function::new("f", &[("x".into(), Type::Tensor(t.clone()))], Span::UNKNOWN);
        let body = f.body;
        let x = f.params()[0];
        let (_, r) = f.append_op(
            body,
            OpKind::Binary(BinaryOp::Add),
            vec![x, x],
            vec![t.clone().into()],
            vec![],
            Span::UNKNOWN,
        );
        f.append_op(
            body,
            OpKind::Return,
            vec![r[0], r[0]],
            vec![],
            vec![],
            Span::UNKNOWN,
        );
        f.result_types = vec![t.clone().into(), t.into()];
        let text = emit_function(&f).unwrap();
        assert!(text.contains(
            "func.func @agc_impl_f(%arg0: tensor<?x4xf32> {bufferization.writable = false}) -> (tensor<?x4xf32>, tensor<?x4xf32>) \
             attributes {llvm.emit_c_interface}"
        ));
        assert!(text.contains("tensor.dim %arg0"), "{text}");
        assert!(text.contains("arith.addf"), "{text}");
        assert_eq!(
            text.matches("bufferization.alloc_tensor() copy(").count(),
            1,
            "{text}"
        );
    }

    #[test]
    fn function_symbols_are_unique_c_identifiers() {
        let mut m = Module::new("m");
        for name in ["f", "g.grad0", "f", "g_grad0", "h__m", "f__0"] {
            m.add_function(Function::new(name, &[], Span::UNKNOWN));
        }
        assert_eq!(
            function_symbols(&m),
            [
                "agc_impl_f__0",
                "agc_impl_g_grad0__1",
                "agc_impl_f__2",
                "agc_impl_g_grad0",
                "agc_impl_h__m_",
                "agc_impl_f__0_"
            ]
        );
    }
}
