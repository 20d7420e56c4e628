//! Rank-0 tensors as scalars where the emitter can: a loop counter, a sum
//! compared in an `if`, a flag carried by a `while`.
//!
//! The IR's scalars are rank-0 tensors, and as `tensor<i64>` values every
//! one of them became a heap buffer after bufferization: an `if` that adds 1
//! to a counter allocated, stored, loaded and freed a block per branch, and
//! 1,000 unrolled such `if`s took minutes of LLVM time (fuzz finding O4).
//! Here elementwise ops on rank-0 values compute with `arith` on the element
//! directly, `scf.if`/`scf.while`/`scf.for` carry rank-0 values as their
//! element type, and a rank-0 input of an elementwise loop is read once
//! before it. Where a tensor is still needed (a call, a result) the scalar
//! is wrapped with `tensor.from_elements`; the emitter remembers each
//! wrapper's scalar, and MLIR folds the `tensor.extract`s of wrappers and
//! drops the unused ones.

use super::emitter::FnEmitter;
use super::types;
use agc_ir::TensorType;

/// The element of rank-0 tensor `t` (of type `ty`) as a scalar: the scalar
/// it was made from, else a `tensor.extract`.
pub(super) fn element(e: &mut FnEmitter, t: &str, ty: &TensorType) -> String {
    if let Some(s) = e.rank0_elements.get(t) {
        return s.clone();
    }
    e.assign(&format!("tensor.extract {t}[] : {}", types::tensor(ty)))
}

/// Scalar `s` as a rank-0 tensor of type `ty`, remembered as its element.
pub(super) fn wrap(e: &mut FnEmitter, s: &str, ty: &TensorType) -> String {
    let t = e.assign(&format!("tensor.from_elements {s} : {}", types::tensor(ty)));
    e.rank0_elements.insert(t.clone(), s.to_string());
    t
}

/// The MLIR type control flow carries a value of type `ty` as: its element
/// type at rank 0, else the tensor type.
pub(super) fn carried_type(ty: &TensorType) -> String {
    if ty.rank() == 0 {
        types::elem(ty.dtype).to_string()
    } else {
        types::tensor(ty)
    }
}

/// Value `t` of type `ty` as control flow carries it ([`carried_type`]).
pub(super) fn to_carried(e: &mut FnEmitter, t: String, ty: &TensorType) -> String {
    if ty.rank() == 0 {
        element(e, &t, ty)
    } else {
        t
    }
}

/// A carried value `c` of type `ty` as the tensor the emitter binds.
pub(super) fn from_carried(e: &mut FnEmitter, c: String, ty: &TensorType) -> String {
    if ty.rank() == 0 {
        wrap(e, &c, ty)
    } else {
        c
    }
}

#[cfg(test)]
mod tests {
    use crate::mlir::function::emit_function;

    /// `n = 0; if sum(x[0]) > 0: n += 1; if sum(x[1]) > 0: n += 1` as the
    /// stager writes it (fuzz finding O4's model, two rows).
    const COUNT_POSITIVE: &str = "module @m {
  export @f = f
func @f(%0: f32[2,3]) -> (i64[]) {
  %1 = slice %0 {0:1:1, ::1} : f32[1,3]
  %2 = reshape %1 : f32[3]
  %3 = reduce.sum %2 {axes=[0], keepdims=false} : f32[]
  %4 = const {[0]} : f32[]
  %5 = cmp.gt %3, %4 : bool[]
  %8 = if %5 : i64[]
    ^() {
      %6 = const {[1]} : i64[]
      yield %6
    }
    ^() {
      %7 = const {[0]} : i64[]
      yield %7
    }
  %9 = slice %0 {1:2:1, ::1} : f32[1,3]
  %10 = reshape %9 : f32[3]
  %11 = reduce.sum %10 {axes=[0], keepdims=false} : f32[]
  %12 = cmp.gt %11, %4 : bool[]
  %15 = if %12 : i64[]
    ^() {
      %13 = const {[1]} : i64[]
      %14 = add %8, %13 : i64[]
      yield %14
    }
    ^() {
      yield %8
    }
  return %15
}
}";

    #[test]
    fn scalar_control_flow_carries_elements_not_tensors() {
        let m = agc_ir::parse::parse_module(COUNT_POSITIVE).unwrap();
        let text = emit_function(&m.funcs[0]).unwrap();
        assert_eq!(text.matches("scf.if").count(), 2, "{text}");
        let ifs = text.lines().filter(|l| l.contains("scf.if"));
        assert!(ifs.clone().all(|l| l.ends_with("-> (i64) {")), "{text}");
        // The counter's increment is a scalar add, not a loop over a tensor<i64>.
        assert!(text.contains("arith.addi"), "{text}");
        let rank0_loops = text
            .lines()
            .filter(|l| l.contains("linalg.generic") && l.contains(": tensor<i64>)"));
        assert_eq!(rank0_loops.count(), 0, "{text}");
    }
}
