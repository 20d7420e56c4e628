//! Weights (`agc.weights`), read through `bufferization.to_tensor restrict`
//! (not writable: bufferization copies before any in-place write).
//!
//! - [`Placement::Embedded`]: each used tensor is an external
//!   `memref.global @agc_weight_<k>` whose data the host module defines
//!   ([`crate::llvm::weights`]).
//! - [`Placement::External`]: the data is in a file the library maps when a
//!   context is created; the entry point points the thread-local
//!   `@agc_weights_tls` at the context's table of weight addresses, and a
//!   weight is a memref descriptor built on `table[k]`.
//!
//! A weight (or its transpose) that is the B operand of a blocked GEMM is
//! packed once, not per call ([`PackedWeight`]): at build time into
//! `@agc_weight_<k>_packed[_t]` when embedded, at context creation into
//! `table[nweights + j]` when external.

use super::emitter::FnEmitter;
use super::types;
use agc_ir::{DType, Dim, Function, Module, OpData, OpKind, TensorType, Value, ValueDef};
use std::cell::RefCell;

/// A weight read as the B operand of a blocked GEMM, packed once into the
/// runtime's column panels `[ceil(N/NR)][K][NR]`: B is weight `weight`
/// (`[K, N]`), or its transpose when `transposed` (the weight is `[N, K]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackedWeight {
    /// The weight's index in the module.
    pub weight: u32,
    /// B is the weight's transpose.
    pub transposed: bool,
}

/// How a module's functions read weights: where they are, and the packed
/// forms the emitted code asked for (in the order of their table slots).
#[derive(Debug, Default)]
pub struct WeightUse {
    /// Where the weights are.
    pub placement: Placement,
    /// The module's number of weights (the first packed table slot).
    pub nweights: usize,
    /// `--fast-math` (see [`super::EmitOptions`]): kept here, with the
    /// other module-wide facts every function's emitter shares.
    pub fast_math: bool,
    /// Code for a GPU target (`--target cuda`): products as kernels
    /// ([`super::contraction`]), no libdevice-only math ([`super::scalar`]).
    pub gpu: bool,
    /// float32 `exp`, `log` and `tanh` as calls of out-of-line functions
    /// ([`super::approx`]): the module has more of them than are inlined.
    pub approx_calls: bool,
    /// The packed weights the code reads.
    pub packed: RefCell<Vec<PackedWeight>>,
}

/// The weight (and whether transposed) a matmul's B operand `b` reads, if
/// it is a 2-D `f32` weight or the transpose of one.
pub fn packed_operand(f: &Function, b: Value) -> Option<PackedWeight> {
    let def = |v: Value| match f.value(v).def {
        ValueDef::Result { op, .. } => Some(f.op(op)),
        _ => None,
    };
    let od = def(b)?;
    let (od, transposed) = match &od.kind {
        OpKind::Transpose { perm } if perm[..] == [1, 0] => (def(od.operands[0])?, true),
        _ => (od, false),
    };
    let OpKind::Weight(weight) = od.kind else {
        return None;
    };
    let ty = f.ty(od.results[0]).tensor();
    (ty.dtype == DType::F32 && ty.rank() == 2).then_some(PackedWeight { weight, transposed })
}

/// The symbol of an embedded packed weight.
pub fn packed_symbol(p: PackedWeight) -> String {
    format!(
        "agc_weight_{}_packed{}",
        p.weight,
        if p.transposed { "_t" } else { "" }
    )
}

/// The type `[ceil(N/nr), K, nr]` of the panels of a `[K, N]` B.
pub fn panels_type(k: i64, n: i64, nr: i64) -> TensorType {
    TensorType::new(
        DType::F32,
        vec![
            Dim::Static((n + nr - 1) / nr),
            Dim::Static(k),
            Dim::Static(nr),
        ],
    )
}

/// The panels' type of packed weight `p` of a module with weights `weights`.
pub fn packed_type(weights: &[agc_ir::WeightDecl], p: PackedWeight, nr: i64) -> TensorType {
    let dims = static_shape(&weights[p.weight as usize].ty);
    let (k, n) = if p.transposed {
        (dims[1], dims[0])
    } else {
        (dims[0], dims[1])
    };
    panels_type(k, n, nr)
}

/// The packed panels of `p` as a `tensor<?x?x{nr}xf32>`, given their static type.
pub fn packed_view(e: &mut FnEmitter, p: PackedWeight, ty: &TensorType) -> String {
    let slot = {
        let mut packed = e.weights.packed.borrow_mut();
        let j = packed.iter().position(|q| *q == p).unwrap_or_else(|| {
            packed.push(p);
            packed.len() - 1
        });
        e.weights.nweights + j
    };
    let m = types::memref(ty);
    let view = match e.weights.placement {
        Placement::Embedded => e.assign(&format!("memref.get_global @{} : {m}", packed_symbol(p))),
        Placement::External => external_view(e, ty, slot as u32),
    };
    let t = e.assign(&format!(
        "bufferization.to_tensor {view} restrict : {m} to {}",
        types::tensor(ty)
    ));
    let nr = ty.dims[2].as_static().unwrap_or(0);
    e.assign(&format!(
        "tensor.cast {t} : {} to tensor<?x?x{nr}xf32>",
        types::tensor(ty)
    ))
}

/// Where a library's weights live.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Placement {
    /// In the library's read-only data.
    #[default]
    Embedded,
    /// In `<NAME>.weights`, mapped at context creation.
    External,
}

/// The thread-local pointer to the current context's weight table.
pub const TLS_SYMBOL: &str = "agc_weights_tls";

/// The symbol of weight `k`'s embedded data.
pub fn symbol(k: u32) -> String {
    format!("agc_weight_{k}")
}

/// Lowers `weight index=k`; returns the result tensor.
pub fn weight(e: &mut FnEmitter, od: &OpData, k: u32) -> String {
    let ty = e.ty(od.results[0]);
    let (m, t) = (types::memref(ty), types::tensor(ty));
    let view = match e.weights.placement {
        Placement::Embedded => e.assign(&format!("memref.get_global @{} : {m}", symbol(k))),
        Placement::External => external_view(e, ty, k),
    };
    e.assign(&format!(
        "bufferization.to_tensor {view} restrict : {m} to {t}"
    ))
}

/// A memref of type `ty` over `table[k]` of the current weight table.
fn external_view(e: &mut FnEmitter, ty: &TensorType, k: u32) -> String {
    let rank = ty.dims.len();
    let desc = if rank == 0 {
        "!llvm.struct<(ptr, ptr, i64)>".to_string()
    } else {
        format!("!llvm.struct<(ptr, ptr, i64, array<{rank} x i64>, array<{rank} x i64>)>")
    };
    let tls = e.assign(&format!("llvm.mlir.addressof @{TLS_SYMBOL} : !llvm.ptr"));
    let slot = e.assign(&format!(
        "\"llvm.intr.threadlocal.address\"({tls}) : (!llvm.ptr) -> !llvm.ptr"
    ));
    let table = e.assign(&format!("llvm.load {slot} : !llvm.ptr -> !llvm.ptr"));
    let entry = e.assign(&format!(
        "llvm.getelementptr {table}[{k}] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr"
    ));
    let base = e.assign(&format!(
        "llvm.load {entry} invariant : !llvm.ptr -> !llvm.ptr"
    ));
    let mut d = e.assign(&format!("llvm.mlir.poison : {desc}"));
    d = e.assign(&format!("llvm.insertvalue {base}, {d}[0] : {desc}"));
    d = e.assign(&format!("llvm.insertvalue {base}, {d}[1] : {desc}"));
    let zero = e.assign("llvm.mlir.constant(0 : i64) : i64");
    d = e.assign(&format!("llvm.insertvalue {zero}, {d}[2] : {desc}"));
    let sizes: Vec<i64> = ty.dims.iter().map(|d| d.as_static().unwrap_or(0)).collect();
    let mut stride = 1i64;
    let mut strides = vec![0i64; rank];
    for i in (0..rank).rev() {
        strides[i] = stride;
        stride *= sizes[i];
    }
    for (field, values) in [(3, &sizes), (4, &strides)] {
        for (i, v) in values.iter().enumerate() {
            let c = e.assign(&format!("llvm.mlir.constant({v} : i64) : i64"));
            d = e.assign(&format!("llvm.insertvalue {c}, {d}[{field}, {i}] : {desc}"));
        }
    }
    e.assign(&format!(
        "builtin.unrealized_conversion_cast {d} : {desc} to {}",
        types::memref(ty)
    ))
}

/// Which weights of `m` some function reads.
pub fn used(m: &Module) -> Vec<bool> {
    let mut used = vec![false; m.weights.len()];
    for f in &m.funcs {
        for op in f.ops_within(f.body) {
            if let OpKind::Weight(k) = f.op(op).kind {
                used[k as usize] = true;
            }
        }
    }
    used
}

/// The module-level declarations the weights some function reads need
/// (after the functions were emitted: the packed weights they asked for).
pub fn declarations(m: &Module, uses: &WeightUse, nr: i64) -> String {
    let used = used(m);
    let packed: String = match uses.placement {
        Placement::Embedded => uses
            .packed
            .borrow()
            .iter()
            .map(|&p| {
                let ty = packed_type(&m.weights, p, nr);
                format!(
                    "  memref.global @{} : {}\n",
                    packed_symbol(p),
                    types::memref(&ty)
                )
            })
            .collect(),
        Placement::External => String::new(),
    };
    packed
        + &match uses.placement {
            Placement::External if used.contains(&true) => {
                format!("  llvm.mlir.global external thread_local @{TLS_SYMBOL}() {{addr_space = 0 : i32}} : !llvm.ptr\n")
            }
            Placement::External => String::new(),
            Placement::Embedded => m
                .weights
                .iter()
                .enumerate()
                .filter(|(k, _)| used[*k])
                .map(|(k, w)| {
                    format!(
                        "  memref.global @{} : {}\n",
                        symbol(k as u32),
                        types::memref(&w.ty)
                    )
                })
                .collect(),
        }
}

/// The static dims of a weight's type.
pub fn static_shape(ty: &TensorType) -> Vec<i64> {
    ty.dims.iter().filter_map(Dim::as_static).collect()
}
