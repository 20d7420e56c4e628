//! Which result slots of a function provably hold buffers of their own.
//!
//! The deallocation pipeline hands every returned buffer to the caller but
//! does not notice two result slots holding the same buffer (the same
//! value, values CSE merged, a view of another result), which the caller
//! would free twice; so `function::emit_return` copies a result slot unless
//! this analysis shows that its buffer is fresh and differs from every
//! earlier slot's.
//!
//! A value is *fresh* when its op always writes a buffer of its own (or one
//! bufferization may reuse in place, which only happens to a dead operand,
//! and a returned value is live): elementwise ops, matmul, reductions over
//! some axis, fills, gathers and scatters, item updates, and the results of
//! calls, `apply` and `cont_outputs` (fresh buffers by the calling
//! convention); an `if` result is fresh when each branch yields, at its
//! position, a fresh value made in that branch that no other position of
//! the branch yields. Views (reshape, slices, indexing), casts, transposes,
//! broadcasts and constants may share a buffer (or fold into their operand)
//! and are never fresh. Two fresh values share a buffer only if CSE merges
//! them: structural value numbers ([`ValueNumbers`]) tell them apart.
//!
//! The first slot is always returned as it is (the deallocation pipeline
//! clones it when the function does not own it); a later fresh slot still
//! needs no copy when that first slot is not fresh, if the buffers the
//! first slot may hold ([`roots`]) are not among those it may hold.

use agc_ir::{Function, OpKind, RegionId, Value, ValueDef};
use std::collections::{BTreeSet, HashMap};

/// For each result slot of `f` (the operands of its `return`), whether it
/// may be returned without a copy: the first slot, and fresh values
/// distinct from every earlier slot returned without a copy (another
/// value number for a fresh one, no common root for the first slot).
pub fn own_buffers(f: &Function) -> Vec<bool> {
    let term = *f
        .region(f.body)
        .ops
        .last()
        .expect("the body ends in a terminator");
    let rets = &f.op(term).operands;
    let mut vn = ValueNumbers::new(f);
    let fresh: Vec<bool> = rets.iter().map(|&v| is_fresh(f, v, &mut vn)).collect();
    let numbers: Vec<u32> = rets.iter().map(|&v| vn.of(v)).collect();
    let mut own: Vec<bool> = Vec::with_capacity(rets.len());
    for i in 0..rets.len() {
        let distinct = |j: usize, vn: &mut ValueNumbers| {
            if fresh[j] {
                numbers[j] != numbers[i]
            } else {
                match (roots(f, rets[j], vn), roots(f, rets[i], vn)) {
                    (Some(a), Some(b)) => a.is_disjoint(&b),
                    _ => false,
                }
            }
        };
        let ok = i == 0 || (fresh[i] && (0..i).all(|j| !own[j] || distinct(j, &mut vn)));
        own.push(ok);
    }
    own
}

/// The buffers `v` may hold, as value numbers of the values that made
/// them (`None`: unknown): a fresh value's own; an `if` result, those of
/// the values its branches yield there; another op's result, its own and
/// its operands' (a view or a cast may share its operand's buffer); a
/// parameter, its own. A loop's state and results are unknown.
fn roots(f: &Function, v: Value, vn: &mut ValueNumbers) -> Option<BTreeSet<u32>> {
    let ValueDef::Result { op, index } = f.value(v).def else {
        return match f.value(v).def {
            ValueDef::Param { region, .. } if region == f.body => Some([vn.of(v)].into()),
            _ => None,
        };
    };
    let od = f.op(op);
    match od.kind {
        OpKind::If => {
            let mut all = BTreeSet::new();
            for &r in &od.regions {
                let &term = f.region(r).ops.last()?;
                all.extend(roots(f, f.op(term).operands[index], vn)?);
            }
            Some(all)
        }
        OpKind::While => None,
        _ if is_fresh(f, v, vn) => Some([vn.of(v)].into()),
        _ => {
            let mut all: BTreeSet<u32> = [vn.of(v)].into();
            for &x in &od.operands {
                if f.ty(x).as_tensor().is_some() {
                    all.extend(roots(f, x, vn)?);
                }
            }
            Some(all)
        }
    }
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

/// True when `v` always holds a buffer of its own (see the module doc).
fn is_fresh(f: &Function, v: Value, vn: &mut ValueNumbers) -> bool {
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
        OpKind::If => od.regions.iter().all(|&r| fresh_yield(f, r, index, vn)),
        _ => false,
    }
}

/// True when region `r` (an `if` branch) yields at position `index` a fresh
/// value made in `r` that no other position of its yield holds.
fn fresh_yield(f: &Function, r: RegionId, index: usize, vn: &mut ValueNumbers) -> bool {
    let ops = &f.region(r).ops;
    let Some(&term) = ops.last() else {
        return false;
    };
    let yields = &f.op(term).operands;
    let y = yields[index];
    let made_here = matches!(f.value(y).def, ValueDef::Result { op, .. } if ops.contains(&op));
    made_here
        && is_fresh(f, y, vn)
        && yields
            .iter()
            .enumerate()
            .all(|(j, &w)| j == index || vn.of(w) != vn.of(y))
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
    fn repeated_values_params_and_views_are_copied() {
        let f = function(|f, x| {
            let ty = f.ty(x).clone();
            let a = op(f, OpKind::Binary(BinaryOp::Add), vec![x, x], ty);
            let flat = Type::Tensor(TensorType::new(DType::F32, vec![Dim::Sym("(B*4)".into())]));
            let r = op(f, OpKind::Reshape, vec![a], flat);
            vec![a, a, x, r]
        });
        assert_eq!(own_buffers(&f), vec![true, false, false, false]);
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

    #[test]
    fn a_first_slot_that_is_not_fresh_copies_only_what_it_may_hold() {
        let f = function(|f, x| {
            let ty = f.ty(x).clone();
            let a = op(f, OpKind::Binary(BinaryOp::Add), vec![x, x], ty.clone());
            let m = op(f, OpKind::Binary(BinaryOp::Mul), vec![x, x], ty);
            let flat = Type::Tensor(TensorType::new(DType::F32, vec![Dim::Sym("(B*4)".into())]));
            let r = op(f, OpKind::Reshape, vec![a], flat);
            // The view of `a` first: `a` needs a copy, `m` does not.
            vec![r, a, m]
        });
        assert_eq!(own_buffers(&f), vec![true, false, true]);
    }
}
