//! Elementwise ops (unary, binary, compare, select, cast, fill,
//! broadcast_to) as one `linalg.generic` each, with numpy broadcasting in
//! the indexing maps: operands are right-aligned against the result's loop
//! nest and a static size-1 dim reads index 0. Most of them are fused into
//! groups as the region is emitted ([`super::fusion`]); this lowers the rest
//! (fills, and ops that must be emitted where they stand). The scalar bodies
//! are in [`super::scalar`].

use super::emitter::{broadcast_map, identity_map, operand, FnEmitter, GenericSpec};
use super::{rank0, scalar};
use crate::BackendError;
use agc_ir::{OpData, OpKind};

/// Lowers an elementwise op; returns the result tensor.
pub fn emit(e: &mut FnEmitter, od: &OpData) -> Result<String, BackendError> {
    let out_ty = e.ty(od.results[0]);
    let in_tys: Vec<_> = od.operands.iter().map(|&v| e.ty(v)).collect();
    if let OpKind::Cast = od.kind {
        if in_tys[0].dtype == out_ty.dtype {
            return e.val(od.operands[0]);
        }
    }
    if let OpKind::Fill = od.kind {
        bind_sizes(e, od, 1)?;
    }
    let operands = if let OpKind::Fill = od.kind {
        &od.operands[..1]
    } else {
        &od.operands[..]
    };
    let names = operands
        .iter()
        .zip(&in_tys)
        .map(|(&v, &t)| Ok((e.val(v)?, t)))
        .collect::<Result<Vec<_>, BackendError>>()?;
    if out_ty.rank() == 0 {
        let x: Vec<String> = names.iter().map(|(n, t)| rank0::element(e, n, t)).collect();
        let y = scalar_op(e, od, &x)?;
        return Ok(rank0::wrap(e, &y, out_ty));
    }
    let mut ins = Vec::new();
    for (name, t) in &names {
        ins.push(operand(name, t, broadcast_map(&t.dims, &out_ty.dims)));
    }
    let init = e.empty(out_ty)?;
    let spec = GenericSpec {
        iterators: vec!["parallel"; out_ty.rank()],
        ins,
        outs: vec![operand(&init, out_ty, identity_map(out_ty.rank()))],
    };
    let r = e.generic(&spec, |e, args| Ok(vec![scalar_op(e, od, args)?]))?;
    Ok(r.into_iter().next().unwrap())
}

/// The scalar body of elementwise op `od` on the scalars `x` of its operands
/// (of a `fill`, its value only).
pub(super) fn scalar_op(
    e: &mut FnEmitter,
    od: &OpData,
    x: &[String],
) -> Result<String, BackendError> {
    let out = e.ty(od.results[0]).dtype;
    let last_in = e
        .ty(*od.operands.last().expect("elementwise ops read"))
        .dtype;
    Ok(match &od.kind {
        OpKind::Unary(u) => scalar::unary(e, *u, out, &x[0])?,
        OpKind::Binary(b) => scalar::binary(e, *b, out, &x[0], &x[1])?,
        OpKind::Compare(c) => scalar::compare(e, *c, last_in, &x[0], &x[1]),
        OpKind::Select => e.select(&x[0], &x[1], &x[2], super::types::elem(out)),
        OpKind::Cast => scalar::cast(e, last_in, out, &x[0]),
        OpKind::Fill | OpKind::BroadcastTo => x[0].clone(),
        other => {
            return Err(BackendError::Mlir(format!(
                "{} is not elementwise",
                other.name()
            )))
        }
    })
}

/// An op with explicit run-time sizes (a `fill` or an `iota`; they are its
/// operands from `first`) binds its result's symbolic dims to them.
pub fn bind_sizes(e: &mut FnEmitter, od: &OpData, first: usize) -> Result<(), BackendError> {
    let out_ty = e.ty(od.results[0]);
    let syms = out_ty.dims.iter().filter_map(|d| match d {
        agc_ir::Dim::Sym(s) => Some(s.clone()),
        agc_ir::Dim::Static(_) => None,
    });
    for (name, &size) in syms.collect::<Vec<_>>().iter().zip(&od.operands[first..]) {
        let t = e.val(size)?;
        let x = e.assign(&format!("tensor.extract {t}[] : tensor<i64>"));
        let zero = e.constant("0", "i64");
        let nonneg = e.assign(&format!("arith.maxsi {x}, {zero} : i64"));
        let idx = e.assign(&format!("arith.index_cast {nonneg} : i64 to index"));
        e.bind_sym(name, idx);
    }
    Ok(())
}
