//! End-to-end tests of `agc_backend::mlir`: hand-built IR functions are
//! compiled to a shared library, called through the memref C interface and
//! compared with numpy.

use crate::mlir_support::*;
use agc_ir::{
    infer, ArgKind, BinaryOp, CmpOp, ConstData, DType, OpKind, ReduceKind, TensorType, UnaryOp,
};
use DType::*;

fn reduce_ty(t: &TensorType, axes: &[usize], keepdims: bool) -> TensorType {
    TensorType::new(t.dtype, infer::reduce(t, axes, keepdims))
}

#[test]
fn broadcasting_add_with_symbolic_dim() {
    let (mut b, p) = Fb::new(
        "addb",
        &[ty(F32, &["B", "4"]), ty(F32, &["4"]), ty(F32, &["B", "1"])],
    );
    let s = b.ew(OpKind::Binary(BinaryOp::Add), &[p[0], p[1]], F32);
    let m = b.ew(OpKind::Binary(BinaryOp::Mul), &[s, p[2]], F32);
    let t = b.ew(OpKind::Unary(UnaryOp::Tanh), &[m], F32);
    let lib = build(vec![b.ret(&[t, s])]);
    for n in [5, 1, 0] {
        let x = Tensor::rand(F32, &[n, 4], 1);
        let y = Tensor::rand(F32, &[4], 2);
        let z = Tensor::rand(F32, &[n, 1], 3);
        let r = lib.call("addb", &[&x, &y, &z]);
        let ins = [("x", &x), ("y", &y), ("z", &z)];
        assert_close("tanh((x+y)*z)", &r[0], &numpy("np.tanh((x + y) * z)", &ins));
        assert_close("x+y", &r[1], &numpy("x + y", &ins));
    }
}

#[test]
fn matmul_2d_1d_and_batched() {
    let cases: Vec<(&str, TensorType, TensorType)> = vec![
        ("mm2", ty(F32, &["B", "3"]), ty(F32, &["3", "5"])),
        ("mv", ty(F32, &["4", "3"]), ty(F32, &["3"])),
        ("vm", ty(F32, &["3"]), ty(F32, &["3", "5"])),
        ("vv", ty(F64, &["3"]), ty(F64, &["3"])),
        ("bmm", ty(F32, &["2", "4", "3"]), ty(F32, &["2", "3", "5"])),
        (
            "bmm_bcast",
            ty(F32, &["1", "4", "3"]),
            ty(F32, &["2", "3", "5"]),
        ),
        ("bmm_2d", ty(F32, &["2", "4", "3"]), ty(F32, &["3", "5"])),
        ("bmv", ty(F32, &["2", "4", "3"]), ty(F32, &["3"])),
        ("imm", ty(I64, &["2", "3"]), ty(I64, &["3", "2"])),
    ];
    let mut funcs = Vec::new();
    for (name, a, c) in &cases {
        let (mut b, p) = Fb::new(name, &[a.clone(), c.clone()]);
        let r = b.op(OpKind::MatMul, &[p[0], p[1]], infer::matmul(a, c).unwrap());
        funcs.push(b.ret(&[r]));
    }
    let lib = build(funcs);
    for (i, (name, a, c)) in cases.iter().enumerate() {
        let shape = |t: &TensorType| {
            t.dims
                .iter()
                .map(|d| d.as_static().unwrap_or(6))
                .collect::<Vec<i64>>()
        };
        let x = Tensor::rand(a.dtype, &shape(a), 10 + i as u64);
        let y = Tensor::rand(c.dtype, &shape(c), 20 + i as u64);
        let r = lib.call(name, &[&x, &y]);
        assert_close(
            name,
            &r[0],
            &numpy("np.matmul(x, y)", &[("x", &x), ("y", &y)]),
        );
    }
}

#[test]
fn reductions_and_arg_reductions() {
    let t = ty(F32, &["2", "B", "4"]);
    let specs: Vec<(&str, ReduceKind, Vec<usize>, bool, &str)> = vec![
        ("sum1", ReduceKind::Sum, vec![1], false, "np.sum(x, axis=1)"),
        (
            "max02k",
            ReduceKind::Max,
            vec![0, 2],
            true,
            "np.max(x, axis=(0, 2), keepdims=True)",
        ),
        ("sumall", ReduceKind::Sum, vec![0, 1, 2], false, "np.sum(x)"),
        (
            "prod2",
            ReduceKind::Prod,
            vec![2],
            false,
            "np.prod(x, axis=2)",
        ),
        ("min0", ReduceKind::Min, vec![0], false, "np.min(x, axis=0)"),
    ];
    let mut funcs = Vec::new();
    for (name, kind, axes, keep, _) in &specs {
        let (mut b, p) = Fb::new(name, std::slice::from_ref(&t));
        let r = b.op(
            OpKind::Reduce {
                kind: *kind,
                axes: axes.clone(),
                keepdims: *keep,
            },
            &[p[0]],
            reduce_ty(&t, axes, *keep),
        );
        funcs.push(b.ret(&[r]));
    }
    let args: Vec<(&str, ArgKind, usize, bool, &str)> = vec![
        ("argmax1", ArgKind::ArgMax, 1, false, "np.argmax(x, axis=1)"),
        (
            "argmin2k",
            ArgKind::ArgMin,
            2,
            true,
            "np.argmin(x, axis=2, keepdims=True)",
        ),
    ];
    for (name, kind, axis, keep, _) in &args {
        let (mut b, p) = Fb::new(name, std::slice::from_ref(&t));
        let rt = TensorType::new(I64, infer::reduce(&t, &[*axis], *keep));
        let r = b.op(
            OpKind::ArgReduce {
                kind: *kind,
                axis: *axis,
                keepdims: *keep,
            },
            &[p[0]],
            rt,
        );
        funcs.push(b.ret(&[r]));
    }
    // Integer max and argmax with ties (first occurrence wins).
    let ti = ty(I32, &["3", "4"]);
    let (mut b, p) = Fb::new("imax", std::slice::from_ref(&ti));
    let r = b.op(
        OpKind::Reduce {
            kind: ReduceKind::Max,
            axes: vec![1],
            keepdims: false,
        },
        &[p[0]],
        reduce_ty(&ti, &[1], false),
    );
    let a = b.op(
        OpKind::ArgReduce {
            kind: ArgKind::ArgMax,
            axis: 1,
            keepdims: false,
        },
        &[p[0]],
        st(I64, &[3]),
    );
    funcs.push(b.ret(&[r, a]));
    let lib = build(funcs);

    let mut x = Tensor::rand(F32, &[2, 3, 4], 7);
    // Ties and a NaN in the argmax data.
    let mut v = x.values();
    v[1] = v[5];
    v[13] = f64::NAN;
    x = Tensor::new(F32, &[2, 3, 4], &v);
    let clean = Tensor::rand(F32, &[2, 3, 4], 8);
    for (name, _, _, _, expr) in &specs {
        let r = lib.call(name, &[&clean]);
        assert_close(name, &r[0], &numpy(expr, &[("x", &clean)]));
    }
    for (name, _, _, _, expr) in &args {
        for input in [&x, &clean] {
            let r = lib.call(name, &[input]);
            assert_close(name, &r[0], &numpy(expr, &[("x", input)]));
        }
    }
    let xi = Tensor::new(
        I32,
        &[3, 4],
        &[1., 3., 3., 0., -5., -5., -7., -5., 2., 2., 2., 2.],
    );
    let r = lib.call("imax", &[&xi]);
    assert_close("imax", &r[0], &numpy("np.max(x, axis=1)", &[("x", &xi)]));
    assert_close(
        "iargmax",
        &r[1],
        &numpy("np.argmax(x, axis=1)", &[("x", &xi)]),
    );
}

#[test]
fn where_compare_and_casts() {
    let t = ty(F32, &["B", "3"]);
    let (mut b, p) = Fb::new("sel", &[t.clone(), st(F32, &[3]), st(F32, &[])]);
    let c = b.ew(OpKind::Compare(CmpOp::Gt), &[p[0], p[1]], Bool);
    let w = b.ew(OpKind::Select, &[c, p[0], p[2]], F32);
    let ne = b.ew(OpKind::Compare(CmpOp::Ne), &[p[0], p[0]], Bool);
    let le = b.ew(OpKind::Compare(CmpOp::Le), &[p[0], p[2]], Bool);
    let f1 = b.op(OpKind::Select, &[c, p[2], p[1]], b.t(c).with_dtype(F32));
    let funcs = vec![b.ret(&[w, c, ne, le, f1])];
    let mut funcs = funcs;
    let conversions = [
        (F32, I32),
        (F64, I64),
        (F32, Bool),
        (Bool, F32),
        (Bool, I64),
        (I64, I32),
        (I32, F64),
        (F64, F32),
        (I64, Bool),
    ];
    for (from, to) in conversions {
        let (mut b, p) = Fb::new(&format!("cast_{from}_{to}"), &[ty(from, &["N"])]);
        let r = b.op(OpKind::Cast, &[p[0]], ty(to, &["N"]));
        funcs.push(b.ret(&[r]));
    }
    let lib = build(funcs);
    let x = Tensor::new(F32, &[2, 3], &[0.5, f64::NAN, -1.0, 3.0, 0.25, 1.0]);
    let y = Tensor::new(F32, &[3], &[0.0, 0.0, 2.0]);
    let z = Tensor::new(F32, &[], &[7.0]);
    let r = lib.call("sel", &[&x, &y, &z]);
    let ins = [("x", &x), ("y", &y), ("z", &z)];
    assert_close("where", &r[0], &numpy("np.where(x > y, x, z)", &ins));
    assert_close("gt", &r[1], &numpy("x > y", &ins));
    assert_close("ne nan", &r[2], &numpy("x != x", &ins));
    assert_close("le", &r[3], &numpy("x <= z", &ins));
    assert_close("where bcast", &r[4], &numpy("np.where(x > y, z, y)", &ins));
    let vals = [-2.7, -0.5, 0.0, 0.5, 1.0, 2.9, -3.0, 100.25];
    for (from, to) in conversions {
        let input = Tensor::new(from, &[vals.len() as i64], &vals);
        let r = lib.call(&format!("cast_{from}_{to}"), &[&input]);
        assert_close(
            &format!("cast {from}->{to}"),
            &r[0],
            &numpy(
                &format!("x.astype(np.{})", to.numpy_name()),
                &[("x", &input)],
            ),
        );
    }
    let nan = Tensor::new(F32, &[2], &[f64::NAN, 0.0]);
    let r = lib.call("cast_f32_bool", &[&nan]);
    assert_close(
        "nan->bool",
        &r[0],
        &numpy("x.astype(np.bool_)", &[("x", &nan)]),
    );
}

#[test]
fn python_arithmetic_on_ints_and_floats() {
    let ops = [
        (BinaryOp::FloorDiv, "np.floor_divide(a, b)"),
        (BinaryOp::Mod, "np.mod(a, b)"),
        (BinaryOp::FMod, "np.fmod(a, b)"),
        (BinaryOp::Pow, "np.power(a, b)"),
        (BinaryOp::Max, "np.maximum(a, b)"),
        (BinaryOp::Min, "np.minimum(a, b)"),
        (BinaryOp::Sub, "a - b"),
    ];
    let mut funcs = Vec::new();
    for dt in [I32, I64, F32, F64] {
        for (op, _) in &ops {
            let (mut b, p) = Fb::new(
                &format!("{}_{}", op.name(), dt),
                &[ty(dt, &["N"]), ty(dt, &["N"])],
            );
            let r = b.ew(OpKind::Binary(*op), &[p[0], p[1]], dt);
            funcs.push(b.ret(&[r]));
        }
    }
    for dt in [I32, I64] {
        for op in [BinaryOp::And, BinaryOp::Or, BinaryOp::Xor] {
            let (mut b, p) = Fb::new(
                &format!("{}_{}", op.name(), dt),
                &[ty(dt, &["N"]), ty(dt, &["N"])],
            );
            let r = b.ew(OpKind::Binary(op), &[p[0], p[1]], dt);
            funcs.push(b.ret(&[r]));
        }
    }
    let lib = build(funcs);
    let ia = [7., -7., 7., -7., 0., 5., -9., 3., 2., -2., 1.];
    let ib = [2., 2., -2., -2., 3., 0., 4., 3., 10., 3., -1.];
    let fa = [
        7.5,
        -7.5,
        7.5,
        -7.5,
        0.0,
        5.0,
        -0.0,
        1e-30,
        3.0,
        f64::NAN,
        f64::INFINITY,
    ];
    let fb = [2.0, 2.0, -2.0, -2.0, 3.0, 0.0, 4.0, -1.0, 0.5, 1.0, 2.0];
    for dt in [I32, I64, F32, F64] {
        let (a, b) = if dt.is_float() {
            (&fa, &fb)
        } else {
            (&ia, &ib)
        };
        for (op, expr) in &ops {
            // numpy rejects negative integer exponents: use |b| for int pow.
            let bvals: Vec<f64> = if *op == BinaryOp::Pow && !dt.is_float() {
                b.iter().map(|x: &f64| x.abs()).collect()
            } else {
                b.to_vec()
            };
            let (x, y) = (
                Tensor::new(dt, &[a.len() as i64], a),
                Tensor::new(dt, &[a.len() as i64], &bvals),
            );
            let r = lib.call(&format!("{}_{}", op.name(), dt), &[&x, &y]);
            assert_close(
                &format!("{} {dt}", op.name()),
                &r[0],
                &numpy(expr, &[("a", &x), ("b", &y)]),
            );
        }
    }
    for dt in [I32, I64] {
        let (x, y) = (Tensor::new(dt, &[11], &ia), Tensor::new(dt, &[11], &ib));
        for (op, expr) in [
            (BinaryOp::And, "a & b"),
            (BinaryOp::Or, "a | b"),
            (BinaryOp::Xor, "a ^ b"),
        ] {
            let r = lib.call(&format!("{}_{}", op.name(), dt), &[&x, &y]);
            assert_close(
                &format!("{} {dt}", op.name()),
                &r[0],
                &numpy(expr, &[("a", &x), ("b", &y)]),
            );
        }
    }
}

#[test]
fn unary_ops() {
    let ops = [
        (UnaryOp::Neg, "-x"),
        (UnaryOp::Exp, "np.exp(x)"),
        (UnaryOp::Log, "np.log(x)"),
        (UnaryOp::Tanh, "np.tanh(x)"),
        (UnaryOp::Sqrt, "np.sqrt(x)"),
        (UnaryOp::Abs, "np.abs(x)"),
        (UnaryOp::Sin, "np.sin(x)"),
        (UnaryOp::Cos, "np.cos(x)"),
        (UnaryOp::Floor, "np.floor(x)"),
        (UnaryOp::Ceil, "np.ceil(x)"),
        (UnaryOp::Sign, "np.sign(x)"),
        (UnaryOp::Asin, "np.arcsin(x)"),
        (UnaryOp::Acos, "np.arccos(x)"),
        (UnaryOp::Atan, "np.arctan(x)"),
        (UnaryOp::Round, "np.rint(x)"),
    ];
    let mut funcs = Vec::new();
    for dt in [F32, F64] {
        for (op, _) in &ops {
            let (mut b, p) = Fb::new(&format!("{}_{dt}", op.name()), &[ty(dt, &["N"])]);
            let r = b.ew(OpKind::Unary(*op), &[p[0]], dt);
            funcs.push(b.ret(&[r]));
        }
    }
    for (name, op, dt) in [
        ("absi", UnaryOp::Abs, I32),
        ("negi", UnaryOp::Neg, I64),
        ("signi", UnaryOp::Sign, I32),
        ("noti", UnaryOp::Not, I32),
        ("notb", UnaryOp::Not, Bool),
    ] {
        let (mut b, p) = Fb::new(name, &[ty(dt, &["N"])]);
        let r = b.ew(OpKind::Unary(op), &[p[0]], dt);
        funcs.push(b.ret(&[r]));
    }
    let lib = build(funcs);
    let vals = [-2.5, -1.0, -0.25, 0.0, 0.3, 1.0, 2.75, 10.0];
    for dt in [F32, F64] {
        let x = Tensor::new(dt, &[8], &vals);
        for (op, expr) in &ops {
            let r = lib.call(&format!("{}_{dt}", op.name()), &[&x]);
            assert_close(
                &format!("{} {dt}", op.name()),
                &r[0],
                &numpy(expr, &[("x", &x)]),
            );
        }
    }
    let xi = Tensor::new(I32, &[8], &vals);
    let xl = Tensor::new(I64, &[8], &vals);
    let xb = Tensor::new(Bool, &[8], &vals);
    for (name, x, expr) in [
        ("absi", &xi, "np.abs(x)"),
        ("negi", &xl, "-x"),
        ("signi", &xi, "np.sign(x)"),
        ("noti", &xi, "~x"),
        ("notb", &xb, "~x"),
    ] {
        let r = lib.call(name, &[x]);
        assert_close(name, &r[0], &numpy(expr, &[("x", x)]));
    }
}

/// A small MLP with constant weights (hex-blob constants of 100k floats),
/// relu via maximum, softmax-style reductions and argmax: the shape of the
/// models agc compiles.
#[test]
fn mlp_with_constant_weights() {
    let w1 = Tensor::rand(F32, &[784, 128], 11);
    let b1 = Tensor::rand(F32, &[128], 12);
    let w2 = Tensor::rand(F32, &[128, 10], 13);
    let (mut b, p) = Fb::new("mlp", &[ty(F32, &["B", "28", "28"])]);
    let x = b.op(OpKind::Reshape, &[p[0]], ty(F32, &["B", "784"]));
    let cw1 = b.op(
        OpKind::Const(ConstData::Float(w1.values())),
        &[],
        st(F32, &[784, 128]),
    );
    let cb1 = b.op(
        OpKind::Const(ConstData::Float(b1.values())),
        &[],
        st(F32, &[128]),
    );
    let cw2 = b.op(
        OpKind::Const(ConstData::Float(w2.values())),
        &[],
        st(F32, &[128, 10]),
    );
    let zero = b.op(
        OpKind::Const(ConstData::Float(vec![0.0])),
        &[],
        st(F32, &[]),
    );
    let h = b.op(OpKind::MatMul, &[x, cw1], ty(F32, &["B", "128"]));
    let h = b.ew(OpKind::Binary(BinaryOp::Add), &[h, cb1], F32);
    let h = b.ew(OpKind::Binary(BinaryOp::Max), &[h, zero], F32);
    let logits = b.op(OpKind::MatMul, &[h, cw2], ty(F32, &["B", "10"]));
    let m = b.op(
        OpKind::Reduce {
            kind: ReduceKind::Max,
            axes: vec![1],
            keepdims: true,
        },
        &[logits],
        ty(F32, &["B", "1"]),
    );
    let z = b.ew(OpKind::Binary(BinaryOp::Sub), &[logits, m], F32);
    let ez = b.ew(OpKind::Unary(UnaryOp::Exp), &[z], F32);
    let s = b.op(
        OpKind::Reduce {
            kind: ReduceKind::Sum,
            axes: vec![1],
            keepdims: true,
        },
        &[ez],
        ty(F32, &["B", "1"]),
    );
    let prob = b.ew(OpKind::Binary(BinaryOp::Div), &[ez, s], F32);
    let cls = b.op(
        OpKind::ArgReduce {
            kind: ArgKind::ArgMax,
            axis: 1,
            keepdims: false,
        },
        &[prob],
        ty(I64, &["B"]),
    );
    let t0 = std::time::Instant::now();
    let lib = build(vec![b.ret(&[prob, cls])]);
    eprintln!(
        "mlp: MLIR {} bytes, built in {:?}",
        lib.mlir.len(),
        t0.elapsed()
    );
    let xin = Tensor::rand(F32, &[16, 28, 28], 14);
    let r = lib.call("mlp", &[&xin]);
    let ins = [("x", &xin), ("w1", &w1), ("b1", &b1), ("w2", &w2)];
    let expr = "(lambda l: np.exp(l - l.max(1, keepdims=True)) / np.exp(l - l.max(1, keepdims=True)).sum(1, keepdims=True))\
                (np.maximum(x.reshape(16, 784) @ w1 + b1, 0) @ w2)";
    let want = numpy(expr, &ins);
    assert_eq!(r[0].shape, want.shape);
    for (g, w) in r[0].values().iter().zip(want.values()) {
        assert!(
            (g - w).abs() <= 1e-4 * w.abs().max(1e-3),
            "softmax: got {g}, numpy {w}"
        );
    }
    assert_close(
        "argmax",
        &r[1],
        &numpy(&format!("np.argmax({expr}, axis=1)"), &ins),
    );
}
