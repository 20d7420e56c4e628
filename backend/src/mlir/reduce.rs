//! Reductions (`sum`, `prod`, `max`, `min` over a set of axes) and
//! `argmax`/`argmin` along one axis, as `linalg.generic` reductions.
//!
//! The loop nest is the operand's shape; the reduced loops are
//! `reduction`. The output map drops the reduced loops, or maps them to the
//! constant 0 under `keepdims`. Inits come from `linalg.fill` with the
//! identity of the reduction (`-inf`/`+inf` for float max/min, which then
//! propagate NaN through `maximumf`/`minimumf` like numpy).
//!
//! Arg-reductions carry two outputs, the best value and its `i64` index; a
//! candidate replaces the best only when strictly better (or when it is the
//! first NaN), so the first occurrence wins, as in numpy.
//!
//! `max`, `min`, `argmax` and `argmin` over no elements have no identity
//! (numpy raises `ValueError`): when a reduced axis has a run-time size, an
//! empty one calls the runtime's `agc_rt_raise_empty(kind)` (status
//! `INVALID_ARGUMENT`) and the result is computed as usual (the identity).

use super::emitter::{identity_map, operand, FnEmitter, GenericSpec};
use super::types::{self, elem};
use super::{pairwise_sum, rank0};
use crate::BackendError;
use agc_ir::{ArgKind, DType, OpData, OpKind, ReduceKind, TensorType};

/// Output map and iterator kinds for reducing `axes` of a rank-`rank` nest.
fn maps(rank: usize, axes: &[usize], keepdims: bool) -> (Vec<String>, Vec<&'static str>) {
    let mut out = Vec::new();
    let mut iters = Vec::new();
    for i in 0..rank {
        if axes.contains(&i) {
            iters.push("reduction");
            if keepdims {
                out.push("0".to_string());
            }
        } else {
            iters.push("parallel");
            out.push(format!("d{i}"));
        }
    }
    (out, iters)
}

/// Lowers a `reduce.*` or `argmax`/`argmin`; returns the result tensor.
pub fn emit(e: &mut FnEmitter, od: &OpData) -> Result<String, BackendError> {
    match &od.kind {
        OpKind::Reduce {
            kind,
            axes,
            keepdims,
        } => reduce(e, od, *kind, axes, *keepdims),
        OpKind::ArgReduce {
            kind,
            axis,
            keepdims,
        } => arg_reduce(e, od, *kind, *axis, *keepdims),
        other => Err(BackendError::Mlir(format!(
            "{} is not a reduction",
            other.name()
        ))),
    }
}

/// The symbol of the runtime's empty-reduction error (`kind`: 0 max, 1 min,
/// 2 argmax, 3 argmin, as `i64`).
pub const RAISE_EMPTY: &str = "agc_rt_raise_empty";

/// Raises the empty-reduction error `kind` when the product of the sizes of
/// `axes` of `ty` is 0 at run time (nothing to check when all are static
/// and non-zero).
fn check_nonempty(
    e: &mut FnEmitter,
    ty: &TensorType,
    axes: &[usize],
    kind: i64,
) -> Result<(), BackendError> {
    if axes
        .iter()
        .all(|&a| matches!(ty.dims[a], agc_ir::Dim::Static(n) if n > 0))
    {
        return Ok(());
    }
    let zero = e.index_const(0);
    let mut empty = e.constant("false", "i1");
    for &a in axes {
        let n = e.dim_size(&ty.dims[a])?;
        let z = e.cmpi("eq", &n, &zero, "index");
        empty = e.arith("ori", &empty, &z, "i1");
    }
    let k = e.constant(&kind.to_string(), "i64");
    e.line(&format!("scf.if {empty} {{"));
    e.enter();
    e.line(&format!("func.call @{RAISE_EMPTY}({k}) : (i64) -> ()"));
    e.leave();
    e.line("}");
    Ok(())
}

fn reduce(
    e: &mut FnEmitter,
    od: &OpData,
    kind: ReduceKind,
    axes: &[usize],
    keepdims: bool,
) -> Result<String, BackendError> {
    let (in_ty, out_ty) = (e.ty(od.operands[0]), e.ty(od.results[0]));
    let dtype = in_ty.dtype;
    match kind {
        ReduceKind::Max => check_nonempty(e, in_ty, axes, 0)?,
        ReduceKind::Min => check_nonempty(e, in_ty, axes, 1)?,
        ReduceKind::Sum | ReduceKind::Prod => {}
    }
    let init_lit = match kind {
        ReduceKind::Sum => types::scalar_lit(dtype, 0.0),
        ReduceKind::Prod => types::scalar_lit(dtype, 1.0),
        ReduceKind::Max => types::lowest_lit(dtype),
        ReduceKind::Min => types::highest_lit(dtype),
    };
    if pairwise_sum::applies(kind, in_ty, axes) {
        let x = e.val(od.operands[0])?;
        return pairwise_sum::emit(e, &x, in_ty, axes, out_ty);
    }
    let op = combine_op(kind, dtype);
    if let Some(n) = unrolled_count(in_ty, out_ty) {
        // A few elements to one scalar: in registers, in the loop's order.
        let x = e.val(od.operands[0])?;
        let in_t = types::tensor(in_ty);
        let mut acc = e.constant(&init_lit, elem(dtype));
        for k in 0..n {
            let mut idx = Vec::with_capacity(in_ty.rank());
            let mut rest = k;
            for d in in_ty.dims.iter().rev() {
                let size = d.as_static().expect("static dims (unrolled_count)");
                idx.push(e.index_const(rest % size));
                rest /= size;
            }
            idx.reverse();
            let v = e.assign(&format!("tensor.extract {x}[{}] : {in_t}", idx.join(", ")));
            acc = e.arith(op, &acc, &v, elem(dtype));
        }
        return Ok(rank0::wrap(e, &acc, out_ty));
    }
    let init = e.filled(out_ty, &init_lit)?;
    let (out_map, iterators) = maps(in_ty.rank(), axes, keepdims);
    let spec = GenericSpec {
        iterators,
        ins: vec![operand(
            &e.val(od.operands[0])?,
            in_ty,
            identity_map(in_ty.rank()),
        )],
        outs: vec![operand(&init, out_ty, out_map)],
    };
    let r = e.generic(&spec, |e, args| {
        let (x, acc) = (&args[0], &args[1]);
        Ok(vec![e.arith(op, acc, x, elem(dtype))])
    })?;
    Ok(r.into_iter().next().unwrap())
}

/// The most elements a reduction to one scalar reads as unrolled scalar
/// code instead of a loop into a rank-0 buffer (see `rank0`).
const UNROLLED_UP_TO: i64 = 16;

/// The element count of `in_ty` when reducing it to rank-0 `out_ty` is
/// unrolled: all dims static, at most [`UNROLLED_UP_TO`] elements. (A float
/// sum of 8 or more is pairwise and never gets here.)
fn unrolled_count(in_ty: &TensorType, out_ty: &TensorType) -> Option<i64> {
    if out_ty.rank() != 0 {
        return None;
    }
    let n = in_ty
        .dims
        .iter()
        .map(agc_ir::Dim::as_static)
        .try_fold(1i64, |acc, d| d.map(|n| acc * n))?;
    (1..=UNROLLED_UP_TO).contains(&n).then_some(n)
}

/// The `arith` op that combines an accumulator with an element.
fn combine_op(kind: ReduceKind, dtype: DType) -> &'static str {
    match (kind, dtype) {
        (ReduceKind::Sum | ReduceKind::Max, DType::Bool) => "ori",
        (ReduceKind::Prod | ReduceKind::Min, DType::Bool) => "andi",
        (ReduceKind::Sum, d) if d.is_float() => "addf",
        (ReduceKind::Prod, d) if d.is_float() => "mulf",
        (ReduceKind::Max, d) if d.is_float() => "maximumf",
        (ReduceKind::Min, d) if d.is_float() => "minimumf",
        (ReduceKind::Sum, _) => "addi",
        (ReduceKind::Prod, _) => "muli",
        (ReduceKind::Max, _) => "maxsi",
        (ReduceKind::Min, _) => "minsi",
    }
}

fn arg_reduce(
    e: &mut FnEmitter,
    od: &OpData,
    kind: ArgKind,
    axis: usize,
    keepdims: bool,
) -> Result<String, BackendError> {
    let (in_ty, out_ty) = (e.ty(od.operands[0]), e.ty(od.results[0]));
    let dtype = in_ty.dtype;
    let code = match kind {
        ArgKind::ArgMax => 2,
        ArgKind::ArgMin => 3,
    };
    check_nonempty(e, in_ty, &[axis], code)?;
    let best_ty = TensorType::new(dtype, out_ty.dims.clone());
    let init_lit = match kind {
        ArgKind::ArgMax => types::lowest_lit(dtype),
        ArgKind::ArgMin => types::highest_lit(dtype),
    };
    let best = e.filled(&best_ty, &init_lit)?;
    let idx = e.filled(out_ty, "0")?;
    let (out_map, iterators) = maps(in_ty.rank(), &[axis], keepdims);
    let spec = GenericSpec {
        iterators,
        ins: vec![operand(
            &e.val(od.operands[0])?,
            in_ty,
            identity_map(in_ty.rank()),
        )],
        outs: vec![
            operand(&best, &best_ty, out_map.clone()),
            operand(&idx, out_ty, out_map),
        ],
    };
    let r = e.generic(&spec, |e, args| {
        let t = elem(dtype);
        let (x, b, bi) = (&args[0], &args[1], &args[2]);
        let better = if dtype.is_float() {
            let p = if kind == ArgKind::ArgMax {
                "ogt"
            } else {
                "olt"
            };
            let strict = e.assign(&format!("arith.cmpf {p}, {x}, {b} : {t}"));
            let x_nan = e.assign(&format!("arith.cmpf uno, {x}, {x} : {t}"));
            let b_ord = e.assign(&format!("arith.cmpf ord, {b}, {b} : {t}"));
            let first_nan = e.arith("andi", &x_nan, &b_ord, "i1");
            e.arith("ori", &strict, &first_nan, "i1")
        } else {
            let p = match (kind, dtype) {
                (ArgKind::ArgMax, DType::Bool) => "ugt",
                (ArgKind::ArgMin, DType::Bool) => "ult",
                (ArgKind::ArgMax, _) => "sgt",
                (ArgKind::ArgMin, _) => "slt",
            };
            e.cmpi(p, x, b, t)
        };
        let i = e.assign(&format!("linalg.index {axis} : index"));
        let i64v = e.assign(&format!("arith.index_cast {i} : index to i64"));
        let nb = e.select(&better, x, b, t);
        let ni = e.select(&better, &i64v, bi, "i64");
        Ok(vec![nb, ni])
    })?;
    Ok(r[1].clone())
}
