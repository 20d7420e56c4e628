//! Deep staged recursion: a linked-list sum over index arrays recursing
//! 100,000 deep computes the right value through the C ABI (which runs it
//! on the runtime's large stack), also from 8 threads at once and under
//! valgrind; called on an ordinary thread stack (the kernel entry directly)
//! it returns `RECURSION_TOO_DEEP` with a message instead of crashing, and
//! frees every buffer. Loops stop once a call has failed.

use crate::mlir_support::*;
use agc_ir::{BinaryOp, CmpOp, ConstData, DType, FuncId, Function, OpKind};
use std::process::Command;
use DType::*;

const RECURSION_TOO_DEEP: i32 = 4;

/// `def lsum(nxt, vals, i): return 0.0 if i < 0 else vals[i] + lsum(nxt, vals, nxt[i])`
/// (function 0; `nxt: i64[N]`, `vals: f32[N]`).
fn lsum() -> Function {
    let (mut b, p) = Fb::new("lsum", &[ty(I64, &["N"]), ty(F32, &["N"]), st(I64, &[])]);
    let zero_i = b.op(OpKind::Const(ConstData::Int(vec![0])), &[], st(I64, &[]));
    let c = b.ew(OpKind::Compare(CmpOp::Lt), &[p[2], zero_i], Bool);
    let (then_r, _) = b.region(&[]);
    let (else_r, _) = b.region(&[]);
    let body = b.at(then_r);
    let zero = b.op(
        OpKind::Const(ConstData::Float(vec![0.0])),
        &[],
        st(F32, &[]),
    );
    b.term(OpKind::Yield, &[zero]);
    b.at(else_r);
    let v = b.op(OpKind::DynIndex { axes: 1 }, &[p[1], p[2]], st(F32, &[]));
    let j = b.op(OpKind::DynIndex { axes: 1 }, &[p[0], p[2]], st(I64, &[]));
    let r = b.op_multi(
        OpKind::Call { callee: FuncId(0) },
        &[p[0], p[1], j],
        &[st(F32, &[])],
        vec![],
    );
    let s = b.ew(OpKind::Binary(BinaryOp::Add), &[v, r[0]], F32);
    b.term(OpKind::Yield, &[s]);
    b.at(body);
    let r = b.op_multi(OpKind::If, &[c], &[st(F32, &[])], vec![then_r, else_r]);
    b.ret(&[r[0]])
}

/// `def bump(x, n): return x if n <= 0 else bump(x + 1, n - 1)` on
/// `x: f64[B]` (function 1): the placeholder result of a skipped body has
/// the size the result type names (`B`, the parameter's).
fn bump() -> Function {
    let (mut b, p) = Fb::new("bump", &[ty(F64, &["B"]), st(I64, &[])]);
    let zero_i = b.op(OpKind::Const(ConstData::Int(vec![0])), &[], st(I64, &[]));
    let c = b.ew(OpKind::Compare(CmpOp::Le), &[p[1], zero_i], Bool);
    let (then_r, _) = b.region(&[]);
    let (else_r, _) = b.region(&[]);
    let body = b.at(then_r);
    b.term(OpKind::Yield, &[p[0]]);
    b.at(else_r);
    let one_i = b.op(OpKind::Const(ConstData::Int(vec![1])), &[], st(I64, &[]));
    let n1 = b.ew(OpKind::Binary(BinaryOp::Sub), &[p[1], one_i], I64);
    let one = b.op(
        OpKind::Const(ConstData::Float(vec![1.0])),
        &[],
        st(F64, &[]),
    );
    let x1 = b.ew(OpKind::Binary(BinaryOp::Add), &[p[0], one], F64);
    let r = b.op_multi(
        OpKind::Call { callee: FuncId(1) },
        &[x1, n1],
        &[ty(F64, &["B"])],
        vec![],
    );
    b.term(OpKind::Yield, &[r[0]]);
    b.at(body);
    let r = b.op_multi(OpKind::If, &[c], &[ty(F64, &["B"])], vec![then_r, else_r]);
    b.ret(&[r[0]])
}

/// `def spin(nxt, vals, i): s = 0.0; while s < 1e9: s += lsum(nxt, vals, i)`
/// (function 2): once `lsum` fails it returns placeholder zeros, on which
/// the loop would never end; it must stop instead.
fn spin() -> Function {
    let state = [st(F32, &[])];
    let (mut b, p) = Fb::new("spin", &[ty(I64, &["N"]), ty(F32, &["N"]), st(I64, &[])]);
    let zero = b.op(
        OpKind::Const(ConstData::Float(vec![0.0])),
        &[],
        st(F32, &[]),
    );
    let (before, bp) = b.region(&state);
    let (after, ap) = b.region(&state);
    let body = b.at(before);
    let big = b.op(
        OpKind::Const(ConstData::Float(vec![1e9])),
        &[],
        st(F32, &[]),
    );
    let c = b.ew(OpKind::Compare(CmpOp::Lt), &[bp[0], big], Bool);
    b.term(OpKind::Condition, &[c, bp[0]]);
    b.at(after);
    let r = b.op_multi(
        OpKind::Call { callee: FuncId(0) },
        &[p[0], p[1], p[2]],
        &[st(F32, &[])],
        vec![],
    );
    let s = b.ew(OpKind::Binary(BinaryOp::Add), &[ap[0], r[0]], F32);
    b.term(OpKind::Yield, &[s]);
    b.at(body);
    let r = b.op_multi(OpKind::While, &[zero], &state, vec![before, after]);
    b.ret(&[r[0]])
}

fn module() -> Vec<Function> {
    vec![lsum(), bump(), spin()]
}

/// A list of `n` nodes, 0 -> 1 -> .. -> n-1 -> end, with values 1 and 2
/// alternating; its sum.
fn list(n: usize) -> (Tensor, Tensor, f64) {
    let nxt: Vec<f64> = (0..n)
        .map(|i| if i + 1 < n { (i + 1) as f64 } else { -1.0 })
        .collect();
    let vals: Vec<f64> = (0..n).map(|i| (1 + i % 2) as f64).collect();
    let sum = vals.iter().sum();
    (
        Tensor::new(I64, &[n as i64], &nxt),
        Tensor::new(F32, &[n as i64], &vals),
        sum,
    )
}

#[test]
fn deep_recursion_through_the_c_abi_succeeds_on_the_large_stack() {
    let lib = build_abi("rec", module(), &["lsum", "bump", "spin"]);
    let start = Tensor::new(I64, &[], &[0.0]);
    for n in [1usize, 10, 100_000] {
        let (nxt, vals, sum) = list(n);
        let r = lib.call("lsum", &[&nxt, &vals, &start]).unwrap();
        assert_eq!(r[0].values(), vec![sum], "lsum of {n}");
    }
    let x = Tensor::new(F64, &[3], &[1.0, 2.0, 3.0]);
    let r = lib
        .call("bump", &[&x, &Tensor::new(I64, &[], &[100_000.0])])
        .unwrap();
    assert_eq!(r[0].values(), vec![100_001.0, 100_002.0, 100_003.0]);
    // An index error deep inside: reported, the recursion unwinds at once.
    let (nxt, vals, _) = list(1000);
    let mut bad = nxt.clone();
    bad.bytes[8 * 500..8 * 501].copy_from_slice(&7777i64.to_le_bytes());
    let err = lib.call("lsum", &[&bad, &vals, &start]).unwrap_err();
    assert_eq!(
        err,
        (
            3,
            "lsum: index 7777 is out of bounds for axis 0 with size 1000".to_string()
        )
    );
    // ... and the loop around it stops.
    let err = lib.call("spin", &[&bad, &vals, &start]).unwrap_err();
    assert_eq!(err.0, 3, "{err:?}");
    // From 8 threads at once (each with its own large stack).
    let (nxt, vals, sum) = list(100_000);
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                for _ in 0..2 {
                    let r = lib.call("lsum", &[&nxt, &vals, &start]).unwrap();
                    assert_eq!(r[0].values(), vec![sum]);
                }
            });
        }
    });
}

#[test]
fn too_deep_on_an_ordinary_stack_returns_a_status() {
    let lib = build(module());
    let start = Tensor::new(I64, &[], &[0.0]);
    let (nxt, vals, _) = list(100_000);
    // Called on a thread with a 2 MiB stack, far below what 100,000 frames need.
    let run = |lib: &Lib| {
        let e = lib.try_call("lsum", &[&nxt, &vals, &start]).unwrap_err();
        assert_eq!(e.0, RECURSION_TOO_DEEP, "{e:?}");
        assert!(e.1.starts_with("recursion too deep"), "{e:?}");
        let e = lib
            .try_call(
                "bump",
                &[
                    &Tensor::new(F64, &[3], &[1.0, 2.0, 3.0]),
                    &Tensor::new(I64, &[], &[1e6]),
                ],
            )
            .unwrap_err();
        assert_eq!(e.0, RECURSION_TOO_DEEP, "{e:?}");
        let e = lib.try_call("spin", &[&nxt, &vals, &start]).unwrap_err();
        assert_eq!(e.0, RECURSION_TOO_DEEP, "{e:?}");
        // A shallow call still works afterwards.
        let (n2, v2, sum) = list(100);
        let r = lib.try_call("lsum", &[&n2, &v2, &start]).unwrap();
        assert_eq!(r[0].values(), vec![sum]);
    };
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn_scoped(s, || run(&lib))
            .unwrap()
            .join()
            .unwrap();
    });
}

#[test]
fn deep_and_too_deep_recursion_under_valgrind() {
    if Command::new("valgrind").arg("--version").output().is_err() {
        eprintln!("valgrind not installed; skipping");
        return;
    }
    // Directly on the main thread's stack (8 MiB): too deep, no leak.
    let start = Tensor::new(I64, &[], &[0.0]);
    let (nxt, vals, _) = list(100_000);
    let (n2, v2, _) = list(50);
    run_under_valgrind(
        &module(),
        &[
            ("lsum", vec![nxt, vals, start.clone()]),
            ("lsum", vec![n2, v2, start]),
        ],
        2,
    );
    // Through the C ABI: 100,000 deep on the large stack, right value.
    let lib = build_abi("vrec", module(), &["lsum"]);
    let dir = lib.dir.path();
    let driver = r#"
#include "vrec.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void) {
  enum { N = 100000 };
  int64_t* nxt = malloc(N * sizeof *nxt);
  float* vals = malloc(N * sizeof *vals);
  double want = 0;
  for (int i = 0; i < N; i++) { nxt[i] = i + 1 < N ? i + 1 : -1; vals[i] = 1 + i % 2; want += vals[i]; }
  int64_t n = N, start = 0, shape[1] = {N};
  DLTensor a = {0}, b = {0}, c = {0};
  a.data = nxt; a.device.device_type = kDLCPU; a.ndim = 1; a.dtype.code = kDLInt; a.dtype.bits = 64; a.dtype.lanes = 1; a.shape = shape;
  b = a; b.data = vals; b.dtype.code = kDLFloat; b.dtype.bits = 32;
  c = a; c.data = &start; c.ndim = 0; c.shape = NULL;
  for (int it = 0; it < 2; it++) {
    DLTensor* out = NULL;
    int st = vrec_lsum(&a, &b, &c, &out);
    if (st != 0) { fprintf(stderr, "status %d: %s\n", st, vrec_last_error()); return 1; }
    if (*(float*)out->data != (float)want) { fprintf(stderr, "got %f want %f\n", *(float*)out->data, want); return 1; }
    vrec_release(out);
  }
  (void)n;
  free(nxt); free(vals);
  puts("ok");
  return 0;
}
"#;
    std::fs::write(dir.join("drv.c"), driver).unwrap();
    let st = Command::new("cc")
        .args(["-o", "drv", "drv.c", "-I."])
        .arg("-L.")
        .args(["-lvrec", "-Wl,-rpath,."])
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(st.success(), "driver does not compile");
    let text = assert_valgrind_clean(&dir.join("drv"), dir, "definite,indirect");
    assert!(!text.contains("switching stacks"), "{text}");
}

#[test]
fn loops_stop_after_an_error() {
    // `spin` with a list whose 3rd node points out of range: every call
    // raises, and the loop (which would need 10**9 / 3 iterations of
    // placeholder zeros... forever) stops after the first.
    let lib = build(module());
    let (nxt, vals, _) = list(5);
    let mut bad = nxt.clone();
    bad.bytes[16..24].copy_from_slice(&99i64.to_le_bytes());
    let e = lib
        .try_call("spin", &[&bad, &vals, &Tensor::new(I64, &[], &[0.0])])
        .unwrap_err();
    assert_eq!(
        e,
        (
            3,
            "index 99 is out of bounds for axis 0 with size 5".to_string()
        )
    );
}
