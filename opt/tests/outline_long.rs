//! `outline-long-regions` on IR built by hand: long regions become calls of
//! bounded functions kept out of line, short ones are untouched, values
//! that cannot cross a call stay where they are, and every function still
//! computes what it computed (the reference interpreter, bit for bit).

mod support;

use agc_ir::{DType, Function, Module, OpKind, ReduceKind, RegionId, TensorType, Value};
use agc_lowering::builder::Builder;
use agc_opt::passes::outline_long::{OutlineLongRegions, MAX_CROSSING, MAX_OPS, SEGMENT};
use support::{check_same, module, run_pass, ty};

fn f64n() -> TensorType {
    ty(DType::F64, &["N"])
}

/// `ops` elementwise updates of `a` by `y`, alternating `a * 0.5` and `a + y`.
fn chain(b: &mut Builder, mut a: Value, y: Value, ops: usize) -> Value {
    for i in 0..ops {
        a = if i % 2 == 0 {
            b.mul_const(a, 0.5).unwrap()
        } else {
            b.add(a, y).unwrap()
        };
    }
    a
}

/// Calls in region `r` of `f`.
fn calls_in(f: &Function, r: RegionId) -> usize {
    f.region(r)
        .ops
        .iter()
        .filter(|&&op| matches!(f.op(op).kind, OpKind::Call { .. }))
        .count()
}

/// The ops of every region of every function of `m` number at most [`MAX_OPS`].
fn assert_bounded(m: &Module) {
    for f in &m.funcs {
        for op in f.ops_within(f.body) {
            for &r in &f.op(op).regions {
                assert!(f.region(r).ops.len() <= MAX_OPS, "{}", f.name);
            }
        }
        assert!(f.region(f.body).ops.len() <= MAX_OPS, "{}", f.name);
    }
}

#[test]
fn a_long_straight_line_becomes_calls_of_bounded_functions() {
    // The sum of x is read at the end, across every cut.
    let before = module(&[f64n(), f64n()], |b, p| {
        let s = b.reduce(ReduceKind::Sum, p[0], vec![0], false);
        let a = chain(b, p[0], p[1], 3000);
        vec![b.mul(a, s).unwrap()]
    });
    let mut after = before.clone();
    run_pass(&OutlineLongRegions, &mut after);
    let main = &after.funcs[0];
    let cut = after.funcs.len() - 1;
    assert!(cut >= 3000 / (SEGMENT + 64), "{cut} functions");
    assert_eq!(calls_in(main, main.body), cut);
    assert!(after.funcs[1..].iter().all(|f| f.outlined));
    assert!(!main.outlined);
    assert_bounded(&after);
    check_same(&before, &after, 30, 5);
}

#[test]
fn a_long_branch_is_cut_inside_its_if() {
    let before = module(&[f64n(), f64n()], |b, p| {
        let s = b.reduce(ReduceKind::Sum, p[0], vec![0], false);
        let zero = b.scalar(DType::F64, 0.0);
        let c = b.compare(agc_ir::CmpOp::Gt, s, zero).unwrap();
        let then = b.f.new_region(&[]);
        let mut inner = b.at(then);
        let v = chain(&mut inner, p[0], p[1], 2000);
        inner.terminate(OpKind::Yield, vec![v]);
        let other = b.f.new_region(&[]);
        let mut inner = b.at(other);
        let v = inner.mul_const(p[1], 3.0).unwrap();
        inner.terminate(OpKind::Yield, vec![v]);
        b.op(OpKind::If, vec![c], vec![f64n()], vec![then, other])
    });
    let mut after = before.clone();
    run_pass(&OutlineLongRegions, &mut after);
    let main = &after.funcs[0];
    assert_eq!(calls_in(main, main.body), 0);
    let branch = main
        .ops_within(main.body)
        .into_iter()
        .find(|&op| matches!(main.op(op).kind, OpKind::If))
        .map(|op| main.op(op).regions[0])
        .unwrap();
    assert!(calls_in(main, branch) >= 2);
    assert_bounded(&after);
    check_same(&before, &after, 30, 7);
}

#[test]
fn regions_of_at_most_max_ops_are_unchanged() {
    // A chain of n updates is 1.5 n ops (each product has its constant), plus the return.
    let before = module(&[f64n(), f64n()], |b, p| {
        vec![chain(b, p[0], p[1], (MAX_OPS - 1) * 2 / 3)]
    });
    let f = &before.funcs[0];
    assert!((MAX_OPS - 2..=MAX_OPS).contains(&f.region(f.body).ops.len()));
    let mut after = before.clone();
    run_pass(&OutlineLongRegions, &mut after);
    assert_eq!(after.funcs.len(), 1);
    assert_eq!(
        agc_ir::print::print_module(&after),
        agc_ir::print::print_module(&before)
    );
}

#[test]
fn values_whose_dims_a_callee_cannot_bind_stay_in_the_caller() {
    // `c` (of length N + N, a dim expression no parameter binds) is defined
    // early and read at the end: no segment may return it.
    let before = module(&[f64n(), f64n()], |b, p| {
        let a = chain(b, p[0], p[1], 300);
        let c = b.concat(vec![a, a], 0).unwrap();
        let a = chain(b, a, p[1], 2500);
        let t = b.reduce(ReduceKind::Sum, a, vec![0], false);
        vec![b.mul(c, t).unwrap()]
    });
    let mut after = before.clone();
    run_pass(&OutlineLongRegions, &mut after);
    assert!(after.funcs.len() > 1);
    for f in &after.funcs[1..] {
        for v in f.params() {
            assert!(
                !format!("{}", f.ty(*v)).contains('+'),
                "{}",
                agc_ir::print::print_module(&after)
            );
        }
    }
    assert_bounded(&after);
    check_same(&before, &after, 30, 11);
}

#[test]
fn cuts_that_many_values_would_cross_are_not_made() {
    // 1,200 products of x, all live until the sum at the end: every cut
    // would pass more than MAX_CROSSING of them.
    let before = module(&[f64n(), f64n()], |b, p| {
        let products: Vec<Value> = (0..1200)
            .map(|k| b.mul_const(p[0], k as f64).unwrap())
            .collect();
        let mut total = p[1];
        for v in products {
            total = b.add(total, v).unwrap();
        }
        vec![total]
    });
    let mut after = before.clone();
    run_pass(&OutlineLongRegions, &mut after);
    for f in &after.funcs[1..] {
        assert!(f.params().len() + f.result_types.len() <= MAX_CROSSING);
    }
    check_same(&before, &after, 12, 3);
}
