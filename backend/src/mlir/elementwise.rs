//! Elementwise ops (unary, binary, compare, select, cast, fill,
//! broadcast_to) as one `linalg.generic` each, with numpy broadcasting in
//! the indexing maps: operands are right-aligned against the result's loop
//! nest and a static size-1 dim reads index 0. `linalg-fuse-elementwise-ops`
//! merges chains of them afterwards. The scalar bodies are in
//! [`super::scalar`].
//!
//! Each fusion clones the producer's whole body into its consumer, so a
//! group of n fused ops costs O(n^2) compile time (a 1,500-op chain of
//! straight-line code took 7 s in that pass alone). Groups are bounded:
//! an operand whose group would grow beyond [`FUSION_LIMIT`] ops is first
//! copied into a buffer of its own (`linalg.copy`, which the pass does not
//! fuse), one extra pass over memory per that many ops.

use super::emitter::{broadcast_map, identity_map, operand, FnEmitter, GenericSpec};
use super::scalar;
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
    let mut ins = Vec::new();
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
    let names = bound_group(e, names)?;
    for (name, t) in &names {
        ins.push(operand(name, t, broadcast_map(&t.dims, &out_ty.dims)));
    }
    let group = 1 + names.iter().map(|(n, _)| e.fusion_group(n)).sum::<usize>();
    let init = e.empty(out_ty)?;
    let spec = GenericSpec {
        iterators: vec!["parallel"; out_ty.rank()],
        ins,
        outs: vec![operand(&init, out_ty, identity_map(out_ty.rank()))],
    };
    let kind = od.kind.clone();
    let in_dtype = in_tys.last().map(|t| t.dtype);
    let out_dtype = out_ty.dtype;
    let r = e.generic(&spec, |e, args| {
        let y = match kind {
            OpKind::Unary(u) => scalar::unary(e, u, out_dtype, &args[0])?,
            OpKind::Binary(b) => scalar::binary(e, b, out_dtype, &args[0], &args[1])?,
            OpKind::Compare(c) => {
                scalar::compare(e, c, in_dtype.unwrap_or(out_dtype), &args[0], &args[1])
            }
            OpKind::Select => e.select(&args[0], &args[1], &args[2], super::types::elem(out_dtype)),
            OpKind::Cast => scalar::cast(e, in_dtype.unwrap_or(out_dtype), out_dtype, &args[0]),
            OpKind::Fill | OpKind::BroadcastTo => args[0].clone(),
            other => {
                return Err(BackendError::Mlir(format!(
                    "{} is not elementwise",
                    other.name()
                )))
            }
        };
        Ok(vec![y])
    })?;
    let r = r.into_iter().next().unwrap();
    e.set_fusion_group(&r, group);
    Ok(r)
}

/// The most elementwise ops one fused group may hold.
pub const FUSION_LIMIT: usize = 48;

/// The operands `names` (MLIR value, IR type) of a new elementwise op, the
/// largest groups among them copied into buffers of their own until the
/// op's group holds at most [`FUSION_LIMIT`] ops.
fn bound_group<'t>(
    e: &mut FnEmitter,
    mut names: Vec<(String, &'t agc_ir::TensorType)>,
) -> Result<Vec<(String, &'t agc_ir::TensorType)>, BackendError> {
    loop {
        let sizes: Vec<usize> = names.iter().map(|(n, _)| e.fusion_group(n)).collect();
        if sizes.iter().sum::<usize>() < FUSION_LIMIT {
            return Ok(names);
        }
        let (k, _) = sizes
            .iter()
            .enumerate()
            .max_by_key(|(_, &s)| s)
            .expect("an op over the limit has operands");
        let (name, ty) = &names[k];
        let init = e.empty(ty)?;
        let tt = super::types::tensor(ty);
        let copy = e.assign(&format!(
            "linalg.copy ins({name} : {tt}) outs({init} : {tt}) -> {tt}"
        ));
        names[k].0 = copy;
    }
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

#[cfg(test)]
mod tests {
    use super::FUSION_LIMIT;
    use crate::mlir::function::{chain_function, emit_function};
    use agc_ir::{BinaryOp, DType, Dim, Function, TensorType};

    /// `x + y` applied `n` times in a chain, returned.
    fn chain(n: usize) -> Function {
        let t = TensorType::new(DType::F32, vec![Dim::Sym("N".into())]);
        chain_function(BinaryOp::Add, &t, n, true)
    }

    #[test]
    fn fused_groups_are_bounded_by_copies() {
        let text = emit_function(&chain(200)).unwrap();
        let mut group = 0;
        let mut copies = 0;
        for line in text.lines() {
            if line.contains("linalg.copy") {
                copies += 1;
                group = 0;
            } else if line.contains("linalg.generic") {
                group += 1;
                assert!(group <= FUSION_LIMIT, "a group of {group} ops:\n{text}");
            }
        }
        assert_eq!(copies, 200 / FUSION_LIMIT, "{text}");
    }

    #[test]
    fn short_chains_are_left_to_fusion() {
        let text = emit_function(&chain(FUSION_LIMIT)).unwrap();
        assert!(!text.contains("linalg.copy"), "{text}");
    }
}
