//! Adjoints of elementwise ops (unary, binary, select, cast, fill), with
//! numpy broadcasting undone by [`unbroadcast`].

use super::{unbroadcast, DenseGrads, Rule, RuleError};
use agc_ir::{BinaryOp, CmpOp, UnaryOp, Value};

type R = Result<Value, RuleError>;

/// Reduces `v` (of the result's shape) to operand `i`'s shape.
fn to_operand(r: &mut Rule, v: Value, i: usize) -> R {
    let t = r.ty(r.x[i]);
    Ok(unbroadcast(&mut r.b, v, &t)?)
}

/// `unary(x)`.
pub(crate) fn unary(r: &mut Rule, u: UnaryOp) -> Result<DenseGrads, RuleError> {
    let (x, y, g) = (r.x[0], r.y, r.g);
    let b = &mut r.b;
    let dx = match u {
        UnaryOp::Neg => b.unary(UnaryOp::Neg, g),
        UnaryOp::Exp => b.mul(g, y)?,
        UnaryOp::Log => b.binary(BinaryOp::Div, g, x)?,
        UnaryOp::Tanh => {
            let yy = b.mul(y, y)?;
            let one = b.scalar(b.ty(y).dtype, 1.0);
            let d = b.binary(BinaryOp::Sub, one, yy)?;
            b.mul(g, d)?
        }
        UnaryOp::Sqrt => {
            let q = b.binary(BinaryOp::Div, g, y)?;
            b.mul_const(q, 0.5)?
        }
        UnaryOp::Abs => {
            let s = b.unary(UnaryOp::Sign, x);
            b.mul(g, s)?
        }
        UnaryOp::Sin => {
            let c = b.unary(UnaryOp::Cos, x);
            b.mul(g, c)?
        }
        UnaryOp::Cos => {
            let s = b.unary(UnaryOp::Sin, x);
            let gs = b.mul(g, s)?;
            b.unary(UnaryOp::Neg, gs)
        }
        UnaryOp::Asin | UnaryOp::Acos => {
            // ±1 / sqrt(1 - x²)
            let xx = b.mul(x, x)?;
            let one = b.scalar(b.ty(x).dtype, 1.0);
            let d = b.binary(BinaryOp::Sub, one, xx)?;
            let s = b.unary(UnaryOp::Sqrt, d);
            let q = b.binary(BinaryOp::Div, g, s)?;
            if u == UnaryOp::Acos {
                b.unary(UnaryOp::Neg, q)
            } else {
                q
            }
        }
        UnaryOp::Atan => {
            // 1 / (1 + x²)
            let xx = b.mul(x, x)?;
            let one = b.scalar(b.ty(x).dtype, 1.0);
            let d = b.add(one, xx)?;
            b.binary(BinaryOp::Div, g, d)?
        }
        UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::Sign | UnaryOp::Round | UnaryOp::Not => {
            return Ok(vec![None])
        }
    };
    Ok(vec![r.want[0].then_some(dx)])
}

/// `a op b`, broadcasting.
pub(crate) fn binary(r: &mut Rule, op: BinaryOp) -> Result<DenseGrads, RuleError> {
    let (a, bb, y, g) = (r.x[0], r.x[1], r.y, r.g);
    let dt = r.ty(y).dtype;
    let (da, db) = match op {
        BinaryOp::Add => (Some(g), Some(g)),
        BinaryOp::Sub => (Some(g), r.when(1, |r| Ok(r.b.unary(UnaryOp::Neg, g)))?),
        BinaryOp::Mul => (
            r.when(0, |r| Ok(r.b.mul(g, bb)?))?,
            r.when(1, |r| Ok(r.b.mul(g, a)?))?,
        ),
        BinaryOp::Div => {
            let q = r.b.binary(BinaryOp::Div, g, bb)?;
            let db = r.when(1, |r| {
                let qy = r.b.mul(q, y)?;
                Ok(r.b.unary(UnaryOp::Neg, qy))
            })?;
            (Some(q), db)
        }
        BinaryOp::Pow => {
            // d/da = b * a^(b-1), 0 where b == 0; d/db = y * log(a), 0 where a == 0.
            // Where b == 0 the exponent is 1 instead of -1, so that the derivative of
            // this adjoint (a second derivative) has no 0 * a^-2, NaN at a == 0
            // (autograd's `x ** where(y, y - 1, 1)`).
            let da = r.when(0, |r| {
                let b = &mut r.b;
                let one = b.scalar(dt, 1.0);
                let zero = b.scalar(dt, 0.0);
                let b0 = b.compare(CmpOp::Eq, bb, zero)?;
                let bm1 = b.binary(BinaryOp::Sub, bb, one)?;
                let e = b.select(b0, one, bm1)?;
                let p = b.binary(BinaryOp::Pow, a, e)?;
                let d = b.mul(bb, p)?;
                let d = b.select(b0, zero, d)?;
                Ok(b.mul(g, d)?)
            })?;
            let db = r.when(1, |r| {
                let b = &mut r.b;
                let one = b.scalar(dt, 1.0);
                let zero = b.scalar(dt, 0.0);
                let a0 = b.compare(CmpOp::Eq, a, zero)?;
                let safe = b.select(a0, one, a)?;
                let l = b.unary(UnaryOp::Log, safe);
                let d = b.mul(y, l)?;
                Ok(b.mul(g, d)?)
            })?;
            (da, db)
        }
        BinaryOp::Max | BinaryOp::Min => {
            // Weight of `a`: 1 where it wins, 1/2 on ties, 0 where it loses.
            let b = &mut r.b;
            let wins = b.compare(
                if op == BinaryOp::Max {
                    CmpOp::Gt
                } else {
                    CmpOp::Lt
                },
                a,
                bb,
            )?;
            let ties = b.compare(CmpOp::Eq, a, bb)?;
            let (one, half, zero) = (b.scalar(dt, 1.0), b.scalar(dt, 0.5), b.scalar(dt, 0.0));
            let tie_w = b.select(ties, half, zero)?;
            let w = b.select(wins, one, tie_w)?;
            let da = b.mul(g, w)?;
            let db = b.binary(BinaryOp::Sub, g, da)?;
            (Some(da), Some(db))
        }
        BinaryOp::Mod => {
            // a % b = a - floor(a / b) * b
            let db = r.when(1, |r| {
                let b = &mut r.b;
                let q = b.binary(BinaryOp::Div, a, bb)?;
                let fl = b.unary(UnaryOp::Floor, q);
                let gf = b.mul(g, fl)?;
                Ok(b.unary(UnaryOp::Neg, gf))
            })?;
            (Some(g), db)
        }
        BinaryOp::FMod => {
            // fmod(a, b) = a - trunc(a / b) * b, trunc(q) = sign(q) * floor(|q|)
            let db = r.when(1, |r| {
                let b = &mut r.b;
                let q = b.binary(BinaryOp::Div, a, bb)?;
                let mag = b.unary(UnaryOp::Abs, q);
                let fl = b.unary(UnaryOp::Floor, mag);
                let sign = b.unary(UnaryOp::Sign, q);
                let tr = b.mul(sign, fl)?;
                let gt = b.mul(g, tr)?;
                Ok(b.unary(UnaryOp::Neg, gt))
            })?;
            (Some(g), db)
        }
        BinaryOp::Atan2 => {
            // atan2(a, b): (b, -a) / (a² + b²)
            let b = &mut r.b;
            let aa = b.mul(a, a)?;
            let bb2 = b.mul(bb, bb)?;
            let den = b.add(aa, bb2)?;
            let q = b.binary(BinaryOp::Div, g, den)?;
            let da = b.mul(q, bb)?;
            let qa = b.mul(q, a)?;
            (Some(da), Some(b.unary(UnaryOp::Neg, qa)))
        }
        BinaryOp::FloorDiv
        | BinaryOp::And
        | BinaryOp::Or
        | BinaryOp::Xor
        | BinaryOp::Shl
        | BinaryOp::Shr => (None, None),
    };
    let mut out = Vec::new();
    for (i, d) in [da, db].into_iter().enumerate() {
        out.push(match d {
            Some(d) if r.want[i] => Some(to_operand(r, d, i)?),
            _ => None,
        });
    }
    Ok(out)
}

/// `np.where(c, a, b)`.
pub(crate) fn select(r: &mut Rule) -> Result<DenseGrads, RuleError> {
    let (c, g) = (r.x[0], r.g);
    let zero = r.b.scalar(r.ty(g).dtype, 0.0);
    let da = r.when(1, |r| {
        let d = r.b.select(c, g, zero)?;
        to_operand(r, d, 1)
    })?;
    let db = r.when(2, |r| {
        let d = r.b.select(c, zero, g)?;
        to_operand(r, d, 2)
    })?;
    Ok(vec![None, da, db])
}

/// `astype` between float dtypes casts the adjoint back (an integer operand
/// wants no adjoint, and an integer result has none).
pub(crate) fn cast(r: &mut Rule) -> Result<DenseGrads, RuleError> {
    let from = r.ty(r.x[0]).dtype;
    Ok(vec![r.when(0, |r| Ok(r.b.cast(r.g, from)))?])
}

/// `np.full(shape, s)`: the sum of the adjoint.
pub(crate) fn fill(r: &mut Rule) -> Result<DenseGrads, RuleError> {
    let rank = r.ty(r.g).rank();
    let dx = r.when(0, |r| {
        Ok(r.b.reduce(agc_ir::ReduceKind::Sum, r.g, (0..rank).collect(), false))
    })?;
    Ok(vec![dx])
}
