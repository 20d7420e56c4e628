//! Adjoint rules of straight-line ops, each checked against float64 central
//! finite differences through the reference interpreter (and the verifier
//! on every generated function), with numpy broadcasting cases.

mod support;

use agc_ir::{ArgKind, BinaryOp, CmpOp, DType, Dim, OpKind, ReduceKind, SliceDim, UnaryOp};
use support::interp::T;
use support::{check_grad, f64t, module, scalarize, ty, Rng};

#[test]
fn unary_ops() {
    let mut rng = Rng(11);
    for u in [
        UnaryOp::Neg,
        UnaryOp::Exp,
        UnaryOp::Log,
        UnaryOp::Tanh,
        UnaryOp::Sqrt,
        UnaryOp::Abs,
        UnaryOp::Sin,
        UnaryOp::Cos,
        UnaryOp::Asin,
        UnaryOp::Acos,
        UnaryOp::Atan,
    ] {
        let (mut m, f) = module(&[f64t(&[3, 4])], |b, p| {
            let y = b.unary(u, p[0]);
            vec![scalarize(b, y)]
        });
        let (lo, hi) = match u {
            UnaryOp::Log | UnaryOp::Sqrt => (0.3, 2.0),
            UnaryOp::Asin | UnaryOp::Acos => (-0.9, 0.9),
            _ => (-2.0, 2.0),
        };
        check_grad(&mut m, f, &[0], &[rng.tensor(&[3, 4], lo, hi)]);
    }
}

#[test]
fn piecewise_constant_unary_ops_have_zero_gradient() {
    for u in [UnaryOp::Floor, UnaryOp::Ceil, UnaryOp::Sign, UnaryOp::Round] {
        let (mut m, f) = module(&[f64t(&[3])], |b, p| {
            let y = b.unary(u, p[0]);
            let z = b.add(y, p[0]).unwrap();
            vec![scalarize(b, z)]
        });
        check_grad(
            &mut m,
            f,
            &[0],
            &[T::new(DType::F64, &[3], vec![0.3, -1.7, 2.2])],
        );
    }
}

const SHAPES: [(&[usize], &[usize]); 6] = [
    (&[3, 4], &[3, 4]),
    (&[3, 4], &[4]),
    (&[3, 1], &[1, 4]),
    (&[2, 3, 4], &[3, 1]),
    (&[], &[3]),
    (&[4, 1], &[]),
];

#[test]
fn binary_ops_with_broadcasting() {
    let mut rng = Rng(7);
    let ops = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Pow,
        BinaryOp::Max,
        BinaryOp::Min,
        BinaryOp::Mod,
        BinaryOp::FMod,
        BinaryOp::Atan2,
    ];
    for op in ops {
        for (sa, sb) in SHAPES {
            let ta = f64t(&sa.iter().map(|&n| n as i64).collect::<Vec<_>>());
            let tb = f64t(&sb.iter().map(|&n| n as i64).collect::<Vec<_>>());
            let (mut m, f) = module(&[ta, tb], |b, p| {
                let y = b.binary(op, p[0], p[1]).unwrap();
                vec![scalarize(b, y)]
            });
            let (a, bb) = match op {
                BinaryOp::Pow => (rng.tensor(sa, 0.5, 2.0), rng.tensor(sb, -1.5, 1.5)),
                BinaryOp::Div | BinaryOp::Mod => {
                    (rng.tensor(sa, 0.5, 3.0), rng.tensor(sb, 0.7, 1.9))
                }
                // Negative dividends too: the quotient is truncated toward 0.
                BinaryOp::FMod => (rng.tensor(sa, -3.0, 3.0), rng.tensor(sb, 0.7, 1.9)),
                _ => (rng.tensor(sa, -2.0, 2.0), rng.tensor(sb, -2.0, 2.0)),
            };
            check_grad(&mut m, f, &[0, 1], &[a, bb]);
        }
    }
}

#[test]
fn maximum_splits_ties_and_pow_is_safe_at_zero() {
    // np.maximum(x, y) at x == y: each gets half (JAX / autograd).
    let (mut m, f) = module(&[f64t(&[2]), f64t(&[2])], |b, p| {
        let y = b.binary(BinaryOp::Max, p[0], p[1]).unwrap();
        vec![b.reduce(ReduceKind::Sum, y, vec![0], false)]
    });
    let g = agc_lowering::ad::value_and_grad(&mut m, f, &[0, 1]).unwrap();
    let args = vec![
        T::new(DType::F64, &[2], vec![1.0, 3.0]),
        T::new(DType::F64, &[2], vec![1.0, 2.0]),
    ];
    let out = support::interp::run(&m, g, args).unwrap();
    assert_eq!(out[1].data, vec![0.5, 1.0]);
    assert_eq!(out[2].data, vec![0.5, 0.0]);
    // x ** y at x == 0: d/dy is 0 (not nan); at y == 0: d/dx is 0.
    let (mut m, f) = module(&[f64t(&[2]), f64t(&[2])], |b, p| {
        let y = b.binary(BinaryOp::Pow, p[0], p[1]).unwrap();
        vec![b.reduce(ReduceKind::Sum, y, vec![0], false)]
    });
    let g = agc_lowering::ad::value_and_grad(&mut m, f, &[0, 1]).unwrap();
    let args = vec![
        T::new(DType::F64, &[2], vec![0.0, 0.0]),
        T::new(DType::F64, &[2], vec![2.0, 0.0]),
    ];
    let out = support::interp::run(&m, g, args).unwrap();
    assert_eq!(out[1].data, vec![0.0, 0.0]);
    assert_eq!(out[2].data, vec![0.0, 0.0]);
}

#[test]
fn second_derivative_of_pow_is_safe_at_zero() {
    // d²/dx² sum(x ** y) at x == 0: 0 where y == 0 (autograd), 2 where y == 2.
    let (mut m, f) = module(&[f64t(&[2]), f64t(&[2])], |b, p| {
        let y = b.binary(BinaryOp::Pow, p[0], p[1]).unwrap();
        vec![b.reduce(ReduceKind::Sum, y, vec![0], false)]
    });
    let g = agc_lowering::ad::value_and_grad(&mut m, f, &[0]).unwrap();
    let h = support::add_fn(&mut m, "h", &[f64t(&[2]), f64t(&[2])], |b, p| {
        let out = b.call(g, p.to_vec(), vec![f64t(&[]), f64t(&[2])]);
        vec![b.reduce(ReduceKind::Sum, out[1], vec![0], false)]
    });
    let hh = agc_lowering::ad::value_and_grad(&mut m, h, &[0]).unwrap();
    let args = vec![
        T::new(DType::F64, &[2], vec![0.0, 0.0]),
        T::new(DType::F64, &[2], vec![0.0, 2.0]),
    ];
    let out = support::interp::run(&m, hh, args).unwrap();
    assert_eq!(out[1].data, vec![0.0, 2.0]);
}

#[test]
fn one_element_results_of_any_rank_are_differentiated() {
    let mut rng = Rng(5);
    for shape in [vec![1], vec![1, 1], vec![1, 1, 1]] {
        let (mut m, f) = module(&[f64t(&[3])], |b, p| {
            let s = scalarize(b, p[0]);
            let dims: Vec<Dim> = shape.iter().map(|&n| Dim::Static(n)).collect();
            vec![b.reshape(s, &dims).unwrap()]
        });
        check_grad(&mut m, f, &[0], &[rng.tensor(&[3], -1.0, 1.0)]);
    }
}

#[test]
fn select_compare_and_cast() {
    let mut rng = Rng(3);
    let (mut m, f) = module(&[f64t(&[3, 4]), f64t(&[4]), f64t(&[3, 1])], |b, p| {
        let c = b.compare(CmpOp::Gt, p[0], p[1]).unwrap();
        let y = b.select(c, p[1], p[2]).unwrap();
        let z = b.mul(y, p[0]).unwrap();
        vec![scalarize(b, z)]
    });
    check_grad(
        &mut m,
        f,
        &[0, 1, 2],
        &[
            rng.tensor(&[3, 4], -1.0, 1.0),
            rng.tensor(&[4], -1.0, 1.0),
            rng.tensor(&[3, 1], -1.0, 1.0),
        ],
    );
    // f64 -> f32 -> f64 passes the adjoint through (cast back).
    let (mut m, f) = module(&[f64t(&[3])], |b, p| {
        let h = b.cast(p[0], DType::F32);
        let k = b.cast(h, DType::F64);
        let w = b.op1(
            OpKind::Const(agc_ir::ConstData::Float(vec![1.0, 2.0, 3.0])),
            vec![],
            f64t(&[3]),
        );
        let y = b.mul(k, w).unwrap();
        vec![b.reduce(ReduceKind::Sum, y, vec![0], false)]
    });
    let g = agc_lowering::ad::value_and_grad(&mut m, f, &[0]).unwrap();
    agc_ir::verify::verify_module(&m).unwrap();
    let out = support::interp::run(&m, g, vec![rng.tensor(&[3], -1.0, 1.0)]).unwrap();
    assert_eq!(out[1].data, vec![1.0, 2.0, 3.0]);
}

#[test]
fn fill_and_values_used_several_times() {
    let mut rng = Rng(5);
    let (mut m, f) = module(&[f64t(&[]), f64t(&[3])], |b, p| {
        let full = b.op1(OpKind::Fill, vec![p[0]], f64t(&[2, 3]));
        let e = b.unary(UnaryOp::Exp, p[1]);
        let a = b.mul(full, p[1]).unwrap();
        let s = b.add(a, e).unwrap();
        let t = b.mul(s, p[1]).unwrap();
        vec![scalarize(b, t), p[1]]
    });
    check_grad(
        &mut m,
        f,
        &[0, 1],
        &[rng.tensor(&[], -1.0, 1.0), rng.tensor(&[3], -1.0, 1.0)],
    );
}

#[test]
fn matmul_with_vector_and_batch_rules() {
    let mut rng = Rng(9);
    let cases: [(&[usize], &[usize]); 8] = [
        (&[3, 4], &[4, 5]),
        (&[4], &[4, 5]),
        (&[3, 4], &[4]),
        (&[4], &[4]),
        (&[2, 3, 4], &[4, 5]),
        (&[2, 3, 4], &[2, 4, 5]),
        (&[3, 4], &[2, 4, 5]),
        (&[2, 1, 3, 4], &[5, 4, 2]),
    ];
    for (sa, sb) in cases {
        let t = |s: &[usize]| f64t(&s.iter().map(|&n| n as i64).collect::<Vec<_>>());
        let (mut m, f) = module(&[t(sa), t(sb)], |b, p| {
            let y = b.matmul(p[0], p[1]).unwrap();
            vec![scalarize(b, y)]
        });
        check_grad(
            &mut m,
            f,
            &[0, 1],
            &[rng.tensor(sa, -1.0, 1.0), rng.tensor(sb, -1.0, 1.0)],
        );
    }
}

#[test]
fn reductions() {
    let mut rng = Rng(13);
    for kind in [
        ReduceKind::Sum,
        ReduceKind::Prod,
        ReduceKind::Max,
        ReduceKind::Min,
    ] {
        for axes in [vec![0], vec![1], vec![0, 2], vec![0, 1, 2]] {
            for keepdims in [false, true] {
                let (mut m, f) = module(&[f64t(&[2, 3, 4])], |b, p| {
                    let y = b.reduce(kind, p[0], axes.clone(), keepdims);
                    vec![scalarize(b, y)]
                });
                check_grad(&mut m, f, &[0], &[rng.tensor(&[2, 3, 4], 0.5, 1.5)]);
            }
        }
    }
}

fn grad_of_reduce(kind: ReduceKind, x: Vec<f64>) -> Vec<f64> {
    let n = x.len() as i64;
    let (mut m, f) = module(&[f64t(&[n])], |b, p| {
        vec![b.reduce(kind, p[0], vec![0], false)]
    });
    let g = agc_lowering::ad::value_and_grad(&mut m, f, &[0]).unwrap();
    support::interp::run(&m, g, vec![T::new(DType::F64, &[n as usize], x)]).unwrap()[1]
        .data
        .clone()
}

#[test]
fn prod_with_zeros_and_max_with_ties() {
    assert_eq!(
        grad_of_reduce(ReduceKind::Prod, vec![2.0, 0.0, 3.0]),
        vec![0.0, 6.0, 0.0]
    );
    assert_eq!(
        grad_of_reduce(ReduceKind::Prod, vec![0.0, 5.0, 0.0]),
        vec![0.0, 0.0, 0.0]
    );
    assert_eq!(
        grad_of_reduce(ReduceKind::Prod, vec![2.0, 4.0, 3.0]),
        vec![12.0, 6.0, 8.0]
    );
    assert_eq!(
        grad_of_reduce(ReduceKind::Max, vec![1.0, 3.0, 3.0, 2.0]),
        vec![0.0, 0.5, 0.5, 0.0]
    );
    assert_eq!(
        grad_of_reduce(ReduceKind::Min, vec![1.0, 3.0, 0.0]),
        vec![0.0, 0.0, 1.0]
    );
}

#[test]
fn layout_ops() {
    let mut rng = Rng(17);
    let (mut m, f) = module(&[f64t(&[2, 3, 4])], |b, p| {
        let r = b.reshape(p[0], &[Dim::Static(6), Dim::Static(4)]).unwrap();
        let t = b.transpose(r, vec![1, 0]).unwrap();
        let s = b.transpose(p[0], vec![2, 0, 1]).unwrap();
        let u = b.reshape(s, &[Dim::Static(4), Dim::Static(6)]).unwrap();
        let v = b.mul(t, u).unwrap();
        vec![scalarize(b, v)]
    });
    check_grad(&mut m, f, &[0], &[rng.tensor(&[2, 3, 4], -1.0, 1.0)]);
    let (mut m, f) = module(&[f64t(&[3, 1]), f64t(&[])], |b, p| {
        let d = [Dim::Static(2), Dim::Static(3), Dim::Static(4)];
        let x = b.broadcast_to(p[0], &d).unwrap();
        let y = b.broadcast_to(p[1], &d).unwrap();
        let z = b.mul(x, y).unwrap();
        let w = b.add(z, x).unwrap();
        vec![scalarize(b, w)]
    });
    check_grad(
        &mut m,
        f,
        &[0, 1],
        &[rng.tensor(&[3, 1], -1.0, 1.0), rng.tensor(&[], -1.0, 1.0)],
    );
}

#[test]
fn concat_static_and_symbolic() {
    let mut rng = Rng(19);
    let (mut m, f) = module(&[f64t(&[2, 3]), f64t(&[2, 1]), f64t(&[2, 2])], |b, p| {
        let c = b.concat(p.to_vec(), 1).unwrap();
        let d = b.mul(c, c).unwrap();
        vec![scalarize(b, d)]
    });
    let args = [
        rng.tensor(&[2, 3], -1.0, 1.0),
        rng.tensor(&[2, 1], -1.0, 1.0),
        rng.tensor(&[2, 2], -1.0, 1.0),
    ];
    check_grad(&mut m, f, &[0, 1, 2], &args);
    let (mut m, f) = module(
        &[
            ty(DType::F64, &["3", "B"]),
            ty(DType::F64, &["3", "2"]),
            ty(DType::F64, &["3", "C"]),
        ],
        |b, p| {
            let c = b.concat(p.to_vec(), 1).unwrap();
            vec![scalarize(b, c)]
        },
    );
    let args = [
        rng.tensor(&[3, 4], -1.0, 1.0),
        rng.tensor(&[3, 2], -1.0, 1.0),
        rng.tensor(&[3, 1], -1.0, 1.0),
    ];
    check_grad(&mut m, f, &[0, 1, 2], &args);
}

#[test]
fn slices_with_steps_and_symbolic_index() {
    let mut rng = Rng(23);
    let s = |a: Option<i64>, b: Option<i64>, c: i64| SliceDim {
        start: a,
        stop: b,
        step: c,
    };
    let cases = [
        vec![s(Some(1), Some(3), 1), SliceDim::FULL],
        vec![s(None, None, 2), s(Some(-3), None, 1)],
        vec![s(None, None, -1), s(Some(3), Some(0), -2)],
        vec![s(Some(4), None, 1), SliceDim::FULL],
        vec![s(Some(-2), Some(-1), 1), s(Some(1), Some(2), 1)],
    ];
    for dims in cases {
        let (mut m, f) = module(&[f64t(&[5, 4])], |b, p| {
            let y = b.slice(p[0], dims.clone()).unwrap();
            vec![scalarize(b, y)]
        });
        check_grad(&mut m, f, &[0], &[rng.tensor(&[5, 4], -1.0, 1.0)]);
    }
    // Step 1 and ::-1 on a run-time-sized axis.
    for sl in [
        s(Some(1), None, 1),
        s(None, Some(-2), 1),
        s(Some(-3), Some(4), 1),
        s(Some(3), Some(1), 1),
        s(Some(7), Some(8), 1),
        s(None, None, -1),
    ] {
        let (mut m, f) = module(&[ty(DType::F64, &["B", "3"])], |b, p| {
            let y = b.slice(p[0], vec![sl, SliceDim::FULL]).unwrap();
            vec![scalarize(b, y)]
        });
        check_grad(&mut m, f, &[0], &[rng.tensor(&[5, 3], -1.0, 1.0)]);
    }
    // x[-1] and x[1] on a run-time-sized axis.
    for start in [-1, 1] {
        let stop = if start == -1 { None } else { Some(start + 1) };
        let (mut m, f) = module(&[ty(DType::F64, &["3", "B"])], |b, p| {
            let y = b
                .slice(p[0], vec![SliceDim::FULL, s(Some(start), stop, 1)])
                .unwrap();
            vec![scalarize(b, y)]
        });
        check_grad(&mut m, f, &[0], &[rng.tensor(&[3, 5], -1.0, 1.0)]);
    }
}

#[test]
fn dynamic_indexing() {
    let mut rng = Rng(29);
    let i64s = |x: i64| T::scalar(DType::I64, x as f64);
    let idx_t = ty(DType::I64, &[]);
    // x[i, j] and x[i] with run-time (also negative) indices, used twice.
    let (mut m, f) = module(&[f64t(&[4, 3]), idx_t.clone(), idx_t.clone()], |b, p| {
        let a = b.dyn_index(p[0], &[p[1], p[2]]);
        let r = b.dyn_index(p[0], &[p[1]]);
        let y = b.mul(r, a).unwrap();
        vec![scalarize(b, y)]
    });
    check_grad(
        &mut m,
        f,
        &[0],
        &[rng.tensor(&[4, 3], -1.0, 1.0), i64s(-2), i64s(1)],
    );
    // x[start:stop] with Python's clamping.
    for (start, stop) in [(1, 3), (-3, 10), (2, 1), (0, 4), (-10, -1)] {
        let (mut m, f) = module(
            &[ty(DType::F64, &["N", "2"]), idx_t.clone(), idx_t.clone()],
            |b, p| {
                let y = b.dyn_slice(p[0], p[1], p[2], Dim::Sym("S".into()));
                let z = b.mul(y, y).unwrap();
                vec![scalarize(b, z)]
            },
        );
        check_grad(
            &mut m,
            f,
            &[0],
            &[rng.tensor(&[4, 2], -1.0, 1.0), i64s(start), i64s(stop)],
        );
    }
    // dyn_update: overwrite and accumulate, with a broadcast value.
    for accumulate in [false, true] {
        let (mut m, f) = module(&[f64t(&[4, 3]), f64t(&[1]), idx_t.clone()], |b, p| {
            let y = b.dyn_update(p[0], p[1], &[p[2]], accumulate);
            let z = b.mul(y, p[0]).unwrap();
            vec![scalarize(b, z)]
        });
        check_grad(
            &mut m,
            f,
            &[0, 1],
            &[
                rng.tensor(&[4, 3], -1.0, 1.0),
                rng.tensor(&[1], -1.0, 1.0),
                i64s(2),
            ],
        );
    }
}

#[test]
fn integer_paths_carry_no_adjoint() {
    // x[argmax(x)] * sum(x): the index is an integer; only x's values get gradients.
    let mut rng = Rng(31);
    let (mut m, f) = module(&[f64t(&[5])], |b, p| {
        let i = b.op1(
            OpKind::ArgReduce {
                kind: ArgKind::ArgMax,
                axis: 0,
                keepdims: false,
            },
            vec![p[0]],
            ty(DType::I64, &[]),
        );
        let xi = b.dyn_index(p[0], &[i]);
        let s = b.reduce(ReduceKind::Sum, p[0], vec![0], false);
        let n = b.cast(i, DType::F64);
        let y = b.mul(xi, s).unwrap();
        vec![b.add(y, n).unwrap()]
    });
    check_grad(&mut m, f, &[0], &[rng.tensor(&[5], -1.0, 1.0)]);
}

#[test]
fn errors_name_the_problem() {
    let (mut m, f) = module(&[f64t(&[3])], |b, p| vec![b.unary(UnaryOp::Exp, p[0])]);
    let e = agc_lowering::ad::value_and_grad(&mut m, f, &[0]).unwrap_err();
    assert_eq!(
        e.message,
        "the differentiated function must return a scalar float (or a one-element array), got f64[3]"
    );
    assert_eq!(e.span, agc_ir::Span::new(3, 4));
    let (mut m, f) = module(&[f64t(&[]), ty(DType::I32, &[])], |b, p| {
        let c = b.cast(p[1], DType::F64);
        vec![b.mul(p[0], c).unwrap()]
    });
    let n = m.funcs.len();
    let e = agc_lowering::ad::value_and_grad(&mut m, f, &[1]).unwrap_err();
    assert!(
        e.message.contains("parameter `p1` has dtype int32"),
        "{}",
        e.message
    );
    assert_eq!(
        m.funcs.len(),
        n,
        "a failed differentiation leaves the module untouched"
    );
    assert!(agc_lowering::ad::value_and_grad(&mut m, f, &[2]).is_err());
}

#[test]
fn float32_functions_differentiate_in_float32() {
    let (mut m, f) = module(
        &[ty(DType::F32, &["B", "3"]), ty(DType::F32, &["3"])],
        |b, p| {
            let y = b.mul(p[0], p[1]).unwrap();
            let t = b.unary(UnaryOp::Tanh, y);
            vec![b.reduce(ReduceKind::Sum, t, vec![0, 1], false)]
        },
    );
    let g = agc_lowering::ad::value_and_grad(&mut m, f, &[1]).unwrap();
    agc_ir::verify::verify_module(&m).unwrap();
    assert_eq!(m.func(g).result_types[1], ty(DType::F32, &["3"]).into());
    let x = T::new(DType::F32, &[2, 3], vec![0.1, 0.2, 0.3, 0.4, 0.5, 0.6]);
    let w = T::new(DType::F32, &[3], vec![1.0, -1.0, 0.5]);
    let out = support::interp::run(&m, g, vec![x.clone(), w.clone()]).unwrap();
    for j in 0..3 {
        let want: f64 = (0..2)
            .map(|i| x.data[i * 3 + j] * (1.0 - (x.data[i * 3 + j] * w.data[j]).tanh().powi(2)))
            .sum();
        assert!(
            (out[1].data[j] - want).abs() < 1e-5,
            "{} vs {want}",
            out[1].data[j]
        );
    }
}
