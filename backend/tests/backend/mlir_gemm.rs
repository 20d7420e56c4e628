//! Large `f32` matmuls (`contraction::gemm`: B packed in MLIR, the
//! runtime's blocked GEMM): static and run-time shapes, remainders in every
//! dimension (odd sizes, sizes below one register tile, empty ones),
//! checked against numpy in float64; the run-time choice between it and the
//! generic contraction; and no invalid access or leak under valgrind.

use crate::mlir_support::*;
use agc_ir::{DType, OpKind};
use DType::*;

/// `a @ b` with the given operand types.
fn matmul(
    name: &str,
    a: agc_ir::TensorType,
    b: agc_ir::TensorType,
    out: agc_ir::TensorType,
) -> agc_ir::Function {
    let (mut fb, p) = Fb::new(name, &[a, b]);
    let r = fb.op(OpKind::MatMul, &[p[0], p[1]], out);
    fb.ret(&[r])
}

fn module() -> Vec<agc_ir::Function> {
    vec![
        matmul(
            "dyn",
            ty(F32, &["M", "K"]),
            ty(F32, &["K", "N"]),
            ty(F32, &["M", "N"]),
        ),
        matmul(
            "st64",
            st(F32, &[64, 48]),
            st(F32, &[48, 80]),
            st(F32, &[64, 80]),
        ),
        matmul(
            "st_odd",
            st(F32, &[37, 53]),
            st(F32, &[53, 29]),
            st(F32, &[37, 29]),
        ),
        matmul(
            "rows",
            ty(F32, &["B", "300"]),
            st(F32, &[300, 130]),
            ty(F32, &["B", "130"]),
        ),
    ]
}

/// `got` against numpy's float64 product, to f32 accumulation accuracy.
fn check(what: &str, got: &Tensor, a: &Tensor, b: &Tensor) {
    let want = numpy(
        "a.astype(np.float64) @ b.astype(np.float64)",
        &[("a", a), ("b", b)],
    );
    assert_eq!(got.shape, want.shape, "{what}: shape");
    let k = a.shape[1] as f64;
    for (i, (g, w)) in got.values().iter().zip(want.values()).enumerate() {
        // Operands lie in [-2, 2): a dot product of k terms is off by at
        // most about k * 4 * 2^-24 * sqrt(k) in f32.
        let tol = 1e-6 * k * k.sqrt().max(1.0) * 4.0 + 1e-6;
        assert!(
            (g - w).abs() <= tol,
            "{what}: element {i}: got {g}, numpy {w} (tolerance {tol})"
        );
    }
}

#[test]
fn packed_matmul_matches_numpy_on_all_remainders() {
    let lib = build(module());
    lib.assert_needs_only_libc_and_libm();
    assert!(
        lib.mlir.contains("func.call @agc_rt_sgemm"),
        "no call of the runtime's GEMM in\n{}",
        lib.mlir
    );
    let mut seed = 1;
    let shapes: &[(i64, i64, i64)] = &[
        (1, 1, 1),
        (5, 7, 3),
        (6, 16, 16),
        (7, 17, 33),
        (32, 32, 32),
        (33, 31, 47),
        (100, 70, 90),
        (73, 300, 17),
        (64, 600, 64),
        (300, 257, 530),
        (0, 5, 5),
        (5, 0, 5),
        (5, 5, 0),
        (1, 4096, 1),
    ];
    for &(m, k, n) in shapes {
        seed += 1;
        let a = Tensor::rand(F32, &[m, k], seed);
        let b = Tensor::rand(F32, &[k, n], seed + 100);
        let r = lib.call("dyn", &[&a, &b]);
        check(&format!("dyn {m}x{k}x{n}"), &r[0], &a, &b);
    }
    for (name, m, k, n) in [("st64", 64, 48, 80), ("st_odd", 37, 53, 29)] {
        let a = Tensor::rand(F32, &[m, k], 7);
        let b = Tensor::rand(F32, &[k, n], 8);
        let r = lib.call(name, &[&a, &b]);
        check(name, &r[0], &a, &b);
    }
    for rows in [0, 1, 5, 6, 7, 71, 72, 73, 200] {
        let a = Tensor::rand(F32, &[rows, 300], 9);
        let b = Tensor::rand(F32, &[300, 130], 10);
        let r = lib.call("rows", &[&a, &b]);
        check(&format!("rows {rows}"), &r[0], &a, &b);
    }
}

#[test]
fn packed_matmul_under_valgrind() {
    let t = |m: i64, n: i64, s: u64| Tensor::rand(F32, &[m, n], s);
    let calls = vec![
        ("dyn", vec![t(7, 17, 1), t(17, 33, 2)]),
        ("dyn", vec![t(40, 40, 3), t(40, 21, 4)]),
        ("dyn", vec![t(0, 40, 3), t(40, 21, 4)]),
        ("dyn", vec![t(40, 0, 3), t(0, 21, 4)]),
        ("st_odd", vec![t(37, 53, 5), t(53, 29, 6)]),
        ("rows", vec![t(13, 300, 7), t(300, 130, 8)]),
    ];
    run_under_valgrind(&module(), &calls, 2);
}
