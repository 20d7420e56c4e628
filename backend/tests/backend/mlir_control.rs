//! End-to-end tests of `agc_backend::mlir` on structured control flow and
//! calls: `if`, `while` (with loop-carried tensors of a symbolic size),
//! calls and recursion, checked against Python/numpy and under valgrind.

use crate::mlir_support::*;
use agc_ir::{BinaryOp, CmpOp, ConstData, DType, FuncId, OpKind, ReduceKind, UnaryOp};
use DType::*;

/// `def ifsel(x, c): return x * 2 if c else -x` (a symbolic size crossing
/// both branches; the then-branch binds a symbol of its own).
fn ifsel() -> agc_ir::Function {
    let (mut b, p) = Fb::new("ifsel", &[ty(F32, &["B"]), st(Bool, &[])]);
    let (then_r, _) = b.region(&[]);
    let (else_r, _) = b.region(&[]);
    let body = b.at(then_r);
    let two = b.op(
        OpKind::Const(ConstData::Float(vec![2.0])),
        &[],
        st(F32, &[]),
    );
    let y = b.ew(OpKind::Binary(BinaryOp::Mul), &[p[0], two], F32);
    let s = b.op(
        OpKind::Slice {
            dims: vec![agc_ir::SliceDim {
                start: Some(1),
                stop: None,
                step: 1,
            }],
        },
        &[y],
        ty(F32, &["(B-1)"]),
    );
    let d = b.op(OpKind::Dim { axis: 0 }, &[s], st(I64, &[]));
    let df = b.op(OpKind::Cast, &[d], st(F32, &[]));
    let y = b.ew(OpKind::Binary(BinaryOp::Add), &[y, df], F32);
    b.term(OpKind::Yield, &[y]);
    b.at(else_r);
    let n = b.ew(OpKind::Unary(UnaryOp::Neg), &[p[0]], F32);
    b.term(OpKind::Yield, &[n]);
    b.at(body);
    let r = b.op_multi(
        OpKind::If,
        &[p[1]],
        &[ty(F32, &["B"])],
        vec![then_r, else_r],
    );
    // The result's size is used after the if (bound again outside it).
    let sum = b.op(
        OpKind::Reduce {
            kind: ReduceKind::Sum,
            axes: vec![0],
            keepdims: false,
        },
        &[r[0]],
        st(F32, &[]),
    );
    b.ret(&[r[0], sum])
}

/// `i, acc = 0, init; while i < n: i, acc = i + 1, step(acc)`: the loop's results `[i, acc]`.
fn counted_while(
    b: &mut Fb,
    init: agc_ir::Value,
    n: agc_ir::Value,
    step: impl FnOnce(&mut Fb, agc_ir::Value) -> agc_ir::Value,
) -> Vec<agc_ir::Value> {
    let state = [st(I64, &[]), b.t(init)];
    let zero = b.op(OpKind::Const(ConstData::Int(vec![0])), &[], st(I64, &[]));
    let (before, bp) = b.region(&state);
    let (after, ap) = b.region(&state);
    let body = b.at(before);
    let c = b.ew(OpKind::Compare(CmpOp::Lt), &[bp[0], n], Bool);
    b.term(OpKind::Condition, &[c, bp[0], bp[1]]);
    b.at(after);
    let one = b.op(OpKind::Const(ConstData::Int(vec![1])), &[], st(I64, &[]));
    let i1 = b.ew(OpKind::Binary(BinaryOp::Add), &[ap[0], one], I64);
    let acc = step(b, ap[1]);
    b.term(OpKind::Yield, &[i1, acc]);
    b.at(body);
    b.op_multi(OpKind::While, &[zero, init], &state, vec![before, after])
}

/// `def loop(x, n): i, acc = 0, x; while i < n: i, acc = i + 1, acc * 1.5 + x; return i, acc`
fn while_loop() -> agc_ir::Function {
    let (mut b, p) = Fb::new("loop", &[ty(F64, &["B"]), st(I64, &[])]);
    let r = counted_while(&mut b, p[0], p[1], |b, acc| {
        let k = b.op(
            OpKind::Const(ConstData::Float(vec![1.5])),
            &[],
            st(F64, &[]),
        );
        let m = b.ew(OpKind::Binary(BinaryOp::Mul), &[acc, k], F64);
        b.ew(OpKind::Binary(BinaryOp::Add), &[m, p[0]], F64)
    });
    b.ret(&[r[1], r[0]])
}

/// `def halve(x): s = x; while np.sum(s) > 1: s = s * 0.5; return s`: a
/// `while` whose condition is computed from the state (not a counted loop).
fn halving_loop() -> agc_ir::Function {
    let state = [ty(F64, &["B"])];
    let (mut b, p) = Fb::new("halve", &[ty(F64, &["B"])]);
    let (before, bp) = b.region(&state);
    let (after, ap) = b.region(&state);
    let body = b.at(before);
    let total = b.op(
        OpKind::Reduce {
            kind: ReduceKind::Sum,
            axes: vec![0],
            keepdims: false,
        },
        &[bp[0]],
        st(F64, &[]),
    );
    let one = b.op(
        OpKind::Const(ConstData::Float(vec![1.0])),
        &[],
        st(F64, &[]),
    );
    let c = b.ew(OpKind::Compare(CmpOp::Gt), &[total, one], Bool);
    b.term(OpKind::Condition, &[c, bp[0]]);
    b.at(after);
    let half = b.op(
        OpKind::Const(ConstData::Float(vec![0.5])),
        &[],
        st(F64, &[]),
    );
    let s = b.ew(OpKind::Binary(BinaryOp::Mul), &[ap[0], half], F64);
    b.term(OpKind::Yield, &[s]);
    b.at(body);
    let r = b.op_multi(OpKind::While, &[p[0]], &state, vec![before, after]);
    b.ret(&[r[0]])
}

/// `def fact(n): return 1 if n <= 1 else n * fact(n - 1)` (function 0 of the module).
fn fact() -> agc_ir::Function {
    let (mut b, p) = Fb::new("fact", &[st(I64, &[])]);
    let one = b.op(OpKind::Const(ConstData::Int(vec![1])), &[], st(I64, &[]));
    let c = b.ew(OpKind::Compare(CmpOp::Le), &[p[0], one], Bool);
    let (then_r, _) = b.region(&[]);
    let (else_r, _) = b.region(&[]);
    let body = b.at(then_r);
    b.term(OpKind::Yield, &[one]);
    b.at(else_r);
    let n1 = b.ew(OpKind::Binary(BinaryOp::Sub), &[p[0], one], I64);
    let r = b.op_multi(
        OpKind::Call { callee: FuncId(0) },
        &[n1],
        &[st(I64, &[])],
        vec![],
    );
    let m = b.ew(OpKind::Binary(BinaryOp::Mul), &[p[0], r[0]], I64);
    b.term(OpKind::Yield, &[m]);
    b.at(body);
    let r = b.op_multi(OpKind::If, &[c], &[st(I64, &[])], vec![then_r, else_r]);
    b.ret(&[r[0]])
}

/// `def norms(x): return sq(x), sq(x).sum()` calling `sq` (function 2).
fn calls() -> Vec<agc_ir::Function> {
    let (mut b, p) = Fb::new("sq", &[ty(F32, &["N", "3"])]);
    let s = b.ew(OpKind::Binary(BinaryOp::Mul), &[p[0], p[0]], F32);
    let sq = b.ret(&[s, p[0]]);
    let (mut b, p) = Fb::new("norms", &[ty(F32, &["B", "3"])]);
    let r = b.op_multi(
        OpKind::Call { callee: FuncId(2) },
        &[p[0]],
        &[ty(F32, &["B", "3"]), ty(F32, &["B", "3"])],
        vec![],
    );
    let t = b.op(
        OpKind::Reduce {
            kind: ReduceKind::Sum,
            axes: vec![0, 1],
            keepdims: false,
        },
        &[r[0]],
        st(F32, &[]),
    );
    vec![b.ret(&[r[0], t, r[1]]), sq]
}

fn module() -> Vec<agc_ir::Function> {
    // Order matters: fact is FuncId(0), sq is FuncId(2).
    let mut funcs = vec![fact()];
    funcs.extend(calls()); // norms, sq
    funcs.push(ifsel());
    funcs.push(while_loop());
    funcs.push(halving_loop());
    funcs
}

#[test]
fn if_while_and_calls_compute_what_python_does() {
    let funcs = module();
    assert_eq!(funcs[0].name, "fact");
    assert_eq!(funcs[2].name, "sq");
    let lib = build(funcs);
    lib.assert_needs_only_libc_and_libm();

    for c in [true, false] {
        for n in [4, 1] {
            let x = Tensor::rand(F32, &[n], 5);
            let cond = Tensor::new(Bool, &[], &[c as i32 as f64]);
            let r = lib.call("ifsel", &[&x, &cond]);
            let expr = if c {
                "x * 2 + np.float32(x.shape[0] - 1)"
            } else {
                "-x"
            };
            let want = numpy(expr, &[("x", &x)]);
            assert_close(&format!("ifsel c={c} n={n}"), &r[0], &want);
            assert_close(
                "ifsel sum",
                &r[1],
                &numpy(&format!("np.sum({expr})"), &[("x", &x)]),
            );
        }
    }

    // The counted loop is an `scf.for` (no state copies), the other an `scf.while`.
    assert_eq!(lib.mlir.matches("scf.while").count(), 1, "{}", lib.mlir);
    let x = Tensor::new(F64, &[3], &[4.0, 2.0, 3.0]);
    let r = lib.call("halve", &[&x]);
    assert_close(
        "halve",
        &r[0],
        &Tensor::new(F64, &[3], &[0.25, 0.125, 0.1875]),
    ); // sums 9, 4.5, 2.25, 1.125, 0.5625

    for (n, steps) in [(3, 4), (0, 2), (5, 0), (2, -3)] {
        let x = Tensor::rand(F64, &[n], 9);
        let k = Tensor::new(I64, &[], &[steps as f64]);
        let r = lib.call("loop", &[&x, &k]);
        // The Python loop, run here.
        let mut acc = x.values();
        for _ in 0..steps {
            for (a, xv) in acc.iter_mut().zip(x.values()) {
                *a = *a * 1.5 + xv;
            }
        }
        assert_close("loop acc", &r[0], &Tensor::new(F64, &[n], &acc));
        assert_close(
            "loop i",
            &r[1],
            &Tensor::new(I64, &[], &[steps.max(0) as f64]), // where the loop stopped
        );
    }

    for n in [0, 1, 5, 10] {
        let r = lib.call("fact", &[&Tensor::new(I64, &[], &[n as f64])]);
        assert_close(
            &format!("fact({n})"),
            &r[0],
            &numpy(&format!("np.int64(__import__('math').factorial({n}))"), &[]),
        );
    }

    let x = Tensor::rand(F32, &[4, 3], 2);
    let r = lib.call("norms", &[&x]);
    assert_close("norms sq", &r[0], &numpy("x * x", &[("x", &x)]));
    assert_close("norms sum", &r[1], &numpy("np.sum(x * x)", &[("x", &x)]));
    assert_close("norms x", &r[2], &x);
}

#[test]
fn control_flow_frees_every_buffer_under_valgrind() {
    let x4 = Tensor::rand(F32, &[4], 5);
    let x3 = Tensor::rand(F64, &[3], 9);
    let m = Tensor::rand(F32, &[4, 3], 2);
    let calls = vec![
        ("ifsel", vec![x4.clone(), Tensor::new(Bool, &[], &[1.0])]),
        ("ifsel", vec![x4, Tensor::new(Bool, &[], &[0.0])]),
        ("loop", vec![x3, Tensor::new(I64, &[], &[6.0])]),
        ("fact", vec![Tensor::new(I64, &[], &[7.0])]),
        ("norms", vec![m]),
    ];
    run_under_valgrind(&module(), &calls, 20);
}

/// `def chained(x, n): acc = x; for _ in range(n): for j in range(k): acc = acc * 0.5 if
/// np.sum(acc) > j else acc + x; return acc` with the `k` `if`s unrolled in the loop body: a
/// chain of control ops threading one tensor, which the backend breaks for bufferization
/// beyond 8.
fn chained_ifs(name: &str, k: usize) -> agc_ir::Function {
    let x = ty(F64, &["B"]);
    let (mut b, p) = Fb::new(name, &[x.clone(), st(I64, &[])]);
    let sum = OpKind::Reduce {
        kind: ReduceKind::Sum,
        axes: vec![0],
        keepdims: false,
    };
    let float = |v: f64| OpKind::Const(ConstData::Float(vec![v]));
    let r = counted_while(&mut b, p[0], p[1], |b, mut acc| {
        for j in 0..k {
            let total = b.op(sum.clone(), &[acc], st(F64, &[]));
            let bound = b.op(float(j as f64), &[], st(F64, &[]));
            let c = b.ew(OpKind::Compare(CmpOp::Gt), &[total, bound], Bool);
            let (halve, _) = b.region(&[]);
            let (grow, _) = b.region(&[]);
            let here = b.at(halve);
            let half = b.op(float(0.5), &[], st(F64, &[]));
            let h = b.ew(OpKind::Binary(BinaryOp::Mul), &[acc, half], F64);
            b.term(OpKind::Yield, &[h]);
            b.at(grow);
            let g = b.ew(OpKind::Binary(BinaryOp::Add), &[acc, p[0]], F64);
            b.term(OpKind::Yield, &[g]);
            b.at(here);
            acc = b.op_multi(
                OpKind::If,
                &[c],
                std::slice::from_ref(&x),
                vec![halve, grow],
            )[0];
        }
        acc
    });
    b.ret(&[r[1]])
}

/// [`chained_ifs`] run here.
fn chained_ifs_here(x: &[f64], n: i64, k: usize) -> Vec<f64> {
    let mut acc = x.to_vec();
    for _ in 0..n {
        for j in 0..k {
            let halve = acc.iter().sum::<f64>() > j as f64;
            for (a, xv) in acc.iter_mut().zip(x) {
                *a = if halve { *a * 0.5 } else { *a + xv };
            }
        }
    }
    acc
}

#[test]
fn long_chains_of_ifs_in_a_loop_body_are_broken_and_compute_the_same() {
    // 4 ifs: no chain breaks; 12: one per `if` result, and one for the loop's.
    for (k, breaks) in [(4, 0), (12, 13)] {
        let name = format!("chained{k}");
        let lib = build(vec![chained_ifs(&name, k)]);
        let found = lib.mlir.matches("memref.reinterpret_cast").count();
        assert_eq!(found, breaks, "chain breaks for {k} ifs:\n{}", lib.mlir);
        for (n, steps) in [(5, 3), (1, 7), (0, 2), (4, 0)] {
            let x = Tensor::rand(F64, &[n], 3);
            let r = lib.call(&name, &[&x, &Tensor::new(I64, &[], &[steps as f64])]);
            let want = chained_ifs_here(&x.values(), steps, k);
            assert_close(
                &format!("{name} n={n} steps={steps}"),
                &r[0],
                &Tensor::new(F64, &[n], &want),
            );
        }
    }
    run_under_valgrind(
        &[chained_ifs("chained12", 12)],
        &[(
            "chained12",
            vec![Tensor::rand(F64, &[6], 4), Tensor::new(I64, &[], &[5.0])],
        )],
        20,
    );
}
