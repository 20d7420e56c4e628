//! `np.matmul` as one `linalg.generic` contraction.
//!
//! The loop nest is `[batch..., m?, n?, k]`: batch dims are the broadcast
//! of both operands' leading dims (numpy rules, a static 1 reads index 0),
//! `m` exists when `a` has rank ≥ 2, `n` when `b` has rank ≥ 2, and `k` is
//! the reduction. A 1-D `a` is a row vector and a 1-D `b` a column vector
//! whose axis is dropped from the result, exactly as numpy does. The init is
//! a zero-filled `tensor.empty`; float products accumulate with
//! `fastmath<contract>`.

use super::emitter::{operand, FnEmitter, GenericSpec};
use super::types::{self, elem};
use crate::BackendError;
use agc_ir::{DType, Dim, OpData};

/// Map results for a batched operand: its leading `batch` dims right-aligned
/// against the result's `nb` batch loops, then the given trailing loops.
fn batch_map(dims: &[Dim], batch: usize, res_batch: &[Dim], trailing: &[String]) -> Vec<String> {
    let nb = res_batch.len();
    let mut m: Vec<String> = (0..batch)
        .map(|i| {
            let j = nb - batch + i;
            if dims[i] == Dim::Static(1) && res_batch[j] != Dim::Static(1) {
                "0".to_string()
            } else {
                format!("d{j}")
            }
        })
        .collect();
    m.extend(trailing.iter().cloned());
    m
}

/// Lowers a `matmul`; returns the result tensor.
pub fn emit(e: &mut FnEmitter, od: &OpData) -> Result<String, BackendError> {
    let (a_ty, b_ty, out_ty) = (
        e.ty(od.operands[0]),
        e.ty(od.operands[1]),
        e.ty(od.results[0]),
    );
    let (ra, rb) = (a_ty.rank(), b_ty.rank());
    let a_batch = ra.saturating_sub(2);
    let b_batch = rb.saturating_sub(2);
    let nb = a_batch.max(b_batch);
    let res_batch = &out_ty.dims[..nb];
    let mut next = nb;
    let mut loop_var = || {
        let v = format!("d{next}");
        next += 1;
        v
    };
    let m = (ra >= 2).then(&mut loop_var);
    let n = (rb >= 2).then(&mut loop_var);
    let k = loop_var();
    let loops = next;

    let mut a_tail: Vec<String> = m.iter().cloned().collect();
    a_tail.push(k.clone());
    let mut b_tail = vec![k];
    b_tail.extend(n.iter().cloned());
    let a_map = batch_map(&a_ty.dims, a_batch, res_batch, &a_tail);
    let b_map = batch_map(&b_ty.dims, b_batch, res_batch, &b_tail);
    let mut c_map: Vec<String> = (0..nb).map(|i| format!("d{i}")).collect();
    c_map.extend(m.iter().cloned());
    c_map.extend(n.iter().cloned());

    let zero = types::scalar_lit(out_ty.dtype, 0.0);
    let init = e.filled(out_ty, &zero)?;
    let mut iterators = vec!["parallel"; loops - 1];
    iterators.push("reduction");
    let spec = GenericSpec {
        iterators,
        ins: vec![
            operand(&e.val(od.operands[0])?, a_ty, a_map),
            operand(&e.val(od.operands[1])?, b_ty, b_map),
        ],
        outs: vec![operand(&init, out_ty, c_map)],
    };
    let dtype = out_ty.dtype;
    let r = e.generic(&spec, |e, args| {
        let t = elem(dtype);
        let (x, y, acc) = (&args[0], &args[1], &args[2]);
        let s = match dtype {
            DType::F32 | DType::F64 => {
                let p = e.assign(&format!("arith.mulf {x}, {y} fastmath<contract> : {t}"));
                e.assign(&format!("arith.addf {acc}, {p} fastmath<contract> : {t}"))
            }
            DType::I32 | DType::I64 => {
                let p = e.arith("muli", x, y, t);
                e.arith("addi", acc, &p, t)
            }
            DType::Bool => {
                let p = e.arith("andi", x, y, t);
                e.arith("ori", acc, &p, t)
            }
        };
        Ok(vec![s])
    })?;
    Ok(r.into_iter().next().unwrap())
}
