//! How long the buffers a continuation captures must stay unwritten.
//!
//! `cont` stores the addresses of its captured buffers in its environment
//! record (see `continuation`), and the continuation reads them whenever it
//! is applied: inside the op that receives it (a call, or an `if` or loop
//! whose regions apply it or pass it on), or through another continuation
//! that captures it. One-shot bufferization sees none of those reads: to it,
//! a captured tensor is read once, at the `cont`, and an op after it may
//! write its result into the captured buffer once no SSA use of the tensor
//! is left (an elementwise result, a fill, a branch's value). The
//! continuation would then read that result instead of the capture.
//!
//! [`capture_ends`] finds, for each `cont` of a region, the last op of the
//! region that may apply it: the last op using its value, itself or in a
//! nested region, or using a continuation made in the region that captures
//! it. The emitter reads the captures again right after that op
//! (`continuation::keep_captures`), so bufferization keeps every write in
//! between out of their buffers.

use agc_ir::{Function, OpId, OpKind, RegionId, Value};

/// For each op of region `r`, by position, the `cont` ops of `r` whose
/// captures that op is the last to read.
pub fn capture_ends(f: &Function, r: RegionId) -> Vec<Vec<OpId>> {
    let ops = &f.region(r).ops;
    let mut ends = vec![Vec::new(); ops.len()];
    for (i, &op) in ops.iter().enumerate() {
        if let OpKind::MakeCont { .. } = f.op(op).kind {
            ends[last_use(f, ops, i)].push(op);
        }
    }
    ends
}

/// The position of the last op of `ops` after position `at` (a `cont`)
/// that may apply the continuation made there; `at` if none.
fn last_use(f: &Function, ops: &[OpId], at: usize) -> usize {
    let k = f.op(ops[at]).results[0];
    let mut end = at;
    for (j, &op) in ops.iter().enumerate().skip(at + 1) {
        if uses(f, op, k) {
            end = end.max(j);
            if let OpKind::MakeCont { .. } = f.op(op).kind {
                end = end.max(last_use(f, ops, j));
            }
        }
    }
    end
}

/// True when `op` or an op nested in its regions reads `v`.
fn uses(f: &Function, op: OpId, v: Value) -> bool {
    let od = f.op(op);
    od.operands.contains(&v)
        || od
            .regions
            .iter()
            .any(|&r| f.region(r).ops.iter().any(|&o| uses(f, o, v)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use agc_ir::{ContType, DType, Span, TensorType, Type};

    /// `k0 = cont x; k1 = cont k0; a = apply k0; if c { apply k1 }; b = neg x; return b`
    #[test]
    fn a_continuation_lives_as_long_as_one_that_captures_it() {
        let t = TensorType::scalar(DType::F32);
        let ct = Type::Cont(ContType {
            args: vec![t.clone()],
            results: vec![t.clone()],
        });
        let params = [
            ("x".to_string(), Type::Tensor(t.clone())),
            (
                "c".to_string(),
                Type::Tensor(TensorType::scalar(DType::Bool)),
            ),
        ];
        let mut f = Function::new("f", &params, Span::UNKNOWN);
        let (x, c) = (f.params()[0], f.params()[1]);
        let body = f.body;
        let s = Span::UNKNOWN;
        let fid = agc_ir::FuncId(0);
        let tt = Type::Tensor(t.clone());
        let (k0_op, k0) = f.append_op(
            body,
            OpKind::MakeCont { func: fid },
            vec![x],
            vec![ct.clone()],
            vec![],
            s,
        );
        let (k1_op, k1) = f.append_op(
            body,
            OpKind::MakeCont { func: fid },
            vec![k0[0]],
            vec![ct],
            vec![],
            s,
        );
        f.append_op(
            body,
            OpKind::Apply,
            vec![k0[0], x],
            vec![tt.clone()],
            vec![],
            s,
        );
        let then = f.new_region(&[]);
        let (_, a) = f.append_op(
            then,
            OpKind::Apply,
            vec![k1[0], x],
            vec![tt.clone()],
            vec![],
            s,
        );
        f.append_op(then, OpKind::Yield, a, vec![], vec![], s);
        let other = f.new_region(&[]);
        f.append_op(other, OpKind::Yield, vec![x], vec![], vec![], s);
        f.append_op(
            body,
            OpKind::If,
            vec![c],
            vec![tt.clone()],
            vec![then, other],
            s,
        );
        let (_, b) = f.append_op(
            body,
            OpKind::Unary(agc_ir::UnaryOp::Neg),
            vec![x],
            vec![tt],
            vec![],
            s,
        );
        f.append_op(body, OpKind::Return, b, vec![], vec![], s);
        let ends = capture_ends(&f, body);
        assert_eq!(ends[3], vec![k0_op, k1_op]);
        assert!(ends.iter().enumerate().all(|(i, e)| i == 3 || e.is_empty()));
    }
}
