//! Static estimates of a function's work, for the statistics `--emit
//! opt-ir` prints before each function: live ops, floating-point work and
//! bytes written, from the (symbolic) result types, each op counted once
//! (a loop body once, both branches of an `if`), a symbolic dim counted as
//! [`crate::egg::cost::SYMBOLIC_DIM`] elements, as the optimiser's own cost model does.

use crate::egg::cost::{contracted, elements};
use agc_ir::{Function, OpData, OpKind, Type};

/// What [`estimate`] counts.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Estimate {
    /// Ops reachable from the body.
    pub ops: usize,
    /// Arithmetic: one per element an elementwise op or a reduction
    /// reads, two per multiply-add of a matmul.
    pub flops: f64,
    /// Bytes of the results of ops that make a new tensor (not views,
    /// constants or control flow).
    pub bytes: f64,
}

/// The estimate of `f`.
pub fn estimate(f: &Function) -> Estimate {
    let mut e = Estimate::default();
    for op in f.ops_within(f.body) {
        let od = f.op(op);
        e.ops += 1;
        let (flops, bytes) = op_cost(f, od);
        e.flops += flops;
        e.bytes += bytes;
    }
    e
}

/// The elements of tensor-typed `t` (0 for a continuation).
fn numel(t: &Type) -> f64 {
    match t {
        Type::Tensor(t) => elements(t),
        Type::Cont(_) => 0.0,
    }
}

/// `(flops, bytes written)` of one op.
fn op_cost(f: &Function, od: &OpData) -> (f64, f64) {
    let Some(&first) = od.results.first() else {
        return (0.0, 0.0);
    };
    let out = f.ty(first);
    let n = numel(out);
    let bytes = match out {
        Type::Tensor(t) => n * t.dtype.byte_size() as f64,
        Type::Cont(_) => 0.0,
    };
    match &od.kind {
        OpKind::Unary(_) | OpKind::Binary(_) | OpKind::Compare(_) | OpKind::Select => (n, bytes),
        OpKind::MatMul => (2.0 * n * contracted(f.ty(od.operands[0]).tensor()), bytes),
        OpKind::Reduce { .. } | OpKind::ArgReduce { .. } => (numel(f.ty(od.operands[0])), bytes),
        OpKind::Cast
        | OpKind::Fill
        | OpKind::Transpose { .. }
        | OpKind::BroadcastTo
        | OpKind::Concat { .. }
        | OpKind::Iota { .. }
        | OpKind::DynUpdate { .. } => (0.0, bytes),
        _ => (0.0, 0.0),
    }
}

/// `x` in a short form: `1234`, `1.2e6`.
pub fn short(x: f64) -> String {
    if x < 1e4 {
        format!("{x:.0}")
    } else {
        format!("{x:.2e}")
    }
}
