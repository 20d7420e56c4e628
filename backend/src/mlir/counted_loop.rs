//! A counted `while` (a staged `for i in range(a, b)`) as `scf.for`.
//!
//! The stager writes such a loop as a `while` whose state holds the counter:
//! the condition region is only `counter < bound`, with a bound defined
//! outside the loop, forwarding the state unchanged, and the body yields
//! `counter + 1`. That loop becomes an `scf.for` over `index` whose body sees
//! the counter as a rank-0 `i64` again. The reason is bufferization: one-shot
//! bufferization copies every state buffer of an `scf.while` at its
//! `scf.condition` on each iteration (they are not equivalent to the buffers
//! the body yields), while `scf.for` hands the body's new buffers on as they
//! are. Any other `while` (a `break` flag in the condition, a step other
//! than 1, a bound computed in the loop) stays an `scf.while`.
//!
//! A counted loop runs its count to the end after a run-time error in its
//! body (an `scf.while` stops on `agc_rt_ok()`): it ends anyway, and the
//! call's results are discarded.

use super::control::{results, terminator};
use super::emitter::FnEmitter;
use super::function::emit_region;
use super::rank0;
use crate::BackendError;
use agc_ir::{BinaryOp, CmpOp, ConstData, DType, Function, OpData, OpKind, Value, ValueDef};

/// Which state value of a counted `while` is its counter, and its bound.
pub struct Counted {
    counter: usize,
    bound: Value,
}

/// Recognises a counted `while` (see the module doc).
pub fn counted(f: &Function, od: &OpData) -> Option<Counted> {
    let (before, after) = (f.region(od.regions[0]), f.region(od.regions[1]));
    let [cmp, cond] = before.ops[..] else {
        return None;
    };
    let (cmp, cond) = (f.op(cmp), f.op(cond));
    if cmp.kind != OpKind::Compare(CmpOp::Lt) || cond.kind != OpKind::Condition {
        return None;
    }
    if cond.operands[0] != cmp.results[0] || cond.operands[1..] != before.params[..] {
        return None;
    }
    let counter = before.params.iter().position(|&p| p == cmp.operands[0])?;
    let bound = cmp.operands[1];
    let is_i64_scalar = |v: Value| {
        let t = f.ty(v).tensor();
        t.rank() == 0 && t.dtype == DType::I64
    };
    if before.params.contains(&bound) || !is_i64_scalar(bound) || !is_i64_scalar(cmp.operands[0]) {
        return None;
    }
    let term = f.op(*after.ops.last()?);
    let next = *term.operands.get(counter)?;
    let ValueDef::Result { op, .. } = f.value(next).def else {
        return None;
    };
    let step = f.op(op);
    let is_one = |v: Value| match f.value(v).def {
        ValueDef::Result { op, .. } => {
            matches!(&f.op(op).kind, OpKind::Const(ConstData::Int(d)) if d[..] == [1])
        }
        ValueDef::Param { .. } => false,
    };
    let param = after.params[counter];
    let steps_by_one = step.kind == OpKind::Binary(BinaryOp::Add)
        && ((step.operands[0] == param && is_one(step.operands[1]))
            || (step.operands[1] == param && is_one(step.operands[0])));
    steps_by_one.then_some(Counted { counter, bound })
}

/// Lowers a counted `while` to `scf.for`; returns the `while`'s results (the
/// counter's is `max(start, bound)`, where the `while` would have stopped).
pub fn for_op(e: &mut FnEmitter, od: &OpData, c: &Counted) -> Result<Vec<String>, BackendError> {
    let f = e.f;
    let after = od.regions[1];
    let scalar = |e: &mut FnEmitter, v: Value| -> Result<String, BackendError> {
        let t = e.val(v)?;
        Ok(rank0::element(e, &t, e.ty(v)))
    };
    let start = scalar(e, od.operands[c.counter])?;
    let bound = scalar(e, c.bound)?;
    let lb = e.assign(&format!("arith.index_cast {start} : i64 to index"));
    let ub = e.assign(&format!("arith.index_cast {bound} : i64 to index"));
    let one = e.index_const(1);
    let carried: Vec<usize> = (0..od.operands.len()).filter(|&i| i != c.counter).collect();
    let mut inits = Vec::new();
    let mut tys = Vec::new();
    let mut args = Vec::new();
    let params = &f.region(after).params;
    for &i in &carried {
        let arg = e.fresh("s");
        let (v, ty) = (od.operands[i], e.ty(od.operands[i]));
        let init = e.val(v)?;
        inits.push(format!("{arg} = {}", rank0::to_carried(e, init, ty)));
        tys.push(rank0::carried_type(ty));
        args.push(arg);
    }
    let r = e.fresh("for");
    let (lhs, names) = results(&r, carried.len());
    let iv = e.fresh("i");
    e.line(&format!(
        "{lhs}scf.for {iv} = {lb} to {ub} step {one} iter_args({}) -> ({}) {{",
        inits.join(", "),
        tys.join(", ")
    ));
    e.push_scope();
    e.enter();
    let i64v = e.assign(&format!("arith.index_cast {iv} : index to i64"));
    let counter = rank0::wrap(e, &i64v, e.ty(params[c.counter]));
    e.set_val(params[c.counter], counter);
    for (&i, arg) in carried.iter().zip(args) {
        let t = rank0::from_carried(e, arg, e.ty(params[i]));
        e.set_val(params[i], t);
    }
    for &p in params {
        let name = e.val(p)?;
        e.bind_new_syms(&name, e.ty(p));
    }
    let (_, yields) = emit_region(e, after)?;
    let term = terminator(f, after);
    let vals: Vec<String> = carried
        .iter()
        .map(|&i| rank0::to_carried(e, yields[i].clone(), e.ty(term.operands[i])))
        .collect();
    e.line(&if vals.is_empty() {
        "scf.yield".to_string()
    } else {
        format!("scf.yield {} : {}", vals.join(", "), tys.join(", "))
    });
    e.leave();
    e.pop_scope();
    e.line("}");
    let last = e.assign(&format!("arith.maxsi {start}, {bound} : i64"));
    let last = rank0::wrap(e, &last, e.ty(od.results[c.counter]));
    let mut out = Vec::new();
    let mut rest = names.into_iter();
    for (i, &v) in od.results.iter().enumerate() {
        out.push(if i == c.counter {
            last.clone()
        } else {
            let r = rest.next().expect("one result per carried value");
            rank0::from_carried(e, r, e.ty(v))
        });
    }
    Ok(out)
}
