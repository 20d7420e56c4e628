//! Elementwise math of the `agc.numpy` surface beyond the core ufuncs:
//! inverse trigonometry, hyperbolic functions, `exp2`/`log2`/`log10`,
//! `reciprocal`, `logaddexp`, the float classification tests
//! (`isnan`/`isinf`/`isfinite`), `nan_to_num` and `round`/`around`.
//!
//! Where an exact composite of existing ops exists it is used (so the
//! backend and the automatic differentiation need nothing new); inverse
//! trigonometry and round-half-to-even are IR ops. numpy's dtype rules hold:
//! float inputs keep their dtype, integer inputs compute in float64, bool
//! inputs (float16 in numpy) are rejected.

use super::args::Args;
use super::tensor::staged;
use super::value::{Tensor, Value};
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{BinaryOp, CmpOp, ConstData, DType, OpKind, Span, TensorType, UnaryOp};

/// The functions this module stages, by their `np.` name.
pub const FUNCTIONS: &[&str] = &[
    "arcsin",
    "arccos",
    "arctan",
    "arctan2",
    "sinh",
    "cosh",
    "exp2",
    "log2",
    "log10",
    "reciprocal",
    "logaddexp",
    "isnan",
    "isfinite",
    "isinf",
    "nan_to_num",
    "round",
    "around",
];

/// The message for a float function of a bool array (numpy computes it in float16).
fn bool_to_float16(span: Span, f: &str) -> Diagnostic {
    Diagnostic::error(
        span,
        format!(
            "np.{f} of a bool array gives float16 in numpy, which agc does not support; cast first"
        ),
    )
}

impl Stager {
    /// Calls `np.<f>` for `f` in [`FUNCTIONS`].
    pub(super) fn numpy_math(&mut self, f: &str, args: &Args) -> R<Value> {
        let span = args.span;
        let x = || args.req(0, "x", &format!("np.{f}"));
        match f {
            "arcsin" | "arccos" | "arctan" => {
                let op = match f {
                    "arcsin" => UnaryOp::Asin,
                    "arccos" => UnaryOp::Acos,
                    _ => UnaryOp::Atan,
                };
                self.unary(op, &x()?, span)
            }
            "sinh" | "cosh" => {
                let t = self.float_operand(&x()?, f, span)?;
                let e = self.elementwise(UnaryOp::Exp, &t, span)?;
                let neg = self.elementwise(UnaryOp::Neg, &t, span)?;
                let en = self.elementwise(UnaryOp::Exp, &neg, span)?;
                let op = if f == "sinh" {
                    BinaryOp::Sub
                } else {
                    BinaryOp::Add
                };
                let s = self.binary_same(op, &e, &en, span)?;
                self.binary(BinaryOp::Mul, &Value::Tensor(s), &Value::Float(0.5), span)
            }
            "exp2" => {
                let t = self.float_operand(&x()?, f, span)?;
                let two = self.scalar(2.0, t.ty.dtype, span)?;
                Ok(Value::Tensor(self.binary_same(
                    BinaryOp::Pow,
                    &two,
                    &t,
                    span,
                )?))
            }
            "log2" | "log10" => {
                let t = self.float_operand(&x()?, f, span)?;
                let l = self.elementwise(UnaryOp::Log, &t, span)?;
                let k = if f == "log2" {
                    std::f64::consts::LOG2_E
                } else {
                    std::f64::consts::LOG10_E
                };
                self.binary(BinaryOp::Mul, &Value::Tensor(l), &Value::Float(k), span)
            }
            "reciprocal" => self.reciprocal(&x()?, span),
            "arctan2" | "logaddexp" => {
                let (a, b) =
                    self.float_pair(&args.req(0, "x1", f)?, &args.req(1, "x2", f)?, f, span)?;
                if f == "arctan2" {
                    return Ok(Value::Tensor(self.binary_same(
                        BinaryOp::Atan2,
                        &a,
                        &b,
                        span,
                    )?));
                }
                self.logaddexp(&a, &b, span).map(Value::Tensor)
            }
            "isnan" | "isinf" | "isfinite" => {
                let t = self.to_tensor(&x()?, None, span)?;
                let v = Value::Tensor(t.clone());
                if !t.ty.dtype.is_float() {
                    // Integers and bools are always finite.
                    let op = if f == "isfinite" {
                        CmpOp::Eq
                    } else {
                        CmpOp::Ne
                    };
                    return self.compare(op, &v, &v, span);
                }
                if f == "isnan" {
                    return self.compare(CmpOp::Ne, &v, &v, span);
                }
                let a = Value::Tensor(self.elementwise(UnaryOp::Abs, &t, span)?);
                let op = if f == "isinf" { CmpOp::Eq } else { CmpOp::Lt };
                self.compare(op, &a, &Value::Float(f64::INFINITY), span)
            }
            "nan_to_num" => self.nan_to_num(args),
            _ => self.round(args),
        }
    }

    /// An elementwise unary op on a tensor, same type.
    fn elementwise(&mut self, op: UnaryOp, t: &Tensor, span: Span) -> R<Tensor> {
        self.emit(OpKind::Unary(op), &[t], t.ty.clone(), span)
    }

    /// The operand of a float function: floats as they are, integers as float64.
    pub(super) fn float_operand(&mut self, v: &Value, f: &str, span: Span) -> R<Tensor> {
        let t = self.to_tensor(v, None, span)?;
        match t.ty.dtype {
            DType::Bool => Err(bool_to_float16(span, f)),
            d if d.is_float() => Ok(t),
            _ => self.cast(&t, DType::F64, span),
        }
    }

    /// The operands of a binary float function, promoted (NEP 50) to one float dtype.
    pub(super) fn float_pair(
        &mut self,
        a: &Value,
        b: &Value,
        f: &str,
        span: Span,
    ) -> R<(Tensor, Tensor)> {
        let a = Value::Tensor(self.strong_if_static(a, b, span)?);
        let (ts, d) = self.promote(&[&a, b], span)?;
        let d = match d {
            DType::Bool => return Err(bool_to_float16(span, f)),
            d if d.is_float() => d,
            _ => DType::F64,
        };
        Ok((self.cast(&ts[0], d, span)?, self.cast(&ts[1], d, span)?))
    }

    /// `np.logaddexp(a, b)` = `max + log(1 + exp(-|a - b|))`, and `max + log 2` where
    /// `a == b` (numpy's result for equal infinities); `max` splits the gradient
    /// equally on ties, so each argument gets 1/2 there (as in autograd).
    fn logaddexp(&mut self, a: &Tensor, b: &Tensor, span: Span) -> R<Tensor> {
        let m = self.binary_same(BinaryOp::Max, a, b, span)?;
        let d = self.binary_same(BinaryOp::Sub, a, b, span)?;
        let ad = self.elementwise(UnaryOp::Abs, &d, span)?;
        let nd = self.elementwise(UnaryOp::Neg, &ad, span)?;
        let e = self.elementwise(UnaryOp::Exp, &nd, span)?;
        let one = self.scalar(1.0, e.ty.dtype, span)?;
        let e1 = self.binary_same(BinaryOp::Add, &e, &one, span)?;
        let l = self.elementwise(UnaryOp::Log, &e1, span)?;
        let r = self.binary_same(BinaryOp::Add, &m, &l, span)?;
        let ln2 = self.scalar(std::f64::consts::LN_2, a.ty.dtype, span)?;
        let twice = self.binary_same(BinaryOp::Add, &m, &ln2, span)?;
        let (va, vb) = (Value::Tensor(a.clone()), Value::Tensor(b.clone()));
        let equal = self.compare(CmpOp::Eq, &va, &vb, span)?;
        staged(
            self.select(&equal, &Value::Tensor(twice), &Value::Tensor(r), span)?,
            span,
        )
    }

    /// `np.reciprocal(x)`: `1 / x` for floats; for integers C's truncating
    /// division, as numpy computes it (`±1` stay, `0` gives the dtype's minimum, others 0).
    fn reciprocal(&mut self, v: &Value, span: Span) -> R<Value> {
        let t = self.to_tensor(v, None, span)?;
        let d = t.ty.dtype;
        if d == DType::Bool {
            return Err(Diagnostic::error(span, "np.reciprocal of a bool array gives int8 in numpy, which agc does not support; cast first"));
        }
        if d.is_float() {
            let one = self.scalar(1.0, d, span)?;
            return Ok(Value::Tensor(self.binary_same(
                BinaryOp::Div,
                &one,
                &t,
                span,
            )?));
        }
        let tv = Value::Tensor(t.clone());
        let a = Value::Tensor(self.elementwise(UnaryOp::Abs, &t, span)?);
        let unit = self.compare(CmpOp::Eq, &a, &Value::Int(1), span)?;
        let zero = Value::Tensor(self.scalar(0.0, d, span)?);
        let r = self.select(&unit, &tv, &zero, span)?;
        let min = if d == DType::I32 {
            i32::MIN as i64
        } else {
            i64::MIN
        };
        let min =
            Value::Tensor(self.constant(ConstData::Int(vec![min]), TensorType::scalar(d), span)?);
        let is0 = self.compare(CmpOp::Eq, &tv, &zero, span)?;
        self.select(&is0, &min, &r, span)
    }

    /// `np.nan_to_num(x, copy, nan=0.0, posinf=None, neginf=None)`: NaN and
    /// infinities replaced (by default with 0 and the dtype's largest finite values).
    fn nan_to_num(&mut self, args: &Args) -> R<Value> {
        let span = args.span;
        let t = self.to_tensor(&args.req(0, "x", "np.nan_to_num")?, None, span)?;
        if !t.ty.dtype.is_float() {
            return Ok(Value::Tensor(t));
        }
        let big = if t.ty.dtype == DType::F32 {
            f32::MAX as f64
        } else {
            f64::MAX
        };
        let replacement = |index: usize, name: &str, default: f64| -> R<Value> {
            match args.get_some(index, name) {
                None => Ok(Value::Float(default)),
                Some(v @ (Value::Int(_) | Value::Float(_) | Value::Bool(_))) => Ok(v),
                Some(Value::Tensor(s)) if s.ty.rank() == 0 => Ok(Value::Tensor(s)),
                Some(_) => Err(Diagnostic::unsupported(
                    span,
                    format!("np.nan_to_num: '{name}' must be a number"),
                )),
            }
        };
        let (nan, posinf, neginf) = (
            replacement(2, "nan", 0.0)?,
            replacement(3, "posinf", big)?,
            replacement(4, "neginf", -big)?,
        );
        let x = Value::Tensor(t.clone());
        let hits = [
            self.compare(CmpOp::Ne, &x, &x, span)?,
            self.compare(CmpOp::Eq, &x, &Value::Float(f64::INFINITY), span)?,
            self.compare(CmpOp::Eq, &x, &Value::Float(f64::NEG_INFINITY), span)?,
        ];
        let mut r = x;
        for (hit, value) in hits.iter().zip([nan, posinf, neginf]) {
            let v = Value::Tensor(self.to_tensor_as(&value, t.ty.dtype, span)?);
            r = self.select(hit, &v, &r, span)?;
        }
        Ok(r)
    }

    /// `np.round(a, decimals=0)`: round half to even at `decimals` digits,
    /// scaling as numpy does (multiply, round, divide; the other way round
    /// for negative `decimals`), in the array's own dtype.
    fn round(&mut self, args: &Args) -> R<Value> {
        let span = args.span;
        let t = self.to_tensor(&args.req(0, "a", "np.round")?, None, span)?;
        let decimals = match args.get_some(1, "decimals") {
            None => 0,
            Some(v) => v.as_int().ok_or_else(|| {
                Diagnostic::unsupported(span, "np.round: 'decimals' must be a compile-time int")
            })?,
        };
        let d = t.ty.dtype;
        if d == DType::Bool {
            return Err(bool_to_float16(span, "round"));
        }
        if !d.is_float() && decimals >= 0 {
            return Ok(Value::Tensor(t));
        }
        let work = if d.is_float() {
            t
        } else {
            self.cast(&t, DType::F64, span)?
        };
        let power = i32::try_from(decimals.unsigned_abs()).unwrap_or(i32::MAX);
        let scale = self.scalar(10f64.powi(power), work.ty.dtype, span)?;
        let (into, back) = if decimals >= 0 {
            (BinaryOp::Mul, BinaryOp::Div)
        } else {
            (BinaryOp::Div, BinaryOp::Mul)
        };
        let scaled = if decimals == 0 {
            work
        } else {
            self.binary_same(into, &work, &scale, span)?
        };
        let rounded = self.elementwise(UnaryOp::Round, &scaled, span)?;
        let r = if decimals == 0 {
            rounded
        } else {
            self.binary_same(back, &rounded, &scale, span)?
        };
        Ok(Value::Tensor(self.cast(&r, d, span)?))
    }
}
