//! Vectorisable `float32` exp, log and tanh: range reduction and
//! polynomials in plain `arith` ops, instead of calls of libm's `expf`,
//! `logf` and `tanhf` (a call in a loop body stops LLVM's loop vectoriser;
//! `tanhf` alone cost 25-56 ns an element).
//!
//! Accuracy against numpy in float64 over every regime (normal, subnormal
//! and special inputs; `tests/test_transcendentals.py`, which bounds them by
//! 2, 2 and 3 ulp): at most 0.85 ulp for exp, 0.89 for log, 1.27 for tanh. The polynomials are
//! relative-error least-squares fits on Chebyshev nodes of each reduced
//! interval; `fastmath<contract>` lets LLVM fuse their multiply-adds.
//!
//! - `exp(x)`: `x = n ln2 + r`, `|r| <= ln2/2` (Cody-Waite, `ln2` split in
//!   two), `exp(r)` a degree-7 polynomial, `2^n` applied as two exponent
//!   scalings so that subnormal results and overflow to `inf` come out right.
//! - `log(x)`: `x = 2^e m`, `m` in `[sqrt(1/2), sqrt 2)`, `log(1 + f)` with
//!   `f = m - 1` as `f - f^2/2 + f^3 Q(f)`, `Q` of degree 7; subnormal inputs
//!   are scaled by `2^23` first.
//! - `tanh(x)`: `x + x^3 P(x^2)` below `|x| = 0.625`, `P` of degree 4; above,
//!   `1 - 2 / (exp(2|x|) + 1)` with the sign of `x`.
//!
//! # Inline or called
//!
//! Each approximation is about 40 ops. A module with more than
//! [`inline_limit`] of them (a 20,000-line model with a `tanh` on every
//! third line has 6,667) would spend most of its build in optimising and
//! compiling copies of the same polynomials, so there each one becomes a
//! call of an out-of-line function `@agc_approx_<name>_f32`, defined once in
//! the module ([`definitions`]) with vector variants of 4, 8 and 16 lanes
//! (`@agc_approx_<name>_f32_v<N>`, the same ops on vectors). LLVM's loop
//! vectoriser calls a vector variant for 16 elements at a time: the loops
//! around the calls are marked for it ([`super::short_loops`]) and the calls
//! name their variants ([`crate::vector_variants`]). Results are the same
//! ops in the same order either way.

use super::emitter::FnEmitter;
use agc_ir::{DType, Module, OpKind, UnaryOp};

/// `exp(r)` on `[-ln2/2, ln2/2]`, lowest degree first.
const EXP_POLY: [f64; 8] = [
    1.0,
    1.000000000258124,
    0.5000000104155446,
    0.1666666502397823,
    0.04166622626621198,
    0.008333578301898506,
    0.001394813703033352,
    0.00019766922282920922,
];

/// `Q(f)` with `log(1 + f) = f - f^2/2 + f^3 Q(f)` on `[sqrt(1/2) - 1, sqrt 2 - 1]`.
const LOG_POLY: [f64; 8] = [
    0.3333333210735376,
    -0.2500031012780377,
    0.20000771697959246,
    -0.1664078755558876,
    0.142224824930392,
    -0.1301343544088164,
    0.12563667573587914,
    -0.07778408749686863,
];

/// `P(u)` with `tanh(x) = x + x^3 P(x^2)` on `[0, 0.625]`.
const TANH_POLY: [f64; 5] = [
    -0.33333279,
    0.13331381,
    -0.05373531,
    0.02062625,
    -0.00569194,
];

/// `ln 2` split so that `n * LN2_HI` is exact for the `n` that occur.
const LN2_HI: f64 = 0.693359375;
/// The rest of `ln 2`.
const LN2_LO: f64 = -2.12194440e-4;

/// Below this `|x|`, tanh uses its odd polynomial.
const TANH_SMALL: f64 = 0.625;

/// The prefix of every out-of-line approximation's symbol.
pub const SYMBOL_PREFIX: &str = "agc_approx_";

/// The approximated functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Approximation {
    /// `exp`.
    Exp,
    /// `log`.
    Log,
    /// `tanh`.
    Tanh,
}

impl Approximation {
    /// Every approximation.
    pub const ALL: [Approximation; 3] =
        [Approximation::Exp, Approximation::Log, Approximation::Tanh];

    /// The out-of-line scalar function's symbol: `agc_approx_<name>_f32`.
    pub fn symbol(self) -> &'static str {
        match self {
            Approximation::Exp => "agc_approx_exp_f32",
            Approximation::Log => "agc_approx_log_f32",
            Approximation::Tanh => "agc_approx_tanh_f32",
        }
    }
}

/// The lane counts of the vector variants of an out-of-line approximation.
pub const VECTOR_LANES: [u32; 3] = [4, 8, 16];

/// The symbol of the vector variant of `lanes` lanes of the function `scalar`.
pub fn vector_symbol(scalar: &str, lanes: u32) -> String {
    format!("{scalar}_v{lanes}")
}

/// The default of [`inline_limit`].
const INLINE_LIMIT: usize = 1024;

/// The most approximations a module has inline (see the module doc);
/// `AGC_INLINE_MATH_LIMIT` overrides it (0: every one called, for tests of the
/// out-of-line functions).
pub fn inline_limit() -> usize {
    std::env::var("AGC_INLINE_MATH_LIMIT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(INLINE_LIMIT)
}

/// The float32 `exp`, `log` and `tanh` ops of `m`'s functions.
pub fn count(m: &Module) -> usize {
    m.funcs
        .iter()
        .map(|f| {
            f.ops_within(f.body)
                .into_iter()
                .filter(|&op| {
                    let od = f.op(op);
                    matches!(
                        od.kind,
                        OpKind::Unary(UnaryOp::Exp | UnaryOp::Log | UnaryOp::Tanh)
                    ) && od.results.first().is_some_and(|&r| {
                        f.ty(r).as_tensor().is_some_and(|t| t.dtype == DType::F32)
                    })
                })
                .count()
        })
        .sum()
}

/// `which(x)` for a float32 `x` in `e`'s function: the ops inline, or a call
/// when the module's approximations are out of line.
pub fn emit(e: &mut FnEmitter, which: Approximation, x: &str) -> String {
    if e.weights.approx_calls {
        let sym = which.symbol();
        return e.assign(&format!("func.call @{sym}({x}) : (f32) -> f32"));
    }
    Writer { sink: e, lanes: 0 }.apply(which, x)
}

/// The out-of-line functions of every approximation, scalar and vector
/// (MLIR text; LLVM drops those nothing calls).
pub fn definitions() -> String {
    let mut out = String::new();
    for which in Approximation::ALL {
        for lanes in std::iter::once(0).chain(VECTOR_LANES) {
            let mut body = Body::default();
            let ty = Writer {
                sink: &mut body,
                lanes,
            }
            .float_type();
            let y = Writer {
                sink: &mut body,
                lanes,
            }
            .apply(which, "%x");
            let sym = match lanes {
                0 => which.symbol().to_string(),
                n => vector_symbol(which.symbol(), n),
            };
            out.push_str(&format!(
                "  func.func private @{sym}(%x: {ty}) -> {ty} {{\n{}    return {y} : {ty}\n  }}\n",
                body.text
            ));
        }
    }
    out
}

/// Where the ops of an approximation go.
trait Sink {
    /// Emits `%v = rhs`; returns `%v`.
    fn assign(&mut self, rhs: &str) -> String;
}

impl Sink for FnEmitter<'_> {
    fn assign(&mut self, rhs: &str) -> String {
        FnEmitter::assign(self, rhs)
    }
}

/// The body of an out-of-line function.
#[derive(Default)]
struct Body {
    text: String,
    next: u32,
}

impl Sink for Body {
    fn assign(&mut self, rhs: &str) -> String {
        self.next += 1;
        let name = format!("%a{}", self.next);
        self.text.push_str(&format!("    {name} = {rhs}\n"));
        name
    }
}

/// Writes the ops of an approximation on float32 scalars (`lanes` 0) or
/// vectors of `lanes` float32s.
struct Writer<'s, S: Sink + ?Sized> {
    sink: &'s mut S,
    lanes: u32,
}

impl<S: Sink + ?Sized> Writer<'_, S> {
    /// The type of `elem` values: the element, or a vector of them.
    fn ty(&self, elem: &str) -> String {
        match self.lanes {
            0 => elem.to_string(),
            n => format!("vector<{n}x{elem}>"),
        }
    }

    fn float_type(&self) -> String {
        self.ty("f32")
    }

    fn int_type(&self) -> String {
        self.ty("i32")
    }

    /// A constant of type `elem` (splat on vectors).
    fn constant(&mut self, lit: &str, elem: &str) -> String {
        let ty = self.ty(elem);
        let lit = if self.lanes == 0 {
            lit.to_string()
        } else {
            format!("dense<{lit}>")
        };
        self.sink.assign(&format!("arith.constant {lit} : {ty}"))
    }

    /// A float32 constant.
    fn c(&mut self, v: f64) -> String {
        self.constant(&format!("0x{:08X}", (v as f32).to_bits()), "f32")
    }

    /// An i32 constant.
    fn ci(&mut self, v: i32) -> String {
        self.constant(&v.to_string(), "i32")
    }

    /// A float binary op.
    fn f(&mut self, op: &str, a: &str, b: &str) -> String {
        let ty = self.float_type();
        self.sink.assign(&format!("arith.{op} {a}, {b} : {ty}"))
    }

    /// A float binary op that LLVM may contract into FMAs.
    fn fc(&mut self, op: &str, a: &str, b: &str) -> String {
        let ty = self.float_type();
        self.sink
            .assign(&format!("arith.{op} {a}, {b} fastmath<contract> : {ty}"))
    }

    /// An i32 binary op.
    fn i(&mut self, op: &str, a: &str, b: &str) -> String {
        let ty = self.int_type();
        self.sink.assign(&format!("arith.{op} {a}, {b} : {ty}"))
    }

    /// `math.<op> args` on floats.
    fn math(&mut self, op: &str, args: &[&str]) -> String {
        let ty = self.float_type();
        self.sink
            .assign(&format!("math.{op} {} : {ty}", args.join(", ")))
    }

    /// `arith.cmpf <pred>, a, b`.
    fn cmpf(&mut self, pred: &str, a: &str, b: &str) -> String {
        let ty = self.float_type();
        self.sink
            .assign(&format!("arith.cmpf {pred}, {a}, {b} : {ty}"))
    }

    /// `c ? a : b` on values of type `elem`.
    fn select(&mut self, c: &str, a: &str, b: &str, elem: &str) -> String {
        let ty = self.ty(elem);
        let types = match self.lanes {
            0 => ty,
            _ => format!("{}, {ty}", self.ty("i1")),
        };
        self.sink
            .assign(&format!("arith.select {c}, {a}, {b} : {types}"))
    }

    /// A conversion `arith.<op> x : from to to` (element types).
    fn convert(&mut self, op: &str, x: &str, from: &str, to: &str) -> String {
        let (from, to) = (self.ty(from), self.ty(to));
        self.sink
            .assign(&format!("arith.{op} {x} : {from} to {to}"))
    }

    /// `which(x)`.
    fn apply(&mut self, which: Approximation, x: &str) -> String {
        match which {
            Approximation::Exp => self.exp(x),
            Approximation::Log => self.log(x),
            Approximation::Tanh => self.tanh(x),
        }
    }

    /// The polynomial `coeffs[0] + coeffs[1] x + ...` by Horner's rule.
    fn horner(&mut self, coeffs: &[f64], x: &str) -> String {
        let mut acc = self.c(coeffs[coeffs.len() - 1]);
        for &k in coeffs[..coeffs.len() - 1].iter().rev() {
            let m = self.fc("mulf", &acc, x);
            let k = self.c(k);
            acc = self.fc("addf", &m, &k);
        }
        acc
    }

    /// `2^k` for an i32 `k` in `[-126, 127]`, built from its exponent bits.
    fn pow2(&mut self, k: &str) -> String {
        let bias = self.ci(127);
        let biased = self.i("addi", k, &bias);
        let shift = self.ci(23);
        let bits = self.i("shli", &biased, &shift);
        self.convert("bitcast", &bits, "i32", "f32")
    }

    /// `exp(x)`.
    fn exp(&mut self, x: &str) -> String {
        // Past these bounds the result is 0 or inf anyway; clamping keeps `n` small.
        let (lo, hi) = (self.c(-104.0), self.c(89.0));
        let clamped = self.f("maximumf", x, &lo);
        let clamped = self.f("minimumf", &clamped, &hi);
        let log2e = self.c(std::f64::consts::LOG2_E);
        let scaled = self.fc("mulf", &clamped, &log2e);
        let n = self.math("roundeven", &[&scaled]);
        let (hi_part, lo_part) = (self.c(LN2_HI), self.c(LN2_LO));
        let nh = self.fc("mulf", &n, &hi_part);
        let r = self.fc("subf", &clamped, &nh);
        let nl = self.fc("mulf", &n, &lo_part);
        let r = self.fc("subf", &r, &nl);
        let p = self.horner(&EXP_POLY, &r);
        // 2^n as 2^n1 * 2^n2, each factor a normal number.
        let ni = self.convert("fptosi", &n, "f32", "i32");
        let one = self.ci(1);
        let n1 = self.i("shrsi", &ni, &one);
        let n2 = self.i("subi", &ni, &n1);
        let (s1, s2) = (self.pow2(&n1), self.pow2(&n2));
        let y = self.f("mulf", &p, &s1);
        let y = self.f("mulf", &y, &s2);
        let nan = self.cmpf("uno", x, x);
        self.select(&nan, x, &y, "f32")
    }

    /// `log(x)`.
    fn log(&mut self, x: &str) -> String {
        // Subnormal inputs: scale into the normal range first.
        let tiny = self.c(f32::MIN_POSITIVE as f64);
        let is_tiny = self.cmpf("olt", x, &tiny);
        let up = self.c(8388608.0);
        let x_up = self.f("mulf", x, &up);
        let xs = self.select(&is_tiny, &x_up, x, "f32");
        let (minus23, zero_i) = (self.ci(-23), self.ci(0));
        let adjust = self.select(&is_tiny, &minus23, &zero_i, "i32");
        // x = 2^k m, m in [1, 2).
        let bits = self.convert("bitcast", &xs, "f32", "i32");
        let shift = self.ci(23);
        let biased = self.i("shrui", &bits, &shift);
        let bias = self.ci(127);
        let k = self.i("subi", &biased, &bias);
        let k = self.i("addi", &k, &adjust);
        let mant_mask = self.ci(0x007f_ffff);
        let one_bits = self.ci(0x3f80_0000);
        let mant = self.i("andi", &bits, &mant_mask);
        let mant = self.i("ori", &mant, &one_bits);
        let m = self.convert("bitcast", &mant, "i32", "f32");
        // m in [sqrt(1/2), sqrt 2).
        let sqrt2 = self.c(std::f64::consts::SQRT_2);
        let above = self.cmpf("ogt", &m, &sqrt2);
        let half = self.c(0.5);
        let m_half = self.f("mulf", &m, &half);
        let m = self.select(&above, &m_half, &m, "f32");
        let one = self.ci(1);
        let k1 = self.i("addi", &k, &one);
        let k = self.select(&above, &k1, &k, "i32");
        let kf = self.convert("sitofp", &k, "i32", "f32");
        let onef = self.c(1.0);
        let f = self.f("subf", &m, &onef);
        // log(1 + f) = f - f^2/2 + f^3 Q(f); then + k ln2.
        let q = self.horner(&LOG_POLY, &f);
        let f2 = self.f("mulf", &f, &f);
        let f3 = self.f("mulf", &f2, &f);
        let y = self.fc("mulf", &f3, &q);
        let half_f2 = self.f("mulf", &half, &f2);
        let y = self.fc("subf", &y, &half_f2);
        let (hi_part, lo_part) = (self.c(LN2_HI), self.c(LN2_LO));
        let klo = self.fc("mulf", &kf, &lo_part);
        let y = self.fc("addf", &y, &klo);
        let y = self.f("addf", &f, &y);
        let khi = self.fc("mulf", &kf, &hi_part);
        let y = self.fc("addf", &y, &khi);
        // log(0) = -inf, log(inf) = inf, log(negative or NaN) = NaN.
        let zero = self.c(0.0);
        let inf = self.c(f64::INFINITY);
        let (ninf, nan) = (self.c(f64::NEG_INFINITY), self.c(f64::NAN));
        let is_zero = self.cmpf("oeq", x, &zero);
        let is_inf = self.cmpf("oeq", x, &inf);
        let invalid = self.cmpf("ult", x, &zero);
        let y = self.select(&is_inf, &inf, &y, "f32");
        let y = self.select(&is_zero, &ninf, &y, "f32");
        self.select(&invalid, &nan, &y, "f32")
    }

    /// `tanh(x)`.
    fn tanh(&mut self, x: &str) -> String {
        let a = self.math("absf", &[x]);
        // Small |x|: x + x^3 P(x^2).
        let u = self.f("mulf", x, x);
        let p = self.horner(&TANH_POLY, &u);
        let xu = self.f("mulf", x, &u);
        let tail = self.fc("mulf", &xu, &p);
        let small = self.fc("addf", x, &tail);
        // Otherwise 1 - 2 / (exp(2|x|) + 1), with the sign of x.
        let two_a = self.f("addf", &a, &a);
        let ex = self.exp(&two_a);
        let one = self.c(1.0);
        let den = self.f("addf", &ex, &one);
        let two = self.c(2.0);
        let frac = self.f("divf", &two, &den);
        let big = self.f("subf", &one, &frac);
        let big = self.math("copysign", &[&big, x]);
        let limit = self.c(TANH_SMALL);
        let is_small = self.cmpf("olt", &a, &limit);
        self.select(&is_small, &small, &big, "f32")
    }
}
