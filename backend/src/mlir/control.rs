//! Structured control flow and calls: `if` → `scf.if`, `while` →
//! `scf.while`, `call` → `func.call`, all on tensors (one-shot
//! bufferization and the deallocation pipeline handle the buffers that
//! cross region and function boundaries).
//!
//! A `while` also stops when the call has failed (the runtime's
//! `agc_rt_ok()`), since after an error the loop runs on substitute values
//! on which it might never end.
//!
//! A region is emitted inside its own symbol scope: symbols bound from
//! values defined in the region (or from its parameters) are dropped when
//! it ends, since those SSA values do not dominate the code after it. The
//! op's results then bind their new symbols with `tensor.dim` like any op's.

use super::emitter::FnEmitter;
use super::function::emit_region;
use super::{rank0, types};
use crate::BackendError;
use agc_ir::{OpData, OpKind, RegionId, Value};

/// The MLIR types control flow carries IR values as ([`rank0::carried_type`]).
fn type_list(e: &FnEmitter, vs: &[Value]) -> Vec<String> {
    vs.iter().map(|&v| rank0::carried_type(e.ty(v))).collect()
}

/// MLIR values `names` of IR values `vs`, each converted by `convert`:
/// [`rank0::to_carried`] into the form control flow carries,
/// [`rank0::from_carried`] back into the tensor the emitter binds.
fn convert_all(
    e: &mut FnEmitter,
    names: Vec<String>,
    vs: &[Value],
    convert: fn(&mut FnEmitter, String, &agc_ir::TensorType) -> String,
) -> Vec<String> {
    let f = e.f;
    names
        .into_iter()
        .zip(vs)
        .map(|(n, &v)| convert(e, n, f.ty(v).tensor()))
        .collect()
}

/// Names of the `n` results of the op named `r`.
pub(super) fn results(r: &str, n: usize) -> (String, Vec<String>) {
    match n {
        0 => (String::new(), Vec::new()),
        1 => (format!("{r} = "), vec![r.to_string()]),
        _ => (
            format!("{r}:{n} = "),
            (0..n).map(|i| format!("{r}#{i}")).collect(),
        ),
    }
}

/// The `i1` held by a rank-0 `bool` tensor.
fn condition(e: &mut FnEmitter, v: Value) -> Result<String, BackendError> {
    let t = e.val(v)?;
    Ok(rank0::element(e, &t, e.ty(v)))
}

/// Emits a region's ops in a new scope; returns its terminator's operands.
fn nested_region(e: &mut FnEmitter, r: RegionId) -> Result<(OpKind, Vec<String>), BackendError> {
    e.push_scope();
    e.enter();
    let out = emit_region(e, r);
    e.leave();
    e.pop_scope();
    out
}

/// `terminator operand, ...` and their types, for `scf.yield`/`scf.condition`.
fn operand_list(e: &FnEmitter, names: &[String], r: RegionId) -> (String, String) {
    let vs = &terminator(e.f, r).operands;
    (names.join(", "), type_list(e, vs).join(", "))
}

/// The terminator of region `r`.
pub(super) fn terminator(f: &agc_ir::Function, r: RegionId) -> &OpData {
    f.op(*f
        .region(r)
        .ops
        .last()
        .expect("verified regions end in a terminator"))
}

/// Lowers an `if`; returns its results.
pub fn if_op(e: &mut FnEmitter, od: &OpData) -> Result<Vec<String>, BackendError> {
    let c = condition(e, od.operands[0])?;
    let tys = type_list(e, &od.results);
    let r = e.fresh("if");
    let (lhs, names) = results(&r, od.results.len());
    let arrow = if tys.is_empty() {
        String::new()
    } else {
        format!(" -> ({})", tys.join(", "))
    };
    e.line(&format!("{lhs}scf.if {c}{arrow} {{"));
    for (i, &region) in od.regions.iter().enumerate() {
        if i == 1 {
            e.line("} else {");
        }
        let (_, yields) = nested_region(e, region)?;
        e.enter();
        let yields = copy_views(e, yields, region)?;
        let yields = convert_all(
            e,
            yields,
            &terminator(e.f, region).operands,
            rank0::to_carried,
        );
        let (vals, ytys) = operand_list(e, &yields, region);
        e.line(&if yields.is_empty() {
            "scf.yield".to_string()
        } else {
            format!("scf.yield {vals} : {ytys}")
        });
        e.leave();
    }
    e.line("}");
    Ok(convert_all(e, names, &od.results, rank0::from_carried))
}

/// The yields `names` of `if` branch `r`, each that may be a view at a
/// dynamic offset ([`may_be_view`]) replaced by a copy. One-shot
/// bufferization gives an `scf.if` one of whose branches yields such a view
/// the view's layout, and then allocates the other branch's fresh buffer
/// with that layout, which has no offset to give it: an invalid
/// `memref.alloc` (fuzz seed 5101's programs 241 and 252).
fn copy_views(
    e: &mut FnEmitter,
    names: Vec<String>,
    r: RegionId,
) -> Result<Vec<String>, BackendError> {
    let f = e.f;
    let Some(&term) = f.region(r).ops.last() else {
        return Ok(names);
    };
    let mut out = Vec::with_capacity(names.len());
    for (name, &v) in names.into_iter().zip(&f.op(term).operands) {
        if e.ty(v).rank() == 0 || !may_be_view(e, v) {
            out.push(name);
            continue;
        }
        let ty = e.ty(v);
        let init = e.empty(ty)?;
        let tt = types::tensor(ty);
        out.push(e.assign(&format!(
            "linalg.copy ins({name} : {tt}) outs({init} : {tt}) -> {tt}"
        )));
    }
    Ok(out)
}

/// Whether IR value `v` may lower to a tensor whose buffer is a view at a
/// dynamic offset: a `dyn_index` or a slice made a view ([`super::gather::view_sizes`]), a parameter of a
/// function that calls pass views to ([`Callee::takes_views`]), or a
/// reshape, same-type cast or one-operand concat of one.
fn may_be_view(e: &FnEmitter, v: Value) -> bool {
    let f = e.f;
    match f.value(v).def {
        agc_ir::ValueDef::Param { region, .. } => {
            region == f.body
                && e.callees
                    .iter()
                    .any(|c| c.symbol == e.symbol && c.takes_views)
        }
        agc_ir::ValueDef::Result { op, .. } => {
            let od = f.op(op);
            match od.kind {
                OpKind::DynIndex { .. } => true,
                OpKind::Slice { ref dims } => {
                    super::gather::view_sizes(f.ty(od.operands[0]).tensor(), f.ty(v).tensor(), dims)
                        .is_some()
                }
                OpKind::Reshape => may_be_view(e, od.operands[0]),
                OpKind::Cast | OpKind::Concat { .. } => {
                    od.operands.len() == 1
                        && f.ty(od.operands[0]) == f.ty(v)
                        && may_be_view(e, od.operands[0])
                }
                _ => false,
            }
        }
    }
}

/// Lowers a `while` (`scf.while` semantics); returns its results.
pub fn while_op(e: &mut FnEmitter, od: &OpData) -> Result<Vec<String>, BackendError> {
    let f = e.f;
    let (before, after) = (od.regions[0], od.regions[1]);
    let state_tys = type_list(e, &od.operands);
    let result_tys = type_list(e, &od.results);
    let mut inits = Vec::new();
    let mut state = Vec::new();
    for &v in &od.operands {
        let arg = e.fresh("s");
        let init = e.val(v)?;
        inits.push(format!("{arg} = {}", rank0::to_carried(e, init, e.ty(v))));
        state.push(arg);
    }
    let r = e.fresh("while");
    let (lhs, names) = results(&r, od.results.len());
    e.line(&format!(
        "{lhs}scf.while ({}) : ({}) -> ({}) {{",
        inits.join(", "),
        state_tys.join(", "),
        result_tys.join(", ")
    ));
    // Before region: bind the state's symbols from its block arguments.
    e.push_scope();
    e.enter();
    let params = &f.region(before).params;
    for (&p, name) in params
        .iter()
        .zip(convert_all(e, state, params, rank0::from_carried))
    {
        e.bind_new_syms(&name, e.ty(p));
        e.set_val(p, name);
    }
    let (_, cond) = emit_region(e, before)?;
    let term = terminator(f, before);
    let c = condition(e, term.operands[0])?;
    // Stop once the call has failed: values computed after an error are
    // substitutes, on which the loop might never end.
    let go = e.assign("func.call @agc_rt_ok() : () -> i32");
    let zero = e.constant("0", "i32");
    let ok = e.cmpi("ne", &go, &zero, "i32");
    let c = e.arith("andi", &c, &ok, "i1");
    let passed = convert_all(
        e,
        cond[1..].to_vec(),
        &term.operands[1..],
        rank0::to_carried,
    );
    let (vals, tys) = (
        passed.join(", "),
        type_list(e, &term.operands[1..]).join(", "),
    );
    e.line(&if cond.len() == 1 {
        format!("scf.condition({c})")
    } else {
        format!("scf.condition({c}) {vals} : {tys}")
    });
    e.leave();
    e.pop_scope();
    e.line("} do {");
    // After region: its parameters are block arguments.
    let mut args = Vec::new();
    let mut block_args = Vec::new();
    for &p in &f.region(after).params {
        let a = e.fresh("b");
        args.push(format!("{a}: {}", rank0::carried_type(e.ty(p))));
        block_args.push(a);
    }
    e.line(&format!("^bb0({}):", args.join(", ")));
    e.push_scope();
    e.enter();
    let params = &f.region(after).params;
    for (&p, name) in params
        .iter()
        .zip(convert_all(e, block_args, params, rank0::from_carried))
    {
        e.bind_new_syms(&name, e.ty(p));
        e.set_val(p, name);
    }
    let (_, yields) = emit_region(e, after)?;
    let yields = convert_all(e, yields, &terminator(f, after).operands, rank0::to_carried);
    let (vals, ytys) = operand_list(e, &yields, after);
    e.line(&if yields.is_empty() {
        "scf.yield".to_string()
    } else {
        format!("scf.yield {vals} : {ytys}")
    });
    e.leave();
    e.pop_scope();
    e.line("}");
    Ok(convert_all(e, names, &od.results, rank0::from_carried))
}

/// Lowers a `call` to another function of the module; returns its results.
///
/// The call goes through buffers: `bufferization.to_buffer read_only` of
/// each argument, a call of `@<callee>__m` (declared with the memref
/// signature the callee has after bufferization, and bound to the callee
/// itself in LLVM IR by `pipeline`), `to_tensor restrict writable` of each
/// result (a fresh buffer the caller owns). A `func.call` on tensors would
/// make one-shot bufferization copy every argument at each call of a
/// recursive function (it cannot analyse a callee that is still being
/// analysed and assumes it writes its arguments), an O(size) copy per
/// level of the recursion; agc's functions never write their arguments.
pub fn call(e: &mut FnEmitter, od: &OpData) -> Result<Vec<String>, BackendError> {
    let OpKind::Call { callee } = od.kind else {
        unreachable!("call")
    };
    let target = e.callees.get(callee.index()).cloned().ok_or_else(|| {
        BackendError::Unsupported(format!(
            "callee {callee} is not in the module being emitted"
        ))
    })?;
    let name = &target.symbol;
    // Pinned: the arguments are read where the call is (see
    // `FnEmitter::pinned`).
    let result_tys: Vec<String> = od.results.iter().map(|&v| types::tensor(e.ty(v))).collect();
    let tensors = e.pinned(&result_tys, |e| {
        let mut args = Vec::new();
        let mut arg_tys = Vec::new();
        // A unique attribute on each `to_buffer` keeps CSE from merging those
        // of equal operands: a merged one would be read by a later call after
        // bufferization had reused the buffer in place (the read is at the
        // `to_buffer`, which must stay right before its call).
        let id = e.read_id();
        for &v in &od.operands {
            if e.f.ty(v).as_cont().is_some() {
                args.push(e.val(v)?);
                arg_tys.push(types::value_memref(e.f.ty(v)));
                continue;
            }
            let (t, ty) = (e.val(v)?, e.ty(v));
            let m = target.param_memref(ty);
            args.push(if ty.rank() == 0 {
                e.scalar_arg(&t, ty, &m)
            } else {
                e.read_param(&t, &id, ty, &m)
            });
            arg_tys.push(m);
        }
        let outs: Vec<String> = od.results.iter().map(|&v| types::memref(e.ty(v))).collect();
        let r = e.fresh("call");
        let (lhs, names) = results(&r, od.results.len());
        e.line(&format!(
            "{lhs}func.call @{name}{BUFFER_CALL_SUFFIX}({}) : ({}) -> ({})",
            args.join(", "),
            arg_tys.join(", "),
            outs.join(", ")
        ));
        let mut tensors = Vec::new();
        for (n, &v) in names.iter().zip(&od.results) {
            let ty = e.ty(v);
            tensors.push(e.assign(&format!(
                "bufferization.to_tensor {n} restrict writable : {} to {}",
                types::memref(ty),
                types::tensor(ty)
            )));
        }
        Ok(tensors)
    })?;
    // The callee's sizes against the symbols this function bound.
    od.results
        .iter()
        .zip(tensors)
        .map(|(&v, t)| e.conform(&t, e.ty(v)))
        .collect()
}

/// The suffix of the memref-typed declaration through which calls reach a
/// function (`@agc_impl_f__m` for `@agc_impl_f`).
pub const BUFFER_CALL_SUFFIX: &str = "__m";

/// A function of the module as calls see it.
#[derive(Clone, Debug)]
pub struct Callee {
    /// Its MLIR symbol.
    pub symbol: String,
    /// Whether it takes parameters of static shape at any offset
    /// ([`types::param_memref`]), so that calls pass views uncopied.
    pub takes_views: bool,
}

impl Callee {
    /// The memref type in which it takes a tensor parameter of type `t`.
    pub fn param_memref(&self, t: &agc_ir::TensorType) -> String {
        if self.takes_views {
            types::param_memref(t)
        } else {
            types::memref(t)
        }
    }
}

/// The declaration of `@<symbol>__m` for a function `f` that is called.
pub fn buffer_call_decl(callee: &Callee, f: &agc_ir::Function) -> String {
    let symbol = &callee.symbol;
    let args: Vec<String> = f
        .params()
        .iter()
        .map(|&p| match f.ty(p).as_tensor() {
            Some(t) => callee.param_memref(t),
            None => types::value_memref(f.ty(p)),
        })
        .collect();
    let results: Vec<String> = f
        .result_types
        .iter()
        .map(|t| types::memref(t.tensor()))
        .collect();
    format!(
        "  func.func private @{symbol}{BUFFER_CALL_SUFFIX}({}) -> ({})\n",
        args.join(", "),
        results.join(", ")
    )
}
