//! End to end through the public path: IR → `value_and_grad` →
//! `agc_backend::build` → `lib<NAME>.so` → `agc.load` from Python, where the
//! gradients are compared with float64 central differences of the compiled
//! forward function (and with autograd where the model is written in numpy).

mod support;

use agc_ir::{BinaryOp, DType, Dim, Export, FuncId, Module, ReduceKind, SliceDim, UnaryOp};
use agc_lowering::ad::value_and_grad;
use std::path::Path;
use std::process::Command;
use support::{add_fn, for_range, if_, scalarize, ty};

/// Exports `f` as `loss` and its gradient as `loss_vg`, builds the library
/// and runs `check` (Python, with `lib` loaded and numpy as `np`).
fn build_and_check(mut m: Module, f: FuncId, wrt: &[usize], check: &str) {
    let g = value_and_grad(&mut m, f, wrt).unwrap();
    agc_ir::verify::verify_module(&m).unwrap();
    m.exports.push(Export {
        func: f,
        c_name: "loss".into(),
        doc: String::new(),
        assigns: vec![],
    });
    m.exports.push(Export {
        func: g,
        c_name: "loss_vg".into(),
        doc: String::new(),
        assigns: vec![],
    });
    let opts = agc_backend::BuildOptions {
        name: "adtest".into(),
        opt_level: 2,
        target: agc_backend::Target::Cpu,
        emit: vec![],
        ..Default::default()
    };
    let text = agc_ir::print::print_module(&m);
    let arts = agc_backend::build(&m, &opts).unwrap_or_else(|e| panic!("build: {e}\n{text}"));
    let dir = tempfile::tempdir().unwrap();
    for a in &arts {
        a.write_into(dir.path()).unwrap();
    }
    let so = dir.path().join("libadtest.so");
    let script = format!(
        "{PRELUDE}\nlib = agc.load({:?})\n{check}\n",
        so.display().to_string()
    );
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("../python");
    let out = Command::new("python3")
        .arg("-c")
        .arg(&script)
        .env("PYTHONPATH", python)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}\n{}\n{text}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

const PRELUDE: &str = r#"
import numpy as np
import agc

def fd_check(lib, args, wrt, rtol=1e-5, atol=1e-7):
    out = lib.loss_vg(*args)
    value = lib.loss(*args)
    value = value[0] if isinstance(value, tuple) else value
    assert np.allclose(out[0], value, rtol=1e-12, atol=0), (out[0], value)
    nres = len(out) - len(wrt)
    for k, i in enumerate(wrt):
        grad = out[nres + k]
        assert grad.shape == args[i].shape, (grad.shape, args[i].shape)
        fd = np.zeros_like(args[i])
        for j in np.ndindex(args[i].shape):
            h = 1e-6 * max(1.0, abs(args[i][j]))
            ap = [a.copy() for a in args]; ap[i][j] += h
            am = [a.copy() for a in args]; am[i][j] -= h
            lp = lib.loss(*ap); lm = lib.loss(*am)
            lp = lp[0] if isinstance(lp, tuple) else lp
            lm = lm[0] if isinstance(lm, tuple) else lm
            fd[j] = (lp - lm) / (2 * h)
        np.testing.assert_allclose(grad, fd, rtol=rtol, atol=atol, err_msg=f"gradient {i}")
    return out
"#;

#[test]
fn mlp_cross_entropy() {
    let f64d = |d: &[&str]| ty(DType::F64, d);
    let mut m = Module::new("adtest");
    let params = [
        f64d(&["B", "4"]),
        f64d(&["4", "5"]),
        f64d(&["5"]),
        f64d(&["5", "3"]),
        f64d(&["B", "3"]),
    ];
    let f = add_fn(&mut m, "loss", &params, |b, p| {
        let (x, w1, b1, w2, y) = (p[0], p[1], p[2], p[3], p[4]);
        let xw = b.matmul(x, w1).unwrap();
        let pre = b.add(xw, b1).unwrap();
        let h = b.unary(UnaryOp::Tanh, pre);
        let small = b.mul_const(h, 0.1).unwrap();
        let r = b.binary(BinaryOp::Max, h, small).unwrap();
        let z = b.matmul(r, w2).unwrap();
        let zm = b.reduce(ReduceKind::Max, z, vec![1], true);
        let zc = b.binary(BinaryOp::Sub, z, zm).unwrap();
        let e = b.unary(UnaryOp::Exp, zc);
        let se = b.reduce(ReduceKind::Sum, e, vec![1], false);
        let l = b.unary(UnaryOp::Log, se);
        let zm1 = b.reshape(zm, &[Dim::Sym("B".into())]).unwrap();
        let lse = b.add(l, zm1).unwrap();
        let zy = b.mul(z, y).unwrap();
        let t = b.reduce(ReduceKind::Sum, zy, vec![1], false);
        let ce = b.binary(BinaryOp::Sub, lse, t).unwrap();
        let total = b.reduce(ReduceKind::Sum, ce, vec![0], false);
        let n = b.dim(x, 0);
        let nf = b.cast(n, DType::F64);
        let mean = b.binary(BinaryOp::Div, total, nf).unwrap();
        let sq = b.mul(w1, w1).unwrap();
        let reg = b.reduce(ReduceKind::Sum, sq, vec![0, 1], false);
        let reg = b.mul_const(reg, 0.01).unwrap();
        vec![b.add(mean, reg).unwrap()]
    });
    build_and_check(
        m,
        f,
        &[0, 1, 2, 3],
        r#"
rng = np.random.default_rng(0)
x = rng.normal(size=(6, 4)); y = np.eye(3)[rng.integers(0, 3, 6)]
args = [x, rng.normal(size=(4, 5)), rng.normal(size=5), rng.normal(size=(5, 3)), y]
fd_check(lib, args, [0, 1, 2, 3])
# autograd as a second oracle
import autograd, autograd.numpy as anp
def loss(x, w1, b1, w2, y):
    h = anp.tanh(x @ w1 + b1); r = anp.maximum(h, 0.1 * h); z = r @ w2
    zm = anp.max(z, axis=1, keepdims=True)
    lse = anp.log(anp.sum(anp.exp(z - zm), axis=1)) + zm[:, 0]
    return anp.sum(lse - anp.sum(z * y, axis=1)) / x.shape[0] + 0.01 * anp.sum(w1 * w1)
out = lib.loss_vg(*args)
for k, g in enumerate(autograd.grad(loss, (0, 1, 2, 3))(*args)):
    np.testing.assert_allclose(out[1 + k], g, rtol=1e-10, atol=1e-12)
"#,
    );
}

#[test]
fn layout_and_reduction_ops() {
    let f64d = |d: &[&str]| ty(DType::F64, d);
    let mut m = Module::new("adtest");
    let params = [f64d(&["4", "3"]), f64d(&["3"]), f64d(&["2", "3", "1"])];
    let f = add_fn(&mut m, "loss", &params, |b, p| {
        let (a, v, c) = (p[0], p[1], p[2]);
        let s = SliceDim {
            start: Some(1),
            stop: None,
            step: 2,
        };
        let sl = b.slice(a, vec![s, SliceDim::FULL]).unwrap();
        let t = b.transpose(sl, vec![1, 0]).unwrap();
        let r = b.reshape(t, &[Dim::Static(6)]).unwrap();
        let vv = b.concat(vec![v, v], 0).unwrap();
        let prod = b.mul(r, vv).unwrap();
        let pr = b.reduce(ReduceKind::Prod, a, vec![0], false);
        let mn = b.reduce(ReduceKind::Min, c, vec![0, 2], false);
        let d = [Dim::Static(2), Dim::Static(3)];
        let cb = b.broadcast_to(mn, &d).unwrap();
        let q = b.mul(cb, pr).unwrap();
        let s1 = scalarize(b, prod);
        let s2 = scalarize(b, q);
        vec![b.add(s1, s2).unwrap()]
    });
    build_and_check(
        m,
        f,
        &[0, 1, 2],
        r#"
rng = np.random.default_rng(1)
args = [rng.uniform(0.5, 1.5, size=(4, 3)), rng.normal(size=3), rng.normal(size=(2, 3, 1))]
fd_check(lib, args, [0, 1, 2])
"#,
    );
}

#[test]
fn rnn_through_while_and_dynamic_indexing() {
    let f64d = |d: &[&str]| ty(DType::F64, d);
    let mut m = Module::new("adtest");
    let params = [f64d(&["T", "3"]), f64d(&["B", "3"]), f64d(&["3", "3"])];
    let f = add_fn(&mut m, "loss", &params, |b, p| {
        let (xs, h0, w) = (p[0], p[1], p[2]);
        let n = b.dim(xs, 0);
        let out = for_range(b, n, vec![h0], |b, i, s| {
            let x = b.dyn_index(xs, &[i]);
            let hw = b.matmul(s[0], w).unwrap();
            let pre = b.add(hw, x).unwrap();
            vec![b.unary(UnaryOp::Tanh, pre)]
        });
        vec![scalarize(b, out[0])]
    });
    build_and_check(
        m,
        f,
        &[0, 1, 2],
        r#"
rng = np.random.default_rng(2)
for t in [0, 1, 5]:
    args = [rng.normal(size=(t, 3)), rng.normal(size=(2, 3)), rng.normal(size=(3, 3))]
    fd_check(lib, args, [0, 1, 2])
"#,
    );
}

#[test]
fn loop_branch_and_recursion() {
    let f64d = |d: &[&str]| ty(DType::F64, d);
    let mut m = Module::new("adtest");
    let i64s = ty(DType::I64, &[]);
    // pw(x, k) = x if k == 0 else x * pw(x, k - 1): a recursive call.
    let pw_id = FuncId(0);
    let pw = add_fn(&mut m, "pw", &[f64d(&["3"]), i64s.clone()], |b, p| {
        let zero = b.index(0);
        let base = b.compare(agc_ir::CmpOp::Eq, p[1], zero).unwrap();
        let r = if_(
            b,
            base,
            |_| vec![p[0]],
            |b| {
                let one = b.index(1);
                let k1 = b.binary(BinaryOp::Sub, p[1], one).unwrap();
                let rest = b.call(pw_id, vec![p[0], k1], vec![ty(DType::F64, &["3"])])[0];
                vec![b.mul(p[0], rest).unwrap()]
            },
        );
        vec![r[0]]
    });
    assert_eq!(pw, pw_id);
    let params = [
        f64d(&["B", "3"]),
        f64d(&["3", "3"]),
        f64d(&["3"]),
        i64s.clone(),
    ];
    let f = add_fn(&mut m, "loss", &params, |b, p| {
        let (h0, w, v, n) = (p[0], p[1], p[2], p[3]);
        let out = for_range(b, n, vec![h0], |b, _, s| {
            let hw = b.matmul(s[0], w).unwrap();
            let pre = b.add(hw, v).unwrap();
            let tot = b.reduce(ReduceKind::Sum, pre, vec![0, 1], false);
            let zero = b.scalar(DType::F64, 0.0);
            let pos = b.compare(agc_ir::CmpOp::Gt, tot, zero).unwrap();
            if_(
                b,
                pos,
                |b| vec![b.unary(UnaryOp::Tanh, pre)],
                |b| vec![b.unary(UnaryOp::Sin, pre)],
            )
        });
        let two = b.index(2);
        let cube = b.call(pw, vec![v, two], vec![ty(DType::F64, &["3"])])[0];
        let y = b.mul(out[0], cube).unwrap();
        vec![scalarize(b, y)]
    });
    build_and_check(
        m,
        f,
        &[0, 1, 2],
        r#"
rng = np.random.default_rng(3)
for n in [0, 1, 4]:
    args = [rng.normal(size=(2, 3)), rng.normal(size=(3, 3)), rng.normal(size=3), np.array(n, dtype=np.int64)]
    fd_check(lib, args, [0, 1, 2])
"#,
    );
}

#[test]
fn deep_loop_in_compiled_code() {
    // x = x + 0.001 * sin(x), n times: the backward function recurses n deep
    // (one frame per iteration, on the library's large stack; 5e6 iterations
    // pass, 4e7 give the library's "recursion too deep" error status).
    let mut m = Module::new("adtest");
    let f = add_fn(
        &mut m,
        "loss",
        &[ty(DType::F64, &[]), ty(DType::I64, &[])],
        |b, p| {
            let out = for_range(b, p[1], vec![p[0]], |b, _, s| {
                let t = b.unary(UnaryOp::Sin, s[0]);
                let h = b.mul_const(t, 0.001).unwrap();
                vec![b.add(s[0], h).unwrap()]
            });
            vec![out[0]]
        },
    );
    build_and_check(
        m,
        f,
        &[0],
        r#"
import os
for n in [int(v) for v in os.environ.get("AGC_AD_DEPTHS", "1000000").split(",")]:
    x, d = 0.3, 1.0
    for _ in range(n):
        d *= 1 + 0.001 * np.cos(x); x += 0.001 * np.sin(x)
    v, g = lib.loss_vg(np.array(0.3), np.array(n, dtype=np.int64))
    np.testing.assert_allclose(g, d, rtol=1e-9)
    print(n, "ok", flush=True)
"#,
    );
}
