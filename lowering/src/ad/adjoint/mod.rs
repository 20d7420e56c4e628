//! Adjoint rules, one file per op family.
//!
//! A rule for a single-result op gets the forward operands and result, the
//! adjoint `g` of the result, and which operands want an adjoint; it emits
//! the backward ops and returns one contribution per operand (`None`: no
//! gradient), each of exactly the operand's type, or, for the tensor a
//! gather reads, its rows ([`super::sparse`]). Broadcasting ops reduce
//! their contributions back to the operand's shape with [`unbroadcast`].
//! Control flow (`if`, `while`, `call`) needs the whole context and lives in
//! [`branch`], [`loops`] and [`call`].

pub(crate) mod branch;
pub(crate) mod call;
pub(crate) mod elementwise;
pub(crate) mod gather;
pub(crate) mod index;
pub(crate) mod layout;
pub(crate) mod linalg;
pub(crate) mod loops;
pub(crate) mod reduce;
pub(crate) mod strided;

use super::context::ModCx;
use super::sparse::Contribution;
use crate::builder::{BResult, Builder};
use agc_ir::infer::TypeError;
use agc_ir::{Dim, OpKind, ReduceKind, TensorType, Value};

/// The inputs of a rule for a single-result op.
pub(crate) struct Rule<'b, 'm> {
    /// Emits the backward ops.
    pub b: Builder<'b>,
    /// Forward operands.
    pub x: Vec<Value>,
    /// Forward result.
    pub y: Value,
    /// Adjoint of the result.
    pub g: Value,
    /// Which operands want a contribution.
    pub want: Vec<bool>,
    /// The module context (for fresh symbolic dims).
    pub mcx: &'b mut ModCx<'m>,
}

/// One contribution per operand.
pub(crate) type Grads = Vec<Option<Contribution>>;

/// One dense contribution per operand (the rules of most families).
pub(crate) type DenseGrads = Vec<Option<Value>>;

/// Dense contributions as [`Grads`].
fn dense(grads: Result<DenseGrads, RuleError>) -> Result<Grads, RuleError> {
    Ok(grads?
        .into_iter()
        .map(|g| g.map(Contribution::Dense))
        .collect())
}

/// Why a rule failed.
#[derive(Debug)]
pub(crate) enum RuleError {
    /// Generated code that does not type-check (a bug).
    Type(TypeError),
    /// A case the rules do not cover yet.
    Unsupported(String),
}

impl From<TypeError> for RuleError {
    fn from(e: TypeError) -> Self {
        RuleError::Type(e)
    }
}

impl Rule<'_, '_> {
    /// The type of a value of the function being built.
    pub fn ty(&self, v: Value) -> TensorType {
        self.b.ty(v)
    }

    /// `f(self)` for operand `i` when it wants a contribution.
    pub fn when<F>(&mut self, i: usize, f: F) -> Result<Option<Value>, RuleError>
    where
        F: FnOnce(&mut Self) -> Result<Value, RuleError>,
    {
        if self.want.get(i).copied().unwrap_or(false) {
            f(self).map(Some)
        } else {
            Ok(None)
        }
    }
}

/// Applies the rule of a single-result, region-free op.
pub(crate) fn apply(kind: &OpKind, r: &mut Rule) -> Result<Grads, RuleError> {
    match kind {
        OpKind::Unary(u) => dense(elementwise::unary(r, *u)),
        OpKind::Binary(op) => dense(elementwise::binary(r, *op)),
        OpKind::Select => dense(elementwise::select(r)),
        OpKind::Cast => dense(elementwise::cast(r)),
        OpKind::Fill => dense(elementwise::fill(r)),
        OpKind::MatMul => dense(linalg::matmul(r)),
        OpKind::Reduce { kind, axes, .. } => dense(reduce::reduce(r, *kind, axes)),
        OpKind::Reshape
        | OpKind::Transpose { .. }
        | OpKind::BroadcastTo
        | OpKind::Concat { .. }
        | OpKind::Slice { .. } => dense(layout::apply(r, kind)),
        OpKind::DynIndex { .. } | OpKind::DynSlice | OpKind::DynUpdate { .. } => {
            index::apply(r, kind)
        }
        OpKind::Gather { .. } | OpKind::ScatterAdd { .. } => gather::apply(r, kind),
        // No gradient: literals, weights, sizes, comparisons, indices of extrema.
        OpKind::Const(_)
        | OpKind::Weight(_)
        | OpKind::Iota { .. }
        | OpKind::Dim { .. }
        | OpKind::Compare(_)
        | OpKind::ArgReduce { .. }
        | OpKind::Assert { .. } => Ok(vec![None; r.x.len()]),
        OpKind::Return
        | OpKind::Yield
        | OpKind::Condition
        | OpKind::If
        | OpKind::While
        | OpKind::Call { .. }
        | OpKind::MakeCont { .. }
        | OpKind::Apply
        | OpKind::ContOutputs => Err(RuleError::Unsupported(format!(
            "`{}` has no single-op adjoint rule",
            kind.name()
        ))),
    }
}

/// Sums `g` (of a broadcast shape) back to the shape of `to`: over the
/// leading axes `to` lacks and the axes where `to` has size 1, then reshapes.
pub(crate) fn unbroadcast(b: &mut Builder, g: Value, to: &TensorType) -> BResult {
    let t = b.ty(g);
    let lead = t
        .rank()
        .checked_sub(to.rank())
        .ok_or_else(|| TypeError::Other(format!("cannot reduce {t} to {to}")))?;
    let mut axes: Vec<usize> = (0..lead).collect();
    for (i, d) in to.dims.iter().enumerate() {
        if *d == Dim::Static(1) && t.dims[lead + i] != Dim::Static(1) {
            axes.push(lead + i);
        }
    }
    let s = b.reduce(ReduceKind::Sum, g, axes, false);
    b.reshape(s, &to.dims)
}
