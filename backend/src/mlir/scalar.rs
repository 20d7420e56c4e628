//! Scalar semantics of the elementwise ops, emitted inside `linalg.generic`
//! bodies: one function per op family, taking and returning SSA scalars.
//!
//! numpy/Python rules implemented here:
//! - `//` and `%` floor (result takes the divisor's sign) for ints and
//!   floats; an int division by zero gives 0 (numpy's result, without the
//!   warning) and `MIN // -1` wraps instead of trapping; float `//` and `%`
//!   follow numpy's `npy_divmod` (fmod, then correct toward the divisor).
//! - `**` on ints is integer power (`math.ipowi`); on floats `math.powf`.
//! - `maximum`/`minimum` on floats propagate NaN; comparisons are ordered
//!   except `!=`, which is true for NaN.
//! - casts: float→int truncates toward zero, any→bool is `!= 0` (NaN is
//!   true), bool→number is 0/1.
//! - arithmetic on `bool` is logical (`+`/`max` = or, `*`/`min` = and).
//! - float `mul`/`add`/`sub` round each result, as numpy does (no
//!   `fastmath<contract>`: a fused multiply-add rounds once and differs from
//!   numpy in the last bit, which a later comparison or `cos` of a large
//!   value can amplify).

use super::approx::{self, Approximation};
use super::emitter::FnEmitter;
use super::types::{self, elem};
use crate::BackendError;
use agc_ir::{BinaryOp, CmpOp, DType, UnaryOp};

fn unsupported(what: String) -> BackendError {
    BackendError::Unsupported(what)
}

/// A math-dialect op on `x`.
fn math(e: &mut FnEmitter, op: &str, x: &str, t: &str) -> String {
    e.math(op, &[x], t)
}

/// `op(x)` for an elementwise unary op of `dtype`.
pub fn unary(
    e: &mut FnEmitter,
    op: UnaryOp,
    dtype: DType,
    x: &str,
) -> Result<String, BackendError> {
    let t = elem(dtype);
    let float = dtype.is_float();
    Ok(match op {
        UnaryOp::Neg if float => e.assign(&format!("arith.negf {x} : {t}")),
        UnaryOp::Neg if dtype == DType::Bool => x.to_string(),
        UnaryOp::Neg => {
            let z = e.constant("0", t);
            e.arith("subi", &z, x, t)
        }
        UnaryOp::Exp if dtype == DType::F32 => approx::emit(e, Approximation::Exp, x),
        UnaryOp::Log if dtype == DType::F32 => approx::emit(e, Approximation::Log, x),
        UnaryOp::Tanh if dtype == DType::F32 => approx::emit(e, Approximation::Tanh, x),
        UnaryOp::Exp if float => math(e, "exp", x, t),
        UnaryOp::Log if float => math(e, "log", x, t),
        UnaryOp::Tanh if float => math(e, "tanh", x, t),
        UnaryOp::Sqrt if float => math(e, "sqrt", x, t),
        UnaryOp::Sin if float => math(e, "sin", x, t),
        UnaryOp::Cos if float => math(e, "cos", x, t),
        UnaryOp::Floor if float => math(e, "floor", x, t),
        UnaryOp::Ceil if float => math(e, "ceil", x, t),
        UnaryOp::Asin if float => math(e, "asin", x, t),
        UnaryOp::Acos if float => math(e, "acos", x, t),
        UnaryOp::Atan if float => math(e, "atan", x, t),
        UnaryOp::Round if float => math(e, "roundeven", x, t),
        UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::Round => x.to_string(),
        UnaryOp::Abs if float => math(e, "absf", x, t),
        UnaryOp::Abs if dtype == DType::Bool => x.to_string(),
        UnaryOp::Abs => math(e, "absi", x, t),
        UnaryOp::Not => {
            let ones = types::int_lit(dtype, -1);
            if float {
                return Err(unsupported(format!("not on {dtype}")));
            }
            let c = e.constant(&ones, t);
            e.arith("xori", x, &c, t)
        }
        UnaryOp::Sign if dtype == DType::Bool => x.to_string(),
        UnaryOp::Sign => {
            let (zero, one, minus) = if float {
                (
                    types::scalar_lit(dtype, 0.0),
                    types::scalar_lit(dtype, 1.0),
                    types::scalar_lit(dtype, -1.0),
                )
            } else {
                ("0".into(), "1".into(), "-1".into())
            };
            let z = e.constant(&zero, t);
            let p = e.constant(&one, t);
            let m = e.constant(&minus, t);
            let (gt, lt) = if float {
                (
                    e.assign(&format!("arith.cmpf ogt, {x}, {z} : {t}")),
                    e.assign(&format!("arith.cmpf olt, {x}, {z} : {t}")),
                )
            } else {
                (e.cmpi("sgt", x, &z, t), e.cmpi("slt", x, &z, t))
            };
            // x itself for 0 and NaN.
            let s = e.select(&lt, &m, x, t);
            e.select(&gt, &p, &s, t)
        }
        _ => return Err(unsupported(format!("{} on {dtype}", op.name()))),
    })
}

/// `a op b` for an elementwise binary op on two scalars of `dtype`.
pub fn binary(
    e: &mut FnEmitter,
    op: BinaryOp,
    dtype: DType,
    a: &str,
    b: &str,
) -> Result<String, BackendError> {
    let t = elem(dtype);
    if dtype == DType::Bool {
        return Ok(match op {
            BinaryOp::Add | BinaryOp::Max | BinaryOp::Or => e.arith("ori", a, b, t),
            BinaryOp::Mul | BinaryOp::Min | BinaryOp::And => e.arith("andi", a, b, t),
            BinaryOp::Xor | BinaryOp::Sub => e.arith("xori", a, b, t),
            _ => return Err(unsupported(format!("{} on bool", op.name()))),
        });
    }
    if dtype.is_float() {
        // `--fast-math`: reassociate and contract (no change to NaN or infinity).
        let fast = |e: &mut FnEmitter, op: &str| {
            let flags = if e.weights.fast_math {
                " fastmath<reassoc,contract,arcp,afn>"
            } else {
                ""
            };
            e.assign(&format!("arith.{op} {a}, {b}{flags} : {t}"))
        };
        return Ok(match op {
            BinaryOp::Add => fast(e, "addf"),
            BinaryOp::Sub => fast(e, "subf"),
            BinaryOp::Mul => fast(e, "mulf"),
            BinaryOp::Div => fast(e, "divf"),
            BinaryOp::Max => e.arith("maximumf", a, b, t),
            BinaryOp::Min => e.arith("minimumf", a, b, t),
            BinaryOp::Pow => e.math("powf", &[a, b], t),
            BinaryOp::Atan2 => e.math("atan2", &[a, b], t),
            BinaryOp::FloorDiv => float_divmod(e, dtype, a, b).0,
            BinaryOp::Mod => float_divmod(e, dtype, a, b).1,
            BinaryOp::FMod => e.arith("remf", a, b, t),
            _ => return Err(unsupported(format!("{} on {dtype}", op.name()))),
        });
    }
    Ok(match op {
        BinaryOp::Add => e.arith("addi", a, b, t),
        BinaryOp::Sub => e.arith("subi", a, b, t),
        BinaryOp::Mul => e.arith("muli", a, b, t),
        BinaryOp::Max => e.arith("maxsi", a, b, t),
        BinaryOp::Min => e.arith("minsi", a, b, t),
        BinaryOp::And => e.arith("andi", a, b, t),
        BinaryOp::Or => e.arith("ori", a, b, t),
        BinaryOp::Xor => e.arith("xori", a, b, t),
        BinaryOp::Shl | BinaryOp::Shr => int_shift(e, op, dtype, a, b),
        BinaryOp::Pow => e.math("ipowi", &[a, b], t),
        BinaryOp::FloorDiv => int_divmod(e, t, a, b, true),
        BinaryOp::Mod => int_divmod(e, t, a, b, false),
        BinaryOp::FMod => int_fmod(e, t, a, b),
        BinaryOp::Div | BinaryOp::Atan2 => {
            return Err(unsupported(format!("{} on {dtype}", op.name())))
        }
    })
}

/// numpy's `left_shift`/`right_shift` of integers: `arith.shli`/`shrsi` are
/// poison for a shift outside `[0, bits)`, where numpy gives 0 (a right
/// shift of a negative value: -1).
fn int_shift(e: &mut FnEmitter, op: BinaryOp, dtype: DType, a: &str, b: &str) -> String {
    let t = elem(dtype);
    let bits = e.constant(if dtype == DType::I32 { "32" } else { "64" }, t);
    let zero = e.constant("0", t);
    let inside = e.cmpi("ult", b, &bits, t);
    let amount = e.select(&inside, b, &zero, t);
    if op == BinaryOp::Shl {
        let r = e.arith("shli", a, &amount, t);
        e.select(&inside, &r, &zero, t)
    } else {
        let r = e.arith("shrsi", a, &amount, t);
        let negative = e.cmpi("slt", a, &zero, t);
        let minus_one = e.constant("-1", t);
        let outside = e.select(&negative, &minus_one, &zero, t);
        e.select(&inside, &r, &outside, t)
    }
}

impl FnEmitter<'_> {
    /// `math.<op> args : t` (for the GPU, `absi` as arithmetic: libdevice's
    /// `__nv_abs` would be its lowering there).
    pub fn math(&mut self, op: &str, args: &[&str], t: &str) -> String {
        let list = args.join(", ");
        if let ("absi", [x], true) = (op, args, self.weights.gpu) {
            // |x| as 0 - x where x < 0 (libdevice's `__nv_abs` otherwise).
            let z = self.constant("0", t);
            let neg = self.arith("subi", &z, x, t);
            let lt = self.cmpi("slt", x, &z, t);
            return self.select(&lt, &neg, x, t);
        }
        self.assign(&format!("math.{op} {list} : {t}"))
    }
}

/// Python's integer `a // b` (`floor`) or `a % b` (`mod`), total: `b == 0`
/// gives 0 and `b == -1` never reaches the trapping hardware division.
fn int_divmod(e: &mut FnEmitter, t: &str, a: &str, b: &str, floor: bool) -> String {
    let zero = e.constant("0", t);
    let SafeDivisor { safe_b, is0, is_m1 } = safe_divisor(e, t, b);
    let r = if floor {
        let q = e.arith("floordivsi", a, &safe_b, t);
        let neg = e.arith("subi", &zero, a, t);
        e.select(&is_m1, &neg, &q, t)
    } else {
        // remsi has the dividend's sign; move it to the divisor's.
        let r = e.arith("remsi", a, &safe_b, t);
        let nonzero = e.cmpi("ne", &r, &zero, t);
        let rneg = e.cmpi("slt", &r, &zero, t);
        let bneg = e.cmpi("slt", &safe_b, &zero, t);
        let differ = e.arith("xori", &rneg, &bneg, "i1");
        let fix = e.arith("andi", &nonzero, &differ, "i1");
        let rb = e.arith("addi", &r, &safe_b, t);
        let m = e.select(&fix, &rb, &r, t);
        e.select(&is_m1, &zero, &m, t)
    };
    e.select(&is0, &zero, &r, t)
}

/// numpy's integer `fmod(a, b)`: `remsi` (the dividend's sign), 0 for a
/// zero divisor, and for -1 (where `remsi` of the smallest integer is
/// undefined; the remainder is 0 anyway).
fn int_fmod(e: &mut FnEmitter, t: &str, a: &str, b: &str) -> String {
    let safe_b = safe_divisor(e, t, b).safe_b;
    e.arith("remsi", a, &safe_b, t)
}

/// An integer divisor made safe for `divsi`/`remsi`: 1 in place of 0 and
/// -1 (the smallest integer divided by -1 overflows), with the flags of
/// those two cases for the caller's result.
struct SafeDivisor {
    safe_b: String,
    is0: String,
    is_m1: String,
}

/// The [`SafeDivisor`] of the integer `b` of MLIR type `t`.
fn safe_divisor(e: &mut FnEmitter, t: &str, b: &str) -> SafeDivisor {
    let zero = e.constant("0", t);
    let one = e.constant("1", t);
    let minus = e.constant("-1", t);
    let is0 = e.cmpi("eq", b, &zero, t);
    let is_m1 = e.cmpi("eq", b, &minus, t);
    let special = e.arith("ori", &is0, &is_m1, "i1");
    let safe_b = e.select(&special, &one, b, t);
    SafeDivisor { safe_b, is0, is_m1 }
}

/// numpy's float `divmod(a, b)` (`npy_divmod`): returns (floor quotient, modulo).
fn float_divmod(e: &mut FnEmitter, dtype: DType, a: &str, b: &str) -> (String, String) {
    let t = elem(dtype);
    let zero = e.constant(&types::scalar_lit(dtype, 0.0), t);
    let one = e.constant(&types::scalar_lit(dtype, 1.0), t);
    let half = e.constant(&types::scalar_lit(dtype, 0.5), t);
    let cmpf = |e: &mut FnEmitter, p: &str, x: &str, y: &str| {
        e.assign(&format!("arith.cmpf {p}, {x}, {y} : {t}"))
    };
    let m = e.arith("remf", a, b, t);
    // div = (a - mod) / b
    let am = e.arith("subf", a, &m, t);
    let div = e.arith("divf", &am, b, t);
    // if mod != 0 and (b < 0) != (mod < 0): mod += b, div -= 1
    let m_nz = cmpf(e, "une", &m, &zero);
    let b_neg = cmpf(e, "olt", b, &zero);
    let m_neg = cmpf(e, "olt", &m, &zero);
    let differ = e.arith("xori", &b_neg, &m_neg, "i1");
    let fix = e.arith("andi", &m_nz, &differ, "i1");
    let mb = e.arith("addf", &m, b, t);
    let d1 = e.arith("subf", &div, &one, t);
    let m2 = e.select(&fix, &mb, &m, t);
    let div2 = e.select(&fix, &d1, &div, t);
    // mod == 0: copysign(0, b)
    let zb = e.math("copysign", &[&zero, b], t);
    let m3 = e.select(&m_nz, &m2, &zb, t);
    // floordiv = floor(div), +1 if div - floor(div) > 0.5; div == 0: copysign(0, a/b)
    let fl = e.math("floor", &[&div2], t);
    let frac = e.arith("subf", &div2, &fl, t);
    let round = cmpf(e, "ogt", &frac, &half);
    let fl1 = e.arith("addf", &fl, &one, t);
    let fd = e.select(&round, &fl1, &fl, t);
    let q = e.arith("divf", a, b, t);
    let zq = e.math("copysign", &[&zero, &q], t);
    let d_nz = cmpf(e, "une", &div2, &zero);
    let fd2 = e.select(&d_nz, &fd, &zq, t);
    // b == 0: a / b and fmod (NaN)
    let b0 = cmpf(e, "oeq", b, &zero);
    let fd3 = e.select(&b0, &q, &fd2, t);
    let m4 = e.select(&b0, &m, &m3, t);
    (fd3, m4)
}

/// `a <cmp> b` on two scalars of `dtype`, an `i1`.
pub fn compare(e: &mut FnEmitter, op: CmpOp, dtype: DType, a: &str, b: &str) -> String {
    let t = elem(dtype);
    if dtype.is_float() {
        let p = match op {
            CmpOp::Eq => "oeq",
            CmpOp::Ne => "une",
            CmpOp::Lt => "olt",
            CmpOp::Le => "ole",
            CmpOp::Gt => "ogt",
            CmpOp::Ge => "oge",
        };
        return e.assign(&format!("arith.cmpf {p}, {a}, {b} : {t}"));
    }
    let signed = dtype != DType::Bool;
    let p = match (op, signed) {
        (CmpOp::Eq, _) => "eq",
        (CmpOp::Ne, _) => "ne",
        (CmpOp::Lt, true) => "slt",
        (CmpOp::Le, true) => "sle",
        (CmpOp::Gt, true) => "sgt",
        (CmpOp::Ge, true) => "sge",
        (CmpOp::Lt, false) => "ult",
        (CmpOp::Le, false) => "ule",
        (CmpOp::Gt, false) => "ugt",
        (CmpOp::Ge, false) => "uge",
    };
    e.cmpi(p, a, b, t)
}

/// Converts a scalar from one dtype to another (numpy `astype`).
pub fn cast(e: &mut FnEmitter, from: DType, to: DType, x: &str) -> String {
    let (f, t) = (elem(from), elem(to));
    if from == to {
        return x.to_string();
    }
    let conv = |e: &mut FnEmitter, op: &str| e.assign(&format!("arith.{op} {x} : {f} to {t}"));
    match (from, to) {
        (_, DType::Bool) => {
            let zero = if from.is_float() {
                types::scalar_lit(from, 0.0)
            } else {
                "0".into()
            };
            let z = e.constant(&zero, f);
            if from.is_float() {
                e.assign(&format!("arith.cmpf une, {x}, {z} : {f}"))
            } else {
                e.cmpi("ne", x, &z, f)
            }
        }
        (DType::Bool, d) if d.is_float() => conv(e, "uitofp"),
        (DType::Bool, _) => conv(e, "extui"),
        (DType::F32, DType::F64) => conv(e, "extf"),
        (DType::F64, DType::F32) => conv(e, "truncf"),
        (DType::I32, DType::I64) => conv(e, "extsi"),
        (DType::I64, DType::I32) => conv(e, "trunci"),
        (i, _) if i.is_int() => conv(e, "sitofp"),
        _ => conv(e, "fptosi"),
    }
}
