//! Module and function emission: the `func.func` wrapper, binding of
//! parameter symbols, dispatch of each IR op to its pattern emitter, and
//! the copies that keep returned buffers from aliasing one another.
//!
//! Result ownership: the buffer-deallocation pipeline makes every returned
//! memref owned by the caller, cloning a parameter, a constant or a view of
//! them, but it does not notice two result slots holding the same owned
//! buffer (`return %r, %r`, which CSE also creates from distinct but equal
//! IR ops), and the caller would free it twice. So every result slot but
//! the first goes through `bufferization.alloc_tensor() copy(...)`, a fresh
//! buffer filled with a contiguous `memcpy`; the first slot is returned as
//! is, so a single-result function pays no copy.

use super::emitter::FnEmitter;
use super::{constant, contraction, elementwise, gather, layout, reduce, types};
use crate::BackendError;
use agc_ir::{Function, Module, OpKind, RegionId};

/// The prefix of every emitted function symbol: `agc_impl_<name>`.
pub const IMPL_PREFIX: &str = "agc_impl_";

/// Emits a whole module as MLIR text (one `func.func` per IR function).
pub fn emit_module(m: &Module) -> Result<String, BackendError> {
    let mut out = String::from("module {\n");
    for f in &m.funcs {
        out.push_str(&emit_function(f)?);
    }
    out.push_str("}\n");
    Ok(out)
}

/// Emits one function as `func.func @agc_impl_<name>`.
pub fn emit_function(f: &Function) -> Result<String, BackendError> {
    if f.name.is_empty()
        || !f
            .name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return Err(BackendError::Unsupported(format!(
            "function name `{}` is not a C identifier",
            f.name
        )));
    }
    let mut e = FnEmitter::new(f);
    let mut params = Vec::new();
    for (i, &p) in f.params().iter().enumerate() {
        let name = format!("%arg{i}");
        let ty = e.ty(p);
        params.push(format!(
            "{name}: {} {{bufferization.writable = false}}",
            types::tensor(ty)
        ));
        e.set_val(p, name.clone());
        e.bind_new_syms(&name, ty);
    }
    emit_region(&mut e, f.body)?;
    let results: Vec<String> = f
        .result_types
        .iter()
        .map(|t| types::tensor(t.tensor()))
        .collect();
    let mut out = format!(
        "  func.func @{IMPL_PREFIX}{}({}) -> ({}) attributes {{llvm.emit_c_interface}} {{\n",
        f.name,
        params.join(", "),
        results.join(", ")
    );
    out.push_str(&e.finish());
    out.push_str("  }\n");
    Ok(out)
}

/// Emits the ops of a region in order (the body's `return` included).
fn emit_region(e: &mut FnEmitter, r: RegionId) -> Result<(), BackendError> {
    let f = e.f;
    for &op in &f.region(r).ops {
        let od = f.op(op);
        let with = |err: BackendError| match err {
            BackendError::Unsupported(m) => {
                BackendError::Unsupported(format!("{op} ({}): {m}", od.kind.name()))
            }
            BackendError::Mlir(m) => BackendError::Mlir(format!("{op} ({}): {m}", od.kind.name())),
            other => other,
        };
        let result = match &od.kind {
            OpKind::Return => {
                emit_return(e, &od.operands).map_err(with)?;
                continue;
            }
            OpKind::Const(data) => constant::constant(e, od, data),
            OpKind::Iota { start, step } => constant::iota(e, od, *start, *step),
            OpKind::Dim { axis } => constant::dim(e, od, *axis),
            OpKind::Fill
            | OpKind::Unary(_)
            | OpKind::Binary(_)
            | OpKind::Compare(_)
            | OpKind::Select
            | OpKind::Cast
            | OpKind::BroadcastTo => elementwise::emit(e, od),
            OpKind::MatMul => contraction::emit(e, od),
            OpKind::Reduce { .. } | OpKind::ArgReduce { .. } => reduce::emit(e, od),
            OpKind::Reshape => layout::reshape(e, od),
            OpKind::Transpose { perm } => layout::transpose(e, od, perm),
            OpKind::Slice { dims } => gather::slice(e, od, dims),
            OpKind::Concat { axis } => gather::concat(e, od, *axis),
            OpKind::If
            | OpKind::While
            | OpKind::Yield
            | OpKind::Condition
            | OpKind::Call { .. }
            | OpKind::DynIndex { .. }
            | OpKind::DynSlice
            | OpKind::DynUpdate { .. } => Err(BackendError::Unsupported(
                "control flow and run-time indexing are not lowered yet".into(),
            )),
        }
        .map_err(with)?;
        let v = od.results[0];
        e.set_val(v, result.clone());
        e.bind_new_syms(&result, e.ty(v));
    }
    Ok(())
}

/// `return`, with a fresh copy of each returned value after the first.
fn emit_return(e: &mut FnEmitter, operands: &[agc_ir::Value]) -> Result<(), BackendError> {
    let mut names = Vec::new();
    let mut tys = Vec::new();
    for (i, &v) in operands.iter().enumerate() {
        let x = e.val(v)?;
        let ty = types::tensor(e.ty(v));
        if i == 0 {
            names.push(x);
        } else {
            names.push(e.assign(&format!("bufferization.alloc_tensor() copy({x}) : {ty}")));
        }
        tys.push(ty);
    }
    if names.is_empty() {
        e.line("func.return");
    } else {
        e.line(&format!(
            "func.return {} : {}",
            names.join(", "),
            tys.join(", ")
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use agc_ir::{BinaryOp, DType, Dim, Span, TensorType, Type};

    #[test]
    fn signature_binds_symbols_and_copies_later_results() {
        let t = TensorType::new(DType::F32, vec![Dim::Sym("B".into()), Dim::Static(4)]);
        let mut f = Function::new("f", &[("x".into(), Type::Tensor(t.clone()))], Span::UNKNOWN);
        let body = f.body;
        let x = f.params()[0];
        let (_, r) = f.append_op(
            body,
            OpKind::Binary(BinaryOp::Add),
            vec![x, x],
            vec![t.clone().into()],
            vec![],
            Span::UNKNOWN,
        );
        f.append_op(
            body,
            OpKind::Return,
            vec![r[0], r[0]],
            vec![],
            vec![],
            Span::UNKNOWN,
        );
        f.result_types = vec![t.clone().into(), t.into()];
        let text = emit_function(&f).unwrap();
        assert!(text.contains(
            "func.func @agc_impl_f(%arg0: tensor<?x4xf32> {bufferization.writable = false}) -> (tensor<?x4xf32>, tensor<?x4xf32>) \
             attributes {llvm.emit_c_interface}"
        ));
        assert!(text.contains("tensor.dim %arg0"), "{text}");
        assert!(text.contains("arith.addf"), "{text}");
        assert_eq!(
            text.matches("bufferization.alloc_tensor() copy(").count(),
            1,
            "{text}"
        );
    }

    #[test]
    fn bad_function_names_are_rejected() {
        let f = Function::new("a-b", &[], Span::UNKNOWN);
        assert!(matches!(
            emit_function(&f),
            Err(BackendError::Unsupported(_))
        ));
    }
}
