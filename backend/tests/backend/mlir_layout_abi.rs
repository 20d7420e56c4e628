//! End-to-end tests of `agc_backend::mlir`, layout and ABI side: reshape,
//! transpose, slices, concat, constants and returned parameters (checked
//! against numpy), result ownership under valgrind, and the library's
//! undefined symbols (libc and libm only).

use crate::mlir_support::*;
use agc_ir::{
    infer, ArgKind, BinaryOp, ConstData, DType, OpKind, ReduceKind, SliceDim, TensorType, UnaryOp,
};
use DType::*;

#[test]
fn reshape_transpose_and_rank_zero() {
    let t = ty(F32, &["B", "2", "3"]);
    let (mut b, p) = Fb::new("shapes", &[t.clone(), st(F32, &[1, 1]), st(F32, &[])]);
    let d = infer::reshape_dims(&t, &[Some(agc_ir::Dim::Sym("B".into())), None]).unwrap();
    let r1 = b.op(OpKind::Reshape, &[p[0]], TensorType::new(F32, d)); // (B, 6)
    let d = infer::reshape_dims(&t, &[None, Some(agc_ir::Dim::Static(2))]).unwrap();
    let r2 = b.op(OpKind::Reshape, &[p[0]], TensorType::new(F32, d)); // ((B*3), 2)
    let tr = b.op(
        OpKind::Transpose {
            perm: vec![2, 0, 1],
        },
        &[p[0]],
        infer::transpose(&t, &[2, 0, 1]).unwrap(),
    );
    let r0 = b.op(OpKind::Reshape, &[p[1]], st(F32, &[]));
    let r3 = b.op(OpKind::Reshape, &[p[2]], st(F32, &[1, 1, 1]));
    let x = b.ew(OpKind::Binary(BinaryOp::Add), &[r0, p[2]], F32);
    let lib = build(vec![b.ret_unverified(&[r1, r2, tr, r0, r3, x])]);
    let xs = Tensor::rand(F32, &[4, 2, 3], 3);
    let one = Tensor::new(F32, &[1, 1], &[2.5]);
    let sc = Tensor::new(F32, &[], &[-1.25]);
    let r = lib.call("shapes", &[&xs, &one, &sc]);
    let ins = [("x", &xs), ("o", &one), ("s", &sc)];
    assert_close("reshape (B,6)", &r[0], &numpy("x.reshape(4, 6)", &ins));
    assert_close("reshape (-1,2)", &r[1], &numpy("x.reshape(-1, 2)", &ins));
    assert_close(
        "transpose",
        &r[2],
        &numpy("np.transpose(x, (2, 0, 1))", &ins),
    );
    assert_close("to rank 0", &r[3], &numpy("o.reshape(())", &ins));
    assert_close("from rank 0", &r[4], &numpy("s.reshape(1, 1, 1)", &ins));
    assert_close("rank-0 add", &r[5], &numpy("o.reshape(()) + s", &ins));
}

#[test]
fn slices_with_negative_steps_and_concat() {
    let s = |a: Option<i64>, b: Option<i64>, c: i64| SliceDim {
        start: a,
        stop: b,
        step: c,
    };
    let cases: Vec<(&str, Vec<SliceDim>, &str)> = vec![
        (
            "rev",
            vec![s(None, None, -1), s(Some(1), Some(5), 2)],
            "x[::-1, 1:5:2]",
        ),
        (
            "neg",
            vec![s(Some(-2), None, -2), s(Some(-1), Some(0), -1)],
            "x[-2::-2, -1:0:-1]",
        ),
        (
            "clamp",
            vec![s(Some(1), Some(100), 1), s(Some(-100), Some(3), 1)],
            "x[1:100, -100:3]",
        ),
        (
            "empty",
            vec![s(Some(3), Some(1), 1), SliceDim::FULL],
            "x[3:1, :]",
        ),
    ];
    let tx = ty(F32, &["B", "6"]);
    let mut funcs = Vec::new();
    for (name, dims, _) in &cases {
        let (mut b, p) = Fb::new(name, std::slice::from_ref(&tx));
        let r = b.op(
            OpKind::Slice { dims: dims.clone() },
            &[p[0]],
            infer::slice(&tx, dims).unwrap(),
        );
        funcs.push(b.ret(&[r]));
    }
    // Static slices, and slicing a slice (symbols minted by the first).
    let ts = st(I32, &[7]);
    let (mut b, p) = Fb::new("static", std::slice::from_ref(&ts));
    let d1 = vec![s(Some(5), Some(-8), -2)];
    let r1 = b.op(
        OpKind::Slice { dims: d1.clone() },
        &[p[0]],
        infer::slice(&ts, &d1).unwrap(),
    );
    funcs.push(b.ret(&[r1]));
    // `x[2:3]` on a symbolic dim: a run-time size (Python clamps slices).
    let ti = ty(I64, &["B", "2"]);
    let (mut b, p) = Fb::new("index", std::slice::from_ref(&ti));
    let d1 = vec![s(Some(2), Some(3), 1), SliceDim::FULL];
    let t1 = infer::slice(&ti, &d1).unwrap();
    assert!(matches!(t1.dims[0], agc_ir::Dim::Sym(_)), "{t1}");
    let r1 = b.op(OpKind::Slice { dims: d1.clone() }, &[p[0]], t1);
    funcs.push(b.ret(&[r1]));
    // The same slice typed as a static 1 (as the frontend once did): reads
    // outside the run-time size give zeros instead of touching memory.
    let (mut b, p) = Fb::new("index1", std::slice::from_ref(&ti));
    let r1 = b.op(OpKind::Slice { dims: d1 }, &[p[0]], ty(I64, &["1", "2"]));
    funcs.push(b.ret_unverified(&[r1]));
    // x[start:stop] with run-time bounds.
    let tx2 = ty(F32, &["B", "2"]);
    let (mut b, p) = Fb::new("dyn", &[tx2.clone(), st(I64, &[]), st(I64, &[])]);
    let r1 = b.op(OpKind::DynSlice, &[p[0], p[1], p[2]], ty(F32, &["_d", "2"]));
    let r2 = b.op(
        OpKind::Reduce {
            kind: ReduceKind::Sum,
            axes: vec![0],
            keepdims: false,
        },
        &[r1],
        st(F32, &[2]),
    );
    funcs.push(b.ret(&[r1, r2]));
    let tb = ty(F64, &["B"]);
    let (mut b, p) = Fb::new("twice", std::slice::from_ref(&tb));
    let d1 = vec![s(Some(1), None, 1)];
    let t1 = infer::slice(&tb, &d1).unwrap();
    let r1 = b.op(OpKind::Slice { dims: d1 }, &[p[0]], t1.clone());
    let d2 = vec![s(None, None, -2)];
    let r2 = b.op(
        OpKind::Slice { dims: d2.clone() },
        &[r1],
        infer::slice(&t1, &d2).unwrap(),
    );
    let sq = b.ew(OpKind::Binary(BinaryOp::Mul), &[r2, r2], F64);
    funcs.push(b.ret(&[r2, sq]));
    // Concat along a symbolic axis and along a static one.
    let (ta, tc) = (ty(F32, &["B", "3"]), ty(F32, &["2", "3"]));
    let (mut b, p) = Fb::new("cat", &[ta.clone(), tc.clone(), ty(F32, &["B", "2"])]);
    let c0 = b.op(
        OpKind::Concat { axis: 0 },
        &[p[0], p[1], p[0]],
        infer::concat(&[&ta, &tc, &ta], 0).unwrap(),
    );
    let tb2 = ty(F32, &["B", "2"]);
    let c1 = b.op(
        OpKind::Concat { axis: 1 },
        &[p[2], p[0]],
        infer::concat(&[&tb2, &ta], 1).unwrap(),
    );
    let red = b.op(
        OpKind::Reduce {
            kind: ReduceKind::Sum,
            axes: vec![1],
            keepdims: false,
        },
        &[c0],
        TensorType::new(F32, vec![b.t(c0).dims[0].clone()]),
    );
    funcs.push(b.ret(&[c0, c1, red]));
    let lib = build(funcs);

    for n in [5, 1, 0] {
        let x = Tensor::rand(F32, &[n, 6], 40 + n as u64);
        for (name, _, expr) in &cases {
            let r = lib.call(name, &[&x]);
            assert_close(
                &format!("{name} (B={n})"),
                &r[0],
                &numpy(expr, &[("x", &x)]),
            );
        }
        let v = Tensor::rand(F64, &[n], 3);
        let r = lib.call("twice", &[&v]);
        assert_close("twice", &r[0], &numpy("v[1:][::-2]", &[("v", &v)]));
        assert_close("twice sq", &r[1], &numpy("v[1:][::-2] ** 2", &[("v", &v)]));
        let (a, c, d) = (
            Tensor::rand(F32, &[n, 3], 1),
            Tensor::rand(F32, &[2, 3], 2),
            Tensor::rand(F32, &[n, 2], 3),
        );
        let r = lib.call("cat", &[&a, &c, &d]);
        let ins = [("a", &a), ("c", &c), ("d", &d)];
        assert_close(
            "cat0",
            &r[0],
            &numpy("np.concatenate([a, c, a], axis=0)", &ins),
        );
        assert_close(
            "cat1",
            &r[1],
            &numpy("np.concatenate([d, a], axis=1)", &ins),
        );
        assert_close(
            "cat0 sum",
            &r[2],
            &numpy("np.concatenate([a, c, a], axis=0).sum(axis=1)", &ins),
        );
    }
    let x = Tensor::rand(I32, &[7], 5);
    let r = lib.call("static", &[&x]);
    assert_close("static", &r[0], &numpy("x[5:-8:-2]", &[("x", &x)]));
    for n in [5, 0] {
        let x = Tensor::rand(F32, &[n, 2], 8);
        for (a, z) in [(1, 3), (-2, 100), (-100, -1), (3, 1), (0, 0)] {
            let (ta, tz) = (
                Tensor::new(I64, &[], &[a as f64]),
                Tensor::new(I64, &[], &[z as f64]),
            );
            let r = lib.call("dyn", &[&x, &ta, &tz]);
            let what = format!("x[{a}:{z}] (n={n})");
            assert_close(&what, &r[0], &numpy(&format!("x[{a}:{z}]"), &[("x", &x)]));
            assert_close(
                &what,
                &r[1],
                &numpy(&format!("x[{a}:{z}].sum(axis=0)"), &[("x", &x)]),
            );
        }
    }
    for n in [4, 3, 2, 0] {
        let x = Tensor::rand(I64, &[n, 2], 6);
        let r = lib.call("index", &[&x]);
        assert_close("index", &r[0], &numpy("x[2:3]", &[("x", &x)]));
    }
    let x = Tensor::rand(I64, &[4, 2], 6);
    let r = lib.call("index1", &[&x]);
    assert_close("index1", &r[0], &numpy("x[2:3]", &[("x", &x)]));
    let x = Tensor::rand(I64, &[2, 2], 6);
    let r = lib.call("index1", &[&x]);
    assert_close(
        "index1 out of range",
        &r[0],
        &Tensor::new(I64, &[1, 2], &[0.0, 0.0]),
    );
}

#[test]
fn constants_params_iota_dim_and_fill() {
    let (mut b, p) = Fb::new("misc", &[ty(F32, &["B", "3"])]);
    let k = b.op(
        OpKind::Const(ConstData::Float(vec![1.0, -2.0, 0.5])),
        &[],
        st(F32, &[3]),
    );
    let splat = b.op(
        OpKind::Const(ConstData::Float(vec![2.0; 6])),
        &[],
        st(F64, &[2, 3]),
    );
    let bools = b.op(
        OpKind::Const(ConstData::Bool(vec![true, false, false, true])),
        &[],
        st(Bool, &[2, 2]),
    );
    let ints = b.op(
        OpKind::Const(ConstData::Int(vec![3, -4])),
        &[],
        st(I32, &[2]),
    );
    let s = b.ew(OpKind::Binary(BinaryOp::Add), &[p[0], k], F32);
    let n = b.op(OpKind::Dim { axis: 0 }, &[p[0]], st(I64, &[]));
    let io = b.op(
        OpKind::Iota {
            start: 1.5,
            step: -0.5,
        },
        &[],
        st(F32, &[5]),
    );
    let ioi = b.op(
        OpKind::Iota {
            start: 3.0,
            step: 2.0,
        },
        &[],
        st(I64, &[4]),
    );
    let seven = b.op(
        OpKind::Const(ConstData::Float(vec![7.0])),
        &[],
        st(F32, &[]),
    );
    let fill = b.op(OpKind::Fill, &[seven], ty(F32, &["B", "2"]));
    let bc = b.op(OpKind::BroadcastTo, &[k], ty(F32, &["B", "3"]));
    // The parameter twice, the same op result twice, and constants, all returned.
    let lib = build(vec![b.ret(&[
        s, p[0], k, splat, bools, ints, n, io, ioi, fill, bc, s, p[0],
    ])]);
    for bsz in [3, 0] {
        let x = Tensor::rand(F32, &[bsz, 3], 9);
        let r = lib.call("misc", &[&x]);
        let ins = [("x", &x)];
        let k = "np.array([1.0, -2.0, 0.5], dtype=np.float32)";
        assert_close("x+k", &r[0], &numpy(&format!("x + {k}"), &ins));
        assert_close("param", &r[1], &x);
        assert_close("const", &r[2], &numpy(k, &ins));
        assert_close("splat", &r[3], &numpy("np.full((2, 3), 2.0)", &ins));
        assert_close(
            "bools",
            &r[4],
            &numpy("np.array([[True, False], [False, True]])", &ins),
        );
        assert_close(
            "ints",
            &r[5],
            &numpy("np.array([3, -4], dtype=np.int32)", &ins),
        );
        assert_close("dim", &r[6], &numpy("np.int64(x.shape[0])", &ins));
        assert_close(
            "iota",
            &r[7],
            &numpy("(1.5 + np.arange(5) * -0.5).astype(np.float32)", &ins),
        );
        assert_close("iota int", &r[8], &numpy("np.arange(3, 11, 2)", &ins));
        assert_close(
            "fill",
            &r[9],
            &numpy("np.full((x.shape[0], 2), 7.0, dtype=np.float32)", &ins),
        );
        assert_close(
            "broadcast_to",
            &r[10],
            &numpy(&format!("np.broadcast_to({k}, x.shape)"), &ins),
        );
        assert_close("x+k again", &r[11], &numpy(&format!("x + {k}"), &ins));
        assert_close("param again", &r[12], &x);
    }
}

/// Only libc/libm symbols may be left undefined by the generated code.
#[test]
fn generated_code_needs_only_libc_and_libm() {
    let (mut b, p) = Fb::new("deps", &[ty(F32, &["B", "4"]), ty(I64, &["B", "4"])]);
    let e = b.ew(OpKind::Unary(UnaryOp::Tanh), &[p[0]], F32);
    let e = b.ew(OpKind::Unary(UnaryOp::Exp), &[e], F32);
    let pw = b.ew(OpKind::Binary(BinaryOp::Pow), &[p[1], p[1]], I64);
    let fm = b.ew(OpKind::Binary(BinaryOp::Mod), &[p[0], e], F32);
    let sl = b.op(
        OpKind::Slice {
            dims: vec![
                SliceDim {
                    start: Some(1),
                    stop: None,
                    step: 1,
                },
                SliceDim::FULL,
            ],
        },
        &[p[0]],
        ty(F32, &["(B-1)", "4"]),
    );
    let lib = build(vec![b.ret(&[e, pw, fm, sl])]);
    lib.assert_needs_only_libc_and_libm();
}

/// Many calls under valgrind: no leak, no double free, no invalid access.
#[test]
fn no_leaks_or_double_frees_under_valgrind() {
    if std::process::Command::new("valgrind")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("valgrind not installed; skipping");
        return;
    }
    let tx = ty(F32, &["B", "4"]);
    let (mut b, p) = Fb::new("vg", &[tx.clone(), st(F32, &[4, 3])]);
    let k = b.op(
        OpKind::Const(ConstData::Float(vec![1.0, 2.0, 3.0, 4.0])),
        &[],
        st(F32, &[4]),
    );
    let s = b.ew(OpKind::Binary(BinaryOp::Add), &[p[0], k], F32);
    let mm = b.op(OpKind::MatMul, &[s, p[1]], ty(F32, &["B", "3"]));
    let red = b.op(
        OpKind::Reduce {
            kind: ReduceKind::Max,
            axes: vec![1],
            keepdims: false,
        },
        &[mm],
        ty(F32, &["B"]),
    );
    let am = b.op(
        OpKind::ArgReduce {
            kind: ArgKind::ArgMax,
            axis: 1,
            keepdims: true,
        },
        &[mm],
        ty(I64, &["B", "1"]),
    );
    let dims = vec![
        SliceDim {
            start: None,
            stop: None,
            step: -1,
        },
        SliceDim {
            start: Some(1),
            stop: None,
            step: 2,
        },
    ];
    let sl = b.op(
        OpKind::Slice { dims: dims.clone() },
        &[s],
        infer::slice(&tx, &dims).unwrap(),
    );
    let cat = b.op(
        OpKind::Concat { axis: 0 },
        &[p[0], s],
        infer::concat(&[&tx, &tx], 0).unwrap(),
    );
    let flat = b.op(OpKind::Reshape, &[p[1]], st(F32, &[12]));
    let tr = b.op(
        OpKind::Transpose { perm: vec![1, 0] },
        &[mm],
        ty(F32, &["3", "B"]),
    );
    let rets = [p[0], k, s, s, mm, red, am, sl, cat, flat, p[1], tr];
    let mut funcs = vec![b.ret(&rets)];
    // Small functions for what the first result slot can be (it is the one
    // slot returned without a copy): a view of a parameter, a constant, a
    // view of a buffer that a later slot returns too, a value twice.
    let sig = [tx.clone(), st(F32, &[4, 3])];
    let (mut b, p) = Fb::new("vg_view_param", &sig);
    let v = b.op(OpKind::Reshape, &[p[1]], st(F32, &[2, 6]));
    funcs.push(b.ret(&[v, p[1]]));
    let (mut b, _) = Fb::new("vg_const", &sig);
    let k = b.op(
        OpKind::Const(ConstData::Float(vec![1.0, 2.0])),
        &[],
        st(F32, &[2]),
    );
    funcs.push(b.ret(&[k, k]));
    let (mut b, p) = Fb::new("vg_view_owned", &sig);
    let s = b.ew(OpKind::Unary(UnaryOp::Exp), &[p[1]], F32);
    let v = b.op(OpKind::Reshape, &[s], st(F32, &[12]));
    funcs.push(b.ret(&[v, s]));
    let (mut b, p) = Fb::new("vg_twice", &sig);
    let s1 = b.ew(OpKind::Unary(UnaryOp::Neg), &[p[0]], F32);
    let s2 = b.ew(OpKind::Unary(UnaryOp::Neg), &[p[0]], F32);
    funcs.push(b.ret(&[s1, s2, s1]));
    let dir = tempfile::tempdir().unwrap();
    compile_object(&funcs, dir.path(), true);
    let mut decls = String::new();
    let mut calls = String::new();
    for f in &funcs {
        // The `allocated` word of each result in the returned struct.
        let mut at = 0;
        let mut frees = String::new();
        for t in &f.result_types {
            frees.push_str(&format!(
                "        _mlir_memref_to_llvm_free((void *)ret[{at}]);\n"
            ));
            at += 3 + 2 * t.tensor().rank();
        }
        let name = &f.name;
        decls.push_str(&format!(
            "void _mlir_ciface_agc_impl_{name}(int64_t *, int64_t *, int64_t *);\n"
        ));
        calls.push_str(&format!(
            "      {{\n        int64_t ret[{at}];\n        _mlir_ciface_agc_impl_{name}(ret, x, w);\n{frees}      }}\n"
        ));
    }
    let driver = format!(
        r#"#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
void _mlir_memref_to_llvm_free(void *);
{decls}
int main(void) {{
  for (int64_t n = 0; n < 6; n++) {{
    float *xs = malloc(sizeof(float) * (n * 4 + 1)), ws[12];
    for (int i = 0; i < n * 4; i++) xs[i] = (float)(i % 7) - 3.0f;
    for (int i = 0; i < 12; i++) ws[i] = (float)i * 0.5f;
    int64_t x[7] = {{(int64_t)xs, (int64_t)xs, 0, n, 4, 4, 1}};
    int64_t w[7] = {{(int64_t)ws, (int64_t)ws, 0, 4, 3, 3, 1}};
    for (int it = 0; it < 50; it++) {{
{calls}    }}
    free(xs);
  }}
  puts("ok");
  return 0;
}}
"#
    );
    std::fs::write(dir.path().join("drv.c"), driver).unwrap();
    let exe = dir.path().join("drv");
    let st = std::process::Command::new("cc")
        .args(["-g", "-o"])
        .arg(&exe)
        .arg(dir.path().join("drv.c"))
        .arg(dir.path().join("k.o"))
        .arg(runtime_archive(dir.path()))
        .arg("-lm")
        .status()
        .unwrap();
    assert!(st.success());
    assert_valgrind_clean(&exe, dir.path(), "all");
}

#[test]
fn fill_and_iota_sizes_computed_from_derived_names() {
    // Sizes named like `agc_ir::infer` names derived sizes, with nothing
    // but `x: f32[B]` bound: trims, products, sums, slices, nesting.
    let (mut b, _) = Fb::new("derived", &[ty(F32, &["B"])]);
    let v = b.op(
        OpKind::Const(ConstData::Float(vec![2.5])),
        &[],
        st(F32, &[]),
    );
    let iota = |b: &mut Fb, t| {
        b.op(
            OpKind::Iota {
                start: 0.0,
                step: 1.0,
            },
            &[],
            t,
        )
    };
    let f1 = b.op(OpKind::Fill, &[v], ty(F32, &["(B-1)"]));
    let i1 = iota(&mut b, ty(I64, &["(B*3)"]));
    let f2 = b.op(OpKind::Fill, &[v], ty(F32, &["B[1::2]", "2"]));
    let i2 = iota(&mut b, ty(F64, &["(B+2)"]));
    let f3 = b.op(OpKind::Fill, &[v], ty(F32, &["((B-1)*2)"]));
    let i3 = iota(&mut b, ty(I32, &["(B-1)[::-3]"]));
    let lib = build(vec![b.ret_unverified(&[f1, i1, f2, i2, f3, i3])]);
    for n in [0i64, 1, 5] {
        let x = Tensor::rand(F32, &[n], 1);
        let r = lib.call("derived", &[&x]);
        let ins = [("x", &x)];
        let b = "x.shape[0]";
        assert_close(
            "(B-1)",
            &r[0],
            &numpy(&format!("np.full(max({b}-1, 0), 2.5, np.float32)"), &ins),
        );
        assert_close("(B*3)", &r[1], &numpy(&format!("np.arange(3 * {b})"), &ins));
        assert_close(
            "B[1::2]",
            &r[2],
            &numpy(
                &format!("np.full((len(range({b})[1::2]), 2), 2.5, np.float32)"),
                &ins,
            ),
        );
        assert_close(
            "(B+2)",
            &r[3],
            &numpy(&format!("np.arange({b} + 2.0)"), &ins),
        );
        assert_close(
            "((B-1)*2)",
            &r[4],
            &numpy(
                &format!("np.full(max({b}-1, 0) * 2, 2.5, np.float32)"),
                &ins,
            ),
        );
        assert_close(
            "(B-1)[::-3]",
            &r[5],
            &numpy(
                &format!("np.arange(len(range(max({b}-1, 0))[::-3]), dtype=np.int32)"),
                &ins,
            ),
        );
    }
    // A size nothing names or carries is a compile-time error, not a guess.
    let (mut b, _) = Fb::new("unknown", &[ty(F32, &["B"])]);
    let v = b.op(
        OpKind::Const(ConstData::Float(vec![1.0])),
        &[],
        st(F32, &[]),
    );
    let f = b.op(OpKind::Fill, &[v], ty(F32, &["_n7"]));
    let mut m = agc_ir::Module::new("m");
    m.add_function(b.ret_unverified(&[f]));
    let err = agc_backend::mlir::emit_module(&m, &agc_backend::mlir::EmitOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("size of symbolic dim `_n7` is unknown here"),
        "{err}"
    );
}
