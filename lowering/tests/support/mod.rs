//! Test support: IR construction, random inputs, and the gradient check
//! (verifier on every generated function, then float64 central finite
//! differences through the reference interpreter).

#![allow(dead_code)] // each test file uses a different part

pub use agc_ir::interp;
pub mod models;

use agc_ir::{DType, FuncId, Module, OpKind, ReduceKind, TensorType, Type, UnaryOp, Value};
use agc_lowering::ad::value_and_grad;
use agc_lowering::builder::Builder;
use interp::T;

/// A deterministic xorshift generator.
pub struct Rng(pub u64);

impl Rng {
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        lo + (hi - lo) * ((self.0 >> 11) as f64 / (1u64 << 53) as f64)
    }

    pub fn tensor(&mut self, shape: &[usize], lo: f64, hi: f64) -> T {
        let n = shape.iter().product();
        T::new(
            DType::F64,
            shape,
            (0..n).map(|_| self.uniform(lo, hi)).collect(),
        )
    }
}

/// `f64` tensor type with static dims.
pub fn f64t(shape: &[i64]) -> TensorType {
    TensorType::static_shape(DType::F64, shape)
}

/// A tensor type with dims given as numbers or symbol names.
pub fn ty(dtype: DType, dims: &[&str]) -> TensorType {
    TensorType::named(dtype, dims)
}

/// Adds function `name` to `m`, its body built by `body` from the params.
pub fn add_fn(
    m: &mut Module,
    name: &str,
    params: &[TensorType],
    body: impl FnOnce(&mut Builder, &[Value]) -> Vec<Value>,
) -> FuncId {
    m.add_function(agc_lowering::builder::function(name, params, body))
}

/// A module with the single function `f`.
pub fn module(
    params: &[TensorType],
    body: impl FnOnce(&mut Builder, &[Value]) -> Vec<Value>,
) -> (Module, FuncId) {
    let mut m = Module::new("t");
    let f = add_fn(&mut m, "f", params, body);
    (m, f)
}

/// `sum(v * sin(v))`: a scalar whose adjoint differs per element.
pub fn scalarize(b: &mut Builder, v: Value) -> Value {
    let s = b.unary(UnaryOp::Sin, v);
    let p = b.mul(v, s).unwrap();
    let rank = b.ty(p).rank();
    b.reduce(ReduceKind::Sum, p, (0..rank).collect(), false)
}

/// Runs `value_and_grad`, verifies the module, checks the values against
/// `f` and the gradients against central differences; returns the gradients.
pub fn check_grad(m: &mut Module, f: FuncId, wrt: &[usize], args: &[T]) -> Vec<T> {
    let g = value_and_grad(m, f, wrt).unwrap_or_else(|e| panic!("value_and_grad: {e}"));
    let text = agc_ir::print::print_module(m);
    if let Err(e) = agc_ir::verify::verify_module(m) {
        panic!("{e}\n{text}");
    }
    let out = interp::run(m, g, args.to_vec())
        .unwrap_or_else(|e| panic!("running the gradient: {e}\n{text}"));
    let want = interp::run(m, f, args.to_vec()).unwrap();
    let nres = want.len();
    assert_eq!(out[..nres], want[..], "values differ\n{text}");
    let loss = |a: &[T]| interp::run(m, f, a.to_vec()).unwrap()[0].data[0];
    for (k, &i) in wrt.iter().enumerate() {
        let grad = &out[nres + k];
        assert_eq!(grad.shape, args[i].shape);
        for j in 0..args[i].data.len() {
            let x = args[i].data[j];
            let h = 1e-6 * x.abs().max(1.0);
            let (mut ap, mut am) = (args.to_vec(), args.to_vec());
            ap[i].data[j] = x + h;
            am[i].data[j] = x - h;
            let fd = (loss(&ap) - loss(&am)) / (2.0 * h);
            let ad = grad.data[j];
            assert!(
                (ad - fd).abs() <= 1e-5 * fd.abs().max(ad.abs()) + 1e-7,
                "d/dp{i}[{j}]: ad {ad} vs fd {fd}\n{text}"
            );
        }
    }
    out[nres..].to_vec()
}

/// `if c { then } else { els }` with the branches' yields as results.
pub fn if_(
    b: &mut Builder,
    c: Value,
    then: impl FnOnce(&mut Builder) -> Vec<Value>,
    els: impl FnOnce(&mut Builder) -> Vec<Value>,
) -> Vec<Value> {
    let rt = b.f.new_region(&[]);
    let ys = then(&mut b.at(rt));
    let types: Vec<TensorType> = ys.iter().map(|&v| b.ty(v)).collect();
    b.at(rt).terminate(OpKind::Yield, ys);
    let re = b.f.new_region(&[]);
    let ys = els(&mut b.at(re));
    b.at(re).terminate(OpKind::Yield, ys);
    b.op(OpKind::If, vec![c], types, vec![rt, re])
}

/// A `while` loop: `before(state) -> (cond, args)`, `after(args) -> next state`.
pub fn while_(
    b: &mut Builder,
    init: Vec<Value>,
    before: impl FnOnce(&mut Builder, &[Value]) -> (Value, Vec<Value>),
    after: impl FnOnce(&mut Builder, &[Value]) -> Vec<Value>,
) -> Vec<Value> {
    let types: Vec<Type> = init.iter().map(|&v| b.f.ty(v).clone()).collect();
    let rb = b.f.new_region(&types);
    let params = b.f.region(rb).params.clone();
    let (c, args) = before(&mut b.at(rb), &params);
    let arg_types: Vec<Type> = args.iter().map(|&v| b.f.ty(v).clone()).collect();
    let mut ops = vec![c];
    ops.extend(args);
    b.at(rb).terminate(OpKind::Condition, ops);
    let ra = b.f.new_region(&arg_types);
    let params = b.f.region(ra).params.clone();
    let next = after(&mut b.at(ra), &params);
    b.at(ra).terminate(OpKind::Yield, next);
    let results = arg_types.iter().map(|t| t.tensor().clone()).collect();
    b.op(OpKind::While, init, results, vec![rb, ra])
}

/// `for i in range(n): state = body(i, state)` as a `while` with an `i64` counter.
pub fn for_range(
    b: &mut Builder,
    n: Value,
    init: Vec<Value>,
    body: impl FnOnce(&mut Builder, Value, &[Value]) -> Vec<Value>,
) -> Vec<Value> {
    let zero = b.index(0);
    let mut state = vec![zero];
    state.extend(init);
    let out = while_(
        b,
        state,
        |b, s| (b.compare(agc_ir::CmpOp::Lt, s[0], n).unwrap(), s.to_vec()),
        |b, s| {
            let one = b.index(1);
            let next_i = b.add(s[0], one).unwrap();
            let mut next = vec![next_i];
            next.extend(body(b, s[0], &s[1..]));
            next
        },
    );
    out[1..].to_vec()
}
