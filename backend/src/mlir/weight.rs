//! Weights (`agc.weights`): each used tensor is an external
//! `memref.global @agc_weight_<k>` whose data the host module defines
//! ([`crate::llvm::weights`]), read through `bufferization.to_tensor
//! restrict` (not writable: bufferization copies before any in-place write).

use super::emitter::FnEmitter;
use super::types;
use agc_ir::{Module, OpData, OpKind};

/// The symbol of weight `k`'s data.
pub fn symbol(k: u32) -> String {
    format!("agc_weight_{k}")
}

/// Lowers `weight index=k`; returns the result tensor.
pub fn weight(e: &mut FnEmitter, od: &OpData, k: u32) -> String {
    let ty = e.ty(od.results[0]);
    let (m, t) = (types::memref(ty), types::tensor(ty));
    let g = e.assign(&format!("memref.get_global @{} : {m}", symbol(k)));
    e.assign(&format!(
        "bufferization.to_tensor {g} restrict : {m} to {t}"
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

/// The module-level declarations of the weights some function reads.
pub fn declarations(m: &Module) -> String {
    let used = used(m);
    m.weights
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
        .collect()
}
