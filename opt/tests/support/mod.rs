//! Test support for the passes: building one-function modules, the live
//! op names of a function, and the semantic check (a pass must compute
//! what the source computes, bit for bit, on random and special inputs,
//! through the reference interpreter).

#![allow(dead_code)] // each test file uses a different part

use agc_ir::interp::{self, T};
use agc_ir::{DType, Export, FuncId, Function, Module, TensorType, Value};
use agc_lowering::builder::Builder;
use agc_opt::Pass;

/// A tensor type with dims given as numbers or symbol names.
pub fn ty(dtype: DType, dims: &[&str]) -> TensorType {
    TensorType::named(dtype, dims)
}

/// Adds exported function `name` to `m`, its body built by `body` from the params.
pub fn add_fn(
    m: &mut Module,
    name: &str,
    params: &[TensorType],
    body: impl FnOnce(&mut Builder, &[Value]) -> Vec<Value>,
) -> FuncId {
    m.add_function(agc_lowering::builder::function(name, params, body))
}

/// A module whose single function `f` is exported.
pub fn module(
    params: &[TensorType],
    body: impl FnOnce(&mut Builder, &[Value]) -> Vec<Value>,
) -> Module {
    let mut m = Module::new("t");
    let f = add_fn(&mut m, "f", params, body);
    m.exports.push(Export {
        func: f,
        c_name: "f".into(),
        doc: String::new(),
        assigns: vec![],
    });
    m
}

/// The names of the ops of `f` reachable from its body, sorted.
pub fn op_names(f: &Function) -> Vec<String> {
    let mut names: Vec<String> = f
        .ops_within(f.body)
        .into_iter()
        .map(|op| f.op(op).kind.name())
        .collect();
    names.sort();
    names
}

/// Runs `pass` on `m` (every saturated e-graph checked, as in debug
/// builds: `agc_opt::egg::check`) and verifies the result.
pub fn run_pass(pass: &dyn Pass, m: &mut Module) {
    agc_opt::egg::check::enable(true);
    pass.run(m);
    if let Err(e) = agc_ir::verify::verify_module(m) {
        panic!("{e}\n{}", agc_ir::print::print_module(m));
    }
}

/// Special values every semantic check draws from.
pub const SPECIAL: [f64; 12] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -2.5,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    1e-30,
    3e38,
    -7.0,
];

/// A deterministic xorshift generator.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A special value half of the time, else uniform in [-4, 4).
    pub fn value(&mut self, dtype: DType) -> f64 {
        let r = self.next();
        let x = if r.is_multiple_of(2) {
            SPECIAL[(r >> 8) as usize % SPECIAL.len()]
        } else {
            ((r >> 11) as f64 / (1u64 << 53) as f64) * 8.0 - 4.0
        };
        match dtype {
            DType::F32 | DType::F64 => x,
            DType::Bool => f64::from(u8::from(x > 0.0)),
            _ if x.is_finite() => x.round().clamp(-1e6, 1e6),
            _ => 3.0,
        }
    }

    /// A random tensor of `ty`, symbolic dims of size `sym`.
    pub fn tensor(&mut self, ty: &TensorType, sym: usize) -> T {
        let shape: Vec<usize> = ty
            .dims
            .iter()
            .map(|d| d.as_static().map_or(sym, |n| n as usize))
            .collect();
        let n = shape.iter().product();
        let data = (0..n).map(|_| self.value(ty.dtype)).collect();
        T::new(ty.dtype, &shape, data)
    }
}

/// Same bits, or both NaN.
pub fn same(a: &T, b: &T) -> bool {
    a.dtype == b.dtype
        && a.shape == b.shape
        && a.data
            .iter()
            .zip(&b.data)
            .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
}

/// Runs `before` and `after` (function 0 of each) on `cases` random inputs
/// (symbolic dims of sizes 0, 1 and 3 in turn) and requires equal bits.
pub fn check_same(before: &Module, after: &Module, cases: usize, seed: u64) {
    let f = before.func(FuncId(0));
    let params: Vec<TensorType> = f
        .params()
        .iter()
        .map(|v| f.ty(*v).tensor().clone())
        .collect();
    let mut rng = Rng(seed | 1);
    for case in 0..cases {
        let sym = [0, 1, 3][case % 3];
        let args: Vec<T> = params.iter().map(|t| rng.tensor(t, sym)).collect();
        let want = interp::run(before, FuncId(0), args.clone());
        let got = interp::run(after, FuncId(0), args.clone());
        match (&want, &got) {
            (Ok(w), Ok(g)) => assert!(
                w.len() == g.len() && w.iter().zip(g).all(|(a, b)| same(a, b)),
                "case {case}: {args:?}\nwant {w:?}\ngot {g:?}\n{}",
                agc_ir::print::print_module(after)
            ),
            (Err(_), Err(_)) => {}
            _ => panic!("case {case}: {args:?}: one fails: {want:?} vs {got:?}"),
        }
    }
}
