//! Which result slots of a function provably hold buffers of their own.
//!
//! The deallocation pipeline hands every returned buffer to the caller but
//! does not notice two result slots holding the same buffer (the same
//! value, values CSE merged, a view of another result), which the caller
//! would free twice; so `function::emit_return` copies a result slot unless
//! this analysis shows that its buffer is fresh and differs from every
//! earlier slot's that is returned without a copy.
//!
//! A value is *fresh* when its op always writes a buffer of its own (or one
//! bufferization may reuse in place, which only happens to a dead operand,
//! and a returned value is live): elementwise ops, matmul, reductions over
//! some axis, fills, gathers and scatters, item updates, and the results of
//! calls, `apply` and `cont_outputs` (fresh buffers by the calling
//! convention); an `if` result is fresh when each branch yields a fresh
//! value at its position. A *view* (reshape, slice, indexing, transpose,
//! broadcast, cast, an empty reduction) may share the buffer of its source:
//! it is followed to its *root*, the first value that is not a view. Two
//! values may share a buffer when their roots may: the same root, fresh
//! roots CSE could merge (structural value numbers, [`ValueNumbers`], tell
//! them apart), `if` results some branch yields such values for, or a root
//! whose buffer is unknown (a loop result, a concat); a parameter or a
//! constant never shares with a fresh buffer. A returned view of a
//! parameter or a constant is cloned for the caller by the deallocation
//! pipeline, so only a shared *owned* buffer needs the copy.

use agc_ir::{Function, OpId, OpKind, RegionId, Value, ValueDef};
use std::collections::HashMap;

/// For each result slot of `f` (the operands of its `return`), whether it
/// may be returned without a copy: the first slot, and values that share no
/// buffer with an earlier slot returned without a copy (an earlier slot
/// that is copied gets a buffer of its own, which nothing else holds).
pub fn own_buffers(f: &Function) -> Vec<bool> {
    let term = *f
        .region(f.body)
        .ops
        .last()
        .expect("the body ends in a terminator");
    let rets = &f.op(term).operands;
    let mut sharing = Sharing {
        f,
        vn: ValueNumbers::new(f),
        memo: HashMap::new(),
    };
    let mut own: Vec<bool> = Vec::with_capacity(rets.len());
    for (i, &v) in rets.iter().enumerate() {
        let ok = i == 0 || (0..i).all(|j| !own[j] || !sharing.may_share(rets[j], v));
        own.push(ok);
    }
    own
}

/// The may-share relation of one function's values, memoised by roots: an
/// `if` nested in an `if` yields values that several branches reach (the
/// early returns of staged loops nest them dozens deep), and unmemoised the
/// walk visited them once per path, exponentially many.
struct Sharing<'f> {
    f: &'f Function,
    vn: ValueNumbers<'f>,
    memo: HashMap<(Value, Value), bool>,
}

impl Sharing<'_> {
    /// Whether `a` and `b` may hold the same buffer (see the module doc).
    fn may_share(&mut self, a: Value, b: Value) -> bool {
        let f = self.f;
        let (a, b) = (root(f, a), root(f, b));
        if a == b {
            return true;
        }
        if let Some(&known) = self.memo.get(&(a, b)) {
            return known;
        }
        let shared = match (if_result(f, a), if_result(f, b)) {
            (Some((op, p)), Some((op2, q))) if op == op2 => f
                .op(op)
                .regions
                .iter()
                .any(|&r| self.may_share(yielded(f, r, p), yielded(f, r, q))),
            (Some((op, p)), _) => f
                .op(op)
                .regions
                .iter()
                .any(|&r| self.may_share(yielded(f, r, p), b)),
            (_, Some((op, q))) => f
                .op(op)
                .regions
                .iter()
                .any(|&r| self.may_share(a, yielded(f, r, q))),
            (None, None) => match (is_fresh(f, a), is_fresh(f, b)) {
                (true, true) => self.vn.of(a) == self.vn.of(b),
                (true, false) => !is_external(f, b),
                (false, true) => !is_external(f, a),
                (false, false) => true,
            },
        };
        self.memo.insert((a, b), shared);
        shared
    }
}

/// The value whose buffer `v` may be a view of: `v` itself unless its op
/// is a view of its first operand (see the module doc), followed
/// transitively.
fn root(f: &Function, mut v: Value) -> Value {
    while let ValueDef::Result { op, .. } = f.value(v).def {
        let od = f.op(op);
        let view = match &od.kind {
            OpKind::Reshape
            | OpKind::Slice { .. }
            | OpKind::Transpose { .. }
            | OpKind::BroadcastTo
            | OpKind::Cast
            | OpKind::DynIndex { .. }
            | OpKind::DynSlice => true,
            OpKind::Reduce { axes, .. } => axes.is_empty(),
            _ => false,
        };
        if !view {
            break;
        }
        v = od.operands[0];
    }
    v
}

/// Whether `v` is a parameter or a constant: a buffer the function does not
/// allocate, distinct from every fresh one.
fn is_external(f: &Function, v: Value) -> bool {
    match f.value(v).def {
        ValueDef::Param { .. } => true,
        ValueDef::Result { op, .. } => matches!(f.op(op).kind, OpKind::Const(_)),
    }
}

/// The `if` op and result position of `v`, if an `if` makes it.
fn if_result(f: &Function, v: Value) -> Option<(OpId, usize)> {
    match f.value(v).def {
        ValueDef::Result { op, index } if f.op(op).kind == OpKind::If => Some((op, index)),
        _ => None,
    }
}

/// What branch `r` yields at `index`.
fn yielded(f: &Function, r: RegionId, index: usize) -> Value {
    let term = *f
        .region(r)
        .ops
        .last()
        .expect("verified regions end in a terminator");
    f.op(term).operands[index]
}

/// Structural value numbers: equal for values CSE could merge (same op
/// kind, attributes, operand numbers, type and result position), distinct
/// for parameters and for the results of ops with effects or regions.
pub struct ValueNumbers<'f> {
    f: &'f Function,
    memo: HashMap<Value, u32>,
    interned: HashMap<String, u32>,
}

impl<'f> ValueNumbers<'f> {
    /// Numbers for the values of `f`.
    pub fn new(f: &'f Function) -> Self {
        ValueNumbers {
            f,
            memo: HashMap::new(),
            interned: HashMap::new(),
        }
    }

    /// The number of `v`.
    pub fn of(&mut self, v: Value) -> u32 {
        if let Some(&n) = self.memo.get(&v) {
            return n;
        }
        let f = self.f;
        let key = match f.value(v).def {
            ValueDef::Result { op, index } => {
                let od = f.op(op);
                let pure = od.regions.is_empty()
                    && !matches!(
                        od.kind,
                        OpKind::Call { .. }
                            | OpKind::Apply
                            | OpKind::ContOutputs
                            | OpKind::MakeCont { .. }
                            | OpKind::Assert { .. }
                    );
                if pure {
                    let operands: Vec<u32> = od.operands.iter().map(|&o| self.of(o)).collect();
                    format!("{:?}{operands:?}:{}#{index}", od.kind, f.ty(v))
                } else {
                    format!("value{}", v.index())
                }
            }
            ValueDef::Param { .. } => format!("value{}", v.index()),
        };
        let next = self.interned.len() as u32;
        let n = *self.interned.entry(key).or_insert(next);
        self.memo.insert(v, n);
        n
    }
}

/// True when `v` always holds a buffer of its own (see the module doc); an
/// `if` result when every branch yields such a value (shared buffers
/// between positions are [`may_share`]'s concern).
fn is_fresh(f: &Function, v: Value) -> bool {
    let ValueDef::Result { op, index } = f.value(v).def else {
        return false;
    };
    let od = f.op(op);
    match &od.kind {
        OpKind::Binary(_)
        | OpKind::Unary(_)
        | OpKind::Compare(_)
        | OpKind::Select
        | OpKind::MatMul
        | OpKind::Fill
        | OpKind::Gather { .. }
        | OpKind::ScatterAdd { .. }
        | OpKind::DynUpdate { .. }
        | OpKind::Call { .. }
        | OpKind::Apply
        | OpKind::ContOutputs => true,
        OpKind::Reduce { axes, .. } => !axes.is_empty(),
        OpKind::If => od
            .regions
            .iter()
            .all(|&r| is_fresh(f, yielded(f, r, index))),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agc_ir::{BinaryOp, ConstData, DType, Dim, Span, TensorType, Type};

    fn function(build: impl FnOnce(&mut Function, Value) -> Vec<Value>) -> Function {
        let t = TensorType::new(DType::F32, vec![Dim::Sym("B".into()), Dim::Static(4)]);
        let mut f = Function::new("f", &[("x".into(), Type::Tensor(t))], Span::UNKNOWN);
        let x = f.params()[0];
        let rets = build(&mut f, x);
        f.result_types = rets.iter().map(|&v| f.ty(v).clone()).collect();
        let body = f.body;
        f.append_op(body, OpKind::Return, rets, vec![], vec![], Span::UNKNOWN);
        f
    }

    fn op(f: &mut Function, kind: OpKind, operands: Vec<Value>, ty: Type) -> Value {
        let body = f.body;
        f.append_op(body, kind, operands, vec![ty], vec![], Span::UNKNOWN)
            .1[0]
    }

    #[test]
    fn distinct_fresh_results_need_no_copy() {
        let f = function(|f, x| {
            let ty = f.ty(x).clone();
            let a = op(f, OpKind::Binary(BinaryOp::Add), vec![x, x], ty.clone());
            let m = op(f, OpKind::Binary(BinaryOp::Mul), vec![x, x], ty);
            vec![a, m]
        });
        assert_eq!(own_buffers(&f), vec![true, true]);
    }

    #[test]
    fn repeated_values_and_views_of_returned_buffers_are_copied() {
        let f = function(|f, x| {
            let ty = f.ty(x).clone();
            let a = op(f, OpKind::Binary(BinaryOp::Add), vec![x, x], ty);
            let flat = Type::Tensor(TensorType::new(DType::F32, vec![Dim::Sym("(B*4)".into())]));
            let r = op(f, OpKind::Reshape, vec![a], flat.clone());
            let rx = op(f, OpKind::Reshape, vec![x], flat);
            // The parameter is the deallocation pipeline's to clone; its
            // view in a later slot may be the same buffer.
            vec![a, a, x, r, rx]
        });
        assert_eq!(own_buffers(&f), vec![true, false, true, false, false]);
    }

    #[test]
    fn a_view_shares_only_with_its_root() {
        let f = function(|f, x| {
            let ty = f.ty(x).clone();
            let a = op(f, OpKind::Binary(BinaryOp::Add), vec![x, x], ty.clone());
            let flat = Type::Tensor(TensorType::new(DType::F32, vec![Dim::Sym("(B*4)".into())]));
            let r = op(f, OpKind::Reshape, vec![a], flat.clone());
            let m = op(f, OpKind::Binary(BinaryOp::Mul), vec![x, x], ty);
            let r2 = op(f, OpKind::Reshape, vec![a], flat);
            // A view of `a` first: `m` has a buffer of its own, the second
            // view of `a` does not.
            vec![r, m, r2]
        });
        assert_eq!(own_buffers(&f), vec![true, true, false]);
    }

    #[test]
    fn a_copied_slot_does_not_force_copies_of_later_fresh_slots() {
        let f = function(|f, x| {
            let ty = f.ty(x).clone();
            let a = op(f, OpKind::Binary(BinaryOp::Add), vec![x, x], ty.clone());
            let m = op(f, OpKind::Binary(BinaryOp::Mul), vec![x, x], ty.clone());
            let s = op(f, OpKind::Binary(BinaryOp::Sub), vec![x, x], ty);
            // a, a again (copied), then m and s: distinct from every slot
            // returned as is; the parameter is cloned by the deallocation
            // pipeline.
            vec![a, a, m, s, x]
        });
        assert_eq!(own_buffers(&f), vec![true, false, true, true, true]);
    }

    #[test]
    fn a_first_slot_that_may_be_a_view_copies_the_rest() {
        let f = function(|f, x| {
            let ty = f.ty(x).clone();
            let a = op(f, OpKind::Binary(BinaryOp::Add), vec![x, x], ty);
            let flat = Type::Tensor(TensorType::new(DType::F32, vec![Dim::Sym("(B*4)".into())]));
            let r = op(f, OpKind::Reshape, vec![a], flat);
            vec![r, a]
        });
        assert_eq!(own_buffers(&f), vec![true, false]);
    }

    #[test]
    fn if_results_share_only_what_a_branch_yields_twice() {
        // if c { yield fill0, fill0, x + x } else { yield x * x, x - x, x * x }
        let f = function(|f, x| {
            let ty = f.ty(x).clone();
            let b = Type::Tensor(TensorType::scalar(DType::Bool));
            let c = op(f, OpKind::Const(ConstData::Bool(vec![true])), vec![], b);
            let (then_r, else_r) = (f.new_region(&[]), f.new_region(&[]));
            let zero = Type::Tensor(TensorType::scalar(DType::F32));
            let add = |f: &mut Function, r, kind, operands, ty: &Type| {
                f.append_op(r, kind, operands, vec![ty.clone()], vec![], Span::UNKNOWN)
                    .1[0]
            };
            let z = add(
                f,
                then_r,
                OpKind::Const(ConstData::Float(vec![0.0])),
                vec![],
                &zero,
            );
            let z1 = add(f, then_r, OpKind::Fill, vec![z], &ty);
            let z2 = add(f, then_r, OpKind::Fill, vec![z], &ty);
            let a = add(f, then_r, OpKind::Binary(BinaryOp::Add), vec![x, x], &ty);
            f.append_op(
                then_r,
                OpKind::Yield,
                vec![z1, z2, a],
                vec![],
                vec![],
                Span::UNKNOWN,
            );
            let m = add(f, else_r, OpKind::Binary(BinaryOp::Mul), vec![x, x], &ty);
            let d = add(f, else_r, OpKind::Binary(BinaryOp::Sub), vec![x, x], &ty);
            f.append_op(
                else_r,
                OpKind::Yield,
                vec![m, d, m],
                vec![],
                vec![],
                Span::UNKNOWN,
            );
            let body = f.body;
            let r = f
                .append_op(
                    body,
                    OpKind::If,
                    vec![c],
                    vec![ty.clone(); 3],
                    vec![then_r, else_r],
                    Span::UNKNOWN,
                )
                .1;
            vec![r[0], r[1], r[2]]
        });
        // Slot 1 may be slot 0's buffer (CSE merges the fills); slot 2 may be
        // slot 0's in the else branch (the same value).
        assert_eq!(own_buffers(&f), vec![true, false, false]);
    }

    #[test]
    fn values_cse_would_merge_are_copied() {
        let f = function(|f, x| {
            let ty = f.ty(x).clone();
            let zero = Type::Tensor(TensorType::scalar(DType::F32));
            let c1 = op(
                f,
                OpKind::Const(ConstData::Float(vec![0.0])),
                vec![],
                zero.clone(),
            );
            let c2 = op(f, OpKind::Const(ConstData::Float(vec![0.0])), vec![], zero);
            let z1 = op(f, OpKind::Fill, vec![c1], ty.clone());
            let z2 = op(f, OpKind::Fill, vec![c2], ty.clone());
            let a1 = op(f, OpKind::Binary(BinaryOp::Add), vec![x, z1], ty.clone());
            let a2 = op(f, OpKind::Binary(BinaryOp::Add), vec![x, z2], ty);
            vec![a1, a2, z1]
        });
        assert_eq!(own_buffers(&f), vec![true, false, true]);
    }
}
