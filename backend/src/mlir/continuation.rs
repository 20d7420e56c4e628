//! Continuations (the CPS form of reverse-mode AD) in MLIR, closure-converted.
//!
//! A continuation value is an `i64`: the address of its *environment
//! record*, an array of `i64` slots that `cont` allocates (`llvm.alloca`)
//! in the frame of the function making it. That frame outlives every
//! application (AD applies a continuation while the call it was passed to
//! is running), so captured buffers are referenced, not copied:
//!
//! ```text
//! slot 0           the tag: the FuncId index of the continuation's function K
//! per capture      a tensor: its buffer's address, then one size per dim;
//!                  a continuation: its address
//! per output       the address of a malloc'd buffer (0 until K ran), then
//!                  one size per dim
//! ```
//!
//! Captured buffers stay alive because the deallocation pipeline frees a
//! buffer at the end of the block that owns it, which contains the call
//! the continuation is passed to; they are read through views
//! (`bufferization.to_tensor restrict`, not writable), so nothing writes
//! them.
//!
//! - `cont`: fills the record; the result is its address.
//! - `apply`: loads the tag and calls, in a chain of `scf.if` on it, the
//!   *entry* `@<K>__k(env, args..) -> results` of each continuation function
//!   of the module with the same signature. The entry rebuilds the
//!   captures from the record (memref views), calls `K` like any call
//!   (`@<K>__m`), copies K's outputs into `malloc`'d buffers whose
//!   addresses and sizes it stores in the record, and returns K's results.
//! - `cont_outputs`: copies each output into a buffer the function owns and
//!   `free`s the malloc'd one; zeros where the continuation never ran (its
//!   body was skipped after a run-time error).

use super::control::{results, BUFFER_CALL_SUFFIX};
use super::emitter::FnEmitter;
use super::types;
use crate::BackendError;
use agc_ir::{DType, Dim, FuncId, Module, OpData, OpKind, TensorType, Type};
use std::collections::BTreeMap;

/// The suffix of a continuation function's entry (`@agc_impl_f_k__k`).
pub const ENTRY_SUFFIX: &str = "__k";

/// Declarations the continuation code calls (libc's allocator).
pub const ALLOCATOR_DECLS: &str =
    "  llvm.func @malloc(i64) -> !llvm.ptr\n  llvm.func @free(!llvm.ptr)\n";

/// Where a captured value sits in an environment record.
#[derive(Clone, Debug)]
enum Capture {
    /// A tensor: the address at `slot`, its sizes after it.
    Tensor { slot: usize, ty: TensorType },
    /// A continuation's address at `slot`.
    Cont { slot: usize },
}

/// One continuation function of the module and its record layout.
#[derive(Clone, Debug)]
pub struct ContEntry {
    /// The function.
    pub func: FuncId,
    /// The MLIR symbol of its entry.
    pub symbol: String,
    /// The MLIR symbol of the function itself.
    pub target: String,
    /// Argument types (the continuation's `args`).
    pub args: Vec<TensorType>,
    /// Result types (the continuation's `results`).
    pub results: Vec<TensorType>,
    captures: Vec<Capture>,
    /// Output slots and types.
    outputs: Vec<(usize, TensorType)>,
    /// Number of slots.
    len: usize,
}

/// The continuation functions of a module, by function.
#[derive(Clone, Debug, Default)]
pub struct ContTable {
    entries: BTreeMap<FuncId, ContEntry>,
}

impl ContTable {
    /// Collects the functions that `cont` ops of `m` close over; `symbols`
    /// are the MLIR symbols of `m`'s functions.
    pub fn of(m: &Module, symbols: &[String]) -> Self {
        let mut entries = BTreeMap::new();
        for f in &m.funcs {
            for i in 0..f.num_ops() {
                let od = f.op(agc_ir::OpId(i as u32));
                let OpKind::MakeCont { func } = od.kind else {
                    continue;
                };
                let k = f.ty(od.results[0]).as_cont().expect("verified");
                entries.entry(func).or_insert_with(|| {
                    layout(m, func, &symbols[func.index()], &k.args, &k.results)
                });
            }
        }
        ContTable { entries }
    }

    /// True when the module makes no continuations.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn entry(&self, func: FuncId) -> Result<&ContEntry, BackendError> {
        self.entries
            .get(&func)
            .ok_or_else(|| BackendError::Mlir(format!("{func} is not a continuation function")))
    }

    /// Every entry function, as MLIR text.
    pub fn emit_entries(&self) -> String {
        self.entries.values().map(emit_entry).collect()
    }
}

fn layout(
    m: &Module,
    func: FuncId,
    target: &str,
    args: &[TensorType],
    results: &[TensorType],
) -> ContEntry {
    let k = m.func(func);
    let ncap = k.params().len() - args.len();
    let mut slot = 1;
    let mut captures = Vec::new();
    for &p in &k.params()[..ncap] {
        match k.ty(p) {
            Type::Tensor(t) => {
                captures.push(Capture::Tensor {
                    slot,
                    ty: t.clone(),
                });
                slot += 1 + t.rank();
            }
            Type::Cont(_) => {
                captures.push(Capture::Cont { slot });
                slot += 1;
            }
        }
    }
    let mut outputs = Vec::new();
    for t in &k.result_types[results.len()..] {
        let t = t.tensor().clone();
        outputs.push((slot, t.clone()));
        slot += 1 + t.rank();
    }
    ContEntry {
        func,
        symbol: format!("{target}{ENTRY_SUFFIX}"),
        target: target.to_string(),
        args: args.to_vec(),
        results: results.to_vec(),
        captures,
        outputs,
        len: slot,
    }
}

/// The MLIR signature of a continuation type, to find the functions an
/// `apply` may reach.
fn signature(args: &[TensorType], results: &[TensorType]) -> (Vec<String>, Vec<String>) {
    (
        args.iter().map(types::memref).collect(),
        results.iter().map(types::memref).collect(),
    )
}

/// `llvm.getelementptr` of slot `i` of the record at `env` (an `!llvm.ptr`).
fn slot_ptr(e: &mut FnEmitter, env: &str, i: usize) -> String {
    if i == 0 {
        return env.to_string();
    }
    e.assign(&format!(
        "llvm.getelementptr {env}[{i}] : (!llvm.ptr) -> !llvm.ptr, i64"
    ))
}

fn store_slot(e: &mut FnEmitter, env: &str, i: usize, value: &str) {
    let p = slot_ptr(e, env, i);
    e.line(&format!("llvm.store {value}, {p} : i64, !llvm.ptr"));
}

fn load_slot(e: &mut FnEmitter, env: &str, i: usize) -> String {
    let p = slot_ptr(e, env, i);
    e.assign(&format!("llvm.load {p} : !llvm.ptr -> i64"))
}

/// A memref view (identity layout) of the buffer at address `addr` (an
/// `i64`) with sizes `sizes` (`i64`, one per dim); not owned.
fn view(e: &mut FnEmitter, addr: &str, sizes: &[String], ty: &TensorType) -> String {
    let r = ty.rank();
    let desc = if r == 0 {
        "!llvm.struct<(ptr, ptr, i64)>".to_string()
    } else {
        format!("!llvm.struct<(ptr, ptr, i64, array<{r} x i64>, array<{r} x i64>)>")
    };
    let ptr = e.assign(&format!("llvm.inttoptr {addr} : i64 to !llvm.ptr"));
    let zero = e.assign("llvm.mlir.constant(0 : i64) : i64");
    let mut d = e.assign(&format!("llvm.mlir.poison : {desc}"));
    d = e.assign(&format!("llvm.insertvalue {ptr}, {d}[0] : {desc}"));
    d = e.assign(&format!("llvm.insertvalue {ptr}, {d}[1] : {desc}"));
    d = e.assign(&format!("llvm.insertvalue {zero}, {d}[2] : {desc}"));
    let mut stride = e.assign("llvm.mlir.constant(1 : i64) : i64");
    for i in (0..r).rev() {
        d = e.assign(&format!(
            "llvm.insertvalue {}, {d}[3, {i}] : {desc}",
            sizes[i]
        ));
        d = e.assign(&format!("llvm.insertvalue {stride}, {d}[4, {i}] : {desc}"));
        if i > 0 {
            stride = e.assign(&format!("llvm.mul {stride}, {} : i64", sizes[i]));
        }
    }
    e.assign(&format!(
        "builtin.unrealized_conversion_cast {d} : {desc} to {}",
        types::memref(ty)
    ))
}

/// The sizes of `ty` as `i64`: static dims as constants, the others from
/// the `index` values `dynamic` gives per axis.
fn sizes_i64(
    e: &mut FnEmitter,
    ty: &TensorType,
    mut dynamic: impl FnMut(&mut FnEmitter, usize) -> String,
) -> Vec<String> {
    (0..ty.rank())
        .map(|i| match ty.dims[i] {
            Dim::Static(n) => e.constant(&n.to_string(), "i64"),
            Dim::Sym(_) => {
                let s = dynamic(e, i);
                e.assign(&format!("arith.index_cast {s} : index to i64"))
            }
        })
        .collect()
}

/// Lowers `cont`: the record, filled; returns its address.
pub fn make_cont(e: &mut FnEmitter, od: &OpData) -> Result<Vec<String>, BackendError> {
    let OpKind::MakeCont { func } = od.kind else {
        unreachable!("cont")
    };
    let entry = e.conts.entry(func)?.clone();
    let n = e.constant(&entry.len.to_string(), "i64");
    let env = e.assign(&format!("llvm.alloca {n} x i64 : (i64) -> !llvm.ptr"));
    let tag = e.constant(&func.index().to_string(), "i64");
    store_slot(e, &env, 0, &tag);
    let id = e.fresh("").trim_start_matches('%').to_string();
    for (c, &v) in entry.captures.iter().zip(&od.operands) {
        let x = e.val(v)?;
        match c {
            Capture::Cont { slot } => store_slot(e, &env, *slot, &x),
            Capture::Tensor { slot, .. } => {
                let ty = e.ty(v);
                let m = e.assign(&format!(
                    "bufferization.to_buffer {x} read_only {{agc.call = {id} : i64}} : {} to {}",
                    types::tensor(ty),
                    types::memref(ty)
                ));
                let p = e.assign(&format!(
                    "memref.extract_aligned_pointer_as_index {m} : {} -> index",
                    types::memref(ty)
                ));
                let a = e.assign(&format!("arith.index_cast {p} : index to i64"));
                store_slot(e, &env, *slot, &a);
                let tt = types::tensor(ty);
                let sizes = sizes_i64(e, ty, |e, i| {
                    let c = e.index_const(i as i64);
                    e.assign(&format!("tensor.dim {x}, {c} : {tt}"))
                });
                for (i, s) in sizes.iter().enumerate() {
                    store_slot(e, &env, slot + 1 + i, s);
                }
            }
        }
    }
    let zero = e.constant("0", "i64");
    for (slot, t) in &entry.outputs {
        for i in 0..=t.rank() {
            store_slot(e, &env, slot + i, &zero);
        }
    }
    Ok(vec![e.assign(&format!(
        "llvm.ptrtoint {env} : !llvm.ptr to i64"
    ))])
}

/// Lowers `apply`: dispatch on the tag to the entries of the module's
/// continuation functions of this signature.
pub fn apply(e: &mut FnEmitter, od: &OpData) -> Result<Vec<String>, BackendError> {
    let k = e.f.ty(od.operands[0]).as_cont().expect("verified").clone();
    let want = signature(&k.args, &k.results);
    let candidates: Vec<ContEntry> = e
        .conts
        .entries
        .values()
        .filter(|c| signature(&c.args, &c.results) == want)
        .cloned()
        .collect();
    let env = e.val(od.operands[0])?;
    let envp = e.assign(&format!("llvm.inttoptr {env} : i64 to !llvm.ptr"));
    let tag = load_slot(e, &envp, 0);
    let id = e.fresh("").trim_start_matches('%').to_string();
    let mut args = Vec::new();
    for &v in &od.operands[1..] {
        let (t, ty) = (e.val(v)?, e.ty(v));
        args.push(e.assign(&format!(
            "bufferization.to_buffer {t} read_only {{agc.call = {id} : i64}} : {} to {}",
            types::tensor(ty),
            types::memref(ty)
        )));
    }
    let tys: Vec<String> = k.results.iter().map(types::tensor).collect();
    let results = dispatch(e, &candidates, &tag, &env, &args, &want, &tys, &k.results)?;
    od.results
        .iter()
        .zip(results)
        .map(|(&v, t)| e.conform(&t, e.ty(v)))
        .collect()
}

/// `if tag == K1 { K1 entry } else if .. else { zeros }`, yielding tensors.
#[allow(clippy::too_many_arguments)]
fn dispatch(
    e: &mut FnEmitter,
    candidates: &[ContEntry],
    tag: &str,
    env: &str,
    args: &[String],
    sig: &(Vec<String>, Vec<String>),
    tys: &[String],
    results: &[TensorType],
) -> Result<Vec<String>, BackendError> {
    let Some((first, others)) = candidates.split_first() else {
        // No continuation of this signature exists: nothing can be applied.
        return results
            .iter()
            .map(|t| {
                let sizes = (0..t.rank())
                    .map(|i| e.dim_size(&t.dims[i]).unwrap_or_else(|_| e.index_const(0)))
                    .collect();
                e.filled_sized(t, sizes, &zero_lit(t.dtype))
            })
            .collect();
    };
    let want = e.constant(&first.func.index().to_string(), "i64");
    let is = e.cmpi("eq", tag, &want, "i64");
    let r = e.fresh("apply");
    let n = tys.len();
    let (lhs, names) = super::control::results(&r, n);
    let arrow = if n == 0 {
        String::new()
    } else {
        format!(" -> ({})", tys.join(", "))
    };
    let yield_line = |vals: &[String]| {
        if vals.is_empty() {
            "scf.yield".to_string()
        } else {
            format!("scf.yield {} : {}", vals.join(", "), tys.join(", "))
        }
    };
    e.line(&format!("{lhs}scf.if {is}{arrow} {{"));
    e.enter();
    let c = e.fresh("k");
    let (clhs, cnames) = super::control::results(&c, n);
    let mut arg_tys = vec!["i64".to_string()];
    arg_tys.extend(sig.0.iter().cloned());
    let mut operands = vec![env.to_string()];
    operands.extend(args.iter().cloned());
    e.line(&format!(
        "{clhs}func.call @{}({}) : ({}) -> ({})",
        first.symbol,
        operands.join(", "),
        arg_tys.join(", "),
        sig.1.join(", ")
    ));
    let mut vals = Vec::new();
    for (name, m) in cnames.iter().zip(&sig.1) {
        let t = tys[vals.len()].clone();
        vals.push(e.assign(&format!(
            "bufferization.to_tensor {name} restrict writable : {m} to {t}"
        )));
    }
    e.line(&yield_line(&vals));
    e.leave();
    e.line("} else {");
    e.enter();
    let rest = dispatch(e, others, tag, env, args, sig, tys, results)?;
    e.line(&yield_line(&rest));
    e.leave();
    e.line("}");
    Ok(names)
}

/// Lowers `cont_outputs`: each output copied into a buffer this function
/// owns (zeros when the continuation never ran), the malloc'd one freed.
pub fn outputs(e: &mut FnEmitter, od: &OpData) -> Result<Vec<String>, BackendError> {
    let Some(OpKind::MakeCont { func }) = e.f.def_op(od.operands[0]).map(|d| d.kind.clone()) else {
        return Err(BackendError::Mlir(
            "cont_outputs of a continuation made elsewhere".into(),
        ));
    };
    let entry = e.conts.entry(func)?.clone();
    let env = e.val(od.operands[0])?;
    let envp = e.assign(&format!("llvm.inttoptr {env} : i64 to !llvm.ptr"));
    let mut out = Vec::new();
    for (&v, (slot, t)) in od.results.iter().zip(&entry.outputs) {
        let addr = load_slot(e, &envp, *slot);
        let mut sizes = Vec::new();
        let mut dynamic = Vec::new();
        for i in 0..t.rank() {
            match t.dims[i] {
                Dim::Static(n) => sizes.push(e.constant(&n.to_string(), "i64")),
                Dim::Sym(_) => {
                    let s = load_slot(e, &envp, slot + 1 + i);
                    dynamic.push(e.assign(&format!("arith.index_cast {s} : i64 to index")));
                    sizes.push(s);
                }
            }
        }
        let m = types::memref(t);
        let own = e.assign(&format!("memref.alloc({}) : {m}", dynamic.join(", ")));
        let zero = e.constant("0", "i64");
        let ran = e.cmpi("ne", &addr, &zero, "i64");
        e.line(&format!("scf.if {ran} {{"));
        e.enter();
        let src = view(e, &addr, &sizes, t);
        e.line(&format!("memref.copy {src}, {own} : {m} to {m}"));
        let p = e.assign(&format!("llvm.inttoptr {addr} : i64 to !llvm.ptr"));
        e.line(&format!("llvm.call @free({p}) : (!llvm.ptr) -> ()"));
        e.leave();
        e.line("} else {");
        e.enter();
        let el = types::elem(t.dtype);
        let z = e.constant(&zero_lit(t.dtype), el);
        e.line(&format!("linalg.fill ins({z} : {el}) outs({own} : {m})"));
        e.leave();
        e.line("}");
        let tensor = e.assign(&format!(
            "bufferization.to_tensor {own} restrict writable : {m} to {}",
            types::tensor(t)
        ));
        out.push(e.conform(&tensor, e.ty(v))?);
    }
    Ok(out)
}

/// The zero literal of a dtype.
fn zero_lit(dtype: DType) -> String {
    if dtype.is_float() {
        types::scalar_lit(dtype, 0.0)
    } else {
        types::int_lit(dtype, 0)
    }
}

/// Bytes per element as stored in memory (`bool`: one byte).
fn elem_bytes(dtype: DType) -> i64 {
    match dtype {
        DType::Bool => 1,
        DType::I32 | DType::F32 => 4,
        DType::I64 | DType::F64 => 8,
    }
}

/// The entry `@<K>__k(env, args..) -> results` of one continuation function.
fn emit_entry(c: &ContEntry) -> String {
    let dummy = agc_ir::Function::new("", &[], agc_ir::Span::UNKNOWN);
    let mut e = FnEmitter::new(&dummy);
    let (arg_tys, res_tys) = signature(&c.args, &c.results);
    let envp = e.assign("llvm.inttoptr %env : i64 to !llvm.ptr");
    let mut operands = Vec::new();
    let mut operand_tys = Vec::new();
    for cap in &c.captures {
        match cap {
            Capture::Cont { slot } => {
                operands.push(load_slot(&mut e, &envp, *slot));
                operand_tys.push("i64".to_string());
            }
            Capture::Tensor { slot, ty } => {
                let addr = load_slot(&mut e, &envp, *slot);
                let sizes: Vec<String> = (0..ty.rank())
                    .map(|i| load_slot(&mut e, &envp, slot + 1 + i))
                    .collect();
                operands.push(view(&mut e, &addr, &sizes, ty));
                operand_tys.push(types::memref(ty));
            }
        }
    }
    for (i, t) in arg_tys.iter().enumerate() {
        operands.push(format!("%a{i}"));
        operand_tys.push(t.clone());
    }
    let mut all_res = res_tys.clone();
    all_res.extend(c.outputs.iter().map(|(_, t)| types::memref(t)));
    let r = e.fresh("r");
    let (lhs, names) = results(&r, all_res.len());
    e.line(&format!(
        "{lhs}func.call @{}{BUFFER_CALL_SUFFIX}({}) : ({}) -> ({})",
        c.target,
        operands.join(", "),
        operand_tys.join(", "),
        all_res.join(", ")
    ));
    for ((slot, t), out) in c.outputs.iter().zip(&names[c.results.len()..]) {
        let m = types::memref(t);
        let sizes = sizes_i64(&mut e, t, |e, i| {
            let ci = e.index_const(i as i64);
            e.assign(&format!("memref.dim {out}, {ci} : {m}"))
        });
        let mut bytes = e.constant(&elem_bytes(t.dtype).to_string(), "i64");
        for s in &sizes {
            bytes = e.assign(&format!("arith.muli {bytes}, {s} : i64"));
        }
        let raw = e.assign(&format!("llvm.call @malloc({bytes}) : (i64) -> !llvm.ptr"));
        let addr = e.assign(&format!("llvm.ptrtoint {raw} : !llvm.ptr to i64"));
        let dst = view(&mut e, &addr, &sizes, t);
        e.line(&format!("memref.copy {out}, {dst} : {m} to {m}"));
        store_slot(&mut e, &envp, *slot, &addr);
        for (i, s) in sizes.iter().enumerate() {
            store_slot(&mut e, &envp, slot + 1 + i, s);
        }
    }
    let ret = &names[..c.results.len()];
    if ret.is_empty() {
        e.line("func.return");
    } else {
        e.line(&format!(
            "func.return {} : {}",
            ret.join(", "),
            res_tys.join(", ")
        ));
    }
    let params: Vec<String> = std::iter::once("%env: i64".to_string())
        .chain(
            arg_tys
                .iter()
                .enumerate()
                .map(|(i, t)| format!("%a{i}: {t}")),
        )
        .collect();
    format!(
        "  func.func @{}({}) -> ({}) {{\n{}  }}\n",
        c.symbol,
        params.join(", "),
        res_tys.join(", "),
        e.finish()
    )
}
