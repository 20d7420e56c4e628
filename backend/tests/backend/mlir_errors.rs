//! Run-time errors raised by generated code: `dyn_index` and `dyn_update`
//! (overwrite and accumulate) with numpy's integer-index semantics, checked
//! against numpy in range and for the status and message out of range;
//! the same through the C ABI; and no invalid access or leak under valgrind
//! when an index is out of range.

use crate::mlir_support::*;
use agc_ir::{BinaryOp, CmpOp, ConstData, DType, Function, OpKind};
use DType::*;

const INDEX_OUT_OF_RANGE: i32 = 3;

fn scalar_i64(v: i64) -> Tensor {
    Tensor::new(I64, &[], &[v as f64])
}

/// `pick(x, i) = x[i]` on `x: f32[B, 3]`.
fn pick() -> Function {
    let (mut b, p) = Fb::new("pick", &[ty(F32, &["B", "3"]), st(I64, &[])]);
    let r = b.op(OpKind::DynIndex { axes: 1 }, &[p[0], p[1]], st(F32, &[3]));
    b.ret(&[r])
}

/// `pick2(x, i, j) = x[i, j]` on `x: f64[B, C]` (a rank-0 result).
fn pick2() -> Function {
    let (mut b, p) = Fb::new("pick2", &[ty(F64, &["B", "C"]), st(I64, &[]), st(I64, &[])]);
    let r = b.op(
        OpKind::DynIndex { axes: 2 },
        &[p[0], p[1], p[2]],
        st(F64, &[]),
    );
    b.ret(&[r])
}

/// `pick_static(x, i) = x[i]` on `x: i32[3, 2]`.
fn pick_static() -> Function {
    let (mut b, p) = Fb::new("pick_static", &[st(I32, &[3, 2]), st(I64, &[])]);
    let r = b.op(OpKind::DynIndex { axes: 1 }, &[p[0], p[1]], st(I32, &[2]));
    b.ret(&[r])
}

/// `put(x, v, i)`: `x[i] = v` with `v: f32[3]`; `add1(x, v, i)`: `x[i] += v`
/// with `v: f32[1]` (broadcast); `add0(x, v, i, j)`: `x[i, j] += v`
/// (rank 0) on `x: f32[B, 3]`; `put2(x, v, i, j)` on `x: i64[B, C, 2]`.
fn updates() -> Vec<Function> {
    let mut out = Vec::new();
    let x = ty(F32, &["B", "3"]);
    for (name, vt, accumulate) in [("put", st(F32, &[3]), false), ("add1", st(F32, &[1]), true)] {
        let (mut b, p) = Fb::new(name, &[x.clone(), vt, st(I64, &[])]);
        let r = b.op(
            OpKind::DynUpdate {
                axes: 1,
                accumulate,
            },
            &[p[0], p[1], p[2]],
            x.clone(),
        );
        out.push(b.ret(&[r]));
    }
    let (mut b, p) = Fb::new(
        "add0",
        &[x.clone(), st(F32, &[]), st(I64, &[]), st(I64, &[])],
    );
    let r = b.op(
        OpKind::DynUpdate {
            axes: 2,
            accumulate: true,
        },
        &[p[0], p[1], p[2], p[3]],
        x.clone(),
    );
    out.push(b.ret(&[r]));
    let x3 = ty(I64, &["B", "C", "2"]);
    let (mut b, p) = Fb::new(
        "put2",
        &[x3.clone(), st(I64, &[2]), st(I64, &[]), st(I64, &[])],
    );
    let r = b.op(
        OpKind::DynUpdate {
            axes: 2,
            accumulate: false,
        },
        &[p[0], p[1], p[2], p[3]],
        x3,
    );
    // The input is used again after the update: the update must copy.
    let s = b.ew(OpKind::Binary(BinaryOp::Add), &[r, p[0]], I64);
    out.push(b.ret(&[r, s]));
    out.push(put_many());
    out
}

/// `put_many(x, v3, v0, i, j)`: in the body of a loop of one trip,
/// `x[i] = v3; x[i, j] = v0` five times on a copy of `x: f32[B, 3]`; then
/// that and its sum with `x`. Ten updates in a loop body: more than the
/// backend writes with loops (the slice form).
fn put_many() -> Function {
    let x = ty(F32, &["B", "3"]);
    let params = [
        x.clone(),
        st(F32, &[3]),
        st(F32, &[]),
        st(I64, &[]),
        st(I64, &[]),
    ];
    let (mut b, p) = Fb::new("put_many", &params);
    let state = [st(I64, &[]), x.clone()];
    let zero = b.op(OpKind::Const(ConstData::Int(vec![0])), &[], st(I64, &[]));
    let one = b.op(OpKind::Const(ConstData::Int(vec![1])), &[], st(I64, &[]));
    let (before, bp) = b.region(&state);
    let (after, ap) = b.region(&state);
    let body = b.at(before);
    let c = b.ew(OpKind::Compare(CmpOp::Lt), &[bp[0], one], Bool);
    b.term(OpKind::Condition, &[c, bp[0], bp[1]]);
    b.at(after);
    let mut r = ap[1];
    for _ in 0..5 {
        let update = |axes| OpKind::DynUpdate {
            axes,
            accumulate: false,
        };
        r = b.op(update(1), &[r, p[1], p[3]], x.clone());
        r = b.op(update(2), &[r, p[2], p[3], p[4]], x.clone());
    }
    let next = b.ew(OpKind::Binary(BinaryOp::Add), &[ap[0], one], I64);
    b.term(OpKind::Yield, &[next, r]);
    b.at(body);
    let out = b.op_multi(OpKind::While, &[zero, p[0]], &state, vec![before, after]);
    let s = b.ew(OpKind::Binary(BinaryOp::Add), &[out[1], p[0]], F32);
    b.ret(&[out[1], s])
}

/// `def stack_rows(x): out = zeros((T, 3)); for t in range(T): out[t] = x[T-1-t] * 2; g = zeros_like(x); for t: g[t] += x[t]; return out, g`
/// on `x: f32[T, 3]`: the staged-list pattern (update of a loop-carried
/// tensor) and the adjoint pattern (`dyn_update_add` in a loop).
fn stack_rows() -> Function {
    let xt = ty(F32, &["T", "3"]);
    let state = [st(I64, &[]), xt.clone(), xt.clone()];
    let (mut b, p) = Fb::new("stack_rows", std::slice::from_ref(&xt));
    let zero_i = b.op(OpKind::Const(ConstData::Int(vec![0])), &[], st(I64, &[]));
    let zero = b.op(
        OpKind::Const(ConstData::Float(vec![0.0])),
        &[],
        st(F32, &[]),
    );
    let buf = b.op(OpKind::Fill, &[zero], xt.clone());
    let n = b.op(OpKind::Dim { axis: 0 }, &[p[0]], st(I64, &[]));
    let (before, bp) = b.region(&state);
    let (after, ap) = b.region(&state);
    let body = b.at(before);
    let c = b.ew(OpKind::Compare(CmpOp::Lt), &[bp[0], n], Bool);
    b.term(OpKind::Condition, &[c, bp[0], bp[1], bp[2]]);
    b.at(after);
    let one = b.op(OpKind::Const(ConstData::Int(vec![1])), &[], st(I64, &[]));
    let minus_one = b.op(OpKind::Const(ConstData::Int(vec![-1])), &[], st(I64, &[]));
    let back = b.ew(OpKind::Binary(BinaryOp::Sub), &[minus_one, ap[0]], I64);
    let row = b.op(OpKind::DynIndex { axes: 1 }, &[p[0], back], st(F32, &[3]));
    let two = b.op(
        OpKind::Const(ConstData::Float(vec![2.0])),
        &[],
        st(F32, &[]),
    );
    let row2 = b.ew(OpKind::Binary(BinaryOp::Mul), &[row, two], F32);
    let out = b.op(
        OpKind::DynUpdate {
            axes: 1,
            accumulate: false,
        },
        &[ap[1], row2, ap[0]],
        xt.clone(),
    );
    let fwd = b.op(OpKind::DynIndex { axes: 1 }, &[p[0], ap[0]], st(F32, &[3]));
    let g = b.op(
        OpKind::DynUpdate {
            axes: 1,
            accumulate: true,
        },
        &[ap[2], fwd, ap[0]],
        xt.clone(),
    );
    let g = b.op(
        OpKind::DynUpdate {
            axes: 1,
            accumulate: true,
        },
        &[g, fwd, ap[0]],
        xt.clone(),
    );
    let i1 = b.ew(OpKind::Binary(BinaryOp::Add), &[ap[0], one], I64);
    b.term(OpKind::Yield, &[i1, out, g]);
    b.at(body);
    let r = b.op_multi(
        OpKind::While,
        &[zero_i, buf, buf],
        &state,
        vec![before, after],
    );
    b.ret(&[r[1], r[2]])
}

/// `extremes(x) = x.max(0), x.argmin(0), x.min(1), x.max()` on `x: f32[B, 3]`.
fn extremes() -> Function {
    use agc_ir::{ArgKind, ReduceKind};
    let (mut b, p) = Fb::new("extremes", &[ty(F32, &["B", "3"])]);
    let red = |kind, axes: Vec<usize>| OpKind::Reduce {
        kind,
        axes,
        keepdims: false,
    };
    let m0 = b.op(red(ReduceKind::Max, vec![0]), &[p[0]], st(F32, &[3]));
    let a0 = b.op(
        OpKind::ArgReduce {
            kind: ArgKind::ArgMin,
            axis: 0,
            keepdims: false,
        },
        &[p[0]],
        st(I64, &[3]),
    );
    let m1 = b.op(red(ReduceKind::Min, vec![1]), &[p[0]], ty(F32, &["B"]));
    let m = b.op(red(ReduceKind::Max, vec![0, 1]), &[p[0]], st(F32, &[]));
    b.ret(&[m0, a0, m1, m])
}

/// `collide(x, a, b) = x[a:b] + 1` typed `f32[S]` like `x` (IR whose
/// names promise equal sizes that are not: the backend checks).
fn collide() -> Function {
    let (mut b, p) = Fb::new("collide", &[ty(F32, &["S"]), st(I64, &[]), st(I64, &[])]);
    let s = b.op(OpKind::DynSlice, &[p[0], p[1], p[2]], ty(F32, &["S"]));
    let one = b.op(
        OpKind::Const(ConstData::Float(vec![1.0])),
        &[],
        st(F32, &[]),
    );
    let r = b.ew(OpKind::Binary(BinaryOp::Add), &[s, one], F32);
    b.ret(&[r])
}

fn module() -> Vec<Function> {
    let mut funcs = vec![
        pick(),
        pick2(),
        pick_static(),
        stack_rows(),
        extremes(),
        collide(),
    ];
    funcs.extend(updates());
    funcs
}

fn expect_index_error(r: Result<Vec<Tensor>, (i32, String)>, index: i64, axis: usize, size: i64) {
    match r {
        Ok(v) => panic!("expected an index error, got {v:?}"),
        Err((st, msg)) => {
            assert_eq!(st, INDEX_OUT_OF_RANGE, "{msg}");
            assert_eq!(
                msg,
                format!("index {index} is out of bounds for axis {axis} with size {size}")
            );
        }
    }
}

#[test]
fn run_time_indices_follow_numpy_and_raise_out_of_range() {
    let lib = build(module());
    lib.assert_needs_only_libc_and_libm();

    for b in [4i64, 1] {
        let x = Tensor::rand(F32, &[b, 3], 7);
        for i in [0, b - 1, -1, -b] {
            let r = lib.try_call("pick", &[&x, &scalar_i64(i)]).unwrap();
            assert_close(
                &format!("pick B={b} i={i}"),
                &r[0],
                &numpy(&format!("x[{i}]"), &[("x", &x)]),
            );
        }
        for i in [b, -b - 1, i64::MAX, i64::MIN] {
            expect_index_error(lib.try_call("pick", &[&x, &scalar_i64(i)]), i, 0, b);
        }
    }
    // An empty axis: nothing is readable, and nothing is read.
    let empty = Tensor::new(F32, &[0, 3], &[]);
    expect_index_error(lib.try_call("pick", &[&empty, &scalar_i64(0)]), 0, 0, 0);
    expect_index_error(lib.try_call("pick", &[&empty, &scalar_i64(-1)]), -1, 0, 0);

    let x = Tensor::rand(F64, &[3, 5], 3);
    for (i, j) in [(0, 0), (2, 4), (-1, -5), (1, -2)] {
        let r = lib
            .try_call("pick2", &[&x, &scalar_i64(i), &scalar_i64(j)])
            .unwrap();
        assert_close(
            "pick2",
            &r[0],
            &numpy(&format!("x[{i}, {j}]"), &[("x", &x)]),
        );
    }
    expect_index_error(
        lib.try_call("pick2", &[&x, &scalar_i64(1), &scalar_i64(5)]),
        5,
        1,
        5,
    );
    // The first index out of range is the one reported.
    expect_index_error(
        lib.try_call("pick2", &[&x, &scalar_i64(-4), &scalar_i64(9)]),
        -4,
        0,
        3,
    );
    let x0 = Tensor::new(F64, &[2, 0], &[]);
    expect_index_error(
        lib.try_call("pick2", &[&x0, &scalar_i64(1), &scalar_i64(0)]),
        0,
        1,
        0,
    );

    let xs = Tensor::rand(I32, &[3, 2], 1);
    for i in [-3, -1, 0, 2] {
        let r = lib.try_call("pick_static", &[&xs, &scalar_i64(i)]).unwrap();
        assert_close(
            "pick_static",
            &r[0],
            &numpy(&format!("x[{i}]"), &[("x", &xs)]),
        );
    }
    expect_index_error(lib.try_call("pick_static", &[&xs, &scalar_i64(3)]), 3, 0, 3);
}

#[test]
fn run_time_updates_follow_numpy_and_raise_out_of_range() {
    let lib = build(module());
    let x = Tensor::rand(F32, &[4, 3], 11);
    let v3 = Tensor::rand(F32, &[3], 12);
    let v1 = Tensor::new(F32, &[1], &[0.5]);
    let v0 = Tensor::new(F32, &[], &[-1.25]);
    let ins = [("x", &x), ("v3", &v3), ("v1", &v1), ("v0", &v0)];
    for i in [0i64, 3, -1, -4] {
        let r = lib.try_call("put", &[&x, &v3, &scalar_i64(i)]).unwrap();
        let want = numpy(
            &format!("(lambda y: (y.__setitem__({i}, v3), y)[1])(x.copy())"),
            &ins,
        );
        assert_close(&format!("put i={i}"), &r[0], &want);
        let r = lib.try_call("add1", &[&x, &v1, &scalar_i64(i)]).unwrap();
        let want = numpy(
            &format!("(lambda y: (y.__setitem__({i}, y[{i}] + v1), y)[1])(x.copy())"),
            &ins,
        );
        assert_close(&format!("add1 i={i}"), &r[0], &want);
        for j in [0i64, -1] {
            let r = lib
                .try_call("add0", &[&x, &v0, &scalar_i64(i), &scalar_i64(j)])
                .unwrap();
            let want = numpy(
                &format!(
                    "(lambda y: (y.__setitem__(({i}, {j}), y[{i}, {j}] + v0), y)[1])(x.copy())"
                ),
                &ins,
            );
            assert_close(&format!("add0 i={i} j={j}"), &r[0], &want);
        }
    }
    expect_index_error(lib.try_call("put", &[&x, &v3, &scalar_i64(4)]), 4, 0, 4);
    expect_index_error(lib.try_call("add1", &[&x, &v1, &scalar_i64(-5)]), -5, 0, 4);
    expect_index_error(
        lib.try_call("add0", &[&x, &v0, &scalar_i64(0), &scalar_i64(3)]),
        3,
        1,
        3,
    );
    let empty = Tensor::new(F32, &[0, 3], &[]);
    expect_index_error(lib.try_call("put", &[&empty, &v3, &scalar_i64(0)]), 0, 0, 0);

    assert!(
        lib.mlir.contains("tensor.insert_slice"),
        "put_many: no slice"
    );
    for (i, j) in [(0i64, 0i64), (3, 2), (-1, -3), (-4, 1)] {
        let r = lib
            .try_call("put_many", &[&x, &v3, &v0, &scalar_i64(i), &scalar_i64(j)])
            .unwrap();
        let set = format!("y.__setitem__({i}, v3), y.__setitem__(({i}, {j}), v0)");
        let want = numpy(&format!("(lambda y: ({set}, y)[2])(x.copy())"), &ins);
        assert_close("put_many", &r[0], &want);
        let want = numpy(&format!("(lambda y: ({set}, y + x)[2])(x.copy())"), &ins);
        assert_close("put_many + x", &r[1], &want);
    }
    let put_many = |x: &Tensor, i: i64, j: i64| {
        lib.try_call("put_many", &[x, &v3, &v0, &scalar_i64(i), &scalar_i64(j)])
    };
    expect_index_error(put_many(&x, 4, 0), 4, 0, 4);
    expect_index_error(put_many(&x, 1, -4), -4, 1, 3);
    expect_index_error(put_many(&empty, 0, 0), 0, 0, 0);

    let x3 = Tensor::rand(I64, &[2, 3, 2], 5);
    let v2 = Tensor::new(I64, &[2], &[100.0, 200.0]);
    let ins = [("x", &x3), ("v", &v2)];
    for (i, j) in [(0i64, 0i64), (1, 2), (-2, -1)] {
        let r = lib
            .try_call("put2", &[&x3, &v2, &scalar_i64(i), &scalar_i64(j)])
            .unwrap();
        let want = numpy(
            &format!("(lambda y: (y.__setitem__(({i}, {j}), v), y)[1])(x.copy())"),
            &ins,
        );
        assert_close("put2", &r[0], &want);
        let want = numpy(
            &format!("(lambda y: (y.__setitem__(({i}, {j}), v), y + x)[1])(x.copy())"),
            &ins,
        );
        assert_close("put2 + x", &r[1], &want);
    }
    expect_index_error(
        lib.try_call("put2", &[&x3, &v2, &scalar_i64(0), &scalar_i64(-4)]),
        -4,
        1,
        3,
    );

    for t in [5i64, 1, 0] {
        let x = Tensor::rand(F32, &[t, 3], 21);
        let r = lib.try_call("stack_rows", &[&x]).unwrap();
        assert_close("stack_rows out", &r[0], &numpy("x[::-1] * 2", &[("x", &x)]));
        assert_close("stack_rows grad", &r[1], &numpy("x + x", &[("x", &x)]));
    }
}

#[test]
fn reductions_without_identity_raise_on_empty_axes() {
    let lib = build(module());
    let x = Tensor::rand(F32, &[2, 3], 8);
    let r = lib.try_call("extremes", &[&x]).unwrap();
    let ins = [("x", &x)];
    assert_close("max0", &r[0], &numpy("x.max(0)", &ins));
    assert_close("argmin0", &r[1], &numpy("x.argmin(0)", &ins));
    assert_close("min1", &r[2], &numpy("x.min(1)", &ins));
    assert_close("max", &r[3], &numpy("x.max()", &ins));
    let empty = Tensor::new(F32, &[0, 3], &[]);
    assert_eq!(
        lib.try_call("extremes", &[&empty]).unwrap_err(),
        (
            1,
            "zero-size array to reduction operation maximum which has no identity".to_string()
        )
    );
}

#[test]
fn inconsistent_sizes_are_an_internal_error_not_a_wild_read() {
    let lib = build(module());
    let x = Tensor::rand(F32, &[5], 3);
    let r = lib
        .try_call("collide", &[&x, &scalar_i64(0), &scalar_i64(5)])
        .unwrap();
    assert_close("collide", &r[0], &numpy("x + 1", &[("x", &x)]));
    let e = lib
        .try_call("collide", &[&x, &scalar_i64(3), &scalar_i64(5)])
        .unwrap_err();
    assert_eq!(e.0, 5, "{e:?}");
    assert!(
        e.1.contains("inconsistent run-time sizes (axis 0 has size 2 where 5 was expected)"),
        "{e:?}"
    );
}

#[test]
fn out_of_range_indices_touch_no_memory_outside_under_valgrind() {
    let x = Tensor::rand(F32, &[4, 3], 11);
    let empty = Tensor::new(F32, &[0, 3], &[]);
    let v3 = Tensor::rand(F32, &[3], 12);
    let v0 = Tensor::new(F32, &[], &[1.0]);
    let calls = vec![
        ("pick", vec![x.clone(), scalar_i64(9)]),
        ("pick", vec![empty.clone(), scalar_i64(0)]),
        ("pick", vec![x.clone(), scalar_i64(-2)]),
        (
            "pick2",
            vec![Tensor::new(F64, &[2, 0], &[]), scalar_i64(0), scalar_i64(0)],
        ),
        ("put", vec![x.clone(), v3.clone(), scalar_i64(-7)]),
        ("put", vec![empty.clone(), v3.clone(), scalar_i64(0)]),
        ("put", vec![x.clone(), v3.clone(), scalar_i64(1)]),
        (
            "add0",
            vec![x.clone(), v0.clone(), scalar_i64(3), scalar_i64(3)],
        ),
        (
            "add0",
            vec![x.clone(), v0.clone(), scalar_i64(3), scalar_i64(2)],
        ),
        (
            "put_many",
            vec![
                x.clone(),
                v3.clone(),
                v0.clone(),
                scalar_i64(5),
                scalar_i64(0),
            ],
        ),
        (
            "put_many",
            vec![
                empty.clone(),
                v3.clone(),
                v0.clone(),
                scalar_i64(0),
                scalar_i64(0),
            ],
        ),
        (
            "put_many",
            vec![
                x.clone(),
                v3.clone(),
                v0.clone(),
                scalar_i64(-1),
                scalar_i64(-1),
            ],
        ),
        ("stack_rows", vec![x]),
        ("extremes", vec![Tensor::new(F32, &[0, 3], &[])]),
        (
            "collide",
            vec![Tensor::rand(F32, &[5], 3), scalar_i64(3), scalar_i64(5)],
        ),
    ];
    run_under_valgrind(&module(), &calls, 3);
}

#[test]
fn index_errors_through_the_c_abi() {
    // `third_row(x) = x[2]` and `row(x, i) = x[i] * 2` on `x: f32[B, 3]`.
    let (mut b, p) = Fb::new("third_row", &[ty(F32, &["B", "3"])]);
    let two = b.op(OpKind::Const(ConstData::Int(vec![2])), &[], st(I64, &[]));
    // `x[2]` at bytes 25..29 of the source: line 3 of lines starting at 0, 10, 20, 40.
    let r = b.op_at(
        OpKind::DynIndex { axes: 1 },
        &[p[0], two],
        st(F32, &[3]),
        agc_ir::Span::new(25, 29),
    );
    let third = b.ret(&[r]);
    let (mut b, p) = Fb::new("row", &[ty(F32, &["B", "3"]), st(I64, &[])]);
    let r = b.op(OpKind::DynIndex { axes: 1 }, &[p[0], p[1]], st(F32, &[3]));
    let k = b.op(
        OpKind::Const(ConstData::Float(vec![2.0])),
        &[],
        st(F32, &[]),
    );
    let r2 = b.ew(OpKind::Binary(BinaryOp::Mul), &[r, k], F32);
    let row = b.ret(&[r2, r]);
    let lib = build_abi_with_lines(
        "idx",
        vec![third, row],
        &["third_row", "row"],
        vec![0, 10, 20, 40],
    );
    let x = Tensor::rand(F32, &[3, 3], 4);
    let r = lib.call("third_row", &[&x]).unwrap();
    assert_close("third_row", &r[0], &numpy("x[2]", &[("x", &x)]));
    let short = Tensor::rand(F32, &[2, 3], 4);
    assert_eq!(
        lib.call("third_row", &[&short]).unwrap_err(),
        (
            INDEX_OUT_OF_RANGE,
            "third_row: index 2 is out of bounds for axis 0 with size 2 (line 3)".to_string()
        )
    );
    // The error does not stick: the next call succeeds.
    let r = lib.call("row", &[&x, &scalar_i64(-3)]).unwrap();
    assert_close("row", &r[0], &numpy("x[-3] * 2", &[("x", &x)]));
    assert_close("row", &r[1], &numpy("x[-3]", &[("x", &x)]));
    assert_eq!(
        lib.call("row", &[&x, &scalar_i64(-4)]).unwrap_err(),
        (
            INDEX_OUT_OF_RANGE,
            "row: index -4 is out of bounds for axis 0 with size 3".to_string()
        )
    );
}
