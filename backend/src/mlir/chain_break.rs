//! Breaks chains of nested control flow for one-shot bufferization.
//!
//! One-shot bufferization rewrites ops top-down, so an `scf.if`/`scf.for`/
//! `scf.while` nested in a loop body or a branch is still on tensors when
//! the op around it asks for its result's buffer type. That query recurses
//! through both branches of an `if` and through both the init and the
//! yield of a loop, with no memo: a body holding a chain of `k` such ops
//! threading one tensor (a list appended to by `k` inner loops) costs about
//! `3^k` (fuzz finding F21: 14 chained loops took 18 s, 16 took 164 s).
//!
//! In a function with more than [`MAX_THREADING_OPS`] loops and `if`s in
//! loop bodies ([`broken_chains`]), each of their tensor results goes
//! through a *chain break*:
//! `to_buffer` (a read and a write of the tensor, so the analysis copies it
//! first if anything reads it later), an identity `memref.reinterpret_cast`
//! (which canonicalisation does not fold, unlike `to_tensor(to_buffer(t))`)
//! and `to_tensor restrict writable`, whose buffer type is known without
//! recursion. After bufferization the three ops are the same buffer: the
//! code is unchanged.

use super::emitter::FnEmitter;
use super::types;
use agc_ir::{Dim, Function, OpId, OpKind, TensorType};
use std::collections::HashSet;

/// Loops and `if`s in loop bodies with tensor results a function may hold
/// before their results get chain breaks (below it, at most about `3^8`
/// buffer type queries).
const MAX_THREADING_OPS: usize = 8;

/// The control ops of `f` whose tensor results get chain breaks: every
/// counted loop (an `scf.for`), and every `if` inside a loop's body, with a
/// result of rank ≥ 1, when `f` holds more than [`MAX_THREADING_OPS`] of them.
///
/// Those are where a list is threaded (a loop appending to it, and the `if`
/// that grows it at each append). An `if` outside loops is left alone: one
/// that may pass a function parameter through (`return x if ... else
/// f(x)`) would make the break's write copy the parameter (6 copies in
/// `tests/models/cf_if_in_helper.py` when all its `if`s were broken).
pub(super) fn broken_chains(f: &Function) -> HashSet<OpId> {
    let mut chained = HashSet::new();
    let mut stack = vec![(f.body, false)];
    while let Some((r, in_loop)) = stack.pop() {
        for &op in &f.region(r).ops {
            let od = f.op(op);
            let is_loop = od.kind == OpKind::While;
            // Not an `scf.while`'s results: its condition forwards the
            // state as the results, and a write of them after the loop
            // makes bufferization copy the state at every iteration.
            let counted = is_loop && super::counted_loop::counted(f, od).is_some();
            let threads = counted || (od.kind == OpKind::If && in_loop);
            if threads && od.results.iter().any(|&v| f.ty(v).tensor().rank() > 0) {
                chained.insert(op);
            }
            stack.extend(od.regions.iter().map(|&inner| (inner, in_loop || is_loop)));
        }
    }
    if chained.len() > MAX_THREADING_OPS {
        chained
    } else {
        HashSet::new()
    }
}

/// The tensor `t` of type `ty` through a chain break (see the module doc);
/// rank-0 values pass unchanged.
pub(super) fn break_chain(e: &mut FnEmitter, t: String, ty: &TensorType) -> String {
    if ty.rank() == 0 {
        return t;
    }
    let (tensor_ty, memref_ty) = (types::tensor(ty), types::memref(ty));
    // The sizes are read from the tensor, not the buffer: a loop result
    // whose only use is the `to_buffer` would let the canonicalizer give
    // the loop a state type as static as its init's (an empty list's
    // `?x0`), which a list whose rows grow does not keep.
    let sizes: Vec<String> = ty
        .dims
        .iter()
        .enumerate()
        .map(|(axis, d)| match d {
            Dim::Static(n) => n.to_string(),
            Dim::Sym(_) => {
                let i = e.index_const(axis as i64);
                e.assign(&format!("tensor.dim {t}, {i} : {tensor_ty}"))
            }
        })
        .collect();
    let m = e.assign(&format!(
        "bufferization.to_buffer {t} : {tensor_ty} to {memref_ty}"
    ));
    // Row-major strides: each the product of the sizes after its axis.
    let mut strides = vec!["1".to_string(); sizes.len()];
    for axis in (0..sizes.len().saturating_sub(1)).rev() {
        let (stride, size) = (&strides[axis + 1], &sizes[axis + 1]);
        let literal = match (stride.parse::<i64>(), size.parse::<i64>()) {
            (Ok(a), Ok(b)) => a.checked_mul(b),
            _ => None,
        };
        strides[axis] = match literal {
            Some(n) => n.to_string(),
            None => {
                let (a, b) = (as_index(e, stride), as_index(e, size));
                e.arith("muli", &a, &b, "index")
            }
        };
    }
    let view = e.assign(&format!(
        "memref.reinterpret_cast {m} to offset: [0], sizes: [{}], strides: [{}] : {memref_ty} to {memref_ty}",
        sizes.join(", "),
        strides.join(", ")
    ));
    e.assign(&format!(
        "bufferization.to_tensor {view} restrict writable : {memref_ty} to {tensor_ty}"
    ))
}

/// An SSA `index` for a size or stride that is either a literal or one already.
fn as_index(e: &mut FnEmitter, s: &str) -> String {
    match s.parse::<i64>() {
        Ok(n) => e.index_const(n),
        Err(_) => s.to_string(),
    }
}
