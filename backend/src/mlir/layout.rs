//! Layout ops that move no arithmetic: reshape and transpose.
//!
//! Reshape is row-major: the operand is collapsed to 1-D
//! (`tensor.collapse_shape`, or `expand_shape` from rank 0) and expanded to
//! the target (`tensor.expand_shape`, or `collapse_shape` to rank 0; from
//! rank 0 a broadcast);
//! canonicalization folds the pair where a direct reshape exists. Both are
//! views after bufferization. A target symbol not bound yet (`(B*28)`) is
//! computed as the element count divided by the product of the other dims.
//!
//! Transpose is `linalg.transpose` into a `tensor.empty`.

use super::emitter::{identity_map, operand, FnEmitter, GenericSpec};
use super::types;
use crate::BackendError;
use agc_ir::{Dim, OpData, TensorType};

/// The rank-1 type of `ty`'s elements (its size `?` unless static).
pub(super) fn flat_type(ty: &TensorType) -> TensorType {
    let n = match ty.static_numel() {
        Some(n) => Dim::Static(n),
        None => Dim::Sym("?".into()),
    };
    TensorType::new(ty.dtype, vec![n])
}

/// `x` (of type `ty`) as a rank-1 tensor of its elements in row-major order,
/// of type [`flat_type`].
pub(super) fn flatten(e: &mut FnEmitter, x: &str, ty: &TensorType) -> String {
    let (in_t, flat_t) = (types::tensor(ty), types::tensor(&flat_type(ty)));
    if ty.rank() > 1 && ty.dims.contains(&Dim::Static(0)) && ty.static_numel().is_none() {
        // No elements: an empty tensor. (MLIR 22's canonicalization turns the
        // collapse of `?x0` into `?` into one whose result is a static 0,
        // which its verifier then rejects.)
        let zero = e.index_const(0);
        return e.assign(&format!("tensor.empty({zero}) : {flat_t}"));
    }
    match ty.rank() {
        0 => e.assign(&format!(
            "tensor.expand_shape {x} [] output_shape [1] : {in_t} into {flat_t}"
        )),
        1 => x.to_string(),
        r => {
            let group: Vec<String> = (0..r).map(|i| i.to_string()).collect();
            e.assign(&format!(
                "tensor.collapse_shape {x} [[{}]] : {in_t} into {flat_t}",
                group.join(", ")
            ))
        }
    }
}

/// Lowers a `reshape`; returns the result tensor.
pub fn reshape(e: &mut FnEmitter, od: &OpData) -> Result<String, BackendError> {
    let (in_ty, out_ty) = (e.ty(od.operands[0]), e.ty(od.results[0]));
    let x = e.val(od.operands[0])?;
    if agc_ir::infer::same_up_to_sym_names(in_ty, out_ty) {
        // Only the names of run-time sizes change: the new names are the old sizes.
        e.bind_new_syms(&x, out_ty);
        return Ok(x);
    }
    bind_reshape_syms(e, in_ty, out_ty)?;
    let flat_ty = types::tensor(&flat_type(in_ty));
    if in_ty.rank() == 0 && out_ty.rank() > 0 {
        // One element to a shape of ones: a broadcast. (An `expand_shape`
        // from rank 0, once canonicalization folds two of them, crashes
        // MLIR 22's expand-strided-metadata.)
        let init = e.empty(out_ty)?;
        let spec = GenericSpec {
            iterators: vec!["parallel"; out_ty.rank()],
            ins: vec![operand(&x, in_ty, vec![])],
            outs: vec![operand(&init, out_ty, identity_map(out_ty.rank()))],
        };
        let r = e.generic(&spec, |_, args| Ok(vec![args[0].clone()]))?;
        return Ok(r.into_iter().next().unwrap());
    }
    let flat = flatten(e, &x, in_ty);
    unflatten(e, &flat, &flat_ty, out_ty)
}

/// The rank-1 tensor `flat` (of MLIR type `flat_ty`, its elements in
/// row-major order) as a tensor of type `out_ty`.
pub(super) fn unflatten(
    e: &mut FnEmitter,
    flat: &str,
    flat_ty: &str,
    out_ty: &TensorType,
) -> Result<String, BackendError> {
    let out_t = types::tensor(out_ty);
    Ok(match out_ty.rank() {
        0 => {
            let one = types::tensor_of(out_ty.dtype, &[Dim::Static(1)]);
            let f1 = cast_if_needed(e, flat, flat_ty, &one);
            e.assign(&format!(
                "tensor.collapse_shape {f1} [] : {one} into {out_t}"
            ))
        }
        1 => cast_if_needed(e, flat, flat_ty, &out_t),
        r => {
            let group: Vec<String> = (0..r).map(|i| i.to_string()).collect();
            let mut shape = Vec::new();
            for d in &out_ty.dims {
                shape.push(match d {
                    Dim::Static(n) => n.to_string(),
                    Dim::Sym(_) => e.dim_size(d)?,
                });
            }
            if out_ty.dims.iter().any(|d| matches!(d, Dim::Sym(_))) {
                // Run-time sizes: `tensor.reshape` with a shape operand (an
                // `expand_shape` with several dynamic sizes in one group
                // crashes MLIR 22's expand-strided-metadata).
                let sizes: Vec<String> = shape
                    .iter()
                    .map(|s| {
                        if s.starts_with('%') {
                            s.clone()
                        } else {
                            e.index_const(s.parse().unwrap_or(0))
                        }
                    })
                    .collect();
                let shape_t = format!("tensor<{r}xindex>");
                let st = e.assign(&format!(
                    "tensor.from_elements {} : {shape_t}",
                    sizes.join(", ")
                ));
                return Ok(e.assign(&format!(
                    "tensor.reshape {flat}({st}) : ({flat_ty}, {shape_t}) -> {out_t}"
                )));
            }
            e.assign(&format!(
                "tensor.expand_shape {flat} [[{}]] output_shape [{}] : {flat_ty} into {out_t}",
                group.join(", "),
                shape.join(", ")
            ))
        }
    })
}

fn cast_if_needed(e: &mut FnEmitter, x: &str, from: &str, to: &str) -> String {
    if from == to {
        x.to_string()
    } else {
        e.assign(&format!("tensor.cast {x} : {from} to {to}"))
    }
}

/// Binds the result symbols of a reshape that are not bound yet: at most
/// one, computed as numel / product of the other result dims.
fn bind_reshape_syms(
    e: &mut FnEmitter,
    in_ty: &TensorType,
    out_ty: &TensorType,
) -> Result<(), BackendError> {
    let unbound: Vec<usize> = out_ty
        .dims
        .iter()
        .enumerate()
        .filter(|(_, d)| matches!(d, Dim::Sym(s) if e.sym(s).is_none()))
        .map(|(i, _)| i)
        .collect();
    let Some(&target) = unbound.first() else {
        return Ok(());
    };
    if unbound.len() > 1 {
        // Several copies of the same new name are fine; different ones are not.
        let names: std::collections::HashSet<_> =
            unbound.iter().map(|&i| &out_ty.dims[i]).collect();
        if names.len() > 1 {
            return Err(BackendError::Unsupported(format!(
                "reshape {in_ty} -> {out_ty} with several unknown dims"
            )));
        }
    }
    let sizes = e.dim_sizes(in_ty)?;
    let mut numel = e.index_const(1);
    for s in &sizes {
        numel = e.arith("muli", &numel, s, "index");
    }
    let mut others = e.index_const(1);
    let mut repeat = 0;
    for (i, d) in out_ty.dims.iter().enumerate() {
        if unbound.contains(&i) {
            repeat += 1;
            continue;
        }
        let s = e.dim_size(d)?;
        others = e.arith("muli", &others, &s, "index");
    }
    if repeat > 1 {
        return Err(BackendError::Unsupported(format!(
            "reshape {in_ty} -> {out_ty}: repeated unknown dim"
        )));
    }
    // A zero-size "other" part (numpy rejects that reshape) must not trap.
    let one = e.index_const(1);
    let others = e.arith("maxui", &others, &one, "index");
    let v = e.arith("divui", &numel, &others, "index");
    if let Dim::Sym(s) = &out_ty.dims[target] {
        e.bind_sym(s, v);
    }
    Ok(())
}

/// Lowers a `transpose` by `perm`; returns the result tensor.
pub fn transpose(e: &mut FnEmitter, od: &OpData, perm: &[usize]) -> Result<String, BackendError> {
    let (in_ty, out_ty) = (e.ty(od.operands[0]), e.ty(od.results[0]));
    let x = e.val(od.operands[0])?;
    let init = e.empty(out_ty)?;
    let (it, ot) = (types::tensor(in_ty), types::tensor(out_ty));
    let p: Vec<String> = perm.iter().map(|p| p.to_string()).collect();
    Ok(e.assign(&format!(
        "linalg.transpose ins({x} : {it}) outs({init} : {ot}) permutation = [{}]",
        p.join(", ")
    )))
}

#[cfg(test)]
mod tests {
    use crate::mlir::function::emit_function;
    use crate::BackendError;
    use agc_ir::{DType, Dim, Function, OpKind, Span, TensorType};

    /// A construct the backend cannot lower is an error at the source span of
    /// the op it comes from (the CLI prints it as `file:line:col`).
    #[test]
    fn an_unsupported_reshape_is_located_at_its_op() {
        let sym = |s: &str| Dim::Sym(s.into());
        let x = TensorType::new(DType::F32, vec![sym("N")]);
        let y = TensorType::new(DType::F32, vec![sym("P"), sym("Q")]);
        let mut f = Function::new("f", &[("x".into(), x.into())], Span::UNKNOWN);
        let (body, p) = (f.body, f.params()[0]);
        let at = Span::new(40, 52);
        let (_, r) = f.append_op(
            body,
            OpKind::Reshape,
            vec![p],
            vec![y.clone().into()],
            vec![],
            at,
        );
        f.append_op(body, OpKind::Return, r, vec![], vec![], Span::UNKNOWN);
        f.result_types = vec![y.into()];
        match emit_function(&f) {
            Err(BackendError::UnsupportedAt(what, span)) => {
                assert_eq!(span, at);
                assert!(what.contains("several unknown dims"), "{what}");
            }
            other => panic!("expected an error at the reshape, got {other:?}"),
        }
    }
}
