//! The matmul family of the egg optimiser: chains of 2-D products take the
//! cheapest order (against the matrix-chain dynamic programme), and the
//! reordered chain's values stay within the stated error bound (exact for
//! integers), through the reference interpreter.

mod support;

use agc_ir::interp::{self, T};
use agc_ir::{DType, Dim, FuncId, Module, OpKind, TensorType, Value};
use agc_opt::egg::rules::matmul::MAX_CHAIN;
use agc_opt::passes::simplify::Simplify;
use support::{module, run_pass, Rng};

/// A module computing `((m0 · m1) · m2) · …` for matrices of `dims`
/// (`m_i` is `dims[i] × dims[i+1]`).
fn left_deep_chain(dtype: DType, dims: &[i64]) -> Module {
    let params: Vec<TensorType> = dims
        .windows(2)
        .map(|w| TensorType::new(dtype, vec![Dim::Static(w[0]), Dim::Static(w[1])]))
        .collect();
    module(&params, |b, p| {
        let first = p[0];
        vec![p[1..]
            .iter()
            .fold(first, |acc, &m| b.matmul(acc, m).expect("well typed"))]
    })
}

/// The multiply-adds and result elements of every matmul of function 0.
fn products(m: &Module) -> Vec<(f64, f64)> {
    let f = &m.funcs[0];
    f.ops_within(f.body)
        .into_iter()
        .map(|op| f.op(op))
        .filter(|od| od.kind == OpKind::MatMul)
        .map(|od| {
            let static_dims = |v: Value| -> Vec<f64> {
                f.ty(v)
                    .tensor()
                    .dims
                    .iter()
                    .map(|d| d.as_static().expect("static") as f64)
                    .collect()
            };
            let (a, c) = (static_dims(od.operands[0]), static_dims(od.results[0]));
            (c[0] * a[1] * c[1], c[0] * c[1])
        })
        .collect()
}

/// The optimiser's cost of a chain's products (`2·m·k·n` flops plus the
/// bytes written, `crate::egg::cost`) for elements of `bytes` bytes.
fn cost(products: &[(f64, f64)], bytes: f64) -> f64 {
    products
        .iter()
        .map(|(macs, n)| 2.0 * macs + bytes * n)
        .sum()
}

/// The least cost over every order of the chain of `dims`: the classic
/// matrix-chain dynamic programme, each product costed as [`cost`] does.
fn chain_optimum(dims: &[i64], bytes: f64) -> f64 {
    let d: Vec<f64> = dims.iter().map(|&x| x as f64).collect();
    let n = d.len() - 1;
    let mut best = vec![vec![0.0f64; n]; n];
    for len in 2..=n {
        for i in 0..=n - len {
            let j = i + len - 1;
            best[i][j] = (i..j)
                .map(|k| {
                    let own = 2.0 * d[i] * d[k + 1] * d[j + 1] + bytes * d[i] * d[j + 1];
                    best[i][k] + best[k + 1][j] + own
                })
                .fold(f64::INFINITY, f64::min);
        }
    }
    best[0][n - 1]
}

#[test]
fn a_chain_takes_the_cheaper_order() {
    // (a·b)·c makes a 60×60 matrix; a·(b·c) a 2×1 one.
    let before = left_deep_chain(DType::F32, &[60, 2, 60, 1]);
    let mut after = before.clone();
    run_pass(&Simplify::EXACT, &mut after);
    let f = &after.funcs[0];
    let outer = f
        .ops_within(f.body)
        .into_iter()
        .map(|op| f.op(op))
        .find(|od| {
            od.kind == OpKind::MatMul
                && f.ty(od.results[0]).tensor().dims[1] == Dim::Static(1)
                && f.ty(od.operands[0]).tensor().dims[1] == Dim::Static(2)
        })
        .unwrap_or_else(|| panic!("{}", agc_ir::print::print_module(&after)));
    assert_eq!(
        outer.operands[0],
        f.params()[0],
        "{}",
        agc_ir::print::print_module(&after)
    );
    assert_eq!(
        cost(&products(&after), 4.0),
        chain_optimum(&[60, 2, 60, 1], 4.0)
    );
}

#[test]
fn forty_matrices_take_the_chain_optimum() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..3 {
        let dims: Vec<i64> = (0..41).map(|_| 1 + (rng.next() % 64) as i64).collect();
        let mut m = left_deep_chain(DType::F32, &dims);
        let start = cost(&products(&m), 4.0);
        run_pass(&Simplify::EXACT, &mut m);
        let got = cost(&products(&m), 4.0);
        let optimum = chain_optimum(&dims, 4.0);
        assert!(
            (got - optimum).abs() <= 1e-9 * optimum,
            "dims {dims:?}: cost {got} (from {start}), optimum {optimum}"
        );
    }
}

/// A random matrix of `rows × cols`: small integers for integer dtypes (so
/// that the interpreter's products stay exact), else finite values in
/// [-4, 4) with zeros of both signs among them.
fn matrix(rng: &mut Rng, dtype: DType, rows: usize, cols: usize) -> T {
    let data = (0..rows * cols)
        .map(|_| {
            let r = rng.next();
            match dtype {
                DType::I32 | DType::I64 => (r % 9) as f64 - 4.0,
                _ if r.is_multiple_of(16) => 0.0,
                _ if r % 16 == 1 => -0.0,
                _ => ((r >> 11) as f64 / (1u64 << 53) as f64) * 8.0 - 4.0,
            }
        })
        .collect();
    T::new(dtype, &[rows, cols], data)
}

/// `|a|·|b|·|c|` in float64, row-major `rows × cols` of the result.
fn abs_product(a: &T, b: &T, c: &T) -> Vec<f64> {
    let mul = |x: &[f64], (m, k): (usize, usize), y: &[f64], n: usize| -> Vec<f64> {
        (0..m * n)
            .map(|ij| {
                (0..k)
                    .map(|p| x[ij / n * k + p].abs() * y[p * n + ij % n].abs())
                    .sum()
            })
            .collect()
    };
    let ab = mul(&a.data, (a.shape[0], a.shape[1]), &b.data, b.shape[1]);
    mul(&ab, (a.shape[0], b.shape[1]), &c.data, c.shape[1])
}

#[test]
fn reordered_chains_stay_within_the_bound() {
    // [5×1]·[1×5]·[5×1]: the optimiser multiplies b·c first.
    let dims = [5usize, 1, 5, 1];
    for (i, dtype) in [DType::F32, DType::F64, DType::I32, DType::I64]
        .into_iter()
        .enumerate()
    {
        let d: Vec<i64> = dims.iter().map(|&x| x as i64).collect();
        let before = left_deep_chain(dtype, &d);
        let mut after = before.clone();
        run_pass(&Simplify::EXACT, &mut after);
        assert!(cost(&products(&after), 4.0) < cost(&products(&before), 4.0));
        let unit = match dtype {
            DType::F32 => f64::from(f32::EPSILON) / 2.0,
            DType::F64 => f64::EPSILON / 2.0,
            _ => 0.0,
        };
        let n = (dims[1] + dims[2]) as f64;
        let gamma = n * unit / (1.0 - n * unit);
        let mut rng = Rng(101 + i as u64);
        for _ in 0..1000 {
            let args: Vec<T> = (0..3)
                .map(|k| matrix(&mut rng, dtype, dims[k], dims[k + 1]))
                .collect();
            let bound = abs_product(&args[0], &args[1], &args[2]);
            let x = &interp::run(&before, FuncId(0), args.clone()).unwrap()[0];
            let y = &interp::run(&after, FuncId(0), args.clone()).unwrap()[0];
            assert_eq!(x.shape, y.shape);
            for ((p, q), b) in x.data.iter().zip(&y.data).zip(&bound) {
                assert!(
                    (p - q).abs() <= gamma * b,
                    "{dtype:?}: {p} vs {q} (bound {})",
                    gamma * b
                );
            }
        }
    }
}

#[test]
fn chains_longer_than_the_limit_are_reordered_in_parts() {
    // Products over more than MAX_CHAIN matrices keep their place; those
    // over a prefix of at most MAX_CHAIN are reordered.
    let dims: Vec<i64> = (0..=(MAX_CHAIN + 36) as i64)
        .map(|i| 1 + i % 7 * 9)
        .collect();
    let mut m = left_deep_chain(DType::F64, &dims);
    let before = cost(&products(&m), 8.0);
    run_pass(&Simplify::EXACT, &mut m);
    assert_eq!(products(&m).len(), dims.len() - 2);
    assert!(cost(&products(&m), 8.0) < before);
}
