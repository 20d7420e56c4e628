//! Gradients through `if`, `while` and (recursive) calls, checked against
//! float64 central finite differences through the reference interpreter.

mod support;

use agc_ir::{BinaryOp, CmpOp, DType, Dim, Module, ReduceKind, UnaryOp, Value};
use agc_lowering::builder::Builder;
use support::interp::T;
use support::{add_fn, check_grad, f64t, for_range, if_, module, scalarize, ty, while_, Rng};

fn i64s(x: i64) -> T {
    T::scalar(DType::I64, x as f64)
}

fn sum_all(b: &mut Builder, v: Value) -> Value {
    let r = b.ty(v).rank();
    b.reduce(ReduceKind::Sum, v, (0..r).collect(), false)
}

#[test]
fn if_takes_either_branch_with_free_values() {
    let mut rng = Rng(41);
    let (mut m, f) = module(&[f64t(&[3]), f64t(&[3]), f64t(&[])], |b, p| {
        let (x, y, z) = (p[0], p[1], p[2]);
        let s = sum_all(b, x);
        let zero = b.scalar(DType::F64, 0.0);
        let c = b.compare(CmpOp::Gt, s, zero).unwrap();
        let r = if_(
            b,
            c,
            |b| {
                let t = b.unary(UnaryOp::Sin, x);
                let u = b.mul(t, y).unwrap();
                vec![b.add(u, z).unwrap(), y]
            },
            |b| {
                let e = b.unary(UnaryOp::Exp, x);
                let u = b.mul(e, z).unwrap();
                // A nested if on a constant-free condition.
                let c2 = b.compare(CmpOp::Lt, z, zero).unwrap();
                let w = if_(b, c2, |b| vec![b.mul(u, u).unwrap()], |_| vec![y]);
                vec![w[0], x]
            },
        );
        let a = b.mul(r[0], r[1]).unwrap();
        vec![scalarize(b, a)]
    });
    for (lo, hi, z) in [(0.1, 1.0, 0.5), (-1.0, -0.1, 0.7), (-1.0, -0.1, -0.7)] {
        let args = [
            rng.tensor(&[3], lo, hi),
            rng.tensor(&[3], -1.0, 1.0),
            T::scalar(DType::F64, z),
        ];
        check_grad(&mut m, f, &[0, 1, 2], &args);
    }
}

/// An RNN: `for t in range(n): h = tanh(h @ W + xs[t])`, loss `sum(h * sin(h))`.
fn rnn(h_dims: &[&str]) -> (Module, agc_ir::FuncId) {
    module(
        &[
            ty(DType::F64, &["T", "3"]),
            ty(DType::F64, h_dims),
            ty(DType::F64, &["3", "3"]),
            ty(DType::I64, &[]),
        ],
        |b, p| {
            let (xs, h0, w, n) = (p[0], p[1], p[2], p[3]);
            let out = for_range(b, n, vec![h0], |b, i, s| {
                let x = b.dyn_index(xs, &[i]);
                let hw = b.matmul(s[0], w).unwrap();
                let pre = b.add(hw, x).unwrap();
                vec![b.unary(UnaryOp::Tanh, pre)]
            });
            vec![scalarize(b, out[0])]
        },
    )
}

#[test]
fn while_loop_rnn() {
    let mut rng = Rng(43);
    let (mut m, f) = rnn(&["3"]);
    for n in [0, 1, 4] {
        let args = [
            rng.tensor(&[5, 3], -1.0, 1.0),
            rng.tensor(&[3], -1.0, 1.0),
            rng.tensor(&[3, 3], -1.0, 1.0),
            i64s(n),
        ];
        check_grad(&mut m, f, &[0, 1, 2], &args);
    }
    // A batch of symbolic size.
    let (mut m, f) = rnn(&["B", "3"]);
    let args = [
        rng.tensor(&[4, 3], -1.0, 1.0),
        rng.tensor(&[2, 3], -1.0, 1.0),
        rng.tensor(&[3, 3], -1.0, 1.0),
        i64s(3),
    ];
    check_grad(&mut m, f, &[0, 1, 2], &args);
}

#[test]
fn while_loop_whose_condition_reads_float_state() {
    // while x < 10: x = x * a + 1 (data-dependent trip count), loss x * a.
    let mut rng = Rng(47);
    let (mut m, f) = module(&[f64t(&[]), f64t(&[])], |b, p| {
        let (x0, a) = (p[0], p[1]);
        let ten = b.scalar(DType::F64, 10.0);
        let out = while_(
            b,
            vec![x0],
            |b, s| {
                let c = b.compare(CmpOp::Lt, s[0], ten).unwrap();
                let sq = b.mul(s[0], s[0]).unwrap();
                (c, vec![s[0], sq])
            },
            |b, s| {
                let xa = b.mul(s[0], a).unwrap();
                let one = b.scalar(DType::F64, 1.0);
                let _ = s[1];
                vec![b.add(xa, one).unwrap()]
            },
        );
        let y = b.mul(out[0], a).unwrap();
        vec![b.add(y, out[1]).unwrap()]
    });
    for _ in 0..3 {
        check_grad(
            &mut m,
            f,
            &[0, 1],
            &[
                T::scalar(DType::F64, rng.uniform(0.5, 2.0)),
                T::scalar(DType::F64, rng.uniform(1.2, 2.5)),
            ],
        );
    }
}

#[test]
fn nested_loops_with_branches() {
    let mut rng = Rng(53);
    let (mut m, f) = module(
        &[
            f64t(&[4]),
            f64t(&[4]),
            ty(DType::I64, &[]),
            ty(DType::I64, &[]),
        ],
        |b, p| {
            let (x, w, n, k) = (p[0], p[1], p[2], p[3]);
            let out = for_range(b, n, vec![x], |b, i, s| {
                let inner = for_range(b, k, vec![s[0]], |b, _, t| {
                    let u = b.mul(t[0], w).unwrap();
                    vec![b.unary(UnaryOp::Sin, u)]
                });
                let two = b.index(2);
                let r = b.binary(BinaryOp::Mod, i, two).unwrap();
                let zero = b.index(0);
                let even = b.compare(CmpOp::Eq, r, zero).unwrap();
                if_(
                    b,
                    even,
                    |b| vec![b.add(inner[0], w).unwrap()],
                    |b| vec![b.mul(inner[0], s[0]).unwrap()],
                )
            });
            vec![scalarize(b, out[0])]
        },
    );
    let args = [
        rng.tensor(&[4], -1.0, 1.0),
        rng.tensor(&[4], -1.0, 1.0),
        i64s(3),
        i64s(2),
    ];
    check_grad(&mut m, f, &[0, 1], &args);
}

#[test]
fn calls_and_recursive_tree_reduction() {
    let mut m = Module::new("t");
    // leaf(x, i) = sin(x[i]) * x[i]
    let vec_t = ty(DType::F64, &["N"]);
    let i64t = ty(DType::I64, &[]);
    let leaf = add_fn(&mut m, "leaf", &[vec_t.clone(), i64t.clone()], |b, p| {
        let v = b.dyn_index(p[0], &[p[1]]);
        let s = b.unary(UnaryOp::Sin, v);
        vec![b.mul(s, v).unwrap()]
    });
    // tree(x, lo, hi) = leaf if hi - lo == 1 else tree(lo, mid) * tree(mid, hi) + tree(lo, mid)
    let tree_id = agc_ir::FuncId(m.funcs.len() as u32);
    let tree = add_fn(
        &mut m,
        "tree",
        &[vec_t.clone(), i64t.clone(), i64t.clone()],
        |b, p| {
            let (x, lo, hi) = (p[0], p[1], p[2]);
            let d = b.binary(BinaryOp::Sub, hi, lo).unwrap();
            let one = b.index(1);
            let is_leaf = b.compare(CmpOp::Eq, d, one).unwrap();
            let f64s = ty(DType::F64, &[]);
            let r = if_(
                b,
                is_leaf,
                |b| b.call(leaf, vec![x, lo], vec![f64s.clone()]),
                |b| {
                    let two = b.index(2);
                    let s = b.add(lo, hi).unwrap();
                    let mid = b.binary(BinaryOp::FloorDiv, s, two).unwrap();
                    let a = b.call(tree_id, vec![x, lo, mid], vec![f64s.clone()])[0];
                    let c = b.call(tree_id, vec![x, mid, hi], vec![f64s.clone()])[0];
                    let ac = b.mul(a, c).unwrap();
                    vec![b.add(ac, a).unwrap()]
                },
            );
            vec![r[0]]
        },
    );
    assert_eq!(tree, tree_id);
    let main = add_fn(&mut m, "main", std::slice::from_ref(&vec_t), |b, p| {
        let n = b.dim(p[0], 0);
        let zero = b.index(0);
        let r = b.call(tree, vec![p[0], zero, n], vec![ty(DType::F64, &[])]);
        let q = b.call(leaf, vec![p[0], zero], vec![ty(DType::F64, &[])]);
        vec![b.add(r[0], q[0]).unwrap(), n]
    });
    let mut rng = Rng(59);
    for n in [1, 2, 5, 8] {
        check_grad(&mut m, main, &[0], &[rng.tensor(&[n], -1.0, 1.0)]);
    }
}

#[test]
fn loop_inside_a_callee_and_call_inside_a_loop() {
    let mut m = Module::new("t");
    let v3 = f64t(&[3]);
    let step = add_fn(&mut m, "step", &[v3.clone(), v3.clone()], |b, p| {
        let u = b.mul(p[0], p[1]).unwrap();
        vec![b.unary(UnaryOp::Cos, u)]
    });
    let iterate = add_fn(
        &mut m,
        "iterate",
        &[v3.clone(), v3.clone(), ty(DType::I64, &[])],
        |b, p| {
            let (x, w) = (p[0], p[1]);
            let out = for_range(b, p[2], vec![x], |b, _, s| {
                b.call(step, vec![s[0], w], vec![v3.clone()])
            });
            vec![out[0]]
        },
    );
    let main = add_fn(&mut m, "main", &[v3.clone(), v3.clone()], |b, p| {
        let two = b.index(2);
        let y = b.call(iterate, vec![p[0], p[1], two], vec![v3.clone()])[0];
        vec![scalarize(b, y)]
    });
    let mut rng = Rng(61);
    check_grad(
        &mut m,
        main,
        &[0, 1],
        &[rng.tensor(&[3], -1.0, 1.0), rng.tensor(&[3], -1.0, 1.0)],
    );
}

#[test]
fn deep_loop_gradient() {
    // 3000 iterations: the backward function recurses once per iteration.
    std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(|| {
            let (mut m, f) = module(&[f64t(&[]), ty(DType::I64, &[])], |b, p| {
                let out = for_range(b, p[1], vec![p[0]], |b, _, s| {
                    let t = b.unary(UnaryOp::Sin, s[0]);
                    let h = b.mul_const(t, 0.001).unwrap();
                    vec![b.add(s[0], h).unwrap()]
                });
                vec![out[0]]
            });
            let g = agc_lowering::ad::value_and_grad(&mut m, f, &[0]).unwrap();
            agc_ir::verify::verify_module(&m).unwrap();
            let x0 = 0.3;
            let out =
                support::interp::run(&m, g, vec![T::scalar(DType::F64, x0), i64s(3000)]).unwrap();
            let (mut x, mut d) = (x0, 1.0);
            for _ in 0..3000 {
                d *= 1.0 + 0.001 * x.cos();
                x += 0.001 * x.sin();
            }
            assert!((out[0].data[0] - x).abs() < 1e-12);
            assert!(
                (out[1].data[0] - d).abs() <= 1e-9 * d.abs(),
                "{} vs {d}",
                out[1].data[0]
            );
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn dims_of_generated_functions_are_consistent() {
    // A loop over a tensor of run-time size whose state is a slice of it.
    let mut rng = Rng(67);
    let (mut m, f) = module(
        &[
            ty(DType::F64, &["N", "2"]),
            ty(DType::I64, &[]),
            ty(DType::I64, &[]),
        ],
        |b, p| {
            let y = b.dyn_slice(p[0], p[1], p[2], Dim::Sym("S".into()));
            let three = b.index(3);
            let out = for_range(b, three, vec![y], |b, _, s| {
                let t = b.unary(UnaryOp::Tanh, s[0]);
                vec![b.add(t, s[0]).unwrap()]
            });
            vec![scalarize(b, out[0])]
        },
    );
    check_grad(
        &mut m,
        f,
        &[0],
        &[rng.tensor(&[5, 2], -1.0, 1.0), i64s(1), i64s(-1)],
    );
}
