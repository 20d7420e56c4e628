//! Continuations (the CPS form of reverse-mode AD) in MLIR, closure-converted.
//!
//! A continuation value is an `i64`: the address of its *environment
//! record*, an array of `i64` slots that `cont` allocates (`llvm.alloca`)
//! in the frame of the function making it. That frame outlives every
//! application (AD applies a continuation while the call it was passed to
//! is running), so captured buffers are referenced, not copied:
//!
//! ```text
//! slot 0           the address of the entry `@<K>__k` of the continuation's function K
//! per capture      a tensor: its buffer's address, then one size per dim;
//!                  a rank-0 tensor: its element (the entry passes a view of
//!                  the slot, so no buffer is made for it);
//!                  a continuation: its address
//! per output       the buffer K returned: allocated and aligned addresses
//!                  (0 until K ran), then one size per dim
//! ```
//!
//! Captured buffers stay alive because the deallocation pipeline frees a
//! buffer at the end of the block that owns it, which contains the call
//! the continuation is passed to; the continuation reads them through views
//! (`bufferization.to_tensor restrict`, not writable), so it writes none of
//! them. Nor does the function making it, until the continuation is no
//! longer applied: bufferization sees only SSA reads, so [`keep_captures`]
//! reads every capture again after the last op that may apply it
//! (`capture_lifetime`), and no result is written into a captured buffer
//! before that.
//!
//! - `cont`: fills the record; the result is its address.
//! - `apply`: calls the *entry* `@<K>__k(env, args..) -> results` whose
//!   address is in slot 0 (an indirect call). The entry rebuilds the
//!   captures from the record (memref views), calls `K` through `@<K>__r`,
//!   a declaration whose output results are descriptor structs rather than
//!   memrefs (bound to `K` in LLVM IR, like `@<K>__m`), so the buffers K
//!   returns are not freed there: their addresses and sizes go into the
//!   record, and K's results are returned.
//! - `cont_outputs`: takes ownership of each output buffer through a call of
//!   `@agc_cell_<n>__m(slot address) -> memref` (an `llvm.func` that
//!   rebuilds the descriptor, bound like the calls): a call's result is
//!   owned by the caller, so the deallocation pipeline frees it. No copy.
//!   Where the continuation never ran (its body was skipped after a
//!   run-time error) the cell is empty and the buffer is zeros from the
//!   runtime's allocator (`agc_rt_zeros`: the buffer is freed through it).

use super::control::BUFFER_CALL_SUFFIX;
use super::emitter::FnEmitter;
use super::types;
use crate::BackendError;
use agc_ir::{DType, Dim, FuncId, Module, OpData, OpKind, TensorType, Type};
use std::collections::BTreeMap;

/// The suffix of a continuation function's entry (`@agc_impl_f_k__k`).
pub const ENTRY_SUFFIX: &str = "__k";

/// The suffix of the declaration through which an entry calls a
/// continuation function with its outputs as descriptor structs.
pub const RAW_CALL_SUFFIX: &str = "__r";

/// Declarations the continuation code calls (the runtime's zeroed allocation).
const ALLOCATOR_DECLS: &str = "  llvm.func @agc_rt_zeros(i64, i64) -> !llvm.ptr\n";

/// Where a captured value sits in an environment record.
#[derive(Clone, Debug)]
enum Capture {
    /// A tensor: the address at `slot`, its sizes after it.
    Tensor { slot: usize, ty: TensorType },
    /// A rank-0 tensor: its element at `slot`.
    Scalar { slot: usize, ty: TensorType },
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

/// The continuation functions of a module, by function, and the memref
/// types of their outputs (one cell reader per type).
#[derive(Clone, Debug, Default)]
pub struct ContTable {
    entries: BTreeMap<FuncId, ContEntry>,
    cells: Vec<TensorType>,
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
        let mut cells: Vec<TensorType> = Vec::new();
        for entry in entries.values() {
            for (_, t) in &entry.outputs {
                if !cells.iter().any(|c| types::memref(c) == types::memref(t)) {
                    cells.push(t.clone());
                }
            }
        }
        ContTable { entries, cells }
    }

    /// The symbol of the reader of cells holding buffers of type `t`.
    fn cell_reader(&self, t: &TensorType) -> String {
        let i = self
            .cells
            .iter()
            .position(|c| types::memref(c) == types::memref(t))
            .expect("every output type has a reader");
        format!("agc_cell_{i}")
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

    /// Every entry function, the raw call declarations, the cell readers
    /// and the allocator declaration, as MLIR text.
    pub fn emit(&self, m: &Module) -> String {
        let mut out: String = self.entries.values().map(emit_entry).collect();
        for c in self.entries.values() {
            out.push_str(&raw_call_decl(c, m.func(c.func)));
        }
        for (i, t) in self.cells.iter().enumerate() {
            out.push_str(&cell_reader(i, t));
        }
        out.push_str(ALLOCATOR_DECLS);
        out
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
            Type::Tensor(t) if t.rank() == 0 => {
                captures.push(Capture::Scalar {
                    slot,
                    ty: t.clone(),
                });
                slot += 1;
            }
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
        slot += 2 + t.rank();
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
    let fn_ty = entry_type(&signature(&entry.args, &entry.results));
    let code = e.assign(&format!("func.constant @{} : {fn_ty}", entry.symbol));
    let code = e.assign(&format!(
        "builtin.unrealized_conversion_cast {code} : {fn_ty} to !llvm.ptr"
    ));
    let code = e.assign(&format!("llvm.ptrtoint {code} : !llvm.ptr to i64"));
    store_slot(e, &env, 0, &code);
    for (c, &v) in entry.captures.iter().zip(&od.operands) {
        let x = e.val(v)?;
        match c {
            Capture::Cont { slot } => store_slot(e, &env, *slot, &x),
            Capture::Scalar { slot, ty } => {
                let element = super::rank0::element(e, &x, ty);
                let p = slot_ptr(e, &env, *slot);
                e.line(&format!(
                    "llvm.store {element}, {p} : {}, !llvm.ptr",
                    types::elem(ty.dtype)
                ));
            }
            Capture::Tensor { slot, .. } => {
                let ty = e.ty(v);
                let a = buffer_address(e, v)?;
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
        for i in 0..t.rank() + 2 {
            store_slot(e, &env, slot + i, &zero);
        }
    }
    Ok(vec![e.assign(&format!(
        "llvm.ptrtoint {env} : !llvm.ptr to i64"
    ))])
}

/// Reads again the tensors the `cont` op `od` captured, right after the
/// last op that may apply it (`capture_lifetime`): each buffer's address is
/// stored again into its slot (the record still holds it there). The read
/// keeps bufferization from reusing a captured buffer for a result written
/// before it; its unique attribute keeps CSE from merging it with the
/// `cont`'s own read.
pub fn keep_captures(e: &mut FnEmitter, od: &OpData) -> Result<(), BackendError> {
    let OpKind::MakeCont { func } = od.kind else {
        unreachable!("cont")
    };
    let entry = e.conts.entry(func)?.clone();
    let k = e.val(od.results[0])?;
    let env = e.assign(&format!("llvm.inttoptr {k} : i64 to !llvm.ptr"));
    for (c, &v) in entry.captures.iter().zip(&od.operands) {
        if let Capture::Tensor { slot, .. } = c {
            let a = buffer_address(e, v)?;
            store_slot(e, &env, *slot, &a);
        }
    }
    Ok(())
}

/// The address (`i64`) of the first element of tensor `v`, read here
/// (pinned: see `FnEmitter::pinned`). A static shape is read at any offset
/// (a parameter or an indexed view: `types::param_memref`, contiguous), so
/// that the address is of the tensor itself and not of a copy that dies
/// before the continuation runs.
fn buffer_address(e: &mut FnEmitter, v: agc_ir::Value) -> Result<String, BackendError> {
    let (x, ty) = (e.val(v)?, e.ty(v));
    let address = e.pinned(&["i64".to_string()], |e| {
        let id = e.read_id();
        let mt = types::param_memref(ty);
        let m = e.read_param(&x, &id, ty, &mt);
        let p = e.assign(&format!(
            "memref.extract_aligned_pointer_as_index {m} : {mt} -> index"
        ));
        let meta = e.fresh("meta");
        let index_tys = vec!["index"; 1 + 2 * ty.rank()];
        e.line(&format!(
            "{meta}:{} = memref.extract_strided_metadata {m} : {mt} -> memref<{}>, {}",
            2 + 2 * ty.rank(),
            types::elem(ty.dtype),
            index_tys.join(", ")
        ));
        let bytes = e.index_const(elem_bytes(ty.dtype));
        let skip = e.arith("muli", &format!("{meta}#1"), &bytes, "index");
        let first = e.arith("addi", &p, &skip, "index");
        Ok(vec![e.assign(&format!(
            "arith.index_cast {first} : index to i64"
        ))])
    })?;
    Ok(address.into_iter().next().unwrap_or_default())
}

/// Lowers `apply`: an indirect call of the entry whose address the record
/// holds in slot 0. One call site per `apply` (a chain of direct calls gave
/// every candidate its own stack slot for the results, and a recursion's
/// frames grew with the number of continuation functions).
pub fn apply(e: &mut FnEmitter, od: &OpData) -> Result<Vec<String>, BackendError> {
    let k = e.f.ty(od.operands[0]).as_cont().expect("verified").clone();
    let sig = signature(&k.args, &k.results);
    let env = e.val(od.operands[0])?;
    let tys: Vec<String> = k.results.iter().map(types::tensor).collect();
    let reachable = e
        .conts
        .entries
        .values()
        .any(|c| signature(&c.args, &c.results) == sig);
    // Pinned: the arguments are read where the continuation is applied (see
    // `FnEmitter::pinned`).
    let results = e.pinned(&tys, |e| {
        if !reachable {
            // No continuation of this signature exists: nothing can be applied.
            return e.placeholders(&k.results.iter().collect::<Vec<_>>());
        }
        let envp = e.assign(&format!("llvm.inttoptr {env} : i64 to !llvm.ptr"));
        let code = e.assign(&format!("llvm.load {envp} : !llvm.ptr -> !llvm.ptr"));
        let fn_ty = entry_type(&sig);
        let callee = e.assign(&format!(
            "builtin.unrealized_conversion_cast {code} : !llvm.ptr to {fn_ty}"
        ));
        let id = e.read_id();
        let mut operands = vec![env.to_string()];
        for &v in &od.operands[1..] {
            let (t, ty) = (e.val(v)?, e.ty(v));
            operands.push(e.read_buffer(&t, &id, &types::tensor(ty), &types::memref(ty)));
        }
        let c = e.fresh("k");
        let (clhs, cnames) = super::control::results(&c, tys.len());
        e.line(&format!(
            "{clhs}func.call_indirect {callee}({}) : {fn_ty}",
            operands.join(", ")
        ));
        Ok(cnames
            .iter()
            .zip(&sig.1)
            .zip(&tys)
            .map(|((name, m), t)| {
                e.assign(&format!(
                    "bufferization.to_tensor {name} restrict writable : {m} to {t}"
                ))
            })
            .collect())
    })?;
    od.results
        .iter()
        .zip(results)
        .map(|(&v, t)| e.conform(&t, e.ty(v)))
        .collect()
}

/// The MLIR function type of the entries of continuations of signature
/// `sig`: the record's address, then the arguments.
fn entry_type(sig: &(Vec<String>, Vec<String>)) -> String {
    let mut args = vec!["i64".to_string()];
    args.extend(sig.0.iter().cloned());
    format!("({}) -> ({})", args.join(", "), sig.1.join(", "))
}

/// Lowers `cont_outputs`: takes ownership of each output buffer the
/// continuation left in its record (zeros where it never ran).
pub fn outputs(e: &mut FnEmitter, od: &OpData) -> Result<Vec<String>, BackendError> {
    let Some(OpKind::MakeCont { func }) = e.f.def_op(od.operands[0]).map(|d| d.kind.clone()) else {
        return Err(BackendError::Mlir(
            "cont_outputs of a continuation made elsewhere".into(),
        ));
    };
    let entry = e.conts.entry(func)?.clone();
    let env = e.val(od.operands[0])?;
    let mut out = Vec::new();
    for (&v, (slot, t)) in od.results.iter().zip(&entry.outputs) {
        let offset = e.constant(&(8 * slot).to_string(), "i64");
        let cell = e.arith("addi", &env, &offset, "i64");
        let m = types::memref(t);
        let reader = e.conts.cell_reader(t);
        let owned = e.assign(&format!(
            "func.call @{reader}{BUFFER_CALL_SUFFIX}({cell}) : (i64) -> {m}"
        ));
        let tensor = e.assign(&format!(
            "bufferization.to_tensor {owned} restrict writable : {m} to {}",
            types::tensor(t)
        ));
        out.push(e.conform(&tensor, e.ty(v))?);
    }
    Ok(out)
}

/// The descriptor struct type of a memref of rank `r`.
fn descriptor(r: usize) -> String {
    if r == 0 {
        "!llvm.struct<(ptr, ptr, i64)>".to_string()
    } else {
        format!("!llvm.struct<(ptr, ptr, i64, array<{r} x i64>, array<{r} x i64>)>")
    }
}

/// `llvm.func @agc_cell_<i>(cell address) -> descriptor` for buffers of
/// type `t`, and its declaration `@agc_cell_<i>__m` returning the memref:
/// rebuilds the descriptor of the buffer a continuation left in the cell,
/// or allocates zeros of the recorded sizes (`agc_rt_zeros`) when the cell
/// is empty.
fn cell_reader(i: usize, t: &TensorType) -> String {
    let r = t.rank();
    let desc = descriptor(r);
    let mut b = String::new();
    let mut line = |s: String| {
        b.push_str("    ");
        b.push_str(&s);
        b.push('\n');
    };
    line("%p = llvm.inttoptr %cell : i64 to !llvm.ptr".into());
    line("%alloc = llvm.load %p : !llvm.ptr -> !llvm.ptr".into());
    line("%p1 = llvm.getelementptr %p[1] : (!llvm.ptr) -> !llvm.ptr, i64".into());
    line("%aligned = llvm.load %p1 : !llvm.ptr -> !llvm.ptr".into());
    line("%one = llvm.mlir.constant(1 : i64) : i64".into());
    let mut numel = "%one".to_string();
    for d in 0..r {
        match t.dims[d] {
            Dim::Static(n) => line(format!("%s{d} = llvm.mlir.constant({n} : i64) : i64")),
            Dim::Sym(_) => {
                line(format!(
                    "%q{d} = llvm.getelementptr %p[{}] : (!llvm.ptr) -> !llvm.ptr, i64",
                    2 + d
                ));
                line(format!("%s{d} = llvm.load %q{d} : !llvm.ptr -> i64"));
            }
        }
        line(format!("%n{d} = llvm.mul {numel}, %s{d} : i64"));
        numel = format!("%n{d}");
    }
    line(format!(
        "%bytes = llvm.mlir.constant({} : i64) : i64",
        elem_bytes(t.dtype)
    ));
    line("%null = llvm.mlir.zero : !llvm.ptr".into());
    line("%empty = llvm.icmp \"eq\" %alloc, %null : !llvm.ptr".into());
    line("llvm.cond_br %empty, ^zeros, ^have(%alloc, %aligned : !llvm.ptr, !llvm.ptr)".into());
    b.push_str("  ^zeros:\n");
    let mut line = |s: String| {
        b.push_str("    ");
        b.push_str(&s);
        b.push('\n');
    };
    line(format!(
        "%z = llvm.call @agc_rt_zeros({numel}, %bytes) : (i64, i64) -> !llvm.ptr"
    ));
    line("llvm.br ^have(%z, %z : !llvm.ptr, !llvm.ptr)".into());
    b.push_str("  ^have(%a: !llvm.ptr, %g: !llvm.ptr):\n");
    let mut line = |s: String| {
        b.push_str("    ");
        b.push_str(&s);
        b.push('\n');
    };
    line("%zero = llvm.mlir.constant(0 : i64) : i64".into());
    line(format!("%d0 = llvm.mlir.poison : {desc}"));
    line(format!("%d1 = llvm.insertvalue %a, %d0[0] : {desc}"));
    line(format!("%d2 = llvm.insertvalue %g, %d1[1] : {desc}"));
    line(format!("%d3 = llvm.insertvalue %zero, %d2[2] : {desc}"));
    let mut d = "%d3".to_string();
    let mut stride = "%one".to_string();
    for k in (0..r).rev() {
        line(format!(
            "%e{k} = llvm.insertvalue %s{k}, {d}[3, {k}] : {desc}"
        ));
        line(format!(
            "%f{k} = llvm.insertvalue {stride}, %e{k}[4, {k}] : {desc}"
        ));
        d = format!("%f{k}");
        if k > 0 {
            line(format!("%t{k} = llvm.mul {stride}, %s{k} : i64"));
            stride = format!("%t{k}");
        }
    }
    line(format!("llvm.return {d} : {desc}"));
    format!(
        "  llvm.func @agc_cell_{i}(%cell: i64) -> {desc} {{\n{b}  }}\n  func.func private @agc_cell_{i}{BUFFER_CALL_SUFFIX}(i64) -> {}\n",
        types::memref(t)
    )
}

/// The declaration `@<K>__r` of a continuation function whose outputs are
/// descriptor structs (the same LLVM signature as `@<K>__m`).
fn raw_call_decl(c: &ContEntry, k: &agc_ir::Function) -> String {
    let args: Vec<String> = k
        .params()
        .iter()
        .map(|&p| types::value_memref(k.ty(p)))
        .collect();
    let mut results: Vec<String> = c.results.iter().map(types::memref).collect();
    results.extend(c.outputs.iter().map(|(_, t)| descriptor(t.rank())));
    format!(
        "  func.func private @{}{RAW_CALL_SUFFIX}({}) -> ({})\n",
        c.target,
        args.join(", "),
        results.join(", ")
    )
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
            Capture::Scalar { slot, ty } => {
                let p = slot_ptr(&mut e, &envp, *slot);
                let addr = e.assign(&format!("llvm.ptrtoint {p} : !llvm.ptr to i64"));
                operands.push(view(&mut e, &addr, &[], ty));
                operand_tys.push(types::memref(ty));
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
    all_res.extend(c.outputs.iter().map(|(_, t)| descriptor(t.rank())));
    let r = e.fresh("r");
    let (lhs, names) = super::control::results(&r, all_res.len());
    e.line(&format!(
        "{lhs}func.call @{}{RAW_CALL_SUFFIX}({}) : ({}) -> ({})",
        c.target,
        operands.join(", "),
        operand_tys.join(", "),
        all_res.join(", ")
    ));
    for ((slot, t), out) in c.outputs.iter().zip(&names[c.results.len()..]) {
        let desc = descriptor(t.rank());
        for (k, field) in ["0", "1"].iter().enumerate() {
            let p = e.assign(&format!("llvm.extractvalue {out}[{field}] : {desc}"));
            let a = e.assign(&format!("llvm.ptrtoint {p} : !llvm.ptr to i64"));
            store_slot(&mut e, &envp, slot + k, &a);
        }
        for i in 0..t.rank() {
            let s = e.assign(&format!("llvm.extractvalue {out}[3, {i}] : {desc}"));
            store_slot(&mut e, &envp, slot + 2 + i, &s);
        }
    }
    e.func_return(&names[..c.results.len()], &res_tys);
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
