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

use super::emitter::FnEmitter;
use super::types;
use agc_ir::{Dim, Module, OpData, OpKind, TensorType};

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
    let view = match e.weights {
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

/// The module-level declarations the weights some function reads need.
pub fn declarations(m: &Module, placement: Placement) -> String {
    let used = used(m);
    match placement {
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
