//! Python's `int` arithmetic on agc's compile-time integers.
//!
//! agc keeps a compile-time Python `int` in 64 bits. Every operation here
//! gives CPython's exact result, or an error at the expression when that
//! result leaves the 64-bit range (CPython would give a larger integer):
//! never a silently wrapped or saturated value. Float-to-int conversions
//! (`int(x)`, `round(x)`, `math.floor(x)`) raise CPython's errors for NaN
//! and infinities.

use super::R;
use crate::diagnostics::Diagnostic;
use agc_ir::Span;

/// The error for a result CPython would give as an integer beyond 64 bits.
pub fn overflow(span: Span) -> Diagnostic {
    Diagnostic::error(
        span,
        "integer overflow at compile time: the result does not fit in 64 bits (agc's compile-time Python ints are 64-bit)",
    )
}

fn negative_shift(span: Span) -> Diagnostic {
    Diagnostic::raises(span, "ValueError", "negative shift count")
}

/// `a + b`.
pub fn add(a: i64, b: i64, span: Span) -> R<i64> {
    a.checked_add(b).ok_or_else(|| overflow(span))
}

/// `a - b`.
pub fn sub(a: i64, b: i64, span: Span) -> R<i64> {
    a.checked_sub(b).ok_or_else(|| overflow(span))
}

/// `a * b`.
pub fn mul(a: i64, b: i64, span: Span) -> R<i64> {
    a.checked_mul(b).ok_or_else(|| overflow(span))
}

/// `-a`.
pub fn neg(a: i64, span: Span) -> R<i64> {
    a.checked_neg().ok_or_else(|| overflow(span))
}

/// `abs(a)`.
pub fn abs(a: i64, span: Span) -> R<i64> {
    a.checked_abs().ok_or_else(|| overflow(span))
}

/// `a // b` (floor division; `b` is not 0).
pub fn floor_div(a: i64, b: i64, span: Span) -> R<i64> {
    let q = a.checked_div(b).ok_or_else(|| overflow(span))?;
    Ok(if a % b != 0 && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    })
}

/// `a % b` (the sign of `b`; `b` is not 0).
pub fn modulo(a: i64, b: i64) -> i64 {
    let r = a.checked_rem(b).unwrap_or(0);
    if r != 0 && ((r < 0) != (b < 0)) {
        r + b
    } else {
        r
    }
}

/// `a ** b` for `b >= 0`.
pub fn pow(a: i64, b: i64, span: Span) -> R<i64> {
    match a {
        0 | 1 => Ok(if b == 0 { 1 } else { a }),
        -1 => Ok(if b % 2 == 0 { 1 } else { -1 }),
        _ => u32::try_from(b)
            .ok()
            .and_then(|b| a.checked_pow(b))
            .ok_or_else(|| overflow(span)),
    }
}

/// `a << b`.
pub fn lshift(a: i64, b: i64, span: Span) -> R<i64> {
    if b < 0 {
        return Err(negative_shift(span));
    }
    if a == 0 {
        return Ok(0);
    }
    if b >= 64 {
        return Err(overflow(span));
    }
    i64::try_from(i128::from(a) << b).map_err(|_| overflow(span))
}

/// `a >> b` (rounds towards minus infinity, as CPython).
pub fn rshift(a: i64, b: i64, span: Span) -> R<i64> {
    if b < 0 {
        return Err(negative_shift(span));
    }
    Ok(a >> b.min(63))
}

/// The integer CPython's `int()` would give for an integral float `x`
/// (`x` already truncated, floored, ceiled or rounded).
pub fn from_integral_f64(x: f64, span: Span) -> R<i64> {
    if x.is_nan() {
        return Err(Diagnostic::raises(
            span,
            "ValueError",
            "cannot convert float NaN to integer",
        ));
    }
    if x.is_infinite() {
        return Err(Diagnostic::raises(
            span,
            "OverflowError",
            "cannot convert float infinity to integer",
        ));
    }
    // 2^63 is exact as a float; every float below it in magnitude fits.
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if !(-TWO_63..TWO_63).contains(&x) {
        return Err(overflow(span));
    }
    Ok(x as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Span = Span { start: 0, end: 0 };

    #[test]
    fn exact_results_or_errors() {
        assert_eq!(lshift(3, 4, S).unwrap(), 48);
        assert_eq!(lshift(-1, 63, S).unwrap(), i64::MIN);
        assert!(lshift(1, 63, S).is_err());
        assert!(lshift(1, 100, S).is_err());
        assert!(lshift(1 << 40, 30, S).is_err());
        assert_eq!(lshift(0, 1000, S).unwrap(), 0);
        assert!(lshift(1, -1, S).is_err());
        assert_eq!(rshift(-5, 1, S).unwrap(), -3);
        assert_eq!(rshift(-5, 1000, S).unwrap(), -1);
        assert_eq!(rshift(5, 1000, S).unwrap(), 0);
        assert!(pow(2, 1 << 32, S).is_err());
        assert_eq!(pow(-1, (1 << 32) + 1, S).unwrap(), -1);
        assert_eq!(pow(1, i64::MAX, S).unwrap(), 1);
        assert_eq!(pow(3, 4, S).unwrap(), 81);
        assert!(floor_div(i64::MIN, -1, S).is_err());
        assert_eq!(floor_div(-7, 2, S).unwrap(), -4);
        assert_eq!(modulo(i64::MIN, -1), 0);
        assert_eq!(modulo(-7, 2), 1);
        assert!(neg(i64::MIN, S).is_err());
        assert!(abs(i64::MIN, S).is_err());
        assert!(from_integral_f64(1e300, S).is_err());
        assert!(from_integral_f64(f64::NAN, S).is_err());
        assert!(from_integral_f64(9.223_372_036_854_776e18, S).is_err());
        assert_eq!(
            from_integral_f64(-9.223_372_036_854_776e18, S).unwrap(),
            i64::MIN
        );
    }
}
