//! The fast-math family of the egg optimiser: each rule runs only with
//! `fast_math` (start ⇒ goal with it, nothing without), and on 1,000
//! random finite inputs per float dtype its result stays within the
//! rounding bound the family states, through the reference interpreter.

mod support;

use agc_ir::interp::{self, T};
use agc_ir::{BinaryOp, DType, FuncId, TensorType, UnaryOp, Value};
use agc_lowering::builder::Builder;
use agc_opt::passes::simplify::Simplify;
use support::{module, op_names, run_pass, ty, Rng};

type Body = fn(&mut Builder, &[Value]) -> Value;
/// The allowed difference at one element, in units of the roundoff, from
/// the inputs' elements there.
type Bound = fn(&[f64]) -> f64;

fn bin(b: &mut Builder, op: BinaryOp, x: Value, y: Value) -> Value {
    b.binary(op, x, y).expect("well typed")
}

/// A random finite value of magnitude in [0.25, 4) (no division by zero,
/// no overflow of `exp`), either sign.
fn value(rng: &mut Rng) -> f64 {
    let r = rng.next();
    let m = 0.25 + ((r >> 11) as f64 / (1u64 << 53) as f64) * 3.75;
    if r.is_multiple_of(2) {
        m
    } else {
        -m
    }
}

/// `body` over `params` params of shape `[N]`: without fast-math the ops
/// stay; with it only `goal` is left, and the values are within `bound`.
fn case(params: usize, body: Body, goal: &[&str], bound: Bound) {
    for (i, dtype) in [DType::F32, DType::F64].into_iter().enumerate() {
        let types: Vec<TensorType> = (0..params).map(|_| ty(dtype, &["N"])).collect();
        let before = module(&types, |b, p| vec![body(b, p)]);
        let mut exact = before.clone();
        run_pass(&Simplify::EXACT, &mut exact);
        assert_eq!(op_names(&exact.funcs[0]), op_names(&before.funcs[0]));
        let mut after = before.clone();
        run_pass(&Simplify { fast_math: true }, &mut after);
        let mut want: Vec<String> = goal.iter().map(|s| s.to_string()).collect();
        want.sort();
        assert_eq!(op_names(&after.funcs[0]), want, "{dtype:?}");
        let unit = match dtype {
            DType::F32 => f64::from(f32::EPSILON) / 2.0,
            _ => f64::EPSILON / 2.0,
        };
        let mut rng = Rng(31 + i as u64);
        for _ in 0..1000 {
            let args: Vec<T> = (0..params)
                .map(|_| T::new(dtype, &[3], (0..3).map(|_| value(&mut rng)).collect()))
                .collect();
            let x = &interp::run(&before, FuncId(0), args.clone()).unwrap()[0];
            let y = &interp::run(&after, FuncId(0), args.clone()).unwrap()[0];
            for k in 0..3 {
                let inputs: Vec<f64> = args.iter().map(|a| a.data[k]).collect();
                let allowed = bound(&inputs) * unit;
                let (p, q) = (x.data[k], y.data[k]);
                assert!((p - q).abs() <= allowed, "{dtype:?} {inputs:?}: {p} vs {q}");
            }
        }
    }
}

#[test]
fn products_and_quotients_cancel() {
    let body: Body = |b, p| {
        let m = bin(b, BinaryOp::Mul, p[0], p[1]);
        bin(b, BinaryOp::Div, m, p[1])
    };
    case(2, body, &["return"], |x| 3.0 * x[0].abs());
    let body: Body = |b, p| {
        let d = bin(b, BinaryOp::Div, p[0], p[1]);
        bin(b, BinaryOp::Mul, d, p[1])
    };
    case(2, body, &["return"], |x| 3.0 * x[0].abs());
}

#[test]
fn sums_and_differences_cancel() {
    let body: Body = |b, p| {
        let s = bin(b, BinaryOp::Add, p[0], p[1]);
        bin(b, BinaryOp::Sub, s, p[1])
    };
    case(2, body, &["return"], |x| {
        2.0 * (x[0].abs() + 2.0 * x[1].abs())
    });
    let body: Body = |b, p| {
        let d = bin(b, BinaryOp::Sub, p[0], p[1]);
        bin(b, BinaryOp::Add, d, p[1])
    };
    case(2, body, &["return"], |x| {
        2.0 * (x[0].abs() + 2.0 * x[1].abs())
    });
}

#[test]
fn inverse_functions_cancel() {
    let body: Body = |b, p| {
        let e = b.unary(UnaryOp::Exp, p[0]);
        b.unary(UnaryOp::Log, e)
    };
    case(1, body, &["return"], |x| 3.0 * (1.0 + x[0].abs()));
    let body: Body = |b, p| {
        let s = bin(b, BinaryOp::Mul, p[0], p[0]);
        b.unary(UnaryOp::Sqrt, s)
    };
    case(1, body, &["abs", "return"], |x| 3.0 * x[0].abs());
}
