//! Float sums over a tensor's trailing axes, in numpy's pairwise order.
//!
//! numpy sums a contiguous run of elements (a full reduction, or the last
//! axes of a row-major array) pairwise (`runtime/src/pairwise.rs` has the
//! order); elsewhere (leading or middle axes) it adds in order, which
//! `reduce`'s `linalg.generic` does too. Matching its order bit for bit
//! keeps every later comparison of a sum or a mean with other values
//! (`x < np.mean(x)`) deciding as numpy's does.
//!
//! The operand is flattened, a row of `n` elements per output element; each output
//! element is one call of the runtime's `agc_rt_pairwise_sum_<dtype>` on the
//! flattened operand as a rank-1 memref, in a loop nest over the output.

use super::emitter::FnEmitter;
use super::{layout, types};
use crate::BackendError;
use agc_ir::{DType, Dim, ReduceKind, TensorType};

/// The runtime's pairwise sum of `dtype` (`runtime/src/pairwise.rs`).
fn runtime_symbol(dtype: DType) -> Option<&'static str> {
    match dtype {
        DType::F32 => Some("agc_rt_pairwise_sum_f32"),
        DType::F64 => Some("agc_rt_pairwise_sum_f64"),
        _ => None,
    }
}

/// The declarations of the runtime's pairwise sums, for the module header.
pub const RUNTIME_DECLS: &str =
    "  func.func private @agc_rt_pairwise_sum_f32(memref<?xf32>, index, index) -> f32
  func.func private @agc_rt_pairwise_sum_f64(memref<?xf64>, index, index) -> f64
";

/// Below this many elements per output numpy adds in order, as the plain
/// reduction does.
const IN_ORDER_BELOW: i64 = 8;

/// Whether reducing `axes` of `ty` with `kind` is a float sum that numpy
/// computes pairwise: the reduced elements of each output are contiguous
/// (the axes are the trailing ones, once axes of size 1 are set aside, as
/// numpy's iterator drops them) and may be 8 or more.
pub fn applies(kind: ReduceKind, ty: &TensorType, axes: &[usize]) -> bool {
    let unit = |a: usize| ty.dims[a] == Dim::Static(1);
    let first_reduced = (0..ty.rank()).find(|&a| axes.contains(&a) && !unit(a));
    let contiguous =
        first_reduced.is_some_and(|f| (f..ty.rank()).all(|a| axes.contains(&a) || unit(a)));
    let count: Option<i64> = axes
        .iter()
        .map(|&a| ty.dims[a].as_static())
        .try_fold(1i64, |acc, d| d.map(|n| acc.saturating_mul(n)));
    kind == ReduceKind::Sum
        && runtime_symbol(ty.dtype).is_some()
        && contiguous
        && count.is_none_or(|n| n >= IN_ORDER_BELOW)
}

/// The sum of tensor `x` (type `in_ty`) over `axes` (where [`applies`]),
/// of type `out_ty` (the other axes, with ones for `axes` under `keepdims`).
pub fn emit(
    e: &mut FnEmitter,
    x: &str,
    in_ty: &TensorType,
    axes: &[usize],
    out_ty: &TensorType,
) -> Result<String, BackendError> {
    let symbol = runtime_symbol(in_ty.dtype)
        .ok_or_else(|| BackendError::Unsupported("pairwise sum of a non-float".into()))?;
    let elem = types::elem(in_ty.dtype);
    let rank = in_ty.rank();
    let sizes = e.dim_sizes(in_ty)?;
    let kept: Vec<usize> = (0..rank).filter(|a| !axes.contains(a)).collect();
    let keepdims = out_ty.rank() == rank;
    let flat = layout::flatten(e, x, in_ty);
    let out_sizes = e.dim_sizes(out_ty)?;
    let out_t = types::tensor(out_ty);
    // Pinned: the operand is read where the sum is (see `FnEmitter::pinned`).
    let sum = e.pinned(std::slice::from_ref(&out_t), |e| {
        let id = e.read_id();
        let flat_ty = layout::flat_type(in_ty);
        let (flat_mem, dyn_mem) = (types::memref(&flat_ty), format!("memref<?x{elem}>"));
        let m = e.read_buffer(&flat, &id, &types::tensor(&flat_ty), &flat_mem);
        let m = e.cast_memref(&m, &flat_mem, &dyn_mem);
        let one = e.index_const(1);
        let n = axes
            .iter()
            .fold(one, |acc, &a| e.arith("muli", &acc, &sizes[a], "index"));
        // Calls in a loop nest of `tensor.insert`s, not in a `linalg.generic`:
        // elementwise fusion would move a generic's calls into a consumer
        // that may overwrite the operand's buffer in place while they read it.
        let init = e.empty(out_ty)?;
        e.threaded_loop_nest(&out_sizes, &init, &out_t, |e, ivs, acc| {
            let zero = e.index_const(0);
            // The output element's row-major position among the kept axes.
            let row = kept.iter().enumerate().fold(zero, |r, (k, &a)| {
                let c = &ivs[if keepdims { a } else { k }];
                let scaled = e.arith("muli", &r, &sizes[a], "index");
                e.arith("addi", &scaled, c, "index")
            });
            let start = e.arith("muli", &row, &n, "index");
            let s = e.assign(&format!(
                "func.call @{symbol}({m}, {start}, {n}) : ({dyn_mem}, index, index) -> {elem}"
            ));
            Ok(e.assign(&format!(
                "tensor.insert {s} into {acc}[{}] : {out_t}",
                ivs.join(", ")
            )))
        })
        .map(|t| vec![t])
    })?;
    Ok(sum.into_iter().next().unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(dtype: DType, dims: &[Option<i64>]) -> TensorType {
        let dims = dims
            .iter()
            .map(|d| d.map_or_else(|| Dim::Sym("N".into()), Dim::Static))
            .collect();
        TensorType::new(dtype, dims)
    }

    #[test]
    fn numpy_sums_trailing_runs_pairwise_and_the_rest_in_order() {
        let t = ty(DType::F32, &[Some(4), Some(3), Some(5)]);
        assert!(applies(ReduceKind::Sum, &t, &[0, 1, 2]), "whole array");
        assert!(
            applies(ReduceKind::Sum, &t, &[1, 2]),
            "trailing pair, 15 elements"
        );
        assert!(!applies(ReduceKind::Sum, &t, &[2]), "5 elements: in order");
        assert!(
            !applies(ReduceKind::Sum, &t, &[0]),
            "leading axis: in order"
        );
        assert!(!applies(ReduceKind::Sum, &t, &[0, 2]), "not contiguous");
        assert!(!applies(ReduceKind::Max, &t, &[0, 1, 2]), "only sums");
        assert!(
            !applies(ReduceKind::Sum, &ty(DType::I64, &[Some(64)]), &[0]),
            "ints are exact"
        );
    }

    #[test]
    fn unit_axes_and_run_time_sizes() {
        // [300, 1] over axis 0: numpy's iterator drops the unit axis.
        assert!(applies(
            ReduceKind::Sum,
            &ty(DType::F64, &[Some(300), Some(1)]),
            &[0]
        ));
        assert!(
            applies(
                ReduceKind::Sum,
                &ty(DType::F64, &[Some(3), Some(1), Some(9)]),
                &[0, 2]
            ),
            "every axis but a unit one: the whole array"
        );
        assert!(
            applies(ReduceKind::Sum, &ty(DType::F64, &[Some(3), None]), &[1]),
            "may be 8 or more"
        );
        assert!(!applies(
            ReduceKind::Sum,
            &ty(DType::F64, &[None, Some(3)]),
            &[0]
        ));
    }
}
