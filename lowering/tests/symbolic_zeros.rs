//! Symbolic zeros: an adjoint known to be zero is not materialised. The
//! reference interpreter counts the zero tensors the gradient makes: none
//! for a straight-line function (no zero to start an accumulation from),
//! none for an `if` branch that does not touch an adjoint (it yields the
//! adjoint as it came in), and one per loop run for a sequence indexed at
//! some iterations only (the others pass its adjoint on untouched).
//! Gradients are checked against float64 central finite differences.

mod support;

use agc_ir::{BinaryOp, CmpOp, DType, FuncId, Module, TensorType, Type, UnaryOp};
use support::interp::{self, T};
use support::{check_grad, f64t, for_range, if_, module, scalarize, ty, Rng};

/// How many ops named `op` making a value of type `t` the last gradient
/// function of `m` runs on `args`.
fn executed(m: &Module, args: &[T], op: &str, t: &TensorType) -> usize {
    let g = m
        .funcs
        .iter()
        .rposition(|f| f.name.ends_with(".value_and_grad"))
        .expect("a gradient function");
    let (out, counts) = interp::count_ops(|| interp::run(m, FuncId(g as u32), args.to_vec()));
    out.unwrap_or_else(|e| panic!("{e}"));
    let key = (op.to_string(), Type::Tensor(t.clone()).to_string());
    counts.get(&key).copied().unwrap_or(0)
}

#[test]
fn a_straight_line_gradient_makes_no_zero_tensor() {
    let w_t = f64t(&[3, 4]);
    let (mut m, f) = module(&[w_t.clone(), f64t(&[2, 3])], |b, p| {
        let z = b.matmul(p[1], p[0]).unwrap();
        let h = b.unary(UnaryOp::Tanh, z);
        vec![scalarize(b, h)]
    });
    let mut rng = Rng(101);
    let args = [
        rng.tensor(&[3, 4], -1.0, 1.0),
        rng.tensor(&[2, 3], -1.0, 1.0),
    ];
    check_grad(&mut m, f, &[0], &args);
    assert_eq!(executed(&m, &args, "fill", &w_t), 0);
}

#[test]
fn an_if_branch_that_touches_no_adjoint_yields_it_as_it_came() {
    // r = sin(x) if c > 0 else y * y; loss scalarize(r * x * y): both adjoints
    // come into the `if`, each branch adds to one of them.
    let v = f64t(&[5]);
    let (mut m, f) = module(&[v.clone(), v.clone(), f64t(&[])], |b, p| {
        let (x, y, c) = (p[0], p[1], p[2]);
        let zero = b.scalar(DType::F64, 0.0);
        let pos = b.compare(CmpOp::Gt, c, zero).unwrap();
        let r = if_(
            b,
            pos,
            |b| vec![b.unary(UnaryOp::Sin, x)],
            |b| vec![b.mul(y, y).unwrap()],
        );
        let rx = b.mul(r[0], x).unwrap();
        let rxy = b.mul(rx, y).unwrap();
        vec![scalarize(b, rxy)]
    });
    let mut rng = Rng(103);
    for c in [1.0, -1.0] {
        let args = [
            rng.tensor(&[5], -1.0, 1.0),
            rng.tensor(&[5], -1.0, 1.0),
            T::scalar(DType::F64, c),
        ];
        check_grad(&mut m, f, &[0, 1], &args);
        assert_eq!(executed(&m, &args, "fill", &v), 0, "c = {c}");
    }
}

#[test]
fn loop_iterations_that_index_nothing_pass_the_adjoint_on() {
    // for t in range(n): if t % 2 == 0: h = tanh(h + xs[t]); only even
    // iterations contribute to the adjoint of xs.
    let xs_t = ty(DType::F64, &["T", "3"]);
    let (mut m, f) = module(&[xs_t.clone(), f64t(&[3]), ty(DType::I64, &[])], |b, p| {
        let (xs, h0, n) = (p[0], p[1], p[2]);
        let out = for_range(b, n, vec![h0], |b, i, s| {
            let two = b.index(2);
            let zero = b.index(0);
            let r = b.binary(BinaryOp::Mod, i, two).unwrap();
            let even = b.compare(CmpOp::Eq, r, zero).unwrap();
            if_(
                b,
                even,
                |b| {
                    let x = b.dyn_index(xs, &[i]);
                    let u = b.add(s[0], x).unwrap();
                    vec![b.unary(UnaryOp::Tanh, u)]
                },
                |_| vec![s[0]],
            )
        });
        vec![scalarize(b, out[0])]
    });
    let mut rng = Rng(107);
    for n in [0usize, 1, 5] {
        let args = [
            rng.tensor(&[6, 3], -1.0, 1.0),
            rng.tensor(&[3], -1.0, 1.0),
            T::scalar(DType::I64, n as f64),
        ];
        check_grad(&mut m, f, &[0, 1], &args);
        assert_eq!(executed(&m, &args, "fill", &xs_t), 1, "n = {n}");
        assert_eq!(executed(&m, &args, "add", &xs_t), 0, "n = {n}");
        let evens = n.div_ceil(2);
        assert_eq!(
            executed(&m, &args, "dyn_update_add", &xs_t),
            evens,
            "n = {n}"
        );
    }
}
