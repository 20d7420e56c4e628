//! Activity per call site: the generated code computes no adjoint for a
//! value no requested gradient depends on (a table passed down a recursion
//! but not differentiated, a result nobody reads), and the gradients stay
//! right (checked against float64 central finite differences).

mod support;

use agc_ir::{BinaryOp, CmpOp, DType, FuncId, Module, ReduceKind, Type, UnaryOp, Value};
use agc_lowering::builder::Builder;
use support::interp::T;
use support::models::{generated_ops, three_leaves, tree_with_table};
use support::{add_fn, check_grad, f64t, for_range, if_, scalarize, ty, Rng};

#[test]
fn a_table_passed_down_a_recursion_gets_no_adjoint_unless_differentiated() {
    let table = f64t(&[5, 3]);
    let mut rng = Rng(71);
    let (mut m, main) = tree_with_table(&table);
    let first = m.funcs.len();
    check_grad(&mut m, main, &[0], &three_leaves(&mut rng, 5));
    let with_table: Vec<_> = generated_ops(&m, first)
        .into_iter()
        .filter(|(_, _, t)| *t == Type::Tensor(table.clone()))
        .collect();
    assert!(
        with_table.is_empty(),
        "adjoints of the table in {with_table:?}\n{}",
        agc_ir::print::print_module(&m)
    );
    // Differentiated, the table has its adjoint (the check above means something).
    let (mut m, main) = tree_with_table(&table);
    check_grad(&mut m, main, &[0, 1], &three_leaves(&mut rng, 5));
    assert!(generated_ops(&m, first)
        .iter()
        .any(|(_, _, t)| *t == Type::Tensor(table.clone())));
}

#[test]
fn a_result_nobody_reads_receives_no_adjoint() {
    // pair(x, n) = (x * pair(x, n-1).0, cos(pair(x, n-1).1)), (x, sin(sum(x)))
    // at n = 0; main reads .0 only.
    let mut m = Module::new("t");
    let (v3, s) = (f64t(&[3]), f64t(&[]));
    let pair_id = FuncId(0);
    let pair = add_fn(
        &mut m,
        "pair",
        &[v3.clone(), ty(DType::I64, &[])],
        |b, p| {
            let (x, n) = (p[0], p[1]);
            let zero = b.index(0);
            let done = b.compare(CmpOp::Le, n, zero).unwrap();
            if_(
                b,
                done,
                |b| {
                    let s = b.reduce(ReduceKind::Sum, x, vec![0], false);
                    vec![x, b.unary(UnaryOp::Sin, s)]
                },
                |b| {
                    let one = b.index(1);
                    let n1 = b.binary(BinaryOp::Sub, n, one).unwrap();
                    let r = b.call(pair_id, vec![x, n1], vec![v3.clone(), s.clone()]);
                    vec![b.mul(x, r[0]).unwrap(), b.unary(UnaryOp::Cos, r[1])]
                },
            )
        },
    );
    let main = add_fn(
        &mut m,
        "main",
        &[v3.clone(), ty(DType::I64, &[])],
        |b, p| {
            let r = b.call(pair, vec![p[0], p[1]], vec![v3.clone(), s.clone()]);
            vec![scalarize(b, r[0])]
        },
    );
    let mut rng = Rng(73);
    for n in [0, 3] {
        let args = [rng.tensor(&[3], -1.0, 1.0), T::scalar(DType::I64, n as f64)];
        check_grad(&mut m.clone(), main, &[0], &args);
    }
    let first = m.funcs.len();
    let args = [rng.tensor(&[3], -1.0, 1.0), T::scalar(DType::I64, 2.0)];
    check_grad(&mut m, main, &[0], &args);
    // The continuation `pair.cps` receives returns the adjoint of .0, not
    // of .1 (a scalar), then the adjoint of x accumulated after the call.
    let text = agc_ir::print::print_module(&m);
    let cps: Vec<_> = m.funcs[first..]
        .iter()
        .filter(|f| f.name.starts_with("pair.cps"))
        .collect();
    assert_eq!(cps.len(), 1, "one specialisation of pair\n{text}");
    let k = cps[0]
        .ty(*cps[0].params().last().unwrap())
        .as_cont()
        .unwrap();
    assert_eq!(k.results, vec![v3.clone(), v3], "{text}");
}

#[test]
fn loop_state_carries_adjoints_although_its_result_is_unread() {
    // for i in range(n): h = tanh(h @ w); s = s + h. The loss reads s only.
    let mut rng = Rng(79);
    let v3 = f64t(&[3]);
    let (mut m, main) = support::module(
        &[f64t(&[3, 3]), v3.clone(), ty(DType::I64, &[])],
        |b: &mut Builder, p: &[Value]| {
            let zero = b.scalar(DType::F64, 0.0);
            let s0 = b.mul(p[1], zero).unwrap();
            let out = for_range(b, p[2], vec![p[1], s0], |b, _, st| {
                let z = b.matmul(st[0], p[0]).unwrap();
                let h = b.unary(UnaryOp::Tanh, z);
                vec![h, b.add(st[1], h).unwrap()]
            });
            vec![scalarize(b, out[1])]
        },
    );
    for n in [0, 1, 4] {
        let args = [
            rng.tensor(&[3, 3], -0.8, 0.8),
            rng.tensor(&[3], -1.0, 1.0),
            T::scalar(DType::I64, n as f64),
        ];
        check_grad(&mut m, main, &[0, 1], &args);
    }
}

#[test]
fn swapping_recursion_reaches_its_fixed_point() {
    // swap(x, y, n) = y if n <= 0 else swap(y, x, n - 1): which parameter the
    // result depends on alternates along the recursion.
    let mut m = Module::new("t");
    let v3 = f64t(&[3]);
    let swap_id = FuncId(0);
    let swap = add_fn(
        &mut m,
        "swap",
        &[v3.clone(), v3.clone(), ty(DType::I64, &[])],
        |b, p| {
            let (x, y, n) = (p[0], p[1], p[2]);
            let zero = b.index(0);
            let done = b.compare(CmpOp::Le, n, zero).unwrap();
            if_(
                b,
                done,
                |b| vec![b.unary(UnaryOp::Sin, y)],
                |b| {
                    let one = b.index(1);
                    let n1 = b.binary(BinaryOp::Sub, n, one).unwrap();
                    b.call(swap_id, vec![y, x, n1], vec![v3.clone()])
                },
            )
        },
    );
    let main = add_fn(
        &mut m,
        "main",
        &[v3.clone(), v3.clone(), ty(DType::I64, &[])],
        |b, p| {
            let r = b.call(swap, p.to_vec(), vec![v3.clone()])[0];
            vec![scalarize(b, r)]
        },
    );
    let mut rng = Rng(83);
    for n in [0, 1, 2, 5] {
        let args = [
            rng.tensor(&[3], -1.0, 1.0),
            rng.tensor(&[3], -1.0, 1.0),
            T::scalar(DType::I64, n as f64),
        ];
        let g = check_grad(&mut m, main, &[0], &args);
        assert_eq!(
            g[0].data.iter().any(|&d| d != 0.0),
            n % 2 == 1,
            "x reaches the result after an odd number of swaps (n = {n})"
        );
    }
}
