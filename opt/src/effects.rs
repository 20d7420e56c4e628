//! What an op may do besides computing its results, which decides what a
//! pass may do with it.
//!
//! - [`Effect::Pure`]: a function of its operands that always succeeds: it
//!   may be removed when unused, moved, and merged with an identical op.
//! - [`Effect::Checked`]: deterministic, but may fail the call at run time
//!   (an index out of range, the max of an empty tensor): an identical op
//!   that it dominates may reuse its results (the first one has already
//!   succeeded), but it is never removed or moved, so the error stays.
//! - [`Effect::Opaque`]: everything else — control flow (whose regions may
//!   hold anything), calls, asserts, terminators, continuations (each
//!   applied at most once, so never duplicated or merged).

use agc_ir::{Function, OpData, OpKind, ReduceKind};

/// The class of an op, from most to least movable.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Effect {
    /// Always succeeds; depends only on its operands.
    Pure,
    /// Deterministic; may fail at run time.
    Checked,
    /// May do anything: kept in place, never merged.
    Opaque,
}

/// The effect class of `od` in `f`.
pub fn effect(f: &Function, od: &OpData) -> Effect {
    let touches_cont = od
        .operands
        .iter()
        .chain(&od.results)
        .any(|v| f.ty(*v).as_cont().is_some());
    if touches_cont || !od.regions.is_empty() {
        return Effect::Opaque;
    }
    match &od.kind {
        OpKind::Const(_)
        | OpKind::Weight(_)
        | OpKind::Unary(_)
        | OpKind::Binary(_)
        | OpKind::Compare(_)
        | OpKind::Select
        | OpKind::Cast
        | OpKind::MatMul
        | OpKind::Reshape
        | OpKind::Transpose { .. }
        | OpKind::BroadcastTo
        | OpKind::Concat { .. }
        | OpKind::Slice { .. }
        | OpKind::Dim { .. } => Effect::Pure,
        OpKind::Reduce {
            kind: ReduceKind::Sum | ReduceKind::Prod,
            ..
        } => Effect::Pure,
        // A max or min fails only on an empty reduction: not over axes of
        // static nonzero sizes.
        OpKind::Reduce { axes, .. }
            if axes.iter().all(|&a| {
                f.ty(od.operands[0]).tensor().dims[a]
                    .as_static()
                    .is_some_and(|n| n > 0)
            }) =>
        {
            Effect::Pure
        }
        // Without run-time sizes; with them, checked like the other ops
        // whose result depends on a size computed at run time.
        OpKind::Fill if od.operands.len() == 1 => Effect::Pure,
        OpKind::Iota { .. } if od.operands.is_empty() => Effect::Pure,
        OpKind::Fill
        | OpKind::Iota { .. }
        | OpKind::Reduce { .. }
        | OpKind::ArgReduce { .. }
        | OpKind::DynIndex { .. }
        | OpKind::DynSlice
        | OpKind::DynUpdate { .. }
        | OpKind::Gather { .. }
        | OpKind::ScatterAdd { .. } => Effect::Checked,
        OpKind::Return
        | OpKind::If
        | OpKind::While
        | OpKind::Yield
        | OpKind::Condition
        | OpKind::Call { .. }
        | OpKind::Assert { .. }
        | OpKind::MakeCont { .. }
        | OpKind::Apply
        | OpKind::ContOutputs => Effect::Opaque,
    }
}
