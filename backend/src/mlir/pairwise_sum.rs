//! Float sums over a tensor's trailing axes, in numpy's pairwise order.
//!
//! numpy sums a contiguous run of elements (a full reduction, or the last
//! axes of a row-major array) pairwise (`runtime/src/pairwise.rs` has the
//! order); elsewhere (leading or middle axes) it adds in order, which
//! `reduce`'s `linalg.generic` does too. Matching its order bit for bit
//! keeps every later comparison of a sum or a mean with other values
//! (`x < np.mean(x)`) deciding as numpy's does.
//!
//! The operand is flattened, a row of `n` elements per output element, and
//! one call of the runtime's `agc_rt_pairwise_rows_<dtype>` writes every
//! row's sum into the flattened output (on the runtime's threads when there
//! are many; a call per element cost more than the sum of a short row).

use super::emitter::FnEmitter;
use super::{layout, types};
use crate::BackendError;
use agc_ir::{DType, Dim, ReduceKind, TensorType};

/// The runtime's pairwise sum of `dtype` (`runtime/src/pairwise.rs`).
fn runtime_symbol(dtype: DType) -> Option<&'static str> {
    match dtype {
        DType::F32 => Some("agc_rt_pairwise_rows_f32"),
        DType::F64 => Some("agc_rt_pairwise_rows_f64"),
        _ => None,
    }
}

/// The declarations of the runtime's pairwise sums, for the module header.
pub const RUNTIME_DECLS: &str =
    "  func.func private @agc_rt_pairwise_rows_f32(memref<?xf32>, index, memref<?xf32>)
  func.func private @agc_rt_pairwise_rows_f64(memref<?xf64>, index, memref<?xf64>)
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
    let sizes = e.dim_sizes(in_ty)?;
    let flat = layout::flatten(e, x, in_ty);
    let out_sizes = e.dim_sizes(out_ty)?;
    let out_flat_ty = layout::flat_type(out_ty);
    let out_flat = types::tensor(&out_flat_ty);
    // Pinned: the operand is read where the sum is (see `FnEmitter::pinned`).
    let sum = e.pinned(std::slice::from_ref(&out_flat), |e| {
        let id = e.read_id();
        let flat_ty = layout::flat_type(in_ty);
        let (flat_mem, dyn_mem) = (types::memref(&flat_ty), format!("memref<?x{elem}>"));
        let m = e.read_buffer(&flat, &id, &types::tensor(&flat_ty), &flat_mem);
        let m = e.cast_memref(&m, &flat_mem, &dyn_mem);
        let one = e.index_const(1);
        let n = axes.iter().fold(one.clone(), |acc, &a| {
            e.arith("muli", &acc, &sizes[a], "index")
        });
        let out_mem = types::memref(&out_flat_ty);
        let out = if out_flat_ty.static_numel().is_some() {
            e.assign(&format!("memref.alloc() : {out_mem}"))
        } else {
            let rows = out_sizes
                .iter()
                .fold(one, |acc, s| e.arith("muli", &acc, s, "index"));
            e.assign(&format!("memref.alloc({rows}) : {out_mem}"))
        };
        let out_dyn = e.cast_memref(&out, &out_mem, &dyn_mem);
        e.line(&format!(
            "func.call @{symbol}({m}, {n}, {out_dyn}) : ({dyn_mem}, index, {dyn_mem}) -> ()"
        ));
        Ok(vec![e.assign(&format!(
            "bufferization.to_tensor {out} restrict writable : {out_mem} to {out_flat}"
        ))])
    })?;
    let sum = sum.into_iter().next().unwrap_or_default();
    layout::unflatten(e, &sum, &out_flat, out_ty)
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
